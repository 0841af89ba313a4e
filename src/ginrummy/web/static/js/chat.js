// Table chat: messages rendered with textContent only, a per-player mute, and a report of a
// message to the moderators (POST /api/reports).
import { api } from "./api.js";
import { accountErrorText } from "./account.js";
import { el, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";
import { toast } from "./toast.js";

const KEEP = 100;

export class Chat {
  /** `token`: the seat's token when a guest holds one (a guest reports as its seat). */
  constructor(connection, tableId, token = null) {
    this.connection = connection;
    this.tableId = tableId;
    this.token = token;
    this.mySeat = null;
    this.reported = new Set(); // messages already reported (by seat, name and text)
    this.messages = [];
    this.muted = new Set(); // seat numbers, or "spectators"
    this.list = el("ol", { class: "chat-log", id: "chat-log", "aria-live": "polite" });
    this.muteBox = el("div", { class: "mute-list" });
    this.input = el("input", { id: "chat-input", type: "text", maxlength: "200", autocomplete: "off",
      "aria-label": t("chat.placeholder"), placeholder: t("chat.placeholder") });
    this.root = el("section", { class: "panel chat", "aria-labelledby": "chat-title" },
      el("h3", { id: "chat-title" }, t("chat.title")),
      this.list,
      el("form", { class: "chat-form", onsubmit: (e) => { e.preventDefault(); this.send(); } },
        this.input, el("button", { type: "submit", id: "chat-send" }, t("chat.send"))),
      this.muteBox);
  }

  key(seat) {
    return seat === null || seat === undefined ? "spectators" : seat;
  }

  receive(message) {
    if (this.muted.has(this.key(message.seat))) return;
    this.messages.push(message);
    if (this.messages.length > KEEP) this.messages.shift();
    this.renderMessages();
  }

  send() {
    const text = this.input.value.trim();
    if (!text) return;
    if (this.connection.chat(text.slice(0, 200))) this.input.value = "";
  }

  renderMessages() {
    replaceChildren(this.list, this.messages.map((m) => el("li", {},
      el("strong", { class: "chat-name", text: m.seat === null ? t("chat.spectator") : (m.name || "") }),
      ": ",
      el("span", { class: "chat-text", text: m.text }),
      this.mine(m) ? null : this.reportButton(m))));
    this.list.scrollTop = this.list.scrollHeight;
  }

  mine(message) {
    return this.mySeat !== null && message.seat === this.mySeat;
  }

  reportButton(message) {
    const key = JSON.stringify([message.seat, message.name, message.text]);
    const done = this.reported.has(key);
    if (!message.name) return null; // a spectator's line names no author to report
    return el("button", { type: "button", class: "small report", disabled: done, title: t("chat.report_help"),
      onclick: async () => {
        try {
          const body = { table_id: this.tableId, author: message.name || "", text: message.text };
          if (this.token) body.token = this.token;
          await api.report(body);
          this.reported.add(key);
          toast(t("chat.reported"));
          this.renderMessages();
        } catch (error) {
          toast(accountErrorText(error), "error");
        }
      } }, done ? t("chat.reported_badge") : t("chat.report"));
  }

  /** Mute buttons for every other seat and for the spectators. */
  renderMutes(seats, mySeat) {
    this.lastSeats = [seats, mySeat];
    if (this.mySeat !== mySeat) {
      this.mySeat = mySeat ?? null;
      this.renderMessages();
    }
    const buttons = [];
    for (const seat of seats) {
      if (seat.seat === mySeat || seat.kind !== "human") continue;
      buttons.push(this.muteButton(seat.seat, seat.name || t("seat.label", { n: seat.seat + 1 })));
    }
    buttons.push(this.muteButton(null, t("chat.spectators")));
    replaceChildren(this.muteBox, buttons);
  }

  muteButton(seat, label) {
    const key = this.key(seat);
    const muted = this.muted.has(key);
    return el("button", { type: "button", class: "small mute", "aria-pressed": muted ? "true" : "false",
      onclick: () => {
        const now = !this.muted.has(key);
        if (now) this.muted.add(key); else this.muted.delete(key);
        this.connection.mute(seat, now);
        if (now) this.messages = this.messages.filter((m) => this.key(m.seat) !== key);
        this.renderMessages();
        this.renderMutes(...this.lastSeats);
      } }, t(muted ? "chat.unmute" : "chat.mute", { name: label }));
  }
}
