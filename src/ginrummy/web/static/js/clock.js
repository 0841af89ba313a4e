// The turn clock: a ring drawn by CSS (a conic gradient, no glyph) that empties as the turn
// runs out and turns to its warning colour near the end; the words for a move the computer
// played because a clock ran out (the server's `notice` of kind `clock`); and the moves the
// clock played as a state tells them (`clock_moves`, rebuilt by the server from its stored
// events): after a reload, or for a spectator arriving late, a move the clock made still
// reads as the clock's (docs/protocol.md, `state`).
import { cardText } from "./cards.js";
import { el } from "./dom.js";
import { has, t } from "./i18n.js";
import { play } from "./sound.js";

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

// ------------------------------------------------------------------ telling the player it is his turn (formerly js/notify.js)
// Telling the player it is his turn when he is looking elsewhere: the tab's title ("● Your
// turn: Gin Rummy", in the page's language), a badge on the favicon (a generated SVG), and
// sounds (js/sound.js) for his turn, a knock, gin and his clock running low. The title blinks
// only while the tab is hidden, and never under `prefers-reduced-motion`.
/** Seconds left on the player's own clock when the warning sounds. */
export const CLOCK_WARNING_MS = 10_000;
const BLINK_MS = 1000;

const reducedMotion = () => window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;

/** The favicon: a card on green felt, with a red badge on the player's turn. */
export function faviconUrl(badge) {
  const dot = badge ? '<circle cx="24" cy="8" r="7.5" fill="#d21f1f" stroke="#fff" stroke-width="1.5"/>' : "";
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    + '<rect width="32" height="32" rx="6" fill="#1f6b3a"/>'
    + '<rect x="7" y="5" width="16" height="22" rx="2.5" fill="#fff"/>'
    + '<path d="M15 11l4 5-4 5-4-5z" fill="#c0392b"/>' + dot + "</svg>";
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

function setFavicon(badge) {
  let link = document.querySelector('link[rel~="icon"]');
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.append(link);
  }
  link.type = "image/svg+xml";
  link.href = faviconUrl(badge);
  document.documentElement.dataset.favicon = badge ? "turn" : "plain";
}

/** Follows a table page's states; `update` after each render, `stop` when leaving. */
export class TurnNotifier {
  constructor() {
    this.mine = null; // null until the first state: nothing sounds for what was already so
    this.knockKey = null;
    this.seenView = false;
    this.clockTimer = null;
    this.clockWarned = false;
    this.blinkTimer = null;
    this.blinkOn = false;
    this.onVisibility = () => this.applyTitle();
    document.addEventListener("visibilitychange", this.onVisibility);
    setFavicon(false);
  }

  /**
   * `mine`: the page waits for this seat's action; `view`: the seat's view (or null);
   * `deadline`: {seat, at} on `performance.now()`'s scale, or null; `seat`: this page's seat.
   */
  update({ mine, view, deadline, seat }) {
    // nothing sounds for what was already so when the first view arrived
    const first = this.mine === null || !this.seenView;
    if (view) this.seenView = true;
    if (!first && mine && !this.mine) play("turn");
    if (!mine) this.clockWarned = false;
    this.mine = Boolean(mine);
    const knock = view && view.knock;
    const key = knock ? `${view.hand_number}|${knock.knocker}` : null;
    if (key && key !== this.knockKey && !first) play(knock.gin ? "gin" : "knock");
    this.knockKey = key;
    this.armClock(mine && deadline && deadline.seat === seat ? deadline.at : null);
    this.applyTitle();
    setFavicon(this.mine);
  }

  /** The warning when the player's own clock falls under CLOCK_WARNING_MS, once a turn. */
  armClock(at) {
    clearTimeout(this.clockTimer);
    this.clockTimer = null;
    if (at === null || this.clockWarned) return;
    const left = at - performance.now();
    if (left <= 0) return;
    const warn = () => {
      this.clockWarned = true;
      play("clock");
    };
    if (left <= CLOCK_WARNING_MS) warn();
    else this.clockTimer = setTimeout(warn, left - CLOCK_WARNING_MS);
  }

  applyTitle() {
    const base = t("app.title");
    const turn = t("notify.title_turn", { title: base });
    const blink = this.mine && document.hidden && !reducedMotion();
    document.documentElement.dataset.titleBlink = blink ? "on" : "off";
    if (blink && !this.blinkTimer) {
      this.blinkOn = true;
      this.blinkTimer = setInterval(() => {
        this.blinkOn = !this.blinkOn;
        document.title = this.blinkOn ? turn : base;
      }, BLINK_MS);
    } else if (!blink && this.blinkTimer) {
      clearInterval(this.blinkTimer);
      this.blinkTimer = null;
    }
    if (!this.blinkTimer) document.title = this.mine ? turn : base;
    document.documentElement.dataset.turn = this.mine ? "mine" : "";
  }

  /** Leaving the table: the plain title and icon, no timers left behind. */
  stop() {
    clearTimeout(this.clockTimer);
    clearInterval(this.blinkTimer);
    this.blinkTimer = null;
    this.mine = false;
    document.removeEventListener("visibilitychange", this.onVisibility);
    document.documentElement.dataset.turn = "";
    document.documentElement.dataset.titleBlink = "off";
    document.title = t("app.title");
    setFavicon(false);
  }
}
