"""Screenshots of the phone table at every step of a hand and of the endings.

The script seeds a fresh SQLite database with three tables at chosen deals (no chance
involved: the cards are laid down in order, as the layoff and ending tests do), starts
``ginrummy serve`` on it and plays seat 0 through Debian's Chromium on a phone (390 x 844
CSS pixels, device scale 3, English, reduced motion so that no card is caught in flight),
writing one PNG per step to ``--out`` (default ``docs/img/phone-steps/``):

* ``steps``, a classic match to 100 with the upcard offered to the non-dealer first:
  ``01-upcard-offer``, ``02-draw`` (the offer passed, the stock or the discard to take),
  ``03-drawn``, ``04-discard`` (a card chosen, the discard button shown), ``05-knock`` (the
  knock sheet), ``06-hand-end`` (the hand's banner after the computer's layoffs);
* ``layoff``, the computer knocks on its first turn: ``07-layoff`` (seat 0's layoff sheet),
  ``08-layoff-hand-end``;
* ``gin``, a match to 10: ``09-gin-offered``, ``10-gin-sheet``, ``11-gin-end`` (the hand's
  banner and the cards shown) and ``12-match-won`` (the match's banner).

Each banner is scrolled to the top of the screen before its screenshot.

    .venv/bin/python benchmarks/screenshots.py [--out DIR] [--full-page]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ginrummy.cards import CARD_NAMES
from ginrummy.rules import Ruleset
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.core.kinds import EventKind, SeatKind, TableStatus
from ginrummy.storage import (
    InsertEvent,
    InsertTable,
    Repository,
    StoredEvent,
    StoredSeat,
    StoredTable,
    migrate,
    open_engine,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from layoff_deal import KNOCK_DRAW, KNOCK_HAND, KNOCK_OTHER, KNOCK_UPCARD, deck, stored_table
from load_server import kill_server, start_server

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sys.exit("screenshots needs Playwright for Python: pip install -e .[dev]")

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path(os.environ.get("GINRUMMY_CHROMIUM", "/usr/bin/chromium"))
PHONE = {"width": 390, "height": 844}
GIN_HAND = ["2h", "3h", "4h", "5h", "7s", "7d", "7c", "Jd", "Qd", "9c"]
"""Seat 0 draws Kd and has gin, discarding 9c: [2h 3h 4h 5h] [7s 7d 7c] [Jd Qd Kd]."""
GIN_OTHER = ["Ks", "Qs", "Jc", "9s", "6c", "5s", "3c", "Th", "Ac", "2s"]
DEALER = 1
"""The computer (seat 1) deals: seat 0 acts first."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "phone-steps",
                        help="where the PNGs go (default docs/img/phone-steps)")
    parser.add_argument("--full-page", action="store_true",
                        help="the whole page, not only what the phone's screen shows")
    return parser.parse_args(argv)


def new_table(table_id: str, token: str, rules: Ruleset, cards: list[int],
              name: str) -> StoredTable:
    """A match just dealt (no move made): seat 0 a guest holding ``token``, seat 1 the
    computer (``simple``), which deals."""
    events = [StoredEvent(1, EventKind.MATCH, json.dumps({"first_dealer": DEALER})),
              StoredEvent(2, EventKind.DEAL, " ".join(CARD_NAMES[c] for c in cards))]
    seats = [StoredSeat(0, SeatKind.HUMAN, "Ann", None, secret_hash(token)),
             StoredSeat(1, SeatKind.BOT, "Simple", "simple")]
    return StoredTable(id=table_id, name=name, preset="classic", rules=rules.to_dict(),
                       players=2, public=True, invite_hash=None, clock_ms=0, pool_chips=None,
                       status=TableStatus.PLAYING, version=len(events), seats=seats,
                       events=events)


TABLES = {"steps": "tok-steps", "layoff": "tok-layoff", "gin": "tok-gin"}


def seed(db_file: Path) -> None:
    """The three tables of the module's docstring, in a migrated SQLite file."""
    classic = Ruleset.preset("classic")
    tables = [
        new_table("steps", TABLES["steps"], classic.replace(upcard_offer="non_dealer_first"),
                  deck(KNOCK_HAND, KNOCK_OTHER, KNOCK_UPCARD, [KNOCK_DRAW]), "Steps"),
        stored_table("layoff", TABLES["layoff"]),
        new_table("gin", TABLES["gin"], classic.replace(target=10),
                  deck(GIN_HAND, GIN_OTHER, "8h", ["Kd"]), "Gin"),
    ]
    engine = open_engine(f"sqlite:///{db_file}")
    try:
        migrate(engine)
        for table in tables:
            Repository(engine).write([InsertTable(table),
                                      *(InsertEvent(table.id, e) for e in table.events)])
    finally:
        engine.dispose()


@contextmanager
def chromium() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} not found: apt-get install -y chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            yield browser
        finally:
            browser.close()


class Shooter:
    """Seat 0 of one table on a phone, writing numbered screenshots."""

    def __init__(self, browser: Browser, base: str, table: str, args: argparse.Namespace):
        self.args = args
        self.context = browser.new_context(locale="en-US", base_url=base, viewport=PHONE,
                                           device_scale_factor=3, reduced_motion="reduce",
                                           has_touch=True, is_mobile=True)
        self.context.set_default_timeout(30_000)
        seat = json.dumps({"seat": 0, "token": TABLES[table], "invite": None, "name": "Ann"})
        self.context.add_init_script(
            f"localStorage.setItem('ginrummy.seat.{table}', {json.dumps(seat)});")
        self.page: Page = self.context.new_page()
        self.page.goto(f"/?table={table}")

    def awaiting(self, *selectors: str) -> None:
        """Wait until the page awaits this seat's action and shows ``selectors``."""
        self.page.wait_for_function(
            "() => document.getElementById('table-page')?.dataset.await === 'act'")
        for selector in selectors:
            self.page.wait_for_selector(selector, state="visible")

    def shot(self, name: str, scroll_to: str | None = None) -> None:
        if scroll_to:  # the element at the top of the screen
            self.page.locator(scroll_to).evaluate(
                "(node) => node.scrollIntoView({ block: 'start', behavior: 'instant' })")
        self.page.evaluate("() => document.fonts.ready")
        path = self.args.out / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=self.args.full_page)
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path, flush=True)

    def close(self) -> None:
        self.context.close()


def play_steps(browser: Browser, base: str, args: argparse.Namespace) -> None:
    table = Shooter(browser, base, "steps", args)
    table.awaiting("#action-pass")
    table.shot("01-upcard-offer")
    table.page.click("#action-pass")  # then the computer's offer, then seat 0 draws
    table.awaiting("#action-stock")
    table.shot("02-draw")
    table.page.click("#action-stock")  # the 3c
    table.awaiting("#action-knock")
    table.shot("03-drawn")
    table.page.click('#my-hand [data-card="4d"]')
    table.page.wait_for_selector("#action-discard", state="visible")
    table.shot("04-discard")
    table.page.click("#action-knock")
    table.page.wait_for_selector("#confirm-knock", state="visible")
    table.shot("05-knock")
    table.page.click("#confirm-knock")
    table.page.wait_for_selector("#hand-banner", state="visible")
    table.shot("06-hand-end", scroll_to="#hand-banner")
    table.close()


def play_layoff(browser: Browser, base: str, args: argparse.Namespace) -> None:
    table = Shooter(browser, base, "layoff", args)
    table.awaiting("#confirm-layoff")
    table.shot("07-layoff")
    table.page.click("#confirm-layoff")
    table.page.wait_for_selector("#hand-banner", state="visible")
    table.shot("08-layoff-hand-end", scroll_to="#hand-banner")
    table.close()


def play_gin(browser: Browser, base: str, args: argparse.Namespace) -> None:
    table = Shooter(browser, base, "gin", args)
    table.awaiting("#action-stock")
    table.page.click("#action-stock")  # the Kd
    table.awaiting("#action-gin")
    table.shot("09-gin-offered")
    table.page.click("#action-gin")
    table.page.wait_for_selector("#confirm-knock", state="visible")
    table.shot("10-gin-sheet")
    table.page.click("#confirm-knock")
    table.page.wait_for_selector("#hand-banner", state="visible")
    table.shot("11-gin-end", scroll_to="#hand-banner")
    table.page.wait_for_selector("#match-banner", state="visible")
    table.shot("12-match-won", scroll_to="#match-banner")
    table.close()


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="screenshots-"))
    seed(folder / "shots.db")
    server = start_server(f"sqlite:///{folder / 'shots.db'}", folder, ["--bot-delay", "100"])
    try:
        with chromium() as browser:
            play_steps(browser, server.url, args)
            play_layoff(browser, server.url, args)
            play_gin(browser, server.url, args)
    finally:
        kill_server(server)


if __name__ == "__main__":
    main()
