"""``ginrummy.fair``: the shuffle matches the vectors of docs/fair.md, is a permutation that
every seed changes, draws without modulo bias, looks uniform, and verify_hand names what
differs in a tampered hand."""

from __future__ import annotations

import hashlib
import importlib.util
import random
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fair_helpers import fair_match_record
from ginrummy import fair
from ginrummy.actions import Reshuffle, parse_action
from ginrummy.cards import format_cards, parse_card_list, rank_of, suit_of
from ginrummy.engine import Hand
from ginrummy.rules import Ruleset

DOC = Path(__file__).resolve().parent.parent / "docs" / "fair.md"
VECTOR_BLOCK = re.compile(r"```text\n(vector: .*?)```", re.S)


def doc_vectors() -> list[dict[str, str]]:
    """The test vectors of docs/fair.md, as key: value dicts."""
    vectors = []
    for block in VECTOR_BLOCK.findall(DOC.read_text(encoding="utf-8")):
        entry = {}
        for line in block.strip().splitlines():
            key, _, value = line.partition(":")
            entry[key.strip()] = value.strip()
        vectors.append(entry)
    return vectors


def seeds_of(vector: dict[str, str]) -> tuple[bytes, list[bytes]]:
    return (bytes.fromhex(vector["server_seed"]),
            [bytes.fromhex(s) for s in vector["client_seeds"].split()])


VECTORS = doc_vectors()
seed_bytes = st.binary(min_size=1, max_size=fair.MAX_CLIENT_SEED_BYTES)
server_seeds = st.binary(min_size=32, max_size=32)


def test_the_doc_has_deal_and_reshuffle_vectors() -> None:
    assert sum("deal" in v for v in VECTORS) >= 6
    assert sum("order" in v for v in VECTORS) >= 2
    assert {len(seeds_of(v)[1]) for v in VECTORS if "deal" in v} >= {2, 3, 4}
    assert any("rejected_word" in v for v in VECTORS)  # issue 26 point 7
    assert any(v.get("scheme") == "2" and "first_dealer" in v for v in VECTORS)


def draws_without_rejection(server_seed: bytes, client_seeds: list[bytes]) -> list[int]:
    """The deck of a verifier that forgets rejection sampling (``w mod n`` always)."""
    stream = fair.keystream(server_seed, client_seeds, "deal")
    words = [int.from_bytes(b[k:k + 4], "big") for b in (next(stream) for _ in range(8))
             for k in range(0, 32, 4)]
    order = list(range(52))
    for n, i in enumerate(range(51, 0, -1)):
        j = words[n] % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


@pytest.mark.parametrize("vector", [v for v in VECTORS if "rejected_word" in v],
                         ids=lambda v: v["vector"])
def test_the_rejection_vector_rejects_its_word(vector: dict[str, str]) -> None:
    """Issue 26 point 7: a vector where rejection sampling matters."""
    server_seed, client_seeds = seeds_of(vector)
    blocks = fair.keystream(server_seed, client_seeds, "deal")
    block3 = [next(blocks) for _ in range(4)][3]
    assert block3.hex() == vector["block3"]
    index = int(vector["rejected_word"])  # a word of block 3 (words 24-31)
    word = int.from_bytes(block3[(index - 24) * 4:(index - 23) * 4], "big")
    bound = 52 - index  # the draw of word `index`, none rejected before it: below 52 - index
    assert word >= fair.rejection_limit(bound)
    drawer = fair.UniformDrawer(fair.keystream(server_seed, client_seeds, "deal"))
    for i in range(51, 51 - index, -1):
        drawer.below(i + 1)
    assert drawer.rejected == 0
    drawer.below(bound)
    assert drawer.rejected == 1
    assert format_cards(fair.deck(server_seed, client_seeds)) == vector["deal"]
    assert format_cards(draws_without_rejection(server_seed, client_seeds)) != vector["deal"]
    for other in (v for v in VECTORS if "deal" in v and v is not vector):
        seeds = seeds_of(other)
        assert fair.deck(*seeds) == draws_without_rejection(*seeds)  # none needs it


@pytest.mark.parametrize("vector", [v for v in VECTORS if v.get("scheme") == "2"],
                         ids=lambda v: v["vector"])
def test_scheme2_vectors_of_the_doc(vector: dict[str, str]) -> None:
    """Issue 26 points 1 and 3: server-made seeds and the first dealer from the seeds."""
    server_seed, client_seeds = seeds_of(vector)
    made = [m == "true" for m in vector["server_made"].split()]
    derived = [fair.server_made_seed(server_seed, seat).hex()
               for seat in range(len(client_seeds))]
    assert derived == vector["server_made_seeds"].split()
    assert all(seed.hex() == derived[seat] for seat, seed in enumerate(client_seeds)
               if made[seat])
    players = len(client_seeds)
    assert fair.first_dealer(server_seed, client_seeds, players) == int(vector["first_dealer"])
    assert next(fair.keystream(server_seed, client_seeds, "first-dealer")).hex() == \
        vector["first_dealer_block0"]
    entry = fair.FairData(fair.commitment(server_seed), server_seed, tuple(client_seeds),
                          tuple(made), 2)
    dealt = fair.deck(server_seed, client_seeds)
    dealer = int(vector["first_dealer"])
    assert fair.verify_hand(entry, dealt, players=players, dealer=dealer) == []
    assert fair.verify_hand(entry, dealt, players=players, dealer=1 - dealer) == [
        f"the first dealer is seat {1 - dealer}, the seeds give seat {dealer}"]


@pytest.mark.parametrize("vector", [v for v in VECTORS if "deal" in v],
                         ids=lambda v: v["vector"])
def test_deal_vectors_of_the_doc(vector: dict[str, str]) -> None:
    server_seed, client_seeds = seeds_of(vector)
    assert fair.commitment(server_seed) == vector["commitment"]
    assert fair.client_digest(client_seeds).hex() == vector["client_digest"]
    assert next(fair.keystream(server_seed, client_seeds, "deal")).hex() == vector["block0"]
    assert format_cards(fair.deck(server_seed, client_seeds)) == vector["deal"]


@pytest.mark.parametrize("vector", [v for v in VECTORS if "order" in v],
                         ids=lambda v: v["vector"])
def test_reshuffle_vectors_of_the_doc(vector: dict[str, str]) -> None:
    server_seed, client_seeds = seeds_of(vector)
    index = int(vector["purpose"].removeprefix("reshuffle"))
    cards = parse_card_list(vector["cards"])
    order = fair.reshuffle_order(server_seed, client_seeds, index, cards)
    assert format_cards(order) == vector["order"]
    # the pile's order does not matter: the cards are sorted first
    assert fair.reshuffle_order(server_seed, client_seeds, index, cards[::-1]) == order


def test_the_doc_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2
    namespace: dict[str, Any] = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    # the standalone re-implementation agrees with the library on other seeds too
    for vector in VECTORS:
        server_seed, client_seeds = seeds_of(vector)
        purpose = vector.get("purpose", "deal")
        cards = parse_card_list(vector["cards"]) if "cards" in vector else list(range(52))
        mine = namespace["fair_shuffle"](server_seed, client_seeds, purpose, cards)
        assert mine == fair.shuffle(server_seed, client_seeds, purpose, cards)


@settings(max_examples=60, deadline=None)
@given(server_seeds, st.lists(seed_bytes, min_size=2, max_size=4), st.data())
def test_a_deck_is_a_permutation_and_every_seed_changes_it(
        server_seed: bytes, client_seeds: list[bytes], data: st.DataObject) -> None:
    dealt = fair.deck(server_seed, client_seeds)
    assert sorted(dealt) == list(range(52))
    assert fair.deck(server_seed, list(client_seeds)) == dealt  # deterministic
    seat = data.draw(st.integers(0, len(client_seeds) - 1), label="seat")
    other = data.draw(seed_bytes.filter(lambda s: s != client_seeds[seat]), label="new seed")
    changed = [*client_seeds[:seat], other, *client_seeds[seat + 1:]]
    assert fair.deck(server_seed, changed) != dealt
    new_server = data.draw(server_seeds.filter(lambda s: s != server_seed), label="server")
    assert fair.deck(new_server, client_seeds) != dealt
    # the seats' order counts, and so does the length prefix (no ambiguous concatenation)
    if client_seeds[0] != client_seeds[1]:
        swapped = [client_seeds[1], client_seeds[0], *client_seeds[2:]]
        assert fair.deck(server_seed, swapped) != dealt
    joined = [client_seeds[0] + client_seeds[1][:1], client_seeds[1][1:] or b"x",
              *client_seeds[2:]]
    assert fair.client_digest(joined) != fair.client_digest(client_seeds)


@settings(max_examples=40, deadline=None)
@given(server_seeds, st.lists(seed_bytes, min_size=2, max_size=4),
       st.sets(st.integers(0, 51), min_size=2, max_size=40))
def test_a_reshuffle_is_a_permutation_of_its_cards(
        server_seed: bytes, client_seeds: list[bytes], cards: set[int]) -> None:
    first = fair.reshuffle_order(server_seed, client_seeds, 1, sorted(cards))
    assert sorted(first) == sorted(cards)
    if len(cards) >= 8:  # 8! orders: distinct purposes give distinct streams
        assert fair.reshuffle_order(server_seed, client_seeds, 2, sorted(cards)) != first
        assert fair.shuffle(server_seed, client_seeds, "deal", sorted(cards)) != first


def test_rejection_bound_leaves_a_whole_number_of_each_result() -> None:
    for n in (*range(1, 60), 2**31 + 1, 2**32):
        limit = fair.rejection_limit(n)
        assert limit % n == 0  # every result has exactly limit / n words
        assert 2**32 - n < limit <= 2**32  # and as many words as possible are kept
    assert fair.rejection_limit(52) == 2**32 - 48
    with pytest.raises(fair.FairError, match="below 0"):
        fair.rejection_limit(0)


def test_drawer_skips_words_at_or_above_the_bound() -> None:
    limit = fair.rejection_limit(52)
    words = [limit, 2**32 - 1, limit - 1, 7, limit + 3, 103]
    block = b"".join(w.to_bytes(4, "big") for w in words) + bytes(8)
    drawer = fair.UniformDrawer(iter([block]))
    assert drawer.below(52) == (limit - 1) % 52  # two words rejected first
    assert drawer.rejected == 2
    assert drawer.below(52) == 7
    assert drawer.below(52) == 103 % 52  # limit + 3 rejected
    assert drawer.rejected == 3
    assert drawer.below(52) == 0  # the zero words that end the block


def chi_square_p(counts: list[int], expected: float) -> float:
    """Pearson's chi-square p-value, Wilson-Hilferty approximation (fine for df >= 3)."""
    df = len(counts) - 1
    stat = sum((c - expected) ** 2 / expected for c in counts)
    z = ((stat / df) ** (1 / 3) - (1 - 2 / (9 * df))) / (2 / (9 * df)) ** 0.5
    return 1.0 - statistics.NormalDist().cdf(z)


def test_small_chi_square_suit_and_rank_at_every_position() -> None:
    decks = 2000
    rng = random.Random(16)
    suits = [[0] * 4 for _ in range(52)]
    ranks = [[0] * 13 for _ in range(52)]
    for _ in range(decks):
        dealt = fair.deck(rng.randbytes(32), [rng.randbytes(32), rng.randbytes(32)])
        for position, card in enumerate(dealt):
            suits[position][suit_of(card)] += 1
            ranks[position][rank_of(card)] += 1
    suit_p = [chi_square_p(row, decks / 4) for row in suits]
    rank_p = [chi_square_p(row, decks / 13) for row in ranks]
    assert min(suit_p) > 1e-4 and min(rank_p) > 1e-4
    assert sum(p < 0.01 for p in suit_p + rank_p) <= 5  # ~1 expected of 104
    # a biased shuffle fails the same test: a modulo draw over 6 bits favours low cards
    biased = [[0] * 4 for _ in range(52)]
    for _ in range(decks):
        order = list(range(52))
        for i in range(51, 0, -1):
            j = rng.getrandbits(6) % (i + 1)
            order[i], order[j] = order[j], order[i]
        for position, card in enumerate(order):
            biased[position][suit_of(card)] += 1
    assert min(chi_square_p(row, decks / 4) for row in biased) < 1e-6


def test_bad_seeds_are_refused_with_the_reason() -> None:
    with pytest.raises(fair.FairError, match="32 bytes, got 31"):
        fair.deck(bytes(31), [b"a"])
    with pytest.raises(fair.FairError, match="at least one client seed"):
        fair.deck(bytes(32), [])
    with pytest.raises(fair.FairError, match="seat 1 has 65 bytes"):
        fair.deck(bytes(32), [b"a", bytes(65)])
    with pytest.raises(fair.FairError, match="seat 0 has 0 bytes"):
        fair.deck(bytes(32), [b""])
    with pytest.raises(fair.FairError, match="seat 1 is missing"):
        fair.deck(bytes(32), [b"a", None])  # type: ignore[list-item]
    with pytest.raises(fair.FairError, match="index must be 1 or more"):
        fair.reshuffle_order(bytes(32), [b"a"], 0, [1, 2])
    with pytest.raises(fair.FairError, match="distinct"):
        fair.reshuffle_order(bytes(32), [b"a"], 1, [1, 1])
    with pytest.raises(fair.FairError, match="commitment must be 64 hex"):
        fair.FairData.from_json({"commitment": "ab", "server_seed": None,
                                 "client_seeds": ["aa"], "server_made": [False]})
    with pytest.raises(fair.FairError, match="server_made must be one"):
        fair.FairData.from_json({"commitment": "0" * 64, "server_seed": None,
                                 "client_seeds": ["aa", "bb"], "server_made": [False]})
    with pytest.raises(fair.FairError, match="lacks server_made"):
        fair.FairData.from_json({"commitment": "0" * 64, "server_seed": None,
                                 "client_seeds": ["aa"]})


def test_new_seeds_are_fresh_and_commitment_is_sha256() -> None:
    seeds = {fair.new_server_seed() for _ in range(20)} | {fair.new_client_seed()}
    assert len(seeds) == 21 and all(len(s) == 32 for s in seeds)
    seed = fair.new_server_seed()
    assert fair.commitment(seed) == hashlib.sha256(seed).hexdigest()


def _fair_entry(server_seed: bytes, client_seeds: list[bytes]) -> dict[str, Any]:
    """A scheme 1 entry (short seeds, as the vectors have: scheme 2 wants 32 bytes)."""
    return fair.FairData(fair.commitment(server_seed), server_seed, tuple(client_seeds),
                         (False,) * len(client_seeds), scheme=1).to_json()


def test_verify_hand_names_what_differs() -> None:
    server_seed, client_seeds = bytes(range(32)), [b"alice", b"bob"]
    entry = _fair_entry(server_seed, client_seeds)
    dealt = fair.deck(server_seed, client_seeds)
    assert fair.verify_hand(entry, dealt) == []
    swapped = list(dealt)
    swapped[13], swapped[40] = swapped[40], swapped[13]
    [problem] = fair.verify_hand(entry, swapped)
    assert problem.startswith("the deck differs from position 14: played ")
    assert fair.verify_hand({**entry, "server_seed": None}, dealt) == [
        "the server seed is not revealed"]
    other_seed = bytes(range(1, 33))
    assert "the commitment does not match the revealed server seed" in fair.verify_hand(
        {**entry, "server_seed": other_seed.hex()}, dealt)
    assert "the commitment does not match the revealed server seed" in fair.verify_hand(
        {**entry, "commitment": "f" * 64}, dealt)
    assert fair.verify_hand({**entry, "client_seeds": ["616c696365", None]}, dealt) == [
        "no client seed for seat 1"]
    assert fair.verify_hand({**entry, "client_seeds": ["616c696365", "626f63"]}, dealt)[0] \
        .startswith("the deck differs from position ")
    assert fair.verify_hand({"commitment": 3}, dealt)[0].startswith("bad fair data: ")
    pile = dealt[21:41]
    first = fair.reshuffle_order(server_seed, client_seeds, 1, pile)
    second = fair.reshuffle_order(server_seed, client_seeds, 2, pile)
    assert fair.verify_hand(entry, dealt, [first, second]) == []
    problems = fair.verify_hand(entry, dealt, [second, first])
    assert [p.split(" differs")[0] for p in problems] == ["reshuffle 1", "reshuffle 2"]


def test_reshuffle_for_gives_the_engines_chance_action() -> None:
    record = fair_match_record(5, max_hands=12)
    rules = Ruleset.preset("classic", target=60, stock_end="reshuffle")
    reshuffled = 0
    for entry in record["hands"]:
        data = fair.FairData.from_json(entry["fair"])
        assert data.server_seed is not None
        seeds = [s for s in data.client_seeds if s is not None]
        hand = Hand(rules, entry["dealer"], parse_card_list(entry["deck"]))
        assert list(hand.deck) == fair.deck(data.server_seed, seeds)
        for text in entry["actions"]:
            action = parse_action(text)
            if isinstance(action, Reshuffle):
                reshuffled += 1
                assert fair.reshuffle_for(hand, data.server_seed, seeds) == action
            else:
                with pytest.raises(fair.FairError, match="no reshuffle is due"):
                    fair.reshuffle_for(hand, data.server_seed, seeds)
            hand.apply(action)
    assert reshuffled > 0


def test_the_benchmark_counts_every_position() -> None:
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_fair.py"
    spec = importlib.util.spec_from_file_location("bench_fair", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    counts, words, _ = bench.count_positions(104, seed=2)
    assert all(sum(row) == 104 for row in counts)  # each position holds one card a deck
    assert all(sum(row[card] for row in counts) == 104 for card in range(52))  # each card once
    assert words == 104 * 51
    # the fallback p-value: chi-square 5% points (51 df: 68.669, 2601 df: 2720.76)
    assert bench.wilson_hilferty_sf(68.669, 51) == pytest.approx(0.05, abs=0.002)
    assert bench.wilson_hilferty_sf(2720.76, 2601) == pytest.approx(0.05, abs=0.002)
    result = bench.run(260, seed=3)
    assert result["table"]["df"] == 2601 and len(result["per_position"]["p_values"]) == 52
    assert 0 < result["rejection_chance_per_word"] < 1e-8
