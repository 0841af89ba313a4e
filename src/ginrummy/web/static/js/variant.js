// The variant always in view (issue 13.6 and 13.8): the hand's knock limit and Oklahoma's
// upcard and doubling, the prize pool and each seat's payout, the single-hand wording; resign
// and leave with a confirmation; the previous match's score sheet after a rematch. Everything
// comes from the server's `state` (the public part of the view, the table entry, `result`,
// `resigned` and `previous`); nothing secret is computed here.
import { cardText } from "./cards.js";
import { el } from "./dom.js";
import { chipsText } from "./format.js";
import { number, t } from "./i18n.js";
import { scoreSheet } from "./later.js"; // js/reveal.js's, once it has arrived (null before)

/** True when one hand settles the game (the single-hand format: arena, 3-4 players). */
export function singleHand(rules) {
  return Boolean(rules) && rules.format === "single_hand";
}

function rulesOf(page) {
  return (page.view && page.view.ruleset) || (page.table && page.table.rules) || null;
}

/** The end of the match in words: "The game is over" for a single hand, "The match is over"
 * otherwise; with who resigned, when somebody did. */
export function overText(state, names) {
  const rules = (state.view && state.view.ruleset) || (state.table && state.table.rules);
  const over = t(singleHand(rules) ? "variant.game_over" : "table.match_over");
  const resigned = state.resigned || [];
  if (!resigned.length) return over;
  return t("variant.resigned_over", { names: resigned.map((s) => names[s] || "").join(", "), over });
}

/** The prize pool split of R6.4 (scoring.split_pool) at a seat's penalty points: the share of
 * a seat that did not win (0 at or past the threshold). */
export function loserShare(pool, players, threshold, penalty) {
  if (penalty >= threshold) return 0;
  return Math.floor(pool * 25 * (threshold - penalty) / (100 * (players - 1) * threshold));
}

/** The pool and each seat's payout: as the result paid it once the hand is settled, else what
 * the payout rule gives any seat now (the winner's least share, the others' most). */
function poolItems(page, names) {
  const table = page.table;
  const rules = rulesOf(page);
  const pool = table && table.pool_chips;
  if (!pool || !singleHand(rules)) return [];
  const players = table.seats.length;
  const threshold = rules.payout_threshold;
  const result = page.state && page.state.result;
  const items = [el("span", { class: "variant-item variant-pool", id: "variant-pool", dataset: { pool: String(pool) } },
    t("variant.pool", { chips: chipsText(pool) }))];
  if (result && result.payouts) {
    items.push(el("span", { class: "variant-item variant-payouts", id: "variant-payouts" },
      result.payouts.map((chips, seat) => el("span", { class: "variant-payout", dataset: { seat: String(seat), chips: String(chips) } },
        t("variant.payout_seat", { name: names[seat] || "", chips: chipsText(chips) })))));
    return items;
  }
  const best = loserShare(pool, players, threshold, 0);
  const least = pool - best * (players - 1);
  items.push(el("span", { class: "variant-item variant-payouts", id: "variant-payouts", dataset: { winner: String(least), other: String(best) } },
    t("variant.payout_now", { winner: chipsText(least), other: chipsText(best), threshold: number(threshold) })));
  return items;
}

/** The hand's knock limit, and Oklahoma's upcard and doubling (R5.4, R6.5). */
function handItems(page) {
  const view = page.view;
  if (!view) return [];
  const rules = view.ruleset;
  const oklahoma = rules.oklahoma_knock_limit || rules.oklahoma_spades_double;
  const doubled = rules.oklahoma_spades_double && view.upcard && view.upcard.endsWith("s");
  return [
    oklahoma ? el("span", { class: "variant-item variant-upcard", id: "variant-upcard", dataset: { card: view.upcard } },
      t("variant.upcard", { card: cardText(view.upcard) })) : null,
    el("span", { class: "variant-item variant-knock", id: "variant-knock", dataset: { limit: String(view.knock_limit) } },
      view.knock_limit > 0 ? t("variant.knock_limit", { limit: number(view.knock_limit) }) : t("variant.gin_only")),
    doubled ? el("span", { class: "variant-item variant-doubled", id: "variant-doubled" }, t("variant.doubled")) : null,
  ];
}

/** The head's line of the variant: hand facts, pool and payouts, who resigned. */
export function variantBar(page) {
  const names = page.names();
  const resigned = (page.state && !page.state.result && page.state.resigned) || [];
  const items = [
    ...handItems(page),
    ...poolItems(page, names),
    resigned.length ? el("span", { class: "variant-item variant-resigned", id: "variant-resigned" },
      t("variant.resigned", { names: resigned.map((s) => names[s] || "").join(", ") })) : null,
  ].filter(Boolean);
  if (!items.length) return null;
  return el("p", { class: "variant-bar", id: "variant-bar" }, items);
}

// ------------------------------------------------------------------ resign and leave
function confirmDialog(id, title, text, confirmLabel, onConfirm) {
  document.getElementById(id)?.remove();
  const dialog = el("dialog", { class: "dialog confirm-dialog", id, "aria-labelledby": `${id}-title` },
    el("h2", { id: `${id}-title` }, title),
    el("p", {}, text),
    el("form", { method: "dialog", class: "actions" },
      el("button", { value: "cancel", id: `${id}-cancel` }, t("common.cancel")),
      el("button", { value: "confirm", class: "primary", id: `${id}-confirm` }, confirmLabel)));
  dialog.addEventListener("close", () => {
    const confirmed = dialog.returnValue === "confirm";
    dialog.remove();
    if (confirmed) onConfirm();
  });
  document.body.append(dialog);
  dialog.showModal();
  document.getElementById(`${id}-cancel`)?.focus();
  return dialog;
}

/** Resign: the consequence named for this table (two players: the opponent wins; more: the
 * computer plays the seat and it is placed last). */
export function askResign(page) {
  const table = page.table;
  const names = page.names();
  const players = table.seats.length;
  const rules = rulesOf(page);
  let text;
  if (players === 2) {
    const other = names[1 - page.seat] || "";
    text = t(singleHand(rules) ? "variant.resign_two_single" : "variant.resign_two", { name: other });
  } else {
    text = t("variant.resign_many");
  }
  return confirmDialog("resign-dialog", t("variant.resign_title"), text, t("variant.resign"),
    () => page.connection.send({ type: "resign" }));
}

/** Leave a running match: the computer plays the seat until its player comes back. */
export function askLeave(page) {
  return confirmDialog("leave-dialog", t("variant.leave_title"), t("variant.leave_text"), t("variant.leave"), () => {
    page.connection.send({ type: "leave" });
    page.navigate(null);
  });
}

/** The resign and leave buttons, for a seated player while the match runs. */
export function matchControls(page) {
  const state = page.state;
  const table = page.table;
  if (!state || !table || page.seat === null || !page.view || state.result || table.status !== "playing" || page.scripted) return null;
  if ((state.resigned || []).includes(page.seat)) return null;
  return el("div", { class: "actions match-controls", id: "match-controls" },
    el("button", { type: "button", id: "resign-button", onclick: () => askResign(page) }, t("variant.resign")),
    el("button", { type: "button", id: "leave-match", onclick: () => askLeave(page) }, t("variant.leave")));
}

// ------------------------------------------------------------------ the previous match
/** The finished match before the rematch, as a collapsible score sheet under the new one. */
export function previousSheet(state, names) {
  const previous = state && state.previous;
  if (!previous || !previous.result) return null;
  const sheet = scoreSheet({ sheet: previous.sheet, view: null, table: state.table, result: previous.result }, names);
  if (!sheet) return null;
  // the same builder as the current sheet: its ids made unique
  sheet.id = "previous-sheet";
  sheet.setAttribute("aria-labelledby", "previous-sheet-title");
  const title = sheet.querySelector("#sheet-title");
  if (title) {
    title.id = "previous-sheet-title";
    title.textContent = t("variant.previous_title");
  }
  const winner = sheet.querySelector("#match-winner");
  if (winner) winner.id = "previous-winner";
  const single = singleHand(state.table && state.table.rules);
  return el("details", { class: "previous-match", id: "previous-match" },
    el("summary", {}, t(single ? "variant.previous_game" : "variant.previous_match", { name: names[previous.result.winner] || "" })),
    (previous.resigned || []).length
      ? el("p", { class: "muted" }, t("variant.resigned", { names: previous.resigned.map((s) => names[s] || "").join(", ") })) : null,
    sheet);
}

/** The current match's score sheet; after a resignation its last line says who resigned
 * rather than a margin of points. */
export function currentSheet(state, names) {
  const sheet = scoreSheet(state, names);
  if (!sheet) return null;
  const resigned = state.resigned || [];
  const winner = sheet.querySelector("#match-winner");
  if (winner && state.result && resigned.length) {
    winner.textContent = t("variant.resign_winner", { name: names[state.result.winner] || "",
      names: resigned.map((s) => names[s] || "").join(", ") });
  }
  return sheet;
}
