// Tournaments: the list (/tournaments: upcoming, running, finished) and one tournament
// (/tournaments/ID: register or withdraw, the players, the rounds with each match's table and
// replay, the bracket or standings; the viewer's own match to play highlighted with a button to
// its table). GET /api/tournaments[/ID], POST /api/tournaments/ID/register|withdraw.
// A page on screen asks again every few seconds while the tournament is not over; a tournament's
// page also asks at once when the account's push socket says it changed or that a match of it
// is ready (js/friendpush.js), the polling staying as the fallback.
import { api } from "./api.js";
import { el, replaceChildren } from "./dom.js";
import { has, number, t } from "./i18n.js";
import { accountErrorText } from "./account.js";
import { dateText } from "./format.js";
import { onFriendsChange } from "./friendpush.js";
import { currentAccount, link } from "./session.js";

const REFRESH_MS = 3000;
const LISTS = ["upcoming", "running", "finished"];

function formatLabel(format) {
  return has(`tournaments.format.${format}`) ? t(`tournaments.format.${format}`) : format;
}

function statusLabel(status) {
  return has(`tournaments.status.${status}`) ? t(`tournaments.status.${status}`) : status;
}

function chips(amount) {
  return amount ? number(amount) : "–";
}

/** A page that reads its data when shown and again every few seconds while `polls()` says
 * so; once stopped (the player went to another page), a read still under way neither draws
 * nor asks again. */
class PolledPage {
  constructor(root, go) {
    this.root = root;
    this.go = go;
    this.error = null;
    this.timer = null;
    this.shown = false;
    this.loads = 0;
  }

  async start() {
    this.shown = true;
    this.render();
    await this.load();
  }

  stop() {
    this.shown = false;
    clearTimeout(this.timer);
    this.timer = null;
  }

  rerender() {
    this.render();
  }

  /** Read and draw; when a newer load started meanwhile (a push during a poll), only the
   * newer one's answer is drawn and sets the next poll. */
  async load() {
    clearTimeout(this.timer);
    const ticket = ++this.loads;
    let answer = null;
    let failed = null;
    try {
      answer = await this.read();
    } catch (error) {
      failed = accountErrorText(error);
    }
    if (!this.shown || ticket !== this.loads) return;
    if (failed === null) this.take(answer);
    this.error = failed;
    this.render();
    if (this.polls()) this.timer = setTimeout(() => this.load(), REFRESH_MS);
  }

  polls() {
    return true;
  }
}

export class TournamentsPage extends PolledPage {
  constructor(root, go) {
    super(root, go);
    this.lists = null;
  }

  read() {
    return api.tournaments();
  }

  take(lists) {
    this.lists = lists;
  }

  section(name) {
    const items = this.lists ? this.lists[name] || [] : [];
    return el("div", { class: "panel", id: `tournaments-${name}` },
      el("h2", {}, t(`tournaments.list.${name}`)),
      items.length ? el("table", { class: "data-table" },
        el("thead", {}, el("tr", {},
          el("th", { scope: "col" }, t("tournaments.name")), el("th", { scope: "col" }, t("tournaments.format")),
          el("th", { scope: "col" }, t("tournaments.starts")), el("th", { scope: "col" }, t("tournaments.players")),
          el("th", { scope: "col" }, t("tournaments.buy_in")))),
        el("tbody", {}, items.map((item) => el("tr", { dataset: { tournament: item.id, status: item.status } },
          el("td", {}, link(`/tournaments/${encodeURIComponent(item.id)}`, item.name, { class: "tournament-link" })),
          el("td", {}, formatLabel(item.format)),
          el("td", {}, dateText(item.starts_at)),
          el("td", {}, `${number(item.players)} / ${number(item.max_players)}`),
          el("td", {}, chips(item.buy_in))))))
        : el("p", { class: "muted" }, this.lists ? t("tournaments.none") : t("common.loading")));
  }

  render() {
    replaceChildren(this.root, el("section", { class: "tournaments-page", id: "tournaments-page",
      dataset: { loaded: String(Boolean(this.lists)) } },
    el("h1", {}, t("tournaments.title")),
    this.error ? el("p", { class: "form-error", role: "alert" }, this.error) : null,
    LISTS.map((name) => this.section(name))));
  }
}

export class TournamentPage extends PolledPage {
  constructor(root, id, go) {
    super(root, go);
    this.id = id;
    this.tournament = null;
    this.busy = false;
    this.pushes = 0;
    this.unlisten = null;
  }

  async start() {
    this.unlisten = onFriendsChange((message) => this.pushed(message));
    await super.start();
  }

  stop() {
    super.stop();
    this.unlisten?.();
    this.unlisten = null;
  }

  /** A push about this tournament: read it now rather than at the next poll. */
  pushed(message) {
    const about = message.type === "tournament" ? message.id : message.type === "match_ready" ? message.tournament : null;
    if (about !== this.id || !this.shown) return;
    this.pushes += 1;
    this.load();
  }

  read() {
    return api.tournament(this.id);
  }

  take(tournament) {
    this.tournament = tournament;
  }

  polls() {
    const status = this.tournament ? this.tournament.status : null;
    return status === "open" || status === "running";
  }

  async change(what) {
    if (this.busy) return;
    this.busy = true;
    this.render();
    try {
      await (what === "register" ? api.registerTournament(this.id) : api.withdrawTournament(this.id));
      this.error = null;
    } catch (error) {
      this.error = accountErrorText(error);
    }
    this.busy = false;
    await this.load();
  }

  names() {
    const names = new Map();
    for (const r of this.tournament.registrations || []) names.set(r.account_id, r.name);
    return names;
  }

  actions(me) {
    const tour = this.tournament;
    if (tour.status !== "open") return null;
    if (!me) {
      return el("p", {}, link(`/login?next=${encodeURIComponent(`/tournaments/${this.id}`)}`, t("tournaments.login_to_register")));
    }
    const mine = (tour.registrations || []).some((r) => r.account_id === me.id && r.status === "registered");
    return el("div", { class: "actions" },
      mine
        ? el("button", { type: "button", id: "tournament-withdraw", disabled: this.busy, onclick: () => this.change("withdraw") }, t("tournaments.withdraw"))
        : el("button", { type: "button", class: "primary", id: "tournament-register", disabled: this.busy, onclick: () => this.change("register") },
          tour.buy_in ? t("tournaments.register_chips", { chips: number(tour.buy_in) }) : t("tournaments.register")));
  }

  matchRow(match, names, me) {
    const who = match.players.map((p) => names.get(p) || `#${p}`).join(" – ");
    const live = match.status === "playing" || match.status === "present" || match.status === "waiting";
    const mine = Boolean(me && live && match.players.includes(me.id));
    return el("li", { class: mine ? "match mine" : "match", dataset: { status: match.status, table: match.table_id || "" } },
      el("span", { class: "match-players" }, who),
      " ",
      el("span", { class: "muted" }, statusLabel(match.status)),
      match.winner !== null && match.winner !== undefined && match.status !== "waiting"
        ? el("span", {}, " ", t("tournaments.winner", { name: names.get(match.winner) || `#${match.winner}` })) : null,
      " ",
      mine && match.table_id
        ? el("button", { type: "button", class: "primary go-to-table", id: "tournament-go",
          onclick: () => this.go(`/?table=${encodeURIComponent(match.table_id)}`) }, t("tournaments.go_to_table"))
        : live && match.table_id ? link(`/?table=${encodeURIComponent(match.table_id)}`, t("tournaments.watch"), { class: "table-link" }) : null,
      match.replay ? link(match.replay, t("tournaments.replay"), { class: "replay-link" }) : null);
  }

  standings(names) {
    const rows = this.tournament.standings;
    if (!rows || !rows.length) return null;
    return el("div", { class: "panel", id: "tournament-standings" },
      el("h2", {}, t("tournaments.standings")),
      el("ol", {}, rows.map((row) => el("li", { dataset: { account: String(row.account_id) } },
        names.get(row.account_id) || `#${row.account_id}`, " ",
        el("span", { class: "muted" }, row.score !== undefined
          ? t("tournaments.score", { score: number(row.score), buchholz: number(row.buchholz) })
          : t("tournaments.points", { points: number(row.points) }))))));
  }

  render() {
    const tour = this.tournament;
    const me = currentAccount();
    if (!tour) {
      replaceChildren(this.root, el("section", { class: "tournament-page", id: "tournament-page", dataset: { loaded: "false" } },
        this.error ? el("p", { class: "form-error", role: "alert" }, this.error) : el("p", { class: "muted" }, t("common.loading"))));
      return;
    }
    const names = this.names();
    replaceChildren(this.root, el("section", { class: "tournament-page", id: "tournament-page",
      dataset: { loaded: "true", status: tour.status, pushes: String(this.pushes) } },
    el("h1", {}, tour.name),
    el("p", {}, link("/tournaments", t("tournaments.all"))),
    el("div", { class: "panel" },
      el("p", { id: "tournament-status" }, statusLabel(tour.status), " · ", formatLabel(tour.format), " · ", tour.preset, " · ",
        dateText(tour.starts_at)),
      el("p", {}, t("tournaments.pool", { chips: number(tour.pool) })),
      this.error ? el("p", { class: "form-error", role: "alert", id: "tournament-error" }, this.error) : null,
      this.actions(me)),
    el("div", { class: "panel", id: "tournament-players" },
      el("h2", {}, t("tournaments.players")),
      el("ul", {}, (tour.registrations || []).filter((r) => r.status === "registered").map((r) =>
        el("li", { dataset: { account: String(r.account_id), place: r.place ?? "" } }, r.name,
          r.place ? el("span", { class: "muted" }, " ", t("tournaments.place", { place: number(r.place), chips: chips(r.prize) })) : null)))),
    this.standings(names),
    (tour.rounds || []).map((round) => el("div", { class: "panel tournament-round", dataset: { round: String(round.round) } },
      el("h2", {}, t("tournaments.round", { round: number(round.round + 1) })),
      el("ul", { class: "matches" }, round.matches.map((m) => this.matchRow(m, names, me)))))));
  }
}
