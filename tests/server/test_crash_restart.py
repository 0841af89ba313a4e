"""Kill ``ginrummy serve`` with SIGKILL mid-hand, start it again: nothing acknowledged is lost."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_helpers import Client, free_port, is_state, table_at

from ginrummy.storage import Repository, open_engine
from ginrummy.views import view

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


METRICS_TOKEN = "crash-restart-metrics"
"""``/metrics`` (where the count of tables restored is) is read with this token."""


class Process:
    """``ginrummy serve`` in a subprocess."""

    def __init__(self, db: str, port: int, log: Path) -> None:
        self.base = f"http://127.0.0.1:{port}"
        script = Path(sys.executable).with_name("ginrummy")
        command = [str(script)] if script.exists() else [
            sys.executable, "-c", "from ginrummy.cli.main import main; raise SystemExit(main())"]
        self.log = log.open("ab")
        self.proc = subprocess.Popen(
            [*command, "serve", "--port", str(port), "--db", db, "--bot-delay", "0",
             "--between-hands", "0", "--log-level", "warning"],
            stdout=self.log, stderr=subprocess.STDOUT,
            env={**os.environ, "GINRUMMY_MIN_CLOCK_SECONDS": "1",
                 "GINRUMMY_METRICS_TOKEN": METRICS_TOKEN})
        deadline = time.monotonic() + 90  # a busy machine starts Python slowly
        while True:
            try:
                if httpx.get(f"{self.base}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ginrummy serve did not start: {log.read_text()[-2000:]}")
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.log.close()


class Remote:
    """The bits of LiveServer the clients need."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.ws_base = base.replace("http://", "ws://")


@pytest.fixture
def processes() -> Iterator[list[Process]]:
    started: list[Process] = []
    yield started
    for process in started:
        if process.proc.poll() is None:
            process.kill()


def play(clients: dict[int, Client], count: int, prefix: str) -> list[tuple[str, int]]:
    """Play ``count`` actions (first legal, knock when possible); the acknowledged ids."""
    acked: list[tuple[str, int]] = []
    while len(acked) < count:
        state = clients[0].state
        view = state["view"]
        if view["phase"] == "over" or view["to_move"] not in clients:
            for client in clients.values():  # the server deals or reshuffles
                client.wait(is_state(state["version"] + 1))
            continue
        mover = clients[view["to_move"]]
        mine = mover.state
        legal = mine["legal"]
        action = next((a for a in legal if a.startswith(("knock", "gin"))), legal[0])
        action_id = f"{prefix}{len(acked)}"
        mover.send({"type": "action", "id": action_id, "version": mine["version"],
                    "action": action})
        ack = mover.answer()
        assert ack.get("ack") == action_id, ack
        acked.append((action_id, ack["version"]))
        for client in clients.values():
            client.reach(ack["version"])
    return acked


@pytest.mark.slow
def test_sigkill_mid_hand_then_restart_loses_nothing(tmp_path: Path,
                                                     processes: list[Process]) -> None:
    db = f"sqlite:///{tmp_path / 'crash.db'}"
    port = free_port()
    first = Process(db, port, tmp_path / "serve.log")
    processes.append(first)
    server: Any = Remote(first.base)
    with httpx.Client(base_url=first.base, headers={"Origin": first.base}) as http:
        created = http.post("/api/tables", json={"nickname": "Ann", "clock_seconds": 120,
                                                 "preset": "classic"}).json()
        table_id = created["table_id"]
        joined = http.post(f"/api/tables/{table_id}/join", json={"nickname": "Bob"}).json()
    tokens = {0: created["token"], 1: joined["token"]}
    clients = {seat: Client.open(server, table_id, token) for seat, token in tokens.items()}
    acked = play(clients, 9, "a")
    assert len(acked) == 9
    before = clients[0].state
    if before["view"]["phase"] == "over":  # the 9th action ended a hand: the next one is dealt
        for client in clients.values():
            client.wait(is_state(before["version"] + 1))
        before = clients[0].state
    clock_before = before["clock"]
    assert clock_before is not None
    # one more action: SIGKILL right after its acknowledgement
    last_seat = before["view"]["to_move"]
    mover = clients[last_seat]
    mover.send({"type": "action", "id": "last", "version": mover.state["version"],
                "action": mover.state["legal"][0]})
    last = mover.answer()
    assert last.get("ack") == "last", last
    first.kill()
    acked.append(("last", last["version"]))

    engine = open_engine(db)
    stored = Repository(engine).load_table(table_id)
    engine.dispose()
    assert stored is not None
    by_id = {e.client_id: e.version for e in stored.events if e.client_id}
    assert all(by_id.get(action_id) == version for action_id, version in acked)

    second = Process(db, port, tmp_path / "serve.log")
    processes.append(second)
    with httpx.Client(base_url=second.base) as http:
        metrics = http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        assert re.search(r"^ginrummy_tables_restored ([1-9]\d*)\.0$", metrics.text, re.M), \
            metrics.text
        entry = http.get(f"/api/tables/{table_id}").json()
    assert entry["version"] >= last["version"] and entry["status"] == "playing"
    reconnected_at = time.time()
    clients = {seat: Client.open(server, table_id, token) for seat, token in tokens.items()}
    resumed = clients[0].state
    assert resumed["version"] >= last["version"]  # a deal may follow the last action
    replayed = table_at(stored, resumed["version"])
    assert replayed.match is not None
    assert resumed["view"] == view(replayed.match, 0).to_dict()
    assert clients[1].state["view"] == view(replayed.match, 1).to_dict()
    clock = resumed["clock"]  # resumed from the stored deadline, not restarted
    assert clock is not None and clock["per_turn_ms"] == clock_before["per_turn_ms"]
    assert stored.clock_deadline is not None
    assert 0 <= clock["remaining_ms"] <= (stored.clock_deadline - reconnected_at) * 1000 + 1
    # an action resent after the crash (its ack lost) is acknowledged again, not replayed
    clients[last_seat].send({"type": "action", "id": "last", "version": resumed["version"],
                             "action": "stock"})
    duplicate = clients[last_seat].answer()
    assert duplicate == {"type": "ack", "id": "last", "version": last["version"],
                         "duplicate": True}
    # and the game goes on
    again = play(clients, 4, "b")
    assert again[0][1] > last["version"] and len(again) == 4
