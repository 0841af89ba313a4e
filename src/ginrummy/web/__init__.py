"""The browser client: static files (HTML, ES modules, CSS, message catalogues) served at ``/``.

No build step: the server serves :data:`STATIC_DIR` as it is.
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR: Path = Path(__file__).resolve().parent / "static"
"""The directory holding ``index.html`` and the ``js``, ``css`` and ``i18n`` folders."""

LANGUAGES: tuple[str, ...] = ("en", "fr", "pl", "hu")
"""The languages of the message catalogues (``static/i18n/<lang>.json``)."""


def static_dir() -> Path:
    """The static directory to serve at ``/``."""
    return STATIC_DIR


__all__ = ["LANGUAGES", "STATIC_DIR", "static_dir"]
