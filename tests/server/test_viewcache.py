"""The cached view JSON equals ``view(match, seat).to_dict()`` at every step of whole games."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from ginrummy.bots import make_bot
from ginrummy.cards import format_cards, parse_card_list
from ginrummy.engine import CHANCE, deal_order
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.server.play.table import GameTable, Seat, table_rules
from ginrummy.server.play.viewcache import ViewCache
from ginrummy.solver import best_melds_mask
from ginrummy.storage import StoredEvent
from ginrummy.views import view


@pytest.mark.parametrize(("preset", "players", "seed"), [
    ("classic", 2, 1), ("playok", 2, 2), ("eaai", 2, 3), ("arena", 2, 4), ("arena", 3, 5),
    ("arena", 4, 6),
])
def test_cached_views_equal_the_engine_views(preset: str, players: int, seed: int) -> None:
    options = {"players": players} if players != 2 else {}
    rules = Ruleset.preset(preset, **options)
    if rules.format.value == "match":
        rules = rules.replace(target=60)
    rng = random.Random(seed)
    match = Match(rules, seed=seed)
    bots = [make_bot("simple", seed + s) for s in range(players)]
    cache = ViewCache()
    versioned = ViewCache()  # the server's way: the shared part built once per version
    checked = version = 0
    while not match.over and checked < 4000:
        if match.needs_deal:
            match.start_hand()
        hand = match.hand
        version += 1
        for seat in [None, *range(players)]:
            expected = view(match, seat).to_dict()
            assert cache.view_dict(match, seat) == expected
            # byte-identical, keys in the same order
            assert json.dumps(versioned.view_dict(match, seat, version)) == json.dumps(expected)
            if seat is not None:
                best = best_melds_mask(hand.hands[seat])
                assert cache.best_melds(hand, seat)["deadwood"] == best.deadwood
            checked += 1
        if hand.over:
            continue
        if hand.to_move == CHANCE:
            match.apply(hand.reshuffle_order(rng))
            continue
        seen = view(match, hand.to_move)
        match.apply(bots[hand.to_move].choose(seen, hand.legal_actions()))
    assert match.over and checked > 20


def _ann_and_bob_table(table_id: str, rules: Ruleset) -> GameTable:
    """A table of two people, Ann (seat 0) and Bob (seat 1), before its first match."""
    seats = [Seat(0, "human", "Ann", None, "a"), Seat(1, "human", "Bob", None, "b")]
    return GameTable(table_id, "Ann's table", "classic", table_rules(rules), True, None, 30000,
                     None, seats)


def test_broadcast_texts_equal_the_state_messages_over_two_matches() -> None:
    """``GameTable.state_texts`` (shared parts built once) says exactly what
    ``state_message`` says, for both seats and a spectator, through a match and a rematch.

    Deals and first dealers come from a seeded generator (the table's own events shuffle with
    ``secrets``), so the run is the same every time and both matches last several hands."""
    table = _ann_and_bob_table("t1", Ruleset.preset("classic").replace(target=40))
    rng = random.Random(5)
    bots = [make_bot("simple", 7), make_bot("simple", 8)]
    compared = matches = 0
    sheets: list[int] = []
    while matches < 2:
        match = table.match
        if match is None or match.over:
            if match is not None:
                matches += 1
                if matches == 2:
                    break
            first = json.dumps({"first_dealer": rng.randrange(2)})
            table.apply_event(StoredEvent(table.version + 1, "match", first))
            continue
        if match.needs_deal:
            deck = format_cards(deal_order(rng=rng))
            table.apply_event(StoredEvent(table.version + 1, "deal", deck))
            continue
        now = 1_800_000_000.0 + table.version
        texts = table.state_texts([0, 1, None, 0], now)
        assert set(texts) == {0, 1, None}
        for seat, text in texts.items():
            assert json.loads(text) == json.loads(json.dumps(table.state_message(seat, now)))
            compared += 1
        sheets.append(len(json.loads(texts[None])["sheet"]))
        hand = match.hand
        if hand.to_move == CHANCE:
            action = str(hand.reshuffle_order(rng))
            table.apply_event(StoredEvent(table.version + 1, "action", action, CHANCE, "chance"))
            continue
        seen = view(match, hand.to_move)
        action = str(bots[hand.to_move].choose(seen, hand.legal_actions()))
        table.apply_event(StoredEvent(table.version + 1, "action", action, hand.to_move, "human",
                                      f"c{table.version}"))
    assert compared > 100
    assert max(sheets) >= 1
    assert any(b < a for a, b in itertools.pairwise(sheets))  # a rematch: a new sheet
    assert sheets[-1] >= 1  # the rematch, too, went past its first hand


def test_the_tables_own_match_and_deal_events_are_live_shuffles() -> None:
    """What the runner commits: a first dealer among the seats and a full 52-card deck,
    shuffled with ``secrets`` (two decks in a row differ; equal by chance once in 52!)."""
    table = _ann_and_bob_table("t2", Ruleset.preset("classic"))
    start = table.match_event()
    assert start.kind == "match" and start.version == table.version + 1
    assert json.loads(start.payload)["first_dealer"] in (0, 1)
    table.apply_event(start)
    decks = [parse_card_list(table.deal_event().payload) for _ in range(2)]
    assert all(sorted(deck) == list(range(52)) for deck in decks)
    assert decks[0] != decks[1]
