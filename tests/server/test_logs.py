"""No secret in a log line (issue 11, 5): a whole session (create, join, invite, play, chat,
a token even put in a WebSocket URL) with every logger at DEBUG, then every token and invite
code it issued is looked for in the captured records and in ``ginrummy serve``'s log file;
the log is JSON lines, one per request or table event."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_helpers import Client, LiveServer, free_port, open_socket

from ginrummy.server.core.logs import JsonFormatter

CLIENT_SIDE = ("httpx", "httpcore", "websockets.client")
"""The test's own clients log in this process too (httpx logs every URL it requests)."""


def _session(server: Any) -> list[str]:
    """Everything a player does, over HTTP and WebSockets; the secrets it was given."""
    base = server.base
    secrets: list[str] = []
    with httpx.Client(base_url=base, timeout=30, trust_env=False,
                      headers={"Origin": base}) as http:
        public = http.post("/api/tables", json={"nickname": "Ann"}).json()
        joined = http.post(f"/api/tables/{public['table_id']}/join",
                           json={"nickname": "Bob"}).json()
        private = http.post("/api/tables", json={"nickname": "Cy", "public": False}).json()
        invite = private["invite"]
        private_id = private["table_id"]
        http.get(f"/api/tables/{private_id}", headers={"X-Invite": invite}).raise_for_status()
        guest = http.post(f"/api/tables/{private_id}/join",
                          json={"nickname": "Di", "invite": invite}).json()
        refused = http.post(f"/api/tables/{private_id}/join",
                            json={"nickname": "Ed", "invite": "not-the-invite"})
        assert refused.status_code in (403, 409), refused.text
    secrets += [public["token"], joined["token"], private["token"], guest["token"], invite]
    ann = Client.open(server, public["table_id"], public["token"])
    bob = Client.open(server, public["table_id"], joined["token"])
    watcher = Client.open(server, private_id, invite=invite)
    for _ in range(4):  # a few actions, whoever is to move
        state = ann.state
        mover = {0: ann, 1: bob}[state["view"]["to_move"]]
        mover_state = mover.playable()
        mover.send({"type": "action", "id": f"x{mover_state['version']}",
                    "version": mover_state["version"], "action": mover_state["legal"][0]})
        answer = mover.answer()
        assert answer.get("ack"), answer
        ann.reach(answer["version"])
    ann.send({"type": "chat", "text": "good luck"})
    bob.wait(lambda m: m["type"] == "chat")
    # a client that still puts its token and invite in the URL: ignored, and not logged
    url = f"{server.ws_base}/ws/tables/{private_id}?token={private['token']}&invite={invite}"
    old = Client(open_socket(url, origin=base))
    old.send({"type": "hello", "protocol": 2, "token": private["token"]})
    old.wait(lambda m: m["type"] == "welcome")
    for client in (ann, bob, watcher, old):
        client.close()
    return secrets


def test_no_token_or_invite_reaches_a_log_record(server: LiveServer,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("uvicorn", "uvicorn.error", "ginrummy"):
        caplog.set_level(logging.DEBUG, logger=name)
    secrets = _session(server)
    time.sleep(0.3)  # the last connections' close lines
    formatter = JsonFormatter()
    records = [r for r in caplog.records if not r.name.startswith(CLIENT_SIDE)]
    lines = [formatter.format(r) for r in records]
    text = "\n".join(lines)
    assert len(records) > 20
    for secret in secrets:
        assert secret not in text, "a secret reached the log"
    requests = [json.loads(line) for line in lines if '"event": "request"' in line]
    paths = {(r["method"], r["path"], r["status"]) for r in requests}
    assert ("POST", "/api/tables", 201) in paths
    assert any(p[0] == "GET" and p[1].startswith("/api/tables/") for p in paths)
    assert any(p[0] == "WS" for p in paths)
    assert all("?" not in r["path"] for r in requests)
    events = {json.loads(line).get("event") for line in lines}
    assert {"table_created", "table_joined"} <= events


def test_serve_writes_json_lines_without_secrets_and_stops_gracefully(tmp_path: Path) -> None:
    port = free_port()
    log_file = tmp_path / "serve.log"
    script = Path(sys.executable).with_name("ginrummy")
    command = [str(script)] if script.exists() else [
        sys.executable, "-c", "from ginrummy.cli.main import main; raise SystemExit(main())"]
    proc = subprocess.Popen(
        [*command, "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'g.db'}",
         "--bot-delay", "0", "--log-level", "debug", "--log-file", str(log_file)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ})
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "did not start"
            time.sleep(0.05)

        class Remote:
            pass

        remote: Any = Remote()
        remote.base, remote.ws_base = base, base.replace("http://", "ws://")
        secrets = _session(remote)
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        # graceful: uvicorn drains, the lobby and committer stop; then uvicorn raises the
        # signal again, so the exit status is SIGTERM's
        assert proc.wait(30) in (0, -signal.SIGTERM)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    out, err = proc.communicate()
    written = log_file.read_text(encoding="utf-8")
    for secret in secrets:
        assert secret not in written and secret.encode() not in out + err
    entries = [json.loads(line) for line in written.splitlines()]  # every line is JSON
    assert len(entries) > 20
    assert all({"time", "level", "logger", "message"} <= set(e) for e in entries)
    requests = [e for e in entries if e.get("event") == "request"]
    assert any(e["path"] == "/api/tables" and e["status"] == 201 for e in requests)
    messages = [e["message"] for e in entries]
    assert "Shutting down" in messages and "Finished server process" in " ".join(messages)
