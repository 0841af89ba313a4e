// Who is logged in (GET /api/account/me) and their chip balance (GET /api/wallet), and the
// header's account area. The session itself is an HttpOnly cookie this code never reads.
import { api, ApiError } from "./api.js";
import { el, replaceChildren } from "./dom.js";
import { has, number, t } from "./i18n.js";
import { prefs, savedSeats } from "./prefs.js";
import { tableName } from "./format.js";

let account = null; // {id, name, role} or null
let balance = null; // chips, or null when unknown
const listeners = new Set();

/** The logged-in account ({id, name, role}) or null for a guest. */
export function currentAccount() {
  return account;
}

export function isAdmin() {
  return Boolean(account && account.role === "admin");
}

/** Call `listener(account)` whenever the account or the balance changes. */
export function onSessionChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function changed() {
  renderAccountArea();
  for (const listener of listeners) listener(account);
}

/** Ask the server who this browser is (only when it logged in here: a guest asks nothing);
 * a 401 means the session ended. */
export async function refreshSession() {
  if (!prefs.loggedIn) {
    account = null;
    balance = null;
    changed();
    return null;
  }
  try {
    const answer = await api.me();
    account = answer && answer.account ? answer.account : null;
    prefs.loggedIn = Boolean(account);
  } catch (error) {
    account = null;
    // 401: the session ended (expired, logged out elsewhere, banned); otherwise the server
    // could not be asked, and the next page load asks again
    if (error instanceof ApiError && error.status === 401) prefs.loggedIn = false;
    else console.warn("session", error.message);
  }
  balance = null;
  if (account) await refreshBalance(false);
  changed();
  return account;
}

/** Re-read the chip balance (after a top-up, a buy-in, a payout). */
export async function refreshBalance(notify = true) {
  if (!account) return null;
  try {
    balance = (await api.wallet()).balance;
  } catch {
    balance = null; // the wallet is not available: the header shows no balance
  }
  if (notify) changed();
  return balance;
}

/** A balance the page has just read (the wallet page): the header shows it too. */
export function setBalance(chips) {
  if (!account || chips === balance) return;
  balance = chips;
  changed();
}

/** The server answered a login, a sign-up or an upgrade with this account. */
export async function setAccount(next) {
  account = next || null;
  prefs.loggedIn = Boolean(account);
  balance = null;
  if (account) await refreshBalance(false);
  changed();
}

export async function logout() {
  try {
    await api.logout();
  } finally {
    account = null;
    balance = null;
    prefs.loggedIn = false;
    changed();
  }
}

let go = (path) => { location.href = path; };

/** Where header links navigate (the router's go, so pages change without reloading). */
export function setNavigator(navigateTo) {
  go = navigateTo;
}

/** An in-app link: a real href (open in a new tab works) that the router follows on click. */
export function link(path, text, props = {}) {
  return el("a", {
    href: path, ...props,
    onclick: (event) => {
      if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      go(path);
    },
  }, text);
}

/** The path of a player's profile. */
export function profilePath(name) {
  return `/players/${encodeURIComponent(name)}`;
}

/** The header: the player's name, balance, and links, or "Log in" / "Sign up" for a guest. */
export function renderAccountArea() {
  const area = document.getElementById("account-area");
  if (!area) return;
  const here = location.pathname + location.search;
  const back = here.startsWith("/login") || here.startsWith("/signup") ? "/" : here;
  const next = `?next=${encodeURIComponent(back)}`;
  const nav = [
    link("/leaderboard", t("nav.leaderboard"), { id: "nav-leaderboard", class: "nav-link" }),
    link("/tournaments", t("nav.tournaments"), { id: "nav-tournaments", class: "nav-link" }), // js/tournaments.js
    link("/tutorial", t("tutorial.link"), { id: "nav-tutorial", class: "nav-link" }), // js/tutorial.js
  ];
  if (!account) {
    replaceChildren(area, nav,
      link(`/login${next}`, t("account.login"), { id: "nav-login", class: "nav-link" }),
      link(`/signup${next}`, t("account.signup"), { id: "nav-signup", class: "nav-link" }));
    return;
  }
  replaceChildren(area, nav,
    link("/history", t("nav.history"), { id: "nav-history", class: "nav-link" }),
    link("/friends", t("nav.friends"), { id: "nav-friends", class: "nav-link" }), // js/friends.js
    account.role === "admin" ? link("/admin", t("nav.admin"), { id: "nav-admin", class: "nav-link" }) : null,
    link(profilePath(account.name), account.name, { id: "nav-me", class: "nav-link player-name" }),
    link("/wallet", balance === null ? t("nav.wallet") : t("nav.balance", { count: balance, chips: number(balance) }),
      { id: "nav-balance", class: "nav-link balance", dataset: { chips: balance === null ? "" : String(balance) } }),
    el("button", { type: "button", id: "logout-button", class: "small",
      onclick: async () => { await logout(); go("/"); } }, t("account.logout")));
}

// ------------------------------------------------------------------ "Continue your game" (formerly js/resume.js)
// "Continue your game" (issue 27, point 1): the games in progress this browser or account holds
// a seat at, listed in the lobby, under *My matches* and as one link in the header, each one tap
// back to its table. The browser's seats are its seat tokens (js/prefs.js), the account's are
// every device's: one POST /api/seats/open asks for both. Only what the lobby shows of a table
// is used: its name, its status and who sits there.
/** How many of this browser's latest seats are asked about (the server takes 20). */
const CHECKED = 20;

let games = [];
let pending = null;

function tablePath(tableId) {
  return `/?table=${encodeURIComponent(tableId)}`;
}

/** Every game in progress of this browser's latest seats and of the logged-in account
 * (POST /api/seats/open: a token proves its seat; one that holds nothing is left out). */
async function openGames() {
  const tokens = savedSeats()
    .filter(([tableId, seat]) => tableId.length <= 32 && typeof seat.token === "string" && seat.token.length <= 128)
    .slice(0, CHECKED)
    .map(([tableId, seat]) => ({ table_id: tableId, token: seat.token }));
  if (!tokens.length && !currentAccount()) return [];
  const answer = await api.openSeats(tokens);
  return (answer.seats || []).map((s) => ({ id: s.table_id, seat: s.seat, table: { ...s, id: s.table_id } }));
}

/** Ask again (each page shown does); the header's link follows. */
export function refreshResume() {
  pending = openGames().then((found) => {
    games = found;
    renderResumeLink();
    return found;
  }, () => games);
  return pending;
}

/** The games found by the latest refresh (waiting for it if it is under way). */
export function resumeGames() {
  return pending || refreshResume();
}

/** The table the page shows now, if any (its own game needs no link back). */
function shownTable() {
  return location.pathname === "/" ? new URLSearchParams(location.search).get("table") : null;
}

/** The header's "Continue your game": one tap to the latest game in progress but the one
 * shown; hidden when there is none. */
export function renderResumeLink() {
  const slot = document.getElementById("resume-nav");
  if (!slot) return;
  const here = shownTable();
  const game = games.find((g) => g.id !== here);
  if (!game) {
    replaceChildren(slot);
    slot.hidden = true;
    return;
  }
  slot.hidden = false;
  replaceChildren(slot, link(tablePath(game.id), t("resume.title"), {
    id: "nav-resume", class: "nav-link resume-link", dataset: { table: game.id },
    title: tableName(game.table),
  }));
}

function seatText(seat) {
  if (seat.kind === "bot") {
    const level = has(`bot.${seat.level}`) ? t(`bot.${seat.level}`) : seat.level || "";
    return t("seat.computer", { level });
  }
  return seat.kind === "empty" ? t("seat.open") : seat.name || t("seat.guest");
}

/** The list of games in progress, each with its table, the others at it, its status and
 * the button back to it; null when there is none. */
export function resumeList(found) {
  if (!found.length) return null;
  return el("ul", { class: "resume-list" }, found.map((game) => {
    const others = (game.table.seats || []).filter((s) => s.seat !== game.seat).map(seatText);
    const status = has(`status.${game.table.status}`) ? t(`status.${game.table.status}`) : "";
    return el("li", { class: "resume-entry", dataset: { table: game.id } },
      el("strong", { class: "table-name", text: tableName(game.table) }), " ",
      others.length ? el("span", { class: "resume-against" }, t("resume.against", { names: others.join(", ") })) : null,
      status ? el("span", { class: "badge" }, status) : null, " ",
      link(tablePath(game.id), t("resume.continue"), { class: "button-link primary continue-game", dataset: { table: game.id } }));
  }));
}
