"""Table chat: plain text lines, length-capped and cleaned of control characters.

Chat lines are sent as JSON string fields; clients render them as text, never as HTML. The
server does not escape HTML (that would garble what people typed) and does not store chat.
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime
from typing import Any

from ginrummy.server.protocol import Code, MessageError


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


def chat_message(seat: int | None, name: str, text: str) -> dict[str, Any]:
    """The ``chat`` message sent to the table."""
    at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {"type": "chat", "seat": seat, "name": name, "text": text, "at": at}
