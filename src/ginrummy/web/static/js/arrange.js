// Knock and layoff arrangements: the server's proposal, shown and changeable before it is sent.
import { cardElement, isMeld, meldText, parseAction, points, sortCards, cardText } from "./cards.js";
import { el, replaceChildren } from "./dom.js";
import { t } from "./i18n.js";

/**
 * An editable arrangement of `cards` into melds (and, for a defender, layoffs onto the
 * knocker's melds). Changing it never needs secret information: the cards are the viewer's.
 */
export class ArrangementEditor {
  constructor({ cards, melds, layoffs = [], targets = null, onChange = () => {} }) {
    this.cards = cards;
    this.melds = melds.map((m) => [...m]);
    this.layoffs = layoffs.map((l) => ({ ...l }));
    this.targets = targets; // knocker's melds (layoff mode) or null
    this.selection = new Set();
    this.onChange = onChange;
    this.root = el("div", { class: "arrangement" });
  }

  free() {
    const used = new Set([...this.melds.flat(), ...this.layoffs.map((l) => l.card)]);
    return sortCards(this.cards.filter((c) => !used.has(c)), "suit");
  }

  deadwood() {
    return points(this.free());
  }

  text() {
    const melds = this.melds.map(meldText).join(" ");
    const layoffs = this.layoffs.map((l) => `${l.card}@${l.meld}`).join(" ");
    return [melds, layoffs].filter(Boolean).join(" ");
  }

  render() {
    const meldBoxes = this.melds.map((meld, index) => el("div", { class: "meld-group" },
      meld.map((c) => cardElement(c)),
      el("button", { type: "button", class: "small", "aria-label": t("arrange.break_meld"), title: t("arrange.break_meld"),
        onclick: () => { this.melds.splice(index, 1); this.changed(); } }, "×")));
    const layoffBoxes = this.layoffs.map((l, index) => el("div", { class: "layoff-item" },
      cardElement(l.card), el("span", {}, t("arrange.onto_meld", { n: l.meld })),
      el("button", { type: "button", class: "small", "aria-label": t("arrange.undo_layoff"), title: t("arrange.undo_layoff"),
        onclick: () => { this.layoffs.splice(index, 1); this.changed(); } }, "×")));
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
      if (!this.targets) return card;
      const select = el("select", { class: "layoff-target", "aria-label": t("arrange.lay_off_card", { card: cardText(code) }),
        onchange: (e) => {
          if (e.target.value) { this.layoffs.push({ card: code, meld: Number(e.target.value) }); this.changed(); }
        } },
      el("option", { value: "" }, t("arrange.keep")),
      this.targets.map((_, i) => el("option", { value: i + 1 }, t("arrange.onto_meld", { n: i + 1 }))));
      return el("span", { class: "free-card" }, card, select);
    });
    const selected = [...this.selection];
    const canMeld = isMeld(selected);
    replaceChildren(this.root,
      el("div", { class: "arrangement-melds" }, el("h4", {}, t("arrange.your_melds")),
        meldBoxes.length ? meldBoxes : el("p", { class: "muted" }, t("arrange.no_melds"))),
      this.targets ? el("div", { class: "arrangement-layoffs" }, el("h4", {}, t("arrange.layoffs")),
        layoffBoxes.length ? layoffBoxes : el("p", { class: "muted" }, t("arrange.no_layoffs"))) : null,
      el("div", { class: "arrangement-free" }, el("h4", {}, t("arrange.deadwood", { points: this.deadwood() })),
        el("div", { class: "free-cards" }, free),
        el("button", { type: "button", disabled: !canMeld, class: "make-meld",
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

/** Knock options from the legal list: [{action, kind, discard, melds, deadwood}]. */
export function knockOptions(legal, hand) {
  return legal.filter((a) => a.startsWith("knock") || a.startsWith("gin")).map((action) => {
    const parsed = parseAction(action);
    const melded = new Set(parsed.melds.flat());
    const rest = hand.filter((c) => c !== parsed.card && !melded.has(c));
    return { action, kind: parsed.kind, discard: parsed.card, melds: parsed.melds, deadwood: points(rest) };
  });
}

/**
 * The knock panel: pick the discard among the legal knocks, see the proposed melds, change them,
 * confirm. `send(actionText)` sends it; `cancel()` closes the panel.
 */
export function knockPanel({ legal, hand, wantGin, knockLimit, send, cancel }) {
  const options = knockOptions(legal, hand).filter((o) => !wantGin || o.kind === "gin");
  const panel = el("section", { class: "panel knock-panel", id: "knock-panel", "aria-labelledby": "knock-title" });
  let chosen = options[0];
  let editor = null;
  const summary = el("p", { class: "knock-summary" });
  const confirm = el("button", { type: "button", class: "primary", id: "confirm-knock" });
  const update = () => {
    const deadwood = editor.deadwood();
    const gin = deadwood === 0;
    summary.textContent = t("arrange.knock_summary", { points: deadwood, limit: knockLimit });
    confirm.textContent = gin ? t("action.confirm_gin") : t("action.confirm_knock");
    confirm.disabled = deadwood > knockLimit;
  };
  const choose = (option) => {
    chosen = option;
    const cards = hand.filter((c) => c !== option.discard);
    editor = new ArrangementEditor({ cards, melds: option.melds, onChange: update });
    replaceChildren(editorSlot, editor.render());
    update();
  };
  const editorSlot = el("div");
  const choices = el("div", { class: "knock-choices", role: "radiogroup", "aria-label": t("arrange.discard_choice") },
    options.map((option, index) => el("label", { class: "choice" },
      el("input", { type: "radio", name: "knock-discard", value: index, checked: index === 0,
        onchange: () => choose(option) }),
      option.discard ? [t("arrange.discard_card"), " ", cardElement(option.discard, { class: "mini" })] : t("arrange.big_gin"),
      " ", t("arrange.deadwood", { points: option.deadwood }))));
  confirm.addEventListener("click", () => {
    const kind = editor.deadwood() === 0 && legal.some((a) => a.startsWith("gin")) ? "gin" : "knock";
    const head = chosen.discard ? `${kind} ${chosen.discard}` : "gin";
    send(`${head} ${editor.text()}`.trim());
  });
  panel.append(
    el("h3", { id: "knock-title" }, wantGin ? t("arrange.gin_title") : t("arrange.knock_title")),
    choices, editorSlot, summary,
    el("div", { class: "actions" }, confirm,
      el("button", { type: "button", onclick: () => choose(chosen) }, t("arrange.reset")),
      el("button", { type: "button", onclick: cancel }, t("common.cancel"))));
  if (chosen) choose(chosen);
  return panel;
}

/** The defender's layoff panel: the proposed defence, adjustable, then confirmed. */
export function layoffPanel({ proposal, hand, knock, send }) {
  const parsed = parseAction(proposal || "layoff");
  const panel = el("section", { class: "panel layoff-panel", id: "layoff-panel", "aria-labelledby": "layoff-title" });
  let editor;
  const editorSlot = el("div");
  const reset = () => {
    editor = new ArrangementEditor({ cards: hand, melds: parsed.melds, layoffs: parsed.layoffs, targets: knock.melds });
    replaceChildren(editorSlot, editor.render());
  };
  const targets = el("ol", { class: "knocker-melds" }, knock.melds.map((m) => el("li", {}, m.map((c) => cardElement(c, { class: "mini" })))));
  panel.append(
    el("h3", { id: "layoff-title" }, t("arrange.layoff_title")),
    el("p", {}, t("arrange.layoff_help")),
    el("h4", {}, t("arrange.knocker_melds")), targets,
    editorSlot,
    el("div", { class: "actions" },
      el("button", { type: "button", class: "primary", id: "confirm-layoff", onclick: () => send(`layoff ${editor.text()}`.trim()) },
        t("action.confirm_layoff")),
      el("button", { type: "button", onclick: reset }, t("arrange.reset"))));
  reset();
  return panel;
}
