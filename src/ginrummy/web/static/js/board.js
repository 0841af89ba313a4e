// The table's board (js/table.js): the seats (each player's box: name, badges, score, clock,
// the cards' backs or the knocker's melds), the centre (the stock, the discard pile and its
// history, the move log, the action bar), and which of them a delta redraws: a move redraws
// only the parts its changes name (redrawParts), each centre part put in place of its old one
// (redrawCenter). Drawn from the page's state (the server's view, legal actions and hints);
// the buttons call the page's own act, openPanel and takeBack.
import { cardBack, cardElement, cardText, parseAction } from "./cards.js";
import { clockElement } from "./clock.js";
import { el, replaceChildren } from "./dom.js";
import { botLabel } from "./format.js";
import { t } from "./i18n.js";
// js/arrange.js's, once it has arrived (null before)
import { knockerShows } from "./later.js";
import { keyHint, touchOnly } from "./shortcuts.js";

/** The parts of the table each change of a delta redraws (redrawParts); a change not
 * named here (nor one seat's entry) redraws the whole table. */
const PART_OF = {
  "view.phase": ["opponents", "piles", "actions", "me"],
  "view.to_move": ["opponents", "piles", "actions", "me"],
  "view.hand": ["me"],
  "view.stock_size": ["piles"],
  "view.top_discard": ["piles", "actions"],
  "view.discard_pile": ["piles"],
  "view.taken": ["me"],
  "view.log": ["log"],
  legal: ["piles", "actions", "me"],
  hints: ["me"],
  clock: [], // the seats' clocks are ticked from the new deadline (tickClock)
};

/**
 * The parts of the table a delta's changes (js/connection.js, deltaChanges) redraw: a
 * move changes the piles, the seats' counts, the hand, the log, the turn and the legal
 * actions, and redraws those alone; anything else (the table entry, a hand's result, a new
 * deal, the score sheet, the fair deal...) redraws the whole table (null).
 */
export function redrawParts(page, changes) {
  const parts = new Set();
  for (const change of changes) {
    const redraws = PART_OF[change] || (change.startsWith("view.seats.")
      ? [Number(change.slice(11)) === page.seat ? "me" : "opponents"] : null);
    if (!redraws) return null;
    for (const part of redraws) parts.add(part);
  }
  return page.drawn ? parts : null;
}

export function seatBox(page, seatView, tableSeat, names, view, isMe) {
  const s = seatView ? seatView.seat : tableSeat.seat;
  const toMove = view && view.phase !== "over" && view.to_move === s;
  const score = view && view.scores && view.ruleset.format === "match" ? view.scores[s] : null;
  const known = seatView ? seatView.known || [] : [];
  const tags = [];
  if (view && view.dealer === s) tags.push(el("span", { class: "badge dealer" }, t("seat.dealer")));
  if (tableSeat && tableSeat.kind === "bot") tags.push(el("span", { class: "badge" }, t("seat.bot_badge", { level: botLabel(tableSeat.level) })));
  // an account's seat is marked: a guest's nickname cannot pass for an account (issue 25)
  if (tableSeat && tableSeat.kind === "human") {
    tags.push(tableSeat.account
      ? el("span", { class: "badge account", dataset: { account: "true" } }, t("seat.account"))
      : el("span", { class: "badge guest", dataset: { account: "false" } }, t("seat.guest")));
  }
  if (tableSeat && tableSeat.away) tags.push(el("span", { class: "badge away" }, t("seat.away")));
  if (tableSeat && tableSeat.kind === "human" && !tableSeat.connected && !tableSeat.away) {
    tags.push(el("span", { class: "badge away" }, t("seat.disconnected")));
  }
  if (page.state && (page.state.rematch || []).includes(s)) tags.push(el("span", { class: "badge" }, t("seat.wants_rematch")));
  if (tableSeat && tableSeat.kind === "empty") tags.push(el("span", { class: "badge" }, t("seat.open")));
  return el("div", { class: `seat-box${toMove ? " to-move" : ""}${isMe ? " mine" : ""}`, dataset: { seat: s } },
    el("div", { class: "seat-title" },
      el("span", { class: "player-name", text: names[s] || "" }),
      isMe ? el("span", { class: "badge" }, t("seat.you")) : null,
      tags,
      score !== null ? el("span", { class: "score" }, t("seat.score", { count: score, points: score })) : null,
      clockElement(s, page.deadline)),
    // the knocker's melds and deadwood are public once laid down (R4.8): shown, not backs
    !isMe && seatView && view && view.knock && view.knock.knocker === s && view.phase !== "over" ? knockerShows(view)
      : !isMe && seatView ? el("div", { class: "seat-cards" },
      el("span", { class: "backs", "aria-hidden": "true" }, // the count beside says it
        Array.from({ length: Math.min(seatView.count, 11) }, () => cardBack({ class: "mini", "aria-hidden": "true" }))),
      el("span", { class: "count" }, t("seat.count", { count: seatView.count })),
      known.length ? el("span", { class: "known" }, t("seat.known"), " ", known.map((c) => cardElement(c, { class: "mini" }))) : null)
      : null);
}

export function renderSeats(page, view, table, names) {
  if (!table) { replaceChildren(page.regions.opponents); return; }
  const boxes = [];
  const n = table.seats.length;
  const first = page.seat === null ? 0 : (page.seat + 1) % n;
  for (let i = 0; i < n; i += 1) {
    const s = (first + i) % n;
    if (s === page.seat) continue;
    boxes.push(seatBox(page, view ? view.seats[s] : null, table.seats[s], names, view, false));
  }
  replaceChildren(page.regions.opponents, boxes);
}

export function renderCenter(page, view, names) {
  if (!view) { page.centerParts = null; replaceChildren(page.regions.center); return; }
  const [piles, history] = pilesNodes(page, view);
  page.centerParts = { piles, history, log: page.moveLog.render(view, names, page.clockMoves), actions: actionBar(page, view) };
  const parts = page.centerParts;
  replaceChildren(page.regions.center, parts.piles, parts.history, parts.log, parts.actions);
}

/** The parts of the centre a delta changed, each put in place of its old one: the piles
 * (and the discard history), the move log (kept, and redrawn by itself when it grew), the
 * action bar. */
export function redrawCenter(page, view, names, parts) {
  const old = page.centerParts;
  if (!view || !old) { renderCenter(page, view, names); return; }
  const next = { ...old };
  if (parts.has("piles")) [next.piles, next.history] = pilesNodes(page, view);
  if (parts.has("log")) next.log = page.moveLog.render(view, names, page.clockMoves);
  if (parts.has("actions")) next.actions = actionBar(page, view);
  page.centerParts = next;
  if (Boolean(old.history) === Boolean(next.history) && Boolean(old.actions) === Boolean(next.actions)) {
    for (const key of ["piles", "history", "actions"]) {
      if (next[key] !== old[key]) old[key].replaceWith(next[key]);
    }
    if (!next.log.isConnected) replaceChildren(page.regions.center, next.piles, next.history, next.log, next.actions);
    return;
  }
  replaceChildren(page.regions.center, next.piles, next.history, next.log, next.actions);
}

/** The stock and the discard pile, and the discard history when the rules show it. */
export function pilesNodes(page, view) {
  const canStock = page.legal.includes("stock") && !page.busy;
  const canTake = page.legal.includes("take") && !page.busy;
  const stock = el("button", { type: "button", class: "pile stock", id: "stock", disabled: !canStock,
    "aria-label": t("pile.stock_label", { count: view.stock_size }), onclick: () => page.act("stock") },
  view.stock_size > 0 ? cardBack() : el("span", { class: "card empty" }),
  el("span", { class: "pile-label" }, t("pile.stock")), el("span", { class: "pile-count" }, String(view.stock_size)));
  const top = view.top_discard;
  const discard = el("button", { type: "button", class: `pile discard${canTake ? " takeable" : ""}`, id: "discard-pile",
    disabled: !canTake && !page.discardable().size,
    "aria-label": top ? t("pile.discard_label", { card: cardText(top) }) : t("pile.discard_empty"),
    onclick: () => { if (canTake) page.act("take"); else if (page.selected) page.act(`discard ${page.selected}`); } },
  top ? cardElement(top) : el("span", { class: "card empty" }),
  el("span", { class: "pile-label" }, view.phase === "offer" ? t("pile.upcard") : t("pile.discard")));
  const history = view.ruleset.discard_history_visible && view.discard_pile && view.discard_pile.length > 1
    ? el("div", { class: "discard-history", "aria-label": t("pile.history") },
      el("span", { class: "group-label" }, t("pile.history")), view.discard_pile.slice(0, -1).map((c) => cardElement(c, { class: "mini" })))
    : null;
  return [el("div", { class: "piles" }, stock, discard), history];
}

export function actionBar(page, view) {
  const mine = page.seat !== null && view.to_move === page.seat && view.phase !== "over";
  if (!mine) return null;
  if (page.pending.action) return undoBar(page.pending, { onTakeBack: () => page.takeBack(), onNow: () => page.pending.now() });
  const legal = page.legal;
  const buttons = [];
  const button = (id, label, onclick, primary = false) => el("button", {
    type: "button", id, class: primary ? "primary" : "", disabled: page.busy, onclick }, keyHint(label));
  if (legal.includes("take")) buttons.push(button("action-take", t("action.take", { card: view.top_discard ? cardText(view.top_discard) : "" }), () => page.act("take"), true));
  if (legal.includes("pass")) buttons.push(button("action-pass", t("action.pass"), () => page.act("pass")));
  if (legal.includes("stock")) buttons.push(button("action-stock", t("action.stock"), () => page.act("stock"), true));
  const discardable = page.discardable();
  if (discardable.size) {
    if (page.selected && discardable.has(page.selected)) {
      buttons.push(button("action-discard", t("action.discard", { card: cardText(page.selected) }), () => page.act(`discard ${page.selected}`), true));
    } else {
      buttons.push(el("span", { class: "muted", id: "discard-help" }, t(touchOnly() ? "action.discard_help_touch" : "action.discard_help")));
    }
  }
  // knock and gin: primary, first in the bar, and only when the engine offers them
  const ends = [];
  const gins = legal.filter((a) => a.startsWith("gin"));
  if (gins.length) {
    const big = gins.every((a) => parseAction(a).card === null);
    const gin = button("action-gin", t(big ? "action.big_gin" : "action.gin"), () => page.openPanel("gin"), true);
    gin.classList.add("end-hand", "gin");
    ends.push(gin);
  }
  if (legal.some((a) => a.startsWith("knock"))) {
    const knock = button("action-knock", t("action.knock"), () => page.openPanel("knock"), true);
    knock.classList.add("end-hand", "knock");
    ends.push(knock);
  }
  return el("div", { class: "action-bar", id: "action-bar" }, ends, buttons, page.hinter.button());
}

// ------------------------------------------------------------------ taking back a discard (formerly js/undo.js)
// A discard can be taken back (issue 27.2): the discard a player makes (a second tap or click,
// Enter, the Discard button, a drag onto the pile) waits UNDO_MS before it is sent, the card
// shown leaving the hand and the action bar offering "Take back" (or Escape) and "Discard now".
// Until it is sent the server knows nothing of it. The same on every screen and input; the
// header's setting turns the wait off (the discard is then sent at once).
export const UNDO_MS = 3000;

export class PendingDiscard {
  constructor() {
    this.card = null;
    this.action = null;
    this.timer = null;
    this.at = 0; // performance.now() when it is sent
  }

  /** Hold `action` ("discard 7h"); `send(action)` runs when the time is up or on `now()`. */
  start(action, send) {
    this.clear();
    this.action = action;
    this.card = action.split(" ")[1];
    this.send = send;
    this.at = performance.now() + UNDO_MS;
    this.timer = setTimeout(() => this.now(), UNDO_MS);
  }

  /** Send the held discard at once. */
  now() {
    const { action, send } = this;
    this.clear();
    if (action) send(action);
  }

  /** Take the held discard back (nothing is sent); the card it held, or null. */
  clear() {
    const card = this.card;
    clearTimeout(this.timer);
    this.card = null;
    this.action = null;
    this.timer = null;
    return card;
  }
}

/** The action bar while a discard waits: what goes, in how long, and the two choices. */
export function undoBar(pending, { onTakeBack, onNow }) {
  return el("div", { class: "action-bar undo-bar", id: "action-bar" },
    el("span", { class: "undo-text", id: "undo-text" }, t("undo.discarding", { card: cardText(pending.card) }),
      " ", el("span", { class: "undo-countdown", dataset: { at: String(pending.at) } })),
    el("button", { type: "button", class: "primary", id: "undo-discard", onclick: onTakeBack }, t("undo.take_back")),
    el("button", { type: "button", id: "discard-now", onclick: onNow }, t("undo.discard_now")));
}

/** The seconds left, shown beside the text (called with the table's clock tick). */
export function tickUndo(now) {
  for (const node of document.querySelectorAll(".undo-countdown")) {
    const seconds = Math.max(0, Math.ceil((Number(node.dataset.at) - now) / 1000));
    node.textContent = t("undo.seconds", { seconds });
  }
}
