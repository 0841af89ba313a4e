// Provably fair deals in the browser (docs/fair.md): this seat's client seed for each hand
// (crypto.getRandomValues), and the check of each finished hand with Web Crypto: the
// revealed server seed hashes to the commitment this page saw before the cards; one seed per
// seat, each server-made one derived from the server seed (scheme 2), this seat's the one it
// sent; the first dealer drawn from the seeds; and every card the page was shown (dealt,
// upcard, stock draws, discards, reshuffles, the hands shown at the end) is the deck's. A
// page opened during a hand says it could not check, never "verified". A JS port of
// ginrummy.fair.
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { link } from "./session.js";

const DOMAIN = new TextEncoder().encode("ginrummy-fair-v1");
const SERVER_MADE = new TextEncoder().encode("ginrummy-fair-v2\0server-made\0");
const RANKS = "A23456789TJQK";
const SUITS = "shdc";
const WORD_RANGE = 2 ** 32;

/** A card number (0-51: suit * 13 + rank) as the server names it ("As", "Td"). */
export function cardName(card) {
  return RANKS[card % 13] + SUITS[Math.floor(card / 13)];
}

export function hexToBytes(hex) {
  if (typeof hex !== "string" || hex.length % 2 || /[^0-9a-fA-F]/.test(hex)) throw new Error(`not hex: ${hex}`);
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) { out.set(part, at); at += part.length; }
  return out;
}

/** 32 random bytes as hex: a client seed. */
export function newClientSeed() {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(32)));
}

/** SHA-256 of bytes, as hex. */
export async function sha256Hex(bytes) {
  return bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

/** SHA-256 of the client seeds in seat order, each after its length (4 bytes, big-endian). */
async function clientDigest(seeds) {
  const parts = [];
  for (const seed of seeds) {
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, seed.length);
    parts.push(length, seed);
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", concat(...parts)));
}

/** Unbiased draws below a bound from the HMAC-SHA256(server seed, DOMAIN 0 digest purpose 0
 * counter) blocks, read as 4-byte words, rejection sampled (docs/fair.md, steps 3-5). */
async function drawer(serverSeed, clientSeeds, purpose) {
  const key = await crypto.subtle.importKey("raw", serverSeed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const prefix = concat(DOMAIN, new Uint8Array([0]), await clientDigest(clientSeeds),
    new TextEncoder().encode(purpose), new Uint8Array([0]));
  let counter = 0n;
  let buffer = new Uint8Array(0);
  const word = async () => {
    while (buffer.length < 4) {
      const count = new Uint8Array(8);
      new DataView(count.buffer).setBigUint64(0, counter);
      counter += 1n;
      const block = new Uint8Array(await crypto.subtle.sign("HMAC", key, concat(prefix, count)));
      buffer = concat(buffer, block);
    }
    const value = new DataView(buffer.buffer, buffer.byteOffset).getUint32(0);
    buffer = buffer.slice(4);
    return value;
  };
  return async (bound) => {
    const limit = WORD_RANGE - (WORD_RANGE % bound);
    for (;;) {
      const value = await word();
      if (value < limit) return value % bound;
    }
  };
}

/** Fisher-Yates over `cards` sorted ascending, driven by the purpose's stream. */
export async function fairShuffle(serverSeed, clientSeeds, purpose, cards) {
  const below = await drawer(serverSeed, clientSeeds, purpose);
  const order = [...cards].sort((a, b) => a - b);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = await below(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** The deal order of a hand from its seeds (hex), as card names. */
export async function fairDeck(serverSeedHex, clientSeedsHex) {
  const deck = await fairShuffle(hexToBytes(serverSeedHex), clientSeedsHex.map(hexToBytes), "deal",
    Array.from({ length: 52 }, (_, i) => i));
  return deck.map(cardName);
}

/** The seed the server makes for `seat` (scheme 2): HMAC-SHA256(server seed,
 * "ginrummy-fair-v2" 0 "server-made" 0 seat as 4 bytes), as hex. */
export async function serverMadeSeed(serverSeedHex, seat) {
  const key = await crypto.subtle.importKey("raw", hexToBytes(serverSeedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const index = new Uint8Array(4);
  new DataView(index.buffer).setUint32(0, seat);
  return bytesToHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, concat(SERVER_MADE, index))));
}

/** A match's first dealer (scheme 2): the first draw below `players` of the "first-dealer"
 * stream of its first hand's seeds. */
export async function firstDealer(serverSeedHex, clientSeedsHex, players) {
  const below = await drawer(hexToBytes(serverSeedHex), clientSeedsHex.map(hexToBytes), "first-dealer");
  return below(players);
}

export function cardNumber(name) {
  return SUITS.indexOf(name[1]) * 13 + RANKS.indexOf(name[0]);
}

const FAIR_ICONS = { verified: "\u2714", unchecked: "\u25CB", failed: "\u2716" };

const sortedText = (cards) => [...cards].sort().join(" ");

/** Replay what a viewer saw of a hand against the deck its seeds give: the cards dealt, the
 * upcard, each stock draw it saw (its own), each card taken or discarded (a discard must be
 * in its player's hand as the deck dealt it), each reshuffle (`reshuffle(k, cards)` gives the
 * new stock), and at each snapshot the viewer's hand, the top discard and the stock's size;
 * then the hands shown at the end (`shown`, by seat, null where hidden). Returns
 * {problem (a message key or null), counts}. */
export async function replaySeen(deck, { players, handSize, dealer, log, snaps, shown, seat, reshuffle }) {
  const hands = Array.from({ length: players }, () => new Set());
  const dealtCount = players * handSize;
  for (let k = 0; k < dealtCount; k += 1) hands[(dealer + 1 + k) % players].add(deck[k]);
  const upcard = deck[dealtCount];
  let pile = [upcard];
  let stock = deck.slice(dealtCount + 1);
  const counts = { draws: 0, discards: 0, taken: 0, reshuffles: 0, dealt: false, upcard: false, shown: false };
  const bySize = new Map(snaps.map((snap) => [snap.n, snap]));
  const compare = (n) => {
    const snap = bySize.get(n);
    if (!snap) return null;
    if (snap.dealer !== dealer) return "fair.problem_dealer";
    if (snap.upcard !== upcard) return "fair.problem_upcard";
    counts.upcard = true;
    if (snap.hand && seat !== null) {
      if (sortedText(hands[seat]) !== snap.hand) return "fair.problem_my_cards";
      if (n === 0) counts.dealt = true;
    }
    if ((pile.length ? pile[pile.length - 1] : null) !== snap.top) return "fair.problem_pile";
    if (stock.length !== snap.stock) return "fair.problem_stock";
    return null;
  };
  let problem = compare(0);
  for (let i = 0; i < log.length && !problem; i += 1) {
    const { seat: who, action, card } = log[i];
    const [kind, first] = action.split(" ");
    if (kind === "stock") {
      const top = stock.shift();
      if (top === undefined) problem = "fair.problem_stock";
      else {
        if (card !== null && card !== undefined) {
          counts.draws += 1;
          if (card !== top) problem = "fair.problem_stock";
        }
        hands[who].add(top);
      }
    } else if (kind === "take") {
      const top = pile.pop();
      if (top === undefined) problem = "fair.problem_pile";
      else { counts.taken += 1; hands[who].add(top); }
    } else if ((kind === "discard" || kind === "knock" || kind === "gin") && first && !first.startsWith("[")) {
      counts.discards += 1;
      if (!hands[who].has(first)) problem = "fair.problem_discard";
      hands[who].delete(first);
      pile.push(first);
    } else if (kind === "reshuffle") {
      counts.reshuffles += 1;
      stock = await reshuffle(counts.reshuffles, pile.slice(0, -1));
      pile = pile.slice(-1);
    }
    if (!problem) problem = compare(i + 1);
  }
  if (!problem && shown) {
    for (let s = 0; s < players; s += 1) {
      if (!shown[s] || s === seat) continue;
      counts.shown = true;
      if (sortedText(shown[s]) !== sortedText(hands[s])) problem = "fair.problem_shown";
    }
  }
  return { problem, counts };
}

/** Follows the `fair` block of a table's states: sends this seat's seed when a hand asks for
 * it, remembers what it was shown of each hand (log, hand, top discard, stock), and checks
 * each revealed hand against the deck of its seeds. */
export class FairDeals {
  constructor(connection) {
    this.connection = connection;
    this.sent = new Map(); // hand key -> the seed sent
    this.seen = new Map(); // hand key -> {commitment, before, snaps, log, changed, ...}
    this.results = new Map(); // hand key -> {verified, unchecked, problem, checked}
    this.onChange = null;
  }

  /** Called with every state (before the page renders it). */
  receive(state) {
    const block = state.fair;
    if (!block) return;
    const key = `${block.hand}:${block.commitment}`;
    const view = state.view;
    const ofHand = Boolean(view && view.hand_number === block.hand);
    let seen = this.seen.get(key);
    if (!seen) {
      // seen before the cards: the commitment came first (a page opened mid-hand cannot say)
      seen = { commitment: block.commitment, before: block.server_seed === null && !ofHand, snaps: [], log: [], changed: false };
      this.seen.set(key, seen);
    }
    if (ofHand && !this.results.has(key)) this.remember(seen, state);
    const seat = state.seat;
    if (seat !== null && seat !== undefined && block.server_seed === null
        && block.client_seeds[seat] === null && !this.sent.has(key)) {
      const seed = newClientSeed();
      if (this.connection.send({ type: "seed", hand: block.hand, seed })) this.sent.set(key, seed);
    }
    if (block.server_seed && !this.results.has(key)) {
      this.results.set(key, { pending: true });
      this.check(key, block, seen, ofHand ? view : null, seat ?? null).then((result) => {
        this.results.set(key, result);
        this.onChange?.();
      });
    }
  }

  /** Keep what this state shows of the hand: its log (an entry once shown never changes),
   * and a snapshot of the viewer's hand, the top discard and the stock at its log's length. */
  remember(seen, state) {
    const view = state.view;
    view.log.forEach((entry, i) => {
      const text = JSON.stringify([entry.seat, entry.action, entry.card ?? null]);
      if (i < seen.log.length && seen.log[i] !== text) seen.changed = true;
      else if (i >= seen.log.length) seen.log.push(text);
    });
    seen.players = view.seats.length;
    seen.handSize = view.ruleset.hand_size;
    seen.snaps.push({ n: view.log.length, dealer: view.dealer, upcard: view.upcard, top: view.top_discard,
      stock: view.stock_size, hand: state.seat !== null && state.seat !== undefined ? sortedText(view.hand) : null });
  }

  async check(key, block, seen, view, seat) {
    const checked = [];
    try {
      const problem = await this.problem(key, block, seen, view, seat, checked);
      if (problem) return { verified: false, problem, checked };
      if (!seen.snaps.length) return { verified: false, unchecked: t("fair.reason_no_cards"), checked };
      if (!seen.before) return { verified: false, unchecked: t("fair.reason_late"), checked };
      return { verified: true, problem: null, checked, serverWord: block.server_made.every(Boolean) };
    } catch (error) {
      return { verified: false, problem: String(error && error.message || error), checked };
    }
  }

  async problem(key, block, seen, view, seat, checked) {
    if (await sha256Hex(hexToBytes(block.server_seed)) !== seen.commitment) return t("fair.problem_commitment");
    if (seen.before) checked.push(t("fair.check_commitment"));
    const seeds = block.client_seeds;
    const players = seen.players ?? seeds.length;
    if (seeds.length !== players || block.server_made.length !== players || seeds.some((s) => !s)) return t("fair.problem_seats");
    const scheme = block.scheme ?? 1;
    if (scheme >= 2) {
      for (let s = 0; s < players; s += 1) {
        if (block.server_made[s] && seeds[s] !== await serverMadeSeed(block.server_seed, s)) return t("fair.problem_server_made");
      }
    }
    checked.push(t(scheme >= 2 ? "fair.check_seeds" : "fair.check_seeds_old"));
    const mine = this.sent.get(key);
    if (mine && seat !== null && seeds[seat] !== mine) return t("fair.problem_my_seed");
    if (mine && seat !== null) checked.push(t("fair.check_my_seed"));
    if (seen.changed) return t("fair.problem_changed");
    if (!view || !seen.snaps.length) return null;
    if (scheme >= 2 && block.hand === 1) {
      if (view.dealer !== await firstDealer(block.server_seed, seeds, players)) return t("fair.problem_first_dealer");
      checked.push(t("fair.check_first_dealer"));
    }
    const serverSeed = hexToBytes(block.server_seed);
    const seedBytes = seeds.map(hexToBytes);
    const deck = (await fairShuffle(serverSeed, seedBytes, "deal", Array.from({ length: 52 }, (_, i) => i))).map(cardName);
    const reshuffle = async (k, cards) => (await fairShuffle(serverSeed, seedBytes, `reshuffle${k}`, cards.map(cardNumber))).map(cardName);
    const { problem, counts } = await replaySeen(deck, {
      players, handSize: seen.handSize, dealer: view.dealer, log: view.log, snaps: seen.snaps,
      shown: view.seats.map((s) => s.cards), seat, reshuffle,
    });
    if (problem) return t(problem);
    if (counts.dealt) checked.push(t("fair.check_dealt"));
    if (counts.upcard) checked.push(t("fair.check_upcard"));
    checked.push(t("fair.check_draws", { n: counts.draws }), t("fair.check_discards", { n: counts.discards + counts.taken }),
      t("fair.check_reshuffles", { n: counts.reshuffles }));
    if (counts.shown) checked.push(t("fair.check_shown"));
    return null;
  }

  /** The mark of a revealed hand (null while not revealed or not yet checked). */
  mark(state) {
    const block = state && state.fair;
    if (!block || !block.server_seed) return null;
    const result = this.results.get(`${block.hand}:${block.commitment}`);
    if (!result || result.pending) return null;
    // the technical part (what was checked, the hashes) stays folded; how it works in plain
    // words, and the check of a downloaded record, are on the /fair page
    const how = el("details", { class: "fair-how" },
      el("summary", {}, t("fair.how")),
      result.checked && result.checked.length
        ? el("div", { class: "fair-checked" }, el("p", {}, t("fair.checked")),
          el("ul", {}, result.checked.map((line) => el("li", {}, line))))
        : null,
      el("dl", {},
        el("dt", {}, t("fair.commitment")), el("dd", { class: "fair-hex" }, block.commitment),
        el("dt", {}, t("fair.server_seed")), el("dd", { class: "fair-hex" }, block.server_seed),
        el("dt", {}, t("fair.client_seeds")),
        el("dd", { class: "fair-hex" }, block.client_seeds.map((s, i) =>
          el("div", {}, block.server_made[i] ? t("fair.server_made", { seed: s }) : s)))));
    const state_ = result.verified ? "verified" : result.unchecked ? "unchecked" : "failed";
    const verdict = result.verified ? t("fair.verified", { n: block.hand })
      : result.unchecked ? t("fair.unchecked", { n: block.hand, reason: result.unchecked })
        : t("fair.failed", { n: block.hand, problem: result.problem });
    return el("div", { class: `fair-mark ${state_}`, id: "fair-mark", dataset: { hand: String(block.hand) } },
      el("span", { class: "fair-icon", "aria-hidden": "true" }, FAIR_ICONS[state_]),
      el("span", { class: "fair-plain" }, t(`fair.plain_${state_}`)),
      el("span", { class: "fair-verdict" }, verdict),
      result.serverWord ? el("span", { class: "fair-server-word" }, " ", t("fair.server_word")) : null,
      link("/fair", t("fair.page_link"), { class: "fair-page-link", id: "fair-page-link" }),
      how);
  }

  /** Add this hand's mark, or the commitment of the hand to come, to `slot`. */
  render(slot, state) {
    const shown = this.mark(state) || this.withheldLine(state) || this.committedLine(state);
    if (shown) slot.append(shown);
  }

  /** Replace the mark or commitment line in `slot` after a check answered (the page itself
   * is not re-rendered). */
  refresh(slot, state) {
    slot.querySelectorAll(".fair-mark, .fair-commitment").forEach((node) => node.remove());
    this.render(slot, state);
  }

  /** A void hand's seed waits for the match's end (R4.8): say so, or null. */
  withheldLine(state) {
    const block = state && state.fair;
    if (!block || block.server_seed || !block.withheld) return null;
    return el("p", { class: "fair-commitment fair-withheld", id: "fair-commitment", dataset: { hand: String(block.hand) } },
      t("fair.withheld", { n: block.hand }));
  }

  /** A short line for a hand about to be dealt (its commitment), or null. */
  committedLine(state) {
    const block = state && state.fair;
    if (!block || block.server_seed) return null;
    return el("p", { class: "fair-commitment", id: "fair-commitment", dataset: { hand: String(block.hand) } },
      t("fair.committed", { n: block.hand, commitment: block.commitment.slice(0, 16) }));
  }
}
