// Small DOM helpers. User-provided text only ever goes through textContent (never innerHTML).

/**
 * Create an element: el("button", {class: "x", onclick: f, dataset: {card: "7h"}}, "text", child)
 * Strings among the children become text nodes; null/false children are skipped.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style") Object.assign(node.style, value);
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

/** Append children (strings become text nodes, arrays are flattened). */
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" || typeof child === "number"
      ? document.createTextNode(String(child)) : child);
  }
  return node;
}

/** Remove every child of a node. */
export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** Replace a node's children. */
export function replaceChildren(node, ...children) {
  clear(node);
  return append(node, children);
}

// ------------------------------------------------------------------ focus
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

// ------------------------------------------------------------------ toasts (formerly js/toast.js)
// Short messages at the bottom of the screen (text only).
export function toast(text, kind = "info", ms = 5000) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const item = el("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
  box.append(item);
  setTimeout(() => item.remove(), ms);
}
