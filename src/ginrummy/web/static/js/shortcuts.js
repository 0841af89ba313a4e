// The switch for the table's one-key shortcuts (WCAG 2.1.4): a checkbox among the page's
// settings, remembered per browser (prefs.shortcuts), and the help dialog's note when they
// are off. Keys of a focused control (the hand's arrows and Enter, a button's Enter) are not
// shortcuts and always work.
import { prefs } from "./prefs.js";

/** True when single keys may act at the table. */
export function shortcutsOn() {
  return Boolean(prefs.shortcuts);
}

/** True on a touch screen without a mouse (a phone, a tablet): no keyboard hints there, and
 * cards are tapped, not clicked. */
export function touchOnly() {
  return typeof matchMedia === "function" && matchMedia("(pointer: coarse)").matches
    && !matchMedia("(any-pointer: fine)").matches;
}

/** A button's label without its key hint ("Take 7♥ (T)" → "Take 7♥") on a touch screen: the
 * catalogues end such labels with the key in brackets. */
export function keyHint(text) {
  return touchOnly() ? text.replace(/\s*\([^()]{1,8}\)$/u, "") : text;
}

/** Shows the help dialog's "shortcuts are off" note exactly when they are off. */
function showState() {
  const on = shortcutsOn();
  const note = document.getElementById("help-shortcuts-off");
  if (note) note.hidden = on;
  const keys = document.getElementById("help-keys");
  if (keys) keys.dataset.shortcuts = on ? "on" : "off";
}

/** Wires the settings checkbox (`#pref-shortcuts`) once. */
export function setupShortcutSwitch() {
  const box = document.getElementById("pref-shortcuts");
  if (!box || box.dataset.wired) return;
  box.dataset.wired = "true";
  box.checked = shortcutsOn();
  box.addEventListener("change", () => {
    prefs.shortcuts = box.checked;
    showState();
  });
  showState();
}

setupShortcutSwitch();
