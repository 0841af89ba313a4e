"""Bans and mutes that follow an account beyond its own sockets (docs/moderation.md).

:class:`Restrictions` keeps, in this process's memory, the accounts banned now and the client
addresses each account was seen at (its sockets, its table creations and joins). A ban is
extended to those addresses: while it lasts, a guest from such an address may neither open or
join a table nor chat. Spectators may still watch. A mute is extended to them too, for chat
only: while it lasts (the chat's ``ChatMutes``, which knows when each mute ends), a guest's
line from such an address is refused (:meth:`Restrictions.accounts_at` says whose mutes to
ask). The price is a shared address (a household, a school, a carrier's NAT): every guest
behind it is silenced with the muted account; an account is not (each has its own standing),
so a guest there who logs in chats again. A muted account's own sockets are refused chat,
and a socket without an account or a seat may not chat at all.

What is kept is bounded (:data:`ADDRESSES_PER_ACCOUNT` per account, the most recent ones, and
:data:`ACCOUNTS_KEPT` accounts), and lives as long as the process: after a restart, the
addresses an account is seen at again count from then on (the account's own bans and mutes
are stored, and reloaded).
"""

from __future__ import annotations

from collections import OrderedDict

ADDRESSES_PER_ACCOUNT = 8
"""Addresses remembered per account (the most recently seen)."""
ACCOUNTS_KEPT = 100_000
"""Accounts whose addresses are remembered (the least recently seen are forgotten)."""


class Restrictions:
    """Banned accounts, and the addresses each account was seen at."""

    def __init__(self) -> None:
        self.banned: set[int] = set()
        """Accounts banned now (their sockets are refused, however they are opened)."""
        self._seen: OrderedDict[int, OrderedDict[str, None]] = OrderedDict()
        """Account to the addresses it was seen at, least recently seen first."""
        self._at: dict[str, set[int]] = {}
        """Address to the accounts seen there."""

    def seen(self, account_id: int, address: str) -> None:
        """``account_id`` used ``address`` (a socket, a table created or joined)."""
        addresses = self._seen.pop(account_id, None) or OrderedDict()
        addresses.pop(address, None)
        addresses[address] = None
        self._seen[account_id] = addresses
        self._at.setdefault(address, set()).add(account_id)
        while len(addresses) > ADDRESSES_PER_ACCOUNT:
            self._forget(account_id, addresses.popitem(last=False)[0])
        while len(self._seen) > ACCOUNTS_KEPT:
            old_id, old = self._seen.popitem(last=False)
            for old_address in old:
                self._forget(old_id, old_address)

    def _forget(self, account_id: int, address: str) -> None:
        held = self._at.get(address)
        if held is not None:
            held.discard(account_id)
            if not held:
                del self._at[address]

    def addresses(self, account_id: int) -> list[str]:
        """The addresses ``account_id`` was seen at, least recently first."""
        return list(self._seen.get(account_id, ()))

    def accounts_at(self, address: str) -> frozenset[int]:
        """The accounts seen at ``address`` (whose mutes reach its guests)."""
        return frozenset(self._at.get(address, ()))

    def replace_bans(self, account_ids: set[int]) -> None:
        """Take ``account_ids`` as every banned account (the stored ones)."""
        self.banned = set(account_ids)

    def address_banned(self, address: str) -> bool:
        """True while an account seen at ``address`` is banned."""
        return any(a in self.banned for a in self._at.get(address, ()))
