// Entry point: preferences, language, the header, and the pages by path: the lobby at "/", a
// table at "/?table=<id>", and the players' pages (/login, /signup, /account, /players/NAME,
// /leaderboard[/CATEGORY], /history[/NAME], /replay/ID, /wallet, /admin).
import { AccountPage } from "./account.js";
import { AdminPage } from "./admin.js";
import { el } from "./dom.js";
import { HistoryPage } from "./history.js";
import { LANGUAGES, LANGUAGE_NAMES, language, onLanguageChange, pickLanguage, setLanguage } from "./i18n.js";
import { LeaderboardPage } from "./leaderboard.js";
import { Lobby } from "./lobby.js";
import { prefs } from "./prefs.js";
import { ProfilePage } from "./profile.js";
import { ReplayPage } from "./replay.js";
import { refreshSession, renderAccountArea, setNavigator } from "./session.js";
import { TablePage } from "./table.js";
import { WalletPage } from "./wallet.js";

let page = null;

function applyDisplayPrefs() {
  document.body.classList.toggle("four-colour", Boolean(prefs.fourColour));
  document.body.classList.toggle("large-cards", Boolean(prefs.largeCards));
}

const decode = (part) => decodeURIComponent(part);

/** Path patterns and the page each one shows (`root`, the match, `go`). */
const PAGES = [
  [/^\/login\/?$/, (root) => new AccountPage(root, "login", go)],
  [/^\/signup\/?$/, (root) => new AccountPage(root, "signup", go)],
  [/^\/account\/?$/, (root) => new AccountPage(root, "account", go)],
  [/^\/players\/([^/]+)\/?$/, (root, m) => new ProfilePage(root, decode(m[1]), go)],
  [/^\/leaderboard(?:\/([^/]+))?\/?$/, (root, m) => new LeaderboardPage(root, m[1] ? decode(m[1]) : null, go)],
  [/^\/history(?:\/([^/]+))?\/?$/, (root, m) => new HistoryPage(root, m[1] ? decode(m[1]) : null, go)],
  [/^\/replay\/([^/]+)\/?$/, (root, m) => new ReplayPage(root, decode(m[1]), go)],
  [/^\/wallet\/?$/, (root) => new WalletPage(root, go)],
  [/^\/admin\/?$/, (root) => new AdminPage(root, go)],
];

function route() {
  if (page) page.stop();
  const root = document.getElementById("app");
  const path = location.pathname;
  let made = null;
  for (const [pattern, make] of PAGES) {
    const match = pattern.exec(path);
    if (match) {
      made = make(root, match);
      break;
    }
  }
  if (!made) {
    const params = new URLSearchParams(location.search);
    const tableId = params.get("table");
    made = tableId ? new TablePage(root, tableId, params.get("invite"), navigate) : new Lobby(root, navigate);
  }
  page = made;
  document.body.dataset.page = page.constructor.name;
  renderAccountArea();
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

/** Go to a path of the client ("/players/Ann", "/replay/12"...); `replace` keeps the
 * history entry (a redirect, such as after logging in). */
function go(path, replace = false) {
  if (replace) history.replaceState({}, "", path);
  else history.pushState({}, "", path);
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
  setNavigator(go);
  onLanguageChange(() => {
    document.getElementById("language-select").value = language();
    document.title = document.getElementById("brand").textContent;
    renderAccountArea();
    page?.rerender();
  });
  window.addEventListener("popstate", route);
  document.title = document.getElementById("brand").textContent;
  await refreshSession();
  route();
  document.body.dataset.ready = "true";
}

main();
