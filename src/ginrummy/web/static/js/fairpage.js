// The fair-deal page (/fair): how a deal is made checkable, in plain words, and the check of a
// downloaded game record in the browser (the same checks as `ginrummy verify`, docs/fair.md
// *Checking a game record*, with the functions of js/fair.js): for each hand, the commitment
// is the SHA-256 of the revealed server seed, one seed per seat, each server-made seed
// derived from the server seed (scheme 2), the first dealer drawn from the first hand's seeds,
// the record's deck and every reshuffle the ones the seeds give. Nothing is sent anywhere: the
// file is read by the page.
import { el, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";
import { cardName, cardNumber, fairShuffle, firstDealer, hexToBytes, serverMadeSeed, sha256Hex } from "./fair.js";

const CARD = /^[A2-9TJQK][shdc]$/;

function cards(text) {
  const list = String(text || "").split(/\s+/).filter(Boolean);
  if (!list.every((c) => CARD.test(c))) throw new Error("bad card");
  return list;
}

/** The problems (catalogue keys) of one hand of a record; [] when verified. `index` is the
 * hand's place (0 first), `players` the seats, `firstDealerSeat` the record's first dealer. */
export async function handProblems(hand, index, players, firstDealerSeat) {
  const fair = hand.fair;
  if (!fair || typeof fair !== "object") return ["fair.problem_no_seeds"];
  if (!fair.server_seed) return ["fair.problem_not_revealed"];
  const problems = [];
  if (await sha256Hex(hexToBytes(fair.server_seed)) !== fair.commitment) problems.push("fair.problem_commitment");
  const seeds = fair.client_seeds || [];
  const made = fair.server_made || [];
  if (seeds.length !== players || seeds.some((s) => !s)) return [...problems, "fair.problem_seats"];
  const scheme = fair.scheme ?? 1;
  if (scheme >= 2) {
    for (let seat = 0; seat < players; seat += 1) {
      if (made[seat] && seeds[seat] !== await serverMadeSeed(fair.server_seed, seat)) {
        problems.push("fair.problem_server_made");
        break;
      }
    }
    if (index === 0 && firstDealerSeat !== await firstDealer(fair.server_seed, seeds, players)) {
      problems.push("fair.problem_first_dealer");
    }
  }
  const serverSeed = hexToBytes(fair.server_seed);
  const seedBytes = seeds.map(hexToBytes);
  const deck = (await fairShuffle(serverSeed, seedBytes, "deal", Array.from({ length: 52 }, (_, i) => i))).map(cardName);
  if (cards(hand.deck).join(" ") !== deck.join(" ")) problems.push("fair.problem_deck");
  const reshuffles = (hand.actions || []).filter((a) => String(a).startsWith("reshuffle "));
  for (let k = 1; k <= reshuffles.length; k += 1) {
    const order = cards(reshuffles[k - 1].slice("reshuffle ".length));
    const wanted = (await fairShuffle(serverSeed, seedBytes, `reshuffle${k}`, order.map(cardNumber))).map(cardName);
    if (wanted.join(" ") !== order.join(" ")) {
      problems.push("fair.problem_reshuffle");
      break;
    }
  }
  return problems;
}

/** Every hand of a record: [{hand, problems}], or throws when it is not a game record. */
export async function checkRecord(record) {
  if (!record || record.format !== "ginrummy-record" || !Array.isArray(record.hands) || !Array.isArray(record.players)) {
    throw new Error("not a record");
  }
  const players = record.players.length;
  const results = [];
  for (let i = 0; i < record.hands.length; i += 1) {
    let problems;
    try {
      problems = await handProblems(record.hands[i], i, players, record.first_dealer);
    } catch {
      problems = ["fair.problem_garbled"];
    }
    results.push({ hand: i + 1, problems });
  }
  return results;
}

export class FairPage {
  constructor(root, go) {
    this.root = root;
    this.go = go;
    this.results = null;
    this.error = null;
  }

  start() { this.render(); }

  stop() {}

  rerender() { this.render(); }

  async verify(file) {
    this.results = null;
    this.error = null;
    try {
      this.results = await checkRecord(JSON.parse(await file.text()));
    } catch {
      this.error = t("fair.page.bad_file");
    }
    this.render();
  }

  resultList() {
    if (this.error) return el("p", { class: "form-error", id: "fair-results", role: "alert" }, this.error);
    if (!this.results) return el("div", { id: "fair-results", hidden: true });
    const ok = this.results.filter((r) => !r.problems.length).length;
    return el("div", { id: "fair-results", role: "status", dataset: { verified: String(ok), hands: String(this.results.length) } },
      el("p", { id: "fair-summary", class: `verify-result ${ok === this.results.length ? "ok" : "bad"}` },
        t("fair.page.summary", { verified: ok, total: this.results.length })),
      el("ul", {}, this.results.map((r) => el("li", { dataset: { hand: String(r.hand), verified: String(!r.problems.length) } },
        r.problems.length
          ? t("fair.page.hand_failed", { n: r.hand, problems: r.problems.map((p) => t(p)).join("; ") })
          : t("fair.page.hand_verified", { n: r.hand })))));
  }

  render() {
    const input = el("input", { type: "file", id: "fair-file", accept: ".json,application/json",
      onchange: () => { if (input.files && input.files[0]) this.verify(input.files[0]); } });
    replaceChildren(this.root, el("section", { class: "fair-page", id: "fair-page" },
      el("h1", {}, t("fair.page.title")),
      el("div", { class: "panel" },
        el("p", {}, t("fair.page.intro")),
        el("ol", {}, ["step1", "step2", "step3", "step4"].map((step) => el("li", {}, t(`fair.page.${step}`))))),
      el("div", { class: "panel" },
        el("h2", {}, t("fair.page.verify_title")),
        el("p", {}, t("fair.page.verify_help")),
        el("label", { for: "fair-file" }, t("fair.page.file")), " ", input,
        this.resultList()),
      el("div", { class: "panel" },
        el("h2", {}, t("fair.page.technical")),
        el("p", {}, t("fair.explain", { hash: "SHA-256" })),
        el("p", {}, t("fair.check_yourself")))));
  }
}
