"""The play-outs' discard: a loose card one draw from a meld is kept over a lone card a
little higher, a much higher lone card still goes, and melds are never broken."""

from __future__ import annotations

from ginrummy.bots.rollout import policy_discard
from ginrummy.cards import card_name, parse_card


def _mask(cards: str) -> int:
    mask = 0
    for name in cards.split():
        mask |= 1 << parse_card(name)
    return mask


def _discard(cards: str, forbidden: str | None = None) -> str:
    card, _ = policy_discard(_mask(cards), None if forbidden is None else parse_card(forbidden))
    return card_name(card)


def test_a_pair_one_card_from_a_run_is_kept_over_a_lone_higher_card() -> None:
    # 2c 3c 4c and 5d 5h 5s are melds; Qh Kh are one card from a run, the Jc is alone
    assert _discard("2c 3c 4c 5d 5h 5s Qh Kh Jc 9s 8d") == "Jc"
    assert _discard("2c 3c 4c 5d 5h 5s 9h 9d Td 2s 3d") == "Td"  # a pair of nines too


def test_a_lone_card_much_higher_still_goes_before_a_low_pair() -> None:
    assert _discard("2c 3c 4c 5d 5h 5s Kd 2h 2s 7c Ac") == "Kd"


def test_the_melds_are_kept_and_the_card_just_taken_is_not_discarded() -> None:
    hand = "2c 3c 4c 5d 5h 5s 9h Th Jh Qs Kd"
    assert _discard(hand) in ("Kd", "Qs")
    assert _discard(hand, forbidden="Kd") == "Qs"
