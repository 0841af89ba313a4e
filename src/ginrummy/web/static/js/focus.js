// Keyboard focus kept across the table's re-renders: render() rebuilds its regions with
// replaceChildren, which drops the focus; the element that had it (the same node when it was
// kept, else the one with the same id, card or action) gets it back.

const FOCUSABLE = "button, input, select, textarea, a[href], [tabindex]";

/** What had the focus inside `root` before a re-render (null when nothing there had it). */
export function rememberFocus(root) {
  const node = document.activeElement;
  if (!root || !node || node === document.body || !root.contains(node)) return null;
  return {
    node,
    id: node.id || null,
    card: node.dataset ? node.dataset.card || null : null,
    action: node.dataset ? node.dataset.action || null : null,
    inHand: Boolean(node.closest("#my-hand")),
  };
}

function usable(node) {
  return Boolean(node && node.isConnected && node.matches(FOCUSABLE) && !node.disabled
    && !node.closest("[hidden], [inert]") && node.getClientRects().length > 0);
}

/** The element that stands for `saved` after the re-render, or null. */
export function focusTarget(saved, root) {
  if (usable(saved.node)) return saved.node;
  const candidates = [];
  if (saved.id) candidates.push(document.getElementById(saved.id));
  if (saved.card) {
    const scope = saved.inHand ? root.querySelector("#my-hand") : root;
    candidates.push(scope && scope.querySelector(`[data-card="${CSS.escape(saved.card)}"]`));
  }
  if (saved.action) candidates.push(root.querySelector(`[data-action="${CSS.escape(saved.action)}"]`));
  // a card that left the hand (discarded), or a control that went (the stock once drawn):
  // the hand's tab stop, so that a keyboard player stays at the table; once the hand is over
  // (no hand left to play), its Next hand button
  candidates.push(root.querySelector('#my-hand [tabindex="0"]'), root.querySelector("#next-hand"));
  return candidates.find((node) => usable(node) && root.contains(node)) || null;
}

/** Gives the focus back after a re-render (without scrolling); does nothing when the focus
 * is still where it was, or was never inside `root`. */
export function restoreFocus(saved, root) {
  if (!saved || !root) return;
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected) return;
  focusTarget(saved, root)?.focus({ preventScroll: true });
}
