"""The ``ginrummy`` command line: play, analyze, simulate, replay, rules.

Each subcommand lives in its own module and is imported only when it runs, so ``--help`` and
``--version`` start fast and need no optional package; a command whose extra is missing says
which one to install (:mod:`ginrummy.cli.extras`).
"""

from ginrummy.cli.main import main

__all__ = ["main"]
