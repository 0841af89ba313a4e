// Motion at the table (issue 13.2), with the Web Animations API and the FLIP approach: the
// table records where the cards are (`capture`) before render() replaces the DOM, and once
// the new DOM is in place (`play`) the cards that moved are animated from where they were to
// where they now are. The DOM is final at once; only `transform` animates, so no input waits
// and no state is delayed. The new places are read, and the flights started, in the next
// animation frame (before that frame's layout and paint, so nothing shows unmoved): render()
// forces no layout of the new DOM. A click or a key finishes every flight at once, and under
// `prefers-reduced-motion: reduce` nothing is animated at all.
//
// What moves: a drawn card from the stock or the discard pile into the hand (an opponent's
// as a card back), a discard from the hand onto the pile, the deal at the start of each hand,
// and the knocker's melds when they are laid down (the layoff panel) and at the reveal.

/** One card's flight, in milliseconds (the issue: 150 to 350 ms). */
export const MOVE_MS = 260;
/** One dealt card's flight, and the gap between two dealt cards (the whole deal under 350 ms). */
export const DEAL_MS = 200;
export const DEAL_GAP_MS = 12;
const MELD_GAP_MS = 15;
const EASING = "cubic-bezier(0.2, 0.7, 0.3, 1)";
const RENDER_TIMES_KEPT = 200;
/** Flights planned longer ago than this when their frame comes are dropped (a tab hidden
 * meanwhile, whose frames stop; a busy machine only delays the frame: nothing was painted
 * since, so the flights still start from the places shown before). */
const STALE_MS = 2000;

/** True when the browser asks for reduced motion (then nothing is ever animated). */
export function reducedMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

/** What the tests and the benchmark read: animations started and finished early; the last
 * render() times, the share of them spent here (recording the places, planning the flights),
 * and the time taken in the next frame to start the flights. */
const probe = { started: 0, skipped: 0, renderMs: [], motionMs: [], frameMs: [] };
window.ginrummyMotion = probe;

function note(list, ms) {
  list.push(ms);
  if (list.length > RENDER_TIMES_KEPT) list.shift();
}

function rectOf(node) {
  if (!node) return null;
  const box = node.getBoundingClientRect();
  return box.width > 0 && box.height > 0 ? { left: box.left, top: box.top, width: box.width, height: box.height } : null;
}

/** Where the cards are before a render: the piles, the own hand's cards, the other seats' backs. */
function captureRects() {
  const hand = new Map();
  for (const node of document.querySelectorAll("#my-hand .card[data-card]")) hand.set(node.dataset.card, rectOf(node));
  const seats = new Map();
  for (const box of document.querySelectorAll(".seat-box[data-seat]")) {
    const backs = box.querySelectorAll(".backs .card");
    seats.set(Number(box.dataset.seat), rectOf(backs[backs.length - 1] || box));
  }
  const top = document.querySelector("#discard-pile .card[data-card]");
  return {
    stock: rectOf(document.querySelector("#stock .card")),
    discard: rectOf(document.querySelector("#discard-pile .card")),
    topDiscard: top ? top.dataset.card : null,
    hand,
    seats,
  };
}

/** The last card back shown for `seat` (null when none is shown). */
function seatTarget(seat) {
  const box = document.querySelector(`.seat-box[data-seat="${seat}"]`);
  if (!box) return null;
  const backs = box.querySelectorAll(".backs .card");
  return backs[backs.length - 1] || null;
}

function handCard(code) {
  return code ? document.querySelector(`#my-hand .card[data-card="${code}"]`) : null;
}

/** The hand number, knocker and reveal of a view: the melds are laid out when this changes. */
function knockKey(view) {
  return view.knock ? `${view.hand_number}|${view.knock.knocker}|${view.phase === "over" ? "over" : "layoff"}` : null;
}

/** Follows one table page's renders and animates what each new state moved. */
export class TableMotion {
  constructor() {
    this.previous = null; // {hand, logLength, knock} of the last view rendered
    this.lastView = null;
    this.running = new Set();
    this.planned = []; // flights to start in the next frame: {node, from, duration, delay}
    this.replayFrom = null; // `previous` before the views whose flights are planned
    this.replayRects = null; // and the places read before them
    this.frame = null;
    this.before = null;
    this.onInput = () => this.finishAll();
    // capture phase: the click that skips the motion is handled after the DOM is final
    document.addEventListener("pointerdown", this.onInput, true);
    document.addEventListener("keydown", this.onInput, true);
  }

  /** Called first in render(), with the view about to be shown: records the cards' places
   * (not for a render of the view already shown: a card chosen, the hand sorted, a notice). */
  capture(view) {
    const at = performance.now();
    const same = view && view === this.lastView;
    // a newer state came before the frame: the moves still planned are planned again with
    // it, from the places shown before them (nothing was painted since), so none is lost
    const replay = !same && this.planned.length > 0;
    if (!same) {
      if (replay) this.previous = this.replayFrom;
      this.dropPlanned();
    }
    const rects = reducedMotion() || same ? null : (replay && this.replayRects) || captureRects();
    this.before = { at, rects, spent: performance.now() - at };
  }

  /** Called last in render(): animates what changed between the previous view and `view`. */
  play(view, seat) {
    const before = this.before;
    this.before = null;
    const started = performance.now();
    this.animate(view, seat, before);
    if (this.planned.length && this.frame === null) {
      const plannedAt = performance.now();
      this.frame = requestAnimationFrame(() => this.startPlanned(plannedAt));
    }
    if (before) {
      const end = performance.now();
      note(probe.renderMs, end - before.at);
      note(probe.motionMs, before.spent + end - started);
    }
  }

  animate(view, seat, before) {
    this.lastView = view;
    if (!view) { this.previous = null; return; }
    const log = view.log || [];
    const previous = this.previous;
    if (!this.planned.length) { // where the moves planned from now on start from
      this.replayFrom = previous;
      this.replayRects = before ? before.rects : null;
    }
    const key = knockKey(view);
    const hand = `${view.hand_number}|${view.upcard}`; // a rematch numbers its hands from 1 again
    this.previous = { hand, logLength: log.length, knock: key };
    if (reducedMotion() || !before || !before.rects) return;
    const rects = before.rects;
    const newHand = previous ? previous.hand !== hand : log.length < view.seats.length;
    if (newHand) {
      if (view.phase !== "over") this.deal();
      return;
    }
    if (!previous) return; // a page opened in the middle of a hand: nothing moved
    if (log.length > previous.logLength) {
      log.slice(previous.logLength).forEach((entry) => this.move(entry, view, seat, rects));
    }
    if (key && key !== previous.knock) this.layMelds(view, seat, rects);
  }

  /** One log entry's card: drawn into a hand, or discarded onto the pile. */
  move(entry, view, seat, rects) {
    const words = String(entry.action || "").split(" ");
    const kind = words[0];
    const mine = seat !== null && entry.seat === seat;
    if (kind === "stock" || kind === "take") {
      const from = kind === "stock" ? rects.stock : rects.discard;
      const code = kind === "stock" ? entry.card : (view.taken || rects.topDiscard);
      const target = mine ? handCard(code) : seatTarget(entry.seat);
      this.fly(target, from, { duration: MOVE_MS });
    } else if (kind === "discard" || kind === "knock" || kind === "gin") {
      const code = words[1];
      if (!code || code.startsWith("[") || view.top_discard !== code) return; // already taken, or big gin
      const from = mine ? rects.hand.get(code) : rects.seats.get(entry.seat);
      this.fly(document.querySelector("#discard-pile .card"), from, { duration: MOVE_MS });
    }
  }

  /** The deal: every card of the own hand and every back of the others, from the stock. */
  deal() {
    const stock = document.querySelector("#stock .card") || document.getElementById("stock");
    if (!stock) return;
    const cards = [...document.querySelectorAll("#my-hand .card, .seat-box .backs .card")];
    const gap = cards.length > 1 ? Math.min(DEAL_GAP_MS, 150 / cards.length) : 0;
    cards.forEach((node, index) => this.fly(node, stock, { duration: DEAL_MS, delay: index * gap }));
  }

  /** The knocker's melds, laid out from the knocker's hand (or seat) where they are shown. */
  layMelds(view, seat, rects) {
    const knocker = view.knock.knocker;
    const melded = new Set((view.knock.melds || []).flat());
    const selector = `#layoff-panel .knocker-melds .card, #reveal .reveal-seat[data-seat="${knocker}"] .meld-group .card`;
    const shown = [...document.querySelectorAll(selector)].filter((node) => melded.has(node.dataset.card));
    shown.forEach((node, index) => {
      const from = (knocker === seat && rects.hand.get(node.dataset.card)) || rects.seats.get(knocker);
      const where = node.closest("#layoff-panel") ? "#layoff-panel .knocker-melds"
        : `#reveal .reveal-seat[data-seat="${knocker}"] .meld-group`;
      this.fly(node, from, { duration: MOVE_MS, delay: index * MELD_GAP_MS,
        again: `${where} .card[data-card="${node.dataset.card}"]` });
    });
  }

  /** Plans a flight of `node` from `from` (a place, or an element whose place is read when
   * the flight starts) to where `node` is. */
  fly(node, from, { duration, delay = 0, again = null }) {
    if (node && from) this.planned.push({ node, from, duration, delay, again });
  }

  /** The next frame: each planned flight starts (FLIP: `node` is where it ends; it starts
   * translated and scaled onto its old place). */
  startPlanned(plannedAt) {
    const at = performance.now();
    const planned = this.planned;
    this.planned = [];
    this.frame = null;
    if (document.visibilityState === "hidden" || at - plannedAt > STALE_MS) return;
    for (const flight of planned) this.launch(flight);
    note(probe.frameMs, performance.now() - at);
  }

  dropPlanned() {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    this.planned = [];
  }

  launch({ node, from, duration, delay, again }) {
    // a render of the same view before the frame (the deal's check, a notice) replaced the
    // node: `again` finds the card where it is shown now
    if (!node.isConnected && again) node = document.querySelector(again) || node;
    if (!node.isConnected) return;
    const to = rectOf(node);
    if (from instanceof Element) from = rectOf(from);
    if (!to || !from) return;
    const dx = from.left + from.width / 2 - (to.left + to.width / 2);
    const dy = from.top + from.height / 2 - (to.top + to.height / 2);
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
    const scale = Math.min(2, Math.max(0.4, from.width / to.width));
    const animation = node.animate(
      [{ transform: `translate(${dx}px, ${dy}px) scale(${scale})`, offset: 0 }],
      { duration, delay, easing: EASING, fill: "backwards" });
    this.running.add(animation);
    const done = () => this.running.delete(animation);
    animation.addEventListener("finish", done);
    animation.addEventListener("cancel", done);
    probe.started += 1;
  }

  /** A click or a key: every running animation jumps to its end (and none planned starts). */
  finishAll() {
    this.dropPlanned();
    if (!this.running.size) return;
    for (const animation of [...this.running]) {
      animation.finish();
      probe.skipped += 1;
    }
    this.running.clear();
  }

  /** Leaving the table. */
  stop() {
    this.finishAll();
    document.removeEventListener("pointerdown", this.onInput, true);
    document.removeEventListener("keydown", this.onInput, true);
  }
}
