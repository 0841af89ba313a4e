// The viewer's own hand: melds grouped and highlighted (from the server's hints), deadwood
// shown, sorted by rank or suit, cards chosen by click or keyboard, discarded by a second
// click, Enter, or a drag onto the discard pile (pointer events: mouse, pen and touch).
// For the keyboard the hand is one tab stop (a roving tabindex): Tab lands on the chosen card
// (else the last one focused, else the first), the arrow keys, Home and End move between the
// cards, and Enter or Space chooses a card, then discards it. The player may put the cards
// in an order of their own (issue 27.9): drag a card along the hand, or Shift and an arrow key
// on the focused card, and the order is kept (below).
import { cardElement, sortCards, sortKey } from "./cards.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";

// ------------------------------------------------------------------ the player's own order
// The player's own order of the hand (issue 27.9): cards dragged to another place (pointer:
// mouse, pen, touch) or moved with Shift and an arrow key keep the order the player gave them,
// across reloads. It is kept in localStorage per table and seat, for the hand being played
// (a new hand starts sorted again); the sort buttons drop it.

const PREFIX = "ginrummy.order.";

function key(tableId, seat) {
  return `${PREFIX}${tableId}.${seat}`;
}

/** The stored order for this hand (`handKey` names the hand, e.g. "3:7h"), or null. */
export function storedOrder(tableId, seat, handKey) {
  try {
    const raw = localStorage.getItem(key(tableId, seat));
    const value = raw ? JSON.parse(raw) : null;
    return value && value.hand === handKey && Array.isArray(value.order) ? value.order : null;
  } catch {
    return null;
  }
}

export function saveOrder(tableId, seat, handKey, order) {
  try {
    if (order) localStorage.setItem(key(tableId, seat), JSON.stringify({ hand: handKey, order }));
    else localStorage.removeItem(key(tableId, seat));
  } catch {
    // storage full or disabled: the order lasts until the page is left
  }
}

/**
 * The hand in the player's order: the cards of `order` still held, in that order, then the
 * cards it does not name (the card just drawn) at the right end, in `fallback`'s order.
 */
export function applyOrder(order, hand, fallback) {
  const held = new Set(hand);
  const kept = order.filter((c) => held.has(c));
  const known = new Set(kept);
  return [...kept, ...fallback.filter((c) => !known.has(c))];
}

/** `cards` with `card` moved to index `to` (counted in the list without it). */
export function moveCard(cards, card, to) {
  const rest = cards.filter((c) => c !== card);
  const index = Math.max(0, Math.min(rest.length, to));
  return [...rest.slice(0, index), card, ...rest.slice(index)];
}

/**
 * Where a card dropped at (x, y) goes among the hand's other `nodes` (the card elements, in
 * order, the dragged one left out): before the first card whose row it is on and whose middle
 * lies right of x, else after the last card of that row. Null when (x, y) is off the hand.
 */
export function dropIndex(handNode, nodes, x, y) {
  const box = handNode.getBoundingClientRect();
  if (x < box.left || x > box.right || y < box.top || y > box.bottom) return null;
  const rects = nodes.map((n) => n.getBoundingClientRect());
  // the row: the cards whose vertical span holds y, else the nearest row
  let rowTop = null;
  let best = Infinity;
  for (const r of rects) {
    const distance = y < r.top ? r.top - y : y > r.bottom ? y - r.bottom : 0;
    if (distance < best - 1) { best = distance; rowTop = r.top; }
  }
  const inRow = rects.map((r, i) => ({ r, i })).filter(({ r }) => rowTop !== null && Math.abs(r.top - rowTop) < r.height / 2);
  if (!inRow.length) return nodes.length;
  for (const { r, i } of inRow) if (x < r.left + r.width / 2) return i;
  return inRow[inRow.length - 1].i + 1;
}

// ------------------------------------------------------------------ the hand
/** Groups of the hand: [{meld: true, cards}, ..., {meld: false, cards: deadwood}]. */
export function groupHand(hand, hints, sortBy) {
  const inMeld = new Set();
  const melds = [];
  for (const meld of (hints && hints.melds) || []) {
    const cards = meld.filter((c) => hand.includes(c) && !inMeld.has(c));
    if (cards.length === meld.length) {
      cards.forEach((c) => inMeld.add(c));
      melds.push(sortCards(cards, "suit"));
    }
  }
  melds.sort((a, b) => sortKey(a[0], sortBy) - sortKey(b[0], sortBy));
  const loose = sortCards(hand.filter((c) => !inMeld.has(c)), sortBy);
  return [...melds.map((cards) => ({ meld: true, cards })), { meld: false, cards: loose }];
}

/**
 * The card this seat has just drawn (from the stock or the discard pile) and not yet
 * discarded, or null: the last entry of the seat's own log is its draw, and the card (named
 * by that entry for a stock draw, which only the seat's own log does; `taken` for the pile)
 * is still in its hand. Only the viewer's own
 * cards are ever named: another seat's entries are not looked at.
 */
export function drawnCard(view) {
  if (!view || view.seat === null || view.seat === undefined) return null;
  const log = view.log || [];
  const last = log[log.length - 1];
  if (!last || last.seat !== view.seat) return null;
  const kind = String(last.action || "").split(" ")[0];
  // a stock draw names its card in the seat's own log; a card taken from the pile is `taken`
  const card = kind === "stock" ? last.card : kind === "take" ? view.taken : null;
  return card && (view.hand || []).includes(card) ? card : null;
}

/** The card that holds the hand's one tab stop: the chosen one, else `focusCard`, else the first. */
export function tabStop(order, selected, focusCard) {
  if (selected && order.includes(selected)) return selected;
  if (focusCard && order.includes(focusCard)) return focusCard;
  return order[0] || null;
}

/**
 * Render the hand. `options`: {hand, hints, sortBy, discardable: Set, selected, taken,
 * drawn (the card just drawn, marked until the discard), focusCard (the card last focused),
 * order (the player's own order of the hand, as storedOrder gives it, or null), pending (a discard
 * waiting out its take-back time: shown leaving, no longer chosen), onSelect(card),
 * onDiscard(card), onFocus(card), onReorder(cards, movedCard), dropTarget: () => Element|null}
 * With an order of its own the hand is one group in that order, its melds' cards marked.
 */
export function renderHand(options) {
  const { hand, hints, sortBy, discardable, selected, taken, drawn, pending } = options;
  const sorted = groupHand(hand, hints, sortBy);
  const inMeld = new Set(sorted.filter((g) => g.meld).flatMap((g) => g.cards));
  const groups = options.order
    ? [{ meld: false, own: true, cards: applyOrder(options.order, hand, sorted.flatMap((g) => g.cards)) }]
    : sorted;
  const stop = tabStop(groups.flatMap((g) => g.cards), selected, options.focusCard);
  const container = el("div", { class: "hand", id: "my-hand", role: "listbox", "aria-label": t("hand.label"),
    dataset: { order: options.order ? "own" : sortBy } });
  container.addEventListener("keydown", (event) => handKey(event, container, options));
  for (const group of groups) {
    if (group.cards.length === 0) continue;
    const box = el("div", { class: group.own ? "own-order-group" : group.meld ? "meld-group" : "deadwood-group" },
      el("span", { class: "group-label" }, group.own ? t("hand.own_order") : group.meld ? t("hand.meld") : t("hand.deadwood_cards")));
    for (const code of group.cards) {
      const can = discardable.has(code) && code !== pending;
      const card = cardElement(code, {
        class: [can ? "playable" : "", code === selected ? "selected" : "", code === taken ? "taken" : "",
          inMeld.has(code) ? "in-meld" : "", code === drawn ? "drawn" : "", code === pending ? "pending-discard" : ""]
          .filter(Boolean).join(" "),
        role: "option",
        tabindex: code === stop ? "0" : "-1",
        "aria-selected": code === selected ? "true" : "false",
        "aria-disabled": can ? null : "true",
      });
      if (code === drawn) {
        card.dataset.drawn = "true";
        card.setAttribute("aria-label", t("hand.drawn_card", { card: card.getAttribute("aria-label") }));
        card.title = card.getAttribute("aria-label");
      }
      attachPointer(card, code, container, options);
      box.append(card);
    }
    container.append(box);
  }
  return container;
}

/** The hand's cards in the order shown. */
function shownOrder(container) {
  return [...container.querySelectorAll("[data-card]")].map((n) => n.dataset.card);
}

const STEPS = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };

/** The hand's keys: arrows, Home and End move the focus (choosing a card that may be
 * discarded, as a click would), Enter or Space chooses the focused card, then discards it. */
function handKey(event, container, options) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const card = event.target.closest?.("[data-card]");
  if (!card || !container.contains(card)) return;
  const cards = [...container.querySelectorAll("[data-card]")];
  const index = cards.indexOf(card);
  if (event.shiftKey && (event.key === "ArrowLeft" || event.key === "ArrowRight")) {
    // Shift and an arrow move the focused card one place (the player's own order)
    event.preventDefault();
    const to = index + (event.key === "ArrowLeft" ? -1 : 1);
    if (to >= 0 && to < cards.length) options.onReorder?.(moveCard(shownOrder(container), card.dataset.card, to), card.dataset.card);
    return;
  }
  let next = null;
  if (event.key in STEPS) next = cards[(index + STEPS[event.key] + cards.length) % cards.length];
  else if (event.key === "Home") next = cards[0];
  else if (event.key === "End") next = cards[cards.length - 1];
  if (next) {
    event.preventDefault();
    for (const other of cards) other.tabIndex = other === next ? 0 : -1;
    next.focus();
    const code = next.dataset.card;
    options.onFocus?.(code);
    if (options.discardable.has(code) && options.selected !== code) options.onSelect(code);
    return;
  }
  if (event.key !== "Enter" && event.key !== " ") return;
  event.preventDefault();
  const code = card.dataset.card;
  if (!options.discardable.has(code)) return;
  if (options.selected === code) options.onDiscard(code);
  else options.onSelect(code);
}

/** Tap to choose (then discard), drag onto the discard pile to discard, drag along the hand to
 * move the card (pointer events: mouse, pen and touch). Every card may be moved, at any time;
 * only the cards the rules let go may be chosen or discarded. */
function attachPointer(node, code, container, options) {
  let start = null;
  let ghost = null;
  const threshold = 8;
  const can = () => options.discardable.has(code) && code !== options.pending;
  node.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || code === options.pending) return;
    start = { x: event.clientX, y: event.clientY };
    node.setPointerCapture?.(event.pointerId);
  });
  node.addEventListener("pointermove", (event) => {
    if (!start) return;
    const dx = event.clientX - start.x;
    const dy = event.clientY - start.y;
    if (!ghost && Math.hypot(dx, dy) > threshold) {
      ghost = node.cloneNode(true);
      ghost.classList.add("drag-ghost");
      ghost.removeAttribute("id");
      document.body.append(ghost);
      node.classList.add("dragging");
    }
    if (ghost) {
      ghost.style.left = `${event.clientX}px`;
      ghost.style.top = `${event.clientY}px`;
      const target = options.dropTarget();
      if (target) target.classList.toggle("drop-hover", can() && isOver(target, event));
    }
  });
  const finish = (event, cancelled) => {
    if (!start) return;
    const dragged = Boolean(ghost);
    const target = options.dropTarget();
    if (ghost) ghost.remove();
    ghost = null;
    start = null;
    node.classList.remove("dragging");
    if (target) target.classList.remove("drop-hover");
    if (cancelled) return;
    if (dragged) {
      if (target && isOver(target, event)) {
        if (can()) options.onDiscard(code);
        return;
      }
      const others = [...container.querySelectorAll("[data-card]")].filter((n) => n !== node);
      const to = dropIndex(container, others, event.clientX, event.clientY);
      if (to !== null && options.onReorder) {
        const order = moveCard(shownOrder(container), code, to);
        if (order.join() !== shownOrder(container).join()) options.onReorder(order, code);
      }
    } else if (!can()) {
      // a tap on a card that may not go now: nothing
    } else if (options.selected === code) {
      options.onDiscard(code);
    } else {
      options.onSelect(code);
    }
  };
  node.addEventListener("pointerup", (event) => finish(event, false));
  node.addEventListener("pointercancel", (event) => finish(event, true));
}

function isOver(target, event) {
  const box = target.getBoundingClientRect();
  return event.clientX >= box.left && event.clientX <= box.right
    && event.clientY >= box.top && event.clientY <= box.bottom;
}
