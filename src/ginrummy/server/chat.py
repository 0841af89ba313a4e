"""Table chat: plain text lines, length-capped and cleaned of control characters.

Chat lines are sent as JSON string fields; clients render them as text, never as HTML. The
server does not escape HTML (that would garble what people typed) and does not store chat.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

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


def send_chat(author: Connection, text: str, listeners: Iterable[Connection],
              settings: Settings) -> None:
    """Send ``author``'s chat line to every listener that has not muted its seat; refused
    lines (too many, empty, too long) get an ``error`` and go nowhere."""
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
    for other in list(listeners):
        if author.seat not in other.muted:
            other.send(message)
