// Preferences and seat tokens kept in localStorage.

const PREFIX = "ginrummy.";

function read(key, fallback) {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // storage full or disabled: preferences simply do not persist
  }
}

export const prefs = {
  get language() { return read("language", null); },
  set language(value) { write("language", value); },
  get fourColour() { return read("fourColour", false); },
  set fourColour(value) { write("fourColour", Boolean(value)); },
  get largeCards() { return read("largeCards", false); },
  set largeCards(value) { write("largeCards", Boolean(value)); },
  /** A discard waits a moment before it is sent, to be taken back (js/board.js): on unless
   * the header's setting turned it off. */
  get discardUndo() { return read("discardUndo", true); },
  set discardUndo(value) { write("discardUndo", Boolean(value)); },
  get sort() { return read("sort", "rank"); },
  set sort(value) { write("sort", value === "suit" ? "suit" : "rank"); },
  /** True after a log-in in this browser, until a log-out or an expired session: a guest's
   * pages then never ask GET /api/account/me (whose 401 a browser logs as an error). */
  get loggedIn() { return read("loggedIn", false); },
  set loggedIn(value) { write("loggedIn", value ? true : null); },
  /** Sounds (js/sound.js): on unless the top bar's switch turned them off. */
  get sound() { return read("sound", true); },
  set sound(value) { write("sound", Boolean(value)); },
  /** One-key shortcuts at the table (S, T, K, ...; js/shortcuts.js): on unless switched off. */
  get shortcuts() { return read("shortcuts", true); },
  set shortcuts(value) { write("shortcuts", Boolean(value)); },
  /** The lobby's tutorial offer (js/tutorial.js) was taken or dismissed: not offered again. */
  get tutorialOffered() { return read("tutorialOffered", false); },
  set tutorialOffered(value) { write("tutorialOffered", value ? true : null); },
  get nickname() { return read("nickname", ""); },
  set nickname(value) { write("nickname", value); },
};

/** The seat this browser holds at a table: {seat, token, invite} or null. */
export function seatFor(tableId) {
  return read(`seat.${tableId}`, null);
}

export function saveSeat(tableId, seat) {
  // when it was taken: "Continue your game" (js/session.js) asks about the latest seats first
  write(`seat.${tableId}`, seat && { ...seat, saved: seat.saved || Date.now() });
}

/** Every seat this browser holds, as [tableId, {seat, token, invite, name, saved}], the
 * latest taken first (a seat kept before `saved` existed comes last). */
export function savedSeats() {
  const found = [];
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(`${PREFIX}seat.`)) continue;
      const tableId = key.slice(PREFIX.length + "seat.".length);
      const seat = read(`seat.${tableId}`, null);
      if (tableId && seat && typeof seat === "object") found.push([tableId, seat]);
    }
  } catch {
    // storage disabled: no seat kept
  }
  return found.sort((a, b) => (b[1].saved || 0) - (a[1].saved || 0));
}

export function forgetSeat(tableId) {
  write(`seat.${tableId}`, null);
}

export const PROTOCOL = 2; // 2: a whole state after every change, the sender's with its "ack"
export const DELTA_PROTOCOL = 3; // 3: after the first state, deltas (the "ack" in the sender's)

/** The protocol a table's page asks for: 3 (deltas), unless localStorage's
 * "ginrummy.protocol" is "2" (whole states: the tests that rewrite the server's states say so). */
export function chosenProtocol() {
  try {
    return localStorage.getItem("ginrummy.protocol") === "2" ? PROTOCOL : DELTA_PROTOCOL;
  } catch {
    return DELTA_PROTOCOL;
  }
}

/** The hello of a table's WebSocket (docs/protocol.md, "WebSocket: play"), here because both
 * senders load this module: js/connection.js and the socket js/app.js opens as a table's page
 * starts. `seeds`: this client sends a client seed for each hand's deal (js/fair.js). */
export function tableHello(token, invite, since) {
  return { type: "hello", protocol: chosenProtocol(), token: token || null, invite: invite || null, since, seeds: true };
}
