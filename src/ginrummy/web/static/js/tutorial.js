// The first-game tutorial at /tutorial (issue 27.8, docs/client.md): one hand against the
// computer on a fixed deal, played on the real table page (js/table.js) with a scripted
// connection in place of the WebSocket. GET /api/tutorial gives the steps: the engine's own
// `state` messages for the player at each step (the computer's moves one after the other),
// the move that ends the step, the clauses of the rules it restates and the numbers its text
// needs. Each step's panel quotes the rule and says what to do; the step waits for that move
// (any other is refused with a word, and the hand stays as it is), or for the panel's button
// where the player only reads (the start, the computer's layoff).
import { api } from "./api.js";
import { cardText } from "./cards.js";
import { el, replaceChildren, toast } from "./dom.js";
import { number, t } from "./i18n.js";
import { errorText, guestNickname } from "./lobby.js";
import { prefs } from "./prefs.js";
import { currentAccount } from "./session.js";
import { TablePage } from "./table.js";

const COMPUTER_MS = 700; // between two moves of the computer
const REDUCED_MS = 150; // the same with reduced motion: nothing flies, nothing to watch
const CARD = /^[A2-9TJQK][shdc]$/i;
const BUTTONS = { welcome: "tutorial.start", layoff: "tutorial.show_layoff" };

function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** A step's params in the reader's words: cards named, numbers in the page's language. */
function words(params) {
  const out = {};
  for (const [key, value] of Object.entries(params || {})) {
    if (typeof value === "number") out[key] = number(value);
    else out[key] = String(value).split(/\s+/).map((w) => (CARD.test(w) ? cardText(w) : w)).join(" ");
  }
  return out;
}

/** Whether the player's move is the step's: the same kind and card (a knock or a layoff may
 * list its melds in another order). */
export function sameMove(action, expected) {
  const [kind, card] = action.trim().split(/\s+/);
  const [wantKind, wantCard] = expected.trim().split(/\s+/);
  return kind === wantKind && (card || "") === (wantCard || "");
}

/** The scripted connection: TableConnection's methods, the lesson's states instead of a
 * socket. */
class Lesson {
  constructor(page, handlers) {
    this.page = page;
    this.handlers = handlers;
    this.timers = new Set();
    this.closed = false;
    this.socket = null;
    this.ready = false;
  }

  connect() {
    this.handlers.onStatus("connecting", {});
    api.tutorial().then((data) => {
      if (this.closed) return;
      this.handlers.onStatus("online", {});
      this.page.begin(data.steps);
    }).catch((error) => toast(errorText(error), "error"));
  }

  act(action) {
    this.page.tryMove(action);
    return true;
  }

  later(call, ms) {
    const timer = setTimeout(() => { this.timers.delete(timer); if (!this.closed) call(); }, ms);
    this.timers.add(timer);
  }

  cancel() {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  close() {
    this.closed = true;
    this.cancel();
  }

  // nothing else goes anywhere: no chat, no rematch, no next hand in a lesson
  send() { return false; }
  chat() { return false; }
  mute() {}
  next() {}
  rematch() {}
  resync() {}
}

export class TutorialPage extends TablePage {
  static pageName = "TablePage"; // body[data-page]: the table's layout (css/app.css)

  constructor(root, go) {
    super(root, "tutorial", null, () => go("/"));
    this.go = go;
    this.stored = null;
    this.scripted = true; // no resign, no leave, no hint (js/variant.js, js/hint.js)
    this.steps = null;
    this.index = 0; // the step shown
    this.shown = 0; // its states shown so far
  }

  async start() {
    prefs.tutorialOffered = true; // taken: the lobby does not offer it again
    await super.start();
  }

  openConnection(handlers) {
    this.lesson = new Lesson(this, handlers);
    return this.lesson;
  }

  async loadEntry() {
    return null; // every state carries the table
  }

  hintsAllowed() {
    return false;
  }

  names() {
    const names = super.names();
    names[0] = (currentAccount() && currentAccount().name) || guestNickname();
    return names;
  }

  get step() {
    return this.steps ? this.steps[this.index] : null;
  }

  begin(steps) {
    this.steps = steps;
    this.show(0);
  }

  /** Show step `index`: its states one after the other, the computer's moves paced. */
  show(index) {
    this.lesson.cancel();
    this.index = index;
    this.shown = 0;
    this.receiveState(this.step.states[0]);
    this.announcer.say(t(`tutorial.${this.step.step}.do`, words(this.step.params)));
    this.pace();
  }

  pace() {
    const step = this.step;
    if (this.shown >= step.states.length - 1) return;
    this.lesson.later(() => {
      this.shown += 1;
      this.receiveState(step.states[this.shown]);
      this.pace();
    }, reducedMotion() ? REDUCED_MS : COMPUTER_MS);
  }

  /** The player's move: the step's own goes on to the next step; any other is refused and
   * the table shown as it was. */
  tryMove(action) {
    const step = this.step;
    if (!step) return;
    if (this.expected(action)) this.show(this.index + 1);
    else this.refuse();
  }

  /** Whether `action` is the move the step waits for (the computer's moves all shown). */
  expected(action) {
    const step = this.step;
    return Boolean(step && step.expect && this.shown === step.states.length - 1 && sameMove(action, step.expect));
  }

  refuse() {
    toast(t("tutorial.wrong"), "notice");
    const step = this.step;
    if (step) this.receiveState(step.states[this.shown]);
  }

  /** A discard that is not the step's is refused at once, not after its take-back time. */
  act(action) {
    if (action.startsWith("discard ") && this.step && !this.expected(action)) this.refuse();
    else super.act(action);
  }

  /** The panel's button where the player only reads. */
  advance() {
    if (this.step && !this.step.expect && this.index + 1 < this.steps.length) {
      this.show(this.index + 1);
      document.getElementById("tutorial")?.focus({ preventScroll: true });
    }
  }

  restart() {
    this.show(0);
    document.getElementById("tutorial")?.focus({ preventScroll: true });
  }

  /** The hand's result: with no Next hand in it, the region (which scrolls on a phone) is
   * focusable itself, so that a keyboard can scroll it. */
  renderReveal(names) {
    super.renderReveal(names);
    const reveal = this.regions.reveal;
    const heading = reveal.querySelector("h2, h3");
    if (heading) {
      reveal.setAttribute("tabindex", "0");
      reveal.setAttribute("role", "group");
      reveal.setAttribute("aria-label", heading.textContent);
    } else {
      for (const name of ["tabindex", "role", "aria-label"]) reveal.removeAttribute(name);
    }
  }

  /** In place of the table's name and rules: the lesson's panel. */
  renderHead() {
    const step = this.step;
    const last = this.steps ? this.index === this.steps.length - 1 : false;
    const params = step ? words(step.params) : {};
    const ready = step && this.shown === step.states.length - 1;
    const buttons = [];
    if (step && !step.expect && BUTTONS[step.step]) {
      buttons.push(el("button", { type: "button", class: "primary", id: "tutorial-next", disabled: !ready,
        onclick: () => this.advance() }, t(BUTTONS[step.step])));
    }
    if (last) {
      buttons.push(el("button", { type: "button", class: "primary", id: "tutorial-play", onclick: () => this.go("/") }, t("tutorial.play")),
        el("button", { type: "button", id: "tutorial-again", onclick: () => this.restart() }, t("tutorial.again")));
    }
    buttons.push(el("button", { type: "button", id: "tutorial-leave", onclick: () => this.go("/") }, t("tutorial.leave")));
    replaceChildren(this.regions.head, el("section", { class: "panel tutorial", id: "tutorial", tabindex: "-1",
      "aria-labelledby": "tutorial-title", dataset: { step: step ? step.step : "", ready: ready ? "true" : "false" } },
    el("div", { class: "tutorial-top" },
      el("h1", { id: "tutorial-title" }, t("tutorial.title")),
      step ? el("span", { class: "muted", id: "tutorial-progress" },
        t("tutorial.progress", { step: number(this.index + 1), steps: number(this.steps.length) })) : null),
    step ? [
      el("p", { class: "tutorial-rule", id: "tutorial-rule" },
        el("span", { class: "tutorial-clause" }, t("tutorial.clause", { clause: step.rules })), " ",
        t(`tutorial.${step.step}.rule`, params)),
      el("p", { class: "tutorial-do", id: "tutorial-do" }, t(`tutorial.${step.step}.do`, params)),
    ] : el("p", { class: "muted" }, t("common.loading")),
    el("div", { class: "actions" }, buttons)));
  }
}
