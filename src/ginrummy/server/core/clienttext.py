"""The one check of every string a client sends (docs/security.md, *Input at the edge*).

Every WebSocket message (:func:`ginrummy.server.core.protocol.parse_client_message`) and
every JSON body (:func:`ginrummy.server.http.common.read_body`) is walked once, keys and
values at any depth, before any model or route sees it: a control character (C0 but tab,
line feed and carriage return, DEL, C1: U+0000-U+0008, U+000B, U+000C, U+000E-U+001F,
U+007F-U+009F) or a lone surrogate (U+D800-U+DFFF, which a JSON ``\\ud800`` escape makes and
no database stores) refuses the whole message, naming the field. Ids, names, chat, seeds,
table names, report text and passwords alike: nothing a person types needs one, and a NUL is
what PostgreSQL refuses to store in a text column (a write that fails in a shared commit
costs every other table's writes a retry). Tab and line breaks are ordinary white space
(pasted text, an administrator's notice of two lines): the text fields fold them into a
space (:func:`ginrummy.server.play.chat.clean_text`).
"""

from __future__ import annotations

import re
from typing import Any

REFUSED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
"""The characters no client string may hold."""


SUSPECT = re.compile("[\\\\\x7f-\x9f\ud800-\udfff]")
"""What JSON text must hold for its strings to hold a refused character: JSON refuses a raw
C0 control character in a string, so one comes only from an escape (a backslash); DEL, C1
and a surrogate may also stand raw."""


def may_hold_refused(json_text: str) -> bool:
    """False when the JSON text cannot decode to a refused character (no backslash, DEL, C1
    or surrogate in it): the walk of :func:`check_strings` may be skipped. One scan of the
    text: for ASCII text (almost every message) two ``in`` tests, tens of nanoseconds (the
    walk costs microseconds)."""
    if json_text.isascii():
        return "\\" in json_text or "\x7f" in json_text
    return SUSPECT.search(json_text) is not None


class BadText(ValueError):
    """A client string holding a refused character; ``field`` names where (``a.b.0``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def describe(char: str) -> str:
    """What is wrong with a refused character, in words."""
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return f"a lone surrogate U+{code:04X} is not text"
    return f"the control character U+{code:04X} is not allowed"


def check_strings(value: Any, where: str = "") -> None:
    """Walk a parsed JSON value; :class:`BadText` at the first refused string (a dict's keys
    included). Numbers, booleans and ``null`` pass. Iterative: any depth the parser let
    through is walked."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        item, name = stack.pop()
        if isinstance(item, str):
            found = REFUSED.search(item)
            if found is not None:
                raise BadText(name or "value", describe(found.group()))
        elif isinstance(item, dict):
            for key, inner in reversed(item.items()):
                path = f"{name}.{key}" if name else str(key)
                found = REFUSED.search(key)
                if found is not None:  # the key itself: named without its bad character
                    raise BadText(REFUSED.sub("?", path)[:80],
                                  f"a field name: {describe(found.group())}")
                if isinstance(inner, (str, dict, list)):
                    stack.append((inner, path))
        elif isinstance(item, list):
            for index in range(len(item) - 1, -1, -1):
                inner = item[index]
                if isinstance(inner, (str, dict, list)):
                    stack.append((inner, f"{name}.{index}" if name else str(index)))
