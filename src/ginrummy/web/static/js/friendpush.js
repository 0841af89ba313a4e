// The account's push socket (/ws/account, docs/friends.md) while logged in: friends' presence,
// changed friend lists, and invitations to a table, shown in the header (#invitations) with
// Accept and Decline; a tournament match ready for the player (docs/tournaments.md), shown
// there too with "Go to your table" on every page but that table's, until it is decided.
// Pages listen with onFriendsChange (the friends page, a table's invite box, a tournament).
import { api } from "./api.js";
import { el, replaceChildren, toast } from "./dom.js";
import { errorText } from "./format.js";
import { number, t } from "./i18n.js";
import { currentAccount, onSessionChange } from "./session.js";

let socket = null;
let socketAccount = null;
let retry = 0;
let retryTimer = null;
let go = (path) => { location.href = path; };
const invitations = new Map(); // id -> {id, from, table_id, invite}
const presence = new Map(); // friend id -> {status, table_id, playing, tournament}
const readyMatches = new Map(); // table id -> {tournament, name, round, table_id, opponents}
const listeners = new Set();

/** Call `listener(message)` on every push message (presence, friends...). */
export function onFriendsChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The last presence pushed for a friend id (null when none arrived yet). */
export function pushedPresence(id) {
  return presence.get(id) || null;
}

/** The ready matches to show: not the one whose table is on screen. */
function shownReady() {
  const here = new URLSearchParams(location.search).get("table");
  return [...readyMatches.values()].filter((m) => m.table_id !== here);
}

function goToTable(match) {
  readyMatches.delete(match.table_id);
  renderInvitations();
  go(`/?table=${encodeURIComponent(match.table_id)}`);
}

let rendered = null; // what #invitations shows now (the box and its signature)

function renderInvitations() {
  const box = document.getElementById("invitations");
  if (!box) return;
  const ready = shownReady();
  // drawn again only when what it shows changed: a presence push (every few seconds) must
  // not replace a button under a finger or the keyboard's focus
  const signature = JSON.stringify([ready, [...invitations.values()]]);
  if (rendered && rendered.box === box && rendered.signature === signature) return;
  rendered = { box, signature };
  box.hidden = invitations.size === 0 && ready.length === 0;
  replaceChildren(box,
    ready.map((match) => el("div", { class: "match-ready", dataset: { table: match.table_id, tournament: match.tournament } },
      el("span", {}, t("tournaments.match_ready", { name: match.name, round: number(match.round + 1) })),
      el("button", { type: "button", class: "small primary match-ready-go", onclick: () => goToTable(match) }, t("tournaments.go_to_table")),
      el("button", { type: "button", class: "small match-ready-close", "aria-label": t("tournaments.dismiss"),
        onclick: () => { readyMatches.delete(match.table_id); renderInvitations(); } }, "×"))),
    [...invitations.values()].map((inv) => el("div", { class: "invitation", dataset: { invitation: inv.id, from: inv.from } },
      el("span", {}, t("friends.invitation", { name: inv.from })),
      el("button", { type: "button", class: "small primary invitation-accept", onclick: () => answer(inv, "accept") }, t("friends.accept")),
      el("button", { type: "button", class: "small invitation-decline", onclick: () => answer(inv, "decline") }, t("friends.decline")))));
}

/** A tournament changed: drop its ready matches that are decided (read from its page's API). */
async function checkReady(tournamentId) {
  const mine = [...readyMatches.values()].filter((m) => m.tournament === tournamentId);
  if (!mine.length) return;
  try {
    const tour = await api.tournament(tournamentId);
    // decided: named with a status past play (a match just opened may not name its table yet)
    const ended = tour.status === "over" || tour.status === "cancelled";
    const decided = new Set();
    for (const round of tour.rounds || []) {
      for (const match of round.matches) {
        if (!["waiting", "playing", "present"].includes(match.status) && match.table_id) decided.add(match.table_id);
      }
    }
    for (const match of mine) if (ended || decided.has(match.table_id)) readyMatches.delete(match.table_id);
    renderInvitations();
  } catch (error) {
    console.warn("tournament", error);
  }
}

async function answer(invitation, choice) {
  invitations.delete(invitation.id);
  renderInvitations();
  try {
    const reply = await api.answerInvitation(invitation.id, choice);
    if (choice === "accept") {
      const params = new URLSearchParams({ table: reply.table_id });
      if (reply.invite) params.set("invite", reply.invite);
      go(`/?${params}`); // the table's page: its seat form
    }
  } catch (error) {
    toast(errorText(error), "error");
  }
}

function received(message) {
  if (message.type === "match_ready") readyMatches.set(message.table_id, message);
  else if (message.type === "tournament") checkReady(message.id);
  else if (message.type === "invitation") invitations.set(message.id, message);
  else if (message.type === "invitation_gone") invitations.delete(message.id);
  else if (message.type === "presence") presence.set(message.id, message);
  else if (message.type === "invitation_answer") {
    toast(t(message.answer === "accepted" ? "friends.invitation_accepted" : "friends.invitation_declined", { name: message.friend }));
  }
  renderInvitations();
  for (const listener of listeners) listener(message);
}

function connect() {
  const account = currentAccount();
  if (!account || typeof WebSocket !== "function") return;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const opened = new WebSocket(`${scheme}//${location.host}/ws/account`);
  socket = opened;
  socketAccount = account.id;
  opened.addEventListener("open", () => { retry = 0; });
  opened.addEventListener("message", (event) => {
    try {
      received(JSON.parse(event.data));
    } catch (error) {
      console.warn("push", error);
    }
  });
  opened.addEventListener("close", (event) => {
    if (socket !== opened) return;
    socket = null;
    if (event.code === 4403 || !currentAccount()) return; // logged out: no retry
    retry = Math.min(retry + 1, 6);
    retryTimer = setTimeout(connect, 500 * 2 ** retry);
  });
}

function disconnect() {
  clearTimeout(retryTimer);
  const old = socket;
  socket = null;
  socketAccount = null;
  invitations.clear();
  presence.clear();
  readyMatches.clear();
  renderInvitations();
  old?.close(1000, "logged out");
}

/** Follow the session: the socket is open while an account is logged in. */
export function startFriendPush(navigateTo) {
  go = navigateTo;
  const follow = (account) => {
    if (account && socketAccount === account.id) return;
    disconnect();
    if (account) connect();
  };
  onSessionChange(follow);
  follow(currentAccount());
}

/** Re-render the header's invitations and ready matches (the language or the page changed). */
export function renderFriendPush() {
  renderInvitations();
}
