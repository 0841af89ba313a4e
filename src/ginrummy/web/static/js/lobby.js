// The lobby: open tables with their rules and seats, the create-table form, join and watch.
import { api, ApiError } from "./api.js";
import { el, replaceChildren } from "./dom.js";
import { has, number, t } from "./i18n.js";
import { prefs, saveSeat, seatFor } from "./prefs.js";
import {
  loadSchema, optionLabel, optionSchema, optionValue, presetLabel, rulesDialog, rulesSummary,
} from "./rules.js";
import { currentAccount, refreshBalance } from "./session.js";
import { toast } from "./toast.js";

const REFRESH_MS = 5000;

export function botLabel(level) {
  return has(`bot.${level}`) ? t(`bot.${level}`) : level;
}

/** Localized text of an API error, naming the field when there is one. */
export function errorText(error) {
  if (!(error instanceof ApiError)) return String(error);
  const code = has(`error.${error.code}`) ? t(`error.${error.code}`) : t("error.generic");
  const field = error.field ? optionLabel(error.field) + ": " : "";
  return `${code} (${field}${error.message})`;
}

export class Lobby {
  constructor(root, navigate) {
    this.root = root;
    this.navigate = navigate;
    this.presets = null;
    this.bots = null;
    this.schema = null;
    this.tables = [];
    this.timer = null;
    this.form = null;
    this.dirty = new Set();
  }

  async start() {
    this.renderFrame();
    try {
      [this.presets, this.bots, this.schema] = await Promise.all([api.presets(), api.bots(), loadSchema()]);
    } catch (error) {
      toast(errorText(error), "error");
      return;
    }
    this.renderForm();
    await this.refresh();
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
  }

  stop() {
    clearInterval(this.timer);
  }

  rerender() {
    this.renderFrame();
    if (this.presets) this.renderForm();
    this.renderTables();
  }

  renderFrame() {
    const account = currentAccount();
    // an account plays under its name; a guest picks a nickname
    const who = account
      ? el("p", { class: "nickname-row", id: "playing-as" }, t("lobby.playing_as"), " ",
        el("strong", { class: "player-name", text: account.name }))
      : el("p", { class: "nickname-row" },
        el("label", { for: "nickname" }, t("lobby.nickname")), " ",
        el("input", {
          id: "nickname", type: "text", maxlength: "24", required: true, autocomplete: "nickname",
          value: prefs.nickname, oninput: (e) => { prefs.nickname = e.target.value.trim(); },
        }));
    replaceChildren(this.root,
      el("section", { class: "lobby" },
        el("h1", {}, t("lobby.title")),
        who,
        el("div", { class: "lobby-columns" },
          el("section", { class: "panel", "aria-labelledby": "tables-heading" },
            el("div", { class: "panel-head" },
              el("h2", { id: "tables-heading" }, t("lobby.open_tables")),
              el("button", { type: "button", id: "refresh-tables", onclick: () => this.refresh() }, t("lobby.refresh"))),
            el("div", { id: "table-list", class: "table-list" })),
          el("section", { class: "panel", "aria-labelledby": "create-heading" },
            el("h2", { id: "create-heading" }, t("lobby.create")),
            el("div", { id: "create-form-slot" })))));
    this.renderTables();
  }

  nickname() {
    const account = currentAccount();
    if (account) return account.name;
    const value = (document.getElementById("nickname")?.value || "").trim();
    if (!value) {
      toast(t("lobby.nickname_needed"), "error");
      document.getElementById("nickname")?.focus();
      return null;
    }
    prefs.nickname = value;
    return value;
  }

  async refresh() {
    let tables;
    try {
      tables = (await api.tables()).tables || [];
    } catch (error) {
      toast(errorText(error), "error");
      return;
    }
    if (JSON.stringify(tables) === JSON.stringify(this.tables)) return; // keep a seat being chosen
    this.tables = tables;
    this.renderTables();
  }

  renderTables() {
    const list = document.getElementById("table-list");
    if (!list) return;
    if (this.tables.length === 0) {
      replaceChildren(list, el("p", { class: "muted" }, t("lobby.no_tables")));
      return;
    }
    replaceChildren(list, this.tables.map((table) => this.tableEntry(table)));
  }

  tableEntry(table) {
    const mine = seatFor(table.id) || (table.your_seat !== null && table.your_seat !== undefined);
    const empty = table.seats.filter((s) => s.kind === "empty");
    const seats = el("ul", { class: "seat-list" }, table.seats.map((s) => el("li", { dataset: { seat: s.seat } },
      t("seat.label", { n: s.seat + 1 }), ": ",
      s.kind === "empty" ? el("em", {}, t("seat.open"))
        : s.kind === "bot" ? t("seat.computer", { level: botLabel(s.level) })
          : el("span", { class: "player-name", text: s.name || "" }))));
    const details = [
      el("span", {}, t(`status.${table.status}`)),
      table.clock_seconds ? el("span", {}, t("lobby.clock", { seconds: table.clock_seconds })) : el("span", {}, t("lobby.no_clock")),
      table.pool_chips ? el("span", {}, t("lobby.pool", { chips: number(table.pool_chips) })) : null,
      table.buy_in ? el("span", { class: "buy-in" }, t("lobby.buy_in", { chips: number(table.buy_in) })) : null,
    ];
    const actions = [];
    if (mine) {
      actions.push(el("button", { type: "button", class: "primary", onclick: () => this.navigate(table.id) }, t("lobby.return")));
    } else if (empty.length > 0) {
      const seatSelect = el("select", { class: "join-seat", "aria-label": t("lobby.seat_choice") },
        empty.map((s) => el("option", { value: s.seat }, t("seat.label", { n: s.seat + 1 }))));
      actions.push(seatSelect, el("button", {
        type: "button", class: "primary join-button",
        onclick: () => this.join(table.id, Number(seatSelect.value)),
      }, t("lobby.join")));
    }
    actions.push(el("button", { type: "button", class: "watch-button", onclick: () => this.navigate(table.id) }, t("lobby.watch")));
    actions.push(el("button", {
      type: "button", class: "rules-button",
      onclick: () => {
        const dialog = rulesDialog(table.preset, table.rules);
        document.body.append(dialog);
        dialog.addEventListener("close", () => dialog.remove());
        dialog.showModal();
      },
    }, t("rules.button")));
    return el("article", { class: "table-entry", dataset: { table: table.id } },
      el("h3", { class: "table-name", text: table.name || table.id }),
      el("p", { class: "rules-summary" }, rulesSummary(table.preset, table.rules)),
      seats,
      el("p", { class: "table-details" }, details),
      el("div", { class: "actions" }, actions));
  }

  async join(tableId, seat) {
    const nickname = this.nickname();
    if (!nickname) return;
    try {
      const answer = await api.join(tableId, { nickname, seat, invite: null });
      if (answer.token) saveSeat(tableId, { seat: answer.seat, token: answer.token, invite: null, name: nickname });
      if (currentAccount()) refreshBalance(); // a buy-in left the wallet
      this.navigate(tableId);
    } catch (error) {
      toast(errorText(error), "error");
      this.refresh();
    }
  }

  // ------------------------------------------------------------------ create form
  renderForm() {
    const slot = document.getElementById("create-form-slot");
    if (!slot) return;
    const presetNames = Object.keys(this.presets.presets);
    const preset = this.form?.preset || this.presets.default || presetNames[0];
    const presetSelect = el("select", { id: "create-preset", name: "preset", onchange: (e) => {
      this.form.preset = e.target.value;
      this.dirty.clear();
      this.renderForm();
    } }, presetNames.map((name) => el("option", { value: name, selected: name === preset }, presetLabel(name))));
    const rules = this.presets.presets[preset];
    const players = optionSchema("players");
    this.form = { preset, players: this.form?.players || rules.players || players.default };
    const counts = Array.from({ length: players.max - players.min + 1 }, (_, i) => players.min + i);
    const playersSelect = el("select", { id: "create-players", name: "players", onchange: (e) => {
      this.form.players = Number(e.target.value);
      this.fitPlayers();
      this.renderSeats();
    } }, counts.map((n) => el("option", { value: n, selected: n === this.form.players }, String(n))));
    const optionFields = this.schema.filter((option) => option.name !== "players")
      .map((option) => this.optionField(option, rules[option.name]));
    const form = el("form", { id: "create-form", class: "create-form", onsubmit: (e) => { e.preventDefault(); this.create(); } },
      el("label", {}, t("create.name"), el("input", { id: "create-name", type: "text", maxlength: "40" })),
      el("label", {}, t("create.preset"), presetSelect),
      el("p", { class: "rules-summary" }, rulesSummary(preset, rules)),
      el("label", {}, t("create.players"), playersSelect),
      el("fieldset", { id: "create-seats" }),
      el("label", { class: "check" }, el("input", { id: "create-public", type: "checkbox", checked: true }), t("create.public")),
      el("label", {}, t("create.clock"), el("input", { id: "create-clock", type: "number", min: "0", max: "600", value: "0" })),
      el("label", { id: "create-pool-label" }, t("create.pool"), el("input", { id: "create-pool", type: "number", min: "0", value: "" })),
      el("label", { id: "create-buy-in-label" }, t("create.buy_in"), el("input", { id: "create-buy-in", type: "number", min: "0", value: "" }),
        el("span", { class: "muted" }, t("create.buy_in_help"))),
      el("details", { class: "options" }, el("summary", {}, t("create.options")), el("div", { class: "option-grid" }, optionFields)),
      el("button", { type: "submit", class: "primary", id: "create-submit" }, t("create.submit")));
    replaceChildren(slot, form);
    document.getElementById("opt-format")?.addEventListener("change", () => this.showPool());
    this.renderSeats();
    this.showPool();
  }

  /** The prize pool is a setting of the formats the `payout` option applies to (R6.4). */
  showPool() {
    const format = document.getElementById("opt-format")?.value || this.presets.presets[this.form.preset].format;
    const pooled = optionSchema("payout").formats.includes(format);
    const label = document.getElementById("create-pool-label");
    if (label) label.hidden = !pooled;
    // a buy-in is paid in chips from an account's wallet (arena tables)
    const buyIn = document.getElementById("create-buy-in-label");
    if (buyIn) buyIn.hidden = !pooled || !currentAccount();
  }

  /** A value some player counts may not choose (`value_players` in the schema: the match
   * format, the dealer-first offer...) gives way to the first one this count may choose. */
  fitPlayers() {
    for (const option of this.schema) {
      const input = document.getElementById(`opt-${option.name}`);
      const only = option.value_players || {};
      if (!input || !(input.value in only) || only[input.value].includes(this.form.players)) continue;
      const allowed = option.values.filter((v) => !(v in only) || only[v].includes(this.form.players));
      if (allowed.length > 0) {
        input.value = allowed[0];
        this.dirty.add(option.name);
      }
    }
    this.showPool();
  }

  optionField(option, value) {
    const { name } = option;
    const id = `opt-${name}`;
    const mark = () => this.dirty.add(name);
    let input;
    if (option.type === "bool") {
      input = el("input", { id, type: "checkbox", checked: Boolean(value), onchange: mark });
      return el("label", { class: "check" }, input, optionLabel(name));
    }
    if (option.type === "enum") {
      input = el("select", { id, onchange: mark }, option.values.map((v) =>
        el("option", { value: v, selected: v === value }, optionValue(name, v))));
    } else {
      input = el("input", { id, type: "number", min: option.min ?? null, max: option.max ?? null,
        value: value === null || value === undefined ? "" : String(value), oninput: mark });
    }
    return el("label", {}, optionLabel(name), input);
  }

  renderSeats() {
    const fieldset = document.getElementById("create-seats");
    if (!fieldset) return;
    const levels = this.bots.levels || [];
    const rows = [];
    for (let seat = 1; seat < this.form.players; seat += 1) {
      rows.push(el("label", {}, t("seat.label", { n: seat + 1 }),
        el("select", { class: "seat-kind", dataset: { seat } },
          el("option", { value: "" }, t("create.open_seat")),
          levels.map((level) => el("option", { value: level },
            t("seat.computer", { level: botLabel(level) }))))));
    }
    replaceChildren(fieldset, el("legend", {}, t("create.seats")),
      el("p", { class: "muted" }, t("create.seat_zero")), rows);
  }

  readOptions() {
    const options = {};
    for (const name of this.dirty) {
      const option = optionSchema(name);
      const input = document.getElementById(`opt-${name}`);
      if (!option || !input) continue;
      if (option.type === "bool") options[name] = input.checked;
      else if (option.type === "enum") options[name] = input.value;
      else options[name] = input.value === "" ? null : Number(input.value);
    }
    return options;
  }

  async create() {
    const nickname = this.nickname();
    if (!nickname) return;
    const bots = {};
    for (const select of document.querySelectorAll("#create-seats .seat-kind")) {
      if (select.value) bots[select.dataset.seat] = select.value;
    }
    const poolLabel = document.getElementById("create-pool-label");
    const pool = poolLabel.hidden ? "" : document.getElementById("create-pool").value;
    const body = {
      nickname,
      name: document.getElementById("create-name").value.trim() || t("create.default_name", { name: nickname }).slice(0, 40),
      preset: this.form.preset,
      options: this.readOptions(),
      players: this.form.players,
      bots,
      public: document.getElementById("create-public").checked,
      clock_seconds: Number(document.getElementById("create-clock").value || 0),
      pool_chips: pool === "" ? null : Number(pool),
    };
    const buyIn = document.getElementById("create-buy-in-label");
    const chips = buyIn && !buyIn.hidden ? document.getElementById("create-buy-in").value : "";
    if (chips !== "" && Number(chips) > 0) body.buy_in = Number(chips);
    try {
      const answer = await api.create(body);
      saveSeat(answer.table_id, { seat: answer.seat, token: answer.token || null, invite: answer.invite || null, name: nickname });
      if (currentAccount()) refreshBalance();
      this.navigate(answer.table_id, answer.invite || null);
    } catch (error) {
      toast(errorText(error), "error");
    }
  }
}
