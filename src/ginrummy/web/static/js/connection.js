// One table's WebSocket (docs/protocol.md, "WebSocket: play"): hello, actions with ids and
// acknowledgements, automatic reconnection with exponential backoff and resending of
// unacknowledged actions under the same id (the server plays each id once), and protocol 3's
// deltas applied to the last state (a delta that does not apply asks for a resync).

import { DELTA_PROTOCOL, PROTOCOL, chosenProtocol, tableHello } from "./prefs.js";

export { DELTA_PROTOCOL, PROTOCOL, chosenProtocol };

/**
 * The state after a protocol-3 delta (docs/protocol.md, "delta"): the port of
 * ginrummy.server.core.delta.apply_delta. Returns null when the delta does not apply to
 * `state` (another base, or a change that does not fit): the caller asks for a resync.
 * `state` is left unchanged.
 */
export function applyDelta(state, delta) {
  if (!state || typeof delta.version !== "number") return null;
  const base = "base" in delta ? delta.base : delta.version - 1; // left out when version - 1
  if (base !== state.version) return null;
  try {
    const next = { ...state, version: delta.version };
    delete next.ack;
    let table = state.table;
    if (delta.table !== undefined) table = patched(table, delta.table);
    next.table = { ...table, version: delta.version };
    let view = state.view;
    if ("view" in delta) {
      const patch = delta.view;
      if (patch === null || view === null) {
        if (patch !== null && !isObject(patch)) return null;
        view = patch;
      } else {
        view = followHand(view, patch, patched(view, patch));
      }
    }
    next.view = view;
    for (const [path, value] of Object.entries(delta)) {
      if (DELTA_OWN.has(path)) continue;
      change(next, path, path === "legal" && isObject(value) ? longLegal(value, view) : value);
    }
    return next;
  } catch (error) {
    if (error instanceof DeltaMismatch) return null;
    throw error;
  }
}

/**
 * What a delta changed, by place: "view" (the whole view, or none), "view.<field>" for a
 * field of the view ("view.seats.1" for one seat's entry), "table", and the state's own
 * fields ("legal", "hints", ...). The page redraws only the parts these name.
 */
export function deltaChanges(delta) {
  const changed = new Set();
  for (const path of Object.keys(delta)) {
    if (DELTA_OWN.has(path) && path !== "view" && path !== "table") continue;
    if (path === "view" && isObject(delta.view) && !("ruleset" in delta.view)) {
      for (const inner of Object.keys(delta.view)) {
        const [field, index] = inner.replace(/~$/, "").split(".");
        changed.add(field === "seats" && index !== undefined ? `view.seats.${index}` : `view.${field}`);
      }
    } else {
      changed.add(path.replace(/~$/, "").split(".")[0]);
    }
  }
  return changed;
}

class DeltaMismatch extends Error {}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

function patched(target, patch) {
  if (!isObject(target) || !isObject(patch)) throw new DeltaMismatch("not an object");
  const result = { ...target };
  for (const [path, value] of Object.entries(patch)) change(result, path, value);
  return result;
}

/** `view` (made of `old` and `patch`) with the viewer's own seat's cards set to its new
 * hand, when the patch changed the hand and said nothing of those cards, which were the hand
 * before: ginrummy.server.core.delta.follow_hand. */
function followHand(old, patch, view) {
  const seat = view.seat;
  if (!Number.isInteger(seat) || !("hand" in patch || "hand~" in patch)) return view;
  if (["seats", `seats.${seat}`, `seats.${seat}.cards`, `seats.${seat}.cards~`].some((path) => path in patch)) return view;
  const seats = view.seats;
  if (!Array.isArray(seats) || seat < 0 || seat >= seats.length || !isObject(seats[seat])) return view;
  if (!isObject(old.seats?.[seat]) || JSON.stringify(old.seats[seat].cards) !== JSON.stringify(old.hand)) return view;
  if (!Array.isArray(view.hand)) throw new DeltaMismatch("the own seat's cards follow no hand");
  const copy = [...seats];
  copy[seat] = { ...seats[seat], cards: [...view.hand] };
  return { ...view, seats: copy };
}

/** Sets (or, for a path ending in "~", splices) `value` at `path` in `root`, copying every
 * object and list on the way (`root` itself is already a copy). */
function change(root, path, value) {
  const keys = path.split(".");
  const splice = keys[keys.length - 1].endsWith("~");
  if (splice) keys[keys.length - 1] = keys[keys.length - 1].slice(0, -1);
  let node = root;
  for (const key of keys.slice(0, -1)) {
    const place = placeOf(node, key, false);
    const child = node[place];
    node[place] = Array.isArray(child) ? [...child] : { ...child };
    node = node[place];
  }
  const last = keys[keys.length - 1];
  if (!splice) {
    node[placeOf(node, last, true)] = value;
    return;
  }
  const place = placeOf(node, last, false);
  const items = node[place];
  if (!Array.isArray(items) || !Array.isArray(value) || value.length < 2
      || !Number.isInteger(value[0]) || !Number.isInteger(value[1])
      || value[0] < 0 || value[0] > items.length || value[1] < 0
      || value[1] > items.length - value[0]) throw new DeltaMismatch(`${path}: a bad splice`);
  const copy = [...items];
  copy.splice(value[0], value[1], ...value.slice(2));
  node[place] = copy;
}

function placeOf(node, key, isNew) {
  if (Array.isArray(node)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= node.length) throw new DeltaMismatch(`no item ${key}`);
    return index;
  }
  if (!isObject(node)) throw new DeltaMismatch(`${key} is inside neither an object nor a list`);
  if (!isNew && !(key in node)) throw new DeltaMismatch(`no ${key}`);
  return key;
}

/** The legal list from its short form (the discards of the new hand, but "except", then
 * "plus"): ginrummy.server.core.delta.long_legal. */
function longLegal(short, view) {
  if (short.discards !== "hand" || !isObject(view) || !Array.isArray(view.hand)) throw new DeltaMismatch("a short legal list needs the view's hand");
  const excluded = new Set(short.except ?? []);
  return [...view.hand.filter((card) => !excluded.has(card)).map((card) => `discard ${card}`), ...(short.plus ?? [])];
}

const DELTA_OWN = new Set(["type", "ack", "base", "version", "table", "view", "seat"]);
const FINAL_CLOSES = new Set([4400, 4401, 4403, 4404, 1008]);

export class TableConnection {
  /**
   * @param {string} tableId
   * @param {{token?: string|null, invite?: string|null}} credentials
   * @param {object} handlers onState(msg, delta), onChat(msg), onNotice(msg), onError(msg), onStatus(status, detail), onAck(msg)
   */
  constructor(tableId, credentials, handlers) {
    this.tableId = tableId;
    this.token = credentials.token || null;
    this.invite = credentials.invite || null;
    this.handlers = handlers;
    this.version = null;
    this.last = null; // the latest state, whole or made from deltas (null: a resync is due)
    this.pending = new Map(); // id -> {id, version, action}
    this.counter = 0;
    this.prefix = Math.random().toString(36).slice(2, 8);
    this.attempt = 0;
    this.closed = false;
    this.socket = null;
    this.retryTimer = null;
    this.pingTimer = null;
    this.ready = false;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`;
  }

  connect() {
    if (this.closed) return;
    this.status("connecting");
    let socket;
    const early = this.earlySocket();
    try {
      socket = early?.socket || new WebSocket(this.url());
    } catch (error) {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    if (!early) { // the early socket's hello is sent by js/app.js, as soon as it opens
      const hello = () => this.send(tableHello(this.token, this.invite, this.version));
      if (socket.readyState === WebSocket.OPEN) hello();
      else socket.addEventListener("open", hello);
    }
    // what the early socket received before this connection took it, in order, then the rest
    for (const { data, at } of early?.received.splice(0) ?? []) this.receive(data, performance.now() - at);
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", (event) => this.closedBy(event));
    socket.addEventListener("error", () => { /* a close event follows */ });
  }

  /** The socket js/app.js opened (and greeted) for this table as the page started, taken
   * once, while it is open or opening and was greeted with this connection's credentials (its
   * handshake, hello and first answers overlapped the modules' download): `{socket, received}`,
   * the messages it received meanwhile with their arrival time; else null. */
  earlySocket() {
    const early = globalThis.ginrummyEarlySocket;
    if (!early || early.tableId !== this.tableId) return null;
    globalThis.ginrummyEarlySocket = null;
    const state = early.socket.readyState;
    const same = early.token === this.token && early.invite === this.invite;
    if (same && (state === WebSocket.OPEN || state === WebSocket.CONNECTING)) return early.take();
    early.socket.close(1000, "unused");
    return null;
  }

  /** A message from the server; `late`: how long ago it arrived, in ms (one the early socket
   * held until this connection took it), so that a turn clock it carries is not drawn with
   * that much more time than the server gives. */
  receive(raw, late = 0) {
    let msg;
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    switch (msg.type) {
      case "welcome":
        this.attempt = 0;
        this.ready = true;
        this.seat = msg.seat;
        this.status("online");
        this.startPing();
        this.resendPending();
        break;
      case "delta": { // protocol 3: what changed since the last state or delta
        const next = applyDelta(this.last, msg);
        if (next === null) { // a gap (or a delta before any state): start again from a state
          if (this.last !== null) this.resync();
          this.last = null;
          break;
        }
        this.takeState(next, msg.ack, msg, late);
        break;
      }
      case "state":
        this.takeState(msg, msg.ack, null, late);
        break;
      case "ack": // an action sent again (after a reconnection) that was already committed
        this.pending.delete(msg.id);
        this.handlers.onAck?.(msg);
        break;
      case "error":
        if (msg.id) this.pending.delete(msg.id);
        this.handlers.onError?.(msg);
        break;
      case "chat":
        this.handlers.onChat?.(msg);
        break;
      case "notice": // a moderator's notice to every connected player
        this.handlers.onNotice?.(msg);
        break;
      default:
        break; // pong and anything newer: ignored
    }
  }

  /** A whole state (received, or made from `delta`): acknowledge, then hand a copy on (the
   * page may change what it gets; the next delta applies to this connection's own), with
   * the delta it was made from (null for a whole state), so the page redraws only what the
   * delta changed. */
  takeState(state, ack, delta, late = 0) {
    this.last = state;
    this.version = state.version;
    if (ack) {
      // the message that follows this connection's action acknowledges it (committed)
      this.pending.delete(ack);
      this.handlers.onAck?.({ type: "ack", id: ack, version: state.version });
    }
    const copy = ack ? { ...structuredClone(state), ack } : structuredClone(state);
    if (late > 0 && copy.clock && Number.isFinite(copy.clock.remaining_ms)) {
      copy.clock.remaining_ms = Math.max(0, copy.clock.remaining_ms - late);
    }
    this.handlers.onState?.(copy, delta);
  }

  closedBy(event) {
    this.ready = false;
    this.stopPing();
    if (this.closed) return;
    if (FINAL_CLOSES.has(event.code)) {
      this.closed = true;
      this.status("closed", { code: event.code, reason: event.reason });
      return;
    }
    this.scheduleReconnect();
  }

  scheduleReconnect() {
    const delay = Math.min(10000, 500 * 2 ** this.attempt);
    this.attempt += 1;
    this.status("reconnecting", { delay });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => this.send({ type: "ping" }), 25000);
  }

  stopPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  status(status, detail = {}) {
    this.handlers.onStatus?.(status, detail);
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** Send an action in notation; it is resent with the same id after a reconnect until acknowledged. */
  act(action) {
    this.counter += 1;
    const entry = { type: "action", id: `${this.prefix}-${this.counter}`, version: this.version, action };
    this.pending.set(entry.id, entry);
    if (this.ready) this.send(entry);
    return entry.id;
  }

  resendPending() {
    for (const entry of this.pending.values()) this.send(entry);
  }

  chat(text) {
    return this.send({ type: "chat", text });
  }

  mute(seat, muted) {
    return this.send({ type: "mute", seat, muted });
  }

  rematch() {
    return this.send({ type: "rematch" });
  }

  /** Ready for the next hand (the server deals when every person is ready, or after a wait). */
  next() {
    return this.send({ type: "next" });
  }

  resync() {
    return this.send({ type: "resync" });
  }

  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.stopPing();
    if (this.socket) this.socket.close(1000, "bye");
  }
}
