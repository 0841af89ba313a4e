"""Hands, views and matches survive pickling (process pools, checkpoints)."""

from __future__ import annotations

import copy
import pickle

from ginrummy.bots import make_bot
from ginrummy.engine import Hand
from ginrummy.gameloop import play_match
from ginrummy.rules import Ruleset
from ginrummy.views import view


def test_hand_view_and_match_round_trip_through_pickle() -> None:
    hand = Hand.deal(Ruleset.preset("arena", players=3), 0, seed=3)
    for _ in range(12):
        hand.apply(hand.legal_actions()[0])
    for clone in (pickle.loads(pickle.dumps(hand)), copy.deepcopy(hand)):
        assert clone.snapshot() == hand.snapshot()
        clone.apply(clone.legal_actions()[0])  # and it plays on independently
        assert clone.snapshot() != hand.snapshot()
    seen = view(hand, 1)
    assert pickle.loads(pickle.dumps(seen)) == seen
    match = play_match(Ruleset.preset("classic"), [make_bot("simple", 1), make_bot("simple", 2)],
                       seed=1)
    assert pickle.loads(pickle.dumps(match)).result == match.result
