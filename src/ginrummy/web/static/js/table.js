// The table page: its state from the server, the viewer's hand and the actions the server says
// are legal, the head, the reveal and the keyboard; the seats, the piles and the action bar are
// drawn by js/board.js. Everything shown comes from the server's `state` (the seat's own view,
// legal actions and hints); nothing secret is computed here.
import { api } from "./api.js";
import { PendingDiscard, redrawCenter, redrawParts, renderCenter, renderSeats, seatBox, tickUndo } from "./board.js";
import { cardName, cardText, parseAction } from "./cards.js";
import { Chat } from "./chat.js";
import { clockPlayedText, formatClock, seedClockMoves, TurnNotifier, updateClock } from "./clock.js";
import { TableConnection, deltaChanges } from "./connection.js";
import { append, el, rememberFocus, replaceChildren, restoreFocus, toast } from "./dom.js";
import { FairDeals } from "./fair.js";
import { botLabel, errorText, rulesDialog, rulesSummary, tableName } from "./format.js";
import { accountBox, joinForm, leaveTable } from "./seating.js";
import { has, number, t } from "./i18n.js";
import { Hinter } from "./hint.js";
import { drawnCard, renderHand, groupHand, saveOrder, storedOrder } from "./handview.js";
import { TableMotion } from "./motion.js";
import { handOutcome, MoveAnnouncer, MoveLog } from "./movelog.js";
import { forgetSeat, prefs, seatFor } from "./prefs.js";
import { currentAccount, link, onSessionChange, refreshBalance, refreshSession } from "./session.js";
import { keyHint, shortcutsOn } from "./shortcuts.js";
// not part of the first screen (issue 27 point 11): loaded once it is drawn (loadCoach)
import { knockPanel, laterMissing, layoffPanel, loadLater, matchBanner, revealPanel } from "./later.js";
import { currentSheet, matchControls, overText, previousSheet, variantBar } from "./variant.js";

/** Keys the focused hand handles itself (js/handview.js): they are not shortcuts there. */
const HAND_KEYS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "Enter", " "]);

/** How often the table was drawn whole and in part (read by tests/web/test_web_deltas.py). */
const renders = { full: 0, partial: 0 };
window.ginrummyRenders = renders;

/** A link to send ("Invite link:", "Share this table:"): the address and its Copy button. */
function linkLine(id, label, address) {
  return el("p", { class: "invite" }, el("label", { for: id }, label), " ",
    el("input", { id, type: "text", readonly: true, value: address }),
    el("button", { type: "button", onclick: () => navigator.clipboard?.writeText(address).then(() => toast(t("table.copied"))) },
      t("table.copy")));
}

export class TablePage {
  constructor(root, tableId, invite, navigate) {
    this.root = root;
    this.tableId = tableId;
    this.navigate = navigate;
    const stored = seatFor(tableId);
    this.stored = stored;
    this.invite = invite || (stored && stored.invite) || null;
    this.state = null;
    this.entry = null;
    this.seat = null;
    this.selected = null;
    this.busy = false;
    this.pending = new PendingDiscard(); // a discard that may still be taken back (js/board.js)
    this.panel = null; // "knock" | "gin" | null
    this.panelCache = new Map();
    this.deadline = null;
    this.clockMoves = new Map(); // "hand:logIndex" -> action the clock played (server notices)
    this.connStatus = "connecting";
    this.onKey = (event) => this.keydown(event);
    this.notifier = new TurnNotifier(); // tab title, favicon badge, sounds
    this.announcer = new MoveAnnouncer(); // each move told once to screen readers
    this.handFocus = null; // the hand's card last focused (its tab stop)
    this.motion = new TableMotion(); // cards moving (js/motion.js)
    this.moveLog = new MoveLog(); // the whole hand's moves (js/movelog.js)
    this.more = false; // on a phone: the drawer (moves, score sheet, chat) shown instead of the table
    this.revealed = null; // the hand whose result was last brought into view
    this.hinter = new Hinter(this); // the beginner's hint at a computer table (js/hint.js)
  }

  async start() {
    this.connection = this.openConnection({
      onState: (msg, delta) => this.receiveState(msg, delta),
      onError: (msg) => this.receiveError(msg),
      onChat: (msg) => { this.chat.receive(msg); this.showChat(); },
      onNotice: (msg) => this.receiveNotice(msg),
      onStatus: (status, detail) => this.connectionStatus(status, detail),
    });
    this.chat = new Chat(this.connection, this.tableId, this.stored ? this.stored.token : null);
    this.fair = new FairDeals(this.connection); // seeds and checks of the deals (js/fair.js)
    // a check that answers changes only the fair mark: the rest of the page stays as it is
    this.fair.onChange = () => this.regions && this.fair.refresh(this.regions.reveal, this.fairState());
    this.buildSkeleton();
    this.unsubscribe = onSessionChange(() => this.render());
    this.connection.connect();
    document.addEventListener("keydown", this.onKey);
    this.clockTimer = setInterval(() => this.tickClock(), 250);
    try {
      this.entry = await this.loadEntry();
      if (!this.state) this.render();
    } catch (error) {
      toast(errorText(error), "error");
    }
  }

  /** The table's connection (js/tutorial.js plays a scripted one). */
  openConnection(handlers) {
    return new TableConnection(this.tableId, { token: this.stored ? this.stored.token : null, invite: this.invite }, handlers);
  }

  loadEntry() {
    return api.table(this.tableId, this.invite);
  }

  /** Whether the beginner's hint may be offered here (js/hint.js; not in the tutorial). */
  hintsAllowed() {
    return true;
  }

  stop() {
    this.unsubscribe?.();
    this.connection?.close();
    clearInterval(this.clockTimer);
    document.removeEventListener("keydown", this.onKey);
    this.notifier.stop();
    this.announcer.clear();
    this.motion.stop();
    this.inviteBox?.stop(); // js/friendinvite.js, made by js/seating.js
  }

  rerender() {
    this.panelCache.clear();
    const old = this.chat;
    this.chat = new Chat(this.connection, this.tableId, this.stored ? this.stored.token : null);
    this.chat.messages = old.messages;
    this.chat.reported = old.reported;
    this.chat.muted = old.muted;
    this.chat.renderMessages();
    this.buildSkeleton();
    this.render();
  }

  // ------------------------------------------------------------------ data
  get table() {
    return (this.state && this.state.table) || this.entry;
  }

  get view() {
    return this.state ? this.state.view : null;
  }

  get legal() {
    return (this.state && this.state.legal) || [];
  }

  names() {
    const table = this.table;
    if (!table) return [];
    const bots = table.seats.filter((s) => s.kind === "bot").length;
    return table.seats.map((s) => s.kind === "bot"
      ? t(bots > 1 ? "seat.computer_at" : "seat.computer", { n: s.seat + 1, level: botLabel(s.level) })
      : s.name || t("seat.label", { n: s.seat + 1 }));
  }

  /** Whether a person other than this viewer may be at the table: another person's seat, a
   * seat still free for one, or this viewer only watching. Against the computer alone the
   * invite link, the deal's commitment and the chat serve nobody and are not shown. */
  hasPeople() {
    const table = this.table;
    if (!table || this.seat === null) return true;
    return table.seats.some((s) => s.seat !== this.seat && s.kind !== "bot");
  }

  /** The state the fair-deal block is drawn from: against the computer alone only a hand's
   * mark (once its seed is revealed), not the commitment line of the hand being played. */
  fairState() {
    const state = this.state;
    return this.hasPeople() || (state && state.fair && state.fair.server_seed) ? state : null;
  }

  /** A state from the server: whole (`delta` null: everything is drawn again), or made from
   * `delta`, when only the parts it changed are drawn again (js/board.js, redrawParts). */
  receiveState(msg, delta = null) {
    this.fair?.receive(msg);
    const before = this.page ? this.page.dataset.await : "";
    // a match just ended, or a moderator closed the table: a payout or refunds changed the wallet
    const ended = (msg.result && !(this.state && this.state.result))
      || (msg.table && msg.table.status === "closed" && this.table && this.table.status !== "closed");
    if (ended && currentAccount()) refreshBalance();
    const choice = () => [this.busy, this.selected, this.pending.action, this.panel].join("|");
    const chosen = choice();
    this.state = msg;
    this.seat = msg.seat ?? null;
    this.busy = false;
    const view = msg.view;
    seedClockMoves(this.clockMoves, msg); // the clock's moves after a reload too
    if (this.selected && !(view && view.hand && view.hand.includes(this.selected))) this.selected = null;
    if (this.pending.action && !this.legal.includes(this.pending.action)) this.pending.clear(); // the clock played
    if (!this.legal.some((a) => a.startsWith("knock") || a.startsWith("gin"))) this.panel = null;
    this.deadline = msg.clock
      ? { seat: msg.clock.seat, at: performance.now() + msg.clock.remaining_ms, total: msg.clock.per_turn_ms } : null;
    const parts = delta ? redrawParts(this, deltaChanges(delta)) : null;
    // the player's own choices this state undid (a move sent, a card chosen, a panel open)
    if (parts && choice() !== chosen) for (const part of ["piles", "actions", "me"]) parts.add(part);
    this.render(parts);
    this.bringIntoView(before);
    this.announce(view);
  }

  /** The player's turn, or a hand's result, puts the table back on screen (the drawer of a
   * phone closes), and a result's banner is scrolled into view by itself: the screen is never
   * left on the move log while the hand ends. */
  bringIntoView(before) {
    const now = this.page.dataset.await;
    const view = this.view;
    const ended = view && view.phase === "over" && view.result ? `${view.hand_number}:${view.upcard}` : null;
    const newResult = ended !== null && ended !== this.revealed;
    if (ended) this.revealed = ended;
    const turn = now === "act" && before !== "act" && before !== "sending";
    if ((turn || newResult) && this.more && !this.chat.root.contains(document.activeElement)) this.toggleMore(false);
    if (newResult) {
      const reveal = this.regions.reveal;
      const banner = reveal.querySelector(".banner") || reveal.firstElementChild;
      reveal.scrollTop = 0; // on a phone the result scrolls inside its own region
      banner?.scrollIntoView({ block: "nearest", behavior: "auto" });
    }
  }

  /** The chat, where it serves: with people at the table, or once someone said something. */
  showChat() {
    if (this.chat) this.chat.root.hidden = !this.hasPeople() && this.chat.messages.length === 0;
  }

  /** Show the drawer (the move log, the score sheet, the chat...) or the table, on a phone. */
  toggleMore(show = !this.more) {
    this.more = show;
    this.render();
  }

  /** The new moves of this state, told once in the live region (js/movelog.js). */
  announce(view) {
    const names = this.names();
    const over = this.state.result ? overText(this.state, names)
      : view && view.result && view.result.outcome === "void" ? t("table.hand_void") : t("table.hand_over");
    this.announcer.update(this.state, { names, seat: this.seat, clockMoves: this.clockMoves,
      ending: [over, handOutcome(view, names)].filter(Boolean).join(" "),
      prompt: this.page.dataset.await === "act" ? this.statusText(view, names) : null });
  }

  /** A server notice: the administrators' text, or (kind `clock`) a move the clock played. */
  receiveNotice(msg) {
    if (msg.kind !== "clock") {
      toast(t("notice.from_moderators", { text: msg.text || "" }), "notice", 20000);
      return;
    }
    this.clockMoves.set(`${msg.hand_number}:${msg.log_index}`, msg.action);
    toast(clockPlayedText(msg.action, this.names()[msg.seat] || ""), "notice clock-notice", 8000);
    if (this.view) this.render();
  }

  receiveError(msg) {
    this.busy = false;
    if (msg.code === "stale_version") return; // a fresh state follows
    const text = has(`error.${msg.code}`) ? t(`error.${msg.code}`) : t("error.generic");
    toast(msg.message ? `${text} (${msg.message})` : text, "error");
    this.render();
  }

  connectionStatus(status, detail) {
    this.connStatus = status;
    if (status === "closed") {
      // 4403 also says an administrator removed this seat (a kick) or banned the account
      const reason = String(detail.reason || "");
      const moderated = detail.code === 4403 ? (/banned/i.test(reason) ? "banned" : /removed/i.test(reason) ? "kicked" : null) : null;
      const key = moderated ? `close.${moderated}` : `close.${detail.code}`;
      toast(has(key) ? t(key) : t("conn.closed"), "error", 10000);
      if (moderated) forgetSeat(this.tableId);
      if (moderated === "banned") refreshSession(); // the ban ended the session
      if (detail.code === 4401 && this.stored) {
        forgetSeat(this.tableId); // the seat's key is gone (a new database?): watch instead
        setTimeout(() => this.navigate(this.tableId, this.invite), 1500);
      }
    }
    const node = document.getElementById("conn-status");
    if (node) {
      node.textContent = t(`conn.${status}`);
      node.dataset.status = status;
    }
  }

  act(action) {
    if (this.busy || !this.legalHas(action)) return;
    if (action.startsWith("discard ") && prefs.discardUndo && !this.pending.action) {
      // held a moment, to be taken back (js/board.js); then sent as any other action
      this.pending.start(action, (held) => { if (this.legalHas(held)) this.send(held); });
      this.selected = null;
      this.render(this.ownParts());
      return;
    }
    this.send(action);
  }

  /** Take the waiting discard back: the hand is as it was, its card chosen again. */
  takeBack() {
    const card = this.pending.clear();
    if (!card) return;
    this.selected = card;
    this.render(this.ownParts());
    document.querySelector(`#my-hand [data-card="${card}"]`)?.focus({ preventScroll: true });
  }

  send(action) {
    this.busy = true;
    this.selected = null;
    this.panel = null;
    this.connection.act(action);
    this.render(this.ownParts());
  }

  /** Knocks and layoffs may use another arrangement than the listed one; the server checks them. */
  legalHas(action) {
    const kind = action.split(" ")[0];
    if (kind === "knock" || kind === "gin") return this.legal.some((a) => a.startsWith("knock") || a.startsWith("gin"));
    if (kind === "layoff") return this.legal.some((a) => a.startsWith("layoff"));
    return this.legal.includes(action);
  }

  discardable() {
    if (this.pending.action) return new Set(); // one discard at a time
    return new Set(this.legal.filter((a) => a.startsWith("discard ")).map((a) => a.slice(8)));
  }

  // ------------------------------------------------------------------ layout
  buildSkeleton() {
    this.regions = {
      head: el("div", { class: "table-head" }),
      join: el("div", { class: "join-slot" }),
      account: el("div", { class: "account-slot" }),
      status: el("p", { class: "status-line", id: "status-line" }), // not live: js/movelog.js tells the moves
      opponents: el("div", { class: "opponents", id: "opponents" }),
      center: el("div", { class: "center", id: "center" }),
      me: el("div", { class: "me", id: "me" }),
      reveal: el("div", { class: "reveal-slot" }),
      sheet: el("div", { class: "sheet-slot" }),
    };
    this.page = el("section", { class: "table-page", id: "table-page" });
    append(this.page, [
      this.regions.head, this.regions.join,
      el("div", { class: "table-layout" },
        el("div", { class: "play-area" }, el("h2", { class: "visually-hidden" }, t("a11y.play_heading")),
          this.regions.status, this.regions.opponents, this.regions.center,
          this.regions.reveal, this.regions.me),
        el("aside", { class: "side" }, el("h2", { class: "visually-hidden" }, t("a11y.side_heading")),
          this.regions.sheet, this.regions.account, this.chat.root)),
    ]);
    replaceChildren(this.root, this.page);
  }

  /** Machine-readable state on the page element (used by the browser tests and styles). */
  markPage(view) {
    const data = this.page.dataset;
    data.version = this.state ? String(this.state.version) : "";
    data.phase = view ? view.phase : "";
    data.hand = view ? String(view.hand_number) : "";
    data.seat = this.seat === null ? "" : String(this.seat);
    const mine = view && this.seat !== null && view.to_move === this.seat && view.phase !== "over" && this.legal.length > 0;
    data.await = this.state && this.state.result ? "over"
      : mine ? (this.busy ? "sending" : this.pending.action ? "undo" : laterMissing() ? "wait" : "act")
        : view && view.phase === "over" && document.getElementById("next-hand") ? "next" : "wait";
    // on a phone (css/app.css): the table on one screen while a hand is played, the drawer
    // instead of it when asked for, the whole page once the match is over
    this.page.classList.toggle("show-more", this.more);
    this.page.classList.toggle("fit", !this.more && data.await !== "over");
  }

  /** The parts the player's own choices change (a card chosen, a move sent or held back):
   * the piles, the action bar and the hand; everything when the table is not drawn yet. */
  ownParts() {
    return this.drawn ? new Set(["piles", "actions", "me"]) : null;
  }

  /** Draws the table: everything, or (`parts`, from js/board.js's redrawParts) only those parts. */
  render(parts = null) {
    if (!this.regions) return;
    const focus = rememberFocus(this.page); // given back below (replaceChildren drops it)
    this.motion.capture(this.view); // where the cards are before the DOM is replaced
    const table = this.table;
    const names = this.names();
    const view = this.view;
    if (!parts) {
      this.renderHead(table);
      this.renderJoin(table);
      this.renderAccountBox(table);
      if (table) this.chat.renderMutes(table.seats, this.seat);
      this.showChat();
    }
    this.regions.status.textContent = this.statusText(view, names);
    if (!parts || parts.has("opponents")) renderSeats(this, view, table, names);
    if (!parts) renderCenter(this, view, names);
    else redrawCenter(this, view, names, parts);
    if (!parts || parts.has("me")) this.renderMe(view, names);
    if (!parts) {
      this.renderReveal(names);
      this.fair?.render(this.regions.reveal, this.fairState());
      replaceChildren(this.regions.sheet, matchControls(this), this.state && (this.state.sheet?.length || this.state.result)
        ? currentSheet(this.state, names) : null, this.rematchBox(names), previousSheet(this.state, names));
    }
    this.drawn = Boolean(view); // a later delta may redraw parts of what is drawn now
    renders[parts ? "partial" : "full"] += 1;
    this.markPage(view);
    this.tickClock();
    const waiting = this.page.dataset.await;
    this.notifier.update({ mine: waiting === "act" || waiting === "sending", view, deadline: this.deadline, seat: this.seat });
    this.motion.play(view, this.seat); // the cards that moved fly from there
    restoreFocus(focus, this.page);
  }

  renderHead(table) {
    const invite = this.invite && table && !table.public && this.hasPeople()
      ? `${location.origin}/?table=${encodeURIComponent(this.tableId)}&invite=${encodeURIComponent(this.invite)}` : null;
    const share = table && table.public && table.status === "waiting" && this.seat !== null
      ? `${location.origin}/?table=${encodeURIComponent(this.tableId)}` : null;
    replaceChildren(this.regions.head,
      el("h1", { class: "table-name", text: table ? tableName(table) : this.tableId }),
      table ? el("p", { class: "rules-summary" }, rulesSummary(table.preset, table.rules)) : null,
      variantBar(this),
      el("div", { class: "actions" },
        el("button", { type: "button", id: "rules-button", onclick: () => this.openRules() }, t("rules.button")),
        el("button", { type: "button", id: "lobby-button", onclick: () => this.navigate(null) }, t("table.back")),
        el("button", { type: "button", id: "more-button", class: "more-button", "aria-expanded": this.more ? "true" : "false",
          onclick: () => this.toggleMore() }, t(this.more ? "table.show_table" : "table.show_more")),
        el("span", { class: "conn", id: "conn-status", dataset: { status: this.connStatus } }, t(`conn.${this.connStatus}`)),
        this.seat === null && this.state ? el("span", { class: "badge" }, t("table.spectating")) : null,
        table && table.buy_in ? el("span", { class: "badge pool", id: "table-pool", dataset: { buyIn: String(table.buy_in), pool: String(table.pool_chips ?? "") } },
          t("lobby.buy_in", { count: table.buy_in, chips: number(table.buy_in) }),
          table.pool_chips ? [" · ", t("table.pool", { count: table.pool_chips, chips: number(table.pool_chips) })] : null) : null),
      invite ? linkLine("invite-link", t("table.invite"), invite) : null,
      // a public table waiting for players: its address to send to friends
      !invite && share ? linkLine("share-link", t("table.share"), share) : null);
  }

  renderJoin(table) {
    joinForm(this, table);
  }

  /** For a guest seated in a running match: "Create an account and keep this game". For a
   * seated player before the first deal: leave the table (a buy-in is refunded). */
  renderAccountBox(table) {
    accountBox(this, table);
  }

  leave() {
    return leaveTable(this);
  }

  statusText(view, names) {
    if (!this.state) return t("table.connecting");
    if (this.table && this.table.status === "closed") return t("table.closed");
    if (!view) return t("table.waiting_players");
    if (this.state.result) return overText(this.state, names);
    if (view.phase === "over") return view.result && view.result.outcome === "void" ? t("table.hand_void") : t("table.hand_over");
    const mine = this.seat !== null && view.to_move === this.seat;
    if (mine) {
      if (this.busy) return t("turn.sending");
      if (view.phase === "discard") return t(this.discardStatusKey());
      return t(`turn.${view.phase}`, { card: view.upcard ? cardText(view.upcard) : "" });
    }
    return t(view.phase === "layoff" ? "turn.waiting_layoff" : "turn.waiting", { name: names[view.to_move] || "" });
  }

  /** The discard-phase status: knock or gin named only when the legal list offers it. */
  discardStatusKey() {
    const gins = this.legal.filter((a) => a.startsWith("gin"));
    if (gins.length && gins.every((a) => parseAction(a).card === null)) return "turn.big_gin";
    if (gins.length) return "turn.discard_or_gin";
    if (this.legal.some((a) => a.startsWith("knock"))) return "turn.discard_or_knock";
    return "turn.discard_only";
  }

  openPanel(kind) {
    if (this.pending.action) return; // a discard waits: taken back first
    this.panel = kind;
    this.more = false; // the sheet is the table's: the drawer gives way
    this.render();
    const panel = document.getElementById("knock-panel");
    panel?.scrollIntoView({ block: "nearest", behavior: "auto" });
    document.getElementById("confirm-knock")?.focus({ preventScroll: true });
  }

  renderMe(view, names) {
    if (this.seat === null || !this.table) { replaceChildren(this.regions.me); return; }
    if (!view) {
      replaceChildren(this.regions.me, seatBox(this, null, this.table.seats[this.seat], names, null, true));
      return;
    }
    const hints = this.state.hints;
    const discardable = this.discardable();
    const box = seatBox(this, view.seats[this.seat], this.table.seats[this.seat], names, view, true);
    if (view.phase === "over") { replaceChildren(this.regions.me, box); return; }
    const sortBy = prefs.sort;
    const handKey = `${view.hand_number}:${view.upcard}`;
    const order = storedOrder(this.tableId, this.seat, handKey);
    const hand = renderHand({
      hand: view.hand, hints, sortBy, discardable, selected: this.selected, taken: view.taken,
      drawn: drawnCard(view), order, pending: this.pending.card,
      onReorder: (cards, card) => {
        saveOrder(this.tableId, this.seat, handKey, cards);
        this.render();
        // told to screen readers: where the moved card now lies (issue 27.9)
        this.announcer.say(t("hand.moved", { card: cardName(card), place: number(cards.indexOf(card) + 1), total: number(cards.length) }));
      },
      focusCard: this.handFocus,
      onFocus: (card) => { this.handFocus = card; },
      onSelect: (card) => { this.selected = card; this.render(this.ownParts()); },
      onDiscard: (card) => this.act(`discard ${card}`),
      dropTarget: () => document.getElementById("discard-pile"),
    });
    // the card just taken from the pile may not be discarded this turn (R3.3,
    // no_rediscard_of_taken_card): a tap or Enter on it says why instead of doing nothing
    const takenTapped = (event) => {
      const card = event.target.closest?.("[data-card]");
      if (!card || card.dataset.card !== view.taken || !discardable.size || discardable.has(view.taken)) return false;
      toast(t("hand.taken_no_discard", { card: cardText(view.taken) }));
      return true;
    };
    this.hinter.mark(hand);
    hand.addEventListener("click", takenTapped);
    hand.addEventListener("keydown", (event) => {
      if ((event.key === "Enter" || event.key === " ") && takenTapped(event)) event.preventDefault();
    });
    const tools = el("div", { class: "hand-tools" },
      hints ? el("span", { class: "deadwood", id: "deadwood" }, t("hand.deadwood", { points: hints.deadwood })) : null,
      el("span", { class: "sort" }, t("hand.sort"), " ",
        el("button", { type: "button", id: "sort-rank", "aria-pressed": !order && sortBy === "rank" ? "true" : "false",
          onclick: () => this.sortHand("rank") }, t("hand.by_rank")),
        el("button", { type: "button", id: "sort-suit", "aria-pressed": !order && sortBy === "suit" ? "true" : "false",
          onclick: () => this.sortHand("suit") }, t("hand.by_suit"))));
    replaceChildren(this.regions.me, box, this.hinter.box(), hand, tools, this.panelNode(view));
  }

  /** Sort the hand (the buttons, the O key): the player's own order is dropped (js/handview.js). */
  sortHand(by) {
    prefs.sort = by;
    if (this.seat !== null) saveOrder(this.tableId, this.seat, null, null);
    this.render();
  }

  panelNode(view) {
    const legal = this.legal;
    const mine = view.to_move === this.seat;
    if (mine && view.phase === "layoff" && legal.some((a) => a.startsWith("layoff"))) {
      const proposal = (this.state.hints && this.state.hints.defence) || legal.find((a) => a.startsWith("layoff"));
      const key = `layoff|${this.state.version}|${proposal}`;
      if (!this.panelCache.has(key)) {
        this.panelCache.clear();
        this.panelCache.set(key, layoffPanel({ proposal, hand: view.hand, knock: view.knock, hints: this.state.hints,
          laidOff: view.laid_off, send: (a) => this.act(a) }));
      }
      return this.panelCache.get(key);
    }
    if (mine && this.panel) {
      const key = `${this.panel}|${this.state.version}`;
      if (!this.panelCache.has(key)) {
        this.panelCache.clear();
        this.panelCache.set(key, knockPanel({
          legal, hand: view.hand, hints: this.state.hints, wantGin: this.panel === "gin", knockLimit: view.knock_limit,
          send: (a) => this.act(a), cancel: () => { this.panel = null; this.render(); },
        }));
      }
      return this.panelCache.get(key);
    }
    return null;
  }

  renderReveal(names) {
    const view = this.view;
    if (!view || view.phase !== "over" || !view.result) { replaceChildren(this.regions.reveal); return; }
    const next = this.state.next_hand;
    let footer = null;
    if (next && !this.state.result) {
      const ready = next.ready || [];
      const waiting = this.table.seats.filter((s) => !ready.includes(s.seat)).map((s) => names[s.seat]);
      footer = el("div", { class: "actions" },
        this.seat !== null && !ready.includes(this.seat)
          ? el("button", { type: "button", class: "primary", id: "next-hand", onclick: () => this.connection.next() }, keyHint(t("table.next_hand")))
          : null,
        waiting.length ? el("span", { class: "muted" }, t("table.next_waiting", { names: waiting.join(", ") })) : null,
        next.remaining_ms !== null && next.remaining_ms !== undefined
          ? el("span", { class: "muted next-countdown", dataset: { at: String(performance.now() + next.remaining_ms) } }) : null);
    }
    const over = this.state.result;
    replaceChildren(this.regions.reveal, over && over.winner !== null && over.winner !== undefined
      ? matchBanner(over, view.ruleset, names, this.state.ratings) : null, revealPanel(view, names, footer));
  }

  rematchBox(names) {
    const result = this.state && this.state.result;
    this.loadCoach();
    if (!result) return null;
    const asked = (this.state.rematch || []).map((s) => names[s]);
    const mine = this.seat !== null && (this.state.rematch || []).includes(this.seat);
    return el("section", { class: "panel rematch", id: "rematch-box" },
      el("p", {}, overText(this.state, names)),
      // a rematch is not offered at a buy-in table (each match is paid for when sitting down)
      this.seat !== null && !this.table?.buy_in ? el("button", { type: "button", class: "primary", id: "rematch", disabled: mine,
        onclick: () => { this.connection.rematch(); } }, mine ? t("table.rematch_asked") : t("table.rematch")) : null,
      asked.length ? el("p", { class: "muted" }, t("table.rematch_waiting", { names: asked.join(", ") })) : null,
      currentAccount() ? el("p", {}, link("/history", t("table.see_history"), { id: "history-link" })) : null,
      this.coach ? this.coach.tableCoach(this) : null);
  }

  /** js/coachview.js and the modules of js/later.js, not part of the first screen (issue 27
   * point 11): asked for as the table's first state is drawn, long before a match ends (drawn
   * again if one is shown meanwhile). */
  loadCoach() {
    if (!this.state) return;
    loadLater(() => {
      for (const [key, node] of this.panelCache) if (!node) this.panelCache.delete(key); // drawn without arrange.js
      this.render();
    });
    this.coachLoading ||= import("./coachview.js").then((mod) => {
      this.coach = mod;
      if (this.state?.result) this.render();
    }, () => { this.coachLoading = null; });
  }

  tickClock() {
    for (const node of document.querySelectorAll(".next-countdown")) {
      node.textContent = t("table.next_in", { time: formatClock(Number(node.dataset.at) - performance.now()) });
    }
    const now = performance.now();
    for (const node of document.querySelectorAll(".seat-box .clock")) updateClock(node, this.deadline, now);
    tickUndo(now);
  }

  openRules() {
    const table = this.table;
    if (!table) return;
    const extra = [
      el("p", {}, table.clock_seconds ? t("lobby.clock", { seconds: table.clock_seconds }) : t("lobby.no_clock")),
      table.pool_chips ? el("p", {}, t("lobby.pool", { count: table.pool_chips, chips: number(table.pool_chips) })) : null,
    ];
    const dialog = rulesDialog(table.preset, (this.view && this.view.ruleset) || table.rules, extra);
    document.body.append(dialog);
    dialog.addEventListener("close", () => dialog.remove());
    dialog.showModal();
  }

  // ------------------------------------------------------------------ keyboard
  keydown(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.closest?.("input, textarea, select, dialog[open]") || (event.key === "Enter" && target.closest?.("button")))) return;
    if (document.querySelector("dialog[open]")) return;
    if (target && target.closest?.("#my-hand") && HAND_KEYS.has(event.key)) return; // js/handview.js's
    if (!shortcutsOn() && event.key !== "Escape") return; // switched off in the settings (WCAG 2.1.4)
    const view = this.view;
    const key = event.key;
    if (key === "?") { event.preventDefault(); document.getElementById("help-dialog")?.showModal(); return; }
    if (key === "r" || key === "R") { event.preventDefault(); this.openRules(); return; }
    if (key === "o" || key === "O") { this.sortHand(prefs.sort === "rank" ? "suit" : "rank"); return; }
    if (key === "Escape" && this.pending.action) { event.preventDefault(); this.takeBack(); return; }
    if (key === "Escape" && this.panel) { this.panel = null; this.render(); return; }
    if ((key === "n" || key === "N") && document.getElementById("next-hand")) { this.connection.next(); return; }
    if (!view || this.seat === null) return;
    const lower = key.length === 1 ? key.toLowerCase() : key;
    if (lower === "s") this.act("stock");
    else if (lower === "t") this.act("take");
    else if (lower === "p") this.act("pass");
    else if (lower === "k" && this.legal.some((a) => a.startsWith("knock"))) this.openPanel("knock");
    else if (lower === "g" && this.legal.some((a) => a.startsWith("gin"))) this.openPanel("gin");
    else if (lower === "l") document.getElementById("confirm-layoff")?.click();
    else if (key === "ArrowLeft" || key === "ArrowRight") {
      event.preventDefault();
      this.moveSelection(key === "ArrowLeft" ? -1 : 1);
    } else if (key === "Enter" && this.selected && this.discardable().has(this.selected)) {
      event.preventDefault();
      this.act(`discard ${this.selected}`);
    }
  }

  moveSelection(step) {
    const view = this.view;
    const discardable = this.discardable();
    const shown = [...document.querySelectorAll("#my-hand [data-card]")].map((n) => n.dataset.card); // the order shown
    const order = (shown.length ? shown : groupHand(view.hand, this.state.hints, prefs.sort).flatMap((g) => g.cards))
      .filter((c) => discardable.has(c));
    if (!order.length) return;
    const index = order.indexOf(this.selected);
    this.selected = order[(index + step + order.length) % order.length] || order[0];
    if (index < 0) this.selected = step > 0 ? order[0] : order[order.length - 1];
    this.render();
    document.querySelector(`#my-hand [data-card="${this.selected}"]`)?.focus();
  }
}

