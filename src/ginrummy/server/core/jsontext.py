"""Fast JSON text for outgoing messages (orjson), the standard library as a fallback; and the
one strict reader of incoming JSON text (WebSocket frames and HTTP bodies)."""

from __future__ import annotations

import json
import math
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson ships with the server extra
    orjson = None  # type: ignore[assignment]

MAX_INT = (1 << 53) - 1
"""The largest integer a client may send: what every JSON reader (a browser's included) holds
exactly, and far below orjson's 64-bit limit."""


class JSONTextError(ValueError):
    """Incoming text that is not JSON this server reads; the message says why."""


def _refuse_constant(name: str) -> Any:
    raise JSONTextError(f"{name} is not JSON")


def _bounded_int(text: str) -> int:
    # json.loads hands every integer literal here: refuse long ones before int() converts them
    # (a 4,300-digit literal would raise from int(), a smaller huge one would reach orjson)
    if len(text.lstrip("-")) > 16:
        raise JSONTextError(f"an integer over {MAX_INT} (too big to read exactly)")
    value = int(text)
    if abs(value) > MAX_INT:
        raise JSONTextError(f"an integer over {MAX_INT} (too big to read exactly)")
    return value


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999
        raise JSONTextError("a number beyond the floating-point range")
    return value


_DECODER = json.JSONDecoder(parse_int=_bounded_int, parse_float=_finite_float,
                            parse_constant=_refuse_constant)
"""The one strict decoder (``json.loads`` with these arguments would build a new one, with its
scanner, for every message)."""


def loads(text: str | bytes) -> Any:
    """``text`` as a JSON value, or :class:`JSONTextError` (never another exception): text that
    is not JSON or not UTF-8, nesting deeper than the parser's stack, ``NaN``/``Infinity`` or a
    number that overflows to it, or an integer beyond +-(2^53 - 1)."""
    try:
        if isinstance(text, (bytes, bytearray)):  # as json.loads reads bytes
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        if not isinstance(text, str):
            raise TypeError(f"JSON text must be str or bytes, not {type(text).__name__}")
        if text.startswith("\ufeff"):
            raise ValueError("Unexpected UTF-8 BOM")
        return _DECODER.decode(text)
    except JSONTextError:
        raise
    except (ValueError, RecursionError, TypeError) as exc:  # JSONDecodeError, UnicodeDecodeError
        raise JSONTextError("not valid JSON") from exc


def dumps(value: Any) -> str:
    """``value`` as compact JSON text (UTF-8 characters kept)."""
    if orjson is not None:
        return orjson.dumps(value).decode("utf-8")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
