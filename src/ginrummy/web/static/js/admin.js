// The admin page (/admin, admins only): live tables with kick and close, mute / unmute / ban /
// unban by name, a notice to every connected player, the moderation log and chat reports.
import { api, ApiError } from "./api.js";
import { el, replaceChildren, toast } from "./dom.js";
import { has, number, t } from "./i18n.js";
import { accountErrorText } from "./account.js";
import { dateText, tableName } from "./format.js";
import { currentAccount, isAdmin, link, profilePath } from "./session.js";

/** What each moderation action sends: the inputs it reads from its form. */
const NAME_ACTIONS = ["mute", "unmute", "ban", "unban"];

export class AdminPage {
  constructor(root, go) {
    this.root = root;
    this.go = go;
    this.tables = [];
    this.log = [];
    this.reports = [];
    this.error = null;
    this.forbidden = false;
    this.loaded = false;
    this.typed = { name: "", minutes: "60", notice: "", kick: {} }; // kept when the page is drawn again
  }

  async start() {
    if (!currentAccount()) {
      this.go(`/login?next=${encodeURIComponent("/admin")}`, true);
      return;
    }
    this.forbidden = !isAdmin();
    this.render();
    if (!this.forbidden) await this.load();
  }

  stop() {} // left: route() detaches this page's host, so a late answer draws out of sight

  rerender() {
    this.render();
  }

  async load() {
    try {
      const [tables, log, reports] = await Promise.all([api.admin.tables(), api.admin.log(), api.admin.reports()]);
      this.tables = tables.tables || [];
      this.log = log.entries || log.log || [];
      this.reports = reports.reports || [];
      this.error = null;
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) this.forbidden = true;
      this.error = accountErrorText(error);
    }
    this.loaded = true;
    this.render();
  }

  async act(action, body, done = null) {
    try {
      await api.admin.act(action, body);
      toast(t(`admin.done.${action}`), "info");
      done?.();
    } catch (error) {
      toast(accountErrorText(error), "error");
    }
    await this.load();
  }

  async markHandled(id) {
    try {
      await api.admin.handled(id);
    } catch (error) {
      toast(accountErrorText(error), "error");
    }
    await this.load();
  }

  tableRow(table) {
    const seats = (table.seats || []).filter((s) => s.kind === "human");
    const chosen = this.typed.kick[table.id];
    const seatSelect = el("select", { class: "kick-seat", "aria-label": t("admin.seat"),
      onchange: (e) => { this.typed.kick[table.id] = e.target.value; } },
    seats.map((s) => el("option", { value: s.seat, selected: String(s.seat) === chosen }, `${t("seat.label", { n: s.seat + 1 })}: ${s.name || ""}`)));
    return el("tr", { dataset: { table: table.id } },
      el("td", {}, link(`/?table=${encodeURIComponent(table.id)}`, tableName(table), { class: "table-name" })),
      el("td", {}, has(`status.${table.status}`) ? t(`status.${table.status}`) : table.status),
      el("td", {}, (table.seats || []).map((s) => s.kind === "human" ? s.name : s.kind === "bot" ? t("seat.computer", { level: s.level }) : "–").join(", ")),
      el("td", {}, table.pool_chips ? t("sheet.chips", { count: table.pool_chips, chips: number(table.pool_chips) }) : ""),
      el("td", { class: "actions" },
        seats.length ? [seatSelect, el("button", { type: "button", class: "small kick-button",
          onclick: () => this.act("kick", { table_id: table.id, seat: Number(seatSelect.value) }) }, t("admin.kick"))] : null,
        el("button", { type: "button", class: "small close-button",
          onclick: () => this.act("close", { table_id: table.id }) }, t("admin.close"))));
  }

  moderationForm() {
    const name = el("input", { id: "admin-name", type: "text", required: true, maxlength: "24", autocomplete: "off",
      value: this.typed.name, oninput: (e) => { this.typed.name = e.target.value; } });
    const minutes = el("input", { id: "admin-minutes", type: "number", min: "1", max: "525600",
      value: this.typed.minutes, oninput: (e) => { this.typed.minutes = e.target.value; } });
    const send = (action) => {
      const who = name.value.trim();
      if (!who) { name.focus(); return; }
      this.act(action, action === "mute" ? { name: who, minutes: Number(minutes.value || 60) } : { name: who });
    };
    return el("form", { class: "admin-form", id: "admin-moderation", onsubmit: (e) => e.preventDefault() },
      el("label", { for: "admin-name" }, t("admin.player")), name,
      el("label", { for: "admin-minutes" }, t("admin.minutes")), minutes,
      el("div", { class: "actions" }, NAME_ACTIONS.map((action) =>
        el("button", { type: "button", id: `admin-${action}`, onclick: () => send(action) }, t(`admin.${action}`)))));
  }

  noticeForm() {
    const text = el("input", { id: "admin-notice-text", type: "text", required: true, maxlength: "300",
      value: this.typed.notice, oninput: (e) => { this.typed.notice = e.target.value; } });
    return el("form", { class: "admin-form", id: "admin-notice", onsubmit: (e) => {
      e.preventDefault();
      const value = text.value.trim();
      if (value) this.act("notice", { text: value }, () => { this.typed.notice = ""; });
    } }, el("label", { for: "admin-notice-text" }, t("admin.notice_text")), text,
    el("button", { type: "submit", id: "admin-notice-send", class: "primary" }, t("admin.notice_send")));
  }

  render() {
    const title = el("h1", {}, t("admin.title"));
    if (this.forbidden) {
      replaceChildren(this.root, el("section", { class: "admin-page", id: "admin-page", dataset: { forbidden: "true" } },
        title, el("p", { class: "panel form-error", role: "alert" }, t("admin.forbidden"))));
      return;
    }
    const logRows = this.log.map((entry) => el("li", {},
      el("span", { class: "muted" }, dateText(entry.at), " "),
      el("strong", { class: "player-name", text: entry.admin || entry.actor || "" }), " ",
      el("span", { class: "log-action", dataset: { action: entry.action || "" } },
        has(`admin.action.${entry.action}`) ? t(`admin.action.${entry.action}`) : entry.action || ""), " ",
      entry.target ? el("span", { class: "player-name", text: entry.target }) : null,
      entry.table_id ? [" ", link(`/?table=${encodeURIComponent(entry.table_id)}`, entry.table_id, { class: "table-name" })] : null,
      entry.detail ? el("span", { class: "muted log-detail", text: ` (${typeof entry.detail === "string" ? entry.detail : JSON.stringify(entry.detail)})` }) : null));
    const reportRows = this.reports.map((report) => el("li", {},
      el("span", { class: "muted" }, dateText(report.at), " "),
      t("admin.report_line", { reporter: report.reporter || "?", author: report.author || "?" }), " ",
      el("q", { class: "chat-text", text: report.text || "" }), " ",
      report.author ? link(profilePath(report.author), t("account.profile")) : null,
      report.table_id ? [" ", link(`/?table=${encodeURIComponent(report.table_id)}`, report.table_id)] : null, " ",
      report.handled ? el("span", { class: "badge" }, t("admin.handled"))
        : el("button", { type: "button", class: "small handled-button", dataset: { report: report.id },
          onclick: () => this.markHandled(report.id) }, t("admin.mark_handled"))));
    replaceChildren(this.root, el("section", { class: "admin-page", id: "admin-page", dataset: { loaded: String(this.loaded) } },
      title,
      this.error ? el("p", { class: "panel form-error", role: "alert" }, this.error) : null,
      el("div", { class: "panel" },
        el("div", { class: "panel-head" }, el("h2", {}, t("admin.tables")),
          el("button", { type: "button", id: "admin-refresh", onclick: () => this.load() }, t("lobby.refresh"))),
        this.tables.length ? el("table", { class: "data-table", id: "admin-tables" },
          el("thead", {}, el("tr", {},
            el("th", { scope: "col" }, t("admin.table")), el("th", { scope: "col" }, t("admin.status")),
            el("th", { scope: "col" }, t("admin.players")), el("th", { scope: "col" }, t("sheet.payouts")),
            el("th", { scope: "col" }, t("admin.actions")))),
          el("tbody", {}, this.tables.map((table) => this.tableRow(table)))) : el("p", { class: "muted" }, t("lobby.no_tables"))),
      el("div", { class: "admin-columns" },
        el("div", { class: "panel" }, el("h2", {}, t("admin.moderation")), this.moderationForm()),
        el("div", { class: "panel" }, el("h2", {}, t("admin.notice")), this.noticeForm())),
      el("div", { class: "panel" }, el("h2", {}, t("admin.reports")),
        reportRows.length ? el("ol", { class: "report-list", id: "admin-reports" }, reportRows) : el("p", { class: "muted" }, t("admin.no_reports"))),
      el("div", { class: "panel" }, el("h2", {}, t("admin.log")),
        logRows.length ? el("ol", { class: "mod-log", id: "admin-log" }, logRows) : el("p", { class: "muted" }, t("admin.no_log")))));
  }
}
