// "Continue your game" (issue 27, point 1): the games in progress this browser or account holds
// a seat at, listed in the lobby, under *My matches* and as one link in the header, each one tap
// back to its table. The browser's seats are its seat tokens (js/prefs.js), the account's are
// every device's: one POST /api/seats/open asks for both. Only what the lobby shows of a table
// is used: its name, its status and who sits there.
import { api } from "./api.js";
import { el, replaceChildren } from "./dom.js";
import { tableName } from "./format.js";
import { has, t } from "./i18n.js";
import { savedSeats } from "./prefs.js";
import { currentAccount, link } from "./session.js";

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
