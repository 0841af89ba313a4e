"""``ginrummy``: the command-line entry point (argparse) and its error handling.

The parsers are all built here; each subcommand's module is imported only when it runs.
Bad arguments print one line on stderr and exit with status 2, never a traceback (set
``GINRUMMY_DEBUG=1`` to see one).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from ginrummy import __version__
from ginrummy.cli.extras import MissingExtra, needs_extra
from ginrummy.cli.options import add_rules_arguments
from ginrummy.rules import PRESETS

PROG = "ginrummy"

EXAMPLES = """\
examples:
  ginrummy play                              a match to 100 against the simple bot
  ginrummy play --preset playok --target 200 --oklahoma
  ginrummy play --preset arena --players 3 --pool 500
  ginrummy analyze "3s 5s 6s 5c 6c 3d 6d 4h 5h 6h 7h"
  ginrummy analyze --record game.ginrec.json --hand 2 --move 9
  ginrummy coach game.ginrec.json --seat 0   where a player lost points, move by move
  ginrummy simulate --players simple,simple --hands 2000 --seed 1 --preset eaai --json
  ginrummy tournament --players simple,random --preset eaai --matches 200 --seed 1 --jobs 2
  ginrummy replay ginrummy-20250101-120000.ginrec.json --verbose
  ginrummy verify game.ginrec.json           every deal recomputed from its revealed seeds
  ginrummy rules playok
  ginrummy serve --port 8000 --db sqlite:///ginrummy.db
  ginrummy ledger check --db sqlite:///ginrummy.db   (exit status 1 on any discrepancy)
  ginrummy admin create ann --db sqlite:///ginrummy.db   (password on stdin or asked)
"""


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Gin Rummy exactly as the rulebooks say: play in the terminal, analyze "
        "hands, simulate bots, replay game records.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser(
        "play", help="play a match in the terminal against the computer",
        description="Play a match (or a single-hand game) against computer players. You are "
        "seat 0; the others are bots. Type h during the game for help.")
    add_rules_arguments(play)
    play.add_argument("--opponent", default="simple", metavar="NAME[,NAME...]",
                      help="computer player level(s), e.g. simple or random (default "
                      "simple); one name for all, or one per computer seat")
    play.add_argument("--seed", type=int, help="deterministic deals (default: a live, "
                      "unpredictable shuffle)")
    play.add_argument("--pool", type=int, metavar="CENTS",
                      help="prize pool in cents (single_hand format only)")
    rec = play.add_mutually_exclusive_group()
    rec.add_argument("--record", metavar="FILE", help="save the game record to FILE "
                     "(default: ginrummy-<timestamp>.ginrec.json here)")
    rec.add_argument("--no-record", action="store_true", help="do not save a game record")
    play.add_argument("--sort", choices=("suit", "rank"), default="suit",
                      help="how your hand is sorted (default suit; 's' toggles in play)")
    play.add_argument("--ascii", action="store_true",
                      help="plain ASCII: no suit symbols, no colour")

    analyze = sub.add_parser(
        "analyze", help="best melds, deadwood and knock options of a hand; expert advice "
        "on a position of a game record",
        description="Analyze a hand: least deadwood, every best arrangement, and for "
        "hand_size+1 cards the knock options. With --record, the expert's ranked advice for "
        "the player to move at a position of a game record (from that player's view only).")
    analyze.add_argument("cards", nargs="*", metavar="CARDS",
                         help='cards such as "As 2s 3s Td 10h Q♥" (one or several arguments)')
    analyze.add_argument("--knock-limit", type=int, default=10, metavar="N",
                         help="knock limit (default 10)")
    analyze.add_argument("--big-gin", action="store_true", help="allow big gin")
    analyze.add_argument("--hand-size", type=int, default=10, metavar="N",
                         help="the game's hand size; knock options are listed for N+1 cards "
                         "(default 10)")
    analyze.add_argument("--taken", metavar="CARD",
                         help="the card just taken from the discard pile (may not be "
                         "discarded, R3.3)")
    analyze.add_argument("--json", action="store_true", help="JSON output")
    from ginrummy.cli.analyze import add_record_arguments

    add_record_arguments(analyze)

    simulate = sub.add_parser(
        "simulate", help="play many hands between built-in players and time them",
        description="Play N complete hands between built-in players (one name per seat), "
        "deals, reshuffles and bots seeded from --seed, dealer rotating.")
    simulate.add_argument("--players", dest="seats", default="random,random",
                          metavar="NAME,NAME[,...]",
                          help="one player per seat: random or simple (default random,random)")
    simulate.add_argument("--hands", type=int, default=1000, metavar="N",
                          help="number of hands (default 1000)")
    simulate.add_argument("--seed", type=int, help="random seed (default: a random one, "
                          "reported)")
    add_rules_arguments(simulate, convenience=False)
    simulate.add_argument("--json", action="store_true", help="one JSON object on stdout")
    simulate.add_argument("--record", metavar="DIR",
                          help="save each hand as a game record in DIR (made if missing), "
                          "for replay, coach and verify")

    tournament = sub.add_parser(
        "tournament", help="duplicate deals between bots: win rates with confidence intervals",
        description="Play duplicate deals between bots: every deal is played once per seat "
        "rotation (seats swapped with 2 players), in parallel processes or on Ray. Reports "
        "win rates and points per hand with 95%% confidence intervals, gin / knock / undercut "
        "rates and decision latencies. See docs/tournament.md.")
    from ginrummy.cli.tournament import add_tournament_arguments

    add_tournament_arguments(tournament)
    add_rules_arguments(tournament, convenience=False)

    coach = sub.add_parser(
        "coach", help="where a player lost points: the expert's verdict on every decision "
        "of a game record",
        description="For every decision of one player in a game record: the expert's value "
        "of each legal choice from that player's view at the time, the choice made and the "
        "points it cost; then points lost by kind, the costliest moves and the accuracy. "
        "See docs/coach.md.")
    from ginrummy.cli.coach import add_coach_arguments

    add_coach_arguments(coach)

    replay = sub.add_parser(
        "replay", help="replay a game record, checking every action and result",
        description="Replay a game record file: each hand's result and the final score.")
    replay.add_argument("file", metavar="FILE", help="a .ginrec.json game record")
    replay.add_argument("--verbose", "-v", action="store_true", help="print every action")

    verify = sub.add_parser(
        "verify", help="check that every deal of a game record came from its committed seeds",
        description="For every hand of a game record: the commitment matches the revealed "
        "server seed and the deck and reshuffles recomputed from the seeds are the ones "
        "played. Exit status 1 when any hand is not verified. See docs/fair.md.")
    from ginrummy.cli.verify import add_verify_arguments

    add_verify_arguments(verify)

    rules = sub.add_parser(
        "rules", help="print a preset's options as a table",
        description="Print the options of a preset (with --set overrides), or of all presets "
        "side by side.")
    rules.add_argument("preset_name", nargs="?", metavar="PRESET", type=str.lower,
                       choices=list(PRESETS), help=f"one of {', '.join(PRESETS)}")
    rules.add_argument("--set", dest="sets", action="append", metavar="OPTION=VALUE",
                       default=[], help="override an option (repeatable)")
    serve = sub.add_parser(
        "serve", help="play online: the web client, lobby and game server",
        description="Start the game server: the web client at /, the lobby API at /api and "
        "the WebSocket endpoint at /ws. Tables and games are stored in a database (SQLite "
        "file by default, PostgreSQL by URL) and restored after a restart.")
    from ginrummy.cli.serve import add_serve_arguments

    add_serve_arguments(serve)

    ledger_parser = sub.add_parser(
        "ledger", help="the chip ledger of the online server (ginrummy ledger check)",
        description="Check the chip ledger of the online server's database.")
    from ginrummy.cli.ledger import add_ledger_arguments

    add_ledger_arguments(ledger_parser)

    admin = sub.add_parser(
        "admin", help="administrators of the online server (ginrummy admin create NAME)",
        description="Manage the online server's administrators.")
    from ginrummy.cli.admin import add_admin_arguments

    add_admin_arguments(admin)
    return parser


def _dispatch(args: argparse.Namespace) -> int:
    command = args.command
    if command == "play":
        from ginrummy.cli.play import run_play

        return run_play(args)
    if command == "analyze":
        from ginrummy.cli.analyze import run_analyze

        return run_analyze(args)
    if command == "simulate":
        from ginrummy.cli.simulate import run_simulate

        return run_simulate(args)
    if command == "tournament":
        from ginrummy.cli.tournament import run_tournament_command

        return run_tournament_command(args)
    if command == "coach":
        from ginrummy.cli.coach import run_coach

        return run_coach(args)
    if command == "replay":
        from ginrummy.cli.replay import run_replay

        return run_replay(args)
    if command == "verify":
        from ginrummy.cli.verify import run_verify

        return run_verify(args)
    if command == "rules":
        from ginrummy.cli.rulestable import run_rules

        return run_rules(args)
    if command == "serve":
        from ginrummy.cli.serve import run_serve

        with needs_extra("server", "serve"):
            return run_serve(args)
    if command == "ledger":
        from ginrummy.cli.ledger import run_ledger

        with needs_extra("server", f"ledger {args.ledger_command}"):
            return run_ledger(args)
    if command == "admin":
        from ginrummy.cli.admin import run_admin

        with needs_extra("server", f"admin {args.admin_command}"):
            return run_admin(args)
    raise AssertionError(command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 failure, 2 bad arguments)."""
    parser = build_parser()
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except SystemExit as exc:  # argparse: --help, --version, or a usage error (status 2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except MissingExtra as exc:  # e.g. serve without the server extra: say what to install
        if os.environ.get("GINRUMMY_DEBUG"):
            raise
        print(exc, file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return 1
    except RuntimeError as exc:  # an endless hand (the game loop's cap): the run fails
        from ginrummy.gameloop import EndlessHand

        if not isinstance(exc, EndlessHand) or os.environ.get("GINRUMMY_DEBUG"):
            raise
        notes = "; ".join(getattr(exc, "__notes__", ()))  # where: deal, rotation, hand
        print(f"{PROG} {args.command}: error: {exc}" + (f" ({notes})" if notes else ""),
              file=sys.stderr)
        return 1
    except (ValueError, OSError) as exc:  # RulesetError, RecordError, UsageError, files
        if os.environ.get("GINRUMMY_DEBUG"):
            raise
        print(f"{PROG} {args.command}: error: {_message(exc)}", file=sys.stderr)
        return 2


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror}"
    return str(exc) or type(exc).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
