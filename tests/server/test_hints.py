"""The beginner's help on a live server (issue 27.8, docs/client.md): the hint at a table
against the computer alone (the expert's move for the asker's decision, with its reason, from
the seat's own view), refused in a rated game and at a table with other people; the
tutorial's scripted hand, played by the engine."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import pytest
from player_helpers import add_account, log_in
from server_helpers import LiveServer, live_server

from ginrummy.actions import LayOff, parse_action
from ginrummy.coach.hints import HINT_CODES, hint_reason
from ginrummy.engine import Hand
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.core.kinds import SeatKind
from ginrummy.server.play.tutorial import COMPUTER, KNOCK, PLAYER, deck, tutorial_steps
from ginrummy.server.players.sessions import SESSION_COOKIE
from ginrummy.storage import InsertEvent, InsertTable, Repository, StoredSeat, migrate, open_engine
from ginrummy.views import view
from layoff_deal import KNOCK_DRAW, KNOCK_HAND, KNOCK_UPCARD, knock_deck, rules, stored_table

TOKEN = "guest-hint-token"
OTHER_TOKEN = "other-person-token"


@pytest.fixture(scope="module")
def hint_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str]]:
    """A server restored with three tables at seat 0's discard (the knock deal of
    tests/layoff_deal.py): ``guest`` (a guest against the computer), ``rated`` (an account
    against the computer: a rated match) and ``people`` (a guest against another person);
    and the session of the account."""
    folder = tmp_path_factory.mktemp("hints")
    engine = open_engine(f"sqlite:///{folder / 'test.db'}")
    migrate(engine)
    ann = add_account(engine, "Ann")
    session = log_in(engine, ann)
    guest = stored_table("guest", TOKEN, knock=True)
    rated = dataclasses.replace(stored_table("rated", TOKEN, knock=True), seats=[
        StoredSeat(0, SeatKind.HUMAN, "Ann", None, None, False, ann), guest.seats[1]])
    people = dataclasses.replace(stored_table("people", TOKEN, knock=True), seats=[
        guest.seats[0], StoredSeat(1, SeatKind.HUMAN, "Bob", None, secret_hash(OTHER_TOKEN))])
    for table in (guest, rated, people):
        Repository(engine).write([InsertTable(table),
                                  *(InsertEvent(table.id, e) for e in table.events)])
    engine.dispose()
    with live_server(folder) as server:
        yield server, session


def test_the_hint_names_the_experts_move_and_why_from_the_seats_own_cards(
        hint_server: tuple[LiveServer, str]) -> None:
    server, _session = hint_server
    with server.http() as client:
        answer = client.post("/api/tables/guest/hint", json={"token": TOKEN})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["seat"] == 0 and body["version"] == 3
    hint = body["hint"]
    action = parse_action(hint["action"])
    hand = Hand(rules(), 1, knock_deck())
    hand.apply("stock", 0)
    hand.verify(action, 0)  # a legal move of the seat
    assert hint["reason"]["code"] in HINT_CODES and hint["reason"]["text"]
    # every choice in the legal moves' (the menu's) order; the hint's move is the best, the
    # highest valued (issue 29: the coach's evaluator, so the coach never calls it a mistake)
    choices = hint["choices"]
    assert [c["action"] for c in choices] == [str(a) for a in hand.legal_actions()]
    best = [c for c in choices if c["best"]]
    assert len(best) == 1 and best[0]["action"] == hint["action"] and best[0]["loss"] == 0
    assert best[0]["value"] == max(c["value"] for c in choices)
    assert all(c["error"] >= 0 and c["loss"] >= 0 for c in choices)
    # the answer names the seat's own cards and the top discard, nothing hidden
    named = {w.strip("[]").split("@")[0] for w in answer.text.replace('"', " ").split()}
    cards = {w for w in named if len(w) == 2 and w[0] in "A23456789TJQK" and w[1] in "shdc"}
    assert cards <= {*KNOCK_HAND, KNOCK_DRAW, KNOCK_UPCARD}


def test_no_hint_in_a_rated_game_nor_with_other_people_nor_for_strangers(
        hint_server: tuple[LiveServer, str]) -> None:
    server, session = hint_server
    with server.http() as client:
        rated = client.post("/api/tables/rated/hint", json={},
                            headers={"cookie": f"{SESSION_COOKIE}={session}"})
        people = client.post("/api/tables/people/hint", json={"token": TOKEN})
        other = client.post("/api/tables/people/hint", json={"token": OTHER_TOKEN})
        stranger = client.post("/api/tables/guest/hint", json={"token": "not-the-token"})
        nobody = client.post("/api/tables/guest/hint", json={})
        missing = client.post("/api/tables/nosuch/hint", json={"token": TOKEN})
        malformed = client.post("/api/tables/guest/hint", json={"token": 5})
        not_json = client.post("/api/tables/guest/hint", content=b"{",
                               headers={"content-type": "application/json"})
    assert (rated.status_code, rated.json()["error"]["code"]) == (403, "hints_off")
    assert "rated" in rated.json()["error"]["message"]
    assert (people.status_code, people.json()["error"]["code"]) == (403, "hints_off")
    assert "other people" in people.json()["error"]["message"]
    assert (other.status_code, other.json()["error"]["code"]) == (403, "hints_off")
    assert (stranger.status_code, stranger.json()["error"]["code"]) == (403, "forbidden")
    assert (nobody.status_code, nobody.json()["error"]["code"]) == (403, "forbidden")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")
    assert (malformed.status_code, malformed.json()["error"]["field"]) == (422, "token")
    assert not_json.status_code == 400
    with server.http() as client:  # the server goes on answering
        assert client.post("/api/tables/guest/hint", json={"token": TOKEN}).status_code == 200


def test_the_tutorial_is_the_engines_play_of_its_script(
        hint_server: tuple[LiveServer, str]) -> None:
    server, _session = hint_server
    with server.http() as client:
        answer = client.get("/api/tutorial")
    assert answer.status_code == 200
    steps = answer.json()["steps"]
    assert [s["step"] for s in steps] == ["welcome", "take", "discard", "stock", "knock",
                                          "layoff", "score"]
    for step in steps:
        state = step["states"][-1]
        if step["expect"] is not None:  # the player's move is legal where it is expected
            kind = step["expect"].split()[0]
            assert any(a.split()[0] == kind for a in state["legal"]), step["step"]
    score = steps[-1]["params"]
    assert score == {"knocker": 7, "defender": 42, "points": 35, "cards": "4h"}  # R5.2
    assert steps[-1]["states"][0]["next_hand"] is None  # the lesson ends with the hand


def test_the_hint_reasons_of_the_tutorials_moves() -> None:
    """The reasons a beginner reads, on the tutorial's positions: the upcard makes a set,
    the king is the discard that leaves the least deadwood, the king thrown back makes no
    meld (draw from the stock), the knock is within the limit, the computer's layoff leaves
    the least deadwood."""
    hand = Hand(rules(), 1, deck())
    assert hint_reason(view(hand, PLAYER), parse_action("take")).code == "take_melds"
    assert hint_reason(view(hand, PLAYER), parse_action("stock")).code == "playouts"
    hand.apply("take", PLAYER)
    least = hint_reason(view(hand, PLAYER), parse_action("discard Kc"))
    assert (least.code, least.params["deadwood"]) == ("discard_least", 13)
    assert least.text() == "discarding Kc leaves the least deadwood: 13"
    hand.apply("discard Kc", PLAYER)
    hand.apply("stock", COMPUTER)
    hand.apply("discard Kd", COMPUTER)
    stock = hint_reason(view(hand, PLAYER), parse_action("stock"))
    assert (stock.code, stock.params) == ("stock", {"card": "Kd"})
    hand.apply("stock", PLAYER)
    knock = hint_reason(view(hand, PLAYER), parse_action(KNOCK))
    assert (knock.code, knock.params) == ("knock", {"card": "6s", "deadwood": 7, "limit": 10})
    hand.apply(KNOCK, PLAYER)
    defence = hand.best_defence(COMPUTER)
    layoff = hint_reason(view(hand, COMPUTER), LayOff(defence.melds, defence.layoffs))
    assert (layoff.code, layoff.params) == ("layoff", {"deadwood": 42})
    steps = tutorial_steps()
    assert next(s for s in steps if s["step"] == "knock")["params"]["deadwood"] == 7


def test_every_hint_reason_has_its_text_in_each_catalogue() -> None:
    from ginrummy.web import LANGUAGES, STATIC_DIR
    for lang in LANGUAGES:
        texts = json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text("utf-8"))
        assert [c for c in HINT_CODES if f"hint.reason.{c}" not in texts] == [], lang
