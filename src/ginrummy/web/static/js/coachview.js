// The coach's verdicts on a finished match (docs/coach.md): where the player lost points, move
// by move, every choice valued on the same sampled worlds from what the player could see at
// the time; the best is the highest valued, each value has its standard error, and a move is
// a mistake only when its cost exceeds the noise. The history's
// replay asks GET /api/matches/{id}/coach (an account's own matches); the end of a match at
// the table asks POST /api/tables/{id}/coach (a seated player: the guest's seat token in the
// body). The server answers 202 while its worker process computes, then 200 with the report.
// actionLabel is in cards.js (the beginner's hint needs it at the table, where this module is
// loaded only when first needed); exported here too
import { actionLabel, cardText } from "./cards.js";
import { el } from "./dom.js";
import { number, t } from "./i18n.js";
import { currentAccount } from "./session.js";

const enc = encodeURIComponent;
const FIRST_WAIT_MS = 250;

/** The verdicts of one player in one match, fetched once on demand. */
export { actionLabel };

export class Coach {
  constructor(method, path, body, onChange) {
    this.method = method;
    this.path = path;
    this.body = body;
    this.onChange = onChange;
    this.state = "idle"; // idle, running, done, error
    this.report = null;
    this.error = null;
    this.progress = null; // {done, total} when the server tells it
    this.byMove = new Map();
  }

  async run() {
    if (this.state === "running" || this.state === "done") return;
    this.state = "running";
    this.error = null;
    this.onChange();
    let wait = FIRST_WAIT_MS;
    for (;;) {
      let response = null;
      let data = null;
      try {
        const headers = { Accept: "application/json" };
        const options = { method: this.method, credentials: "same-origin", headers };
        if (this.body !== undefined) {
          headers["Content-Type"] = "application/json";
          options.body = JSON.stringify(this.body);
        }
        response = await fetch(this.path, options);
        data = await response.json().catch(() => null);
      } catch {
        return this.fail("coach.failed");
      }
      if (response.status === 200 && data && data.coach) return this.done(data.coach, data.match_id || null);
      if (response.status !== 202) {
        const code = data && data.error && data.error.code;
        const busy = code === "busy" || code === "too_many_jobs"; // others', or one's own jobs
        return this.fail(busy ? "coach.busy" : code === "forbidden" ? "coach.not_yours"
          : code === "not_logged_in" ? "coach.login" : "coach.failed");
      }
      const progress = data && data.progress;
      if (progress && Number.isFinite(progress.done) && Number.isFinite(progress.total) && progress.total > 0) {
        this.progress = { done: progress.done, total: progress.total };
        this.onChange();
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
      // the server says how long to wait (250 ms: the answer comes at the first ask after
      // the worker is done); between 100 ms and 5 s whatever it says
      wait = Math.min(5000, Math.max(100, (data && data.retry_ms) || 1000));
    }
  }

  done(report, matchId = null) {
    this.report = report;
    this.matchId = matchId; // the stored match (the table's coach): its replay's steps
    this.byMove = new Map(report.verdicts.map((v) => [`${v.hand}:${v.move}`, v]));
    this.state = "done";
    this.onChange();
  }

  fail(key) {
    this.state = "error";
    this.error = key;
    this.onChange();
  }

  /** The verdict on move `move` (from 1) of hand `hand` (from 1), or null (not the player's). */
  verdictAt(hand, move) {
    return this.byMove.get(`${hand}:${move}`) || null;
  }
}

function points(value) {
  const rounded = Math.round(value * 10) / 10;
  return { count: rounded, points: number(rounded) };
}

/** A verdict's mistake flag (a report from before standard errors: its accuracy flag). */
function isMistake(verdict) {
  return verdict.mistake !== undefined ? verdict.mistake : !verdict.accurate;
}

/** One verdict in a sentence: as good as the best choice within the noise, or what it cost. */
export function verdictLine(verdict) {
  const played = actionLabel(verdict.played);
  if (verdict.forced) return t("coach.forced", { played });
  if (!isMistake(verdict)) return t("coach.good", { played });
  const cost = points(verdict.cost);
  return t("coach.cost", { played, best: actionLabel(verdict.best), count: cost.count, points: cost.points,
    error: number(Math.round((verdict.error || 0) * 10) / 10) });
}

function where(verdict) {
  return t("coach.at", { hand: number(verdict.hand), move: number(verdict.move) });
}

/** Cards of the record's notation ("7s 8s") in the reader's words. */
function cardsText(text) {
  return String(text || "").split(/\s+/).filter((w) => /^[A2-9TJQK][shdc]$/i.test(w)).map(cardText).join(" ");
}

const CARD_PARAMS = new Set(["card", "meld", "taken", "cards", "live"]);

/** Why a mistake cost points, in the reader's language (null when the verdict has none). */
export function reasonLine(verdict) {
  const reason = verdict.reason;
  if (!reason || !reason.code) return null;
  const params = {};
  for (const [key, value] of Object.entries(reason.params || {})) {
    params[key] = CARD_PARAMS.has(key) ? cardsText(value) : typeof value === "number" ? number(value) : String(value);
  }
  params.best = actionLabel(verdict.best);
  return t(`coach.reason.${reason.code}`, params);
}

/** The hand and the discard pile when the mistake was made. */
function momentLine(verdict) {
  const pile = (verdict.discard_pile || []).map(cardText).join(" ");
  return t("coach.moment", { cards: (verdict.cards || []).map(cardText).join(" "), pile: pile || t("coach.pile_empty") });
}

/** A mistake's reason and its moment. */
function mistakeDetails(verdict) {
  if (!isMistake(verdict) || verdict.forced) return null;
  const reason = reasonLine(verdict);
  return el("div", { class: "coach-why" },
    reason ? el("p", { class: "coach-reason" }, reason) : null,
    el("p", { class: "coach-moment muted" }, momentLine(verdict)));
}

function verdictItem(verdict, linkTo) {
  // the server lists the best (highest valued) first, then by value: its order is kept;
  // each move links to its step of the replay (when the replay is known)
  return el("li", { class: `coach-move${isMistake(verdict) ? " coach-costly" : ""}`, dataset: { hand: verdict.hand, move: verdict.move } },
    el("span", { class: "coach-where" }, where(verdict)), " ", verdictLine(verdict),
    mistakeDetails(verdict), linkTo ? linkTo(verdict) : null,
    el("ul", { class: "coach-choices muted" }, verdict.choices.map((c) => el("li", {},
      t("coach.choice", { action: actionLabel(c.action), count: Math.round(c.value * 10) / 10, value: number(Math.round(c.value * 10) / 10),
        error: number(Math.round((c.error || 0) * 10) / 10) })))));
}

function summary(report, linkTo) {
  const s = report.summary;
  const lost = s.lost;
  const byId = new Map(report.verdicts.map((v) => [`${v.hand}:${v.move}`, v]));
  return [
    report.capped ? el("p", { class: "coach-capped muted", id: "coach-capped" },
      t("coach.capped", { count: report.of, decisions: number(report.of), coached: number(report.coached) })) : null,
    s.accuracy === null ? null : el("p", { class: "coach-accuracy", id: "coach-accuracy", dataset: { accuracy: s.accuracy } },
      t("coach.accuracy", { accuracy: number(s.accuracy) }), " ",
      t("coach.accurate", { count: s.counted, accurate: number(s.accurate), decisions: number(s.counted) })),
    // a turn (the draw and the discard together) without a mistake; reports from before turns have none
    s.turn_accuracy === null || s.turn_accuracy === undefined ? null : el("p", { class: "coach-turn-accuracy", id: "coach-turn-accuracy",
      dataset: { accuracy: s.turn_accuracy } }, t("coach.turn_accuracy", { accuracy: number(s.turn_accuracy),
      accurate: number(s.accurate_turns), turns: number(s.turns) })),
    el("p", { class: "coach-lost", id: "coach-lost" }, t("coach.lost", {
      draw: number(lost.draw), discard: number(lost.discard), knock: number(lost.knock), layoff: number(lost.layoff) })),
    s.costliest.length ? el("h3", {}, t("coach.costliest")) : null,
    s.costliest.length ? el("ol", { class: "coach-costliest", id: "coach-costliest" },
      s.costliest.map((c) => verdictItem(byId.get(`${c.hand}:${c.move}`), linkTo))) : null,
  ];
}

/** The coach's panel: the button that asks, the wait, the error, or the summary (and, with
 * `everyMove`, every decision in a list that opens). */
export function coachPanel(coach, { everyMove = false, linkTo = null } = {}) {
  let body;
  if (coach.state === "idle") {
    body = [el("p", { class: "muted" }, t("coach.intro")),
      el("button", { type: "button", id: "coach-ask", onclick: () => coach.run() }, t("coach.show"))];
  } else if (coach.state === "running") {
    const progress = coach.progress;
    body = el("div", { class: "coach-running" },
      el("p", { class: "muted", id: "coach-running", role: "status" }, t("coach.running")),
      // an indeterminate bar until the server says how far it is
      el("progress", progress ? { id: "coach-progress", max: progress.total, value: progress.done, "aria-labelledby": "coach-running" }
        : { id: "coach-progress", "aria-labelledby": "coach-running" }));
  } else if (coach.state === "error") {
    body = el("p", { class: "form-error", id: "coach-error", role: "alert" }, t(coach.error));
  } else {
    body = [summary(coach.report, linkTo), everyMove ? el("details", { id: "coach-every" },
      el("summary", {}, t("coach.every")),
      el("ol", { class: "coach-moves" }, coach.report.verdicts.map((v) => verdictItem(v, linkTo)))) : null];
  }
  return el("section", { class: "panel coach-panel", id: "coach-panel", "aria-labelledby": "coach-title", dataset: { state: coach.state } },
    el("h2", { id: "coach-title" }, t("coach.title")), body);
}

/** The replay page's coach (an account's own match): the verdict on the step shown, and the
 * panel; null when the viewer did not play in the match. */
export function replayCoach(page) {
  const account = currentAccount();
  const replay = page.replay;
  if (!account || !replay) return null;
  const mine = (replay.players || []).some((p) => p && typeof p === "object" && p.account && p.name === account.name);
  if (!mine) return null;
  if (!page.coach) page.coach = new Coach("GET", `/api/matches/${enc(page.matchId)}/coach`, undefined, () => page.render());
  const coach = page.coach;
  let hand = 0;
  let move = 0;
  const steps = page.steps;
  for (let i = 0; i <= page.index && i < steps.length; i += 1) {
    if (steps[i].action === "deal") { hand += 1; move = 0; } else move += 1;
  }
  const verdict = coach.state === "done" && move > 0 ? coach.verdictAt(hand, move) : null;
  // each costly move links to its step of this replay (?step=N, from 1)
  const linkTo = (v) => {
    const index = stepIndex(steps, v.hand, v.move);
    if (index === null) return null;
    return el("a", { class: "coach-step-link", href: `/replay/${enc(page.matchId)}?step=${index + 1}`,
      dataset: { step: index }, onclick: (event) => { event.preventDefault(); page.show(index); } }, t("coach.replay_step"));
  };
  return el("div", { class: "coach-replay" },
    verdict ? el("div", { class: `coach-verdict${isMistake(verdict) ? " coach-costly" : ""}`, id: "coach-step-verdict" },
      el("p", {}, verdictLine(verdict)), isMistake(verdict) && reasonLine(verdict) ? el("p", { class: "coach-reason" }, reasonLine(verdict)) : null) : null,
    coachPanel(coach, { linkTo }));
}

/** The replay's step index of move `move` (from 1) of hand `hand` (from 1), or null. */
export function stepIndex(steps, hand, move) {
  let h = 0;
  let m = 0;
  for (let i = 0; i < steps.length; i += 1) {
    if (steps[i].action === "deal") { h += 1; m = 0; } else m += 1;
    if (h === hand && m === move) return i;
  }
  return null;
}

/** The end of a match at the table: the seated player's coach (null for a spectator, or while
 * the match goes on). A new match gets a new coach. */
export function tableCoach(page) {
  const result = page.state && page.state.result;
  if (page.seat === null || page.seat === undefined || !result) return null;
  const key = `${page.tableId}:${JSON.stringify(result)}`;
  if (!page.coachFor || page.coachFor.key !== key) {
    const token = page.stored && page.stored.token;
    page.coachFor = { key, coach: new Coach("POST", `/api/tables/${enc(page.tableId)}/coach`, token ? { token } : {}, () => page.render()) };
  }
  const coach = page.coachFor.coach;
  // each move links to its step of the stored match's replay (?hand=H&move=M: the table has
  // not the replay's steps; the replay page finds the step)
  const linkTo = (v) => coach.matchId ? el("a", { class: "coach-step-link",
    href: `/replay/${enc(coach.matchId)}?hand=${v.hand}&move=${v.move}` }, t("coach.replay_step")) : null;
  return coachPanel(coach, { everyMove: true, linkTo });
}
