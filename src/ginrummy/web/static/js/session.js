// Who is logged in (GET /api/account/me) and their chip balance (GET /api/wallet), and the
// header's account area. The session itself is an HttpOnly cookie this code never reads.
import { api, ApiError } from "./api.js";
import { el, replaceChildren } from "./dom.js";
import { number, t } from "./i18n.js";
import { prefs } from "./prefs.js";

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
