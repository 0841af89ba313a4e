// Telling the player it is his turn when he is looking elsewhere: the tab's title ("● Your
// turn: Gin Rummy", in the page's language), a badge on the favicon (a generated SVG), and
// sounds (js/sound.js) for his turn, a knock, gin and his clock running low. The title blinks
// only while the tab is hidden, and never under `prefers-reduced-motion`.
import { t } from "./i18n.js";
import { play } from "./sound.js";

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
