// The switch for the table's one-key shortcuts (WCAG 2.1.4): a checkbox among the page's
// settings, remembered per browser (prefs.shortcuts), and the help dialog's note when they
// are off. Keys of a focused control (the hand's arrows and Enter, a button's Enter) are not
// shortcuts and always work.
import { prefs } from "./prefs.js";

/** True when single keys may act at the table. */
export function shortcutsOn() {
  return Boolean(prefs.shortcuts);
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
