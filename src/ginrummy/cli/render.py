"""Text rendering shared by ``play`` and ``replay``: cards, melds, the action log, hand results,
score sheets and match results.

A :class:`Painter` turns cards and words into plain text (ASCII names such as ``Th`` or suit
symbols such as ``10♥``); :class:`RichPainter` adds ``rich`` console markup (colours) and is
only built by ``play``, which imports ``rich`` lazily. Nothing here reads hidden state: the
callers pass what a player may see (a view), or a finished hand, which is public (R4.8).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ginrummy.actions import Action, Discard, DrawDiscard, DrawStock, Knock, LayOff, Pass, Reshuffle
from ginrummy.cards import CARD_NAMES, CARD_VALUES, Card, card_symbol, suit_of
from ginrummy.rules import Format, Ruleset
from ginrummy.scoring import HandResult, Outcome

Meld = Sequence[Card]

OUTCOME_WORDS = {
    Outcome.GIN: "gin",
    Outcome.BIG_GIN: "big gin",
    Outcome.KNOCK: "knock",
    Outcome.UNDERCUT: "undercut",
    Outcome.VOID: "void",
}


class Painter:
    """Plain text, with suit symbols (``10♥``) or ASCII card names (``Th``)."""

    markup = False

    def __init__(self, symbols: bool = False) -> None:
        self.symbols = symbols

    def name(self, card: Card) -> str:
        """The card's text, without styling."""
        return card_symbol(card) if self.symbols else CARD_NAMES[card]

    def card(self, card: Card, group: int | None = None) -> str:
        """One card; ``group`` is the index of the meld it belongs to, if any."""
        return self.name(card)

    def cards(self, cards: Iterable[Card]) -> str:
        """Cards separated by spaces."""
        return " ".join(self.card(c) for c in cards)

    def meld(self, meld: Meld, group: int | None = None) -> str:
        """``[A♠ 2♠ 3♠]``."""
        return self.text("[") + " ".join(self.card(c, group) for c in meld) + self.text("]")

    def melds(self, melds: Iterable[Meld]) -> str:
        """Melds separated by spaces."""
        return " ".join(self.meld(m, i) for i, m in enumerate(melds))

    def text(self, text: str) -> str:
        """Literal text (escaped when markup is on)."""
        return text

    def strong(self, text: str) -> str:
        """Emphasis."""
        return text

    def dim(self, text: str) -> str:
        """De-emphasis."""
        return text

    def good(self, text: str) -> str:
        """A success."""
        return text

    def bad(self, text: str) -> str:
        """A warning or error."""
        return text

    def title(self, text: str) -> str:
        """A heading."""
        return f"== {text} =="


_GROUP_STYLES = ("on grey23", "on dark_green", "on navy_blue", "on dark_magenta")


class RichPainter(Painter):
    """``rich`` console markup: red hearts and diamonds, each meld on its own background."""

    markup = True

    def __init__(self) -> None:
        super().__init__(symbols=True)

    def card(self, card: Card, group: int | None = None) -> str:
        style = "bold red" if suit_of(card) in (1, 2) else "bold"
        if group is not None:
            style += " " + _GROUP_STYLES[group % len(_GROUP_STYLES)]
        return f"[{style}]{self.name(card)}[/]"

    def text(self, text: str) -> str:
        return text.replace("[", "\\[")

    def strong(self, text: str) -> str:
        return f"[bold]{self.text(text)}[/]"

    def dim(self, text: str) -> str:
        return f"[dim]{self.text(text)}[/]"

    def good(self, text: str) -> str:
        return f"[bold green]{self.text(text)}[/]"

    def bad(self, text: str) -> str:
        return f"[bold yellow]{self.text(text)}[/]"

    def title(self, text: str) -> str:
        return f"[bold reverse] {self.text(text)} [/]"


# --------------------------------------------------------------------------- actions


def resolve_log(upcard: Card, actions: Iterable[tuple[int, Action, Card | None]]
                ) -> list[tuple[int, Action, Card | None]]:
    """The log with the card of each ``take`` filled in, rebuilt from the public discard pile
    (every player saw it); stock draws keep their card only if the viewer saw it."""
    pile = [upcard]
    out: list[tuple[int, Action, Card | None]] = []
    for seat, action, card in actions:
        if isinstance(action, DrawDiscard):
            card = pile.pop() if pile else None
        elif isinstance(action, Discard):
            pile.append(action.card)
        elif isinstance(action, Knock) and action.discard is not None:
            pile.append(action.discard)
        elif isinstance(action, Reshuffle):
            pile = pile[-1:]
        out.append((seat, action, card))
    return out


def action_words(p: Painter, names: Sequence[str], seat: int, action: Action,
                 card: Card | None = None, gin: bool = False) -> str:
    """A sentence such as ``Bot 1 takes 7♥`` or ``You knock, discarding 9♣: [..] [..]``."""
    if seat < 0:
        return p.dim("The discards are shuffled into a new stock.")
    you = names[seat] == "You"
    who = p.strong(names[seat])

    def verb(base: str, third: str) -> str:
        return base if you else third

    if isinstance(action, Pass):
        return f"{who} {verb('pass', 'passes')} the upcard."
    if isinstance(action, DrawStock):
        seen = f" ({p.card(card)})" if card is not None else ""
        return f"{who} {verb('draw', 'draws')} from the stock{seen}."
    if isinstance(action, DrawDiscard):
        what = p.card(card) if card is not None else "the top discard"
        return f"{who} {verb('take', 'takes')} {what}."
    if isinstance(action, Discard):
        return f"{who} {verb('discard', 'discards')} {p.card(action.card)}."
    if isinstance(action, Knock):
        if action.discard is None:
            return f"{who} {verb('go', 'goes')} BIG GIN: {p.melds(action.melds)}"
        word = verb("go gin", "goes gin") if gin else verb("knock", "knocks")
        return f"{who} {word}, discarding {p.card(action.discard)}: {p.melds(action.melds)}"
    if isinstance(action, LayOff):
        parts = [f"{who} {verb('lay', 'lays')} down"]
        parts.append(p.melds(action.melds) if action.melds else "no meld")
        if action.layoffs:
            offs = ", ".join(f"{p.card(c)} on meld {i + 1}" for c, i in action.layoffs)
            parts.append(f"and {verb('lay', 'lays')} off {offs}")
        return " ".join(parts) + "."
    return p.text(str(action))


# --------------------------------------------------------------------------- hands


def arrangement_text(p: Painter, melds: Sequence[Meld], unmatched: Sequence[Card],
                     deadwood: int) -> str:
    """``[A♠ 2♠ 3♠] [7♥ 7♦ 7♣] | K♥ 4♦ = 14``."""
    shown = p.melds(melds) if melds else p.dim("no meld")
    if unmatched:
        rest = " ".join(p.card(c) for c in sorted(unmatched, key=lambda c: -CARD_VALUES[c]))
        return f"{shown} {p.text('|')} {rest} = {deadwood}"
    return f"{shown} {p.text('|')} {p.good('gin')}" if deadwood == 0 else shown


@dataclass(frozen=True)
class Revealed:
    """What everybody sees once a hand has ended (R4.8): the knock, each defence, the hands."""

    knocker: int | None
    knock_melds: Sequence[Meld]
    knock_unmatched: Sequence[Card]
    knock_deadwood: int
    knock_discard: Card | None
    gin: bool
    big_gin: bool
    defences: Sequence[tuple[int, Sequence[Meld], Sequence[tuple[Card, int]], Sequence[Card], int]]
    result: HandResult


def revealed_from(knock: object, defences: Iterable[object], result: HandResult) -> Revealed:
    """Build a :class:`Revealed` from the engine's ``KnockInfo``/``DefenceInfo`` (duck-typed)."""
    from ginrummy.engine import DefenceInfo, KnockInfo

    ds = [(d.seat, d.melds, d.layoffs, d.unmatched, d.deadwood)
          for d in defences if isinstance(d, DefenceInfo)]
    if isinstance(knock, KnockInfo):
        return Revealed(knock.knocker, knock.melds, knock.unmatched, knock.deadwood,
                        knock.discard, knock.gin, knock.big_gin, ds, result)
    return Revealed(None, (), (), 0, None, False, False, ds, result)


def result_lines(p: Painter, names: Sequence[str], rules: Ruleset, rev: Revealed) -> list[str]:
    """The end of a hand: every hand laid down, layoffs, deadwood, points and why."""
    result = rev.result
    lines: list[str] = []
    if result.void:
        lines.append(p.strong("Void hand: the stock ran out; nobody scores, the same dealer "
                              "deals again."))
        return lines
    assert rev.knocker is not None and result.winner is not None
    k = rev.knocker
    what = "big gin" if rev.big_gin else "gin" if rev.gin else "knock"
    discard = f", discarding {p.card(rev.knock_discard)}" if rev.knock_discard is not None else ""
    lines.append(f"{p.strong(names[k])} ({what}{discard}): "
                 f"{arrangement_text(p, rev.knock_melds, rev.knock_unmatched, rev.knock_deadwood)}")
    for seat, melds, layoffs, unmatched, deadwood in rev.defences:
        text = arrangement_text(p, melds, unmatched, deadwood)
        if layoffs:
            offs = ", ".join(f"{p.card(c)}@{i + 1}" for c, i in layoffs)
            text += f"  {p.dim('laid off:')} {offs}"
        lines.append(f"{p.strong(names[seat])}: {text}")
    dw = ", ".join(f"{names[s]} {result.deadwood[s]}" for s in range(len(names)))
    lines.append(f"Deadwood: {dw}")
    outcome = OUTCOME_WORDS[result.outcome]
    winner = names[result.winner]
    if result.outcome is Outcome.UNDERCUT:
        head = f"{winner} undercut{'s' if winner != 'You' else ''} {names[k]}!"
    elif result.outcome in (Outcome.GIN, Outcome.BIG_GIN):
        head = f"{winner} {'go' if winner == 'You' else 'goes'} {outcome}!"
    else:
        head = f"{winner} {'win' if winner == 'You' else 'wins'} the knock."
    if rules.format is Format.MATCH:
        head += f" {winner} {'score' if winner == 'You' else 'scores'} " \
                f"{result.points[result.winner]}{points_why(result)}."
    else:
        assert result.penalties is not None
        pens = ", ".join(f"{names[s]} {result.penalties[s]}" for s in range(len(names)))
        head += f" Penalty points: {pens}."
    lines.append(p.good(head))
    if result.notes:
        lines.append(p.dim("  (" + "; ".join(result.notes) + ")"))
    return lines


def points_why(result: HandResult) -> str:
    """How a 2-player hand's points were counted (R5.1-R5.4): `` = 25 - 7``."""
    w = result.winner
    if w is None or result.knocker is None or len(result.deadwood) != 2:
        return ""
    points = result.points[w]
    other = 1 - w
    if result.outcome in (Outcome.GIN, Outcome.BIG_GIN):
        base = result.deadwood[other]
        text = f"{base} + {points // result.multiplier - base}"
    elif result.outcome is Outcome.UNDERCUT:
        base = result.deadwood[other] - result.deadwood[w]
        text = (f"{result.deadwood[other]} - {result.deadwood[w]} + "
                f"{points // result.multiplier - base}")
    else:
        text = f"{result.deadwood[other]} - {result.deadwood[w]}"
    if result.multiplier != 1:
        text = f"({text}) x {result.multiplier}"
    return f" = {text}"


def score_sheet_lines(p: Painter, names: Sequence[str], rules: Ruleset,
                      sheet: Sequence[tuple[int, HandResult | None]]) -> list[str]:
    """The running score sheet of a match: each hand's outcome, points and running totals."""
    n = len(names)
    width = max(12, *(len(x) + 2 for x in names))
    head = "hand  " + "result".ljust(22) + "".join(x.rjust(width) for x in names)
    lines = [p.strong(head)]
    totals = [0] * n
    for number, result in sheet:
        if result is None:
            continue
        if result.void:
            desc = "void"
        else:
            assert result.winner is not None
            desc = f"{OUTCOME_WORDS[result.outcome]} {names[result.winner]}"
            if result.multiplier != 1:
                desc += f" x{result.multiplier}"
        cells = []
        for s in range(n):
            if rules.format is Format.MATCH:
                totals[s] += result.points[s]
                gained = f" (+{result.points[s]})" if result.points[s] else ""
                cells.append(f"{totals[s]}{gained}")
            else:
                pen = result.penalties[s] if result.penalties is not None else 0
                cells.append(f"-{pen}" if pen else "0")
        lines.append(p.text(f"{number:>4}  {desc[:22]:<22}" +
                            "".join(c.rjust(width) for c in cells)))
    return lines


def money(cents: int) -> str:
    """Cents as units: ``1.25``."""
    return f"{cents // 100}.{cents % 100:02d}"


def match_result_lines(p: Painter, names: Sequence[str], rules: Ruleset,
                       result: object) -> list[str]:
    """The end of a match: hand points, game/line/shutout bonuses, totals; or, for the
    single-hand game, penalties and payouts."""
    from ginrummy.match import MatchResult

    assert isinstance(result, MatchResult)
    n = len(names)
    lines: list[str] = []
    width = max(8, *(len(x) + 2 for x in names))
    row = "".ljust(14)
    lines.append(p.strong(row + "".join(x.rjust(width) for x in names)))
    if result.penalties is None:
        lines.append(p.text("hand points".ljust(14) +
                            "".join(str(v).rjust(width) for v in result.hand_points)))
        for bonus in ("game", "line", "shutout"):
            if any(bonus in b for b in result.bonuses):
                lines.append(p.text(f"{bonus} bonus".ljust(14) + "".join(
                    str(result.bonuses[s].get(bonus, 0)).rjust(width) for s in range(n))))
        lines.append(p.strong("total".ljust(14) +
                              "".join(str(v).rjust(width) for v in result.totals)))
        lines.append(p.good(f"{names[result.winner]} "
                            f"{'win' if names[result.winner] == 'You' else 'wins'} the match "
                            f"by {result.margin} points."))
    else:
        lines.append(p.text("penalty".ljust(14) +
                            "".join(str(v).rjust(width) for v in result.penalties)))
        if result.payouts is not None:
            lines.append(p.strong("payout".ljust(14) +
                                  "".join(money(v).rjust(width) for v in result.payouts)))
        lines.append(p.good(f"{names[result.winner]} "
                            f"{'win' if names[result.winner] == 'You' else 'wins'} the game."))
    if rules.format is Format.MATCH and rules.target is not None:
        lines.append(p.dim(f"(match to {rules.target})"))
    return lines
