// The endings' banners: each hand's result (who won, how, the points) at the top of the
// reveal, and the match's (the winner, the final score, the bonuses) above it when the match is
// over. A gin and a match win are celebrated briefly (css/app.css, `.celebrate`: the animation
// runs only under `prefers-reduced-motion: no-preference`).
import { el } from "./dom.js";
import { number, t } from "./i18n.js";
import { deltaText, ratingText } from "./format.js";

const CELEBRATED = new Set(["gin", "big_gin"]);

/** The hand's banner: "{name} wins the hand: Gin" and the points it scored (the penalty
 * points of the others in a single-hand game). */
export function handBanner(result, rules, names) {
  const outcome = result.outcome;
  if (outcome === "void" || result.winner === null || result.winner === undefined) {
    return el("div", { class: "banner hand-banner", id: "hand-banner", role: "status", dataset: { outcome } },
      el("p", { class: "banner-title" }, t("table.hand_void")));
  }
  const winner = result.winner;
  const gained = result.penalties ? null : result.points[winner];
  return el("div", {
    class: `banner hand-banner outcome-${outcome}${CELEBRATED.has(outcome) ? " celebrate" : ""}`,
    id: "hand-banner", role: "status", dataset: { outcome, winner: String(winner) },
  },
  el("p", { class: "banner-title" }, t("banner.hand_won", { name: names[winner], how: t(`outcome.${outcome}`) })),
  gained !== null && gained !== undefined
    ? el("p", { class: "banner-points" }, "+", t("reveal.points", { count: gained, points: number(gained) })) : null);
}

/** The match's banner: the winner, every seat's final score (totals with the bonuses, or the
 * single hand's penalty points), the winner's bonuses by name and, for a rated match, every
 * person's rating change (`ratings` of the state: [{seat, before, after}], else null). */
export function matchBanner(result, rules, names, ratings = null) {
  const winner = result.winner;
  const match = rules.format === "match";
  const finals = match ? result.totals : (result.penalties || result.totals || []);
  const bonuses = match ? ["line", "game", "shutout"]
    .map((kind) => [kind, (result.bonuses[winner] || {})[kind] || 0]).filter(([, value]) => value > 0) : [];
  return el("section", { class: "banner match-banner celebrate", id: "match-banner", role: "status",
    dataset: { winner: String(winner) } },
  el("p", { class: "banner-title" }, t("banner.match_won", { name: names[winner] })),
  el("p", { class: "banner-score", id: "match-final" }, el("span", { class: "group-label" }, t("banner.final_score")), " ",
    finals.map((value, seat) => el("span", { class: `final-seat${seat === winner ? " won" : ""}`, dataset: { seat: String(seat) } },
      el("span", { class: "player-name", text: names[seat] }), " ", el("strong", {}, number(value))))),
  bonuses.length ? el("p", { class: "banner-bonuses", id: "match-bonuses" }, el("span", { class: "group-label" }, t("banner.bonuses")), " ",
    bonuses.map(([kind, value]) => el("span", { class: "bonus", dataset: { bonus: kind } }, t(`sheet.bonus_${kind}`), " ",
      el("strong", {}, `+${number(value)}`)))) : null,
  ratingLine(ratings, names));
}

/** "Rating: Ann +12 (1512) · Bob −12 (1488)": the seats whose rating changes (a computer
 * level's is fixed and left out). */
function ratingLine(ratings, names) {
  const moved = (ratings || []).filter((r) => r.before !== r.after);
  if (!moved.length) return null;
  return el("p", { class: "banner-ratings", id: "match-ratings" }, el("span", { class: "group-label" }, t("banner.ratings")), " ",
    moved.map((r) => el("span", { class: "rating-change", dataset: { seat: String(r.seat) } },
      el("span", { class: "player-name", text: names[r.seat] }), " ",
      el("strong", {}, deltaText(r.before, r.after)), ` (${ratingText(r.after)})`)));
}
