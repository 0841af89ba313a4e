"""Friends, live (docs/friends.md): each account's push sockets (``/ws/account``), its friends'
presence derived from the lobby's connections, and the invitations to a table.

Presence is read from this process's lobby every :data:`PRESENCE_SECONDS`: an account is
``table`` while one of its seats at a waiting or playing table has a connection, ``online``
while it has a push socket (or any seat connection), else ``offline``. Only changes are sent,
to the accounts watching it (its friends with a push socket): the presence each account's
watchers were last told is kept. Invitations live in memory (they are
worth minutes) and go to the invitee's push sockets.

With several processes (docs/friends.md, "Across processes") the hub's :attr:`FriendsHub.share`
sends its news to the others: every push message (for the account's sockets there), this
process's presence of its accounts (at each change, and every :data:`PRESENCE_REPORT_SECONDS`),
the invitations made and gone. What the others report is kept per process and merged: an
account's presence is the strongest any process sees.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ginrummy.server.core.kinds import TableStatus
from ginrummy.server.play.connections import Connection
from ginrummy.server.play.lobby import Lobby
from ginrummy.storage.friends import FriendStore

log = logging.getLogger("ginrummy.server.friends")

PRESENCE_SECONDS = 1.0
"""How often the friends' presence is read from the lobby (a change reaches a friend within
this, plus the send)."""
TOURNAMENT_RECHECK_SECONDS = 10.0
"""How long a table found in no tournament is believed to be in none (a tournament's table is
linked to its match when it is made; this covers a link written after the first look)."""
INVITATION_SECONDS = 600.0
"""How long an invitation can be accepted."""
PRESENCE_REPORT_SECONDS = 3.0
"""In a cluster, how often a process reports its accounts' presence when nothing changed."""
REMOTE_PRESENCE_SECONDS = 10.0
"""A process's report older than this is dropped (the process died without saying so)."""
SOCKETS_PER_ACCOUNT = 8
"""Push sockets one account may hold open at once (tabs, devices); more: the oldest closes."""

Presence = dict[str, Any]
"""``{"status": "offline" | "online" | "table", "table_id": str | None, "playing": bool,
"tournament": str | None}``."""

OFFLINE: Presence = {"status": "offline", "table_id": None, "playing": False,
                     "tournament": None}

Share = Callable[[str, dict[str, Any]], None]
"""Sends news of a kind (``push``, ``presence``, ``invited``, ``dropped``, ``friends``: the
relay's account kinds) to the other processes of the cluster."""


def strength(presence: Presence) -> int:
    """How much a presence says (the merge of several processes' keeps the strongest):
    offline, online, at a waiting table, playing."""
    status = presence.get("status")
    if status == "table":
        return 3 if presence.get("playing") else 2
    return 1 if status == "online" else 0


@dataclass(frozen=True)
class Invitation:
    """An account invites a friend to the table it sits at."""

    id: str
    from_id: int
    from_name: str
    to_id: int
    to_name: str
    table_id: str
    invite: str | None
    """The private table's invite code (given by the inviter: the friend needs it to sit)."""
    expires: float

    def message(self) -> dict[str, Any]:
        """The ``invitation`` push message (to the invitee)."""
        return {"type": "invitation", "id": self.id, "from": self.from_name,
                "table_id": self.table_id, "invite": self.invite}


@dataclass
class FriendsHub:
    """The push sockets, presence and invitations of one process."""

    lobby: Lobby
    store: FriendStore
    sockets: dict[int, list[Connection]] = field(default_factory=dict)
    friends: dict[int, set[int]] = field(default_factory=dict)
    """The friends of each account with a push socket (read on its first socket)."""
    watchers: dict[int, set[int]] = field(default_factory=dict)
    """The accounts with a push socket that see each account's presence (its friends)."""
    last: dict[int, Presence] = field(default_factory=dict)
    """The presence of each watched account as its watchers were last told."""
    invitations: dict[str, Invitation] = field(default_factory=dict)
    tournaments: dict[str, tuple[str | None, float]] = field(default_factory=dict)
    """The tournament of each table seen with a seated account (``None``: none), and when it
    was read (:meth:`refresh_tournaments`)."""
    greeters: list[Callable[[int], Awaitable[list[Mapping[str, Any]]]]] = field(
        default_factory=list)
    """Other news a new socket gets after the friends' (the tournaments' ready matches)."""
    share: Share | None = None
    """Sends this hub's news to the other processes (set by the cluster's account relay;
    ``None``: a single process)."""
    remote: dict[str, tuple[float, dict[int, Presence]]] = field(default_factory=dict)
    """Each other process's last presence report (when it came, monotonic; its accounts)."""
    _reported: tuple[float, dict[int, Presence]] = (0.0, {})
    _task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ sockets
    async def connect(self, account_id: int, conn: Connection) -> None:
        """A push socket of ``account_id`` opened: it gets every friend's presence and the
        invitations waiting for it."""
        held = self.sockets.setdefault(account_id, [])
        held.append(conn)
        if len(held) > SOCKETS_PER_ACCOUNT:
            held.pop(0).close(1008, "too many account sockets")
        if account_id not in self.friends:
            found = await asyncio.get_running_loop().run_in_executor(
                None, self.store.friend_ids, account_id)
            if account_id not in self.sockets:  # closed meanwhile
                return
            if account_id not in self.friends:
                self._watch(account_id, found)
        for friend in sorted(self.friends.get(account_id, ())):
            conn.send(self._presence_message(friend, self._known(friend)))
        for invitation in self.live_invitations():
            if invitation.to_id == account_id:
                conn.send(invitation.message())
        for greet in self.greeters:
            try:
                for message in await greet(account_id):
                    conn.send(message)
            except Exception:  # the socket lives on without that news
                log.exception("a push socket's greeting failed")
        self.start()

    def _watch(self, viewer: int, friends: set[int]) -> None:
        """``viewer``'s friends are now ``friends``: it watches them and no others."""
        before = self.friends.get(viewer, set())
        for gone in before - friends:
            self._unwatch(viewer, gone)
        for friend in friends - before:
            self.watchers.setdefault(friend, set()).add(viewer)
        self.friends[viewer] = friends

    def _unwatch(self, viewer: int, friend: int) -> None:
        watching = self.watchers.get(friend)
        if watching is not None:
            watching.discard(viewer)
            if not watching:
                del self.watchers[friend]
                self.last.pop(friend, None)

    def _known(self, friend: int) -> Presence:
        """The presence of ``friend`` its watchers were told (now's, if none was told)."""
        known = self.last.get(friend)
        if known is None:
            known = self.last[friend] = self._presence(friend, self._seated())
        return known

    def disconnect(self, account_id: int, conn: Connection) -> None:
        """A push socket closed."""
        held = self.sockets.get(account_id, [])
        if conn in held:
            held.remove(conn)
        if not held:
            self.sockets.pop(account_id, None)
            self._watch(account_id, set())
            self.friends.pop(account_id, None)

    def push(self, account_id: int, message: Mapping[str, Any]) -> int:
        """Send ``message`` to every push socket of ``account_id``, here and (in a cluster)
        at the other processes; how many sockets here got it."""
        if self.share is not None:
            self.share("push", {"a": account_id, "m": dict(message)})
        return self.deliver(account_id, message)

    def deliver(self, account_id: int, message: Mapping[str, Any]) -> int:
        """Send ``message`` to the push sockets of ``account_id`` at this process only."""
        held = self.sockets.get(account_id, [])
        for conn in held:
            conn.send(message)
        return len(held)

    def online(self, account_id: int) -> bool:
        """True while the account has a push socket or a connected seat at any process."""
        return bool(self.presence_of([account_id])[account_id]["status"] != "offline")

    # ------------------------------------------------------------ friends changed
    async def changed(self, *account_ids: int, shared: bool = True) -> None:
        """The friend lists of ``account_ids`` changed (a request, an acceptance, a removal,
        a block): their sockets are told (``friends``), follow the new list and get the
        presence of each new friend; the other processes are told to do the same with theirs
        (``shared`` False: this is such news, heard from another process)."""
        if shared and self.share is not None:
            self.share("friends", {"ids": list(account_ids)})
        loop = asyncio.get_running_loop()
        for account_id in account_ids:
            if account_id not in self.sockets:
                continue
            found = await loop.run_in_executor(None, self.store.friend_ids, account_id)
            if account_id not in self.sockets:
                continue
            new = found - self.friends.get(account_id, set())
            self._watch(account_id, found)
            self.deliver(account_id, {"type": "friends"})
            for friend in sorted(new):
                self.deliver(account_id, self._presence_message(friend, self._known(friend)))
        self.tick()

    async def regreet(self) -> int:
        """After a break of the news from the other processes (the relay's channel lost and
        back): each push socket here is told again what the database knows, as a new socket
        is (the greeters: the tournaments' undecided matches), and reads its friends list
        again; how many accounts were told."""
        accounts = list(self.sockets)
        for account_id in accounts:
            for greet in self.greeters:
                try:
                    messages = await greet(account_id)
                except Exception:
                    log.exception("a push socket's greeting failed")
                    continue
                for message in messages:
                    self.deliver(account_id, message)
        if accounts:
            await self.changed(*accounts, shared=False)
        return len(accounts)

    # ------------------------------------------------------------ presence
    def _seated(self) -> dict[int, tuple[str, bool]]:
        """Each account with a connected seat at a waiting or playing table: (table id,
        playing)."""
        found: dict[int, tuple[str, bool]] = {}
        for writer in list(self.lobby.writers.values()):
            table = writer.table
            if table.status not in (TableStatus.WAITING, TableStatus.PLAYING):
                continue
            playing = table.status == TableStatus.PLAYING
            for seat in table.seats:
                if seat.account_id is not None and seat.connections > 0 and (
                        playing or seat.account_id not in found):
                    found[seat.account_id] = (table.id, playing)
        return found

    def _presence(self, account_id: int, seated: Mapping[int, tuple[str, bool]]) -> Presence:
        """The strongest of this process's presence of ``account_id`` and the others'."""
        best = self._local(account_id, seated)
        for _at, reported in self.remote.values():
            other = reported.get(account_id)
            if other is not None and strength(other) > strength(best):
                best = other
        return best

    def _local(self, account_id: int, seated: Mapping[int, tuple[str, bool]]) -> Presence:
        """The presence of ``account_id`` as this process sees it."""
        at = seated.get(account_id)
        if at is not None:
            tournament = self.tournaments.get(at[0], (None, 0.0))[0]
            return {"status": "table", "table_id": at[0], "playing": at[1],
                    "tournament": tournament}
        if account_id in self.sockets:
            return {**OFFLINE, "status": "online"}
        return dict(OFFLINE)

    def presence_of(self, account_ids: Iterable[int]) -> dict[int, Presence]:
        """The presence of each account now."""
        seated = self._seated()
        return {a: self._presence(a, seated) for a in account_ids}

    @staticmethod
    def _presence_message(friend: int, presence: Presence) -> dict[str, Any]:
        return {"type": "presence", "id": friend, **presence}

    def tick(self, seated: dict[int, tuple[str, bool]] | None = None) -> int:
        """Send the watchers of each account whose presence changed since they were last
        told (``seated``: :meth:`_seated`, read now when not given); how many messages went
        out."""
        self._forget_silent()
        if not self.watchers:
            return 0
        if seated is None:
            seated = self._seated()
        sent_now = 0
        for friend, viewers in list(self.watchers.items()):
            now = self._presence(friend, seated)
            if self.last.get(friend) != now:
                self.last[friend] = now
                message = self._presence_message(friend, now)
                for viewer in viewers:
                    sent_now += self.push(viewer, message)
        return sent_now

    # ------------------------------------------------------------ other processes
    def report(self, seated: dict[int, tuple[str, bool]] | None = None,
               force: bool = False) -> bool:
        """Tell the other processes this process's presence of its accounts (those with a
        push socket or a connected seat here), when it changed or the last report is
        :data:`PRESENCE_REPORT_SECONDS` old (or ``force``); whether it was sent."""
        if self.share is None:
            return False
        if seated is None:
            seated = self._seated()
        now = {a: self._local(a, seated) for a in {*self.sockets, *seated}}
        at, before = self._reported
        moment = time.monotonic()
        if not force and now == before and moment - at < PRESENCE_REPORT_SECONDS:
            return False
        self._reported = (moment, now)
        self.share("presence", {"p": {str(a): p for a, p in now.items()}})
        return True

    def heard_presence(self, process: str, reported: Mapping[str, Presence]) -> None:
        """Another process's presence report (it replaces that process's last one); the
        watchers here are told what changed."""
        accounts = {int(a): dict(p) for a, p in reported.items()}
        if accounts:
            self.remote[process] = (time.monotonic(), accounts)
        else:  # the process stopped
            self.remote.pop(process, None)
        self.tick()

    def _forget_silent(self) -> None:
        """Drop the reports of processes silent for :data:`REMOTE_PRESENCE_SECONDS`."""
        limit = time.monotonic() - REMOTE_PRESENCE_SECONDS
        for process in [p for p, (at, _) in self.remote.items() if at < limit]:
            del self.remote[process]

    def heard_invitation(self, fields: Mapping[str, Any]) -> None:
        """An invitation made at another process: kept here too (so that it can be answered
        here) and sent to the invitee's sockets here."""
        made = Invitation(str(fields["id"]), int(fields["from_id"]), str(fields["from_name"]),
                          int(fields["to_id"]), str(fields["to_name"]),
                          str(fields["table_id"]), fields.get("invite"),
                          time.monotonic() + float(fields["seconds"]))
        for key, old in list(self.invitations.items()):
            if old.from_id == made.from_id and old.to_id == made.to_id:
                del self.invitations[key]
        self.invitations[made.id] = made
        self.deliver(made.to_id, made.message())

    def heard_dropped(self, invitation_ids: Iterable[str]) -> None:
        """Invitations answered or dropped at another process."""
        for key in invitation_ids:
            self.invitations.pop(key, None)

    def _dropped(self, *invitation_ids: str) -> None:
        if self.share is not None and invitation_ids:
            self.share("dropped", {"ids": list(invitation_ids)})

    async def refresh_tournaments(self, seated: dict[int, tuple[str, bool]] | None = None
                                  ) -> None:
        """Read which tournament each table with a seated account plays for (tables not
        read yet, and those found in none a while ago); forget the tables gone.
        ``seated``: :meth:`_seated`, read now when not given."""
        now = time.monotonic()
        if seated is None:
            seated = self._seated()
        tables = {table_id for table_id, _playing in seated.values()}
        wanted = [t for t in tables if t not in self.tournaments
                  or (self.tournaments[t][0] is None
                      and now - self.tournaments[t][1] >= TOURNAMENT_RECHECK_SECONDS)]
        if wanted:
            found = await asyncio.get_running_loop().run_in_executor(
                None, self.store.tournaments_of, wanted)
            for table_id in wanted:
                self.tournaments[table_id] = (found.get(table_id), now)
        for gone in set(self.tournaments) - tables:
            del self.tournaments[gone]

    def start(self) -> None:
        """Run the presence loop (once)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._loop())

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(PRESENCE_SECONDS)
            try:
                if self.watchers or self.share is not None:  # the lobby scanned once
                    seated = self._seated()
                    await self.refresh_tournaments(seated)
                    self.report(seated)
                    self.tick(seated)
                self.live_invitations()
            except Exception:  # a bad tick must not end presence for everyone
                log.exception("friends' presence failed")

    async def close(self) -> None:
        """Stop the presence loop; close the push sockets."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for held in list(self.sockets.values()):
            for conn in list(held):
                conn.close(1012, "server restarting")

    # ------------------------------------------------------------ invitations
    def live_invitations(self) -> list[Invitation]:
        now = time.monotonic()
        for key in [k for k, v in self.invitations.items() if v.expires <= now]:
            del self.invitations[key]
        return list(self.invitations.values())

    def invite(self, from_id: int, from_name: str, to_id: int, to_name: str, table_id: str,
               invite: str | None) -> Invitation:
        """A new invitation, sent to the invitee's sockets (an earlier one from the same
        account to the same friend is replaced)."""
        for key, old in list(self.invitations.items()):
            if old.from_id == from_id and old.to_id == to_id:
                del self.invitations[key]
        made = Invitation(secrets.token_urlsafe(9), from_id, from_name, to_id, to_name,
                          table_id, invite, time.monotonic() + INVITATION_SECONDS)
        self.invitations[made.id] = made
        self.deliver(to_id, made.message())
        if self.share is not None:
            self.share("invited", {"id": made.id, "from_id": from_id, "from_name": from_name,
                                   "to_id": to_id, "to_name": to_name, "table_id": table_id,
                                   "invite": invite, "seconds": INVITATION_SECONDS})
        return made

    def answer(self, invitation_id: str, account_id: int, accepted: bool) -> Invitation | None:
        """The invitee's answer: the invitation is gone, its sender told (``invitation_answer``)
        and every socket of the invitee drops it (``invitation_gone``); ``None`` for an
        invitation unknown, expired or not to ``account_id``."""
        self.live_invitations()
        found = self.invitations.get(invitation_id)
        if found is None or found.to_id != account_id:
            return None
        del self.invitations[invitation_id]
        self._dropped(invitation_id)
        self.push(found.from_id, {"type": "invitation_answer", "id": found.id,
                                  "friend": found.to_name, "table_id": found.table_id,
                                  "answer": "accepted" if accepted else "declined"})
        self.push(account_id, {"type": "invitation_gone", "id": found.id})
        return found

    def forget_between(self, a: int, b: int) -> None:
        """Drop the invitations between two accounts (a removal or a block)."""
        for key, old in list(self.invitations.items()):
            if {old.from_id, old.to_id} == {a, b}:
                del self.invitations[key]
                self._dropped(key)
                self.push(old.to_id, {"type": "invitation_gone", "id": key})
