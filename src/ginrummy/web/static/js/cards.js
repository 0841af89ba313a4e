// Cards in the engine's text form ("As", "Td", "7h") and their rendering.
import { el } from "./dom.js";
import { t } from "./i18n.js";

export const RANKS = "A23456789TJQK";
export const SUITS = "shdc";
export const SUIT_SYMBOLS = { s: "♠", h: "♥", d: "♦", c: "♣" };
const SUIT_KEYS = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };

/** {code, rank (0 = ace), suit ("s"|"h"|"d"|"c"), value} of a card code. */
export function parseCard(code) {
  const rank = RANKS.indexOf(code[0].toUpperCase());
  const suit = code[1].toLowerCase();
  if (rank < 0 || !SUITS.includes(suit)) throw new Error(`not a card: ${code}`);
  return { code: RANKS[rank] + suit, rank, suit, value: Math.min(rank + 1, 10) };
}

export function rankLabel(rank) {
  return t(`card.rank.${RANKS[rank]}`);
}

/** The card's full name in the current language ("queen of hearts"). */
export function cardName(code) {
  const card = parseCard(code);
  return t("card.name", { rank: t(`card.rank_name.${RANKS[card.rank]}`), suit: t(`card.suit.${SUIT_KEYS[card.suit]}`) });
}

/** Short text: "Q♥" with the localized rank letter. */
export function cardText(code) {
  const card = parseCard(code);
  return rankLabel(card.rank) + SUIT_SYMBOLS[card.suit];
}

/** Sort key by rank then suit, or by suit then rank. */
export function sortKey(code, by) {
  const card = parseCard(code);
  const suitIndex = SUITS.indexOf(card.suit);
  return by === "suit" ? suitIndex * 13 + card.rank : card.rank * 4 + suitIndex;
}

export function sortCards(codes, by = "rank") {
  return [...codes].sort((a, b) => sortKey(a, by) - sortKey(b, by));
}

/** A face-up card element. */
export function cardElement(code, props = {}) {
  const card = parseCard(code);
  const { class: extra, ...rest } = props;
  return el("span", {
    class: `card face suit-${card.suit}${extra ? " " + extra : ""}`,
    role: "img",
    "aria-label": cardName(code),
    title: cardName(code),
    dataset: { card: card.code },
    ...rest,
  },
  // the corner index (rank over suit) is what shows of an overlapped card; the big suit below
  el("span", { class: "corner", "aria-hidden": "true" },
    el("span", { class: "rank" }, rankLabel(card.rank)),
    el("span", { class: "corner-suit" }, SUIT_SYMBOLS[card.suit])),
  el("span", { class: "suit", "aria-hidden": "true" }, SUIT_SYMBOLS[card.suit]));
}

/** A face-down card element. */
export function cardBack(props = {}) {
  const { class: extra, ...rest } = props;
  return el("span", { class: `card back${extra ? " " + extra : ""}`, role: "img", "aria-label": t("card.back"), ...rest });
}

/** A row of face-up cards. */
export function cardRow(codes, props = {}) {
  return el("span", { class: "card-row", ...props }, (codes || []).map((code) => cardElement(code)));
}

/** True when `codes` form a set (3-4 of a rank) or a run (3+ consecutive of a suit, ace low). */
export function isMeld(codes) {
  if (codes.length < 3) return false;
  const cards = codes.map(parseCard);
  if (cards.every((c) => c.rank === cards[0].rank)) return codes.length <= 4;
  if (!cards.every((c) => c.suit === cards[0].suit)) return false;
  const ranks = cards.map((c) => c.rank).sort((a, b) => a - b);
  return ranks.every((r, i) => i === 0 || r === ranks[i - 1] + 1);
}

/** Deadwood points of some cards (R1.2). */
export function points(codes) {
  return codes.reduce((sum, code) => sum + parseCard(code).value, 0);
}

/** Meld in notation: "[As 2s 3s]". */
export function meldText(codes) {
  return "[" + codes.join(" ") + "]";
}

/** Parse "knock 7h [As 2s 3s] [..]" / "gin [..]" / "layoff [..] 6h@1" into parts. */
export function parseAction(text) {
  const words = text.trim();
  const kind = words.split(/\s+/)[0];
  const melds = [...words.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1].trim().split(/\s+/).filter(Boolean));
  const rest = words.replace(/\[[^\]]*\]/g, " ").split(/\s+/).slice(1).filter(Boolean);
  const layoffs = rest.filter((w) => w.includes("@")).map((w) => {
    const [card, target] = w.split("@");
    return { card, meld: Number(target) };
  });
  const plain = rest.filter((w) => !w.includes("@"));
  return { kind, card: plain[0] || null, melds, layoffs };
}

/** A move of the record's notation in words ("discard 7♥", "knock, discarding 7♠"). */
export function actionLabel(text) {
  const words = String(text || "").trim().split(/\s+/);
  const card = words[1] && /^[A2-9TJQK][shdc]$/i.test(words[1]) ? cardText(words[1]) : null;
  switch (words[0]) {
    case "discard": return t("coach.action.discard", { card });
    case "knock": return t("coach.action.knock", { card });
    case "gin": return card ? t("coach.action.gin", { card }) : t("coach.action.big_gin");
    case "take": return t("coach.action.take");
    case "stock": return t("coach.action.stock");
    case "pass": return t("coach.action.pass");
    case "layoff": {
      const cards = words.slice(1).join(" ").replace(/[[\]]/g, " ").split(/\s+/)
        .map((w) => w.replace(/@\d+$/, "")).filter((w) => /^[A2-9TJQK][shdc]$/i.test(w));
      return cards.length ? t("coach.action.layoff", { cards: cards.map(cardText).join(" ") })
        : t("coach.action.layoff_none");
    }
    default: return String(text || "");
  }
}
