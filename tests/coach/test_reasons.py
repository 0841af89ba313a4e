"""The coach's reasons in words (ginrummy.coach.reasons): the rule that applies names the
cards, the text reads in English, and every code has a message in the four catalogues."""

from __future__ import annotations

import json

from ginrummy.actions import DRAW_DISCARD, DRAW_STOCK, Discard, Knock
from ginrummy.bots.rollout import wants_card
from ginrummy.cards import CARD_VALUES, card_name
from ginrummy.coach.reasons import CODES, reason_for
from ginrummy.engine import Phase
from ginrummy.rules import Ruleset
from ginrummy.solver import best_melds, deadwood_mask
from ginrummy.solver.discards import loose_cards_mask
from ginrummy.views import view
from ginrummy.web import LANGUAGES, STATIC_DIR
from helpers import simple_positions

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
                assert reason_for(v, knocks[0], Discard(loose[0])).code == "undercut_risk"
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
