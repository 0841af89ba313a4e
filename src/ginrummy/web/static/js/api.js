// The lobby's HTTP API (docs/protocol.md, "HTTP: the lobby").

export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field || null;
  }
}

async function request(method, path, body, headers = {}) {
  const options = { method, headers: { Accept: "application/json", ...headers } };
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
    throw new ApiError(response.status, error.code || "http_" + response.status,
      error.message || response.statusText, error.field);
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
    request("GET", `/api/tables/${encodeURIComponent(id)}`, undefined,
      invite ? { "X-Invite": invite } : {}),
  create: (body) => request("POST", "/api/tables", body),
  join: (id, body) => request("POST", `/api/tables/${encodeURIComponent(id)}/join`, body),
};
