"""The coach's reasons in words (ginrummy.coach.reasons): the rule that applies names the
cards, the text reads in English, and every code has a message in the four catalogues."""

from __future__ import annotations

import json

from ginrummy.actions import DRAW_DISCARD, DRAW_STOCK, Discard, Knock
from ginrummy.bots.rollout import wants_card
from ginrummy.cards import CARD_VALUES, card_name
from ginrummy.coach.reasons import (
    CODES,
    UNDERCUT_SHARE,
    discard_pile_seen,
    reason_for,
    undercut_share,
)
from ginrummy.engine import Phase
from ginrummy.rules import Ruleset
from ginrummy.solver import best_melds, deadwood_mask
from ginrummy.solver.discards import loose_cards_mask
from ginrummy.views import view
from ginrummy.web import LANGUAGES, STATIC_DIR
from helpers import card, make_hand, play, simple_positions

RULES = Ruleset.preset("classic")


def test_each_rule_names_its_cards() -> None:
    seen: set[str] = set()
    for hand in simple_positions(RULES, range(6)):
        v = view(hand, hand.to_move)
        mask = v.hand_mask
        if hand.phase is Phase.DISCARD and len(hand.legal_actions()) > 1:
            melds = best_melds(mask).melds
            loose = [c for c in range(52) if loose_cards_mask(mask) >> c & 1
                     and Discard(c) in hand.legal_actions()]
            if melds and loose and Discard(melds[0][0]) in hand.legal_actions():
                reason = reason_for(v, Discard(melds[0][0]), Discard(loose[0]))
                assert reason.code == "breaks_meld"
                assert card_name(melds[0][0]) in reason.params["meld"].split()
                seen.add(reason.code)
            low = [c for c in loose if CARD_VALUES[c] < 10]
            high = [c for c in loose if CARD_VALUES[c] == 10]
            if low and high:
                reason = reason_for(v, Discard(low[0]), Discard(high[0]))
                if reason.code == "more_deadwood":
                    assert reason.params["deadwood"] == deadwood_mask(mask & ~(1 << low[0]))
                    assert reason.params["best_deadwood"] == deadwood_mask(
                        mask & ~(1 << high[0]))
                    seen.add(reason.code)
                else:
                    assert reason.code == "feeds_opponent"
            knocks = [a for a in hand.legal_actions() if isinstance(a, Knock)]
            if knocks and loose:
                assert reason_for(v, Discard(loose[0]), knocks[0]).code == "knock_now"
                risky = reason_for(v, knocks[0], Discard(loose[0]))
                share = undercut_share(v, risky.params["deadwood"])
                assert risky.params["share"] == share
                assert risky.code == ("undercut_risk" if share >= UNDERCUT_SHARE else "play_on")
                seen.add("knock_now")
        if hand.phase is Phase.DRAW and v.top_discard is not None and \
                DRAW_DISCARD in hand.legal_actions():
            top = v.top_discard
            if not wants_card(mask, top):
                reason = reason_for(v, DRAW_DISCARD, DRAW_STOCK)
                assert (reason.code, reason.params["card"]) == ("take_useless", card_name(top))
                seen.add(reason.code)
            else:
                reason = reason_for(v, DRAW_STOCK, DRAW_DISCARD)
                assert reason.code in ("take_melds", "playouts")
                if reason.code == "take_melds":
                    assert reason.params["card"] == card_name(top)
                    seen.add(reason.code)
    assert {"breaks_meld", "more_deadwood", "knock_now", "take_useless"} <= seen


def test_every_reason_reads_in_english_and_in_the_four_catalogues() -> None:
    hand = simple_positions(RULES, range(1))[3]
    v = view(hand, hand.to_move)
    reason = reason_for(v, hand.legal_actions()[0], hand.legal_actions()[-1])
    assert reason.code in CODES
    data = reason.to_dict()
    assert data["text"] == reason.text() and "{" not in data["text"]
    for lang in LANGUAGES:
        catalogue = json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text("utf-8"))
        assert sorted(k for k in catalogue if k.startswith("coach.reason.")) == sorted(
            f"coach.reason.{code}" for code in CODES), lang


# seat 0: 7h 8h one card from a run, 8c a lone card of the same value as 8h; no meld
KEEPER = "7h 8h 2c 4d 6s 8c Jd Qs Kc 3s"


def test_breaking_a_run_draw_with_a_live_third_card_names_the_pair_and_the_live_card() -> None:
    """Discarding 8h breaks 7h 8h; 8c leaves the same deadwood: the better discard keeps the
    run draw, and of its two completing cards 9h is buried in the pile: 6h is still live."""
    hand = make_hand(RULES, {0: KEEPER, 1: "Ad 5c"}, upcard="9h", stock="Ts")
    play(hand, "stock")
    v = view(hand, 0)
    reason = reason_for(v, Discard(card("8h")), Discard(card("8c")))
    assert reason.code == "keeps_run"
    assert reason.params == {"best": "8c", "cards": "7h 8h", "live": "6h"}
    assert reason.text() == "8c keeps 7h 8h, one card from a run; still live: 6h"


def test_no_live_card_no_keeps_reason() -> None:
    """Both cards that would complete 7h 8h are gone (9h buried, 6h discarded by the
    opponent): the pair is no reason to keep."""
    hand = make_hand(RULES, {0: KEEPER, 1: "6h 5c Kd"}, upcard="9h", stock="Ts 2s Jc")
    play(hand, "stock", "discard Ts", "stock", "discard 6h", "stock")
    v = view(hand, 0)
    assert reason_for(v, Discard(card("8h")), Discard(card("8c"))).code == "playouts"


def test_breaking_a_set_draw_names_the_two_live_cards() -> None:
    """Kh Kc with Ks and Kd unseen: discarding Kc (not Qs, as much deadwood) breaks the set
    draw, and both completing cards are live."""
    hand = make_hand(RULES, {0: "Kh 2h 4c 4d 6s 8c Jd Qs Kc 3s", 1: "Ad 5c"}, upcard="9h",
                     stock="Ts")
    play(hand, "stock")
    reason = reason_for(view(hand, 0), Discard(card("Kc")), Discard(card("Qs")))
    assert reason.code == "keeps_set" and reason.params["best"] == "Qs"
    assert set(reason.params["cards"].split()) == {"Kh", "Kc"}
    assert set(reason.params["live"].split()) == {"Ks", "Kd"}


def test_discarding_next_to_what_the_opponent_picked_up_is_named() -> None:
    """The opponent took 9h from the pile: discarding 8h (its neighbour) feeds it, 8c does
    not."""
    hand = make_hand(RULES, {0: KEEPER, 1: "Kd 5c"}, upcard="Ks", stock="9h Ts")
    play(hand, "stock", "discard 9h", "take", "discard Kd", "stock")
    v = view(hand, 0)
    reason = reason_for(v, Discard(card("8h")), Discard(card("8c")))
    assert (reason.code, reason.params) == ("feeds_opponent", {"card": "8h", "taken": "9h"})
    assert reason.text() == "discards 8h, next to 9h that the opponent picked up"


def test_a_knock_named_an_undercut_risk_by_the_belief_share() -> None:
    """The share of the opponent's sampled hands as low as the knock grows with the knock's
    deadwood, and names the reason: an undercut risk from UNDERCUT_SHARE, else play on."""
    hand = make_hand(RULES, {0: "Ah 2h 3h 4s 5s 6s 7d 8d 9d Kc", 1: "5c"}, upcard="Qs",
                     stock="2c")
    play(hand, "stock")
    v = view(hand, 0)
    knock = next(a for a in hand.legal_actions()
                 if isinstance(a, Knock) and a.discard == card("Kc"))
    shares = [undercut_share(v, deadwood) for deadwood in (0, 10, 30, 60, 100)]
    assert shares == sorted(shares) and shares[0] < shares[-1] == 100  # 10 cards hold <= 100
    reason = reason_for(v, knock, Discard(card("2c")))
    assert reason.params["deadwood"] == 2
    assert reason.params["share"] == undercut_share(v, 2)
    assert reason.code == ("undercut_risk" if reason.params["share"] >= UNDERCUT_SHARE
                           else "play_on")


def test_the_discard_pile_shown_is_the_one_the_player_saw_form() -> None:
    """Classic rules hide the pile below the top card, but every card of it was shown face
    up: the coach replays the view's log into the pile, equal to the engine's."""
    assert not RULES.discard_history_visible
    for hand in simple_positions(RULES, range(3)):
        if hand.to_move in (0, 1):
            assert view(hand, hand.to_move).discard_pile is None
            assert discard_pile_seen(view(hand, hand.to_move)) == tuple(hand.discards)


def test_a_face_up_card_one_card_from_a_meld_names_its_pair_and_live_cards() -> None:
    """8h face up, 7h in the hand, 6h and 9h unseen: taking 8h makes a run draw; once 9h is
    in the opponent's hand (taken from the pile), only 6h is live."""
    hand = make_hand(RULES, {0: "7h 2c 4d 6s 9c Jd Qs Kc 3s Ad"}, upcard="8h")
    v = view(hand, 0)
    reason = reason_for(v, DRAW_STOCK, DRAW_DISCARD)
    assert (reason.code, reason.params) == (
        "take_near", {"card": "8h", "cards": "7h", "live": "6h 9h"})
    assert reason.text() == "8h with 7h is one card from a meld; still live: 6h 9h"
    hand = make_hand(RULES, {0: "7h 2c 4d 6s 9c Jd Qs Kc 3s Ad", 1: "8h"}, upcard="Ks",
                     stock="9h")
    play(hand, "stock", "discard 9h", "take", "discard 8h")
    v = view(hand, 0)
    assert (hand.to_move, hand.phase, v.top_discard) == (0, Phase.DRAW, card("8h"))
    reason = reason_for(v, DRAW_STOCK, DRAW_DISCARD)
    assert (reason.code, reason.params["live"]) == ("take_near", "6h")
