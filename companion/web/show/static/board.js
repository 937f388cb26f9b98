// What a state shows besides the glasses: the countdown track, the crowd tokens, the event, what
// happened, and the result card (once per show, and kept dismissed on this phone).

import { t, timerName } from "/static/js/i18n.js";

const $ = (id) => document.getElementById(id);
const DISMISSED_KEY = "companion.result_dismissed"; // the show whose result card was closed, kept on this phone

export const clock = (s) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;

export function item(text, className = "") {
  const li = document.createElement("li");
  li.textContent = text;
  if (className) li.className = className;
  return li;
}

// A show's own name on this phone: ids start again on a fresh database, start times do not.
export const showKey = (show) => `${show.id}@${show.started}`;

export class Board {
  constructor(looks, crowdTokens) {
    this.looks = looks;
    this.crowdTokens = crowdTokens;
    this.watched = new Set(); // the shows this page saw running: only their end brings the result card
    $("result-close").addEventListener("click", () => {
      if (this.show) localStorage.setItem(DISMISSED_KEY, showKey(this.show));
      $("result").hidden = true;
      $("show-title").focus(); // its button is gone: the focus goes back to the top, never to the page body
    });
  }

  label(colour) {
    return `${this.looks[colour].symbol} ${timerName(colour)}`;
  }

  stars(n) {
    return "★".repeat(n) + "☆".repeat(this.crowdTokens - n);
  }

  draw(show) {
    this.show = show;
    if (show.outcome === "running") this.watched.add(showKey(show));
    const idle = show.outcome === "idle";
    $("board").hidden = idle;
    if (!idle) this.track(show);
    this.event(show);
    this.happenings(show);
    this.result(show);
  }

  track(show) {
    const { timer, position } = show.countdown;
    const track = $("countdown");
    track.replaceChildren();
    for (let space = show.event.countdown_start; space >= 0; space--) {
      const name = space === 0 ? t("countdown.button") : String(space);
      const li = item(space === position ? `${name} ${this.looks[timer].symbol}` : name, space === 0 ? "button" : "");
      if (space === position) {
        li.classList.add("here");
        li.setAttribute("aria-current", "step");
        li.setAttribute("aria-label", t("countdown.here", { space: name, timer: timerName(timer) }));
      }
      track.appendChild(li);
    }
    const tokens = $("tokens");
    tokens.replaceChildren();
    for (let i = 0; i < this.crowdTokens; i++) {
      const turned = i >= this.crowdTokens - show.crowd_tokens_turned;
      const li = item(turned ? "✕" : "★", turned ? "token turned" : "token");
      li.setAttribute("aria-label", t(turned ? "tokens.turned" : "tokens.star"));
      tokens.appendChild(li);
    }
  }

  event(show) {
    const box = $("event");
    box.hidden = show.outcome === "idle";
    if (box.hidden) return;
    const event = show.event;
    const list = (cs) => cs.map((c) => this.label(c)).join("  ") || "–";
    $("event-hand").textContent = event.hand_size;
    $("event-countdown").textContent = `${this.label(show.countdown.timer)} · ${t("event.start_space", { n: event.countdown_start })}`;
    $("event-running").textContent = list(event.running);
    $("event-lying").textContent = list(event.lying);
    $("event-rules").textContent = event.rules;
    $("event-rules").hidden = !event.rules;
  }

  happenings(show) {
    const label = (c) => this.label(c);
    const happened = show.outcome === "idle" ? [] : [
      ...show.runouts.map((r) => [r.t, t("happening.runout", { timer: label(r.timer) }), "alert"]),
      ...show.advances.map((a) => [a.t, a.position > 0 ? t("happening.advance", { n: a.position }) : t("happening.button"), "go"]),
      ...show.warnings.map((w) => [w.t, t(`warning.${w.kind}`, { timer: label(w.timer) }), "warn"]),
    ].sort((a, b) => b[0] - a[0]);
    $("happenings").hidden = happened.length === 0;
    $("happenings-list").replaceChildren(...happened.map(([when, text, kind]) => item(`${clock(when)}  ${text}`, kind)));
  }

  // Why the show ended: the glass whose run-out turned the last crowd token, or the countdown reaching the finale.
  why(show) {
    if (show.outcome === "loss" && show.runouts.length) {
      const last = show.runouts[show.runouts.length - 1];
      return t("table.why_loss", { timer: this.label(last.timer), time: clock(last.t), n: show.runouts.length });
    }
    const finale = show.advances[show.advances.length - 1];
    return t("table.why_win", { time: clock(finale?.t ?? show.t), tokens: show.crowd_tokens_turned });
  }

  result(show) {
    const box = $("result");
    const over = show.outcome === "win" || show.outcome === "loss";
    // Once, on the phones that saw the show end; a page opened later reads the outcome in the status line.
    box.hidden = !over || !this.watched.has(showKey(show)) || localStorage.getItem(DISMISSED_KEY) === showKey(show);
    if (box.hidden) return;
    box.dataset.outcome = show.outcome;
    $("result-title").textContent = show.outcome === "loss"
      ? t("result.loss_what", { n: this.crowdTokens }) : t(`result.${show.outcome}`);
    $("result-stars").textContent = this.stars(show.stars);
    $("result-stars").setAttribute("aria-label", t("stars.of", { n: show.stars }));
    $("result-detail").textContent = this.why(show);
  }
}

// The custom-event form's body, by the same rules as companion.skyrockets.parse_event: the countdown glass
// must be in play.
export const eventShape = {
  body({ event, setup, challenge }) {
    const chosen = (state) => Object.keys(setup).filter((colour) => setup[colour] === state);
    const body = { ...event, running: chosen("running"), lying: chosen("lying") };
    if (!body.name.trim()) delete body.name;
    return { event: body, challenge };
  },
  check({ event }) {
    const inPlay = event.running.includes(event.countdown) || event.lying.includes(event.countdown);
    return inPlay ? [] : [["event.countdown", t("custom.countdown_in_play", { timer: timerName(event.countdown) })]];
  },
};
