"""The package's optional extras (``server``, ``env``, ``cli``, ``ray``): the one place that
says how to install one, for every message that asks for it."""

from __future__ import annotations


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: ``pip install 'ginrummy[server]'``."""
    return f"pip install 'ginrummy[{extra}]'"


__all__ = ["install_hint"]
