// Short sounds made with the Web Audio API (no audio files): your turn, a knock, gin, the
// clock running low. Nothing plays before the person has interacted with the page (browsers'
// autoplay rules: the AudioContext is made on the first click, tap or key), nor when the
// top bar's sound switch is off (remembered per browser by prefs.js). Every oscillator
// started is counted on `window.ginrummySound.started` for the browser tests.
import { prefs } from "./prefs.js";

/** Each sound: a few tones [frequency Hz, start s, length s, type]. */
const SOUNDS = {
  turn: [[660, 0, 0.09, "sine"], [880, 0.1, 0.12, "sine"]],
  knock: [[180, 0, 0.06, "square"], [160, 0.12, 0.06, "square"]],
  gin: [[523, 0, 0.1, "triangle"], [659, 0.1, 0.1, "triangle"], [784, 0.2, 0.1, "triangle"], [1047, 0.3, 0.2, "triangle"]],
  clock: [[988, 0, 0.07, "square"], [988, 0.18, 0.07, "square"], [988, 0.36, 0.07, "square"]],
};

const state = { context: null, interacted: false };

/** What the tests read: oscillators started, and each request with what became of it. */
const probe = { started: 0, requests: [] };
window.ginrummySound = probe;

function unlock() {
  state.interacted = true;
  if (!prefs.sound) return;
  try {
    state.context = state.context || new AudioContext();
    if (state.context.state === "suspended") state.context.resume();
  } catch {
    state.context = null; // no Web Audio here: the page stays silent
  }
}

for (const kind of ["pointerdown", "keydown"]) window.addEventListener(kind, unlock, { capture: true });

/** Whether sounds are on (the switch; on unless turned off). */
export function soundOn() {
  return Boolean(prefs.sound);
}

/** Play one of SOUNDS by name, unless muted or before the first interaction; returns whether
 * it played. */
export function play(name) {
  const tones = SOUNDS[name];
  if (!tones) throw new Error(`unknown sound ${name}`);
  let outcome = "played";
  if (!prefs.sound) outcome = "muted";
  else if (!state.interacted) outcome = "no-interaction";
  else {
    unlock();
    if (!state.context) outcome = "unavailable";
  }
  probe.requests.push({ name, outcome, at: performance.now() });
  if (outcome !== "played") return false;
  const ctx = state.context;
  const now = ctx.currentTime + 0.01;
  for (const [frequency, start, length, type] of tones) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = type;
    osc.frequency.value = frequency;
    // a short attack and decay: no click at either end
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(0.15, now + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(now + start);
    osc.stop(now + start + length + 0.02);
    probe.started += 1;
  }
  return true;
}

/** Wire the top bar's switch (#pref-sound) to the stored preference. */
function bindSwitch() {
  const box = document.getElementById("pref-sound");
  if (!box) return;
  box.checked = soundOn();
  document.body.dataset.sound = soundOn() ? "on" : "off";
  box.addEventListener("change", () => {
    prefs.sound = box.checked;
    document.body.dataset.sound = box.checked ? "on" : "off";
    if (box.checked) unlock(); // the change itself is an interaction
  });
}

bindSwitch();
