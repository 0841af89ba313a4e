"""The human's decisions in ``ginrummy play``: the menu of legal choices for each phase, and
the knock and layoff dialogs (the system proposes the best, the player may change it).

Everything here reads the human's own :class:`~ginrummy.views.PlayerView` only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ginrummy.actions import (
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    LayOff,
    Pass,
    parse_action,
)
from ginrummy.bots.evaluate import Evaluated
from ginrummy.bots.simple import highest_unmatched
from ginrummy.cards import CARD_NAMES, Card, mask_of, parse_card, sort_key_rank, sort_key_suit
from ginrummy.cli.render import Painter, arrangement_text
from ginrummy.engine import Phase, layoff_chaining
from ginrummy.rules import Ruleset
from ginrummy.solver import (
    KnockOption,
    best_arrangements,
    best_defence,
    best_melds,
    knock_options,
)
from ginrummy.views import PlayerView

HELP = """\
How to play (you are seat 0):
  Enter      the default choice (1)
  1, 2, ...  a numbered choice; when discarding, the number shown before the card
  7h, Td     discard a card by name (also 10d, Q♥)
  k          knock, when you may (you choose the discard and the melds you lay down)
  g          go gin, when you may
  s          sort your hand by suit / by rank
  ?, hint    the coach's values of every choice, with the menu's numbers
  h          this help
  q          quit (asks for confirmation); the game record is saved
Expert input in the record notation also works: 'stock', 'take', 'pass', 'discard 7h',
'knock 7h [As 2s 3s] [8c 8d 8h]', 'gin [..] [..]', 'layoff [4d 4h 4s] 8h@1'."""


class Screen:
    """Where the game is printed: a ``rich`` console (markup) or plain ``print``."""

    def __init__(self, painter: Painter, console: Any | None = None) -> None:
        self.painter = painter
        self.console = console

    def say(self, text: str = "") -> None:
        """Print one line (rich markup if the painter makes markup)."""
        if self.console is not None:
            self.console.print(text, highlight=False)
        else:
            print(text)

    def error(self, text: str) -> None:
        """Report a problem; the game goes on."""
        self.say(self.painter.bad(f"! {text}"))


@dataclass
class Menu:
    """The choices offered for one decision: ``keys`` maps an answer to an action or to a
    dialog name (``"knock"``, ``"gin"``)."""

    lines: list[str]
    keys: dict[str, Action | str] = field(default_factory=dict)
    prompt: str = "Your move [1]> "
    default: str = "1"


Reader = Callable[[str], str]


class TurnDialogs:
    """Builds the menus and runs the knock and layoff dialogs."""

    def __init__(self, screen: Screen, rules: Ruleset, names: Sequence[str], read: Reader,
                 sort_by: str = "suit") -> None:
        self.screen = screen
        self.p = screen.painter
        self.rules = rules
        self.names = names
        self.read = read
        self.sort_by = sort_by
        self.want_redraw = False

    # ----------------------------------------------------------------- the hand
    def toggle_sort(self) -> None:
        """Switch between suit and rank order."""
        self.sort_by = "rank" if self.sort_by == "suit" else "suit"

    def sorted_cards(self, cards: Sequence[Card]) -> list[Card]:
        """The cards in the chosen order."""
        return sorted(cards, key=sort_key_rank if self.sort_by == "rank" else sort_key_suit)

    def hand_lines(self, v: PlayerView, numbers: dict[Card, int] | None = None) -> list[str]:
        """The hand sorted, melds marked (best_melds) and the current deadwood."""
        p = self.p
        best = best_melds(v.hand_mask)
        group = {c: i for i, m in enumerate(best.melds) for c in m}
        cells = []
        for card in self.sorted_cards(v.hand):
            text = p.card(card, group.get(card))
            if numbers is not None:
                label = str(numbers[card]) if card in numbers else "--"
                text = f"{p.dim(label.rjust(2))} {text}"
            cells.append(text)
        head = f"Your hand (by {self.sort_by}, {len(v.hand)} cards), deadwood {best.deadwood}:"
        return [p.strong(head), "  " + "  ".join(cells),
                f"  {p.dim('melds:')} "
                + arrangement_text(p, best.melds, best.unmatched, best.deadwood)]

    # ----------------------------------------------------------------- menus
    def menu(self, v: PlayerView) -> Menu:
        """The legal choices of the human's current decision."""
        self.want_redraw = False
        if v.phase is Phase.DISCARD:
            return self._discard_menu(v)
        if v.phase is Phase.LAYOFF:
            return self._layoff_menu(v)
        p = self.p
        top = v.top_discard
        lines = self.hand_lines(v)
        if v.phase is Phase.OFFER:
            what = "upcard"
            keys: dict[str, Action | str] = {"1": DrawDiscard(), "2": Pass()}
            labels = [f"take {p.card(top) if top is not None else '?'} (the {what})",
                      "pass"]
        else:
            take_legal = top is not None and not (v.log and _all_passed(v))
            keys = {"1": DrawStock()}
            labels = ["draw from the stock"]
            if take_legal:
                keys["2"] = DrawDiscard()
                labels.append(f"take {p.card(top) if top is not None else '?'}")
        lines.append("   ".join(f"{p.strong(k + ')')} {label}"
                                  for k, label in zip(keys, labels, strict=True)))
        return Menu(lines, keys)

    def forbidden(self, v: PlayerView) -> Card | None:
        """The card that may not be discarded this turn (R3.3)."""
        if self.rules.no_rediscard_of_taken_card and v.taken in v.hand:
            return v.taken
        return None

    def knock_opts(self, v: PlayerView) -> list[KnockOption]:
        """The legal ways to knock now (best arrangement for each discard)."""
        return knock_options(v.hand_mask, v.knock_limit, self.rules.big_gin, self.forbidden(v))

    def _discard_menu(self, v: PlayerView) -> Menu:
        p = self.p
        forbidden = self.forbidden(v)
        numbers: dict[Card, int] = {}
        keys: dict[str, Action | str] = {}
        for card in self.sorted_cards(v.hand):
            if card != forbidden:
                numbers[card] = len(numbers) + 1
                keys[str(numbers[card])] = Discard(card)
        lines = self.hand_lines(v, numbers)
        if forbidden is not None:
            lines.append(p.dim(f"  (you just took {p.name(forbidden)}: it may not be "
                               "discarded this turn)"))
        choices = [f"Discard: type the card's number (1-{len(numbers)}) or name"]
        options = self.knock_opts(v)
        if options:
            best = options[0]
            keys["k"] = "knock"
            choices.append(f"{p.strong('k)')} knock ({_option_words(p, best)})")
            gins = [o for o in options if o.gin]
            if gins:
                keys["g"] = "gin"
                choices.append(f"{p.strong('g)')} {'BIG GIN' if gins[0].big_gin else 'gin'}"
                               f" ({_option_words(p, gins[0])})")
        lines.append("   ".join(choices))
        # Enter discards the highest card no least-deadwood arrangement needs, not card 1
        allowed = mask_of(numbers)
        suggested = highest_unmatched(v.hand_mask, allowed) if allowed else None
        if suggested is None:
            return Menu(lines, keys)
        default = str(numbers[suggested])
        return Menu(lines, keys, prompt=f"Your move [{p.name(suggested)}]> ", default=default)

    def _layoff_menu(self, v: PlayerView) -> Menu:
        p = self.p
        knock = v.knock
        assert knock is not None
        lines = [self.knock_line(v)]
        lines += self.hand_lines(v)
        mask = v.hand_mask
        best = best_defence(mask, knock.melds, layoff_chaining(self.rules),
                            v.laid_off)
        proposal = LayOff(best.melds, best.layoffs)
        keys: dict[str, Action | str] = {"1": proposal}
        offs = ", ".join(f"{p.card(c)}@{i + 1}" for c, i in best.layoffs)
        lines.append(f"{p.strong('1)')} lay down "
                     + arrangement_text(p, best.melds, best.unmatched, best.deadwood)
                     + (f", laying off {offs}" if offs else "") + p.dim("  (proposed)"))
        plain = best_melds(mask)
        if best.layoffs and plain.deadwood > best.deadwood:
            keys["2"] = LayOff(plain.melds, ())
            lines.append(f"{p.strong('2)')} lay down "
                         + arrangement_text(p, plain.melds, plain.unmatched, plain.deadwood)
                         + ", laying off nothing")
        lines.append(p.dim("   or type your own: layoff [As 2s 3s] 8h@1  (your melds in "
                           "brackets, CARD@N lays a card off on the knocker's meld N)"))
        return Menu(lines, keys)

    def knock_line(self, v: PlayerView) -> str:
        """The knocker's melds, numbered, with the cards already laid off on them."""
        p = self.p
        knock = v.knock
        assert knock is not None
        parts = []
        for i, meld in enumerate(knock.melds):
            extra = v.laid_off[i] if i < len(v.laid_off) else ()
            more = f" + {p.cards(extra)}" if extra else ""
            parts.append(f"{p.strong(str(i + 1) + ')')} {p.meld(meld)}{more}")
        dead = p.cards(knock.unmatched) if knock.unmatched else "none"
        return (f"{p.strong(self.names[knock.knocker])} knocked: " + "  ".join(parts)
                + f"  {p.dim('deadwood')} {dead} = {knock.deadwood}")

    # ----------------------------------------------------------------- answers
    def interpret(self, v: PlayerView, menu: Menu, text: str) -> Action | None:
        """The action meant by ``text``, or ``None`` after reporting why there is none (or
        after a dialog was cancelled: then ``want_redraw`` is set)."""
        self.want_redraw = False
        low = text.strip().lower()
        choice = menu.keys.get(low)
        if choice is None and v.phase is Phase.DISCARD:
            choice = {"knock": "k", "gin": "g"}.get(low)
            choice = menu.keys.get(choice) if choice else None
            if choice is None and low in ("k", "knock", "g", "gin"):
                what = "go gin" if low.startswith("g") else "knock"
                self.screen.error(f"You cannot {what} now: no discard leaves deadwood <= "
                                  f"{v.knock_limit}" + (" (gin needs 0)" if what != "knock"
                                                        else "") + ".")
                return None
        if isinstance(choice, str):
            return self.knock_dialog(v, gin_only=choice == "gin")
        if choice is not None:
            return choice
        return self._free_text(v, text.strip())

    def _free_text(self, v: PlayerView, text: str) -> Action | None:
        low = text.lower()
        aliases: dict[Phase, dict[str, Action]] = {
            Phase.OFFER: {"t": DrawDiscard(), "p": Pass()},
            Phase.DRAW: {"d": DrawStock(), "draw": DrawStock(), "t": DrawDiscard()},
        }
        if low in aliases.get(v.phase, {}):
            return aliases[v.phase][low]
        if v.phase is Phase.DISCARD and " " not in low:
            try:
                return Discard(parse_card(text))
            except ValueError:
                pass
        if v.phase is Phase.LAYOFF and not low.startswith("layoff") and (
                text.startswith("[") or "@" in text):
            text = "layoff " + text
        try:
            return parse_action(text)
        except ValueError as exc:
            if low.isdigit():
                self.screen.error(f"No choice {text} here.")
            elif " " in low or low.startswith(("discard", "knock", "gin", "layoff")):
                self.screen.error(str(exc))
            else:
                self.screen.error(f"Not understood: {text!r} (h for help).")
            return None

    # ----------------------------------------------------------------- knocking
    def knock_dialog(self, v: PlayerView, gin_only: bool) -> Action | None:
        """Choose the discard (if several), then the arrangement to lay down (R4.3)."""
        p = self.p
        options = [o for o in self.knock_opts(v) if o.gin or not gin_only]
        if not options:
            self.screen.error("You cannot knock now.")
            return None
        option = options[0]
        if len(options) > 1:
            self.screen.say(p.strong("Knock discarding which card?"))
            for i, o in enumerate(options, 1):
                self.screen.say(f"  {p.strong(str(i) + ')')} {_option_words(p, o)}: "
                                + arrangement_text(p, o.arrangement.melds,
                                                   o.arrangement.unmatched, o.deadwood))
            picked = self._pick(len(options), "Discard [1], b back> ")
            if picked is None:
                self.want_redraw = True
                return None
            option = options[picked]
        rest = v.hand_mask
        if option.discard is not None:
            rest &= ~(1 << option.discard)
        arrangements = [option.arrangement]
        for arr in best_arrangements(rest):
            if arr.melds != option.arrangement.melds:
                arrangements.append(arr)
        self.screen.say(p.strong("Lay down which melds?"))
        for i, arr in enumerate(arrangements, 1):
            tag = p.dim("  (proposed)") if i == 1 else ""
            self.screen.say(f"  {p.strong(str(i) + ')')} "
                            f"{arrangement_text(p, arr.melds, arr.unmatched, arr.deadwood)}{tag}")
        self.screen.say(p.dim("  or type your own melds, e.g. [As 2s 3s] [7h 7d 7c]; the other "
                              "cards are deadwood"))
        word = "gin" if gin_only or option.discard is None else "knock"
        if option.discard is not None:
            word += f" {CARD_NAMES[option.discard]}"
        while True:
            text = self.read("Melds [1], b back> ").strip()
            low = text.lower()
            if low in ("b", "back"):
                self.want_redraw = True
                return None
            if not low:
                low = "1"
            if low.isdigit():
                if 1 <= int(low) <= len(arrangements):
                    return Knock(option.discard, arrangements[int(low) - 1].melds,
                                 gin=gin_only)
                self.screen.error(f"No choice {low} here.")
                continue
            if not text.startswith("["):
                self.screen.error("Type a number or melds in brackets such as [As 2s 3s].")
                continue
            try:
                return parse_action(f"{word} {text}")
            except ValueError as exc:
                self.screen.error(str(exc))

    def _pick(self, count: int, prompt: str) -> int | None:
        """A number 1..count (Enter: 1) as an index, or ``None`` for back."""
        while True:
            low = self.read(prompt).strip().lower() or "1"
            if low in ("b", "back"):
                return None
            if low.isdigit() and 1 <= int(low) <= count:
                return int(low) - 1
            self.screen.error(f"Type a number from 1 to {count}, or b to go back.")


def menu_key(menu: Menu, action: Action, gin: bool = False) -> str | None:
    """The menu's key of ``action``: its number, ``g`` for a gin (``gin``: the knock
    leaves no deadwood), ``k`` for a knock (the dialog then asks which discard); ``None``
    if the menu has none."""
    for key, choice in menu.keys.items():
        if choice == action:
            return key
    if isinstance(action, Knock):
        if gin and "g" in menu.keys:
            return "g"
        if "k" in menu.keys:
            return "k"
    return None


def hint_lines(p: Painter, menu: Menu, evaluated: Evaluated, budget_ms: float) -> list[str]:
    """The hint: every choice with the menu's key, in the menu's order, its value and
    standard error; the best (highest value) marked, a mistake (a loss beyond the noise)
    with its cost."""
    order = {key: i for i, key in enumerate(menu.keys)}
    rows = []
    for choice in evaluated.choices:
        key = menu_key(menu, choice.action, "gin" in choice.note)
        rows.append((order.get(key, len(order)) if key is not None else len(order), key,
                     choice))
    rows.sort(key=lambda r: r[0])
    best = evaluated.best
    best_key = menu_key(menu, best.action, "gin" in best.note)
    head = f"{best_key}) " if best_key else ""
    lines = [p.strong(f"Hint: the best is {head}{_action_words(best.action, best.note)} "
                      "(the coach's values, points of this hand ± a standard error, "
                      f"{evaluated.worlds} worlds, {budget_ms:g} ms):")]
    for _order, key, choice in rows:
        label = f"{key})" if key is not None else "  "
        if choice is best:
            tag = "best"
        elif choice.mistake:
            tag = f"a mistake: costs {choice.loss:.1f}±{choice.loss_error:.1f}"
        else:
            tag = f"within the noise of the best ({choice.loss:.1f}±{choice.loss_error:.1f})"
        note = f", {choice.note}" if choice.note else ""
        lines.append(f"  {p.strong(label):<4} {_action_words(choice.action, choice.note):<30} "
                     f"{choice.value:+6.1f} ±{choice.error:4.1f}  {p.dim(tag + note)}")
    return lines


def _action_words(action: Action, note: str = "") -> str:
    """An action in short words: a knock by its discard (its melds in the dialog)."""
    if isinstance(action, Knock):
        if action.discard is None:
            return "big gin, no discard"
        word = "gin" if note == "gin" else "knock"
        return f"{word}, discard {CARD_NAMES[action.discard]}"
    return str(action)


def _all_passed(v: PlayerView) -> bool:
    """Everybody passed the upcard: the first player must draw from the stock (R3.5)."""
    return len(v.log) > 0 and all(isinstance(e.action, Pass) for e in v.log)


def _option_words(p: Painter, option: KnockOption) -> str:
    if option.discard is None:
        return "no discard, all cards melded"
    what = "gin" if option.gin else f"deadwood {option.deadwood}"
    return f"discard {p.card(option.discard)}, {what}"
