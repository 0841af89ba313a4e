// Entry point: preferences, language, the header, and the pages by path: the lobby at "/", a
// table at "/?table=<id>", and the players' pages (/login, /signup, /account, /players/NAME,
// /leaderboard[/CATEGORY], /history[/NAME], /replay/ID, /wallet, /admin, /fair, /tutorial,
// /friends, /tournaments[/ID]); while logged in, the account's push socket (js/friendpush.js:
// invitations).
// Each page's module, the lobby's too, is loaded with import() the first time its path is
// entered (issue 13: the lobby's first load does not download the table; issue 27 point 11:
// nor a table's the lobby); index.html hints the page's modules (server/http/preload.py), so
// they arrive with this one, not after it. The specifiers stay relative, so a module loaded
// from /v/<version>/js/app.js comes from the same version, cached immutable like this file.
import { el, replaceChildren, toast } from "./dom.js";
import { LANGUAGES, LANGUAGE_NAMES, language, onLanguageChange, pickLanguage, setLanguage, t } from "./i18n.js";
import { prefs, seatFor, tableHello } from "./prefs.js";
import { currentAccount, onSessionChange, refreshResume, refreshSession, renderAccountArea, renderResumeLink, setNavigator } from "./session.js";
// the top bar's sound and shortcut switches are wired when these load (every page has them)
import "./shortcuts.js";
import "./sound.js";

let page = null;
let friendPush = null; // js/friendpush.js, once an account has been logged in

/** The account's push socket (js/friendpush.js) follows the session; its module is loaded
 * once an account is logged in, so a guest's first screen goes without it (issue 27 point
 * 11). */
function startFriendPush() {
  let loading = null;
  const follow = (account) => {
    if (!account || loading) return;
    loading = import("./friendpush.js").then((mod) => {
      friendPush = mod;
      mod.startFriendPush(go); // it follows the session itself from now on
    }, () => { loading = null; }); // asked for again at the next log-in
  };
  onSessionChange(follow);
  follow(currentAccount());
}

/** The header's invitations and ready matches again (nothing to draw before a log-in). */
function renderFriendPush() {
  friendPush?.renderFriendPush();
}

function applyDisplayPrefs() {
  document.body.classList.toggle("four-colour", Boolean(prefs.fourColour));
  document.body.classList.toggle("large-cards", Boolean(prefs.largeCards));
}

const decode = (part) => decodeURIComponent(part);

/** The modules of the pages, by name, each loaded once on first use. */
const MODULES = {
  account: () => import("./account.js"),
  admin: () => import("./admin.js"),
  history: () => import("./history.js"),
  lobby: () => import("./lobby.js"),
  leaderboard: () => import("./leaderboard.js"),
  profile: () => import("./profile.js"),
  replay: () => import("./replay.js"),
  table: () => import("./table.js"),
  wallet: () => import("./wallet.js"),
  fair: () => import("./fairpage.js"),
  friends: () => import("./friends.js"),
  tutorial: () => import("./tutorial.js"),
  tournaments: () => import("./tournaments.js"),
};

/** Path patterns, the module each one needs, and the page it shows (`module`, `root`, the match). */
const PAGES = [
  [/^\/login\/?$/, "account", (mod, root) => new mod.AccountPage(root, "login", go)],
  [/^\/signup\/?$/, "account", (mod, root) => new mod.AccountPage(root, "signup", go)],
  [/^\/account\/?$/, "account", (mod, root) => new mod.AccountPage(root, "account", go)],
  [/^\/players\/([^/]+)\/?$/, "profile", (mod, root, m) => new mod.ProfilePage(root, decode(m[1]), go)],
  [/^\/leaderboard(?:\/([^/]+))?\/?$/, "leaderboard",
    (mod, root, m) => new mod.LeaderboardPage(root, m[1] ? decode(m[1]) : null, go)],
  [/^\/history(?:\/([^/]+))?\/?$/, "history",
    (mod, root, m) => new mod.HistoryPage(root, m[1] ? decode(m[1]) : null, go)],
  [/^\/replay\/([^/]+)\/?$/, "replay", (mod, root, m) => new mod.ReplayPage(root, decode(m[1]), go)],
  [/^\/wallet\/?$/, "wallet", (mod, root) => new mod.WalletPage(root, go)],
  [/^\/admin\/?$/, "admin", (mod, root) => new mod.AdminPage(root, go)],
  [/^\/fair\/?$/, "fair", (mod, root) => new mod.FairPage(root, go)],
  [/^\/tutorial\/?$/, "tutorial", (mod, root) => new mod.TutorialPage(root, go)],
  [/^\/friends\/?$/, "friends", (mod, root) => new mod.FriendsPage(root, go)],
  [/^\/tournaments\/?$/, "tournaments", (mod, root) => new mod.TournamentsPage(root, go)],
  [/^\/tournaments\/([^/]+)\/?$/, "tournaments", (mod, root, m) => new mod.TournamentPage(root, decode(m[1]), go)],
];

/** The page of the current location: the name of the module it needs and how to make it from
 * that module. */
function pageFor(path, search) {
  for (const [pattern, name, make] of PAGES) {
    const match = pattern.exec(path);
    if (match) return { name, make: (mod, root) => make(mod, root, match) };
  }
  const params = new URLSearchParams(search);
  const tableId = params.get("table");
  if (tableId) {
    const invite = params.get("invite");
    return { name: "table", make: (mod, root) => new mod.TablePage(root, tableId, invite, navigate) };
  }
  return { name: "lobby", make: (mod, root) => new mod.Lobby(root, navigate, go) };
}

const loaded = new Map();

/** The module `name`, imported once (a failed import is tried again next time). */
function loadModule(name) {
  if (!loaded.has(name)) {
    loaded.set(name, MODULES[name]().catch((error) => {
      loaded.delete(name);
      throw error;
    }));
  }
  return loaded.get(name);
}

let routing = 0;

/** Show the page of the current location, loading its module first if it is not loaded yet;
 * when the location changes again meanwhile, only the latest page is shown. */
async function route() {
  const ticket = ++routing;
  if (page) page.stop();
  page = null;
  const root = document.getElementById("app");
  const { name, make } = pageFor(location.pathname, location.search);
  let mod = null;
  if (!loaded.has(name)) replaceChildren(root, el("p", { class: "loading" }, t("common.loading")));
  try {
    mod = await loadModule(name);
  } catch (error) {
    if (ticket !== routing) return;
    console.error(error);
    dropEarlySocket();
    replaceChildren(root);
    toast(t("error.network"), "error");
    return;
  }
  if (ticket !== routing) return;
  // Each page draws into a host of its own: once the location changes, the old host is
  // detached, so an answer that reaches a page already left draws out of sight.
  const host = el("div", { class: "page-host" });
  replaceChildren(root, host);
  refreshResume(); // "Continue your game": the header's link, the lobby's and history's lists
  page = make(mod, host);
  document.body.dataset.page = page.constructor.pageName || page.constructor.name; // the tutorial is a table page
  renderAccountArea();
  renderFriendPush(); // a ready match's notice is not shown at its own table
  page.start();
  dropEarlySocket(); // not taken by the page started (js/connection.js takes it at once)
}

/** A table's page opens the table's WebSocket at once, before its modules have arrived, and
 * says its hello as soon as it is open (the one js/connection.js would say: the seat's token
 * stored in this browser, the invite of the address or of the seat). The connection takes it
 * (`globalThis.ginrummyEarlySocket`) instead of opening its own, with what it received
 * meanwhile, so on a slow link the handshake, the hello and the first state overlap the
 * modules' download (issue 27 point 11). */
function openEarlySocket() {
  const params = new URLSearchParams(location.search);
  const tableId = params.get("table");
  if (!tableId || typeof WebSocket !== "function") return;
  const stored = seatFor(tableId);
  const token = (stored && stored.token) || null;
  const invite = params.get("invite") || (stored && stored.invite) || null;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  try {
    const socket = new WebSocket(`${scheme}//${location.host}/ws/tables/${encodeURIComponent(tableId)}`);
    const received = []; // {data, at}: the messages before the connection takes the socket
    const hold = (event) => received.push({ data: event.data, at: performance.now() });
    socket.addEventListener("open", () => socket.send(JSON.stringify(tableHello(token, invite, null))));
    socket.addEventListener("message", hold);
    const take = () => {
      socket.removeEventListener("message", hold);
      return { socket, received };
    };
    globalThis.ginrummyEarlySocket = { tableId, token, invite, socket, take };
  } catch {
    // the connection opens its own
  }
}

function dropEarlySocket() {
  const early = globalThis.ginrummyEarlySocket;
  globalThis.ginrummyEarlySocket = null;
  early?.socket.close(1000, "unused");
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
  // on a phone at a table the account links and settings fold into this menu (css/app.css)
  const menu = document.getElementById("menu-button");
  menu.addEventListener("click", () => {
    const open = menu.getAttribute("aria-expanded") !== "true";
    menu.setAttribute("aria-expanded", String(open));
    document.querySelector(".topbar").classList.toggle("menu-open", open);
  });
  const undo = document.getElementById("pref-discard-undo");
  undo.checked = Boolean(prefs.discardUndo);
  undo.addEventListener("change", () => { prefs.discardUndo = undo.checked; });
  // the tutorial (js/tutorial.js): from the help dialog (and the header's links, js/session.js)
  document.getElementById("help-tutorial").addEventListener("click", (event) => {
    event.preventDefault();
    document.getElementById("help-dialog").close();
    go("/tutorial");
  });
  document.getElementById("help-button").addEventListener("click", () => document.getElementById("help-dialog").showModal());
  document.getElementById("brand").addEventListener("click", (event) => { event.preventDefault(); navigate(null); });
  // the skip link: past the header's tools to the page itself (the URL's hash left alone, as
  // the pages are routed by path and query)
  document.getElementById("skip-link").addEventListener("click", (event) => {
    event.preventDefault();
    document.getElementById("app").focus();
  });
}

async function main() {
  openEarlySocket();
  applyDisplayPrefs();
  await setLanguage(prefs.language || pickLanguage());
  setupTopbar();
  setNavigator(go);
  onLanguageChange(() => {
    document.getElementById("language-select").value = language();
    document.title = document.getElementById("brand").textContent;
    renderAccountArea();
    renderResumeLink();
    renderFriendPush();
    page?.rerender();
  });
  window.addEventListener("popstate", route);
  document.title = document.getElementById("brand").textContent;
  await refreshSession();
  startFriendPush();
  await route();
  document.body.dataset.ready = "true";
}

main();
