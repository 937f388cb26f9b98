// Alerts on this phone, once its player opts in with a tap (browsers allow sound only after a gesture):
// a tune per kind of moment made here with Web Audio (no sound files), a vibration where the phone has
// one, and the screen kept awake (Screen Wake Lock) while a show runs. The choice is kept on this phone.

const STORE_KEY = "companion.alerts";
const A4_HZ = 440;
const NOTE_STEPS = { C: -9, D: -7, E: -5, F: -4, G: -2, A: 0, B: 2 };
const VOLUME = 0.25;
const EDGE_S = 0.01; // each note fades in and out this fast, so it does not click

// "A5" -> 880 Hz; "F#4", "Bb3" too.
export function frequency(note) {
  const [, letter, accidental, octave] = /^([A-G])([#b]?)(\d)$/.exec(note);
  const steps = NOTE_STEPS[letter] + (accidental === "#" ? 1 : accidental === "b" ? -1 : 0) + (Number(octave) - 4) * 12;
  return A4_HZ * 2 ** (steps / 12);
}

export class Alerts {
  constructor(sounds, storage = window.localStorage) {
    this.sounds = sounds;
    this.storage = storage;
    this.audio = null;
    this.wakeLock = null;
    this.wantAwake = false;
    document.addEventListener("visibilitychange", () => this.keepAwake(this.wantAwake));
  }

  get on() {
    return this.storage.getItem(STORE_KEY) === "on";
  }

  // Called from the tap on the toggle: that gesture is what lets the page make sound.
  async toggle() {
    const on = !this.on;
    this.storage.setItem(STORE_KEY, on ? "on" : "off");
    if (on) {
      this.unlockAudio();
      this.play("advance");
    }
    await this.keepAwake(this.wantAwake);
    return on;
  }

  unlockAudio() {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    this.audio ??= new Context();
    if (this.audio.state === "suspended") this.audio.resume();
  }

  play(kind) {
    if (!this.on) return;
    const sound = this.sounds[kind];
    if (!sound) return;
    if (navigator.vibrate) navigator.vibrate(sound.vibrate);
    if (!this.audio) return; // a reloaded page waits for the next tap before it may sound
    let at = this.audio.currentTime;
    for (const [note, seconds] of sound.notes) {
      if (note) this.tone(frequency(note), at, seconds);
      at += seconds;
    }
  }

  tone(hz, at, seconds) {
    const oscillator = this.audio.createOscillator();
    const gain = this.audio.createGain();
    oscillator.type = "square";
    oscillator.frequency.value = hz;
    gain.gain.setValueAtTime(0, at);
    gain.gain.linearRampToValueAtTime(VOLUME, at + EDGE_S);
    gain.gain.setValueAtTime(VOLUME, at + seconds - EDGE_S);
    gain.gain.linearRampToValueAtTime(0, at + seconds);
    oscillator.connect(gain).connect(this.audio.destination);
    oscillator.start(at);
    oscillator.stop(at + seconds);
  }

  // Keep the screen on while a show runs (and alerts are on); a hidden page loses the lock, so it is asked again.
  async keepAwake(wanted) {
    this.wantAwake = wanted;
    const should = wanted && this.on && document.visibilityState === "visible";
    if (!should) {
      const lock = this.wakeLock;
      this.wakeLock = null;
      await lock?.release().catch(() => {});
      return;
    }
    if (this.wakeLock || !navigator.wakeLock) return;
    try {
      this.wakeLock = await navigator.wakeLock.request("screen");
      this.wakeLock.addEventListener("release", () => { this.wakeLock = null; });
    } catch {
      this.wakeLock = null; // refused (battery saver, an insecure address): the page still works
    }
  }
}
