"""Provably fair deals at a table: commit, contribute, deal, reveal (docs/fair.md, the
``fair`` block and the ``seed`` message of docs/protocol.md).

For each hand the table writer draws a server seed (:func:`ginrummy.fair.new_server_seed`)
and stores it with its commitment before any connection learns the commitment. Each seat
whose client offered seeds (``hello``, or create/join while still on its way) sends a client
seed, stored as soon as it arrives; every other seat (a computer, a person away, a client
that does not offer seeds) gets one made by the server at once, and a client that does not
answer within ``fair_seed_seconds`` gets one too; both are announced as server-made and are
:func:`ginrummy.fair.server_made_seed` of the server seed (scheme 2), fixed by the commitment.
The match's first dealer is :func:`ginrummy.fair.first_dealer` of its first hand's seeds. The
deck is :func:`ginrummy.fair.deck` of the seeds, a reshuffle
:func:`ginrummy.fair.reshuffle_order`. The server seed is sent only once the hand is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ginrummy import fair
from ginrummy.cards import Card
from ginrummy.engine import Hand
from ginrummy.match import Match
from ginrummy.server.core.protocol import Code, MessageError
from ginrummy.storage import Apply
from ginrummy.storage.fairseeds import StoredSeeds, save_commitment, save_deal, save_seeds

SEED_HEX_DIGITS = 2 * fair.SEED_BYTES
"""A ``seed`` message's seed: 32 bytes as 64 hex digits."""


@dataclass
class FairHand:
    """One hand's seeds at a table: committed (the server seed stored), then dealt."""

    version: int
    """The table version at which its server seed was committed."""
    hand: int
    """Its number in the match, from 1."""
    server_seed: bytes
    client_seeds: list[bytes | None]
    server_made: list[bool]
    deal_version: int | None = None
    """The version of its ``deal`` event, once dealt."""
    deadline: float | None = None
    """Unix time after which the missing client seeds are made by the server."""
    scheme: int = fair.SCHEME
    """The fair scheme of the hand (1: committed by a server older than scheme 2)."""
    commitment: str = field(init=False)
    _public: tuple[list[bytes | None], list[bool], dict[str, Any]] | None = field(
        default=None, init=False, repr=False, compare=False)
    """The ``fair`` block's fields but the server seed, with the seeds they were made from."""

    def __post_init__(self) -> None:
        self.commitment = fair.commitment(self.server_seed)

    def public(self) -> dict[str, Any]:
        """The ``fair`` block's fields before ``server_seed`` (read it, do not change it):
        made again only when a client seed or a ``server_made`` flag changed (every state of
        the hand carries them)."""
        cached = self._public
        if cached is None or cached[0] != self.client_seeds or cached[1] != self.server_made:
            cached = self._public = (list(self.client_seeds), list(self.server_made), {
                "hand": self.hand, "scheme": self.scheme, "commitment": self.commitment,
                "client_seeds": self.client_seeds_hex(), "server_made": list(self.server_made)})
        return cached[2]

    @classmethod
    def from_stored(cls, stored: StoredSeeds) -> FairHand:
        """A hand's seeds as the database has them."""
        made = cls(stored.version, stored.hand, bytes.fromhex(stored.server_seed),
                   [None if s is None else bytes.fromhex(s) for s in stored.client_seeds],
                   list(stored.server_made), stored.deal_version, scheme=stored.scheme)
        if made.commitment != stored.commitment:
            raise ValueError(f"hand {stored.hand}: the stored commitment does not match the "
                             "stored server seed")
        return made

    def stored(self) -> StoredSeeds:
        """The row's values."""
        return StoredSeeds(self.version, self.hand, self.server_seed.hex(), self.commitment,
                           self.client_seeds_hex(), list(self.server_made), self.deal_version,
                           self.scheme)

    def client_seeds_hex(self) -> list[str | None]:
        """The client seeds as hex (``None`` where not given yet)."""
        return [None if s is None else s.hex() for s in self.client_seeds]

    @property
    def complete(self) -> bool:
        """True once every seat has its client seed."""
        return all(s is not None for s in self.client_seeds)

    def missing(self) -> list[int]:
        """The seats whose client seed is not known yet."""
        return [i for i, s in enumerate(self.client_seeds) if s is None]

    def give(self, seat: int, seed: bytes) -> None:
        """Seat ``seat``'s client sent its seed (:class:`MessageError` when it has one)."""
        if self.client_seeds[seat] is not None:
            raise MessageError(Code.SEED_REFUSED, f"seat {seat} already has its client seed "
                               f"for hand {self.hand}")
        self.client_seeds[seat] = seed

    def make_missing(self, seats: list[int] | None = None) -> None:
        """The server makes the seeds no client gave (announced by ``server_made``), of
        ``seats`` only if given: :func:`ginrummy.fair.server_made_seed`, which the
        commitment fixed before any client seed was known."""
        for seat in self.missing() if seats is None else seats:
            if self.client_seeds[seat] is not None:
                continue
            self.client_seeds[seat] = fair.server_made_seed(self.server_seed, seat)
            self.server_made[seat] = True

    def clear(self, seat: int) -> tuple[bytes | None, bool]:
        """The seat's person left before the deal: its seed goes (the next person in the
        seat gives its own, with a new wait for it); returns what was there (for
        :meth:`restore`)."""
        was = self.client_seeds[seat], self.server_made[seat]
        self.client_seeds[seat], self.server_made[seat] = None, False
        self.deadline = None
        return was

    def restore(self, seat: int, was: tuple[bytes | None, bool]) -> None:
        """Undo :meth:`clear` (its write failed)."""
        self.client_seeds[seat], self.server_made[seat] = was

    def first_dealer(self, players: int) -> int:
        """The match's first dealer when this hand starts one (all seeds known)."""
        return fair.first_dealer(self.server_seed, self.seeds(), players)

    def seeds(self) -> list[bytes]:
        """Every seat's client seed (all must be known)."""
        found = [s for s in self.client_seeds if s is not None]
        if len(found) != len(self.client_seeds):
            raise ValueError(f"hand {self.hand}: seats {self.missing()} have no client seed")
        return found

    def deck(self) -> list[Card]:
        """The hand's deck from the seeds."""
        return fair.deck(self.server_seed, self.seeds())

    def reshuffle(self, index: int, cards: list[Card]) -> list[Card]:
        """The order of the hand's ``index``-th reshuffle (1: the first)."""
        return fair.reshuffle_order(self.server_seed, self.seeds(), index, cards)

    # ----------------------------------------------------------------- storage
    def commitment_write(self, table_id: str) -> Apply:
        """The write that stores the server seed (before the commitment is sent)."""
        return save_commitment(table_id, self.stored())

    def seeds_write(self, table_id: str) -> Apply:
        """The write of the client seeds known so far (a seed is stored as it arrives, so
        that a restart deals from it and never asks for another under the same commitment)."""
        return save_seeds(table_id, self.stored())

    def deal_write(self, table_id: str, deal_version: int) -> Apply:
        """The write of the client seeds and the deal's version (with the deal; the deal
        sets :attr:`deal_version` once committed)."""
        return save_deal(table_id, replace(self.stored(), deal_version=deal_version))


class SeededTable(Protocol):
    """What the fair deal reads of a table (:class:`ginrummy.server.play.table.GameTable`,
    which this module sits below)."""

    @property
    def fair(self) -> FairHand | None:
        """The seeds of the latest committed hand."""

    @property
    def stuck(self) -> str | None:
        """Why the table was stopped, if it was."""

    @property
    def version(self) -> int:
        """The table's version."""

    @property
    def match(self) -> Match | None:
        """The match being played, if any."""

    @property
    def seats(self) -> Sequence[object]:
        """The seats (counted only)."""

    def running_hand(self) -> Hand | None:
        """The hand being played, if any."""


def new_fair_hand(table: SeededTable, contributors: set[int]) -> FairHand:
    """The next hand's seeds, committed at the table's next version: a new server seed; a
    server-made client seed (derived from it) for every seat not in ``contributors`` (the
    seats whose client offered seeds, or whose person is on the way)."""
    match = table.match
    number = 1 if match is None or match.over else len(match.hands) + 1
    seats = len(table.seats)
    made = FairHand(table.version + 1, number, fair.new_server_seed(), [None] * seats,
                    [False] * seats)
    made.make_missing([seat for seat in range(seats) if seat not in contributors])
    return made


def parse_seed(hand: int, seed: str) -> bytes:
    """The bytes of a ``seed`` message's seed; :class:`MessageError` names what is wrong."""
    if len(seed) != SEED_HEX_DIGITS or any(c not in "0123456789abcdefABCDEF" for c in seed):
        raise MessageError(Code.BAD_MESSAGE, f"seed must be {SEED_HEX_DIGITS} hex digits "
                           f"({fair.SEED_BYTES} random bytes) for hand {hand}")
    return bytes.fromhex(seed)


def pending(table: SeededTable) -> FairHand | None:
    """The seeds of the hand about to be dealt, if they are committed."""
    fh = table.fair
    return fh if fh is not None and fh.deal_version is None else None


def dealt(table: SeededTable) -> FairHand | None:
    """The seeds of the current hand, if it was dealt from them (every deal of a table
    comes from its latest committed seeds)."""
    fh = table.fair
    return fh if fh is not None and fh.deal_version is not None else None


def revealed(table: SeededTable, fh: FairHand) -> bool:
    """True once ``fh``'s hand is over (or will never be played on): its seed may be sent;
    a void hand's only once the match is over (:func:`withheld`)."""
    if table.stuck is not None:
        return True
    if fh.deal_version is None:
        return False
    return table.running_hand() is None and not withheld(table)


def withheld(table: SeededTable) -> bool:
    """True while the latest hand was void and its match goes on: its seed, which shows
    every hand, waits for the match's end (R4.8: after a void hand no hand is shown)."""
    match = table.match
    if match is None or match.over or not match.hands:
        return False
    result = match.hands[-1].result
    return result is not None and result.void


def fair_block(table: SeededTable) -> dict[str, Any] | None:
    """The ``fair`` field of a state (docs/protocol.md): the latest committed hand's
    commitment and client seeds, its server seed once the hand is over (then anyone can
    recompute the deck; the state names no card the seat did not see); a void hand's seed
    only at the match's end (``withheld`` until then)."""
    fh = table.fair
    if fh is None:
        return None
    if revealed(table, fh):
        return {**fh.public(), "server_seed": fh.server_seed.hex()}
    if fh.deal_version is not None and withheld(table):  # not revealed: not stopped
        return {**fh.public(), "server_seed": None, "withheld": True}
    return {**fh.public(), "server_seed": None}
