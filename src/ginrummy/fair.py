"""Provably fair deals: a deck order anyone can recompute from published seeds (docs/fair.md).

For each hand the server draws a 32-byte seed and publishes :func:`commitment` (its SHA-256)
before the deal; every seat contributes a client seed; the deck is :func:`deck` of both, a
Fisher-Yates shuffle driven by HMAC-SHA256 in counter mode, drawing integers by rejection
sampling (no modulo bias). Reshuffles of the discard pile (R4.7) use the same seeds with their
own purpose label (:func:`reshuffle_order`). After the hand the seed is revealed and
:func:`verify_hand` checks a played hand against it.

Scheme 2 (the current one) binds everything the server itself draws to its commitment: a
seat's server-made seed is :func:`server_made_seed` (HMAC of the server seed and the seat),
the match's first dealer is :func:`first_dealer` of the first hand's seeds, and a hand has
exactly one 32-byte client seed per seat. Scheme 1 records (no ``scheme`` key) are checked by
their own, weaker rules and say so (:func:`weaknesses`).

Standard library only, no I/O: the engine still takes its deck as input.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ginrummy.actions import Reshuffle
from ginrummy.cards import NUM_CARDS, Card, format_cards
from ginrummy.engine import CHANCE, Hand

DOMAIN = b"ginrummy-fair-v1"
"""The domain-separation label that starts every HMAC message of the shuffle."""
SERVER_MADE_DOMAIN = b"ginrummy-fair-v2\0server-made\0"
"""The start of the HMAC message that derives a server-made client seed (scheme 2)."""
FIRST_DEALER_PURPOSE = "first-dealer"
"""The purpose label of the stream that draws a match's first dealer (scheme 2)."""
SEED_BYTES = 32
"""The length of a server seed, and of every client seed of a scheme 2 hand."""
MAX_CLIENT_SEED_BYTES = 64
"""The longest client seed the shuffle takes (scheme 1 records; the test vectors)."""
SCHEMES = (1, 2)
"""The fair-block schemes a verifier knows; 2 is what the server deals by now."""
SCHEME = 2
"""The scheme of the hands the server deals now."""
_WORD_BYTES = 4
_WORD_RANGE = 1 << (8 * _WORD_BYTES)


class FairError(ValueError):
    """Seeds or fair data that cannot be used; the message names what is wrong."""


# ----------------------------------------------------------------- seeds
def new_server_seed() -> bytes:
    """A fresh secret server seed: 32 bytes from ``secrets``."""
    return secrets.token_bytes(SEED_BYTES)


def new_client_seed() -> bytes:
    """A random client seed (what a client sends; scheme 1 servers made theirs this way)."""
    return secrets.token_bytes(SEED_BYTES)


def server_made_seed(server_seed: bytes, seat: int) -> bytes:
    """The client seed the server makes for ``seat`` (a computer, or a client that sent none
    in time), scheme 2: ``HMAC-SHA256(server seed, "ginrummy-fair-v2" 0x00 "server-made" 0x00
    seat)``, seat as 4 bytes big-endian. Fixed by the commitment, so the server cannot choose
    it after seeing the players' seeds; a verifier recomputes it."""
    _check_server_seed(server_seed)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 1 << 32:
        raise FairError(f"bad seat {seat!r}")
    return hmac.new(bytes(server_seed), SERVER_MADE_DOMAIN + seat.to_bytes(4, "big"),
                    hashlib.sha256).digest()


def commitment(server_seed: bytes) -> str:
    """The commitment published before the deal: SHA-256 of the server seed, lowercase hex."""
    _check_server_seed(server_seed)
    return hashlib.sha256(server_seed).hexdigest()


def client_digest(client_seeds: Sequence[bytes]) -> bytes:
    """SHA-256 of the client seeds in seat order, each preceded by its length (4 bytes, BE)."""
    if not client_seeds:
        raise FairError("at least one client seed is needed")
    digest = hashlib.sha256()
    for seat, seed in enumerate(client_seeds):
        if not isinstance(seed, bytes | bytearray):
            raise FairError(f"client seed of seat {seat} is missing or not bytes: {seed!r}")
        if not 1 <= len(seed) <= MAX_CLIENT_SEED_BYTES:
            raise FairError(f"client seed of seat {seat} has {len(seed)} bytes; "
                            f"1 to {MAX_CLIENT_SEED_BYTES} are allowed")
        digest.update(len(seed).to_bytes(4, "big"))
        digest.update(seed)
    return digest.digest()


def _check_server_seed(server_seed: bytes) -> None:
    if not isinstance(server_seed, bytes | bytearray) or len(server_seed) != SEED_BYTES:
        size = len(server_seed) if isinstance(server_seed, bytes | bytearray) else "no"
        raise FairError(f"the server seed must be {SEED_BYTES} bytes, got {size}")


# ----------------------------------------------------------------- generator
def keystream(server_seed: bytes, client_seeds: Sequence[bytes], purpose: str) -> Iterator[bytes]:
    """The generator's 32-byte blocks: HMAC-SHA256 keyed by the server seed over
    ``DOMAIN || 0x00 || client_digest || purpose || 0x00 || counter`` (counter: 8 bytes BE,
    from 0)."""
    _check_server_seed(server_seed)
    if not purpose or not purpose.isascii() or "\0" in purpose:
        raise FairError(f"bad purpose label {purpose!r}")
    prefix = DOMAIN + b"\0" + client_digest(client_seeds) + purpose.encode("ascii") + b"\0"
    key = bytes(server_seed)
    counter = 0
    while True:
        yield hmac.new(key, prefix + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1


def rejection_limit(bound: int) -> int:
    """The first 32-bit value a draw below ``bound`` rejects: ``2**32 - 2**32 % bound``."""
    if not 1 <= bound <= _WORD_RANGE:
        raise FairError(f"cannot draw below {bound}")
    return _WORD_RANGE - _WORD_RANGE % bound


class UniformDrawer:
    """Unbiased integers from a stream of blocks: 4-byte big-endian words, each word below
    :func:`rejection_limit` taken modulo the bound, the others skipped."""

    def __init__(self, blocks: Iterator[bytes]) -> None:
        self._blocks = blocks
        self._buffer = b""
        self.rejected = 0
        """How many words were skipped so far."""

    def _word(self) -> int:
        while len(self._buffer) < _WORD_BYTES:
            self._buffer += next(self._blocks)
        word, self._buffer = self._buffer[:_WORD_BYTES], self._buffer[_WORD_BYTES:]
        return int.from_bytes(word, "big")

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)``."""
        limit = rejection_limit(bound)
        while True:
            word = self._word()
            if word < limit:
                return word % bound
            self.rejected += 1


def shuffle(server_seed: bytes, client_seeds: Sequence[bytes], purpose: str,
            cards: Sequence[Card]) -> list[Card]:
    """Fisher-Yates over ``cards`` sorted ascending: for i from the last index down to 1,
    swap positions i and ``below(i + 1)``."""
    order = sorted(cards)
    if len(set(order)) != len(order) or any(not 0 <= c < NUM_CARDS for c in order):
        raise FairError(f"cannot shuffle {cards!r}: cards must be distinct, 0-51")
    drawer = UniformDrawer(keystream(server_seed, client_seeds, purpose))
    for i in range(len(order) - 1, 0, -1):
        j = drawer.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def deck(server_seed: bytes, client_seeds: Sequence[bytes]) -> list[Card]:
    """The deal order of a hand (``Hand``'s ``deck``: dealt one at a time from the dealer's
    left, then the upcard, then the stock top first), purpose ``"deal"``."""
    return shuffle(server_seed, client_seeds, "deal", range(NUM_CARDS))


def reshuffle_order(server_seed: bytes, client_seeds: Sequence[bytes], index: int,
                    cards: Sequence[Card]) -> list[Card]:
    """The order of the ``index``-th reshuffle of the hand (1 for the first), purpose
    ``"reshuffle<index>"``: ``cards`` (the discards below the top card, in any order) as a
    ``Reshuffle`` action's order, its first card the new top of the stock."""
    if isinstance(index, bool) or not isinstance(index, int) or index < 1:
        raise FairError(f"reshuffle index must be 1 or more (1 = the first), got {index!r}")
    return shuffle(server_seed, client_seeds, f"reshuffle{index}", cards)


def first_dealer(server_seed: bytes, client_seeds: Sequence[bytes], players: int) -> int:
    """The seat that deals a match's first hand (R2.2), scheme 2: the first draw below
    ``players`` of the stream with purpose ``"first-dealer"`` of that hand's seeds."""
    if isinstance(players, bool) or not isinstance(players, int) or players < 1:
        raise FairError(f"players must be 1 or more, got {players!r}")
    drawer = UniformDrawer(keystream(server_seed, client_seeds, FIRST_DEALER_PURPOSE))
    return drawer.below(players)


def reshuffle_for(hand: Hand, server_seed: bytes, client_seeds: Sequence[bytes]) -> Reshuffle:
    """The hand's next reshuffle as a chance action (for ``hand.apply``): the discards below
    the top card ordered by :func:`reshuffle_order` with index ``hand.reshuffles + 1``."""
    if hand.to_move != CHANCE:
        raise FairError("no reshuffle is due in this hand")
    order = reshuffle_order(server_seed, client_seeds, hand.reshuffles + 1, hand.discards[:-1])
    return Reshuffle(tuple(order))


# ----------------------------------------------------------------- records
def _hex_bytes(value: Any, what: str) -> bytes:
    if not isinstance(value, str):
        raise FairError(f"{what} must be a hex string, got {value!r}")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise FairError(f"{what} is not hex: {value!r}") from None


@dataclass(frozen=True)
class FairData:
    """A hand's ``fair`` entry in a game record (docs/records.md): the commitment, the
    server seed once revealed, the client seeds by seat, which of them the server made, and
    the scheme whose rules it follows (1 when the entry names none)."""

    commitment: str
    server_seed: bytes | None
    client_seeds: tuple[bytes | None, ...]
    server_made: tuple[bool, ...]
    scheme: int = SCHEME

    @classmethod
    def from_json(cls, data: Any) -> FairData:
        """Read ``{"scheme", "commitment", "server_seed", "client_seeds", "server_made"}``
        (no ``scheme``: 1, the entries written before scheme 2)."""
        if not isinstance(data, Mapping):
            raise FairError(f"fair data must be an object, got {data!r}")
        missing = [k for k in ("commitment", "server_seed", "client_seeds", "server_made")
                   if k not in data]
        if missing:
            raise FairError(f"fair data lacks {', '.join(missing)}")
        scheme = data.get("scheme", 1)
        if isinstance(scheme, bool) or scheme not in SCHEMES:
            raise FairError(f"unknown fair scheme {scheme!r}: this verifier knows "
                            f"{', '.join(map(str, SCHEMES))}")
        promise = data["commitment"]
        if not isinstance(promise, str) or len(_hex_bytes(promise, "commitment")) != 32:
            raise FairError(f"commitment must be 64 hex digits, got {promise!r}")
        seed = data["server_seed"]
        server_seed = None if seed is None else _hex_bytes(seed, "server_seed")
        seeds, made = data["client_seeds"], data["server_made"]
        if not isinstance(seeds, list) or not seeds:
            raise FairError(f"client_seeds must be a non-empty list, got {seeds!r}")
        if not isinstance(made, list) or len(made) != len(seeds) or not all(
            isinstance(m, bool) for m in made
        ):
            raise FairError(f"server_made must be one true/false per seat, got {made!r}")
        client_seeds = tuple(
            None if s is None else _hex_bytes(s, f"client seed of seat {i}")
            for i, s in enumerate(seeds)
        )
        return cls(promise.lower(), server_seed, client_seeds, tuple(made), int(scheme))

    def to_json(self) -> dict[str, Any]:
        """The record's JSON form (hex strings, null where not known; ``scheme`` written
        from scheme 2 on, so a scheme 1 entry reads back as it was)."""
        scheme = {} if self.scheme == 1 else {"scheme": self.scheme}
        return {
            **scheme,
            "commitment": self.commitment,
            "server_seed": None if self.server_seed is None else self.server_seed.hex(),
            "client_seeds": [None if s is None else s.hex() for s in self.client_seeds],
            "server_made": list(self.server_made),
        }

    @property
    def on_server_word(self) -> bool:
        """True when the server made every client seed (computers, silent clients): the
        deck is consistent with the commitment but no seed the server did not choose went
        into it."""
        return all(self.server_made)


SCHEME1_WEAKNESSES = {
    "server_made": "scheme 1: its server-made seeds are not derived from the committed "
                   "server seed, so the server could have chosen them after seeing the "
                   "players' seeds",
    "first_dealer": "scheme 1: the first dealer was drawn by the server, not from the seeds",
}
"""What a scheme 1 hand does not prove (docs/fair.md, *Schemes*), by concern."""


def weaknesses(fair: FairData, first_hand: bool = False) -> list[str]:
    """What the rules of ``fair``'s scheme leave unproven for this hand (empty for scheme
    2): scheme 1's server-made seeds (when it has any) and its first dealer (when
    ``first_hand``)."""
    if fair.scheme != 1:
        return []
    found = []
    if any(fair.server_made):
        found.append(SCHEME1_WEAKNESSES["server_made"])
    if first_hand:
        found.append(SCHEME1_WEAKNESSES["first_dealer"])
    return found


def verify_hand(fair: FairData | Mapping[str, Any], played_deck: Sequence[Card],
                reshuffles: Sequence[Sequence[Card]] = (), *, players: int | None = None,
                dealer: int | None = None) -> list[str]:
    """What differs between a played hand and its seeds; an empty list means verified.

    ``played_deck`` is the hand's deck as dealt, ``reshuffles`` the order of each
    ``Reshuffle`` action in the order played. ``players``: the seats, each of which must have
    exactly one client seed. ``dealer``: the first hand's dealer, for a scheme 2 hand that
    starts a match (its first dealer is drawn from its seeds). Scheme 2 also needs each
    server-made seed to be :func:`server_made_seed` and every client seed to be 32 bytes.
    """
    try:
        data = fair if isinstance(fair, FairData) else FairData.from_json(fair)
    except FairError as exc:
        return [f"bad fair data: {exc}"]
    if data.server_seed is None:
        return ["the server seed is not revealed"]
    problems: list[str] = []
    if len(data.server_seed) != SEED_BYTES:
        return [f"the server seed has {len(data.server_seed)} bytes, not {SEED_BYTES}"]
    if hashlib.sha256(data.server_seed).hexdigest() != data.commitment:
        problems.append("the commitment does not match the revealed server seed")
    if players is not None and len(data.client_seeds) != players:
        problems.append(f"{len(data.client_seeds)} client seeds for {players} seats: each "
                        "seat gives exactly one")
    missing = [str(i) for i, s in enumerate(data.client_seeds) if s is None]
    if missing:
        return [*problems, f"no client seed for seat {', '.join(missing)}"]
    seeds = [s for s in data.client_seeds if s is not None]
    if data.scheme >= 2:
        problems.extend(_scheme2_problems(data.server_seed, seeds, data.server_made))
    try:
        expected = deck(data.server_seed, seeds)
    except FairError as exc:
        return [*problems, str(exc)]
    problems.extend(_compare("the deck", list(played_deck), expected))
    for k, order in enumerate(reshuffles, start=1):
        try:
            wanted = reshuffle_order(data.server_seed, seeds, k, order)
        except FairError as exc:
            problems.append(f"reshuffle {k}: {exc}")
            continue
        problems.extend(_compare(f"reshuffle {k}", list(order), wanted))
    if data.scheme >= 2 and dealer is not None:
        drawn = first_dealer(data.server_seed, seeds, players or len(seeds))
        if dealer != drawn:
            problems.append(f"the first dealer is seat {dealer}, the seeds give seat {drawn}")
    return problems


def _scheme2_problems(server_seed: bytes, seeds: Sequence[bytes],
                      server_made: Sequence[bool]) -> list[str]:
    problems = [f"client seed of seat {seat} has {len(seed)} bytes; scheme 2 seeds are "
                f"{SEED_BYTES}" for seat, seed in enumerate(seeds) if len(seed) != SEED_BYTES]
    problems.extend(
        f"the server-made seed of seat {seat} is not the one its server seed gives "
        f"(HMAC-SHA256 of seat {seat}): the server could have chosen it"
        for seat, (seed, made) in enumerate(zip(seeds, server_made, strict=True))
        if made and seed != server_made_seed(server_seed, seat))
    return problems


def _compare(what: str, played: list[Card], expected: list[Card]) -> list[str]:
    if played == expected:
        return []
    if len(played) != len(expected):
        return [f"{what} has {len(played)} cards, the seeds give {len(expected)}"]
    first = next(i for i, (a, b) in enumerate(zip(played, expected, strict=True)) if a != b)
    return [f"{what} differs from position {first + 1}: played "
            f"{format_cards(played[first:first + 1])}, the seeds give "
            f"{format_cards(expected[first:first + 1])}"]


__all__ = [
    "DOMAIN", "FIRST_DEALER_PURPOSE", "SCHEME", "SCHEMES", "SEED_BYTES", "SERVER_MADE_DOMAIN",
    "FairData", "FairError", "UniformDrawer", "client_digest", "commitment", "deck",
    "first_dealer", "keystream", "new_client_seed", "new_server_seed", "rejection_limit",
    "reshuffle_for", "reshuffle_order", "server_made_seed", "shuffle", "verify_hand",
    "weaknesses",
]
