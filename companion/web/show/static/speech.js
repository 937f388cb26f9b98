// Spoken cues: milestones said by the phone's own voices (offline), in the page's language; kept on this
// phone. One sentence at a time, each to its end; what comes meanwhile waits in a CueQueue, never dropped.

import { CueQueue } from "./cues.js";

const STORE_KEY = "companion.cues";

export class Voice {
  // `words(cue)` is the sentence for a cue taken from the queue.
  constructor(words, storage = window.localStorage) {
    this.words = words;
    this.storage = storage;
    this.synth = window.speechSynthesis;
    this.speaking = null; // the utterance being said
    this.queue = new CueQueue();
  }

  get on() {
    return this.storage.getItem(STORE_KEY) === "on";
  }

  // From the tap on the switch (some browsers speak only after one).
  toggle(confirm) {
    const on = !this.on;
    this.storage.setItem(STORE_KEY, on ? "on" : "off");
    this.hush();
    if (on) this.speak(confirm); // it tells the player the voice works
    return on;
  }

  // Milestones that came together, each [milestone, rank]: said now, or when those before them are said.
  say(news) {
    if (!this.on || !this.synth) return;
    for (const [milestone, rank] of news) this.queue.add(milestone, rank);
    if (!this.speaking) this.next();
  }

  next() {
    const cue = this.queue.take();
    if (cue) this.speak(this.words(cue));
  }

  speak(text) {
    const utterance = new SpeechSynthesisUtterance(text);
    const lang = (utterance.lang = document.documentElement.lang);
    const voices = this.synth.getVoices().filter((v) => v.lang.split(/[-_]/)[0].toLowerCase() === lang);
    const voice = voices.find((v) => v.localService) ?? voices[0]; // on the phone itself: the table has no internet
    if (voice) utterance.voice = voice;
    const done = () => {
      if (this.speaking !== utterance) return; // hushed
      this.speaking = null;
      this.next();
    };
    utterance.addEventListener("end", done);
    utterance.addEventListener("error", done);
    this.speaking = utterance;
    this.synth.speak(utterance);
  }

  hush() {
    this.queue.clear();
    const speaking = this.speaking;
    this.speaking = null;
    if (speaking) this.synth.cancel();
  }
}
