"""Layoffs onto the knocker's melds (R4.4, R4.5, R4.6) and the best defence."""

from __future__ import annotations

import random

import oracle
import pytest

from ginrummy.cards import CardSet, parse_card, parse_card_list
from ginrummy.solver import (
    Chaining,
    Defence,
    LayoffTarget,
    best_defence,
    best_melds,
    check_layoffs,
    defence_deadwood_mask,
    is_meld,
    layoff_options_mask,
    layoff_targets,
)


def cards(text: str) -> list[int]:
    return parse_card_list(text)


def c(text: str) -> int:
    return parse_card(text)


def test_R4_6_worked_layoff_example() -> None:
    knocker = [cards("7h 8h 9h Th")]
    hand = cards("As 2s 3s Qs Qd Qc Jh 6h 4d 4c")
    assert best_melds(hand).deadwood == 24
    for chain in ("own", "none"):
        defence = best_defence(hand, knocker, chain=chain)
        assert defence.deadwood == 8
        assert defence.layoffs == ((c("6h"), 0), (c("Jh"), 0))
        assert defence.melds == (tuple(cards("As 2s 3s")), tuple(cards("Qs Qd Qc")))
        assert defence.unmatched == tuple(cards("4d 4c"))
        assert check_layoffs(knocker, defence.layoffs, chain=chain) is None
    assert str(best_defence(hand, knocker)) == (
        "[As 2s 3s] [Qs Qd Qc] lay off 6h>0 Jh>0 | 4d 4c (8)")


def test_R4_4_set_takes_its_fourth_card() -> None:
    knocker = [cards("5s 5h 5d"), cards("9c Tc Jc")]
    assert best_defence(cards("5c Kd"), knocker) == Defence((), ((c("5c"), 0),), (c("Kd"),), 10)
    assert check_layoffs(knocker, [(c("5c"), 0)]) is None
    assert check_layoffs(knocker, [(c("6c"), 0)]) == (
        "6c cannot go on meld 1 (5s 5h 5d): a set takes only its rank")
    four = [cards("5s 5h 5d 5c")]
    assert layoff_targets(four)[0].adjacent == ()
    assert best_defence(cards("4c 6c"), four).layoffs == ()


def test_R4_4_run_takes_cards_at_either_end() -> None:
    knocker = [cards("5h 6h 7h")]
    defence = best_defence(cards("4h 8h Kc"), knocker)
    assert defence.layoffs == ((c("4h"), 0), (c("8h"), 0))
    assert defence.deadwood == 10
    assert check_layoffs(knocker, [(c("8h"), 0), (c("4h"), 0)]) is None
    assert check_layoffs(knocker, [(c("8d"), 0)]) == (
        "8d cannot extend meld 1 (5h 6h 7h): not of its suit")


def test_R4_5_chain_own_extends_with_several_own_cards() -> None:
    knocker = [cards("As 2s 3s"), cards("Kd Kc Ks"), cards("5h 6h 7h")]
    assert check_layoffs(knocker, [(c("8h"), 2), (c("9h"), 2)]) is None
    assert check_layoffs(knocker, [(c("9h"), 2), (c("8h"), 2)]) is None
    assert check_layoffs(knocker, [(c("9h"), 2)]) == (
        "9h cannot extend meld 3 (5h 6h 7h): it must be adjacent")
    assert check_layoffs(knocker, [(c("4h"), 2), (c("2h"), 2), (c("3h"), 2)]) is None
    defence = best_defence(cards("8h 9h 2h Qc"), knocker)
    assert defence.layoffs == ((c("8h"), 2), (c("9h"), 2))
    assert defence.deadwood == 12
    # 8h 9h 10h is as good kept as his own meld: the first found, with no layoff, is proposed
    assert best_defence(cards("8h 9h Th 2h Qc"), knocker).layoffs == ()


def test_R4_5_chain_none_only_cards_adjacent_to_the_knockers_cards() -> None:
    knocker = [cards("5h 6h 7h")]
    assert check_layoffs(knocker, [(c("8h"), 0)], chain="none") is None
    assert check_layoffs(knocker, [(c("8h"), 0), (c("9h"), 0)], chain="none") == (
        "9h cannot extend meld 1 (5h 6h 7h): only a card adjacent to the knocker's own cards "
        "may be laid off (layoff chain 'none')")
    assert check_layoffs(knocker, [(c("4h"), 0), (c("8h"), 0)], chain="none") is None
    defence = best_defence(cards("8h 9h Kc"), knocker, chain=Chaining.NONE)
    assert defence.layoffs == ((c("8h"), 0),)
    assert defence.deadwood == 19
    # his own 8h 9h 10h is a meld of his own either way
    assert best_defence(cards("8h 9h Th"), knocker, chain="none").deadwood == 0


def test_R4_4_never_onto_an_earlier_defenders_cards() -> None:
    knocker = [cards("5h 6h 7h"), cards("Js Jh Jd")]
    laid = [cards("8h"), cards("Jc")]
    assert check_layoffs(knocker, [(c("9h"), 0)], laid_off=laid) == (
        "9h cannot extend meld 1 (5h 6h 7h): an earlier defender already extended that end")
    assert check_layoffs(knocker, [(c("4h"), 0)], laid_off=laid) is None
    assert check_layoffs(knocker, [(c("8h"), 0)], laid_off=laid) == "8h is already on the table"
    targets = layoff_targets(knocker, laid_off=laid)
    assert targets[0].low == (c("4h"), c("3h"), c("2h"), c("Ah")) and targets[0].high == ()
    assert targets[1].fourth is None
    defence = best_defence(cards("9h Th 4h"), knocker, laid_off=laid)
    assert defence.layoffs == ((c("4h"), 0),)
    assert defence.deadwood == 19
    assert check_layoffs(knocker, [(c("Jc"), 1)], laid_off=[[], []]) is None
    assert check_layoffs(knocker, [(c("Jc"), 1)], laid_off=laid) == "Jc is already on the table"
    with pytest.raises(ValueError, match="already on the table"):
        check_layoffs(knocker, [], laid_off=[cards("Jh"), []])


def test_R4_4_multi_defender_closure_in_turn() -> None:
    knocker = [cards("5h 6h 7h")]
    first = best_defence(cards("8h 9h Kc Kd"), knocker)
    assert first.layoffs == ((c("8h"), 0), (c("9h"), 0))
    laid = [[card for card, _ in first.layoffs]]
    second = best_defence(cards("Th 4h Qc"), knocker, laid_off=laid)
    assert second.layoffs == ((c("4h"), 0),)
    assert check_layoffs(knocker, [(c("Th"), 0)], laid_off=laid) is not None


def test_R4_4_a_card_fitting_two_melds_is_tried_on_both() -> None:
    knocker = [cards("5s 5h 5d"), cards("6c 7c 8c")]
    # 5c alone: either meld; combinations with fewer cards on meld 0 are tried first
    assert best_defence(cards("5c Kd"), knocker).layoffs == ((c("5c"), 1),)
    assert best_defence(cards("5c Kd"), knocker[::-1]).layoffs == ((c("5c"), 1),)
    # 4c 5c: only the run takes both
    defence = best_defence(cards("4c 5c Kd"), knocker)
    assert defence.layoffs == ((c("5c"), 1), (c("4c"), 1))
    assert defence.deadwood == 10
    # with chain none the run takes only 5c, which is then better on either: 4c stays
    assert best_defence(cards("4c 5c Kd"), knocker, chain="none").deadwood == 14


def test_R4_4_gap_between_two_knocker_runs() -> None:
    knocker = [cards("2h 3h 4h"), cards("6h 7h 8h")]
    targets = layoff_targets(knocker)
    assert targets[0].high == (c("5h"),) and targets[1].low == (c("5h"),)
    assert targets[0].low == (c("Ah"),)
    assert check_layoffs(knocker, [(c("5h"), 0), (c("5h"), 1)]) == "5h is laid off twice"
    assert check_layoffs(knocker, [(c("5h"), 1), (c("9h"), 1)]) is None


def test_R1_1_layoffs_never_wrap() -> None:
    knocker = [cards("Jh Qh Kh")]
    assert check_layoffs(knocker, [(c("Ah"), 0)]) == (
        "Ah cannot extend meld 1 (Jh Qh Kh): runs never wrap")
    assert layoff_targets(knocker)[0].high == ()


def test_check_layoffs_messages_and_malformed_input() -> None:
    with pytest.raises(ValueError, match="share"):
        check_layoffs([cards("5s 5h 5d"), cards("5h 6h 7h")], [])
    knocker = [cards("5s 5h 5d 5c"), cards("6h 7h 8h")]
    assert check_layoffs(knocker, [(c("9h"), 1)]) is None
    assert check_layoffs(knocker, []) is None
    assert check_layoffs(knocker, [(c("4h"), 1)]) == (
        "4h cannot extend meld 2 (6h 7h 8h): it must be adjacent")
    assert check_layoffs(knocker, [(c("5h"), 1)]) == "5h is already on the table"
    three = [cards("5s 5h 5d")]
    assert check_layoffs(three, [(c("5c"), 0)], laid_off=[cards("5c")]) == (
        "5c is already on the table")
    with pytest.raises(ValueError, match="no knocker meld 3"):
        check_layoffs(knocker, [(c("9h"), 2)])
    with pytest.raises(ValueError, match="not a card"):
        check_layoffs(knocker, [(99, 0)])
    with pytest.raises(ValueError, match="pair"):
        check_layoffs(knocker, [(1, 2, 3)])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="is not a meld"):
        check_layoffs([cards("5s 6h 7d")], [])
    with pytest.raises(ValueError, match="laid_off lists 1 melds"):
        check_layoffs(knocker, [], laid_off=[[]])
    with pytest.raises(ValueError, match="does not extend"):
        check_layoffs(knocker, [], laid_off=[[], cards("Th")])
    with pytest.raises(ValueError, match="layoff chain"):
        check_layoffs(knocker, [], chain="some")


def test_best_defence_refuses_bad_input() -> None:
    knocker = [cards("5h 6h 7h")]
    with pytest.raises(ValueError, match="both in the hand and on the table"):
        best_defence(cards("5h 9c"), knocker)
    with pytest.raises(ValueError, match="not a card"):
        best_defence([77], knocker)


def test_layoff_targets_structure() -> None:
    targets = layoff_targets([cards("5h 6h 7h"), cards("Qs Qh Qc")], chain="none")
    assert targets == [
        LayoffTarget(0, "run", tuple(cards("5h 6h 7h")), (), None, (c("4h"),), (c("8h"),)),
        LayoffTarget(1, "set", tuple(cards("Qs Qh Qc")), (), c("Qd"), (), ()),
    ]
    assert targets[0].adjacent == (c("4h"), c("8h"))
    assert CardSet(targets[1].mask) == CardSet.parse("Qd")
    own = layoff_targets([cards("5h 6h 7h")])[0]
    assert own.low == tuple(cards("4h 3h 2h Ah")) and own.high == tuple(cards("8h 9h Th Jh Qh Kh"))
    assert own.describe() == "meld 1 (5h 6h 7h)"


# --------------------------------------------------------------------------- random


def _knocker_melds(rng: random.Random, deck: list[int]) -> list[list[int]]:
    low = rng.randrange(0, 9)
    band = [card for card in deck if low <= card % 13 < low + 5]
    hand = rng.sample(band, min(len(band), 10))
    melds = [list(m) for m in best_melds(hand).melds]
    out: list[list[int]] = []
    for meld in melds:
        if len(meld) >= 6 and oracle.is_run(meld) and rng.random() < 0.5:
            cut = rng.randint(3, len(meld) - 3)
            out += [meld[:cut], meld[cut:]]
        else:
            out.append(meld)
    return out


def _situation(
    rng: random.Random,
) -> tuple[list[list[int]], list[list[int]], str, int]:
    deck = list(range(52))
    rng.shuffle(deck)
    melds: list[list[int]] = []
    while not melds:
        melds = _knocker_melds(rng, deck)
    table = oracle.mask_of(x for m in melds for x in m)
    rest = [x for x in deck if not table >> x & 1]
    chain = rng.choice(("own", "none"))
    laid: list[list[int]] = [[] for _ in melds]
    near = [x for x in rest if any(abs(x % 13 - m[0] % 13) <= 4 for m in melds)]
    if rng.random() < 0.4:
        earlier = rng.sample(near, min(len(near), 7))
        for card, index in best_defence(earlier, melds, chain=chain).layoffs:
            laid[index].append(card)
        gone = oracle.mask_of(earlier)
        near = [x for x in near if not gone >> x & 1]
    hand = oracle.mask_of(rng.sample(near, min(len(near), rng.randint(4, 10))))
    return melds, laid, chain, hand


@pytest.mark.parametrize("seed", range(3))
def test_R4_4_best_defence_matches_brute_force(seed: int) -> None:
    rng = random.Random(300 + seed)
    laid_some = 0
    for _ in range(700):
        melds, laid, chain, hand = _situation(rng)
        laid_some += any(laid)
        defence = best_defence(hand, melds, chain=chain, laid_off=laid)
        expected = oracle.best_defence_deadwood(hand, melds, laid, chain)
        assert defence.deadwood == expected, (melds, laid, chain, CardSet(hand))
        assignment = dict(defence.layoffs)
        assert len(assignment) == len(defence.layoffs)
        assert oracle.can_lay_off(melds, laid, assignment, chain)
        assert check_layoffs(melds, defence.layoffs, chain=chain, laid_off=laid) is None
        used = oracle.mask_of(assignment)
        for meld in defence.melds:
            assert is_meld(meld)
            assert not used & oracle.mask_of(meld)
            used |= oracle.mask_of(meld)
        assert not used & oracle.mask_of(defence.unmatched)
        assert used | oracle.mask_of(defence.unmatched) == hand
        assert sum(oracle.value(x) for x in defence.unmatched) == defence.deadwood
        assert defence == best_defence(CardSet(hand), melds, chain=chain, laid_off=laid)
    assert laid_some > 50


def test_R4_4_defence_deadwood_mask_is_the_best_defences_for_every_defender() -> None:
    """The mask-level fast path (the expert's play-outs): the same least deadwood as
    best_defence, for a later defender too, from options that ignore earlier layoffs."""
    rng = random.Random(77)
    laid_some = 0
    for _ in range(1500):
        melds, laid, chain, hand = _situation(rng)
        laid_some += any(laid)
        options = layoff_options_mask(melds, Chaining(chain))
        expected = best_defence(hand, melds, chain=chain, laid_off=laid).deadwood
        assert defence_deadwood_mask(hand, options) == expected, (melds, laid, chain)
    assert laid_some > 100


@pytest.mark.parametrize("seed", range(2))
def test_R4_5_check_layoffs_matches_the_oracle(seed: int) -> None:
    rng = random.Random(400 + seed)
    legal = 0
    for _ in range(3000):
        melds, laid, chain, hand = _situation(rng)
        cands = [x for x in oracle.cards_in(hand) if oracle.possible_targets(x, melds)]
        chosen = rng.sample(cands, rng.randint(0, min(4, len(cands))))
        pairs = [(x, rng.choice(oracle.possible_targets(x, melds))) for x in chosen]
        if rng.random() < 0.1 and pairs:
            pairs.append((pairs[0][0], rng.randrange(len(melds))))
        expected = oracle.can_lay_off(melds, laid, dict(pairs), chain) and len(
            {x for x, _ in pairs}) == len(pairs)
        got = check_layoffs(melds, pairs, chain=chain, laid_off=laid)
        assert (got is None) == expected, (melds, laid, chain, pairs, got)
        reordered = list(reversed(pairs))
        assert check_layoffs(melds, reordered, chain=chain, laid_off=laid) == got
        legal += got is None
    assert legal > 1000
