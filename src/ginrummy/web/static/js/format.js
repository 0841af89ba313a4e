// Shared formatting of the players' pages: rating categories, dates, ratings, rates.
import { has, language, number, t } from "./i18n.js";
import { presetLabel } from "./rules.js";

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
