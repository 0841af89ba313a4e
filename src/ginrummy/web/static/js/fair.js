// Provably fair deals in the browser (docs/fair.md): this seat's client seed for each hand
// (crypto.getRandomValues), and the check of each finished hand with Web Crypto: the
// revealed server seed hashes to the commitment this page saw before the cards, this seat's
// seed is among the seeds, and the deck the published algorithm makes from the seeds deals
// this seat the cards it was dealt and turns the upcard it saw. A JS port of ginrummy.fair.
import { el } from "./dom.js";
import { t } from "./i18n.js";

const DOMAIN = new TextEncoder().encode("ginrummy-fair-v1");
const RANKS = "A23456789TJQK";
const SUITS = "shdc";
const WORD_RANGE = 2 ** 32;

/** A card number (0-51: suit * 13 + rank) as the server names it ("As", "Td"). */
export function cardName(card) {
  return RANKS[card % 13] + SUITS[Math.floor(card / 13)];
}

function hexToBytes(hex) {
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

/** Fisher-Yates over `cards` sorted ascending, driven by HMAC-SHA256(server seed,
 * DOMAIN 0 digest purpose 0 counter) blocks read as 4-byte words, rejection sampled. */
export async function fairShuffle(serverSeed, clientSeeds, purpose, cards) {
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
  const below = async (bound) => {
    const limit = WORD_RANGE - (WORD_RANGE % bound);
    for (;;) {
      const value = await word();
      if (value < limit) return value % bound;
    }
  };
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

/** Follows the `fair` block of a table's states: sends this seat's seed when a hand asks for
 * it, remembers what was seen before each reveal, and checks each revealed hand. */
export class FairDeals {
  constructor(connection) {
    this.connection = connection;
    this.sent = new Map(); // hand key -> the seed sent
    this.seen = new Map(); // hand key -> {commitment, upcard, dealt, dealer, players}
    this.results = new Map(); // hand key -> {verified, problem}
    this.onChange = null;
  }

  /** Called with every state (before the page renders it). */
  receive(state) {
    const block = state.fair;
    if (!block) return;
    const key = `${block.hand}:${block.commitment}`;
    const seen = this.seen.get(key) || { commitment: block.commitment, before: block.server_seed === null };
    this.seen.set(key, seen);
    const view = state.view;
    if (view && view.hand_number === block.hand && block.server_seed === null) {
      seen.upcard = seen.upcard || view.upcard;
      if (!seen.dealt && state.seat !== null && view.log.length === 0 && view.hand.length) {
        seen.dealt = { seat: state.seat, cards: [...view.hand].sort(), dealer: view.dealer, players: view.seats.length, size: view.hand.length };
      }
    }
    const seat = state.seat;
    if (seat !== null && seat !== undefined && block.server_seed === null
        && block.client_seeds[seat] === null && !this.sent.has(key)) {
      const seed = newClientSeed();
      if (this.connection.send({ type: "seed", hand: block.hand, seed })) this.sent.set(key, seed);
    }
    if (block.server_seed && !this.results.has(key)) {
      this.results.set(key, { pending: true });
      this.check(key, block, seen).then((result) => {
        this.results.set(key, result);
        this.onChange?.();
      });
    }
  }

  async check(key, block, seen) {
    try {
      const problem = await this.problem(key, block, seen);
      return { verified: problem === null, problem };
    } catch (error) {
      return { verified: false, problem: String(error && error.message || error) };
    }
  }

  async problem(key, block, seen) {
    if (!seen.before) return t("fair.problem_late");
    if (await sha256Hex(hexToBytes(block.server_seed)) !== seen.commitment) return t("fair.problem_commitment");
    const mine = this.sent.get(key);
    if (mine && seen.dealt && block.client_seeds[seen.dealt.seat] !== mine) return t("fair.problem_my_seed");
    const deck = await fairDeck(block.server_seed, block.client_seeds);
    const dealt = seen.dealt;
    if (dealt) {
      const count = dealt.players * dealt.size;
      const own = deck.slice(0, count).filter((_, i) => (dealt.dealer + 1 + i) % dealt.players === dealt.seat);
      if (own.sort().join(" ") !== dealt.cards.join(" ")) return t("fair.problem_my_cards");
      if (seen.upcard && deck[count] !== seen.upcard) return t("fair.problem_upcard");
    }
    return null;
  }

  /** The mark of a revealed hand (null while not revealed or not yet checked). */
  mark(state) {
    const block = state && state.fair;
    if (!block || !block.server_seed) return null;
    const result = this.results.get(`${block.hand}:${block.commitment}`);
    if (!result || result.pending) return null;
    const how = el("details", { class: "fair-how" },
      el("summary", {}, t("fair.how")),
      el("p", {}, t("fair.explain", { hash: "SHA-256" })),
      el("dl", {},
        el("dt", {}, t("fair.commitment")), el("dd", { class: "fair-hex" }, block.commitment),
        el("dt", {}, t("fair.server_seed")), el("dd", { class: "fair-hex" }, block.server_seed),
        el("dt", {}, t("fair.client_seeds")),
        el("dd", { class: "fair-hex" }, block.client_seeds.map((s, i) =>
          el("div", {}, block.server_made[i] ? t("fair.server_made", { seed: s }) : s)))),
      el("p", {}, t("fair.check_yourself")));
    return el("div", { class: `fair-mark ${result.verified ? "verified" : "failed"}`, id: "fair-mark", dataset: { hand: String(block.hand) } },
      el("span", { class: "fair-verdict" },
        result.verified ? t("fair.verified", { n: block.hand }) : t("fair.failed", { n: block.hand, problem: result.problem })),
      " ", how);
  }

  /** Add this hand's mark, or the commitment of the hand to come, to `slot`. */
  render(slot, state) {
    const shown = this.mark(state) || this.committedLine(state);
    if (shown) slot.append(shown);
  }

  /** Replace the mark or commitment line in `slot` after a check answered (the page itself
   * is not re-rendered). */
  refresh(slot, state) {
    slot.querySelectorAll(".fair-mark, .fair-commitment").forEach((node) => node.remove());
    this.render(slot, state);
  }

  /** A short line for a hand about to be dealt (its commitment), or null. */
  committedLine(state) {
    const block = state && state.fair;
    if (!block || block.server_seed) return null;
    return el("p", { class: "fair-commitment", id: "fair-commitment", dataset: { hand: String(block.hand) } },
      t("fair.committed", { n: block.hand, commitment: block.commitment.slice(0, 16) }));
  }
}
