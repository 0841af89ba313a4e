"""Table chat: plain text lines, length-capped and cleaned of control characters.

Chat lines are sent as JSON string fields; clients render them as text, never as HTML. The
server does not escape HTML (that would garble what people typed). Each line is stored
(through the group committer, :mod:`ginrummy.storage.chatlog`) before anyone hears it, and
each table keeps its last :data:`RECENT_LINES` lines: in the database, and in memory
(:class:`RecentChat`, loaded from the database when the table is) so that a connection
that joins gets them (:meth:`RecentChat.history_for`) and a player can report one
(docs/moderation.md). A muted account's lines (:class:`ChatMutes`) are refused, and so
are a guest's from an address the muted account was seen at (``http/ws.py``'s
``chat_refusal``). The lines of an account a listener's account blocks
(:class:`ChatBlocks`, docs/friends.md) are not sent to that listener.
"""

from __future__ import annotations

import asyncio
import logging
import time
import unicodedata
from collections import deque
from collections.abc import Awaitable, Callable, Container, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from ginrummy.server.core.jsontext import dumps
from ginrummy.server.core.protocol import Code, MessageError
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.committer import CommitFailed, GroupCommitter
from ginrummy.server.play.connections import Connection
from ginrummy.server.play.messages import Chat, chat_message, error
from ginrummy.storage import Repository
from ginrummy.storage.chatlog import KEEP, StoredChatLine, add_line, load_lines

log = logging.getLogger("ginrummy.server.chat")


def clean_text(text: str, max_chars: int) -> str:
    """Trimmed text without control or format characters; :class:`MessageError` if it is
    empty or longer than ``max_chars``."""
    kept = "".join(" " if ch in "\t\n\r" else ch for ch in text
                   if ch in "\t\n\r" or unicodedata.category(ch)[0] != "C")
    kept = " ".join(kept.split())
    if not kept:
        raise MessageError(Code.CHAT_REJECTED, "empty chat message")
    if len(kept) > max_chars:
        raise MessageError(Code.CHAT_REJECTED,
                           f"chat message over {max_chars} characters ({len(kept)})")
    return kept


def clean_name(text: str, max_chars: int = 24) -> str:
    """A nickname or table name: the same cleaning; ``ValueError`` if empty or too long."""
    try:
        return clean_text(text, max_chars)
    except MessageError as exc:
        raise ValueError(str(exc).replace("chat message", "name")) from None


RECENT_LINES = KEEP
"""Chat lines each table keeps (stored, and in memory for newcomers and reports)."""


@dataclass(frozen=True)
class ChatLine:
    """A chat line as it was sent: who said it (seat, name, account), when (Unix time) and
    its number at the table (``seq``, 0 for a line that was not numbered)."""

    at: float
    seat: int | None
    name: str
    account_id: int | None
    text: str
    seq: int = 0

    @classmethod
    def from_stored(cls, line: StoredChatLine) -> ChatLine:
        """A line read back from the database."""
        return cls(line.at.timestamp(), line.seat, line.name, line.account_id, line.text,
                   line.seq)

    def stored(self) -> StoredChatLine:
        """The line as the database keeps it."""
        return StoredChatLine(self.seq, datetime.fromtimestamp(self.at, UTC), self.seat,
                              self.name, self.account_id, self.text)

    def message(self, history: bool = False) -> Chat:
        """Its ``chat`` message (nothing but the seat, name, text, time and number)."""
        return chat_message(self.seat, self.name, self.text, self.seq or None, self.at,
                            history)


ChatLoader = Callable[[], list[StoredChatLine]]
"""Reads a table's stored lines (run in a worker thread)."""
ChatStore = Callable[[ChatLine], Awaitable[None]]
"""Stores a line (through the group committer); :class:`CommitFailed` when it could not."""


class RecentChat:
    """The last lines said at one table (``RECENT_LINES``), newest last, and the number of
    the next one. Loaded once from the database (:meth:`ensure_loaded`) before the table's
    first line is said or sent to a newcomer."""

    def __init__(self, size: int = RECENT_LINES) -> None:
        self.lines: deque[ChatLine] = deque(maxlen=size)
        self.next_seq = 1
        self.loaded = False
        self._loading = asyncio.Lock()
        self._texts: dict[int, str] = {}
        """Each numbered line's history message as JSON text, built once (not per join)."""

    async def ensure_loaded(self, load: ChatLoader) -> bool:
        """Load the stored lines once (``load`` runs in a worker thread, not on the event
        loop); False when the database did not answer (a later call tries again)."""
        if self.loaded:
            return True
        async with self._loading:
            if self.loaded:
                return True
            try:
                stored = await asyncio.get_running_loop().run_in_executor(None, load)
            except Exception as exc:
                log.error("could not load a table's chat (%s); trying again later",
                          type(exc).__name__)
                return False
            self.restore(stored)
            return True

    def restore(self, stored: Iterable[StoredChatLine]) -> None:
        """Take the stored lines (oldest first) as the table's history."""
        kept = [ChatLine.from_stored(line) for line in stored]
        self.lines = deque([*kept, *self.lines], maxlen=self.lines.maxlen)
        self.next_seq = max([self.next_seq, *(line.seq + 1 for line in self.lines)])
        self.loaded = True

    def take_seq(self) -> int:
        """The number of a new line (never given twice, even if its line is not stored)."""
        seq = self.next_seq
        self.next_seq += 1
        return seq

    def add(self, line: ChatLine) -> None:
        """Remember a line that was sent."""
        if len(self.lines) == self.lines.maxlen:
            self._texts.pop(self.lines[0].seq, None)
        self.lines.append(line)
        self.next_seq = max(self.next_seq, line.seq + 1)

    def find(self, author: str, text: str) -> ChatLine | None:
        """The latest remembered line of ``author`` (a name as chat showed it) whose text is
        ``text`` (compared after the same cleaning), or ``None``."""
        wanted = " ".join(text.split())
        for line in reversed(self.lines):
            if line.name == author and line.text == wanted:
                return line
        return None

    def history_for(self, muted: Container[int | None],
                    mutes: ChatMutes | None = None,
                    blocked: Container[int | None] = frozenset()) -> list[str]:
        """The ``chat`` messages (``history``, as JSON texts) of the remembered lines a
        newcomer may hear, oldest first: none of a seat in ``muted`` (the connection's
        mutes; ``None``: the spectators), none of an account in ``blocked`` (the
        connection's account blocks it), none of an account an administrator has muted
        now."""
        return [self._history_text(line) for line in self.lines
                if line.seat not in muted
                and (line.account_id is None or line.account_id not in blocked)
                and (mutes is None or mutes.until(line.account_id) is None)]

    def _history_text(self, line: ChatLine) -> str:
        text = self._texts.get(line.seq) if line.seq else None
        if text is None:
            text = dumps(line.message(history=True))
            if line.seq:
                self._texts[line.seq] = text
        return text


class ChatBlocks:
    """Whose chat lines each account does not hear (the accounts it blocks: docs/friends.md),
    for the accounts connected here: one set per account, shared by its connections, so a
    block made now silences its author at once on every open table. Read from the database
    (``load``, set by the players' layer; in a worker thread) the first time the account
    connects."""

    def __init__(self) -> None:
        self.load: Callable[[int], set[int]] | None = None
        self._of: dict[int, set[int]] = {}

    async def of(self, account_id: int) -> set[int]:
        """The account's blocked set (empty, and read again next time, when the database
        does not answer)."""
        found = self._of.get(account_id)
        if found is not None or self.load is None:
            return found if found is not None else set()
        try:
            read = await asyncio.get_running_loop().run_in_executor(None, self.load, account_id)
        except Exception as exc:  # chat still works; the filter is read again next time
            log.warning("blocks of account %d not read: %s", account_id, type(exc).__name__)
            return set()
        return self._of.setdefault(account_id, read)

    async def reload(self, account_ids: Iterable[int] | None = None) -> int:
        """Read again from the database the sets of ``account_ids`` (default: every set held
        here) that are held here, each replaced in place so that the connections sharing it
        follow at once (a block made at another process of a cluster); how many were read."""
        held = [a for a in (self._of if account_ids is None else account_ids) if a in self._of]
        if not held or self.load is None:
            return 0
        load = self.load
        loop = asyncio.get_running_loop()
        read = 0
        for account_id in held:
            try:
                found = await loop.run_in_executor(None, load, account_id)
            except Exception as exc:  # kept as it was; read again at the next news
                log.warning("blocks of account %d not read again: %s", account_id,
                            type(exc).__name__)
                continue
            kept = self._of.get(account_id)
            if kept is not None:
                kept.intersection_update(found)
                kept.update(found)
                read += 1
        return read

    def change(self, account_id: int, other: int, blocked: bool) -> None:
        """``account_id`` blocked (or unblocked) ``other``: its connections here follow."""
        found = self._of.get(account_id)
        if found is None:
            return
        if blocked:
            found.add(other)
        else:
            found.discard(other)


class ChatMutes:
    """Accounts muted in chat by an administrator, until when (shared by every table)."""

    def __init__(self) -> None:
        self._until: dict[int, datetime] = {}

    def set(self, account_id: int, until: datetime | None) -> None:
        """Mute ``account_id`` until ``until`` (``None``: unmute)."""
        if until is None:
            self._until.pop(account_id, None)
        else:
            self._until[account_id] = until

    def replace(self, mutes: dict[int, datetime]) -> None:
        """Take ``mutes`` (account to until when) as the whole set: those stored now."""
        self._until = dict(mutes)

    def latest(self, account_ids: Iterable[int]) -> datetime | None:
        """When the last mute among these accounts ends, while one lasts; else ``None``."""
        ends = [end for end in map(self.until, account_ids) if end is not None]
        return max(ends, default=None)

    def until(self, account_id: int | None) -> datetime | None:
        """When the account's mute ends, while it is muted; else ``None``."""
        if account_id is None:
            return None
        until = self._until.get(account_id)
        if until is not None and until <= datetime.now(UTC):
            del self._until[account_id]
            return None
        return until


async def send_chat(author: Connection, text: str, listeners: Iterable[Connection],
                    settings: Settings, mutes: ChatMutes | None = None,
                    recent: RecentChat | None = None, store: ChatStore | None = None) -> None:
    """Store ``author``'s chat line (``store``), remember it in ``recent``, then send it to
    every listener that has not muted its seat (``listeners`` is read once the line is
    stored: a connection that joined meanwhile hears it live, not in its history). Refused
    lines (a muted account's, too many, empty, too long, not stored) get an ``error`` and go
    nowhere."""
    muted_until = None if mutes is None else mutes.until(author.account_id)
    if muted_until is not None:
        author.send(error(Code.MUTED, "an administrator muted you in chat until "
                          f"{muted_until.strftime('%Y-%m-%d %H:%M')} UTC"))
        return
    if not author.chats.allow():
        author.send(error(Code.RATE_LIMITED, f"at most {settings.chats_per_window} chat "
                          f"messages in {settings.chat_window_seconds:g} s"))
        return
    try:
        cleaned = clean_text(text, settings.chat_max_chars)
    except MessageError as exc:
        author.send(error(exc.code, str(exc)))
        return
    seq = 0 if recent is None else recent.take_seq()
    line = ChatLine(time.time(), author.seat, author.name, author.account_id, cleaned, seq)
    if store is not None:
        try:
            await store(line)
        except CommitFailed as exc:
            author.send(error(Code.STORAGE, f"the chat message was not stored ({exc}); "
                              "send it again"))
            return
    if recent is not None:
        recent.add(line)
    message = dumps(line.message())
    blocked_author = author.account_id
    for other in list(listeners):
        if author.seat not in other.muted and (blocked_author is None
                                               or blocked_author not in other.blocked):
            other.send(message)


class TableChat:
    """One table's chat: its recent lines (loaded from storage once, in a worker thread),
    each new line stored, then heard by the connections that have not muted its author."""

    def __init__(self, table_id: str, settings: Settings, committer: GroupCommitter,
                 repository: Repository, mutes: ChatMutes | None = None) -> None:
        self.table_id = table_id
        self.settings = settings
        self.committer = committer
        self.repository = repository
        self.mutes = mutes
        """Accounts muted in chat (shared by every table)."""
        self.recent = RecentChat()
        """The table's last lines (stored too): sent to newcomers, found by reports."""

    async def load(self) -> bool:
        """Load the stored lines once; False when the database did not answer."""
        return await self.recent.ensure_loaded(self._stored)

    def _stored(self) -> list[StoredChatLine]:
        return load_lines(self.repository.engine, self.table_id)

    async def _store(self, line: ChatLine) -> None:
        await self.committer.commit([add_line(self.table_id, line.stored())], self.table_id)

    def history_for(self, muted: Container[int | None],
                    blocked: Container[int | None] = frozenset()) -> list[str]:
        """The lines a newcomer gets (those of seats it has not muted, of accounts its
        account does not block)."""
        return list(self.recent.history_for(muted, self.mutes, blocked))

    async def say(self, author: Connection, text: str, listeners: Iterable[Connection]) -> None:
        """``author``'s line: stored, then sent to ``listeners`` (not under the table's lock:
        chat never waits for a move, nor a move for chat)."""
        if not await self.load():
            author.send(error(Code.STORAGE, "chat is unavailable: the database did not "
                              "answer; try again"))
            return
        await send_chat(author, text, listeners, self.settings, self.mutes, self.recent,
                        self._store)
