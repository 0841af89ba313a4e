// The rules of a table in words: option names and values from the catalogue.
import { el } from "./dom.js";
import { has, t } from "./i18n.js";

/** RULES.md R7 order; options the server adds later are listed after these. */
export const OPTION_ORDER = [
  "players", "hand_size", "format", "target", "upcard_offer", "stock_end", "max_reshuffles",
  "knock_limit", "gin_bonus", "undercut_bonus", "undercut_ties", "layoff_chain",
  "oklahoma_spades_double", "oklahoma_knock_limit", "big_gin", "big_gin_bonus", "next_dealer",
  "game_bonus", "line_bonus", "shutout_bonus", "knocker_undercut_penalty", "payout",
  "payout_threshold", "no_rediscard_of_taken_card", "discard_history_visible",
];

/** Options that mean nothing for a format (hidden from the panel). */
const MATCH_ONLY = new Set(["target", "next_dealer", "game_bonus", "line_bonus", "shutout_bonus"]);
const SINGLE_ONLY = new Set(["knocker_undercut_penalty", "payout", "payout_threshold"]);

export function optionLabel(name) {
  return has(`option.${name}`) ? t(`option.${name}`) : name;
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

/** The options of `rules` that apply to its format, in R7 order. */
export function relevantOptions(rules) {
  const names = [...OPTION_ORDER.filter((n) => n in rules),
    ...Object.keys(rules).filter((n) => !OPTION_ORDER.includes(n))];
  return names.filter((n) => rules.format === "match" ? !SINGLE_ONLY.has(n) : !MATCH_ONLY.has(n))
    .filter((n) => !(n === "max_reshuffles" && rules.stock_end !== "reshuffle"))
    .filter((n) => !(n === "big_gin_bonus" && !rules.big_gin));
}

/** One line: "Classic · match to 100 · knock ≤ 10". */
export function rulesSummary(preset, rules) {
  const parts = [presetLabel(preset)];
  parts.push(rules.format === "match"
    ? t("rules.summary_match", { target: rules.target })
    : t("rules.summary_single"));
  parts.push(t("rules.summary_cards", { cards: rules.hand_size }));
  parts.push(t("rules.summary_knock", { limit: rules.knock_limit }));
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
  const dialog = el("dialog", { class: "dialog rules-dialog", id: "rules-dialog" },
    el("h2", {}, t("rules.title", { preset: presetLabel(preset) })),
    el("p", {}, rulesSummary(preset, rules)),
    extra,
    rulesList(rules),
    el("form", { method: "dialog" }, el("button", {}, t("common.close"))));
  return dialog;
}
