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
  const response = await fetch(catalogueUrl(lang));
  if (!response.ok) throw new Error(`catalogue ${lang}: HTTP ${response.status}`);
  return response.json();
}

/** Load a language (and English as a last resort for a missing key) and notify listeners. */
export async function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) lang = "en";
  if (Object.keys(fallback).length === 0) fallback = await fetchCatalogue("en");
  catalogue = lang === "en" ? fallback : await fetchCatalogue(lang);
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

/** The message `key` with {placeholders} filled from `params`. */
export function t(key, params = {}) {
  let text = catalogue[key];
  if (text === undefined) {
    text = fallback[key];
    if (text === undefined) {
      console.warn("missing message", key);
      return key;
    }
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole);
}

/** True when the catalogue has `key` (for optional labels such as unknown rule options). */
export function has(key) {
  return Object.prototype.hasOwnProperty.call(catalogue, key);
}

/** Translate the static markup: [data-i18n] text, [data-i18n-title] and [data-i18n-label]. */
export function translateStatic(root) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
  for (const node of root.querySelectorAll("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  }
}

/** Format chips or points as a localized integer. */
export function number(value) {
  return new Intl.NumberFormat(current).format(value);
}
