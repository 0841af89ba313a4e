// The leaderboard of a rating category (/leaderboard/CATEGORY): the top 100 and the viewer's
// own rank. GET /api/leaderboard/{category}.
import { api } from "./api.js";
import { el, replaceChildren } from "./dom.js";
import { number, t } from "./i18n.js";
import { accountErrorText } from "./account.js";
import { CATEGORIES, categoryLabel, ratingText } from "./format.js";
import { currentAccount, link, profilePath } from "./session.js";

export class LeaderboardPage {
  constructor(root, category, go) {
    this.root = root;
    this.category = category || CATEGORIES[0];
    this.go = go;
    this.board = null;
    this.error = null;
  }

  async start() {
    this.render();
    try {
      this.board = await api.leaderboard(this.category);
    } catch (error) {
      this.error = accountErrorText(error);
    }
    this.render();
  }

  stop() {} // left: route() detaches this page's host, so a late answer draws out of sight

  rerender() {
    this.render();
  }

  row(entry, me) {
    return el("tr", { class: me ? "mine" : "", dataset: { rank: entry.rank, name: entry.name } },
      el("td", { class: "rank" }, number(entry.rank)),
      el("td", {}, link(profilePath(entry.name), entry.name, { class: "player-name" })),
      el("td", { class: "rating" }, ratingText(entry.rating)),
      el("td", {}, entry.deviation === undefined || entry.deviation === null ? "–" : `± ${ratingText(entry.deviation)}`),
      el("td", {}, number(entry.games ?? 0)));
  }

  render() {
    const tabs = el("nav", { class: "tabs", "aria-label": t("leaderboard.categories") }, CATEGORIES.map((category) =>
      link(`/leaderboard/${encodeURIComponent(category)}`, categoryLabel(category), {
        class: "tab", "aria-current": category === this.category ? "page" : null, dataset: { category } })));
    const board = this.board;
    const viewer = currentAccount()?.name;
    let body;
    if (this.error) body = el("p", { class: "form-error", role: "alert" }, this.error);
    else if (!board) body = el("p", { class: "muted" }, t("common.loading"));
    else {
      const top = board.top || [];
      const me = board.me || null;
      body = [
        top.length ? el("table", { class: "data-table", id: "leaderboard" },
          el("thead", {}, el("tr", {},
            el("th", { scope: "col" }, t("profile.rank")), el("th", { scope: "col" }, t("leaderboard.player")),
            el("th", { scope: "col" }, t("profile.rating")), el("th", { scope: "col" }, t("profile.deviation")),
            el("th", { scope: "col" }, t("profile.games")))),
          el("tbody", {}, top.map((entry) => this.row(entry, entry.name === viewer)))) : el("p", { class: "muted" }, t("leaderboard.empty")),
        el("p", { id: "my-rank", class: "my-rank" },
          viewer ? (me && me.rank ? t("leaderboard.your_rank", { rank: number(me.rank), rating: ratingText(me.rating) }) : t("leaderboard.unranked"))
            : link(`/login?next=${encodeURIComponent(location.pathname)}`, t("leaderboard.login_for_rank"))),
      ];
    }
    replaceChildren(this.root, el("section", { class: "leaderboard-page", id: "leaderboard-page", dataset: { category: this.category, loaded: String(Boolean(board)) } },
      el("h1", {}, t("leaderboard.title", { category: categoryLabel(this.category) })),
      tabs,
      el("div", { class: "panel" }, body)));
  }
}
