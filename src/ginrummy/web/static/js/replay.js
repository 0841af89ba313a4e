// A finished match step by step (/replay/ID): forward and back with the buttons or the arrow
// keys (Home and End for the first and last step), every hand face up, the action of each
// step and the scores; the record's download link. GET /api/matches/{id}/replay.
import { api } from "./api.js";
import { cardElement, cardText, sortCards } from "./cards.js";
import { el, replaceChildren } from "./dom.js";
import { has, number, t } from "./i18n.js";
import { accountErrorText } from "./account.js";
import { categoryLabel } from "./format.js";
import { replayCoach, stepIndex } from "./coachview.js";
import { prefs } from "./prefs.js";
import { outcomeLabel, revealPanel } from "./reveal.js";
import { link, profilePath } from "./session.js";

/** Each seat's name from the replay's `players` (names, or objects with `name` and `seat`). */
export function seatNames(players, seats) {
  const names = Array.from({ length: seats }, (_, s) => t("seat.label", { n: s + 1 }));
  (players || []).forEach((player, index) => {
    if (typeof player === "string") names[index] = player;
    else if (player && typeof player === "object") {
      const seat = Number.isInteger(player.seat) ? player.seat : index;
      if (player.name) names[seat] = player.name;
      else if (player.bot || player.level) names[seat] = t("seat.computer", { level: player.bot || player.level });
    }
  });
  return names;
}

/** The action of a step in words ("Ann discards 7♥."), or the notation when no phrase fits. */
export function actionText(action, name) {
  if (!action || action === "deal") return t("replay.deal");
  const words = action.trim().split(/\s+/);
  const kind = words[0];
  const card = words[1] && /^[A2-9TJQK][shdc]$/i.test(words[1]) ? cardText(words[1]) : "";
  return has(`log.${kind}`) ? t(`log.${kind}`, { name: name || "", card }) : `${name || ""}: ${action}`;
}

export class ReplayPage {
  constructor(root, matchId, go) {
    this.root = root;
    this.matchId = matchId;
    this.go = go;
    this.replay = null;
    this.error = null;
    this.index = 0;
    this.onKey = (event) => this.keydown(event);
  }

  async start() {
    document.addEventListener("keydown", this.onKey);
    this.render();
    try {
      this.replay = await api.replay(this.matchId);
      // ?step=N (from 1) opens that step: the coach's links to a costly move; ?hand=H&move=M
      // (from 1) the step of that move (the links of the coach at the end of a table's match)
      const query = new URLSearchParams(window.location.search);
      const step = Number(query.get("step"));
      if (Number.isInteger(step) && step >= 1) this.index = Math.max(0, Math.min(step, this.steps.length) - 1);
      const at = stepIndex(this.steps, Number(query.get("hand")), Number(query.get("move")));
      if (!query.has("step") && at !== null) this.index = at;
    } catch (error) {
      this.error = accountErrorText(error);
    }
    this.render();
  }

  stop() {
    // route() detaches this page's host, so a late answer draws out of sight
    document.removeEventListener("keydown", this.onKey);
  }

  rerender() {
    this.render();
  }

  /** True when the seat was an account's (its name links to a profile). */
  isAccount(seat) {
    const player = (this.replay.players || []).find((p) => p && typeof p === "object" && p.seat === seat);
    return Boolean(player && player.account && player.name);
  }

  get steps() {
    return (this.replay && this.replay.steps) || [];
  }

  show(index) {
    const last = this.steps.length - 1;
    const next = Math.max(0, Math.min(last, index));
    if (next === this.index) return;
    this.index = next;
    this.render();
  }

  keydown(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target && event.target.closest?.("input, textarea, select")) return;
    if (document.querySelector("dialog[open]")) return;
    const moves = { ArrowLeft: this.index - 1, ArrowRight: this.index + 1, Home: 0, End: this.steps.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    this.show(moves[event.key]);
  }

  render() {
    const title = el("h1", {}, t("replay.title", { id: this.matchId }));
    if (!this.replay) {
      replaceChildren(this.root, el("section", { class: "replay-page", id: "replay-page" }, title,
        this.error ? el("p", { class: "panel form-error", id: "replay-error", role: "alert" }, this.error)
          : el("p", { class: "muted" }, t("common.loading"))));
      return;
    }
    const steps = this.steps;
    const step = steps[this.index] || { hands: [], discard: [], scores: [] };
    const seats = Math.max((step.hands || []).length, (this.replay.players || []).length);
    const names = seatNames(this.replay.players, seats);
    const download = el("a", { class: "button-link", id: "replay-download", href: api.recordUrl(this.matchId),
      download: `match-${this.matchId}.json` }, t("history.download"));
    const controls = el("div", { class: "actions replay-controls" },
      el("button", { type: "button", id: "replay-first", disabled: this.index === 0, onclick: () => this.show(0) }, t("replay.first")),
      el("button", { type: "button", id: "replay-prev", disabled: this.index === 0, onclick: () => this.show(this.index - 1) }, t("replay.prev")),
      el("span", { id: "replay-position", class: "position" }, t("replay.position", { step: number(this.index + 1), steps: number(steps.length) })),
      el("button", { type: "button", id: "replay-next", class: "primary", disabled: this.index >= steps.length - 1,
        onclick: () => this.show(this.index + 1) }, t("replay.next")),
      el("button", { type: "button", id: "replay-last", disabled: this.index >= steps.length - 1,
        onclick: () => this.show(steps.length - 1) }, t("replay.last")),
      download);
    const handNumber = steps.slice(0, this.index + 1).filter((s) => s.action === "deal").length;
    const discard = step.discard || [];
    const top = discard.length ? discard[discard.length - 1] : null;
    const scores = step.scores || [];
    const hands = (step.hands || []).map((cards, seat) => el("div", { class: `seat-box${step.seat === seat ? " to-move" : ""}`, dataset: { seat } },
      el("div", { class: "seat-title" },
        this.isAccount(seat) ? link(profilePath(names[seat]), names[seat], { class: "player-name" })
          : el("span", { class: "player-name", text: names[seat] }),
        scores[seat] !== undefined && scores[seat] !== null ? el("span", { class: "score" }, t("seat.score", { count: scores[seat], points: number(scores[seat]) })) : null,
        el("span", { class: "count" }, t("seat.count", { count: cards.length }))),
      el("div", { class: "card-row replay-hand" }, sortCards(cards, prefs.sort).map((code) => cardElement(code, { class: "mini" })))));
    replaceChildren(this.root, el("section", { class: "replay-page", id: "replay-page",
      dataset: { step: String(this.index), steps: String(steps.length) } },
    title,
    el("p", { class: "subtitle" }, categoryLabel(this.replay.preset), " · ", names.join(" · ")),
    el("div", { class: "panel" },
      controls,
      el("p", { class: "replay-action", id: "replay-action", role: "status" },
        handNumber ? el("span", { class: "badge" }, t("replay.hand", { n: number(handNumber) })) : null, " ",
        actionText(step.action, step.seat === null || step.seat === undefined ? "" : names[step.seat]),
        step.result && step.result.outcome ? [" ", el("span", { class: "badge outcome", id: "replay-outcome" }, outcomeLabel(step.result.outcome))] : null),
      el("div", { class: "replay-piles" },
        el("span", {}, t("pile.stock"), ": ", number(step.stock ?? 0)),
        el("span", { class: "replay-discard" }, t("pile.discard"), ": ",
          top ? cardElement(top, { class: "mini" }) : el("em", {}, t("replay.empty")),
          discard.length > 1 ? el("span", { class: "muted" }, " ", t("seat.count", { count: discard.length })) : null)),
      // the hand's last step: its result as the table showed it (melds, layoffs, points)
      step.result && step.knock !== undefined ? revealPanel({ result: step.result, knock: step.knock, defences: step.defences,
        seats: (step.hands || []).map((cards, seat) => ({ seat, cards })), hand_number: handNumber, ruleset: this.replay.rules }, names)
        : el("div", { class: "replay-hands", id: "replay-hands" }, hands),
      el("p", { class: "muted" }, t("replay.keys"))),
    replayCoach(this)));
  }
}
