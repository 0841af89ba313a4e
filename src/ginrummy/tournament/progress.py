"""A progress bar with the time left, on stderr (``rich``; nothing if it is not installed)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(total: int, description: str, enabled: bool = True
                 ) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``; draws a bar with elapsed and remaining time on stderr when
    ``enabled`` and ``rich`` is installed, otherwise does nothing."""
    if not enabled:
        yield _ignore
        return
    try:
        rich_console = importlib.import_module("rich.console")
        rich_progress = importlib.import_module("rich.progress")
    except ImportError:
        yield _ignore
        return
    columns = (
        rich_progress.TextColumn("{task.description}"),
        rich_progress.BarColumn(),
        rich_progress.MofNCompleteColumn(),
        rich_progress.TextColumn("games"),
        rich_progress.TimeElapsedColumn(),
        rich_progress.TextColumn("elapsed,"),
        rich_progress.TimeRemainingColumn(),
        rich_progress.TextColumn("left"),
    )
    console = rich_console.Console(stderr=True)
    with rich_progress.Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=total)

        def advance(games: int) -> None:
            bar.advance(task, games)

        yield advance


def _ignore(games: int) -> None:
    """No bar."""
