"""Table chat: plain text lines, length-capped and cleaned of control characters.

Chat lines are sent as JSON string fields; clients render them as text, never as HTML. The
server does not escape HTML (that would garble what people typed) and does not store chat:
each table keeps only its last :data:`RECENT_LINES` lines in memory (:class:`RecentChat`), so
that a player can report one (docs/moderation.md). A muted account's lines
(:class:`ChatMutes`) are refused.
"""

from __future__ import annotations

import time
import unicodedata
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from ginrummy.server.connections import Connection
from ginrummy.server.jsontext import dumps
from ginrummy.server.messages import chat_message, error
from ginrummy.server.protocol import Code, MessageError
from ginrummy.server.settings import Settings


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


RECENT_LINES = 100
"""Chat lines each table remembers (in memory only) for reports."""


@dataclass(frozen=True)
class ChatLine:
    """A chat line as it was sent: who said it (seat, name, account) and when."""

    at: float
    seat: int | None
    name: str
    account_id: int | None
    text: str


class RecentChat:
    """The last lines said at one table (``RECENT_LINES``), newest last."""

    def __init__(self, size: int = RECENT_LINES) -> None:
        self.lines: deque[ChatLine] = deque(maxlen=size)

    def add(self, line: ChatLine) -> None:
        """Remember a line that was sent."""
        self.lines.append(line)

    def find(self, author: str, text: str) -> ChatLine | None:
        """The latest remembered line of ``author`` (a name as chat showed it) whose text is
        ``text`` (compared after the same cleaning), or ``None``."""
        wanted = " ".join(text.split())
        for line in reversed(self.lines):
            if line.name == author and line.text == wanted:
                return line
        return None


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

    def until(self, account_id: int | None) -> datetime | None:
        """When the account's mute ends, while it is muted; else ``None``."""
        if account_id is None:
            return None
        until = self._until.get(account_id)
        if until is not None and until <= datetime.now(UTC):
            del self._until[account_id]
            return None
        return until


def send_chat(author: Connection, text: str, listeners: Iterable[Connection],
              settings: Settings, mutes: ChatMutes | None = None,
              recent: RecentChat | None = None) -> None:
    """Send ``author``'s chat line to every listener that has not muted its seat, and
    remember it in ``recent``; refused lines (a muted account's, too many, empty, too long)
    get an ``error`` and go nowhere."""
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
    message = dumps(chat_message(author.seat, author.name, cleaned))
    if recent is not None:
        recent.add(ChatLine(time.time(), author.seat, author.name, author.account_id, cleaned))
    for other in list(listeners):
        if author.seat not in other.muted:
            other.send(message)
