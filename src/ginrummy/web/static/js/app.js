// Entry point: preferences, language, and the two pages (lobby at "/", a table at "/?table=<id>").
import { el } from "./dom.js";
import { LANGUAGES, LANGUAGE_NAMES, language, onLanguageChange, pickLanguage, setLanguage } from "./i18n.js";
import { Lobby } from "./lobby.js";
import { prefs } from "./prefs.js";
import { TablePage } from "./table.js";

let page = null;

function applyDisplayPrefs() {
  document.body.classList.toggle("four-colour", Boolean(prefs.fourColour));
  document.body.classList.toggle("large-cards", Boolean(prefs.largeCards));
}

function route() {
  if (page) page.stop();
  const params = new URLSearchParams(location.search);
  const root = document.getElementById("app");
  const tableId = params.get("table");
  page = tableId ? new TablePage(root, tableId, params.get("invite"), navigate) : new Lobby(root, navigate);
  page.start();
}

/** Go to a table (or to the lobby with `tableId` null). */
function navigate(tableId, invite = null) {
  const params = new URLSearchParams();
  if (tableId) params.set("table", tableId);
  if (tableId && invite) params.set("invite", invite);
  const query = params.toString();
  history.pushState({}, "", query ? `/?${query}` : "/");
  route();
}

function setupTopbar() {
  const select = document.getElementById("language-select");
  for (const lang of LANGUAGES) select.append(el("option", { value: lang, lang }, LANGUAGE_NAMES[lang]));
  select.value = language();
  select.addEventListener("change", async () => {
    prefs.language = select.value;
    await setLanguage(select.value);
  });
  const four = document.getElementById("pref-four-colour");
  four.checked = Boolean(prefs.fourColour);
  four.addEventListener("change", () => { prefs.fourColour = four.checked; applyDisplayPrefs(); });
  const large = document.getElementById("pref-large-cards");
  large.checked = Boolean(prefs.largeCards);
  large.addEventListener("change", () => { prefs.largeCards = large.checked; applyDisplayPrefs(); });
  document.getElementById("help-button").addEventListener("click", () => document.getElementById("help-dialog").showModal());
  document.getElementById("brand").addEventListener("click", (event) => { event.preventDefault(); navigate(null); });
}

async function main() {
  applyDisplayPrefs();
  await setLanguage(prefs.language || pickLanguage());
  setupTopbar();
  onLanguageChange(() => {
    document.getElementById("language-select").value = language();
    document.title = document.getElementById("brand").textContent;
    page?.rerender();
  });
  window.addEventListener("popstate", route);
  document.title = document.getElementById("brand").textContent;
  route();
  document.body.dataset.ready = "true";
}

main();
