"""Per-seat views: what each seat (or a spectator) may know, and nothing more (R3.4, R4.8)."""

from __future__ import annotations

import json

import pytest

from ginrummy.actions import DrawStock, Reshuffle
from ginrummy.bots import SimpleBot
from ginrummy.cards import card_name, cards_of
from ginrummy.engine import Hand, Phase
from ginrummy.gameloop import play_match
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.views import PlayerView, view
from helpers import card, cards, draw_and_discard, make_hand, play, start_deck

CLASSIC = Ruleset.preset("classic")
ARENA = Ruleset.preset("arena")

HANDS = {0: "As 2s 3s 4h 4d 4c 7c 8c 9c Kd", 1: "5s 6s 7s Th Tc Ts 2h 3d 6d 8d"}


def _hand() -> Hand:
    return make_hand(CLASSIC, HANDS, upcard="Qd", stock="Ah 5c 6c")


def test_a_seat_sees_its_own_cards_and_counts_only():
    hand = _hand()
    v = view(hand, 0)
    assert v.seat == 0 and v.hand == tuple(sorted(cards(HANDS[0])))
    assert [s.count for s in v.seats] == [10, 10]
    assert v.seats[0].cards == v.hand and v.seats[1].cards is None
    assert v.upcard == card("Qd") and v.top_discard == card("Qd")
    assert v.stock_size == 31 and v.dealer == 1 and v.to_move == 0 and v.my_turn
    assert not view(hand, 1).my_turn
    text = json.dumps(v.to_dict())
    for c in cards(HANDS[1]) + hand.stock:
        assert f'"{card_name(c)}"' not in text


def test_a_spectator_sees_no_hand():
    hand = _hand()
    v = view(hand, None)
    assert v.seat is None and v.hand == () and not v.my_turn
    assert all(s.cards is None for s in v.seats)
    text = json.dumps(v.to_dict())
    for c in cards(HANDS[0]) + cards(HANDS[1]) + hand.stock:
        assert f'"{card_name(c)}"' not in text


def test_a_bad_seat_is_refused():
    hand = _hand()
    for seat in (-1, 2, 5):
        with pytest.raises(ValueError, match="seat"):
            view(hand, seat)


def test_cards_taken_from_the_pile_are_known_until_discarded():
    hand = _hand()
    play(hand, "take")  # seat 0 takes the Qd: everybody saw it
    for seat in (0, 1, None):
        v = view(hand, seat)
        assert v.seats[0].known == (card("Qd"),) and v.taken == card("Qd")
        assert '"Qd"' in json.dumps(v.to_dict())
    play(hand, "discard Kd", "take")  # seat 1 takes the Kd
    assert view(hand, 0).seats[1].known == (card("Kd"),)
    play(hand, "discard 2h", "stock", "discard Qd")  # seat 0 lets the Qd go again
    assert view(hand, 1).seats[0].known == ()
    assert view(hand, 1).seats[1].known == (card("Kd"),)


def test_stock_draws_show_the_card_to_the_drawer_only():
    hand = _hand()
    play(hand, "stock")
    mine = view(hand, 0).log[-1]
    assert isinstance(mine.action, DrawStock) and mine.card == card("Ah")
    for seat in (1, None):
        event = view(hand, seat).log[-1]
        assert event.seat == 0 and event.card is None
        assert view(hand, seat).to_dict()["log"][-1] == {"seat": 0, "action": "stock",
                                                         "card": None}
        assert '"Ah"' not in json.dumps(view(hand, seat).to_dict())
    assert view(hand, 0).to_dict()["log"][-1]["card"] == "Ah"


def test_a_view_is_a_snapshot():
    hand = _hand()
    play(hand, "stock")
    v = view(hand, 1)
    before = v.to_dict()
    log = v.log
    play(hand, "discard Ah", "take", "discard 2h")
    assert v.to_dict() == before and v.log == log
    assert v.phase is Phase.DISCARD and v.to_move == 0
    assert view(hand, 1) != v and view(hand, 1) == view(hand, 1)


def test_the_view_object_holds_nothing_hidden():
    # bots receive the object itself: none of its fields may hold other hands either
    hand = _hand()
    play(hand, "stock", "discard Ah")
    v = view(hand, 1)
    others = hand.hands[0] & ~hand.known[0]
    assert v.revealed_masks is None
    assert v.hand_mask == hand.hands[1]
    for name in PlayerView._fields:
        value = getattr(v, name)
        if isinstance(value, int) and not isinstance(value, bool) and value > 52:
            assert value & others == 0, name
        if isinstance(value, tuple):
            for item in value:
                if isinstance(item, int) and item > 52:
                    assert item & others == 0, name


def test_after_a_knock_the_view_shows_knock_layoffs_and_hands():
    hand = make_hand(CLASSIC, {0: "7h 8h 9h Th Qs Qd Qc As 2d 3c",
                               1: "5c 6c 7c 9s 9d 9c Jh 6h 4s 4d"}, stock="Kc")
    play(hand, "stock", "knock Kc [7h 8h 9h Th] [Qs Qd Qc]")
    v = view(hand, None)
    assert v.knock is not None and v.knock.knocker == 0 and v.knock.deadwood == 6
    data = v.to_dict()
    assert data["knock"]["melds"] == [["7h", "8h", "9h", "Th"], ["Qs", "Qd", "Qc"]]
    assert data["seats"][1]["cards"] is not None
    play(hand, "layoff [5c 6c 7c] [9s 9d 9c] 6h@1 Jh@1")
    data = view(hand, 0).to_dict()
    assert data["defences"][0]["layoffs"] == [["6h", 0], ["Jh", 0]]
    assert data["laid_off"][0] == ["6h", "Jh"]
    assert data["result"]["deadwood"] == [6, 8]
    assert data["log"][1]["action"] == "knock Kc [7h 8h 9h Th] [Qs Qd Qc]"


def test_gin_is_written_as_gin_in_the_view_log():
    hand = make_hand(CLASSIC, {0: "As 2s 3s 4s 5h 5d 5c 9h 9d 9c"}, stock="Kd")
    play(hand, "stock", "knock Kd [As 2s 3s 4s] [5h 5d 5c] [9h 9d 9c]")
    assert view(hand, 1).to_dict()["log"][-1]["action"].startswith("gin Kd")


def test_reshuffled_stock_order_is_never_shown():
    hand = make_hand(ARENA.replace(players=3))
    draw_and_discard(hand, len(hand.stock))
    order = tuple(reversed(hand.discards[:-1]))
    hand.apply(Reshuffle(order))
    for seat in (0, 1, 2, None):
        v = view(hand, seat)
        assert v.log[-1].action == Reshuffle(())
        text = json.dumps(v.to_dict())
        assert " ".join(card_name(c) for c in order[:3]) not in text
        assert v.stock_size == len(order)


def test_a_match_view_has_scores_and_hand_number():
    match = Match(CLASSIC, seed=3, first_dealer=1)
    start_deck(match, {0: "As 2s 3s 4s 5h 5d 5c 9h 9d 9c"}, stock="Kd")
    play(match, "stock", "gin Kd [As 2s 3s 4s] [5h 5d 5c] [9h 9d 9c]")
    start_deck(match)
    v = view(match, 1)
    assert v.hand_number == 2 and v.dealer == 0
    assert v.scores[0] > 0 and v.scores[1] == 0 and v.hands_won == (1, 0)
    data = v.to_dict()
    assert data["scores"] == list(match.scores) and data["hand_number"] == 2
    assert view(match.hand, 1).scores is None


class SpyBot(SimpleBot):
    """A simple bot that checks every view it is given against the hidden state."""

    def __init__(self, match_ref: list[Match], seat: int) -> None:
        super().__init__(seat)
        self.match_ref = match_ref
        self.seat = seat
        self.checked = 0

    def choose(self, view, legal):  # type: ignore[no-untyped-def]
        hand = self.match_ref[0].hand
        assert view.seat == self.seat
        if hand.knock is None:
            for s in view.seats:
                if s.seat != self.seat:
                    assert s.cards is None
                    hidden = hand.hands[s.seat] & ~hand.known[s.seat]
                    text = json.dumps(view.to_dict())
                    for c in cards_of(hidden):
                        if c not in hand.discard_history:
                            assert f'"{card_name(c)}"' not in text
        self.checked += 1
        return super().choose(view, legal)


@pytest.mark.parametrize(("preset", "players"), [("classic", 2), ("arena", 3), ("arena", 4)])
def test_bots_receive_only_their_views(preset, players):
    rules = Ruleset.preset(preset, players=players)
    match = Match(rules, seed=5, pool_cents=100 if players > 2 else None)
    ref = [match]
    bots = [SpyBot(ref, s) for s in range(players)]
    play_match(rules, bots, match=match)
    assert match.over and all(b.checked for b in bots)
