"""Duplicate deals: the same cards, dealer, reshuffles and bot seeds in every seat rotation."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tournament_helpers import deterministic

from ginrummy.actions import Action, Discard, DrawStock, Knock, Pass, Reshuffle
from ginrummy.bots import BOTS, Bot
from ginrummy.cards import Card
from ginrummy.engine import Hand
from ginrummy.rules import Ruleset
from ginrummy.tournament import TournamentConfig, Unit, core, play_deal, run_tournament
from ginrummy.tournament.backends import chunk_deals
from ginrummy.views import PlayerView
from helpers import Swapper

Dealt = tuple[tuple[Card, ...], int, tuple[frozenset[Card], ...]]


def _record(config: TournamentConfig, deals: int) -> dict[tuple[int, int], dict[int, Dealt]]:
    """(deal, rotation) -> hand number -> (deck, dealer seat, each *player's* dealt cards)."""
    seen: dict[tuple[int, int], dict[int, Dealt]] = defaultdict(dict)

    def observer(deal: int, rotation: int, number: int, hand: Hand) -> None:
        fresh = Hand(hand.rules, hand.dealer, hand.deck)  # the hand as dealt
        seats = core.seat_players(rotation, hand.players)
        by_player = [frozenset()] * hand.players
        for seat, player in enumerate(seats):
            by_player[player] = frozenset(fresh.hand_of(seat))
        seen[deal, rotation][number] = (hand.deck, hand.dealer, tuple(by_player))

    for deal in range(deals):
        play_deal(config, deal, observer)
    return seen


def test_both_games_of_a_pair_see_the_same_cards_with_the_players_swapped() -> None:
    config = TournamentConfig(("simple", "random"), Ruleset.preset("eaai"), deals=4, seed=11)
    seen = _record(config, 4)
    compared = 0
    for deal in range(4):
        first, second = seen[deal, 0], seen[deal, 1]
        assert first and second
        for number in set(first) & set(second):
            deck, dealer, cards = first[number]
            deck2, dealer2, cards2 = second[number]
            assert deck == deck2 and dealer == dealer2
            assert cards[0] == cards2[1] and cards[1] == cards2[0]  # the players swapped
            compared += 1
    assert compared >= 8  # every match has at least one hand, most several
    decks = {seen[deal, 0][0][0] for deal in range(4)}
    assert len(decks) == 4  # different deals, different decks


def test_arena_three_players_rotates_the_seats() -> None:
    rules = Ruleset.preset("arena", players=3)
    config = TournamentConfig(("simple", "random", "simple"), rules, deals=2, seed=3)
    games = play_deal(config, 0)
    assert [g.rotation for g in games] == [0, 1, 2]
    assert [g.seats for g in games] == [(0, 1, 2), (2, 0, 1), (1, 2, 0)]
    for player in range(3):  # each player sits once in each seat
        assert sorted(g.seats.index(player) for g in games) == [0, 1, 2]
    seen = _record(config, 1)
    hands = [seen[0, r][0] for r in range(3)]
    assert len({deck for deck, _, _ in hands}) == 1 and len({d for _, d, _ in hands}) == 1
    # the cards of seat s go to the player sitting there in each rotation
    for s in range(3):
        held = {hands[r][2][core.seat_players(r, 3)[s]] for r in range(3)}
        assert len(held) == 1
    for game in games:  # single hand: the points are minus the penalties, zero-sum winner
        assert game.winner is not None and game.scores[game.winner] == 0
        assert all(score <= 0 for score in game.scores)


def test_bots_get_the_same_seed_in_every_rotation(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[str, int | None, float | None]] = []
    original = core.make_bot

    def spy(spec: str, seed: int | None = None, budget_ms: float | None = None) -> Bot:
        made.append((spec, seed, budget_ms))
        return original(spec, seed, budget_ms)

    monkeypatch.setattr(core, "make_bot", spy)
    config = TournamentConfig(("random", "simple:40"), Ruleset.preset("classic"), deals=1,
                              seed=5, budget_ms=25.0, unit=Unit.HAND)
    play_deal(config, 0)
    first, second = made[:2], made[2:]
    assert first == [("random", core.bot_seed(5, 0, 0), 25.0),
                     ("simple:40", core.bot_seed(5, 0, 1), 40.0)]
    assert second == first[::-1]  # rotation 1: player 1 at seat 0


def test_randomness_depends_only_on_the_seed_and_the_indices() -> None:
    assert core.derive_seed(1, "deck", 0, 0) == core.derive_seed(1, "deck", 0, 0)
    assert core.derive_seed(1, "deck", 0, 0) != core.derive_seed(1, "deck", 0, 1)
    assert core.derive_seed(1, "deck", 0, 0) != core.derive_seed(2, "deck", 0, 0)
    assert core.derive_seed(1, "deck", 1, 0) != core.derive_seed(1, "deck", 0, 1)
    # pinned: a change here changes every published figure
    assert core.derive_seed(1, "deck", 0, 0) == 0x825089F19E7279C1
    assert sorted(core.deck_order(1, 0, 0)) == list(range(52))
    first = core.reshuffle_rng(1, 2, 3, 0)
    again = core.reshuffle_rng(1, 2, 3, 0)
    assert [first.random() for _ in range(3)] == [again.random() for _ in range(3)]
    assert core.first_dealer(1, 0, 2) in (0, 1)


class _Hoarder:
    """Draws from the stock, throws its highest card and knocks only after a reshuffle: its
    play depends only on the cards of its seat, so every rotation of a deal plays out
    identically."""

    name = "hoarder"

    def __init__(self, seed: int | None = None, budget_ms: float | None = None) -> None:
        pass

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        for action in legal:
            if isinstance(action, (Pass, DrawStock)):
                return action
            if isinstance(action, Knock) and view.reshuffles:
                return action
        discards = [a for a in legal if isinstance(a, Discard)]
        if discards:
            return max(discards, key=lambda a: a.card)
        return legal[0]


def test_reshuffles_are_the_same_in_every_rotation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, "hoarder", _Hoarder)
    config = TournamentConfig(("hoarder", "hoarder"), Ruleset.preset("arena"), deals=2, seed=2,
                              max_hands=200)
    logs: dict[tuple[int, int, int], list[Any]] = {}

    def observer(deal: int, rotation: int, number: int, hand: Hand) -> None:
        logs[deal, rotation, number] = list(hand.log)

    for deal in range(2):
        play_deal(config, deal, observer)
    reshuffles = [a for log in logs.values() for _, a in log if isinstance(a, Reshuffle)]
    assert reshuffles, "nobody knocks before a reshuffle"
    for (deal, rotation, number), log in logs.items():
        assert log == logs[deal, 1 - rotation, number]  # reshuffle orders included
    assert logs[0, 0, 0] != logs[1, 0, 0]


def test_an_endless_hand_stops_the_tournament_with_a_clear_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, "swapper", Swapper)
    monkeypatch.setattr(core, "MAX_DECISIONS", 300)
    config = TournamentConfig(("swapper", "swapper"), Ruleset.preset("eaai"), deals=1, seed=4)
    with pytest.raises(core.EndlessHand, match="did not end after 300 decisions") as caught:
        play_deal(config, 0)
    assert any("deal 0, rotation 0, hand 0" in note for note in caught.value.__notes__)
    # the built-in levels never get there: simple against itself ends every hand
    simple = TournamentConfig(("simple", "simple"), Ruleset.preset("eaai"), deals=3, seed=4)
    assert all(game.decisions for deal in range(3) for game in play_deal(simple, deal))


def test_same_seed_same_results_and_jobs_do_not_matter() -> None:
    base = TournamentConfig(("simple", "random"), Ruleset.preset("eaai"), deals=6, seed=9)
    one = run_tournament(base)
    again = run_tournament(base)
    two = run_tournament(TournamentConfig(base.players, base.rules, deals=6, seed=9, jobs=2))
    strip = deterministic
    assert strip(one.to_dict()) == strip(again.to_dict()) == strip(two.to_dict())
    other = run_tournament(TournamentConfig(base.players, base.rules, deals=6, seed=10))
    assert strip(other.to_dict())["deals"] != strip(one.to_dict())["deals"]



def test_hand_mode_plays_one_hand_per_game() -> None:
    config = TournamentConfig(("simple", "random"), Ruleset.preset("classic"), deals=5, seed=4,
                              unit=Unit.HAND)
    result = run_tournament(config)
    assert len(result.games) == 10 and all(g.hands == 1 for g in result.games)
    for game in result.games:
        assert game.scores == game.points  # a hand's points, no end bonus
    randoms = run_tournament(TournamentConfig(("random", "random"), Ruleset.preset("classic"),
                                              deals=5, seed=4, unit=Unit.HAND))
    voids = randoms.outcomes()["void"]
    assert voids > 0  # random players rarely knock before the stock runs out
    for stats in randoms.player_stats():
        assert stats.counts["void"] == voids and stats.rates()["void"] == voids / 10
        # a void hand is a tie: half a win each
        assert stats.wins == voids / 2 + sum(g.winner == stats.player for g in randoms.games)
    single = TournamentConfig(("simple", "random"), Ruleset.preset("arena"), deals=1, seed=4,
                              unit=Unit.HAND)
    assert single.unit is Unit.MATCH  # a single-hand game is already one hand


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"players": ("simple",)}, "1 players given but the rules seat 2"),
    ({"players": ("simple", "nobody")}, "unknown player 'nobody'"),
    ({"deals": 0}, "deals must be a whole number >= 1"),
    ({"jobs": 0}, "jobs must be a whole number >= 1"),
    ({"budget_ms": -1.0}, "budget_ms must be positive"),
])
def test_bad_configurations_are_refused(kwargs: dict[str, Any], message: str) -> None:
    settings: dict[str, Any] = {"players": ("simple", "random"),
                                "rules": Ruleset.preset("eaai"), "deals": 2, "seed": 1}
    with pytest.raises(ValueError, match=message):
        TournamentConfig(**(settings | kwargs))


def test_chunks_cover_every_deal_once() -> None:
    for deals, workers in ((1, 1), (7, 2), (100, 2), (1000, 3)):
        chunks = chunk_deals(deals, workers)
        assert [d for chunk in chunks for d in chunk] == list(range(deals))
        assert max(len(c) for c in chunks) <= 64
    assert len(chunk_deals(100, 2)) >= 8  # enough chunks to balance and report progress


def test_doc_examples_run() -> None:
    doc = Path(__file__).resolve().parents[2] / "docs" / "tournament.md"
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    assert blocks
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(doc), "exec"), namespace)
