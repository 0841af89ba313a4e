"""The HTTP edge (issue 11): security headers, Origin against the public origins (never the
Host header), JSON only as application/json, bodies refused before they are read, no secret
in the WebSocket URL, /healthz and /readyz."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest
from server_helpers import Client, LiveServer, open_socket
from sqlalchemy import create_engine
from websockets.exceptions import InvalidStatus

from ginrummy.server.core.settings import Settings
from ginrummy.server.http.edge import normal_origin, public_origins
from ginrummy.storage import Repository
from ginrummy.web import STATIC_DIR

SECURITY = {"x-frame-options": "DENY", "x-content-type-options": "nosniff",
            "referrer-policy": "no-referrer"}


def _check_headers(response: httpx.Response) -> None:
    for name, value in SECURITY.items():
        assert response.headers.get(name) == value, (response.url, name)
    csp = response.headers["content-security-policy"]
    directives = {d.split()[0]: d.split()[1:] for d in csp.split("; ")}
    assert directives["script-src"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["object-src"] == ["'none'"]
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp


def test_every_response_has_the_security_headers(server: LiveServer) -> None:
    table = server.create()
    with server.http() as client:
        answers = [client.get(path) for path in (
            "/", "/index.html", "/js/app.js", "/css/app.css", "/api/tables", "/api/presets",
            f"/api/tables/{table['table_id']}", "/api/tables/nothere", "/no/such/file",
            "/api/health", "/healthz", "/readyz")]
        answers.append(client.post("/api/tables", json={"nickname": "Ann"},
                                   headers={"Origin": "http://evil.example"}))
        answers.append(client.post("/api/tables", content="x", headers={
            "Content-Type": "text/plain"}))
    assert {a.status_code for a in answers} == {200, 403, 404, 415}
    for answer in answers:
        _check_headers(answer)
        assert "strict-transport-security" not in answer.headers  # plain HTTP


def test_hsts_only_over_https_from_a_trusted_proxy_or_when_configured(make_server: Any) -> None:
    behind = make_server()  # trusts X-Forwarded-Proto from 127.0.0.1 (uvicorn's default)
    with behind.http() as client:
        proxied = client.get("/healthz", headers={"X-Forwarded-Proto": "https"})
        plain = client.get("/healthz")
    assert proxied.headers["strict-transport-security"].startswith("max-age=")
    assert "strict-transport-security" not in plain.headers
    untrusted = make_server(forwarded_allow_ips="10.9.9.9")
    with untrusted.http() as client:
        spoofed = client.get("/healthz", headers={"X-Forwarded-Proto": "https"})
    assert "strict-transport-security" not in spoofed.headers
    always = make_server(https=True)
    with always.http() as client:
        assert "max-age=" in client.get("/healthz").headers["strict-transport-security"]


class _Inline(HTMLParser):
    """Inline scripts, inline event handlers, inline styles and javascript: URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script":
            self.in_script = True
            if not names.get("src"):
                self.found.append("a script without src")
        if tag == "style":
            self.found.append("a style element")
        for name, value in attrs:
            if name.startswith("on") or name == "style":
                self.found.append(f"{tag} {name}=")
            if value and value.strip().lower().startswith("javascript:"):
                self.found.append(f"{tag} {name}=javascript:")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script and data.strip():
            self.found.append("inline script text")


def test_the_web_client_has_no_inline_script_for_the_csp_to_allow() -> None:
    pages = sorted(STATIC_DIR.rglob("*.html"))
    assert pages
    for page in pages:
        parser = _Inline()
        parser.feed(page.read_text(encoding="utf-8"))
        assert parser.found == [], (page.name, parser.found)
    for script in STATIC_DIR.rglob("*.js"):
        text = script.read_text(encoding="utf-8")
        assert "eval(" not in text and "new Function" not in text, script.name
        assert ".innerHTML" not in text and "setAttribute(\"style\"" not in text, script.name


def test_public_origins_default_to_the_listening_address() -> None:
    assert public_origins(Settings(port=8123)) == {
        "http://127.0.0.1:8123", "http://localhost:8123"}
    assert public_origins(Settings(host="cards.example", port=80)) == {"http://cards.example"}
    assert public_origins(Settings(public_origins=("https://Cards.Example:443/",),
                                   allowed_origins=("http://localhost:5173",))) == {
        "https://cards.example", "http://localhost:5173"}
    assert normal_origin("null") is None and normal_origin("file://x") is None


def test_state_changing_requests_need_a_public_origin(server: LiveServer) -> None:
    base = server.base
    port = base.rsplit(":", 1)[1]
    with httpx.Client(base_url=base, timeout=30, trust_env=False) as client:
        missing = client.post("/api/tables", json={"nickname": "Ann"})
        foreign = client.post("/api/tables", json={"nickname": "Ann"},
                              headers={"Origin": "http://evil.example"})
        # DNS rebinding: the attacker's name resolves to this server, so Host and Origin
        # agree with each other, not with the server's public origin
        rebound = client.post("/api/tables", json={"nickname": "Ann"}, headers={
            "Origin": f"http://evil.example:{port}", "Host": f"evil.example:{port}"})
        nothing = client.get("/api/tables").json()["tables"]
        own = client.post("/api/tables", json={"nickname": "Ann"}, headers={"Origin": base})
        named = client.post("/api/tables", json={"nickname": "Ann"},
                            headers={"Origin": f"http://localhost:{port}"})
        join = client.post(f"/api/tables/{own.json()['table_id']}/join",
                           json={"nickname": "Bob"})
    for refused in (missing, foreign, rebound, join):
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "bad_origin"
    assert nothing == []
    assert own.status_code == 201 and named.status_code == 201


def test_websocket_origin_is_checked_against_the_public_origins(server: LiveServer) -> None:
    table = server.create()
    port = server.base.rsplit(":", 1)[1]
    url = f"{server.ws_base}/ws/tables/{table['table_id']}"
    for origin, host in ((None, None), ("http://evil.example", None),
                         (f"http://evil.example:{port}", f"evil.example:{port}")):
        options: dict[str, Any] = {"origin": origin}
        if host:
            options["additional_headers"] = {"Host": host}
        with pytest.raises(InvalidStatus) as info:
            _open(url, **options)
        assert info.value.response.status_code == 403, origin
    _open(url, origin=f"http://localhost:{port}").close()


def _open(url: str, **options: Any) -> Any:
    headers = options.pop("additional_headers", None)
    if headers:
        try:
            return open_socket(url, additional_headers=headers, **options)
        except TypeError:  # the legacy client calls them extra_headers
            return open_socket(url, extra_headers=headers, **options)
    return open_socket(url, **options)


def test_a_configured_public_origin_replaces_the_listening_address(make_server: Any) -> None:
    server = make_server(public_origins=("https://cards.example",))
    with server.http() as client:
        local = client.post("/api/tables", json={"nickname": "Ann"})  # Origin: server.base
        public = client.post("/api/tables", json={"nickname": "Ann"},
                             headers={"Origin": "https://cards.example"})
    assert local.status_code == 403 and public.status_code == 201
    csp = public.headers["content-security-policy"]
    assert "connect-src 'self' wss://cards.example" in csp


@pytest.mark.parametrize("content_type", [
    None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; b=x",
    "application/jsonx"])
def test_json_bodies_need_the_json_content_type(server: LiveServer,
                                                content_type: str | None) -> None:
    body = json.dumps({"nickname": "Ann"}).encode()
    headers = {"Content-Type": content_type} if content_type else {}
    with server.http() as client:
        answer = client.post("/api/tables", content=body, headers=headers)
        tables = client.get("/api/tables").json()["tables"]
        with_charset = client.post("/api/tables", content=body, headers={
            "Content-Type": "application/json; charset=utf-8"})
    assert answer.status_code == 415, answer.text
    assert tables == []
    assert with_charset.status_code == 201


def _raw(server: LiveServer, head: str, chunks: int = 0, chunk: bytes = b"") -> tuple[str, int]:
    """Send a request head (then up to ``chunks`` chunks of a chunked body while the server
    has not answered); the status line and how many body bytes were sent."""
    port = int(server.base.rsplit(":", 1)[1])
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head.encode())
        sock.settimeout(0.01)
        answer = b""
        for _ in range(chunks):
            with contextlib.suppress(TimeoutError):
                answer += sock.recv(65536)
            if answer:
                break
            try:
                sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            except OSError:  # the server answered and closed
                break
            sent += len(chunk)
        sock.settimeout(30)
        while b"\r\n" not in answer:
            more = sock.recv(65536)
            if not more:
                break
            answer += more
    return answer.split(b"\r\n", 1)[0].decode(), sent


def test_a_huge_declared_body_is_refused_before_it_is_read(server: LiveServer) -> None:
    origin = server.base
    head = (f"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: {origin}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {300 * 1024 * 1024}\r\n\r\n")
    started = time.monotonic()
    status, _ = _raw(server, head)  # not one byte of the body is sent
    assert status.split()[1] == "413", status
    assert time.monotonic() - started < 10


def test_a_chunked_body_is_refused_once_it_passes_the_limit(server: LiveServer) -> None:
    head = (f"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: {server.base}\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    status, sent = _raw(server, head, chunks=20_000, chunk=b" " * 16384)  # up to 300 MB
    assert status.split()[1] == "413", status
    assert sent < 50 * 1024 * 1024, sent  # answered long before the 300 MB were sent
    with server.http() as client:
        assert client.get("/api/tables").json()["tables"] == []


def test_secrets_in_the_websocket_url_are_ignored(server: LiveServer) -> None:
    table = server.create(public=False)
    table_id, token, invite = table["table_id"], table["token"], table["invite"]
    url = f"{server.ws_base}/ws/tables/{table_id}"
    as_seat = Client(open_socket(f"{url}?token={token}", origin=server.base))
    as_seat.send({"type": "hello", "protocol": 2})
    as_guest = Client(open_socket(f"{url}?invite={invite}", origin=server.base))
    as_guest.send({"type": "hello", "protocol": 2})
    for client in (as_seat, as_guest):  # a private table: no invite in hello, no entry
        with pytest.raises(Exception):  # noqa: B017 - closed by the server
            client.wait(lambda m: m["type"] == "welcome", timeout=10)
        assert client.ws.close_code == 4403
    seated = Client.open(server, table_id, token=token)  # in hello: fine
    assert seated.frames[0]["seat"] == 0
    seated.close()


def test_liveness_and_readiness(server: LiveServer) -> None:
    with server.http() as client:
        assert client.get("/healthz").json() == {"ok": True}
        assert client.get("/readyz").status_code == 200
        assert client.get("/api/health").json()["ok"] is True
        state = server.app.state.server
        working = state.repository
        state.repository = Repository(create_engine("sqlite:////nonexistent/dir/x.db"))
        try:
            down = client.get("/readyz")
            alive = client.get("/healthz")
        finally:
            state.repository = working
        assert down.status_code == 503 and down.json()["ok"] is False
        assert alive.status_code == 200
        assert client.get("/readyz").status_code == 200
