// The lobby's HTTP API (docs/protocol.md, "HTTP: the lobby").

export class ApiError extends Error {
  constructor(status, code, message, field, retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field || null;
    this.retryAfter = retryAfter; // seconds to wait (429 with Retry-After), else null
  }
}

const enc = encodeURIComponent;

let inlineAnswers = null;

/** The answer the server put in the page for a first GET of `path` (index.html's
 * `#api-answers`: the rule schema, the presets, the same for every visitor), taken once: a
 * request fewer on the first load (issue 27 point 11); later calls ask the server. */
function inlineAnswer(path) {
  if (inlineAnswers === null) {
    const block = document.getElementById("api-answers");
    try {
      inlineAnswers = block ? JSON.parse(block.textContent) : {};
    } catch {
      inlineAnswers = {};
    }
  }
  const answer = inlineAnswers[path];
  delete inlineAnswers[path];
  return answer;
}

async function request(method, path, body, headers = {}) {
  if (method === "GET") {
    const answer = inlineAnswer(path);
    if (answer !== undefined) return answer;
  }
  // the session is an HttpOnly cookie: the browser sends it, this code never sees it
  const options = { method, credentials: "same-origin", headers: { Accept: "application/json", ...headers } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new ApiError(0, "network", String(error), null);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    const wait = Number(response.headers.get("Retry-After"));
    throw new ApiError(response.status, error.code || "http_" + response.status,
      error.message || response.statusText, error.field,
      Number.isFinite(wait) && wait > 0 ? wait : null);
  }
  return data;
}

export const api = {
  presets: () => request("GET", "/api/presets"),
  bots: () => request("GET", "/api/bots"),
  rulesSchema: () => request("GET", "/api/rules/schema"),
  tables: () => request("GET", "/api/tables"),
  // the invite code goes in a header, never in a URL (logs and proxies keep URLs)
  table: (id, invite) =>
    request("GET", `/api/tables/${enc(id)}`, undefined, invite ? { "X-Invite": invite } : {}),
  // seeds: this client sends a client seed for each hand (js/fair.js): the deal waits for it
  create: (body) => request("POST", "/api/tables", { ...body, seeds: true }),
  join: (id, body) => request("POST", `/api/tables/${enc(id)}/join`, { ...body, seeds: true }),
  leave: (id, token = null) => request("POST", `/api/tables/${enc(id)}/leave`, token ? { token } : {}),
  /** The expert's suggestion for the seat's decision (js/hint.js): a guest's token in the body. */
  hint: (id, token = null) => request("POST", `/api/tables/${enc(id)}/hint`, token ? { token } : {}),
  /** The tutorial's scripted hand (js/tutorial.js). */
  tutorial: () => request("GET", "/api/tutorial"),

  // accounts (the session cookie is set and cleared by the server)
  signup: (name, password) => request("POST", "/api/account/signup", { name, password }),
  login: (name, password) => request("POST", "/api/account/login", { name, password }),
  logout: () => request("POST", "/api/account/logout", {}),
  me: () => request("GET", "/api/account/me"),
  upgrade: (body) => request("POST", "/api/account/upgrade", body),
  /** The seats at tables not over that these seat tokens ([{table_id, token}]) and the
   * logged-in account hold ("Continue your game", js/session.js). */
  openSeats: (tokens) => request("POST", "/api/seats/open", { tokens }),

  // players, ratings, history and replays
  leaderboard: (category) => request("GET", `/api/leaderboard/${enc(category)}`),
  player: (name) => request("GET", `/api/players/${enc(name)}`),
  matches: (name, before) =>
    request("GET", `/api/players/${enc(name)}/matches${before ? `?before=${enc(before)}` : ""}`),
  replay: (id) => request("GET", `/api/matches/${enc(id)}/replay`),
  recordUrl: (id) => `/api/matches/${enc(id)}/record`,

  // chips
  wallet: () => request("GET", "/api/wallet"),
  tournaments: () => request("GET", "/api/tournaments"),
  tournament: (id) => request("GET", `/api/tournaments/${enc(id)}`),
  registerTournament: (id) => request("POST", `/api/tournaments/${enc(id)}/register`, {}),
  withdrawTournament: (id) => request("POST", `/api/tournaments/${enc(id)}/withdraw`, {}),
  topup: () => request("POST", "/api/wallet/topup", {}),

  // friends (docs/friends.md): POST /api/friends/<action> with {name}
  friends: () => request("GET", "/api/friends"),
  friendAct: (action, name) => request("POST", `/api/friends/${enc(action)}`, { name }),
  inviteFriend: (name, tableId, invite) =>
    request("POST", "/api/friends/invite", { name, table_id: tableId, invite: invite || null }),
  answerInvitation: (id, answer) => request("POST", "/api/friends/invitation", { id, answer }),

  // moderation
  report: (body) => request("POST", "/api/reports", body),
  admin: {
    tables: () => request("GET", "/api/admin/tables"),
    log: () => request("GET", "/api/admin/log"),
    reports: () => request("GET", "/api/admin/reports"),
    /** POST /api/admin/<action> (kick, mute, unmute, ban, unban, close, notice). */
    act: (action, body) => request("POST", `/api/admin/${enc(action)}`, body),
    handled: (id) => request("POST", "/api/admin/reports/handled", { id }),
  },
};
