// The turn clock: a ring drawn by CSS (a conic gradient, no glyph) that empties as the turn
// runs out and turns to its warning colour near the end; the words for a move the computer
// played because a clock ran out (the server's `notice` of kind `clock`); and the moves the
// clock played as a state tells them (`clock_moves`, rebuilt by the server from its stored
// events): after a reload, or for a spectator arriving late, a move the clock made still
// reads as the clock's (docs/protocol.md, `state`).
import { cardText } from "./cards.js";
import { el } from "./dom.js";
import { has, t } from "./i18n.js";

/** Minutes and seconds, rounded up: 0:09. */
export function formatClock(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** When the warning starts: the last 10 s, or the last quarter of a shorter turn. */
export function warningMs(totalMs) {
  return Math.min(10000, totalMs / 4);
}

/** A seat's clock, shown at once from `deadline` (hidden unless it is this seat's turn). */
export function clockElement(seat, deadline) {
  const node = el("span", { class: "clock", role: "timer", dataset: { seat }, hidden: true, "aria-label": t("table.clock") },
    el("span", { class: "clock-ring", "aria-hidden": "true" }),
    el("span", { class: "clock-time" }));
  updateClock(node, deadline, performance.now());
  return node;
}

/**
 * Shows `deadline` ({seat, at, total} in performance.now() milliseconds) on a clock element
 * when it is this element's seat, else hides it. The ring's share left is the CSS variable
 * `--left` (0 to 1); the class `low` (and `data-warning`) marks the warning state.
 */
export function updateClock(node, deadline, now) {
  const seat = Number(node.dataset.seat);
  if (!deadline || deadline.seat !== seat) {
    node.hidden = true;
    node.classList.remove("low");
    delete node.dataset.warning;
    return;
  }
  const left = Math.max(0, deadline.at - now);
  const total = deadline.total > 0 ? deadline.total : left || 1;
  const low = left <= warningMs(total);
  const text = formatClock(left);
  node.hidden = false;
  node.style.setProperty("--left", String(Math.min(1, left / total)));
  node.classList.toggle("low", low);
  if (low) node.dataset.warning = "true"; else delete node.dataset.warning;
  const time = node.querySelector(".clock-time");
  if (time && time.textContent !== text) {
    time.textContent = text;
    node.setAttribute("aria-label", t("table.clock_left", { time: text }));
  }
}

const PLAYED = ["pass", "stock", "take", "discard", "knock", "gin", "layoff"];

/** "Time ran out: the computer discarded 7h for Ann." from a clock notice's action. */
export function clockPlayedText(action, name) {
  const words = String(action || "").split(/\s+/);
  const kind = PLAYED.includes(words[0]) ? words[0] : "other";
  const card = words[1] && /^[A2-9TJQK][shdc]$/i.test(words[1]) ? cardText(words[1]) : "";
  const key = `clock.played.${kind}`;
  return t(has(key) ? key : "clock.played.other", { name, card });
}

/**
 * Adds the state's `clock_moves` of the current hand to `clockMoves` ("hand:index" ->
 * action the clock played), the action read from that line of `view.log` (public notation:
 * a stock draw names no card). A key a live `notice` already set is kept as it is.
 */
export function seedClockMoves(clockMoves, state) {
  const view = state && state.view;
  const log = (view && view.log) || [];
  for (const move of (state && state.clock_moves) || []) {
    const key = `${move.hand}:${move.index}`;
    if (clockMoves.has(key)) continue;
    const entry = view && view.hand_number === move.hand ? log[move.index] : undefined;
    clockMoves.set(key, entry ? String(entry.action || "") : "");
  }
}
