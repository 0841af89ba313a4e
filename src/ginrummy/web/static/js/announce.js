// The table's one live region: each move told once, in one short sentence, to screen readers
// ("Bob draws from the stock.", "Bob discards seven of hearts. Your turn: draw…"). Everything
// else on the page (the status line, the log, the hand) is quiet: a re-render announces nothing.
import { cardName } from "./cards.js";
import { clockPlayedText } from "./clock.js";
import { has, t } from "./i18n.js";

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
export function moveSentence(entry, names, mine, clockAction) {
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
      const sentence = moveSentence(log[index], names, seat, clockMoves.get(`${view.hand_number}:${index}`));
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
