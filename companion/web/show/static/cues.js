// What waits to be said: every milestone, in order of importance, none ever dropped. Glasses that run
// low while others wait are told in one sentence ("Red and blue, 9 seconds left"): low sand is worth
// hearing only while it is fresh, and one sentence for a pile-up keeps the voice up with the table. A glass
// that runs out while its low sand waits is told by its run-out ("Red ran out" says more than "Red, 10
// seconds left" would, and the other way round would be wrong).
// Pure: no page, no voice; speech.js says what take() gives.

export class CueQueue {
  constructor() {
    this.items = []; // {kind, rank, ...slots}; most important first, the earlier of equals first
  }

  get length() {
    return this.items.length;
  }

  // A milestone (as milestones.js makes them) of importance `rank`.
  add(milestone, rank) {
    if (milestone.kind === "low_sand") {
      const waiting = this.items.find((item) => item.kind === "low_sand");
      if (waiting) {
        if (!waiting.timers.includes(milestone.timer)) waiting.timers.push(milestone.timer);
        waiting.seconds = Math.min(waiting.seconds, milestone.seconds); // the first to run out sets the time
        return;
      }
      milestone = { kind: "low_sand", timers: [milestone.timer], seconds: milestone.seconds };
    }
    if (milestone.kind === "runout") this.ranOut(milestone.timer);
    const at = this.items.findIndex((item) => item.rank < rank);
    this.items.splice(at === -1 ? this.items.length : at, 0, { ...milestone, rank });
  }

  ranOut(timer) {
    const waiting = this.items.find((item) => item.kind === "low_sand");
    if (!waiting) return;
    waiting.timers = waiting.timers.filter((low) => low !== timer);
    if (!waiting.timers.length) this.items.splice(this.items.indexOf(waiting), 1);
  }

  // The next to say, or null.
  take() {
    return this.items.shift() ?? null;
  }

  clear() {
    this.items = [];
  }
}
