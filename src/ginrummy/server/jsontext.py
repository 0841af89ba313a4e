"""Fast JSON text for outgoing messages (orjson), the standard library as a fallback."""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson ships with the server extra
    orjson = None  # type: ignore[assignment]


def dumps(value: Any) -> str:
    """``value`` as compact JSON text (UTF-8 characters kept)."""
    if orjson is not None:
        return orjson.dumps(value).decode("utf-8")
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
