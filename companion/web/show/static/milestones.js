// A show's milestones (low sand, a run-out, an advance, the end): what changed from one state to the next.
// Sound, voice and live log all take them from here, so they never disagree; each is one sentence, cues.KIND.

import { t, timerName } from "/static/js/i18n.js";
import { showKey } from "./board.js";

// Which one wins when several come together: the end, a run-out (a token gone), an advance, low sand.
export const RANK = { win: 4, loss: 4, runout: 3, advance: 2, low_sand: 1 };

const sameShow = (a, b) => showKey(a) === showKey(b);
const low = (timer, lead) => timer?.role === "timer" && timer.state === "running" && timer.top_s <= lead;

export class Milestones {
  constructor(crowdTokens) {
    this.crowdTokens = crowdTokens;
    this.last = null;
  }

  // What `state` brings since the last state of the same running show, in order. A first state tells
  // nothing, nor one after a `gap` in the stream that does not directly follow the last (old news).
  next(state, gap = false) {
    const last = this.last;
    if (last && sameShow(state, last) && state.seq < last.seq) return []; // a late, older state
    this.last = state;
    if (!last || last.outcome !== "running" || !sameShow(state, last) || (gap && state.seq !== last.seq + 1)) return [];
    const lead = state.warn_lead_s;
    const lows = Object.entries(state.timers).filter(([c, timer]) => low(timer, lead) && !low(last.timers[c], lead))
      .map(([c, timer]) => ({ kind: "low_sand", t: state.t, timer: c, seconds: Math.ceil(timer.top_s) }));
    const turned = last.runouts.length;
    const runouts = state.runouts.slice(turned)
      .map((r, i) => ({ kind: "runout", t: r.t, timer: r.timer, tokens: Math.max(0, this.crowdTokens - turned - i - 1) }));
    const advances = state.advances.slice(last.advances.length).filter((a) => a.position > 0) // the last one is the win
      .map((a) => ({ kind: "advance", t: a.t, spaces: a.position }));
    const end = ["win", "loss"].includes(state.outcome) ? [{ kind: state.outcome, t: state.t, stars: state.stars }] : [];
    return [...lows, ...runouts, ...advances, ...end].sort((a, b) => a.t - b.t);
  }
}

// The one to say of several: the most important, the latest of equals.
export const mostImportant = (news) => news.reduce((a, b) => (RANK[b.kind] >= RANK[a.kind] ? b : a));

// Its words; `timers`: glasses low together, from the cue queue.
export const sentence = ({ kind, timer, timers, rank, ...slots }) =>
  t(`cues.${kind}`, { ...slots, timer: timers ? names(timers.map(timerName)) : timer && timerName(timer) });

// "Red, blue and yellow" / 「赤と青と黄」
const names = ([first, ...rest]) => {
  rest = rest.map((name) => name.toLocaleLowerCase(document.documentElement.lang));
  const last = rest.pop();
  return last ? [first, ...rest].join(t("cues.list_comma")) + t("cues.list_and") + last : first;
};
