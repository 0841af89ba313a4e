"""Errors raised for actions that break the rules. All are ``ValueError`` subclasses."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the state is left unchanged."""


class NotYourTurnError(IllegalActionError):
    """A seat acted out of turn."""


class WrongPhaseError(IllegalActionError):
    """An action of another phase (e.g. a discard before drawing)."""


class CardNotHeldError(IllegalActionError):
    """A card that is not in the acting player's hand."""


class RediscardError(IllegalActionError):
    """Discarding the card just taken from the discard pile (R3.3)."""


class InvalidArrangementError(IllegalActionError):
    """Melds that are not melds, overlap, or do not match the hand."""


class KnockLimitError(IllegalActionError):
    """A knock whose deadwood is above the knock limit (R4.1), or a false gin."""


class InvalidLayoffError(IllegalActionError):
    """A layoff the rules forbid (R4.4, R4.5)."""


class InvalidChanceError(IllegalActionError):
    """A reshuffle order that is not a permutation of the cards to reshuffle."""


class HandOverError(IllegalActionError):
    """An action after the hand has ended."""
