// Match history: every finished match of a player (GET /api/players/{name}/matches), paged,
// each with its replay and its record; the list is also the profile's "recent matches".
import { api } from "./api.js";
import { el, replaceChildren } from "./dom.js";
import { has, number, t } from "./i18n.js";
import { accountErrorText } from "./account.js";
import { categoryLabel, dateText, deltaText, ratingText } from "./format.js";
import { currentAccount, link, profilePath, resumeGames, resumeList } from "./session.js";

function endingLabel(ending) {
  return has(`ending.${ending}`) ? t(`ending.${ending}`) : ending || "";
}

function playerLine(player, mine) {
  const rating = player.rating_after !== null && player.rating_after !== undefined
    ? el("span", { class: "rating-change" }, ` ${ratingText(player.rating_after)} (${deltaText(player.rating_before, player.rating_after)})`)
    : null;
  return el("li", { class: `match-player${mine ? " mine" : ""}`, dataset: { place: player.place ?? "" } },
    player.place === 1 ? el("span", { class: "badge winner" }, t("history.winner")) : null, " ",
    player.name && player.account ? link(profilePath(player.name), player.name, { class: "player-name" })
      : player.name && !player.level ? el("span", { class: "player-name", text: player.name })
      : el("span", { class: "player-name" }, player.level ? t("history.computer", { level: player.level }) : t("history.guest")),
    " ", el("span", { class: "score" }, t("history.score", { points: number(player.score ?? 0) })),
    rating);
}

/** The list of matches: when, the preset, who played, scores, rating changes, and the
 * links to the replay and to the record. */
export function matchList(matches, viewer) {
  if (!matches.length) return el("p", { class: "muted", id: "no-matches" }, t("history.none"));
  return el("ol", { class: "match-list" }, matches.map((match) => el("li", { class: "match-entry", dataset: { match: match.id } },
    el("div", { class: "match-head" },
      el("strong", {}, categoryLabel(match.category || match.preset)), " · ",
      el("span", {}, dateText(match.finished_at)),
      match.ending && match.ending !== "over" ? el("span", { class: "badge" }, endingLabel(match.ending)) : null),
    el("ul", { class: "match-players" }, (match.players || []).map((p) => playerLine(p, viewer && p.name === viewer))),
    el("div", { class: "actions" },
      link(`/replay/${encodeURIComponent(match.id)}`, t("history.replay"), { class: "button-link replay-link" }),
      el("a", { class: "button-link record-link", href: api.recordUrl(match.id), download: `match-${match.id}.json` },
        t("history.download"))))));
}

/** /history (the logged-in player's) and /history/NAME. */
export class HistoryPage {
  constructor(root, name, go) {
    this.root = root;
    this.name = name;
    this.go = go;
    this.matches = [];
    this.next = null;
    this.error = null;
    this.loaded = false;
    this.inProgress = [];
  }

  /** The logged-in account's own matches (its games in progress are listed too). */
  get own() {
    const account = currentAccount();
    return Boolean(account) && (!this.name || this.name === account.name);
  }

  get player() {
    return this.name || currentAccount()?.name || null;
  }

  async start() {
    if (!this.player) {
      this.go(`/login?next=${encodeURIComponent("/history")}`, true);
      return;
    }
    this.render();
    if (this.own) {
      resumeGames().then((found) => {
        this.inProgress = found;
        this.render();
      });
    }
    await this.more();
  }

  stop() {} // left: route() detaches this page's host, so a late answer draws out of sight

  rerender() {
    this.render();
  }

  async more() {
    try {
      const page = await api.matches(this.player, this.next);
      this.matches.push(...(page.matches || []));
      this.next = page.next ?? null;
      this.error = null;
    } catch (error) {
      this.error = accountErrorText(error);
    }
    this.loaded = true;
    this.render();
  }

  render() {
    const player = this.player;
    if (!player) return;
    replaceChildren(this.root, el("section", { class: "history-page", id: "history-page", dataset: { loaded: String(this.loaded) } },
      el("h1", {}, t("history.title", { name: player })),
      el("p", {}, link(profilePath(player), t("history.profile"))),
      this.own && this.inProgress.length ? el("section", { class: "panel", id: "history-in-progress", "aria-labelledby": "in-progress-heading" },
        el("h2", { id: "in-progress-heading" }, t("history.in_progress")),
        resumeList(this.inProgress)) : null,
      el("div", { class: "panel" },
        this.error ? el("p", { class: "form-error", role: "alert" }, this.error) : null,
        this.loaded ? matchList(this.matches, currentAccount()?.name) : el("p", { class: "muted" }, t("common.loading")),
        this.next !== null ? el("button", { type: "button", id: "history-more", onclick: () => this.more() }, t("history.more")) : null)));
  }
}
