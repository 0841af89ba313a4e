// Shared formatting: rating categories, dates, ratings, rates, chip counts, table names and the
// prize pool rule in the page's language.
import { ApiError } from "./api.js";
import { has, language, number, t } from "./i18n.js";
import { prefs } from "./prefs.js";
import { optionLabel, presetLabel } from "./rules.js";

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
