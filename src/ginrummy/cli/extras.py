"""The optional extras of the commands: a command whose extra is not installed says which one
to install, in one line, and exits with status 2 (no traceback).

``pip install ginrummy`` has no dependencies; ``serve``, ``admin`` and ``ledger`` need the
``server`` extra, ``tournament --backend ray`` the ``ray`` extra. Their modules import the
extra's packages only when they run, inside :func:`needs_extra`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ginrummy.extras import install_hint


class MissingExtra(Exception):
    """A package of an optional extra is not installed; the message names the extra."""

    def __init__(self, command: str, extra: str, module: str) -> None:
        super().__init__(f"ginrummy {command} needs the {extra} extra: {install_hint(extra)} "
                         f"({module} is not installed)")
        self.extra = extra
        self.module = module


@contextmanager
def needs_extra(extra: str, command: str) -> Iterator[None]:
    """Run the block; a module from outside ginrummy that is not installed raises
    :class:`MissingExtra` naming ``extra`` (``ginrummy.cli.main`` prints it, status 2)."""
    try:
        yield
    except ModuleNotFoundError as exc:
        top = (exc.name or "").partition(".")[0]
        if not top or top == "ginrummy":  # a bug of ours, not a missing package
            raise
        raise MissingExtra(command, extra, top) from None
