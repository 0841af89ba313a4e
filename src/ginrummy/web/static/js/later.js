// The table's modules its first screen does not need (issue 27 point 11): the knock, gin and
// layoff sheets and the knocker's melds shown during the layoffs (arrange.js), the hand's
// reveal and the score sheet (reveal.js), the hand's and the match's banners (ending.js), and
// beside the game a guest's offer of an account (account.js) and a logged-in player's
// friends to invite (friendinvite.js).
// They are not imported by the table's modules, so index.html does not hint them and the
// first screen does not wait for them (server/http/preload.py follows static imports only);
// the table page asks for them all with import() as soon as its first state is drawn
// (`loadLater`), long before a hand can reach its knock or its end.
//
// The table imports their functions from here. Each one gives what the module's own gives
// once the module has arrived, and null before (nothing drawn in its place) while asking for
// it: a page opened at a step that needs one (a reload during the layoffs or at a hand's end)
// or a step reached before the download ended is drawn again when the module arrives.

const LOADERS = {
  arrange: () => import("./arrange.js"),
  reveal: () => import("./reveal.js"),
  ending: () => import("./ending.js"),
  account: () => import("./account.js"),
  friendinvite: () => import("./friendinvite.js"),
};

const loaded = new Map(); // name -> the module, once arrived
const loading = new Map(); // name -> its import() while under way
const missed = new Set(); // the modules a render went without
const parts = new Map(); // name -> the part beside the game to draw again when it arrives
let redraw = null;
let asked = false; // all asked for once (a failed one is asked for again on its next use)

function load(name) {
  if (!loaded.has(name) && !loading.has(name)) {
    loading.set(name, LOADERS[name]().then((mod) => {
      loaded.set(name, mod);
      loading.delete(name);
      if (missed.delete(name)) redraw?.();
      const part = parts.get(name);
      parts.delete(name);
      part?.();
    }, () => loading.delete(name))); // asked for again on its next use
  }
}

/** The module `name`, or null while it has not arrived (it is asked for, and the page drawn
 * again when it comes). */
function use(name) {
  const mod = loaded.get(name);
  if (mod) return mod;
  missed.add(name);
  load(name);
  return null;
}

/** Ask for every module of this file (the first call only); `onArrival` draws the page again
 * when a module that one of its renders went without arrives. */
export function loadLater(onArrival) {
  redraw = onArrival;
  if (asked) return;
  asked = true;
  for (const name of Object.keys(LOADERS)) load(name);
}

/** Whether a render went without a module that has not arrived yet: the step drawn is not
 * whole (a knock or layoff sheet, the reveal, a banner or the score sheet missing). */
export function laterMissing() {
  return missed.size > 0;
}

// js/arrange.js
export const knockPanel = (options) => use("arrange")?.knockPanel(options) ?? null;
export const layoffPanel = (options) => use("arrange")?.layoffPanel(options) ?? null;
export const knockerShows = (view) => use("arrange")?.knockerShows(view) ?? null;
// js/reveal.js
export const revealPanel = (view, names, footer) => use("reveal")?.revealPanel(view, names, footer) ?? null;
export const scoreSheet = (state, names) => use("reveal")?.scoreSheet(state, names) ?? null;
// js/ending.js
export const matchBanner = (result, rules, names, ratings) => use("ending")?.matchBanner(result, rules, names, ratings) ?? null;
// js/account.js and js/friendinvite.js: parts beside the game (js/seating.js's), a guest's
// offer of an account and a logged-in player's friends to invite. A render without one is
// still whole (one can play: data-await is not held at "wait"); only the part is drawn again
// when its module arrives (`again`), not the whole page.

/** The module `name` of a part beside the game, or null while it has not arrived (it is
 * asked for, and `again` called when it comes). */
function beside(name, again) {
  const mod = loaded.get(name);
  if (mod) return mod;
  parts.set(name, again);
  load(name);
  return null;
}

export const upgradeForm = (again, tableId, token, done) => beside("account", again)?.upgradeForm(tableId, token, done) ?? null;
export const newInviteBox = (again, page) => {
  const mod = beside("friendinvite", again);
  return mod ? new mod.InviteBox(page) : null;
};
