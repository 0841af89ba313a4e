// Knocks and layoffs: the server's proposal shown at the hand, changeable before it is sent.
// The knock sheet shows the arrangement that will be declared (melds and deadwood), the choice
// of discard and of arrangement, and the confirm button, on one screen. The layoff sheet shows
// the knocker's melds numbered, offers only the cards that fit one (tap the card then the meld,
// or drag it there), keeps the rest, and explains the engine's best layoff. Which cards fit
// comes from the server's hints (`layoff_targets`): nothing is guessed about the rules here.
import { cardElement, cardText, isMeld, meldText, parseAction, points, sortCards, sortKey } from "./cards.js";
import { append, el, replaceChildren } from "./dom.js";
import { language, number, t } from "./i18n.js";
import { keyHint } from "./shortcuts.js";

/**
 * An editable arrangement of `cards` into melds: melds can be broken up and chosen cards made
 * into a meld. Changing it never needs secret information: the cards are the viewer's.
 */
export class ArrangementEditor {
  constructor({ cards, melds, onChange = () => {} }) {
    this.cards = cards;
    this.melds = melds.map((m) => [...m]);
    this.selection = new Set();
    this.onChange = onChange;
    this.root = el("div", { class: "arrangement" });
  }

  free() {
    const used = new Set(this.melds.flat());
    return sortCards(this.cards.filter((c) => !used.has(c)), "suit");
  }

  deadwood() {
    return points(this.free());
  }

  text() {
    return this.melds.map(meldText).join(" ");
  }

  render() {
    const meldBoxes = this.melds.map((meld, index) => el("div", { class: "meld-group" },
      meld.map((c) => cardElement(c)),
      el("button", { type: "button", class: "small", "aria-label": t("arrange.break_meld"), title: t("arrange.break_meld"),
        onclick: () => { this.melds.splice(index, 1); this.changed(); } }, "×")));
    const free = this.free().map((code) => {
      const card = cardElement(code, {
        class: `playable${this.selection.has(code) ? " selected" : ""}`,
        tabindex: "0", role: "checkbox", "aria-checked": this.selection.has(code) ? "true" : "false",
      });
      const toggle = () => {
        if (this.selection.has(code)) this.selection.delete(code); else this.selection.add(code);
        this.changed();
      };
      card.addEventListener("click", toggle);
      card.addEventListener("keydown", (e) => { if (e.key === " " || e.key === "Enter") { e.preventDefault(); e.stopPropagation(); toggle(); } });
      return card;
    });
    const selected = [...this.selection];
    const canMeld = isMeld(selected);
    replaceChildren(this.root,
      el("div", { class: "arrangement-melds" }, el("h4", {}, t("arrange.your_melds")),
        meldBoxes.length ? meldBoxes : el("p", { class: "muted" }, t("arrange.no_melds"))),
      el("div", { class: "arrangement-free" }, el("h4", {}, t("arrange.deadwood", { points: this.deadwood() })),
        el("div", { class: "free-cards deadwood-group" }, free),
        el("button", { type: "button", disabled: !canMeld, class: "make-meld small",
          onclick: () => { this.melds.push(sortCards(selected, "suit")); this.selection.clear(); this.changed(); } },
        t("arrange.make_meld")),
        selected.length && !canMeld ? el("span", { class: "muted" }, t("arrange.not_a_meld")) : null));
    return this.root;
  }

  changed() {
    for (const c of [...this.selection]) if (!this.free().includes(c)) this.selection.delete(c);
    this.render();
    this.onChange(this);
  }
}

/**
 * Knock options from the legal list, with every arrangement of the same deadwood the server's
 * hints list for each discard: [{action, kind, discard, melds, arrangements, deadwood}].
 */
export function knockOptions(legal, hand, hints = null) {
  const listed = new Map(((hints && hints.knocks) || []).map((k) => [k.action, k.arrangements || []]));
  return legal.filter((a) => a.startsWith("knock") || a.startsWith("gin")).map((action) => {
    const parsed = parseAction(action);
    const melded = new Set(parsed.melds.flat());
    const rest = hand.filter((c) => c !== parsed.card && !melded.has(c));
    const others = (listed.get(action) || []).map((text) => parseAction(text).melds);
    const arrangements = others.length ? others : [parsed.melds];
    return { action, kind: parsed.kind, discard: parsed.card, melds: parsed.melds, arrangements, deadwood: points(rest) };
  });
}

/** A row of radio chips under a short label; `onPick(index)` is called when one is chosen. */
function chips(name, label, items, chosen, onPick) {
  return el("div", { class: "sheet-chips", role: "radiogroup", "aria-label": label },
    el("span", { class: "chips-label", "aria-hidden": "true" }, label),
    items.map((content, index) => el("label", { class: "chip" },
      el("input", { type: "radio", name, value: index, checked: index === chosen, onchange: () => onPick(index) }),
      content)));
}

/**
 * The knock sheet: pick the discard among the legal knocks and, where several are legal, the
 * arrangement; see the melds and deadwood that will be declared; change them; confirm.
 * `send(actionText)` sends it; `cancel()` closes the sheet.
 */
export function knockPanel({ legal, hand, hints = null, wantGin, knockLimit, send, cancel }) {
  const options = knockOptions(legal, hand, hints).filter((o) => !wantGin || o.kind === "gin");
  const panel = el("section", { class: "panel knock-panel arrange-sheet", id: "knock-panel", "aria-labelledby": "knock-title" });
  let chosen = options[0];
  let arrangement = 0;
  let editor = null;
  const summary = el("p", { class: "knock-summary", id: "knock-summary" });
  const confirm = el("button", { type: "button", class: "primary", id: "confirm-knock" });
  const discardSlot = el("div");
  const arrangementSlot = el("div");
  const editorSlot = el("div", { class: "knock-arrangement", id: "knock-arrangement" });
  const update = () => {
    const deadwood = editor.deadwood();
    // a gin is no knock: no "at most N to knock" under it
    summary.textContent = deadwood === 0 ? t("arrange.gin_summary") : t("arrange.knock_summary", { points: deadwood, limit: knockLimit });
    confirm.textContent = deadwood === 0 ? t("action.confirm_gin") : t("action.confirm_knock");
    confirm.disabled = deadwood > knockLimit;
  };
  const showArrangement = (index) => {
    arrangement = index;
    const cards = hand.filter((c) => c !== chosen.discard);
    editor = new ArrangementEditor({ cards, melds: chosen.arrangements[index], onChange: update });
    replaceChildren(editorSlot, editor.render());
    update();
  };
  const choose = (option) => {
    chosen = option;
    replaceChildren(arrangementSlot, option.arrangements.length > 1
      ? chips("knock-arrangement", t("arrange.arrangement_choice"),
        option.arrangements.map((_, i) => t("arrange.arrangement_n", { n: i + 1 })), 0, showArrangement)
      : null);
    showArrangement(0);
  };
  if (options.length > 1) {
    replaceChildren(discardSlot, chips("knock-discard", t("arrange.discard_choice_points"),
      options.map((option) => option.discard
        ? [cardElement(option.discard, { class: "mini" }), el("span", { class: "chip-points" }, number(option.deadwood))]
        : [t("arrange.big_gin")]),
      0, (index) => choose(options[index])));
  }
  confirm.addEventListener("click", () => {
    const kind = editor.deadwood() === 0 && legal.some((a) => a.startsWith("gin")) ? "gin" : "knock";
    const head = chosen.discard ? `${kind} ${chosen.discard}` : "gin";
    send(`${head} ${editor.text()}`.trim());
  });
  const single = options.length === 1 && chosen.discard
    ? el("p", { class: "knock-discard" }, t("arrange.discard_card"), " ", cardElement(chosen.discard, { class: "mini" })) : null;
  append(panel, [
    el("h3", { id: "knock-title" }, wantGin ? t("arrange.gin_title") : t("arrange.knock_title")),
    single, discardSlot, arrangementSlot, editorSlot, summary,
    el("div", { class: "actions sheet-actions" }, confirm,
      el("button", { type: "button", onclick: () => showArrangement(arrangement) }, t("arrange.reset")),
      el("button", { type: "button", id: "cancel-knock", onclick: cancel }, t("common.cancel")))]);
  if (chosen) choose(chosen);
  return panel;
}

/**
 * Which of the defender's cards fit which knocker meld now, from the server's
 * `layoff_targets` ([{meld, fourth, low, high}], run ends nearest card first): a set's fourth
 * card, or the next card of a run end once every card before it is laid off.
 */
export class LayoffFits {
  constructor(targets) {
    this.targets = targets || [];
  }

  /** The meld numbers `card` may go onto, given the `layoffs` made so far ([{card, meld}]). */
  meldsFor(card, layoffs) {
    const laid = new Set(layoffs.map((l) => `${l.card}@${l.meld}`));
    const out = [];
    for (const target of this.targets) {
      const on = (c) => laid.has(`${c}@${target.meld}`);
      const next = (chain) => chain.find((c) => !on(c));
      if (target.fourth === card && !on(card)) out.push(target.meld);
      else if (next(target.low) === card || next(target.high) === card) out.push(target.meld);
    }
    return out;
  }

  /** The layoffs that depend on `card` on `meld` (further out on the same run end), itself first. */
  dependants(card, meld, layoffs) {
    const target = this.targets.find((tg) => tg.meld === meld);
    const chain = target ? [target.low, target.high].find((c) => c.includes(card)) : null;
    const beyond = chain ? new Set(chain.slice(chain.indexOf(card))) : new Set([card]);
    return layoffs.filter((l) => l.meld === meld && beyond.has(l.card));
  }
}

/** "T♥, J♥ and K♥" in the page's language. */
function cardList(cards) {
  const texts = cards.map(cardText);
  try {
    return new Intl.ListFormat(language(), { type: "conjunction" }).format(texts);
  } catch {
    return texts.join(", ");
  }
}

/** The engine's best layoff, explained: what it lays off and the deadwood before and after. */
export function bestLayoffText(hints) {
  if (!hints || !hints.defence) return "";
  const best = parseAction(hints.defence);
  const before = hints.deadwood;
  const after = hints.defence_deadwood ?? before;
  if (!best.layoffs.length) return t("layoff.best_none", { points: after });
  return t("layoff.best", { cards: cardList(best.layoffs.map((l) => l.card)), before, after });
}

/**
 * The defender's layoff sheet. `proposal` (the engine's best defence, a `layoff` action) is
 * laid out to start with; `hints` gives the fits and the explanation; `laidOff` what earlier
 * defenders added to each knocker meld; `send(actionText)` lays down.
 */
export function layoffPanel({ proposal, hand, knock, hints = null, laidOff = [], send }) {
  const start = parseAction(proposal || "layoff");
  const fits = new LayoffFits(hints && hints.layoff_targets);
  const panel = el("section", { class: "panel layoff-panel arrange-sheet", id: "layoff-panel", "aria-labelledby": "layoff-title" });
  const board = el("div", { class: "layoff-board" });
  let melds = [];
  let layoffs = [];
  let picked = null; // the card chosen to lay off (tap the card, then a meld)
  let focusNext = null; // where the keyboard focus goes after the next render (a selector)

  const free = () => {
    const used = new Set([...melds.flat(), ...layoffs.map((l) => l.card)]);
    return sortCards(hand.filter((c) => !used.has(c)), "suit");
  };
  const layOff = (card, meld) => {
    if (!fits.meldsFor(card, layoffs).includes(meld)) return;
    layoffs.push({ card, meld });
    picked = null;
    focusNext = "#layoff-cards .offer-card, #confirm-layoff";
    render();
  };
  const takeBack = (card, meld) => {
    const gone = new Set(fits.dependants(card, meld, layoffs));
    layoffs = layoffs.filter((l) => !gone.has(l));
    focusNext = `#layoff-cards .offer-card[data-card="${card}"], #confirm-layoff`;
    render();
  };
  const reset = () => {
    melds = start.melds.map((m) => [...m]);
    layoffs = start.layoffs.map((l) => ({ ...l }));
    picked = null;
    render();
  };

  const meldRow = (meld, index) => {
    const n = index + 1;
    const mine = layoffs.filter((l) => l.meld === n);
    const canTake = picked !== null && fits.meldsFor(picked, layoffs).includes(n);
    const target = el("button", {
      type: "button", class: `meld-target${canTake ? " can-take" : ""}`, id: `layoff-meld-${n}`,
      dataset: { meld: String(n) }, disabled: picked !== null && !canTake,
      "aria-label": canTake ? t("layoff.meld_take", { n, card: cardText(picked) }) : t("layoff.meld_label", { n }),
      onclick: () => { if (picked !== null) layOff(picked, n); },
    },
    el("span", { class: "meld-number", "aria-hidden": "true" }, String(n)),
    meldWithAdded(meld, (laidOff || [])[index] || []).map(({ card, added }) =>
      cardElement(card, { class: added ? "mini laid-before" : "mini" })));
    return el("li", { class: "layoff-meld", dataset: { meld: String(n) } }, target,
      mine.map((l) => el("button", {
        type: "button", class: "take-back", dataset: { card: l.card },
        "aria-label": t("layoff.take_back", { card: cardText(l.card), n }), title: t("layoff.take_back", { card: cardText(l.card), n }),
        onclick: () => takeBack(l.card, n),
      }, cardElement(l.card, { class: "mini laid-mine" }))));
  };

  const cardButton = (code) => {
    const targets = fits.meldsFor(code, layoffs);
    if (!targets.length) {
      return el("span", { class: "kept-card" }, cardElement(code, { class: "kept" }),
        el("span", { class: "kept-label" }, t("layoff.kept")));
    }
    const button = el("button", {
      type: "button", class: `offer-card${picked === code ? " picked" : ""}`, dataset: { card: code },
      "aria-pressed": picked === code ? "true" : "false",
      "aria-label": t("layoff.offer", { card: cardText(code), melds: targets.join(", ") }),
    }, cardElement(code, { class: "playable" }));
    attachDrag(button, code, (meld) => layOff(code, meld), () => {
      picked = picked === code ? null : code;
      focusNext = picked ? "#knocker-melds .meld-target.can-take" : `#layoff-cards .offer-card[data-card="${code}"]`;
      render();
    });
    return button;
  };

  const render = () => {
    // a re-render keeps the keyboard focus in the sheet: on the element the step calls for
    const hadFocus = panel.contains(document.activeElement);
    const deadwood = points(free());
    const own = melds.map((meld, index) => el("div", { class: "meld-group" },
      meld.map((c) => cardElement(c, { class: "mini" })),
      el("button", { type: "button", class: "small", "aria-label": t("arrange.break_meld"), title: t("arrange.break_meld"),
        onclick: () => { melds.splice(index, 1); picked = null; render(); } }, "×")));
    const isBest = proposalText() === (proposal || "layoff");
    replaceChildren(board,
      el("h4", {}, t("arrange.knocker_melds")),
      el("ol", { class: "knocker-melds", id: "knocker-melds" }, knock.melds.map(meldRow)),
      el("div", { class: "layoff-own" },
        own.length ? el("div", { class: "layoff-own-melds" }, el("span", { class: "group-label" }, t("arrange.your_melds")), own) : null,
        el("div", { class: "layoff-cards", id: "layoff-cards" },
          el("span", { class: "group-label" }, picked ? t("layoff.pick_meld", { card: cardText(picked) }) : t("layoff.your_cards")),
          free().map(cardButton))),
      el("p", { class: "layoff-now", id: "layoff-deadwood" }, t("layoff.deadwood_now", { points: deadwood })),
      el("div", { class: "actions sheet-actions" },
        el("button", { type: "button", class: "primary", id: "confirm-layoff", onclick: () => send(proposalText()) },
          keyHint(t("action.confirm_layoff"))),
        isBest ? null : el("button", { type: "button", id: "layoff-best", onclick: reset }, t("layoff.use_best"))));
    if (hadFocus && focusNext) board.querySelector(focusNext)?.focus();
    focusNext = null;
  };
  const proposalText = () => {
    const parts = [...melds.map(meldText), ...layoffs.map((l) => `${l.card}@${l.meld}`)];
    return ["layoff", ...parts].join(" ");
  };

  const explanation = bestLayoffText(hints);
  append(panel, [
    el("h3", { id: "layoff-title" }, t("arrange.layoff_title")),
    explanation ? el("p", { class: "layoff-best", id: "layoff-explain" }, explanation) : null,
    board]);
  reset();
  return panel;
}

/**
 * Tap or drag a card onto a knocker meld (pointer events: mouse, pen and touch). A tap calls
 * `onTap()`; a drag released over a meld calls `onDrop(meldNumber)`.
 */
function attachDrag(node, code, onDrop, onTap) {
  let start = null;
  let ghost = null;
  const meldAt = (event) => {
    for (const row of document.querySelectorAll("#layoff-panel .layoff-meld")) {
      const box = row.getBoundingClientRect();
      if (event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom) {
        return Number(row.dataset.meld);
      }
    }
    return null;
  };
  node.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    start = { x: event.clientX, y: event.clientY };
    node.setPointerCapture?.(event.pointerId);
  });
  node.addEventListener("pointermove", (event) => {
    if (!start) return;
    if (!ghost && Math.hypot(event.clientX - start.x, event.clientY - start.y) > 8) {
      ghost = node.querySelector(".card").cloneNode(true);
      ghost.classList.add("drag-ghost");
      document.body.append(ghost);
      node.classList.add("dragging");
    }
    if (ghost) {
      ghost.style.left = `${event.clientX}px`;
      ghost.style.top = `${event.clientY}px`;
      const over = meldAt(event);
      for (const row of document.querySelectorAll("#layoff-panel .layoff-meld")) {
        row.classList.toggle("drop-hover", Number(row.dataset.meld) === over);
      }
    }
  });
  const finish = (event, cancelled) => {
    if (!start) return;
    const dragged = Boolean(ghost);
    ghost?.remove();
    ghost = null;
    start = null;
    node.classList.remove("dragging");
    for (const row of document.querySelectorAll("#layoff-panel .layoff-meld.drop-hover")) row.classList.remove("drop-hover");
    if (cancelled) return;
    if (!dragged) { onTap(); return; }
    const meld = meldAt(event);
    if (meld !== null) onDrop(meld);
  };
  node.addEventListener("pointerup", (event) => finish(event, false));
  node.addEventListener("pointercancel", (event) => finish(event, true));
  // a keyboard press (Enter, Space) clicks without pointer events
  node.addEventListener("click", (event) => { if (event.detail === 0) onTap(); });
}

/**
 * A meld with the cards laid off onto it, in the order they sit on the table: a run (one suit)
 * in rank order, a laid-off card at the end it extends; a set's fourth card after it.
 * [{card, added}], `added` true for a laid-off card.
 */
export function meldWithAdded(meld, added) {
  const all = [...meld.map((card) => ({ card, added: false })), ...added.map((card) => ({ card, added: true }))];
  const run = new Set(meld.map((c) => c[1])).size === 1 && meld.length > 1;
  return run ? all.sort((a, b) => sortKey(a.card, "suit") - sortKey(b.card, "suit")) : all;
}

/**
 * The knocker's melds numbered as in the layoff step, each with the cards the defenders laid
 * off onto it so far (`view.defences`) placed where they fit: at the reveal, and on the
 * knocker's seat while the defenders lay off (R4.8: public once the knock is laid down).
 */
export function numberedKnockerMelds(view) {
  const knock = view.knock;
  const onto = knock.melds.map(() => []);
  for (const defence of view.defences || []) {
    for (const [card, index] of defence.layoffs || []) onto[index]?.push(card);
  }
  return knock.melds.map((meld, index) => el("span", { class: "meld-group numbered", dataset: { meld: String(index + 1) } },
    el("span", { class: "meld-number", "aria-hidden": "true" }, String(index + 1)),
    meldWithAdded(meld, onto[index]).map(({ card, added }) => cardElement(card, { class: added ? "mini laid-on" : "mini" }))));
}

/** What the knocker laid down, shown on its seat during the layoffs: its melds (with what the
 * defenders have laid off so far), its deadwood cards and their count. */
export function knockerShows(view) {
  const knock = view.knock;
  const unmatched = knock.unmatched || [];
  return el("div", { class: "seat-cards knocker-shows", id: "knocker-shows", dataset: { seat: String(knock.knocker) } },
    numberedKnockerMelds(view),
    unmatched.length ? el("span", { class: "deadwood-group" }, el("span", { class: "group-label" }, t("hand.deadwood_cards")),
      unmatched.map((c) => cardElement(c, { class: "mini" }))) : null,
    el("span", { class: "knocker-deadwood", id: "knocker-deadwood" }, t("reveal.deadwood", { points: knock.deadwood })));
}
