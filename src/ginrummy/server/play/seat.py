"""A table's seat: its stored facts (who sits there) and its live ones (connections,
away, ready)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ginrummy.server.core.kinds import SeatKind


@dataclass
class Seat:
    """A seat: stored facts plus the live ones (connections, away, ready)."""

    seat: int
    kind: SeatKind = SeatKind.EMPTY
    name: str | None = None
    level: str | None = None
    token_hash: str | None = None
    rematch: bool = False
    account_id: int | None = None
    """The account sitting here: its sessions on any device take the seat."""
    connections: int = 0
    left: bool = field(default=False, repr=False)
    """The person is not there (held too long, or left the match): the ``away`` of presence."""
    ready: bool = False
    resigned: bool = False
    """The seat resigned this match and the others play on: the computer plays it to the end,
    and it stays ``away`` (so that it counts as abandoned) even while its person watches."""

    def __post_init__(self) -> None:
        self.kind = SeatKind(self.kind)  # a stored row's text

    @property
    def away(self) -> bool:
        """True while the computer plays this person's seat (absent, or resigned)."""
        return self.left or self.resigned

    @away.setter
    def away(self, value: bool) -> None:
        self.left = value

    @property
    def human(self) -> bool:
        """True for a guest's seat."""
        return self.kind == SeatKind.HUMAN

    @property
    def computer_plays(self) -> bool:
        """True when the computer moves for this seat (a bot, or an absent human)."""
        kind = self.kind
        return kind == SeatKind.BOT or (kind == SeatKind.HUMAN and (self.left or self.resigned))
