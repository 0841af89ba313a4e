// The lobby: open tables with their rules and seats, the create-table form, join and watch.
import { api } from "./api.js";
import { el, replaceChildren, toast } from "./dom.js";
import {
  botLabel, errorText, guestNickname, loadSchema, optionApplies, optionLabel, optionSchema, optionValue,
  payoutRuleText, presetLabel, previewRules, rulesDialog, rulesSummary, tableName,
} from "./format.js";
import { number, t } from "./i18n.js";
import { prefs, saveSeat, seatFor } from "./prefs.js";
import { currentAccount, refreshBalance, resumeGames, resumeList } from "./session.js";

const REFRESH_MS = 5000;

// botLabel, errorText and guestNickname live in format.js (the table page needs them without
// the lobby's module); exported here too for the modules that import them from the lobby
export { botLabel, errorText, guestNickname };

export class Lobby {
  constructor(root, navigate, go = null) {
    this.root = root;
    this.navigate = navigate;
    this.go = go; // to a path of the client (the tutorial)
    this.presets = null;
    this.bots = null;
    this.schema = null;
    this.tables = [];
    this.timer = null;
    this.form = null;
    this.dirty = new Set();
    this.fitted = new Set(); // options fitPlayers changed (not the player), given back at 2 players
    this.quick = null;
    this.seatChoices = {};
    this.resume = [];
  }

  async start() {
    this.renderFrame();
    resumeGames().then((found) => {
      this.resume = found;
      this.renderResume();
    });
    // the list of tables is asked for along with the rest, not one round trip after it
    const tables = api.tables();
    tables.catch(() => {}); // its failure is told by refresh(), not as an unhandled rejection
    try {
      [this.presets, this.bots, this.schema] = await Promise.all([api.presets(), api.bots(), loadSchema()]);
    } catch (error) {
      toast(errorText(error), "error");
      return;
    }
    if (this.stopped) return; // left meanwhile: no form drawn, no timer left running
    this.renderQuickPlay();
    this.renderForm();
    await this.refresh(tables);
    if (this.stopped) return;
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
  }

  stop() {
    this.stopped = true;
    clearInterval(this.timer);
  }

  rerender() {
    const kept = this.presets ? this.formValues() : null; // a new language keeps what was chosen
    this.renderFrame();
    if (this.presets) {
      this.renderQuickPlay();
      this.renderForm();
      this.restoreFormValues(kept);
    }
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
          value: guestNickname(), oninput: (e) => { prefs.nickname = e.target.value.trim(); },
        }));
    replaceChildren(this.root,
      el("section", { class: "lobby" },
        el("h1", {}, t("lobby.title")),
        who,
        this.tutorialOffer(),
        el("section", { class: "panel resume-games", id: "resume-games", hidden: true, "aria-labelledby": "resume-heading" },
          el("h2", { id: "resume-heading" }, t("resume.title")),
          el("div", { id: "resume-slot" })),
        el("section", { class: "panel quick-play", id: "quick-play", "aria-labelledby": "quick-heading" },
          el("h2", { id: "quick-heading" }, t("quick.title")),
          el("div", { id: "quick-play-slot" })),
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
    this.renderResume();
  }

  /** A first visit: the tutorial offered (js/tutorial.js), until it is taken or dismissed;
   * the header's tools and the help dialog lead to it again. */
  tutorialOffer() {
    if (prefs.tutorialOffered || !this.go) return null;
    const done = () => { prefs.tutorialOffered = true; };
    return el("section", { class: "panel tutorial-offer", id: "tutorial-offer", "aria-labelledby": "tutorial-offer-title" },
      el("h2", { id: "tutorial-offer-title" }, t("tutorial.offer_title")),
      el("p", {}, t("tutorial.offer_text")),
      el("div", { class: "actions" },
        el("button", { type: "button", class: "primary", id: "tutorial-offer-start", onclick: () => { done(); this.go("/tutorial"); } },
          t("tutorial.offer_start")),
        el("button", { type: "button", id: "tutorial-offer-dismiss", onclick: () => {
          done();
          document.getElementById("tutorial-offer")?.remove();
          document.getElementById("quick-submit")?.focus();
        } }, t("tutorial.offer_dismiss"))));
  }

  /** "Continue your game": every game in progress of this browser or account (js/session.js). */
  renderResume() {
    const section = document.getElementById("resume-games");
    const slot = document.getElementById("resume-slot");
    if (!section || !slot) return;
    const list = resumeList(this.resume);
    section.hidden = !list;
    replaceChildren(slot, list);
  }

  nickname() {
    const account = currentAccount();
    if (account) return account.name;
    const input = document.getElementById("nickname");
    const value = (input?.value || "").trim();
    if (value) {
      prefs.nickname = value;
      return value;
    }
    // a cleared field: a name is made up again (shown, still editable), never a refusal
    prefs.nickname = "";
    const made = guestNickname();
    if (input) input.value = made;
    return made;
  }

  /** Draw the list of tables anew from `answer` (a GET /api/tables under way; a new one by
   * default). */
  async refresh(answer = api.tables()) {
    let tables;
    try {
      tables = (await answer).tables || [];
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
      table.pool_chips ? el("span", {}, t("lobby.pool", { count: table.pool_chips, chips: number(table.pool_chips) })) : null,
      table.buy_in ? el("span", { class: "buy-in" }, t("lobby.buy_in", { count: table.buy_in, chips: number(table.buy_in) })) : null,
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
      el("h3", { class: "table-name", text: tableName(table) }),
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

  /** What the create form holds: the fields by id, the options changed by hand. */
  formValues() {
    const fields = {};
    for (const input of document.querySelectorAll("#create-form input, #create-form select")) {
      if (input.id) fields[input.id] = input.type === "checkbox" ? input.checked : input.value;
    }
    return fields;
  }

  restoreFormValues(fields) {
    for (const [id, value] of Object.entries(fields || {})) {
      const input = document.getElementById(id);
      if (!input || id === "create-preset" || id === "create-players") continue;
      if (input.type === "checkbox") input.checked = value;
      else input.value = value;
    }
    this.updatePreview();
  }

  // ------------------------------------------------------------------ play the computer
  /** "Play the computer": a level (the server's default first) and a preset, then one click
   * makes a 2-player table with the computer in seat 2 and opens it; the hand is dealt at once. */
  renderQuickPlay() {
    const slot = document.getElementById("quick-play-slot");
    if (!slot) return;
    const levels = this.bots.levels || [];
    const level = this.quick?.level || this.bots.default || levels[0];
    const presetNames = Object.keys(this.presets.presets);
    const preset = this.quick?.preset || this.presets.default || presetNames[0];
    this.quick = { level, preset };
    const summary = el("p", { class: "rules-summary", id: "quick-summary" },
      rulesSummary(preset, this.presets.presets[preset]));
    replaceChildren(slot, el("form", { id: "quick-form", class: "quick-form", onsubmit: (e) => { e.preventDefault(); this.playComputer(); } },
      el("label", {}, t("quick.level"), el("select", { id: "quick-level", onchange: (e) => { this.quick.level = e.target.value; } },
        levels.map((name) => el("option", { value: name, selected: name === level }, botLabel(name))))),
      el("label", {}, t("create.preset"), el("select", { id: "quick-preset", onchange: (e) => {
        this.quick.preset = e.target.value;
        summary.textContent = rulesSummary(this.quick.preset, this.presets.presets[this.quick.preset]);
      } }, presetNames.map((name) => el("option", { value: name, selected: name === preset }, presetLabel(name))))),
      el("button", { type: "submit", class: "primary", id: "quick-submit" }, t("quick.submit")),
      summary,
      el("p", { class: "muted" }, t("quick.help"))));
  }

  /** One click: a private 2-player table (nobody else can sit) with the computer in seat 2. */
  async playComputer() {
    const nickname = this.nickname();
    if (!nickname) return;
    const button = document.getElementById("quick-submit");
    if (button) button.disabled = true;
    try {
      const answer = await api.create({
        nickname,
        preset: this.quick.preset,
        options: {},
        players: 2,
        bots: { 1: this.quick.level },
        public: false,
        clock_seconds: 0,
        pool_chips: null,
      });
      saveSeat(answer.table_id, { seat: answer.seat, token: answer.token || null, invite: answer.invite || null, name: nickname });
      this.navigate(answer.table_id, answer.invite || null);
    } catch (error) {
      toast(errorText(error), "error");
      if (button) button.disabled = false;
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
      this.fitted.clear();
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
      this.updatePreview();
    } }, counts.map((n) => el("option", { value: n, selected: n === this.form.players }, String(n))));
    const optionFields = this.schema.filter((option) => option.name !== "players")
      .map((option) => this.optionField(option, rules[option.name]));
    const form = el("form", { id: "create-form", class: "create-form", onsubmit: (e) => { e.preventDefault(); this.create(); } },
      el("label", {}, t("create.name"), el("input", { id: "create-name", type: "text", maxlength: "40" })),
      el("label", {}, t("create.preset"), presetSelect),
      el("p", { class: "rules-summary", id: "create-summary", "aria-live": "polite" }, rulesSummary(preset, rules)),
      el("label", {}, t("create.players"), playersSelect),
      el("fieldset", { id: "create-seats" }),
      el("label", { class: "check" }, el("input", { id: "create-public", type: "checkbox", checked: true }), t("create.public")),
      el("label", {}, t("create.clock"), el("input", { id: "create-clock", type: "number", min: "0", max: "600", value: "0" })),
      el("label", { id: "create-pool-label" }, t("create.pool"), el("input", { id: "create-pool", type: "number", min: "0", value: "" })),
      el("label", { id: "create-buy-in-label" }, t("create.buy_in"), el("input", { id: "create-buy-in", type: "number", min: "0", value: "" }),
        el("span", { class: "muted" }, t("create.buy_in_help"))),
      el("p", { id: "create-pool-line", class: "pool-line" }),
      el("details", { class: "options" }, el("summary", {}, t("create.options")), el("div", { class: "option-grid" }, optionFields)),
      el("button", { type: "submit", class: "primary", id: "create-submit" }, t("create.submit")));
    replaceChildren(slot, form);
    // every number shown follows every choice: the summary, the options, the prize pool
    form.addEventListener("input", () => this.updatePreview());
    form.addEventListener("change", (e) => {
      if (e.target.id === "opt-format") this.restoreFormatOnly();
      this.updatePreview();
    });
    this.renderSeats();
    this.fitPlayers(); // a preset chosen after 3-4 players: its match becomes single hands
    this.updatePreview();
  }

  /** A format chosen by hand gives back the options only it has (a match its target), starting
   * from the schema's default, and sends them (the server needs a match's target). */
  restoreFormatOnly() {
    const format = document.getElementById("opt-format")?.value;
    for (const option of this.schema) {
      const input = document.getElementById(`opt-${option.name}`);
      if (!option.format_only || !input || !option.formats.includes(format) || input.value !== "") continue;
      input.disabled = false;
      input.value = String(option.default);
      this.dirty.add(option.name);
    }
  }

  /** The table's rules as the server will make them from the form's choices right now. */
  previewRules() {
    const base = this.presets.presets[this.form.preset];
    return previewRules(base, { ...this.readOptions(), players: this.form.players }, this.presets.hand_sizes);
  }

  /** Shows the chosen rules' numbers: the summary line (cards, knock limit, match target or
   * one hand), each option not changed by hand, and the prize pool's line. */
  updatePreview() {
    if (!this.form) return;
    const rules = this.previewRules();
    const summary = document.getElementById("create-summary");
    if (summary) summary.textContent = rulesSummary(this.form.preset, rules);
    for (const option of this.schema) {
      const input = document.getElementById(`opt-${option.name}`);
      if (!input) continue;
      const applies = optionApplies(option, rules);
      input.disabled = option.format_only && !applies;
      // an option that means nothing under the chosen rules (a single hand's payouts in a
      // match, the big-gin bonus while big gin is off) is not shown at all
      const label = input.closest("label");
      label?.classList.toggle("not-applying", !applies);
      if (label) label.hidden = !applies;
      // numbers only: a choice in a list is the player's or fitPlayers' (an input event of a
      // select comes before its change, which marks it)
      if (this.dirty.has(option.name) || option.type !== "int") continue;
      const value = rules[option.name];
      input.value = value === null || value === undefined ? "" : String(value);
    }
    this.showPool(rules);
  }

  /** The prize pool is a setting of the formats the `payout` option applies to (R6.4); its
   * line says what the pool holds and how it is split under the chosen threshold. */
  showPool(rules = this.previewRules()) {
    const pooled = optionSchema("payout").formats.includes(rules.format);
    const label = document.getElementById("create-pool-label");
    if (label) label.hidden = !pooled;
    // a buy-in is paid in chips from an account's wallet (arena tables)
    const buyIn = document.getElementById("create-buy-in-label");
    if (buyIn) buyIn.hidden = !pooled || !currentAccount();
    const line = document.getElementById("create-pool-line");
    if (!line) return;
    line.hidden = !pooled;
    if (!pooled) return;
    const each = buyIn && !buyIn.hidden ? Number(document.getElementById("create-buy-in").value || 0) : 0;
    // the server seats only accounts at a buy-in table, and its pool is the buy-ins: the form
    // offers neither a computer seat nor a fixed pool then, and says why
    const accountsOnly = each > 0;
    const poolInput = document.getElementById("create-pool");
    if (poolInput) poolInput.disabled = accountsOnly;
    if (accountsOnly !== Boolean(this.accountsOnly)) {
      this.accountsOnly = accountsOnly;
      this.renderSeats();
    }
    const fixed = accountsOnly ? 0 : Number(poolInput?.value || 0);
    if (each <= 0 && fixed <= 0) {
      replaceChildren(line, t("create.pool_none"));
      return;
    }
    const pool = each > 0
      ? t("create.pool_buy_in", { count: each * rules.players, chips: number(each * rules.players), buy_in: number(each), players: rules.players })
      : t("lobby.pool", { count: fixed, chips: number(fixed) });
    replaceChildren(line, pool, " ", payoutRuleText(rules));
  }

  /** A value some player counts may not choose (`value_players` in the schema: the match
   * format, the dealer-first offer...) gives way to the first one this count may choose. */
  fitPlayers() {
    const base = this.presets.presets[this.form.preset];
    for (const name of [...this.fitted]) { // back to the preset's own value where it may be again
      const option = optionSchema(name);
      const input = document.getElementById(`opt-${name}`);
      const counts = (option?.value_players || {})[base[name]];
      if (!input || (counts && !counts.includes(this.form.players))) continue; // still fitted
      input.value = base[name];
      this.dirty.delete(name);
      this.fitted.delete(name);
    }
    for (const option of this.schema) {
      const input = document.getElementById(`opt-${option.name}`);
      const only = option.value_players || {};
      if (!input || !(input.value in only) || only[input.value].includes(this.form.players)) continue;
      const allowed = option.values.filter((v) => !(v in only) || only[v].includes(this.form.players));
      if (allowed.length > 0) {
        input.value = allowed[0];
        this.dirty.add(option.name);
        this.fitted.add(option.name);
      }
    }
  }

  optionField(option, value) {
    const { name } = option;
    const id = `opt-${name}`;
    const mark = () => { this.dirty.add(name); this.fitted.delete(name); };
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
    const fallback = this.bots.default || levels[0] || "";
    this.seatChoices = this.seatChoices || {};
    const rows = [];
    // a buy-in table seats accounts only: its computer seats are not offered (the choices
    // come back when the buy-in is cleared)
    const accountsOnly = Boolean(this.accountsOnly);
    for (let seat = 1; seat < this.form.players; seat += 1) {
      const chosen = accountsOnly ? "" : this.seatChoices[seat] ?? fallback; // a newcomer never sits alone
      rows.push(el("label", {}, t("seat.label", { n: seat + 1 }),
        el("select", { class: "seat-kind", dataset: { seat }, onchange: (e) => { this.seatChoices[seat] = e.target.value; } },
          el("option", { value: "", selected: chosen === "" }, t("create.open_seat")),
          levels.map((level) => el("option", { value: level, selected: level === chosen, disabled: accountsOnly },
            t("seat.computer", { level: botLabel(level) }))))));
    }
    replaceChildren(fieldset, el("legend", {}, t("create.seats")),
      el("p", { class: "muted" }, t("create.seat_zero")),
      accountsOnly ? el("p", { class: "form-note", id: "create-seats-note", role: "note" }, t("create.buy_in_accounts_only")) : null,
      rows);
  }

  readOptions() {
    const options = {};
    const format = document.getElementById("opt-format")?.value;
    for (const name of this.dirty) {
      const option = optionSchema(name);
      const input = document.getElementById(`opt-${name}`);
      if (!option || !input) continue;
      if (option.format_only && !option.formats.includes(format)) continue; // a single hand's target
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
      if (select.value && !this.accountsOnly) bots[select.dataset.seat] = select.value;
    }
    const poolLabel = document.getElementById("create-pool-label");
    const poolInput = document.getElementById("create-pool");
    const pool = poolLabel.hidden || poolInput.disabled ? "" : poolInput.value;
    const body = {
      nickname,
      name: document.getElementById("create-name").value.trim() || null, // none: each viewer sees the default in his language
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
