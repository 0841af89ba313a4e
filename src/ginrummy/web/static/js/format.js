// Shared formatting: rating categories, dates, ratings, rates, chip counts, table names and the
// prize pool rule in the page's language.
import { api, ApiError } from "./api.js";
import { has, language, number, t } from "./i18n.js";
import { prefs } from "./prefs.js";
import { el } from "./dom.js";

/** The rating categories (GET /api/leaderboard/{category}): one per preset, and the 3-4
 * player arena deals rated together. */
export const CATEGORIES = ["classic", "playok", "arena", "eaai", "arena-multi"];

export function categoryLabel(category) {
  if (category === "arena-multi") return t("category.arena_multi");
  return has(`preset.${category}`) ? presetLabel(category) : category;
}

/** A date and time in the page's language ("" for none). */
export function dateText(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return new Intl.DateTimeFormat(language(), { dateStyle: "medium", timeStyle: "short" }).format(date);
}

/** A rating rounded to a whole number. */
export function ratingText(value) {
  return value === null || value === undefined ? "–" : number(Math.round(value));
}

/** A rate (0..1) as a percentage. */
export function percentText(value) {
  if (value === null || value === undefined) return "–";
  return new Intl.NumberFormat(language(), { style: "percent", maximumFractionDigits: 1 }).format(value);
}

/** A decimal figure with at most two decimals. */
export function decimalText(value) {
  if (value === null || value === undefined) return "–";
  return new Intl.NumberFormat(language(), { maximumFractionDigits: 2 }).format(value);
}

/** A rating change, signed ("+12", "−8"). */
export function deltaText(before, after) {
  if (before === null || before === undefined || after === null || after === undefined) return "";
  const delta = Math.round(after) - Math.round(before);
  return delta > 0 ? `+${number(delta)}` : delta < 0 ? `−${number(-delta)}` : "±0";
}

/** The least share of the prize pool the winner takes, by payout rule (R6.4): `linear_cap`
 * shares at most a quarter of the pool among the others (scoring.split_pool). */
export const WINNER_MIN_SHARE = { linear_cap: 0.75 };

/** The prize pool rule of a single-hand table in words, its numbers from the table's rules:
 * the winner's least share (by its `payout`) and the `payout_threshold`. */
export function payoutRuleText(rules) {
  const threshold = rules.payout_threshold;
  const share = WINNER_MIN_SHARE[rules.payout] ?? WINNER_MIN_SHARE.linear_cap;
  return t("sheet.payout_rule", { count: threshold, threshold: number(threshold), share: percentText(share) });
}

/** A count of chips in words ("1 chip", "5 żetonów"), the plural form the language's. */
export function chipsText(chips) {
  return t("sheet.chips", { count: chips, chips: number(chips) });
}

/** Names that take the elided form of the default table name ("Table d'Anna"). */
const STARTS_WITH_VOWEL = /^[aeiouyàâäæéèêëîïôöœùûüÿ]/i;

/** A table's name in the viewer's language: its own name, or for a table created without one
 * (the server stores "") the catalogue's default after the player at the first seat ("Ann's
 * table", "Table d'Anna", "Stół gracza Ann", "Ann asztala"); the id while that seat is free. */
export function tableName(table) {
  if (table.name) return table.name;
  const host = (table.seats || []).find((seat) => seat.seat === 0)?.name;
  if (!host) return table.id;
  return t(STARTS_WITH_VOWEL.test(host) ? "create.default_name_vowel" : "create.default_name", { name: host });
}

/** A computer level's name in the page's language. */
export function botLabel(level) {
  return has(`bot.${level}`) ? t(`bot.${level}`) : level;
}

/** A guest's nickname: the one kept in this browser, else one made up ("Guest 4821") and
 * kept, so that one tap plays without a name typed first (issue 27, point 6). */
export function guestNickname() {
  if (prefs.nickname) return prefs.nickname;
  const made = t("lobby.guest_name", { number: 1000 + Math.floor(Math.random() * 9000) });
  prefs.nickname = made;
  return made;
}

/** Localized text of an API error, naming the field when there is one. */
export function errorText(error) {
  if (!(error instanceof ApiError)) return String(error);
  const code = has(`error.${error.code}`) ? t(`error.${error.code}`) : t("error.generic");
  const field = error.field ? optionLabel(error.field) + ": " : "";
  return `${code} (${field}${error.message})`;
}

/** The lengths the server allows (docs/accounts.md): the sign-up's check and its words. */
export const ACCOUNT_LIMITS = { name: { min: 3, max: 20 }, password: { min: 8, max: 128 } };

/** Localized text of an account error: the code's label in the page's language (never the
 * server's English words beside it: "Wrong user name or password" once), a refused field
 * named with its rule, and the wait a 429 asks for (Retry-After). */
export function accountErrorText(error) {
  if (!(error instanceof ApiError)) return String(error);
  const field = error.code === "bad_request" && error.field ? `account.bad_${error.field}` : null;
  const label = field && has(field) ? t(field, ACCOUNT_LIMITS[error.field])
    : has(`error.${error.code}`) ? t(`error.${error.code}`) : t("error.generic");
  const parts = [label];
  if (error.status === 429 && error.retryAfter) parts.push(t("account.wait", { seconds: error.retryAfter }));
  return parts.join(" ");
}

// ------------------------------------------------------------------ the rules' options, presets and dialog (formerly js/rules.js)
// The rules of a table in words: option names and values from the catalogue, in the order and
// with the applicability of the server's rule schema (GET /api/rules/schema, docs/protocol.md).
let schema = null;
let loading = null;

/** The rule options (`Ruleset.schema()`: name, type, range, formats, label...), in the create
 * form's order; fetched once, on first use. */
export function loadSchema() {
  if (!loading) {
    loading = api.rulesSchema()
      .then((data) => { schema = data.options; return schema; })
      .catch((error) => { loading = null; throw error; });
  }
  return loading;
}
loadSchema().catch(() => {}); // early, for the table page's rules list; the lobby reports errors

/** One option of the schema by name (undefined before it has loaded or for other fields). */
export function optionSchema(name) {
  return (schema || []).find((option) => option.name === name);
}

export function optionLabel(name) {
  const key = optionSchema(name)?.label || `option.${name}`;
  return has(key) ? t(key) : name;
}

/** Whether `option` means anything under `rules`: its formats, and any option it requires. */
export function optionApplies(option, rules) {
  return option.formats.includes(rules.format)
    && Object.entries(option.requires || {}).every(([name, value]) => rules[name] === value);
}

export function optionValue(name, value) {
  if (value === true) return t("common.on");
  if (value === false) return t("common.off");
  if (value === null || value === undefined) return "–";
  if (typeof value === "string") {
    const key = `value.${name}.${value}`;
    return has(key) ? t(key) : value;
  }
  return String(value);
}

export function presetLabel(name) {
  return has(`preset.${name}`) ? t(`preset.${name}`) : name;
}

/** The options of `rules` that apply to it, in the schema's order (all of them, in their own
 * order, if the schema could not be loaded); options the schema lacks come last. */
export function relevantOptions(rules) {
  const options = schema || [];
  const known = new Set(options.map((option) => option.name));
  return [...options.filter((option) => option.name in rules && optionApplies(option, rules))
    .map((option) => option.name), ...Object.keys(rules).filter((name) => !known.has(name))];
}

/** The rules a table will have before it exists: a preset's `base` (from /api/presets) with
 * the create form's `changes` (the options the player changed, and `players`), resolved as the
 * server resolves them. A hand size the preset leaves automatic follows the player count from
 * `handSizes` (/api/presets' `hand_sizes`: the server's numbers, none restated here); an option
 * that belongs to other formats has no value (a single hand has no target); a match given back
 * a target gets the schema's default. */
export function previewRules(base, changes, handSizes) {
  const rules = { ...base, ...changes };
  const usual = (players) => handSizes?.[String(players)];
  const automatic = changes.hand_size === undefined || changes.hand_size === null;
  if (automatic && usual(base.players) === base.hand_size && usual(rules.players) !== undefined) {
    rules.hand_size = usual(rules.players);
  }
  for (const option of schema || []) {
    if (!option.format_only) continue;
    if (!option.formats.includes(rules.format)) rules[option.name] = null;
    else if (rules[option.name] === null || rules[option.name] === undefined) rules[option.name] = option.default;
  }
  return rules;
}

/** One line: "Classic · match to 100 · knock ≤ 10". */
export function rulesSummary(preset, rules) {
  const parts = [presetLabel(preset)];
  parts.push(rules.format === "match"
    ? t("rules.summary_match", { target: rules.target })
    : t("rules.summary_single"));
  parts.push(t("rules.summary_cards", { count: rules.hand_size, cards: rules.hand_size }));
  // R5.4: the first upcard's value is the knock limit, the option's only if lower
  parts.push(t(rules.oklahoma_knock_limit ? "rules.summary_knock_oklahoma" : "rules.summary_knock",
    { limit: rules.knock_limit }));
  return parts.join(" · ");
}

/** A definition list of every relevant option. */
export function rulesList(rules) {
  return el("dl", { class: "rules-list" }, relevantOptions(rules).map((name) => [
    el("dt", {}, optionLabel(name)),
    el("dd", { dataset: { option: name } }, optionValue(name, rules[name])),
  ]));
}

/** The table's rules as a <dialog>, opened by the caller. */
export function rulesDialog(preset, rules, extra = []) {
  // the heading takes the focus when the dialog opens (autofocus), so it opens at its top;
  // the first focusable element, the Close button at its foot, would scroll it to the bottom
  const dialog = el("dialog", { class: "dialog rules-dialog", id: "rules-dialog" },
    el("h2", { tabindex: "-1", autofocus: true, id: "rules-dialog-title" }, t("rules.title", { preset: presetLabel(preset) })),
    el("p", {}, rulesSummary(preset, rules)),
    extra,
    rulesList(rules),
    el("form", { method: "dialog" }, el("button", {}, t("common.close"))));
  return dialog;
}
