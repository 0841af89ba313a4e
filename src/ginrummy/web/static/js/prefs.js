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
  get sort() { return read("sort", "rank"); },
  set sort(value) { write("sort", value === "suit" ? "suit" : "rank"); },
  get nickname() { return read("nickname", ""); },
  set nickname(value) { write("nickname", value); },
};

/** The seat this browser holds at a table: {seat, token, invite} or null. */
export function seatFor(tableId) {
  return read(`seat.${tableId}`, null);
}

export function saveSeat(tableId, seat) {
  write(`seat.${tableId}`, seat);
}

export function forgetSeat(tableId) {
  write(`seat.${tableId}`, null);
}
