// The move log (issue 13.2): every move of the current hand, for 2 to 4 players, the
// computer's included, grouped by round (each seat's turn once), one full sentence a move
// naming the player and the cards ("Ann takes the 7 of hearts from the discard pile."). A
// move the turn clock played is told as such. The list scrolls inside itself and keeps to
// its newest line unless the reader has scrolled up to read an earlier one.
//
// Only the view's own log is read: another seat's stock draw names no card there, and a
// card taken from the pile is the one discarded just before it (or the upcard), which
// everybody saw.
import { cardName, parseAction } from "./cards.js";
import { el } from "./dom.js";
import { has, language, t } from "./i18n.js";

const CARD = /^[A2-9TJQK][shdc]$/i;
const CLOCK_PLAYED = ["pass", "stock", "take", "discard", "knock", "gin", "layoff"];
/** A reader this close to the bottom (px) is at the newest line and stays there. */
const BOTTOM_SLACK = 24;

function listText(items) {
  try {
    return new Intl.ListFormat(language(), { type: "conjunction" }).format(items);
  } catch {
    return items.join(", ");
  }
}

/** The card each `take` of `log` took: the card discarded just before it, else the upcard. */
export function takenCards(log, upcard) {
  const taken = new Map();
  let top = upcard || null;
  log.forEach((entry, index) => {
    const words = String(entry.action || "").split(" ");
    if (words[0] === "take" && top) taken.set(index, top);
    else if (words[0] === "discard" && words[1] && CARD.test(words[1])) top = words[1];
  });
  return taken;
}

/** The sentence of one log entry. `clockPlayed`: the turn clock made this move. */
export function moveSentence(entry, { name, taken, clockPlayed = false }) {
  const action = String(entry.action || "");
  const words = action.split(" ");
  const kind = words[0];
  const card = words[1] && CARD.test(words[1]) ? cardName(words[1]) : "";
  if (clockPlayed) {
    const key = `clock.played.${CLOCK_PLAYED.includes(kind) ? kind : "other"}`;
    return t(has(key) ? key : "clock.played.other", { name, card });
  }
  switch (kind) {
    case "pass": return t("log.pass", { name });
    case "stock": return entry.card ? t("movelog.stock_card", { name, card: cardName(entry.card) }) : t("log.stock", { name });
    case "take": return taken ? t("movelog.take", { name, card: cardName(taken) }) : t("log.take", { name });
    case "discard": return t("movelog.discard", { name, card });
    case "knock": return t("movelog.knock", { name, card });
    case "gin": return card ? t("movelog.gin", { name, card }) : t("movelog.big_gin", { name });
    case "layoff": {
      const cards = parseAction(action).layoffs.map((l) => cardName(l.card));
      return cards.length ? t("movelog.layoff_cards", { name, cards: listText(cards) }) : t("movelog.layoff_none", { name });
    }
    case "reshuffle": return t("log.reshuffle");
    default: return action;
  }
}

/**
 * The log's entries in groups: {round (1, 2 ...; 0 for the layoffs), entries: [index...]}.
 * A round ends when the seat that opened the hand's first turn starts a turn again.
 */
export function groupRounds(log) {
  const groups = [];
  let opener = null;
  let last = null;
  let round = 0;
  log.forEach((entry, index) => {
    const kind = String(entry.action || "").split(" ")[0];
    const layoff = kind === "layoff";
    const newTurn = kind !== "reshuffle" && entry.seat !== last;
    if (layoff) {
      if (!groups.length || groups[groups.length - 1].round !== 0) groups.push({ round: 0, entries: [] });
    } else if (!groups.length || (newTurn && entry.seat === opener)) {
      if (opener === null) opener = entry.seat;
      round += 1;
      groups.push({ round, entries: [] });
    }
    groups[groups.length - 1].entries.push(index);
    if (kind !== "reshuffle") last = entry.seat;
  });
  return groups;
}

/** One table page's move log: a single list element, kept across renders and redrawn only
 * when the moves, the names, the language or the clock's moves change. */
export class MoveLog {
  constructor() {
    this.root = el("ol", { class: "log move-log", id: "log", tabindex: "0" });
    this.signature = null;
    this.atBottom = true;
    this.scrollTop = 0;
    this.root.addEventListener("scroll", () => this.notePosition());
  }

  /** Remember where the reader is, while the list is on the page. Called on each scroll
   * event and again before each render: a busy browser fires the scroll event a frame
   * late, so a render in between would otherwise scroll a reader back to the end. */
  notePosition() {
    if (!this.root.isConnected || this.root.clientHeight === 0) return;
    this.scrollTop = this.root.scrollTop;
    this.atBottom = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight <= BOTTOM_SLACK;
  }

  /** The log of `view` (names by seat; `clockMoves`: "hand:index" -> action, from the
   * server's clock notices). Returns the same element each time. */
  render(view, names, clockMoves) {
    const log = view.log || [];
    this.notePosition();
    const clocked = [...clockMoves.keys()].filter((k) => k.startsWith(`${view.hand_number}:`)).sort();
    const signature = JSON.stringify([language(), view.hand_number, view.upcard, log.length, names, clocked]);
    this.root.setAttribute("aria-label", t("movelog.label", { n: view.hand_number }));
    if (signature !== this.signature) {
      const grew = this.signature !== null && log.length > this.lastLength;
      this.signature = signature;
      this.lastLength = log.length;
      this.draw(view, names, clockMoves, log);
      if (grew) this.atBottom = true; // a new move: show it
    }
    // the list is put back into the page by the caller; its scroll position is restored then
    queueMicrotask(() => this.restoreScroll());
    return this.root;
  }

  draw(view, names, clockMoves, log) {
    const taken = takenCards(log, view.upcard);
    const groups = groupRounds(log).map((group) => el("li", { class: "log-round", dataset: { round: group.round } },
      el("span", { class: "log-round-label" }, group.round ? t("movelog.round", { n: group.round }) : t("movelog.layoffs")),
      el("ol", { class: "log-moves" }, group.entries.map((index) => {
        const entry = log[index];
        const name = entry.seat === null || entry.seat === undefined ? "" : names[entry.seat] || "";
        const clockPlayed = clockMoves.has(`${view.hand_number}:${index}`);
        return el("li", { class: clockPlayed ? "log-move clock-played" : "log-move", dataset: { index, seat: entry.seat ?? "" } },
          moveSentence(entry, { name, taken: taken.get(index), clockPlayed }));
      }))));
    this.root.replaceChildren(...groups);
  }

  restoreScroll() {
    if (!this.root.isConnected) return;
    this.root.scrollTop = this.atBottom ? this.root.scrollHeight : this.scrollTop;
  }
}
