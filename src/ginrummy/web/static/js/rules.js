// The rules of a table in words: option names and values from the catalogue, in the order and
// with the applicability of the server's rule schema (GET /api/rules/schema, docs/protocol.md).
import { api } from "./api.js";
import { el } from "./dom.js";
import { has, t } from "./i18n.js";

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
