"""``ginrummy tournament``: duplicate deals between bots, with confidence intervals.

The arguments become a :class:`~ginrummy.tournament.TournamentConfig`; the table (or, with
``--json``, one JSON object) goes to stdout and the progress bar to stderr, so both can be
used at once: ``ginrummy tournament ... --json > result.json`` still shows the bar.
"""

from __future__ import annotations

import argparse
import importlib
import json
import secrets
import sys
from typing import TYPE_CHECKING

from ginrummy.cli.extras import needs_extra
from ginrummy.cli.options import (
    UsageError,
    build_ruleset,
    parse_sets,
    record_directory,
    seat_names,
)
from ginrummy.rules import OPTIONS

if TYPE_CHECKING:  # the harness is imported only when the command runs
    from ginrummy.tournament import TournamentConfig

BACKENDS = ("local", "ray")


def add_tournament_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``ginrummy tournament`` (the rules options are added by the caller)."""
    parser.add_argument("--players", dest="seats", required=True, metavar="SPEC,SPEC[,...]",
                        help="one bot spec per seat, NAME or NAME:BUDGET_MS (e.g. "
                        "expert:50,beginner); 3-4 players need a single-hand preset")
    count = parser.add_mutually_exclusive_group()
    count.add_argument("--matches", type=int, metavar="N",
                       help="N duplicate deals, each a whole match played once per seat "
                       "rotation (default 100)")
    count.add_argument("--hands", type=int, metavar="N",
                       help="N duplicate single hands instead of matches (each hand scored "
                       "alone; the same as --matches for single-hand presets)")
    parser.add_argument("--seed", type=int, help="tournament seed (default: a random one, "
                        "reported)")
    parser.add_argument("--budget-ms", type=float, metavar="MS",
                        help="per-move budget of every player whose spec has none")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="K",
                        help="worker processes (local) or CPUs of a new local Ray (default 1)")
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="local processes, or Ray tasks (needs ginrummy[ray])")
    parser.add_argument("--ray-address", metavar="ADDRESS",
                        help="join this Ray cluster (e.g. auto or ray://host:10001) instead "
                        "of starting a local Ray")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object with the settings, statistics and every game")
    parser.add_argument("--record", metavar="DIR",
                        help="save every game as a game record in DIR (made if missing), for "
                        "replay, coach and verify")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (it is drawn on stderr when stderr is a terminal)")


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    """Check the arguments and build the configuration (a clear error for each mistake)."""
    from ginrummy.tournament import Backend, TournamentConfig, Unit

    names = [n for n in args.seats.split(",") if n.strip()]
    low, high = OPTIONS["players"].minimum, OPTIONS["players"].maximum
    if low is None or high is None or not low <= len(names) <= high:
        raise UsageError(f"--players: give {low} to {high} comma-separated players, "
                         f"got {len(names)}")
    rules_args = argparse.Namespace(**vars(args))
    if "players" not in parse_sets(args.sets):
        rules_args.players = len(names)  # the table size follows the players given
    rules = build_ruleset(rules_args)
    players = seat_names(args.seats, rules.players, "--players")
    for option in ("matches", "hands"):
        value = getattr(args, option)
        if value is not None and value < 1:
            raise UsageError(f"--{option} {value}: play at least one")
    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: use at least one")
    if args.budget_ms is not None and not args.budget_ms > 0:
        raise UsageError(f"--budget-ms {args.budget_ms:g}: the budget must be positive")
    if args.ray_address and args.backend != "ray":
        raise UsageError("--ray-address needs --backend ray")
    deals = args.hands if args.hands is not None else (args.matches or 100)
    unit = Unit.HAND if args.hands is not None else Unit.MATCH
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    directory = record_directory(args.record)
    return TournamentConfig(players=tuple(players), rules=rules, deals=deals, seed=seed,
                            unit=unit, budget_ms=args.budget_ms, jobs=args.jobs,
                            backend=Backend(args.backend), ray_address=args.ray_address,
                            record_dir=None if directory is None else str(directory.resolve()))


def run_tournament_command(args: argparse.Namespace) -> int:
    """Check the arguments, play, print the table or the JSON."""
    from ginrummy.tournament import Backend, Unit, run_tournament
    from ginrummy.tournament.progress import progress_bar

    config = config_from_args(args)
    if config.backend is Backend.RAY:  # a missing Ray is a usage error before anything runs
        with needs_extra("ray", "tournament --backend ray"):
            importlib.import_module("ray")
    show_bar = not args.no_progress and sys.stderr.isatty()
    what = "matches" if config.unit is Unit.MATCH else "hands"
    with progress_bar(config.games, f"{' vs '.join(config.players)} ({what})",
                      show_bar) as advance:
        result = run_tournament(config, advance)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print("\n".join(result.summary_lines()))
    return 0
