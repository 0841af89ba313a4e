"""``/metrics`` (docs/moderation.md, *Metrics*): the Prometheus text parses, counts what
happened, has a registry per app, and is served only with its token, or to a direct loopback
client when the operator allows it; ``/api/health`` shows the status alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families
from server_helpers import Client, LiveServer

from ginrummy.server.http.metrics import metrics_of

TOKEN = "metrics-token-of-the-tests"


@pytest.fixture
def server(make_server: Callable[..., LiveServer]) -> LiveServer:
    """A server whose metrics are read with :data:`TOKEN`."""
    return make_server(metrics_token=TOKEN)


def scrape(server: LiveServer, **headers: str) -> dict[tuple[str, tuple[tuple[str, str], ...]],
                                                     float]:
    """Every sample of ``/metrics`` by (name, labels) (with the token unless told)."""
    headers.setdefault("Authorization", f"Bearer {TOKEN}")
    with server.http() as client:
        answer = client.get("/metrics", headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(answer.text)
            for s in family.samples}


def table_diagnosis(server: LiveServer, table_id: str, client: Client) -> str:
    """Where a table stood when a client waited in vain: its version and next step, its
    next-step timer, and the last frames the client read."""
    writer = server.lobby.get(table_id)
    if writer is None:
        return f"table {table_id} is not in memory; frames {client.frames[-3:]}"
    table = writer.table
    last = [(f.get("type"), f.get("version"), f.get("legal")) for f in client.frames[-4:]]
    return (f"table at version {table.version}, next step {table.next_step()}, "
            f"stuck {table.stuck}, people {writer.people}, timer "
            f"{writer.timers.next_step}; "
            f"last frames {last}")


def play(client: Client, actions: int) -> None:
    """Play ``actions`` of this seat's legal actions (the first one offered each time)."""
    for n in range(actions):
        state = client.playable()
        client.send({"type": "action", "id": f"m{n}", "version": state["version"],
                     "action": state["legal"][0]})
        answer = client.answer()
        assert answer["type"] == "state", answer


def test_metrics_parse_and_count_actions_and_latencies(server: LiveServer) -> None:
    before = scrape(server)
    assert before[("ginrummy_actions_total", (("source", "human"),))] == 0
    assert before[("ginrummy_connections", ())] == 0
    created = server.create(nickname="Ann", bots={"1": "simple"})
    ann = Client.open(server, created["table_id"], created["token"])
    watcher = Client.open(server, created["table_id"])
    try:
        play(ann, 6)
        ann.playable()  # Ann's turn again: no computer move is under way
    except TimeoutError:  # seen once under heavy load: say where the table stood
        raise AssertionError(table_diagnosis(server, created["table_id"], ann)) from None
    after = scrape(server)
    events = server.stored_table(created["table_id"]).events
    assert after[("ginrummy_actions_total", (("source", "human"),))] == 6
    bot_moves = sum(1 for e in events if e.source == "bot")
    assert bot_moves >= 1
    assert after[("ginrummy_actions_total", (("source", "bot"),))] == bot_moves
    assert after[("ginrummy_ack_seconds_count", ())] == 6
    assert 0 < after[("ginrummy_ack_seconds_sum", ())] < 6 * 2.5
    assert after[("ginrummy_ack_seconds_bucket", (("le", "+Inf"),))] == 6
    commits = after[("ginrummy_commit_seconds_count", ())]
    assert commits >= 2 + 6 + bot_moves  # the table, its deal and every action at least
    assert after[("ginrummy_connections", ())] == 2
    assert after[("ginrummy_tables", (("status", "playing"),))] == 1
    assert after[("ginrummy_tables", (("status", "waiting"),))] == 0
    ann.close()
    watcher.close()


def test_errors_are_counted_by_channel_and_code(server: LiveServer) -> None:
    with server.http() as client:
        assert client.get("/api/tables/nope").status_code == 404
        assert client.post("/api/tables", json={"nickname": ""}).status_code == 422
        assert client.post("/api/tables", json={}, headers={"Origin": "http://evil.example"}
                           ).status_code == 403
    created = server.create(nickname="Ann")
    ann = Client.open(server, created["table_id"], created["token"])
    ann.send("not json")
    assert ann.wait(lambda m: m["type"] == "error")["code"] == "bad_message"
    ann.send({"type": "action", "id": "x", "version": 0, "action": "stock"})
    assert ann.wait(lambda m: m["type"] == "error")["code"] == "no_hand"
    samples = scrape(server)
    errors = {labels: value for (name, labels), value in samples.items()
              if name == "ginrummy_errors_total"}
    assert errors == {(("channel", "http"), ("code", "not_found")): 1,
                      (("channel", "http"), ("code", "bad_request")): 1,
                      (("channel", "http"), ("code", "bad_origin")): 1,
                      (("channel", "ws"), ("code", "bad_message")): 1,
                      (("channel", "ws"), ("code", "no_hand")): 1}
    ann.close()


def test_logins_are_counted_by_result(server: LiveServer) -> None:
    with server.http() as client:
        signed = client.post("/api/account/signup",
                             json={"name": "Metric", "password": "a long password"})
        assert signed.status_code == 201, signed.text
        client.cookies.clear()
        good = client.post("/api/account/login",
                           json={"name": "Metric", "password": "a long password"})
        assert good.status_code == 200, good.text
        client.cookies.clear()
        for _ in range(2):
            bad = client.post("/api/account/login", json={"name": "Metric", "password": "no"})
            assert bad.status_code == 401
        client.cookies.clear()
    samples = scrape(server)
    assert samples[("ginrummy_logins_total", (("result", "ok"),))] == 1
    assert samples[("ginrummy_logins_total", (("result", "failed"),))] == 2


def test_each_app_has_its_own_registry(make_server: Any) -> None:
    one, two = make_server(metrics_token=TOKEN), make_server(metrics_token=TOKEN)
    metrics_one = metrics_of(one.app.state.server)
    metrics_two = metrics_of(two.app.state.server)
    assert metrics_one is not None and metrics_two is not None
    assert metrics_one.registry is not metrics_two.registry
    assert metrics_one.registry is not REGISTRY
    created = one.create(nickname="Ann", bots={"1": "simple"})
    ann = Client.open(one, created["table_id"], created["token"])
    play(ann, 1)
    assert scrape(one)[("ginrummy_actions_total", (("source", "human"),))] == 1
    assert scrape(two)[("ginrummy_actions_total", (("source", "human"),))] == 0
    ann.close()


def test_who_may_read_the_metrics(make_server: Any) -> None:
    """The token, from anywhere; without it nobody, unless the operator allows loopback, and
    then only a client no proxy forwarded (X-Real-IP alone marks a proxy too)."""
    closed = make_server()
    with closed.http() as client:  # a direct loopback client, no token set: no metrics
        refused = client.get("/metrics")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
    assert "token" in refused.json()["error"]["message"]
    local = make_server(metrics_loopback=True)
    assert ("ginrummy_connections", ()) in scrape(local, Authorization="")
    with local.http() as client:
        for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP", "X-Forwarded-Host"):
            proxied = client.get("/metrics", headers={header: "203.0.113.9"})
            assert proxied.status_code == 403, header
    guarded = make_server(metrics_token="s3cret-metrics")
    with guarded.http() as client:
        assert client.get("/metrics").status_code == 403
        assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}
                          ).status_code == 403
    assert ("ginrummy_connections", ()) in scrape(guarded,
                                                 Authorization="Bearer s3cret-metrics")
    assert ("ginrummy_connections", ()) in scrape(
        guarded, Authorization="Bearer s3cret-metrics", **{"X-Real-IP": "203.0.113.9"})


def test_health_shows_the_status_alone_and_the_counts_are_metrics(server: LiveServer) -> None:
    created = server.create(nickname="Ann", bots={"1": "simple"})
    ann = Client.open(server, created["table_id"], created["token"])
    play(ann, 2)
    with server.http() as client:
        health = client.get("/api/health")
    assert health.status_code == 200 and health.json() == {"ok": True}
    samples = scrape(server)
    assert samples[("ginrummy_commits_total", ())] >= 3
    assert samples[("ginrummy_commit_writes_total", ())] >= samples[("ginrummy_commits_total",
                                                                      ())]
    assert samples[("ginrummy_commit_failures_total", ())] == 0
    assert samples[("ginrummy_tables_restored", ())] == 0
    assert samples[("ginrummy_tables", (("status", "playing"),))] == 1
    ann.close()
