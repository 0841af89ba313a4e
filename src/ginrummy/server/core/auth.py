"""Authorisation: table ids, seat tokens and invite codes (only their hashes are stored)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from typing import Protocol, TypeVar


class _Tokened(Protocol):
    """A seat as far as tokens go."""

    @property
    def token_hash(self) -> str | None:
        """The SHA-256 of the seat's token, if it has one."""
        ...


S = TypeVar("S", bound=_Tokened)


def secret_hash(secret: str) -> str:
    """The stored form of a token or invite code."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret() -> str:
    """A fresh seat token or invite code."""
    return secrets.token_urlsafe(24)


def new_table_id() -> str:
    """A short, unguessable table id."""
    return secrets.token_urlsafe(6)


def seat_for_token(seats: Iterable[S], token: str) -> S | None:
    """The seat whose token this is (compared in constant time)."""
    digest = secret_hash(token)
    for seat in seats:
        if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
            return seat
    return None


def invite_ok(public: bool, invite_hash: str | None, invite: str | None) -> bool:
    """True for a public table, or the right invite code of a private one."""
    if public:
        return True
    if invite is None or invite_hash is None:
        return False
    return hmac.compare_digest(invite_hash, secret_hash(invite))
