"""The ``ginrummy`` command line: play, analyze, simulate, replay, rules.

Each subcommand lives in its own module and is imported only when it runs, so ``--help`` and
``--version`` start fast and only ``play`` needs the optional ``rich`` package.
"""

from ginrummy.cli.main import main

__all__ = ["main"]
