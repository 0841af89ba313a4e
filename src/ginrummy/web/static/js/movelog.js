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
import { clockPlayedText } from "./clock.js";

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

// ------------------------------------------------------------------ each move told to screen readers (formerly js/announce.js)
// The table's one live region: each move told once, in one short sentence, to screen readers
// ("Bob draws from the stock.", "Bob discards seven of hearts. Your turn: draw…"). Everything
// else on the page (the status line, the log, the hand) is quiet: a re-render announces nothing.
const CARD = /^[A2-9TJQK][shdc]$/i;

/** The region (`#move-announcer` in index.html, outside the re-rendered page). */
export function announcerRegion() {
  return document.getElementById("move-announcer");
}

/**
 * One sentence for a log entry: `names` by seat, `mine` the viewer's seat, `clockAction` the
 * move the clock played for this entry (server notice) or undefined. Only the viewer's own
 * stock draw names its card (the seat's own log is the only one that holds it).
 */
export function spokenSentence(entry, names, mine, clockAction) {
  const words = String(entry.action || "").split(" ");
  const kind = words[0];
  const name = entry.seat === null || entry.seat === undefined ? "" : names[entry.seat] || "";
  if (clockAction !== undefined) return clockPlayedText(clockAction, name);
  if (kind === "stock" && entry.seat === mine && entry.card && CARD.test(entry.card)) {
    return t("announce.own_stock", { card: cardName(entry.card) });
  }
  const card = words[1] && CARD.test(words[1]) ? cardName(words[1]) : "";
  const key = `log.${kind}`;
  return has(key) ? t(key, { name, card }) : "";
}

/** The finished hand's outcome and winner, as the reveal heads them ("Knock, won by Bob."),
 * or "" (no result, a void hand). */
export function handOutcome(view, names) {
  const result = view && view.result;
  if (!result || result.outcome === "void" || result.winner === null || result.winner === undefined) return "";
  const outcome = has(`outcome.${result.outcome}`) ? t(`outcome.${result.outcome}`) : "";
  const winner = t("reveal.winner", { name: names[result.winner] || "" });
  return `${outcome ? `${outcome}, ` : ""}${winner}.`;
}

/** Tells each new move of the table's `state` messages once; nothing on a mere re-render. */
export class MoveAnnouncer {
  constructor(region = announcerRegion()) {
    this.region = region;
    this.hand = null; // "hand_number:upcard" of the hand whose log has been told
    this.told = 0; // entries of that hand's log already told
    this.over = false; // the end of that hand told
    this.mine = false; // the viewer's turn was told and has not ended since
  }

  /**
   * A new state: `names` by seat, `seat` the viewer's, `prompt` the status text when it is
   * the viewer's turn (else null), `clockMoves` ("hand:index" -> action the clock played),
   * `ending` the sentence for a finished hand. Tells one announcement a new move (a new deal,
   * the end of the hand and "your turn" go with the move next to them); returns them.
   */
  update(state, { names, seat, prompt, clockMoves, ending }) {
    const view = state && state.view;
    if (!view) return [];
    const hand = `${view.hand_number}:${view.upcard}`;
    const log = view.log || [];
    const first = this.hand === null; // on arrival the past is not read out
    const newHand = hand !== this.hand && !first;
    if (hand !== this.hand) {
      this.hand = hand;
      this.over = view.phase === "over";
      this.told = first ? log.length : 0;
    }
    const told = [];
    for (let index = this.told; index < log.length; index += 1) {
      const sentence = spokenSentence(log[index], names, seat, clockMoves.get(`${view.hand_number}:${index}`));
      if (sentence) told.push(sentence);
    }
    this.told = log.length;
    const extra = [];
    if (view.phase === "over" && !this.over) {
      this.over = true;
      if (ending) extra.push(ending);
    }
    // "your turn" once a turn: with the move that made it (or alone, on arrival)
    if (prompt && !this.mine) extra.push(prompt);
    this.mine = Boolean(prompt);
    if (extra.length) {
      if (told.length) told[told.length - 1] = [told[told.length - 1], ...extra].join(" ");
      else told.push(extra.join(" "));
    }
    if (newHand) {
      const dealt = t("announce.new_hand", { n: view.hand_number });
      if (told.length) told[0] = `${dealt} ${told[0]}`;
      else told.push(dealt);
    }
    told.forEach((sentence, index) => this.say(sentence, newHand && index === 0));
    return told;
  }

  /** One announcement, one change of the region: a paragraph added (a screen reader reads
   * an addition once), or at a new hand the region's lines replaced by it. */
  say(text, fresh = false) {
    if (!this.region || !text) return;
    const line = document.createElement("p");
    line.textContent = text;
    if (fresh) this.region.replaceChildren(line);
    else this.region.append(line);
  }

  /** Leaving the table: nothing of it stays in the region. */
  clear() {
    if (this.region) this.region.replaceChildren();
  }
}
