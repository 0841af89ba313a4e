// The end-of-hand reveal (every hand, melds, layoffs, deadwood, the points and why) and the
// score sheet (hands, line / game / shutout bonuses; penalties and payouts for single hands).
import { numberedKnockerMelds } from "./arrange.js";
import { cardElement, cardRow } from "./cards.js";
import { el } from "./dom.js";
import { handBanner } from "./ending.js";
import { chipsText, payoutRuleText } from "./format.js";
import { number, t } from "./i18n.js";

/** Why the hand scored what it did, one line per reason, from the result and the rules. */
export function explain(result, rules, names) {
  const lines = [];
  const name = (seat) => names[seat];
  const dw = result.deadwood;
  const k = result.knocker;
  if (result.outcome === "void") return [t("result.void")];
  const winner = result.winner;
  if (rules.format === "match") {
    const others = dw.filter((_, s) => s !== k);
    const defender = others.length ? Math.min(...others) : 0;
    if (result.outcome === "gin" || result.outcome === "big_gin") {
      const bonus = result.outcome === "big_gin" ? rules.big_gin_bonus : rules.gin_bonus;
      lines.push(t(result.outcome === "big_gin" ? "result.big_gin_line" : "result.gin_line",
        { name: name(k), deadwood: defender, bonus }));
    } else if (result.outcome === "knock") {
      if (dw[k] === defender) lines.push(t("result.tie_line", { name: name(k) }));
      else lines.push(t("result.knock_line", { name: name(k), defender, knocker: dw[k] }));
    } else if (result.outcome === "undercut") {
      lines.push(t("result.undercut_line", { name: name(winner), knocker: dw[k], defender, bonus: rules.undercut_bonus }));
    }
  } else {
    if (result.outcome === "gin" || result.outcome === "big_gin") {
      const bonus = result.outcome === "big_gin" ? rules.big_gin_bonus : rules.gin_bonus;
      lines.push(t("result.single_gin_line", { name: name(k), count: bonus, bonus }));
    } else if (result.outcome === "undercut") {
      lines.push(t("result.single_undercut_line", { name: name(winner), knocker: name(k), count: rules.knocker_undercut_penalty, penalty: rules.knocker_undercut_penalty }));
    } else {
      lines.push(t("result.single_knock_line", { name: name(winner) }));
    }
  }
  if (result.multiplier > 1) lines.push(t("result.oklahoma_line", { factor: result.multiplier }));
  return lines;
}

export function outcomeLabel(outcome) {
  return t(`outcome.${outcome}`);
}

/** Every seat's cards after the hand: melds, layoffs, deadwood. */
export function revealPanel(view, names, footer = null) {
  const result = view.result;
  const knock = view.knock;
  const seats = result && result.outcome === "void" ? [] : view.seats; // a void hand shows no hand (R4.8)
  const rows = seats.map((seat) => {
    const s = seat.seat;
    let melds = [];
    let unmatched = seat.cards || [];
    let layoffs = [];
    if (knock && s === knock.knocker) {
      melds = knock.melds;
      unmatched = knock.unmatched || [];
    } else {
      const defence = (view.defences || []).find((d) => d.seat === s);
      if (defence) {
        melds = defence.melds;
        layoffs = defence.layoffs;
        unmatched = defence.unmatched || [];
      }
    }
    const role = knock && s === knock.knocker ? (knock.gin ? t("reveal.gin") : t("reveal.knocker")) : null;
    return el("div", { class: "reveal-seat", dataset: { seat: s } },
      el("h4", {}, el("span", { class: "player-name", text: names[s] }), role ? ` (${role})` : ""),
      el("div", { class: "reveal-cards" },
        knock && s === knock.knocker ? numberedKnockerMelds(view)
          : melds.map((m) => el("span", { class: "meld-group" }, m.map((c) => cardElement(c, { class: "mini" })))),
        layoffs.length ? el("span", { class: "layoff-group" }, el("span", { class: "group-label" }, t("reveal.laid_off")),
          layoffs.map(([c, i]) => el("span", { class: "layoff-item" }, cardElement(c, { class: "mini" }), t("arrange.onto_meld", { n: i + 1 })))) : null,
        unmatched.length ? el("span", { class: "deadwood-group" }, el("span", { class: "group-label" }, t("hand.deadwood_cards")),
          unmatched.map((c) => cardElement(c, { class: "mini" }))) : null),
      result ? el("p", {}, t("reveal.deadwood", { points: result.deadwood[s] }),
        result.penalties ? [" · ", t("reveal.penalty", { count: result.penalties[s], points: result.penalties[s] })]
          : [" · ", t("reveal.points", { count: result.points[s], points: result.points[s] })]) : null);
  });
  return el("section", { class: "panel reveal", id: "reveal", "aria-labelledby": "reveal-title" },
    el("h3", { id: "reveal-title" }, t("reveal.title", { n: view.hand_number })),
    result ? handBanner(result, view.ruleset, names) : null,
    result ? el("p", { class: "outcome" }, outcomeLabel(result.outcome),
      result.winner !== null && result.winner !== undefined ? [" · ", t("reveal.winner", { name: names[result.winner] })] : "") : null,
    result ? el("ul", { class: "explain" }, explain(result, view.ruleset, names).map((line) => el("li", {}, line))) : null,
    knock && knock.discard ? el("p", { class: "end-discard", id: "end-discard" }, t(knock.gin ? "reveal.gin_discard" : "reveal.knock_discard"), " ",
      cardElement(knock.discard, { class: "mini" })) : null,
    rows,
    footer);
}

/** The score sheet of the match so far (and its end bonuses, or the single hand's payouts). */
export function scoreSheet(state, names) {
  const sheet = state.sheet || [];
  const rules = state.view ? state.view.ruleset : state.table.rules;
  const players = names.length;
  // seats are columns, every one of them always shown; the first column (each hand's number and
  // outcome, then the totals' names) is the row headers, kept in view when the sheet scrolls
  const head = el("tr", {}, el("th", { scope: "col", class: "sheet-corner" }, t("sheet.hand")),
    names.map((n, s) => el("th", { scope: "col", class: "player-name", dataset: { seat: s }, text: n })));
  const body = [];
  const running = new Array(players).fill(0);
  for (const line of sheet) {
    const r = line.result;
    const cells = [];
    for (let s = 0; s < players; s += 1) {
      const value = r.penalties ? r.penalties[s] : r.points[s];
      running[s] += r.penalties ? 0 : r.points[s];
      cells.push(el("td", { class: r.winner === s ? "won" : "" }, String(value)));
    }
    body.push(el("tr", {}, el("th", { scope: "row", class: "hand-cell" },
      el("span", { class: "hand-number" }, String(line.hand)), " ", el("span", { class: "hand-outcome" }, outcomeLabel(r.outcome))),
    cells));
  }
  const foot = [];
  const scores = state.view && state.view.scores;
  if (rules.format === "match") {
    foot.push(el("tr", { class: "subtotal" }, el("th", { scope: "row" }, t("sheet.points")),
      (scores || running).map((v) => el("td", {}, String(v)))));
  }
  const result = state.result;
  if (result) {
    if (rules.format === "match") {
      for (const bonus of ["line", "game", "shutout"]) {
        if (!result.bonuses.some((b) => b[bonus])) continue;
        foot.push(el("tr", { class: `bonus-${bonus}` }, el("th", { scope: "row" }, t(`sheet.bonus_${bonus}`)),
          result.bonuses.map((b) => el("td", {}, String(b[bonus] || 0)))));
      }
      foot.push(el("tr", { class: "total" }, el("th", { scope: "row" }, t("sheet.total")),
        result.totals.map((v) => el("td", {}, String(v)))));
    } else {
      if (result.penalties) {
        foot.push(el("tr", { class: "penalties" }, el("th", { scope: "row" }, t("sheet.penalties")),
          result.penalties.map((v) => el("td", {}, String(v)))));
      }
      if (result.payouts) {
        foot.push(el("tr", { class: "payouts" }, el("th", { scope: "row" }, t("sheet.payouts")),
          result.payouts.map((v) => el("td", {}, chipsText(v)))));
      }
    }
  }
  return el("section", { class: "panel score-sheet", id: "score-sheet", "aria-labelledby": "sheet-title" },
    el("h3", { id: "sheet-title" }, t("sheet.title")),
    // focusable: a keyboard scrolls it when it is wider than its panel
    el("div", { class: "scroll-x sheet-scroll", tabindex: "0" },
      el("table", {}, el("thead", {}, head), el("tbody", {}, body), el("tfoot", {}, foot))),
    result ? el("p", { class: "match-winner", id: "match-winner" },
      t(rules.format === "match" ? "sheet.match_winner" : "sheet.hand_winner", { name: names[result.winner], count: result.margin, margin: result.margin })) : null,
    result && result.payouts ? el("p", { class: "muted" }, payoutRuleText(rules)) : null);
}
