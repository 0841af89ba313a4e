// A player's profile (/players/NAME): rating per category with a small chart of its history
// (inline SVG, drawn here), statistics, recent matches, and tournaments played with the best
// finish (each linked to its page). GET /api/players/{name}.
import { api, ApiError } from "./api.js";
import { el, replaceChildren } from "./dom.js";
import { has, number, t } from "./i18n.js";
import { accountErrorText } from "./account.js";
import { CATEGORIES, categoryLabel, dateText, decimalText, percentText, ratingText } from "./format.js";
import { matchList } from "./history.js";
import { currentAccount, link } from "./session.js";

const SVG = "http://www.w3.org/2000/svg";
const CHART = { width: 320, height: 120, pad: 24 };

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  for (const child of children) node.append(typeof child === "string" ? document.createTextNode(child) : child);
  return node;
}

/** Screen points of a rating history: time along x, rating up y (`points` [[iso, rating]]). */
export function chartPoints(points, { width, height, pad } = CHART) {
  const times = points.map(([at]) => new Date(at).getTime());
  const ratings = points.map(([, rating]) => rating);
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  let [low, high] = [Math.min(...ratings), Math.max(...ratings)];
  if (high - low < 10) { low -= 5; high += 5; }
  const x = (time, i) => pad + (t1 > t0 ? (time - t0) / (t1 - t0) : (points.length > 1 ? i / (points.length - 1) : 0.5)) * (width - 2 * pad);
  const y = (rating) => height - pad - ((rating - low) / (high - low)) * (height - 2 * pad);
  return { low, high, xy: points.map(([, rating], i) => [x(times[i], i), y(rating)]) };
}

/** The rating history of one category as a line chart (an <svg> with a title for screen readers). */
export function ratingChart(category, points) {
  const { width, height, pad } = CHART;
  const label = t("profile.chart_label", { category: categoryLabel(category) });
  if (!points || points.length === 0) return el("p", { class: "muted" }, t("profile.no_history"));
  const { low, high, xy } = chartPoints(points);
  const path = xy.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");
  return svg("svg", { class: "rating-chart", viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": label, "data-category": category, "data-points": points.length },
  svg("title", {}, label),
  svg("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, class: "axis" }),
  svg("line", { x1: pad, y1: pad, x2: pad, y2: height - pad, class: "axis" }),
  svg("text", { x: 2, y: pad + 4, class: "tick" }, String(Math.round(high))),
  svg("text", { x: 2, y: height - pad + 4, class: "tick" }, String(Math.round(low))),
  svg("text", { x: pad, y: height - 6, class: "tick" }, dateText(points[0][0])),
  svg("polyline", { points: path, class: "rating-line", fill: "none" }),
  ...xy.map(([x, y], i) => svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 2.5, class: "rating-dot" },
    svg("title", {}, `${dateText(points[i][0])}: ${Math.round(points[i][1])}`))));
}

const STATS = [
  ["matches", "profile.matches", number],
  ["won", "profile.won", number],
  ["points_per_hand", "profile.points_per_hand", decimalText],
  ["gin_rate", "profile.gin_rate", percentText],
  ["knock_rate", "profile.knock_rate", percentText],
  ["undercut_rate", "profile.undercut_rate", percentText],
  ["void_rate", "profile.void_rate", percentText],
  ["average_deadwood_caught", "profile.avg_deadwood_caught", decimalText],
];

/** The rating history per category as [[iso time, rating]] (the profile's `history` of
 * {time, rating} objects, or pairs). */
export function ratingHistory(profile) {
  const source = profile.history || profile.rating_history || {};
  const result = {};
  for (const [category, points] of Object.entries(source)) {
    result[category] = (points || []).map((p) => Array.isArray(p) ? p : [p.time, p.rating]);
  }
  return result;
}

/** "place 2 of 8" for a finished tournament, its status for one under way. */
function finishText(played) {
  if (played.place !== null && played.place !== undefined) {
    return t("profile.finish", { place: number(played.place), players: number(played.players) });
  }
  const key = `tournaments.status.${played.status}`;
  return has(key) ? t(key) : played.status;
}

function tournamentLink(played, attributes = {}) {
  return link(`/tournaments/${encodeURIComponent(played.id)}`, played.name, attributes);
}

/** The profile's tournaments panel: how many played, the best finish, the latest ones. */
export function tournamentsPanel(results) {
  const found = results || { played: 0, best: null, recent: [] };
  const best = found.best;
  return el("div", { class: "panel", id: "profile-tournaments", dataset: { played: String(found.played) } },
    el("h2", {}, t("profile.tournaments")),
    found.played ? [
      el("dl", { class: "stats" },
        el("dt", {}, t("profile.tournaments_played")), el("dd", { id: "profile-tournaments-played" }, number(found.played)),
        el("dt", {}, t("profile.best_finish")),
        el("dd", { id: "profile-best-finish", dataset: { place: best ? String(best.place) : "" } },
          best ? [finishText(best), " · ", tournamentLink(best, { class: "tournament-link" })] : "–")),
      el("ul", { class: "played-tournaments" }, (found.recent || []).map((played) =>
        el("li", { dataset: { tournament: played.id, place: played.place ?? "" } },
          tournamentLink(played, { class: "tournament-link" }), " ",
          el("span", { class: "muted" }, finishText(played)))))]
      : el("p", { class: "muted" }, t("profile.no_tournaments")));
}

export class ProfilePage {
  constructor(root, name, go) {
    this.root = root;
    this.name = name;
    this.go = go;
    this.profile = null;
    this.missing = false;
    this.error = null;
  }

  async start() {
    this.render();
    try {
      this.profile = await api.player(this.name);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) this.missing = true;
      else this.error = accountErrorText(error);
    }
    this.render();
  }

  stop() {} // left: route() detaches this page's host, so a late answer draws out of sight

  rerender() {
    this.render();
  }

  render() {
    const profile = this.profile;
    const head = el("h1", { class: "player-name", text: this.name });
    if (this.missing) {
      replaceChildren(this.root, el("section", { class: "profile-page", id: "profile-page", dataset: { missing: "true" } },
        head, el("p", { class: "panel", id: "profile-missing" }, t("profile.not_found", { name: this.name }))));
      return;
    }
    if (!profile) {
      replaceChildren(this.root, el("section", { class: "profile-page", id: "profile-page" }, head,
        this.error ? el("p", { class: "panel form-error", role: "alert" }, this.error) : el("p", { class: "muted" }, t("common.loading"))));
      return;
    }
    const ratings = profile.ratings || {};
    const history = ratingHistory(profile);
    const rated = CATEGORIES.filter((c) => ratings[c] || (history[c] && history[c].length));
    const extra = Object.keys(ratings).filter((c) => !CATEGORIES.includes(c));
    const rows = [...rated, ...extra].map((category) => {
      const r = ratings[category] || {};
      return el("tr", { dataset: { category } },
        el("th", { scope: "row" }, link(`/leaderboard/${encodeURIComponent(category)}`, categoryLabel(category))),
        el("td", { class: "rating" }, ratingText(r.rating)),
        el("td", {}, r.deviation === undefined || r.deviation === null ? "–" : `± ${ratingText(r.deviation)}`),
        el("td", {}, r.games === undefined ? "–" : number(r.games)),
        el("td", { class: "rank" }, r.rank ? `#${number(r.rank)}` : "–"));
    });
    const stats = profile.stats || {};
    const own = currentAccount()?.name === profile.name;
    replaceChildren(this.root, el("section", { class: "profile-page", id: "profile-page", dataset: { player: profile.name } },
      el("h1", { class: "player-name", text: profile.name }),
      profile.joined ? el("p", { class: "subtitle" }, t("profile.joined", { date: dateText(profile.joined) })) : null,
      el("div", { class: "panel" },
        el("h2", {}, t("profile.ratings")),
        rows.length ? el("table", { class: "data-table", id: "profile-ratings" },
          el("thead", {}, el("tr", {},
            el("th", { scope: "col" }, t("profile.category")), el("th", { scope: "col" }, t("profile.rating")),
            el("th", { scope: "col" }, t("profile.deviation")), el("th", { scope: "col" }, t("profile.games")),
            el("th", { scope: "col" }, t("profile.rank")))),
          el("tbody", {}, rows)) : el("p", { class: "muted" }, t("profile.unrated")),
        el("div", { class: "charts" }, rated.filter((c) => history[c] && history[c].length).map((category) =>
          el("figure", { class: "chart" }, el("figcaption", {}, categoryLabel(category)), ratingChart(category, history[category]))))),
      el("div", { class: "panel" },
        el("h2", {}, t("profile.statistics")),
        el("dl", { class: "stats", id: "profile-stats" }, STATS.map(([key, label, format]) => [
          el("dt", {}, t(label)), el("dd", { dataset: { stat: key } }, stats[key] === undefined || stats[key] === null ? "–" : format(stats[key]))]))),
      el("div", { class: "panel" },
        el("div", { class: "panel-head" },
          el("h2", {}, t("profile.recent")),
          link(own ? "/history" : `/history/${encodeURIComponent(profile.name)}`, t("profile.all_matches"), { id: "profile-history" })),
        matchList(profile.recent || [], profile.name)),
      tournamentsPanel(profile.tournaments)));
  }
}
