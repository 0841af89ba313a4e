// A discard can be taken back (issue 27.2): the discard a player makes (a second tap or click,
// Enter, the Discard button, a drag onto the pile) waits UNDO_MS before it is sent, the card
// shown leaving the hand and the action bar offering "Take back" (or Escape) and "Discard now".
// Until it is sent the server knows nothing of it. The same on every screen and input; the
// header's setting turns the wait off (the discard is then sent at once).
import { cardText } from "./cards.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";

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
