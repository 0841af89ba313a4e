"""Play over WebSockets: a complete hand between two people, views, versions, illegal moves."""

from __future__ import annotations

import json
from typing import Any

import pytest
from server_helpers import Client, LiveServer, check_frames, is_state, table_at

from ginrummy.cards import card_name
from ginrummy.server.core.delta import delta_base


def choose(state: dict[str, Any]) -> str:
    """A quick policy: knock or gin when possible, else the first legal action."""
    legal: list[str] = state["legal"]
    for action in legal:
        if action.startswith(("gin", "knock")):
            return action
    return legal[0]


def two_players(server: LiveServer, protocol: int = 2,
                **create: Any) -> tuple[str, Client, Client]:
    created = server.create(nickname="Ann", **create)
    table_id = created["table_id"]
    joined = server.join(table_id, nickname="Bob")
    ann = Client.open(server, table_id, created["token"], protocol=protocol)
    bob = Client.open(server, table_id, joined["token"], protocol=protocol)
    return table_id, ann, bob


def play_one_hand(ann: Client, bob: Client, watcher: Client | None = None,
                  prefix: str = "a") -> int:
    """Play until the first hand is over; returns the number of actions sent."""
    players = {0: ann, 1: bob}
    sent = 0
    while True:
        state = ann.state
        view = state["view"]
        if view["phase"] == "over":
            break
        if view["to_move"] not in players:  # the dealer reshuffles: the server's move
            for client in (ann, bob, *([watcher] if watcher else [])):
                client.wait(is_state(state["version"] + 1))
            continue
        mover = players[view["to_move"]]
        mover_state = mover.state
        assert mover_state["version"] == state["version"]
        action_id = f"{prefix}{sent}"
        mover.send({"type": "action", "id": action_id, "version": mover_state["version"],
                    "action": choose(mover_state)})
        ack = mover.answer()
        assert ack["type"] == "state" and ack["ack"] == action_id, ack
        assert ack["version"] == state["version"] + 1
        sent += 1
        for client in (ann, bob, *([watcher] if watcher else [])):
            client.reach(state["version"] + 1)
    return sent


@pytest.mark.parametrize("protocol", [2, 3])
def test_a_complete_hand_between_two_people_reveals_nothing_hidden(
        make_server: Any, protocol: int) -> None:
    """Every frame checked (protocol 3: the deltas too, and the states made of them)."""
    server = make_server(between_hands_seconds=60)
    table_id, ann, bob = two_players(server, protocol, preset="classic")
    watcher = Client.open(server, table_id, protocol=protocol)  # a spectator
    assert ann.frames[0] == {"type": "welcome", "protocol": protocol, "table": table_id,
                             "seat": 0, "version": ann.frames[0]["version"], "name": "Ann"}
    sent = play_one_hand(ann, bob, watcher)
    # a knock takes two actions at the earliest (take the upcard, knock): `choose` knocks as
    # soon as it may, so a deal can end the hand after two or three (it once failed at >= 4)
    assert sent >= 2
    deltas = [sum(m["type"] == "delta" for m in c.frames) for c in (ann, bob, watcher)]
    if protocol == 3:  # all but the first broadcast a connection gets (a spectator's)
        assert min(deltas) >= sent - 1
    else:
        assert deltas == [0, 0, 0]
    final = ann.state
    assert final["view"]["result"] is not None and final["sheet"][0]["hand"] == 1
    assert final["next_hand"]["remaining_ms"] > 0  # the reveal stays on screen
    for client in (ann, bob, watcher):
        client.send({"type": "resync"})
        client.wait(is_state(final["version"]))
    # every frame each seat and the spectator received, against the engine's hidden state
    assert check_frames(server, table_id, ann.frames, 0) >= sent
    assert check_frames(server, table_id, bob.frames, 1) >= sent
    assert check_frames(server, table_id, watcher.frames, None) >= sent
    # both ready: the next hand is dealt at once
    ann.send({"type": "next"})
    bob.send({"type": "next"})
    dealt = ann.wait(lambda m: m["type"] == "state" and m["view"]["hand_number"] == 2)
    assert dealt["view"]["phase"] in ("draw", "offer") and dealt["next_hand"] is None
    stored = server.stored_table(table_id)
    kinds = [e.kind for e in stored.events]
    assert kinds[:2] == ["match", "deal"] and kinds.count("deal") == 2
    assert kinds.count("action") == sent


def test_a_next_that_crosses_the_deal_is_no_error(make_server: Any) -> None:
    """A "next" that reaches the table after the hand it asks for was dealt (the other seat's
    "next" or the pause's timer dealt first: seen between processes of a cluster) changes
    nothing and is answered with no error; the table goes on with the hand dealt."""
    server = make_server(between_hands_seconds=60)
    table_id, ann, bob = two_players(server, preset="classic")
    play_one_hand(ann, bob)
    ann.send({"type": "next"})
    bob.send({"type": "next"})
    dealt = bob.wait(lambda m: m["type"] == "state" and m["view"]["hand_number"] == 2)
    seen = len(bob.frames)
    bob.send({"type": "next"})  # late: its hand is dealt already
    bob.send({"type": "resync"})
    again = bob.wait(is_state(dealt["version"]))
    assert [m for m in bob.frames[seen:] if m["type"] == "error"] == []
    assert again["view"]["hand_number"] == 2 and again["next_hand"] is None
    stored = server.stored_table(table_id)
    assert [e.kind for e in stored.events].count("deal") == 2


def test_hints_and_legal_actions_only_for_the_recipient(server: LiveServer) -> None:
    _table_id, ann, bob = two_players(server)
    mover, other = (ann, bob) if ann.state["view"]["to_move"] == 0 else (bob, ann)
    assert mover.state["legal"] and other.state["legal"] == []
    for client in (ann, bob):
        hints = client.state["hints"]
        hand = client.state["view"]["hand"]
        melded = [c for meld in hints["melds"] for c in meld]
        assert sorted(melded + hints["unmatched"]) == sorted(hand)


def test_only_the_senders_state_acknowledges_its_action(server: LiveServer) -> None:
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    tokens = {0: created["token"], 1: server.join(table_id, nickname="Bob")["token"]}
    clients = {seat: Client.open(server, table_id, token) for seat, token in tokens.items()}
    seat = clients[0].state["view"]["to_move"]
    mover, other = clients[seat], clients[1 - seat]
    second_tab = Client.open(server, table_id, tokens[seat])  # the same seat, another tab
    watcher = Client.open(server, table_id)
    state = mover.reach(second_tab.state["version"])
    mover.send({"type": "action", "id": "a1", "version": state["version"],
                "action": state["legal"][0]})
    acknowledged = mover.answer()
    assert acknowledged["type"] == "state" and acknowledged["ack"] == "a1"
    assert acknowledged["version"] == state["version"] + 1
    assert acknowledged["view"]["log"][-1]["seat"] == seat  # the state after the action
    assert not any(m["type"] == "ack" for m in mover.frames)  # no frame of its own
    for client in (other, second_tab, watcher):
        seen = client.reach(state["version"] + 1)
        assert seen["version"] == state["version"] + 1 and "ack" not in seen
        assert not any("ack" in m for m in client.frames)


def test_protocol_1_clients_get_the_ack_in_a_frame_of_its_own(server: LiveServer) -> None:
    created = server.create(nickname="Ann")
    table_id = created["table_id"]
    joined = server.join(table_id, nickname="Bob")
    ann = Client.open(server, table_id, created["token"], protocol=1)
    bob = Client.open(server, table_id, joined["token"], protocol=1)
    assert ann.frames[0]["protocol"] == 1
    mover = ann if ann.state["view"]["to_move"] == 0 else bob
    state = mover.state
    mover.send({"type": "action", "id": "old", "version": state["version"],
                "action": state["legal"][0]})
    ack = mover.answer()
    assert ack == {"type": "ack", "id": "old", "version": state["version"] + 1}
    after = mover.recv()  # then the state, as protocol 1 says
    assert after["type"] == "state" and after["version"] == state["version"] + 1
    assert "ack" not in after


def test_protocol_3_sends_deltas_and_a_whole_state_after_a_resync(server: LiveServer) -> None:
    table_id, ann, bob = two_players(server, 3)
    watcher = Client.open(server, table_id, protocol=3)
    clients = (ann, bob, watcher)

    def move(number: int) -> dict[str, Any]:
        """The mover plays; every client reaches the next version. The mover's answer."""
        mover = ann if ann.state["view"]["to_move"] == 0 else bob
        state = mover.state
        mover.send({"type": "action", "id": f"m{number}", "version": state["version"],
                    "action": choose(state)})
        answer = mover.answer()
        assert answer["ack"] == f"m{number}" and answer["version"] == state["version"] + 1
        for client in clients:
            client.reach(state["version"] + 1)
        return answer

    full = len(bob.texts[-1])  # the first state after hello is whole
    move(1)  # then deltas, the spectator's too (its first state was sent to it alone)
    for client in clients:
        delta = client.frames[-2]
        assert delta["type"] == "delta" and "base" not in delta  # it is version - 1
        assert len(client.texts[-1]) < full / 2
    assert ("ack" in ann.frames[-2]) != ("ack" in bob.frames[-2])  # only the mover's
    watcher.send({"type": "resync"})
    whole = watcher.wait(is_state())
    assert watcher.frames[-1] == whole and "base" not in whole  # a state, as it was sent
    move(2)  # the next broadcast's delta starts from the state sent alone
    assert watcher.frames[-2]["type"] == "delta"
    assert delta_base(watcher.frames[-2]) == whole["version"]
    assert check_frames(server, table_id, watcher.frames, None) >= 3


def test_stale_version_is_rejected_and_changes_nothing(server: LiveServer) -> None:
    table_id, ann, bob = two_players(server)
    mover = ann if ann.state["view"]["to_move"] == 0 else bob
    state = mover.state
    mover.send({"type": "action", "id": "old", "version": state["version"] - 1,
                "action": state["legal"][0]})
    refused = mover.wait(lambda m: m["type"] == "error")
    assert refused["code"] == "stale_version" and refused["id"] == "old"
    fresh = mover.wait(is_state())
    assert fresh["version"] == state["version"] and fresh["view"] == state["view"]
    assert len(server.stored_table(table_id).events) == 2  # match and deal only


def test_illegal_and_out_of_turn_actions_leave_the_state_unchanged(server: LiveServer) -> None:
    table_id, ann, bob = two_players(server)
    mover, waiter = (ann, bob) if ann.state["view"]["to_move"] == 0 else (bob, ann)
    state = mover.state
    before = server.stored_table(table_id)
    cases = [
        (mover, "discard As" if "As" not in state["view"]["hand"] else "discard 2c",
         "illegal_action"),
        (mover, "knock", "illegal_action"),
        (mover, "fold", "illegal_action"),
        (waiter, "stock", "not_your_turn"),
        (mover, "reshuffle As 2s", "illegal_action"),
    ]
    for number, (client, action, code) in enumerate(cases):
        client.send({"type": "action", "id": f"bad{number}", "version": state["version"],
                     "action": action})
        answer = client.answer()
        assert answer["type"] == "error" and answer["code"] == code, (action, answer)
        assert answer["id"] == f"bad{number}" and answer["message"]
    after = server.stored_table(table_id)
    assert after.version == before.version and len(after.events) == len(before.events)
    # the same connection still plays a legal action
    mover.send({"type": "action", "id": "ok", "version": state["version"],
                "action": state["legal"][0]})
    assert mover.answer()["ack"] == "ok"


def test_a_resent_action_is_acknowledged_again_not_replayed(server: LiveServer) -> None:
    table_id, ann, bob = two_players(server)
    mover = ann if ann.state["view"]["to_move"] == 0 else bob
    state = mover.state
    message = {"type": "action", "id": "once", "version": state["version"],
               "action": state["legal"][0]}
    mover.send(message)
    first = mover.answer()
    assert first["type"] == "state" and first["ack"] == "once"
    mover.send(message)  # e.g. the ack was lost with the connection
    second = mover.answer()
    assert second == {"type": "ack", "id": "once", "version": first["version"],
                      "duplicate": True}
    assert len(server.stored_table(table_id).events) == 3


def test_spectator_cannot_act_and_sees_no_hand(server: LiveServer) -> None:
    table_id, _ann, _bob = two_players(server)
    watcher = Client.open(server, table_id)
    state = watcher.state
    assert state["seat"] is None and state["view"]["hand"] == [] and state["hints"] is None
    assert all(seat["cards"] is None for seat in state["view"]["seats"])
    watcher.send({"type": "action", "id": "w", "version": state["version"], "action": "stock"})
    assert watcher.wait(lambda m: m["type"] == "error")["code"] == "not_seated"
    assert "welcome" in json.dumps(watcher.frames[0])


def test_against_the_computer_the_match_ends_and_a_rematch_starts(make_server: Any) -> None:
    server = make_server(messages_per_window=100_000)
    created = server.create(nickname="Ann", bots={"1": "simple"}, options={"target": 20})
    table_id = created["table_id"]
    ann = Client.open(server, table_id, created["token"])
    actions = 0
    while ann.state["result"] is None:
        state = ann.state
        if state["legal"]:
            ann.send({"type": "action", "id": f"a{actions}", "version": state["version"],
                      "action": choose(state)})
            actions += 1
        ann.wait(is_state(state["version"] + 1), 30)
    result = ann.state["result"]
    assert max(result["totals"]) >= 20 and ann.state["table"]["status"] == "over"
    ann.send({"type": "rematch"})
    fresh = ann.wait(lambda m: m["type"] == "state" and m["table"]["status"] == "playing"
                     and m["result"] is None)
    assert fresh["view"]["hand_number"] == 1 and fresh["sheet"] == []
    assert fresh["view"]["scores"] == [0, 0] and fresh["rematch"] == []
    kinds = [e.kind for e in server.stored_table(table_id).events]
    assert kinds.count("match") == 2


def test_the_frame_check_catches_a_leaked_card(server: LiveServer) -> None:
    table_id, ann, _bob = two_players(server)
    frame = json.loads(json.dumps(ann.state))
    match = table_at(server.stored_table(table_id), frame["version"]).match
    assert match is not None
    secret = sorted(match.hand.stock)[0]
    frame["hints"]["unmatched"].append(card_name(secret))
    try:
        check_frames(server, table_id, [frame], 0)
    except AssertionError as exc:
        assert "hidden cards" in str(exc)
    else:
        raise AssertionError("a leaked stock card went unnoticed")


def test_three_player_arena_with_two_computers_pays_out_the_pool(make_server: Any) -> None:
    server = make_server(messages_per_window=100_000)  # void hands may take many actions
    created = server.create(nickname="Ann", preset="arena", players=3,
                            bots={"1": "simple", "2": "simple"}, pool_chips=300)
    table_id = created["table_id"]
    ann = Client.open(server, table_id, created["token"])
    watcher = Client.open(server, table_id)
    sent = 0
    while ann.state["result"] is None:
        state = ann.state
        if state["legal"]:
            ann.send({"type": "action", "id": f"a{sent}", "version": state["version"],
                      "action": choose(state)})
            sent += 1
        ann.wait(is_state(state["version"] + 1), 30)
    result = ann.state["result"]
    assert sum(result["payouts"]) == 300 and len(result["penalties"]) == 3
    assert ann.state["table"]["status"] == "over"
    watcher.send({"type": "resync"})
    watcher.wait(lambda m: m["type"] == "state" and m["result"] is not None)
    assert check_frames(server, table_id, ann.frames, 0) > 0
    assert check_frames(server, table_id, watcher.frames, None) > 0


def test_a_rematch_between_two_people_needs_both(make_server: Any) -> None:
    server = make_server(messages_per_window=100_000)  # void hands may take many actions
    table_id, ann, bob = two_players(server, preset="arena")  # one hand decides...
    while ann.state["result"] is None:  # ...unless it is void: then another is dealt
        state = ann.state
        if state["view"]["phase"] == "over":
            for client in (ann, bob):
                client.wait(is_state(state["version"] + 1))
            continue
        play_one_hand(ann, bob, prefix=f"h{state['version']}-")
    ann.send({"type": "rematch"})
    asked = bob.wait(lambda m: m["type"] == "state" and m["rematch"] == [0])
    assert asked["result"] is not None  # still the old match
    bob.send({"type": "rematch"})
    fresh = ann.wait(lambda m: m["type"] == "state" and m["result"] is None)
    assert fresh["rematch"] == [] and fresh["view"]["phase"] in ("draw", "offer")
    stored = server.stored_table(table_id)
    assert [e.kind for e in stored.events].count("match") == 2
    assert all(not seat.rematch for seat in stored.seats)
