"""``ginrummy play``: a match in the terminal against computer players.

The human is seat 0, a :class:`Person`: one more kind of seat, whose ``choose`` prompts in
the terminal. Hands are played by :func:`ginrummy.gameloop.play_hand` (the same loop, decision
cap included, as ``simulate`` and the tournament), whose per-decision callback prints what
happened. Everything shown comes from the human's own view (:func:`ginrummy.views.view` of seat
0), plus the public end-of-hand reveal (R4.8) and the match's score sheet. An illegal decision
is reported with the engine's message and asked again, the state unchanged.

Input is read with :func:`input`, so a game can be driven from piped stdin: an empty line picks
the default (choice 1), end of input quits cleanly. The game record is saved after every hand,
at the end and on quit.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ginrummy import gameloop
from ginrummy.actions import Action
from ginrummy.bots import Bot, make_bot
from ginrummy.cards import suit_of
from ginrummy.cli.options import UsageError, build_ruleset, seat_names
from ginrummy.cli.render import (
    Painter,
    RichPainter,
    action_words,
    match_result_lines,
    resolve_log,
    result_lines,
    revealed_from,
    score_sheet_lines,
)
from ginrummy.cli.turns import HELP, Menu, Screen, TurnDialogs, hint_lines
from ginrummy.engine import Hand
from ginrummy.errors import IllegalActionError
from ginrummy.gameloop import EndlessHand, Seat
from ginrummy.match import Match
from ginrummy.records import GameRecord
from ginrummy.rules import Format, Ruleset
from ginrummy.views import PlayerView, view

HUMAN = 0
HINT_BUDGET_MS = 250.0
"""The evaluator's budget for the hint key."""


class Quit(Exception):
    """The player quit (``q`` confirmed) or the input ended."""


def make_screen(ascii_only: bool) -> Screen:
    """A rich console with colours and suit symbols, or plain ``print`` output."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    utf8 = encoding.startswith("utf8")
    if ascii_only or not utf8:
        return Screen(Painter(symbols=False), None)
    try:
        from rich.console import Console
    except ImportError:  # rich is the optional extra "cli"
        return Screen(Painter(symbols=True), None)
    return Screen(RichPainter(), Console(highlight=False, emoji=False, soft_wrap=True))


class Person:
    """The human's seat: ``choose`` shows the table and asks in the terminal until a legal
    action is typed; quitting (or the end of input) raises :class:`Quit`."""

    name = "you"

    def __init__(self, session: PlaySession) -> None:
        self.session = session

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The action the person types for ``view`` (seat 0)."""
        return self.session.human_turn(view, legal)


class PlaySession:
    """One match between the human (seat 0, a ``None`` in ``bots``) and bots, in the
    terminal."""

    def __init__(self, match: Match, bots: Sequence[Bot | None], names: Sequence[str],
                 record_names: Sequence[str], screen: Screen, sort_by: str = "suit",
                 record_path: Path | None = None) -> None:
        self.match = match
        self.rules: Ruleset = match.rules
        self.bots = list(bots)
        self.names = list(names)
        self.record_names = list(record_names)
        self.screen = screen
        self.p = screen.painter
        self.record_path = record_path
        self.shown = 0  # log entries of the current hand already printed
        self.dialogs = TurnDialogs(screen, self.rules, self.names, self.read, sort_by)
        self.hint_budget_ms = HINT_BUDGET_MS
        self.hint_seed = 0
        self.person = Person(self)
        self.cap = gameloop.MAX_DECISIONS  # a hand past this many decisions stops the game
        self.seats: list[Seat] = []
        for seat, bot in enumerate(self.bots):
            if (bot is None) != (seat == HUMAN):
                raise ValueError(f"seat {HUMAN} is the person's (None), every other a bot's")
            self.seats.append(self.person if bot is None else bot)

    # ----------------------------------------------------------------- input
    def read(self, prompt: str) -> str:
        """One line of input; ``q`` asks for confirmation; end of input quits."""
        while True:
            try:
                text = input(prompt)
            except EOFError:
                self.screen.say()
                raise Quit("end of input") from None
            if text.strip().lower() not in ("q", "quit", "exit"):
                return text
            try:
                answer = input("Really quit the match? [y/N] ")
            except EOFError:
                raise Quit("end of input") from None
            if answer.strip().lower() in ("y", "yes"):
                raise Quit("quit")

    # ----------------------------------------------------------------- flow
    def run(self) -> int:
        """Play until the match is decided or the player quits."""
        say = self.screen.say
        say(self.p.title(f"Gin Rummy: {self.rules.describe()}"))
        say(self.intro())
        try:
            while not self.match.over:
                if self.match.needs_deal:
                    self.match.start_hand()
                    self.shown = 0
                    self.announce_hand()
                self.play_hand()
                self.end_of_hand()
                self.save()
                if not self.match.over:
                    self.read("Press Enter for the next hand (q to quit) ")
            self.end_of_match()
        except Quit as why:
            say(self.p.bad(f"You left the game ({why})."))
            self.save(final=True)
            return 0
        except EndlessHand as exc:
            self.screen.error(str(exc))
            self.save(final=True)
            return 1
        except KeyboardInterrupt:
            say()
            say(self.p.bad("Interrupted."))
            self.save(final=True)
            return 130
        self.save(final=True)
        return 0

    def intro(self) -> str:
        """Who plays, and the rules in one line."""
        others = ", ".join(f"{self.names[s]} ({b.name})" for s, b in enumerate(self.bots)
                           if b is not None)
        extra = []
        if self.rules.oklahoma_spades_double:
            extra.append("a spade upcard doubles the hand")
        if self.rules.oklahoma_knock_limit:
            extra.append("the upcard sets the knock limit")
        if self.rules.big_gin:
            extra.append("big gin allowed")
        if self.match.pool_cents is not None:
            extra.append(f"prize pool {self.match.pool_cents} cents")
        tail = f" ({'; '.join(extra)})" if extra else ""
        return f"You play against {others}{tail}. Type h for help, ? for a hint, q to quit."

    def announce_hand(self) -> None:
        """The header of a new hand."""
        v = view(self.match, HUMAN)
        dealer = self.names[v.dealer]
        self.screen.say()
        self.screen.say(self.p.title(f"Hand {v.hand_number}: {dealer} "
                                     f"{'deal' if dealer == 'You' else 'deals'}"))
        self.screen.say(f"{self.rules.describe()} · upcard {self.p.card(v.upcard)}")
        if self.rules.oklahoma_spades_double and suit_of(v.upcard) == 0:
            self.screen.say(self.p.bad(f"Oklahoma: the upcard {self.p.name(v.upcard)} is a "
                                       "spade, this hand counts double."))
        if self.rules.oklahoma_knock_limit:
            self.screen.say(self.p.bad(f"Oklahoma: the upcard sets the knock limit to "
                                       f"{v.knock_limit}."))

    def play_hand(self) -> None:
        """Turns until the current hand ends, through the one game loop; reshuffles come from
        the match's generator (as :meth:`Match.step_chance`)."""
        gameloop.play_hand(self.match, self.seats, gameloop.reshuffles_from(self.match.rng),
                           self.after_decision, self.cap)

    def after_decision(self, state: Hand | Match, seat: int, action: Action,
                       seconds: float) -> None:
        """The loop's ``on_decision``: print what was just played, as the human sees it."""
        self.flush_log(view(self.match, HUMAN))

    # ----------------------------------------------------------------- the table
    def flush_log(self, v: PlayerView) -> None:
        """Print the actions not shown yet (the others' stock draws show no card)."""
        gin = v.knock is not None and v.knock.gin
        entries = resolve_log(v.upcard, [(e.seat, e.action, e.card) for e in v.log])
        for seat, action, card in entries[self.shown:]:
            self.screen.say("  " + action_words(self.p, self.names, seat, action, card, gin))
        self.shown = len(entries)

    def status_lines(self, v: PlayerView) -> list[str]:
        """Opponents, piles, score."""
        p = self.p
        lines = []
        for s in v.seats:
            if s.seat == HUMAN:
                continue
            known = f", took {p.cards(s.known)}" if s.known else ""
            mark = p.dim(" (dealer)") if s.seat == v.dealer else ""
            lines.append(f"{p.strong(self.names[s.seat])}{mark}: {s.count} cards{known}")
        top = p.card(v.top_discard) if v.top_discard is not None else p.dim("none")
        pile = ""
        if v.discard_pile is not None and len(v.discard_pile) > 1:
            pile = f"  {p.dim('pile:')} {p.cards(v.discard_pile)}"
        lines.append(f"Stock {v.stock_size} · top discard {top}{pile} · knock <= "
                     f"{v.knock_limit}" + (f" · reshuffles {v.reshuffles}" if v.reshuffles
                                           else ""))
        lines.append(self.score_line(v))
        return lines

    def score_line(self, v: PlayerView) -> str:
        """The match score (or the format) in one line."""
        if self.rules.format is Format.MATCH and v.scores is not None:
            scores = " · ".join(f"{self.names[s]} {v.scores[s]}" for s in range(len(v.scores)))
            return f"Score: {scores} (to {self.rules.target})"
        return "Single hand: the least deadwood wins, the others pay penalty points."

    def human_turn(self, v: PlayerView, legal: Sequence[Action]) -> Action:
        """Show the table, ask for a decision until a legal one is typed; return it."""
        while True:
            self.flush_log(v)
            self.screen.say()
            for text in self.status_lines(v):
                self.screen.say(text)
            menu = self.dialogs.menu(v)
            for text in menu.lines:
                self.screen.say(text)
            redraw = False
            while not redraw:
                text = self.read(menu.prompt).strip()
                low = text.lower()
                if low in ("h", "help"):
                    self.screen.say(self.p.text(HELP))
                    continue
                if low in ("?", "hint"):
                    self.show_hint(v, legal, menu)
                    continue
                if low == "s":
                    self.dialogs.toggle_sort()
                    redraw = True
                    continue
                action = self.dialogs.interpret(v, menu, text or menu.default)
                if action is None:
                    redraw = self.dialogs.want_redraw
                    continue
                if self.allowed(action):
                    return action

    def show_hint(self, v: PlayerView, legal: Sequence[Action], menu: Menu) -> None:
        """Every choice valued by the coach's evaluator (the same worlds for all), listed
        with the menu's own keys and in the menu's order; the best (highest value) named."""
        from ginrummy.bots.evaluate import evaluate  # loaded only when asked

        evaluated = evaluate(v, legal, self.hint_budget_ms, self.hint_seed)
        for text in hint_lines(self.p, menu, evaluated, self.hint_budget_ms):
            self.screen.say(text)

    def allowed(self, action: Action) -> bool:
        """Whether the engine accepts the human's action now; reports why not."""
        try:
            self.match.hand.verify(action, HUMAN)
        except IllegalActionError as exc:
            self.screen.error(str(exc))
            return False
        return True

    # ----------------------------------------------------------------- ends
    def end_of_hand(self) -> None:
        """The public reveal (R4.8), the points and the score sheet."""
        v = view(self.match, HUMAN)
        self.flush_log(v)
        assert v.result is not None
        self.screen.say()
        self.screen.say(self.p.title(f"End of hand {v.hand_number}"))
        for text in result_lines(self.p, self.names, self.rules,
                                 revealed_from(v.knock, v.defences, v.result)):
            self.screen.say(text)
        if self.rules.format is Format.MATCH:
            self.screen.say()
            for text in score_sheet_lines(self.p, self.names, self.rules,
                                          self.match.score_sheet()):
                self.screen.say(text)

    def end_of_match(self) -> None:
        """Bonuses and totals, or penalties and payouts."""
        result = self.match.result
        assert result is not None
        self.screen.say()
        title = "Match over" if self.rules.format is Format.MATCH else "Game over"
        self.screen.say(self.p.title(title))
        for text in match_result_lines(self.p, self.names, self.rules, result):
            self.screen.say(text)

    def save(self, final: bool = False) -> None:
        """Write the game record (after each hand, at the end, on quit)."""
        if self.record_path is None or not self.match.hands:
            return
        try:
            GameRecord.from_match(self.match, self.record_names).save(self.record_path)
        except OSError as exc:
            self.screen.error(f"could not save the record to {self.record_path}: "
                              f"{exc.strerror or exc}")
            return
        if final:
            self.screen.say(self.p.dim(f"Game record saved to {self.record_path} "
                                       f"(ginrummy replay {self.record_path})"))


def record_path_of(args: argparse.Namespace) -> Path | None:
    """Where to save the record; checks that its folder exists."""
    if args.no_record:
        return None
    if args.record:
        path = Path(args.record)
    else:
        path = Path(f"ginrummy-{time.strftime('%Y%m%d-%H%M%S')}.ginrec.json")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"--record {path}: folder {folder} does not exist")
    if path.is_dir():
        raise UsageError(f"--record {path}: is a folder")
    return path


def build_session(args: argparse.Namespace, screen: Screen | None = None) -> PlaySession:
    """Check the arguments and set up the match."""
    rules = build_ruleset(args)
    n = rules.players
    opponents = seat_names(args.opponent, n - 1, "--opponent", repeat=True)
    if args.pool is not None:
        if rules.format is not Format.SINGLE_HAND:
            raise UsageError("--pool: a prize pool is for the single_hand format "
                             "(e.g. --preset arena)")
        if args.pool < 0:
            raise UsageError(f"--pool {args.pool}: it must be >= 0 cents")
    record_path = record_path_of(args)
    seed = args.seed
    match = Match(rules, seed=seed, pool_cents=args.pool)
    bots: list[Bot | None] = [None]
    for seat, name in enumerate(opponents, 1):
        bots.append(make_bot(name, None if seed is None else seed * 1000 + seat))
    names = ["You"] + [f"Bot {s}" for s in range(1, n)]
    record_names = ["you", *opponents]
    return PlaySession(match, bots, names, record_names, screen or make_screen(args.ascii),
                       args.sort, record_path)


def run_play(args: argparse.Namespace) -> int:
    """``ginrummy play``."""
    return build_session(args).run()

