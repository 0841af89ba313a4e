"""Helpers of the command-line tests: a fixture that runs ``main`` with argv, and an autopilot
that types a sensible answer to every prompt of ``ginrummy play`` (the simple bot's decision,
entered through the menus: numbers, card names, ``k``/``g`` and Enter for the proposals)."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from ginrummy.actions import Discard, DrawDiscard, DrawStock, Knock, LayOff, Pass
from ginrummy.bots import SimpleBot
from ginrummy.cards import card_name
from ginrummy.cli import play as play_module
from ginrummy.cli.main import main
from ginrummy.engine import Phase
from ginrummy.views import view


@dataclass
class Run:
    """The outcome of one ``main(argv)`` call."""

    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """``cli("analyze", "As 2s 3s")`` runs ``main`` and captures its output."""

    def run(*argv: str) -> Run:
        code = main(list(argv))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@dataclass
class Autopilot:
    """An ``input`` replacement that plays the human seat like the simple bot would."""

    session: play_module.PlaySession | None = None
    prompts: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    limit: int = 5000

    def __call__(self, prompt: str = "") -> str:
        self.prompts.append(prompt)
        if len(self.prompts) > self.limit:
            raise EOFError
        answer = self.answer(prompt)
        self.answers.append(answer)
        print(prompt + answer)
        return answer

    def answer(self, prompt: str) -> str:
        if not prompt.startswith("Your move"):
            return ""  # proposals, "Press Enter for the next hand"
        assert self.session is not None
        match = self.session.match
        v = view(match, 0)
        action = SimpleBot().choose(v, match.hand.legal_actions())
        if isinstance(action, DrawStock):
            return "1"
        if isinstance(action, DrawDiscard):
            return "1" if v.phase is Phase.OFFER else "2"
        if isinstance(action, Pass):
            return "2"
        if isinstance(action, Discard):
            return card_name(action.card)
        if isinstance(action, Knock):
            return "g" if action.melds and _is_gin(v.hand, action) else "k"
        assert isinstance(action, LayOff)
        return ""


def _is_gin(hand: tuple[int, ...], knock: Knock) -> bool:
    melded = {c for m in knock.melds for c in m}
    return all(c in melded or c == knock.discard for c in hand)


@pytest.fixture
def autopilot(monkeypatch: pytest.MonkeyPatch) -> Autopilot:
    """Patch ``input`` and capture the session ``ginrummy play`` builds."""
    pilot = Autopilot()
    original = play_module.PlaySession.__init__

    def init(self: play_module.PlaySession, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        pilot.session = self

    monkeypatch.setattr(play_module.PlaySession, "__init__", init)
    monkeypatch.setattr(builtins, "input", pilot)
    return pilot
