// Table chat: messages rendered with textContent only, a per-player mute, and a report of a
// message to the moderators (POST /api/reports). The server keeps a table's last 100 lines
// and sends them after `welcome` (chat messages with `history: true`): lines are ordered and
// told apart by their number (`seq`), so a reconnection shows each line once and adds those
// said while away. Mutes are remembered per table in this browser and told to every new
// connection, so a muted player's earlier lines stay hidden after a reload too.
import { api } from "./api.js";
import { el, replaceChildren, toast } from "./dom.js";
import { accountErrorText } from "./format.js";
import { language, t } from "./i18n.js";

const KEEP = 100;
const MUTES_KEY = "ginrummy.chatMutes";
const MUTED_TABLES = 20; // the tables whose mutes this browser remembers, latest first

/** The mutes this browser keeps for a table: seat numbers, or "spectators". */
function storedMutes(tableId) {
  try {
    const all = JSON.parse(localStorage.getItem(MUTES_KEY) || "[]");
    const mine = Array.isArray(all) ? all.find((entry) => entry && entry.table === tableId) : null;
    return new Set(mine && Array.isArray(mine.muted) ? mine.muted : []);
  } catch {
    return new Set();
  }
}

function saveMutes(tableId, muted) {
  try {
    const all = JSON.parse(localStorage.getItem(MUTES_KEY) || "[]");
    const others = (Array.isArray(all) ? all : []).filter((entry) => entry && entry.table !== tableId);
    const kept = muted.size ? [{ table: tableId, muted: [...muted] }, ...others] : others;
    localStorage.setItem(MUTES_KEY, JSON.stringify(kept.slice(0, MUTED_TABLES)));
  } catch {
    // storage full or disabled: mutes last as long as the page
  }
}

function timeText(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null
    : date.toLocaleTimeString(language(), { hour: "2-digit", minute: "2-digit" });
}

export class Chat {
  /** `token`: the seat's token when a guest holds one (a guest reports as its seat). */
  constructor(connection, tableId, token = null) {
    this.connection = connection;
    this.tableId = tableId;
    this.token = token;
    this.mySeat = null;
    this.reported = new Set(); // messages already reported (by seat, name and text)
    this.messages = [];
    this.muted = storedMutes(tableId); // seat numbers, or "spectators"
    this.syncedSocket = null; // the connection last told this page's mutes
    this.renderTimer = null;
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
    const full = this.messages.length >= KEEP;
    if (!this.merge(message)) return;
    if (message.history) {
      this.renderSoon(); // a newcomer's history: up to 100 frames in a row, drawn once
    } else if (this.renderTimer === null && this.messages[this.messages.length - 1] === message
        && this.list.children.length === this.messages.length - (full ? 0 : 1)) {
      // a new line at the end: only it is added, so the live region announces only it
      if (full) this.list.firstElementChild?.remove();
      this.list.append(this.line(message));
      this.list.scrollTop = this.list.scrollHeight;
    } else {
      this.renderMessages();
    }
  }

  /** Put a line in its place by its number; false when it is shown already (history sent
   * again on a reconnection). Lines without a number go last. */
  merge(message) {
    const seq = message.seq;
    if (typeof seq === "number") {
      if (this.messages.some((m) => m.seq === seq)) return false;
      let at = this.messages.length;
      while (at > 0 && typeof this.messages[at - 1].seq === "number" && this.messages[at - 1].seq > seq) at -= 1;
      this.messages.splice(at, 0, message);
    } else {
      this.messages.push(message);
    }
    if (this.messages.length > KEEP) this.messages.splice(0, this.messages.length - KEEP);
    return true;
  }

  /** Draw the log once the frames already received are read, with the live region quiet
   * (the history is not news: a screen reader is not made to read 100 lines). */
  renderSoon() {
    if (this.renderTimer !== null) return;
    this.renderTimer = setTimeout(() => {
      this.renderTimer = null;
      this.list.setAttribute("aria-live", "off");
      this.renderMessages();
      setTimeout(() => this.list.setAttribute("aria-live", "polite"), 0);
    }, 0);
  }

  send() {
    const text = this.input.value.trim();
    if (!text) return;
    if (this.connection.chat(text.slice(0, 200))) this.input.value = "";
  }

  renderMessages() {
    replaceChildren(this.list, this.messages.map((m) => this.line(m)));
    this.list.scrollTop = this.list.scrollHeight;
  }

  line(m) {
    return el("li", { title: timeText(m.at) },
      el("strong", { class: "chat-name", text: m.seat === null ? t("chat.spectator") : (m.name || "") }),
      ": ",
      el("span", { class: "chat-text", text: m.text }),
      this.mine(m) ? null : this.reportButton(m));
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
    this.syncMutes();
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

  /** Tell a new connection (first page load, reload, reconnection) the mutes of this page. */
  syncMutes() {
    const socket = this.connection.socket;
    if (!socket || socket === this.syncedSocket || !this.connection.ready) return;
    this.syncedSocket = socket;
    for (const key of this.muted) this.connection.mute(key === "spectators" ? null : key, true);
  }

  muteButton(seat, label) {
    const key = this.key(seat);
    const muted = this.muted.has(key);
    return el("button", { type: "button", class: "small mute", "aria-pressed": muted ? "true" : "false",
      onclick: () => {
        const now = !this.muted.has(key);
        if (now) this.muted.add(key); else this.muted.delete(key);
        saveMutes(this.tableId, this.muted);
        this.connection.mute(seat, now);
        if (now) this.messages = this.messages.filter((m) => this.key(m.seat) !== key);
        this.renderMessages();
        this.renderMutes(...this.lastSeats);
      } }, t(muted ? "chat.unmute" : "chat.mute", { name: label }));
  }
}
