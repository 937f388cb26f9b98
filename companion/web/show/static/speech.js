// Spoken cues: milestones said by the phone's own voices (offline), in the page's language; kept on this
// phone. Never a pile: a more important milestone cuts the one being said short; any other waits alone,
// replaced by a later one at least as important (a lesser one is dropped: the log has it).

import { RANK } from "./milestones.js";

const STORE_KEY = "companion.cues";

export class Voice {
  constructor(storage = window.localStorage) {
    this.storage = storage;
    this.synth = window.speechSynthesis;
    this.speaking = null; // {utterance, rank}
    this.waiting = null; // {text, rank}
  }

  get on() {
    return this.storage.getItem(STORE_KEY) === "on";
  }

  // From the tap on the switch (some browsers speak only after one).
  toggle(confirm) {
    const on = !this.on;
    this.storage.setItem(STORE_KEY, on ? "on" : "off");
    this.hush();
    if (on) this.say(confirm, RANK.win); // not cut short: it tells the player the voice works
    return on;
  }

  say(text, rank) {
    if (!this.on || !this.synth) return;
    if (this.speaking && rank <= this.speaking.rank) {
      if (rank >= (this.waiting?.rank ?? 0)) this.waiting = { text, rank };
      return;
    }
    this.hush();
    const utterance = new SpeechSynthesisUtterance(text);
    const lang = (utterance.lang = document.documentElement.lang);
    const voices = this.synth.getVoices().filter((v) => v.lang.split(/[-_]/)[0].toLowerCase() === lang);
    const voice = voices.find((v) => v.localService) ?? voices[0]; // on the phone itself: the table has no internet
    if (voice) utterance.voice = voice;
    const done = () => {
      if (this.speaking?.utterance !== utterance) return; // cut short
      const next = this.waiting;
      this.speaking = this.waiting = null;
      if (next) this.say(next.text, next.rank);
    };
    utterance.addEventListener("end", done);
    utterance.addEventListener("error", done);
    this.speaking = { utterance, rank };
    this.synth.speak(utterance);
  }

  hush() {
    this.waiting = null;
    if (this.speaking) this.synth.cancel();
    this.speaking = null;
  }
}
