// The beginner's hint at a table against the computer (issue 27.8, docs/client.md): a Hint
// button beside the moves asks POST /api/tables/{id}/hint, and the expert's suggestion for
// this decision is shown above the hand with a one-line reason in the page's language
// (`hint.reason.<code>`). The server computes it from the seat's own view only, and refuses it
// (403 `hints_off`) in a rated game and at a table with other people: the button is not
// offered there either. Nothing is shown unasked: the button is the whole setting.
import { api } from "./api.js";
import { actionLabel, cardText } from "./cards.js";
import { el } from "./dom.js";
import { CATEGORIES } from "./format.js";
import { number, t } from "./i18n.js";

const CARD = /^[A2-9TJQK][shdc]$/i;
const CARD_PARAMS = new Set(["card", "cards"]);

/** Cards of the record's notation ("9c 9d") in the reader's words. */
function cardsText(text) {
  return String(text || "").split(/\s+/).filter((w) => CARD.test(w)).map(cardText).join(" ");
}

/** Whether a match at `table` would be rated, as the server decides it (docs/players.md): a
 * rating category (a preset for two players, an arena deal for three or four) and every seat
 * an account or the computer. */
export function ratedTable(table) {
  const rules = table.rules || {};
  const category = table.seats.length === 2 ? CATEGORIES.includes(table.preset)
    : table.preset === "arena" && rules.format === "single_hand";
  return Boolean(category) && table.seats.every((s) => (s.kind === "human" && s.account) || s.kind === "bot");
}

/** The hint's reason in the reader's language. */
export function hintReason(reason) {
  if (!reason || !reason.code) return "";
  const params = {};
  for (const [key, value] of Object.entries(reason.params || {})) {
    params[key] = CARD_PARAMS.has(key) ? cardsText(value) : typeof value === "number" ? number(value) : String(value);
  }
  return t(`hint.reason.${reason.code}`, params);
}

/** The hint of one table page: asked for on demand, forgotten when the state moves on. */
export class Hinter {
  constructor(page) {
    this.page = page;
    this.version = null; // the state version the shown hint (or the request) is for
    this.hint = null;
    this.asking = false;
    this.error = null;
    this.off = false; // the server said no (a rated game): the button goes
  }

  /** Offered to the seated player at a table with only the computer, never rated. */
  available() {
    const page = this.page;
    const table = page.table;
    if (this.off || page.seat === null || !table || !page.hintsAllowed()) return false;
    return table.seats.every((s) => s.seat === page.seat || s.kind === "bot") && !ratedTable(table);
  }

  current() {
    const version = this.page.state ? this.page.state.version : null;
    if (this.version !== version) {
      this.version = version;
      this.hint = null;
      this.error = null;
    }
    return this.hint;
  }

  /** The Hint button for the action bar (null when hints are not offered). */
  button() {
    if (!this.available()) return null;
    this.current();
    return el("button", { type: "button", id: "action-hint", class: "hint-button",
      disabled: this.asking || this.page.busy || Boolean(this.hint), onclick: () => this.ask() }, t("hint.button"));
  }

  /** The hint shown under the action bar: the move, then why (or the error, or the wait). */
  box() {
    if (!this.available()) return null;
    const hint = this.current();
    let body = null;
    if (hint) {
      body = [el("strong", { class: "hint-move", id: "hint-move" }, t("hint.suggest", { move: actionLabel(hint.action) })),
        " ", el("span", { class: "hint-reason", id: "hint-reason" }, hintReason(hint.reason))];
    } else if (this.asking) body = t("hint.thinking");
    else if (this.error) body = el("span", { class: "form-error" }, this.error);
    if (!body) return null;
    return el("p", { class: "hint-box", id: "hint-box", dataset: { action: hint ? hint.action : "" } }, body);
  }

  async ask() {
    const page = this.page;
    if (this.asking || !page.state) return;
    const version = page.state.version;
    this.current();
    this.asking = true;
    page.render();
    try {
      const token = page.stored && page.stored.token;
      const answer = await api.hint(page.tableId, token);
      if (this.version === version && answer.version === version) {
        this.hint = answer.hint;
        // told once in the table's live region (js/movelog.js)
        page.announcer.say(`${t("hint.suggest", { move: actionLabel(answer.hint.action) })} ${hintReason(answer.hint.reason)}`);
      }
    } catch (error) {
      if (error.code === "hints_off") this.off = true;
      this.error = error.code === "hints_off" ? t("hint.off") : error.code === "busy" || error.code === "too_many_jobs"
        ? t("hint.busy") : t("hint.failed");
    } finally {
      this.asking = false;
      page.render();
    }
  }

  /** Marks the suggested discard (or the knock's discard) in the rendered hand. */
  mark(handNode) {
    const hint = this.hint;
    if (!hint || !handNode || this.version !== (this.page.state && this.page.state.version)) return;
    const card = hint.action.split(/\s+/)[1];
    if (!card || !CARD.test(card) || hint.action.startsWith("layoff")) return;
    handNode.querySelector(`[data-card="${card}"]`)?.classList.add("hinted");
  }
}
