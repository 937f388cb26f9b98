// What waits to be said: every milestone, the most important first, none dropped. Glasses low together are
// one sentence (low sand is news only while fresh); a glass that runs out while its low sand waits is told
// by its run-out. Pure: speech.js says what take() gives.

export class CueQueue {
  constructor() {
    this.items = []; // {kind, rank, ...slots}; by rank, then by arrival
  }

  add(milestone, rank) {
    if (milestone.kind === "low_sand") {
      const waiting = this.items.find((item) => item.kind === "low_sand");
      if (waiting) {
        if (!waiting.timers.includes(milestone.timer)) waiting.timers.push(milestone.timer);
        waiting.seconds = Math.min(waiting.seconds, milestone.seconds);
        return;
      }
      milestone = { kind: "low_sand", timers: [milestone.timer], seconds: milestone.seconds };
    }
    if (milestone.kind === "runout") this.ranOut(milestone.timer);
    const at = this.items.findIndex((item) => item.rank < rank);
    this.items.splice(at === -1 ? this.items.length : at, 0, { ...milestone, rank });
  }

  ranOut(timer) {
    const low = this.items.find((item) => item.kind === "low_sand");
    if (low) low.timers = low.timers.filter((c) => c !== timer);
    this.items = this.items.filter((item) => item.timers?.length !== 0);
  }

  // The next to say, or null.
  take() {
    return this.items.shift() ?? null;
  }

  clear() {
    this.items.length = 0;
  }
}
