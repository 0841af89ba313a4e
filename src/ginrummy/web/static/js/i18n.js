// Message catalogues: every visible string comes from /i18n/<lang>.json.

export const LANGUAGES = ["en", "fr", "pl", "hu"];
export const LANGUAGE_NAMES = { en: "English", fr: "Français", pl: "Polski", hu: "Magyar" };

let catalogue = {};
let fallback = {};
let current = "en";
const listeners = new Set();

/** The first supported language among the browser's preferred languages (else English). */
export function pickLanguage(preferred = navigator.languages || [navigator.language]) {
  for (const tag of preferred || []) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

/** The catalogue's URL beside this module's (so a versioned client, /v/<hash>/js/, loads the
 * same version's catalogues, cached for good; the plain /js/ loads /i18n/). */
export function catalogueUrl(lang) {
  return new URL(`../i18n/${lang}.json`, import.meta.url).pathname;
}

async function fetchCatalogue(lang) {
  // the server puts the English catalogue in the page for an English visitor (no request)
  const inline = document.getElementById(`catalogue-${lang}`);
  if (inline) return JSON.parse(inline.textContent);
  const response = await fetch(catalogueUrl(lang));
  if (!response.ok) throw new Error(`catalogue ${lang}: HTTP ${response.status}`);
  return response.json();
}

/** Load a language (and English as a last resort for a missing key) and notify listeners. */
export async function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) lang = "en";
  // both asked for at once, not one after the other (index.html preloads both on a first load)
  const wanted = lang === "en" ? null : fetchCatalogue(lang);
  wanted?.catch(() => {}); // told below, once awaited
  if (Object.keys(fallback).length === 0) fallback = await fetchCatalogue("en");
  catalogue = lang === "en" ? fallback : await wanted;
  current = lang;
  document.documentElement.lang = lang;
  translateStatic(document);
  for (const listener of listeners) listener(lang);
}

export function language() {
  return current;
}

export function onLanguageChange(listener) {
  listeners.add(listener);
}

// A plural message `key` is the group of keys `key.one`, `key.few`, `key.many`, `key.other`...:
// one per category Intl.PluralRules gives for the catalogue's language (en, hu: one, other;
// fr: one, many, other; pl: one, few, many, other), chosen by the `count` param. Every
// language has `one`, so a key such as clock.played.other alone is a plain message.
const pluralRules = new Map();

function pluralCategory(lang, count) {
  if (!pluralRules.has(lang)) pluralRules.set(lang, new Intl.PluralRules(lang));
  return pluralRules.get(lang).select(count);
}

/** The text of `key` in `source` (a catalogue in `lang`): a plain message, or the plural form
 * of a plural message for `params.count`; undefined when `source` has neither. */
function lookup(source, lang, key, params) {
  const plain = source[key];
  if (plain !== undefined) return plain;
  const other = source[`${key}.other`];
  if (other === undefined || source[`${key}.one`] === undefined) return undefined;
  const count = Number(params.count);
  if (params.count === undefined || params.count === null || Number.isNaN(count)) {
    console.warn("missing message count", key);
    return other;
  }
  return source[`${key}.${pluralCategory(lang, count)}`] ?? other;
}

/** The message `key` with {placeholders} filled from `params`; a plural message (keys
 * `key.one`, `key.other`...) takes the form of `params.count` in the current language. */
export function t(key, params = {}) {
  let text = lookup(catalogue, current, key, params);
  if (text === undefined) {
    text = lookup(fallback, "en", key, params);
    if (text === undefined) {
      console.warn("missing message", key);
      return key;
    }
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole);
}

/** True when the catalogue has `key`, a plain or a plural message (for optional labels such as
 * unknown rule options). */
export function has(key) {
  const own = (name) => Object.prototype.hasOwnProperty.call(catalogue, name);
  return own(key) || (own(`${key}.one`) && own(`${key}.other`));
}

/** Translate the static markup: [data-i18n] text, [data-i18n-title] and [data-i18n-label]. */
export function translateStatic(root) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
  for (const node of root.querySelectorAll("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  }
}

const numberFormats = new Map(); // language -> its Intl.NumberFormat (made once: costly)

/** Format chips or points as a localized integer. */
export function number(value) {
  if (!numberFormats.has(current)) numberFormats.set(current, new Intl.NumberFormat(current));
  return numberFormats.get(current).format(value);
}
