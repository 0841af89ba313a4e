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
