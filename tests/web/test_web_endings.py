"""The end of a hand and of a match in the browser (issue 27, points 4 and 5).

Endings with a payoff (point 4), at a classic table played to 10 points where seat 0 (Ann)
has gin on her first turn, in four languages:

* the gin sheet says gin, not "Deadwood 0 (at most 10 to knock)"; the reveal names the gin
  card "Gin discard:", not "Knock discard:";
* a banner tells the hand's result (who won, how, the points) and one the match's (the
  winner, every seat's final score, the winner's bonuses by name);
* both are celebrated with a short animation, and not at all under
  `prefers-reduced-motion: reduce`.

What the knocker shows (point 5):

* while the defender lays off, the knocker's seat shows its melds, its deadwood cards and
  their count (public once laid down, R4.8), not a row of backs and "10 cards", in four
  languages;
* a run reads in rank order with the laid-off cards where they fit (the 4-player arena deal
  where the computer lays 6h and Th onto 7h 8h 9h): on the knocker's seat, in the layoff
  sheet and at the reveal;
* the replay's last step ends with the hand's result as the table showed it: the knock's
  melds with the layoffs on them, each defence, and the points.

Screenshots of the endings are saved as test artifacts (never compared), in test-artifacts/
or the directory named by GINRUMMY_ARTIFACTS.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from web_support import (
    LANGUAGES,
    LOCALES,
    PHONE,
    Browser,
    Page,
    ServerProcess,
    catalogue,
    no_undo_wait,
    soak_except,
)

from ginrummy.cards import CARD_NAMES
from ginrummy.rules import Ruleset
from ginrummy.server.core.auth import secret_hash
from ginrummy.server.core.kinds import EventKind, SeatKind, Source, TableStatus
from ginrummy.storage import (
    InsertEvent,
    InsertTable,
    Repository,
    StoredEvent,
    StoredSeat,
    StoredTable,
    open_engine,
)
from ginrummy.storage.accounts import AccountStore
from layoff_deal import KNOCKER_MELDS, deck, seed_database

if TYPE_CHECKING:
    from playwright.sync_api import Route

ARTIFACTS = Path(os.environ.get("GINRUMMY_ARTIFACTS")
                 or Path(__file__).resolve().parents[2] / "test-artifacts")
TABLES = {f"shows-{lang}": (f"tok-shows-{lang}", False) for lang in LANGUAGES}
ARENA = {"run-order": ("tok-run-order", "last"), "replay-end": ("tok-replay-end", "last")}
RUN = ["6h", "7h", "8h", "9h", "Th"]
"""The arena deal's run after the computer's layoffs (Th by seat 2, 6h by seat 3)."""
SEAT_POINTS_JS = "ss => ss.map((s) => [s.dataset.seat, s.querySelector('p').textContent])"
"""Each seat of a reveal and its line of deadwood and points."""


GIN_TABLES = {f"gin-{lang}": f"tok-gin-{lang}" for lang in LANGUAGES}
GIN_TABLES["gin-still"] = "tok-gin-still"
GIN_TABLES["gin-later"] = "tok-gin-later"
GIN_HAND = ["2h", "3h", "4h", "5h", "7s", "7d", "7c", "Jd", "Qd", "9c"]
"""Seat 0 draws Kd and has gin, discarding 9c: [2h 3h 4h 5h] [7s 7d 7c] [Jd Qd Kd]."""
GIN_OTHER = ["Ks", "Qs", "Jc", "9s", "6c", "5s", "3c", "Th", "Ac", "2s"]
"""Seat 1 (the computer) melds nothing: 66 deadwood, so the gin scores 20 + 66 = 86."""
GIN_POINTS = 86
GIN_TOTAL = 86 + 20 + 100 + 100
"""The gin, one hand's line bonus (20), the game bonus (100) and the shutout bonus (100)."""


def stored_gin_table(table_id: str, token: str) -> StoredTable:
    """A classic match to 10 points: seat 0 (Ann, holding ``token``) has drawn Kd and may go
    gin; seat 1 is the computer."""
    rules = Ruleset.preset("classic").replace(target=10)
    cards = deck(GIN_HAND, GIN_OTHER, "8h", ["Kd"])
    events = [StoredEvent(1, EventKind.MATCH, json.dumps({"first_dealer": 1})),
              StoredEvent(2, EventKind.DEAL, " ".join(CARD_NAMES[c] for c in cards)),
              StoredEvent(3, EventKind.ACTION, "stock", 0, Source.HUMAN)]
    seats = [StoredSeat(0, SeatKind.HUMAN, "Ann", None, secret_hash(token)),
             StoredSeat(1, SeatKind.BOT, "Simple", "simple")]
    return StoredTable(id=table_id, name="Gin", preset="classic", rules=rules.to_dict(),
                       players=2, public=True, invite_hash=None, clock_ms=0, pool_chips=None,
                       status=TableStatus.PLAYING, version=len(events), seats=seats,
                       events=events)


def seed_gin_tables(db_file: Path) -> None:
    engine = open_engine(f"sqlite:///{db_file}")
    try:
        for table_id, token in GIN_TABLES.items():
            table = stored_gin_table(table_id, token)
            Repository(engine).write([InsertTable(table),
                                      *(InsertEvent(table_id, e) for e in table.events)])
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server restored with one table per test at seat 0's layoff step."""
    folder: Path = tmp_path_factory.mktemp("endings")
    seed_database(folder / "web.db", TABLES, ARENA)
    account_at(folder / "web.db", "replay-end")
    seed_gin_tables(folder / "web.db")
    process = ServerProcess(folder / "web.db")
    process.start()
    try:
        yield process
    finally:
        process.stop()


def account_at(db_file: Path, table: str) -> None:
    """Seat 0 of ``table`` held by an account (a match is stored when one sat at it)."""
    engine = open_engine(f"sqlite:///{db_file}")
    try:
        account = AccountStore(engine).create("Ann", "ann", "not-a-hash")
    finally:
        engine.dispose()
    with sqlite3.connect(db_file) as db:
        db.execute("UPDATE seats SET account_id = ? WHERE table_id = ? AND seat = 0",
                   (account.id, table))


def open_seat(browser: Browser, server: ServerProcess, table: str, lang: str = "en",
              reduced_motion: bool = False,
              before_table: Callable[[Page], object] | None = None) -> Page:
    """A phone-sized page holding seat 0 of ``table``, at the table (``before_table`` runs
    just before the table's address is opened)."""
    context = browser.new_context(locale=LOCALES[lang], base_url=server.base, viewport=PHONE,
                                  reduced_motion="reduce" if reduced_motion else "no-preference")
    context.set_default_timeout(20_000)
    no_undo_wait(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}")
            if msg.type == "error" or "missing message" in msg.text else None)
    page.errors = errors  # type: ignore[attr-defined]
    page.goto("/")
    token = GIN_TABLES[table] if table in GIN_TABLES else (TABLES.get(table) or ARENA[table])[0]
    page.evaluate("([id, token]) => localStorage.setItem(`ginrummy.seat.${id}`,"
                  " JSON.stringify({ seat: 0, token, invite: null }))", [table, token])
    if before_table is not None:
        before_table(page)
    page.goto(f"/?table={table}")
    return page


def screenshot(page: Page, name: str) -> None:
    """A test artifact, never compared."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def meld_cards(page: Page, selector: str) -> list[list[str]]:
    """The cards of each meld group under ``selector``, in the order they are shown."""
    return page.eval_on_selector_all(
        selector, "gs => gs.map((g) => [...g.querySelectorAll('.card')]"
        ".map((c) => c.dataset.card))")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_knocker_shows_its_melds_and_deadwood_during_the_layoffs(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    page = open_seat(browser, server, f"shows-{lang}", lang)
    page.wait_for_selector("#layoff-panel #confirm-layoff")
    knocker = '#opponents .seat-box[data-seat="1"]'
    page.wait_for_selector(f"{knocker} #knocker-shows")
    # its three melds, numbered as in the layoff sheet, and its deadwood card with the count
    assert meld_cards(page, f"{knocker} .meld-group.numbered") == KNOCKER_MELDS
    assert page.eval_on_selector_all(f"{knocker} .deadwood-group .card",
                                     "cs => cs.map((c) => c.dataset.card)") == ["2c"]
    words = catalogue(lang)
    assert page.inner_text(f"{knocker} #knocker-deadwood").strip() == (
        words["reveal.deadwood"].replace("{points}", "2"))
    # no backs, no card count: nothing of it is hidden any more
    assert page.locator(f"{knocker} .backs").count() == 0
    assert page.locator(f"{knocker} .count").count() == 0
    screenshot(page, f"ending-knocker-shows-{lang}")
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_a_run_reads_in_order_with_the_laid_off_cards_where_they_fit(
        server: ServerProcess, browser: Browser) -> None:
    page = open_seat(browser, server, "run-order")
    page.wait_for_selector("#layoff-panel #confirm-layoff")
    # in the sheet and on the knocker's seat, 6h (seat 3's) and Th (seat 2's) at the run's ends
    assert meld_cards(page, '#knocker-melds .layoff-meld[data-meld="1"] .meld-target')[0] == RUN
    knocker = '#opponents .seat-box[data-seat="1"]'
    page.wait_for_selector(f"{knocker} #knocker-shows")
    assert meld_cards(page, f"{knocker} .meld-group.numbered")[0] == RUN
    page.click("#confirm-layoff")
    page.wait_for_selector("#reveal")
    assert meld_cards(page, "#reveal .meld-group.numbered") == [RUN, ["Ks", "Kd", "Kc", "Kh"]]
    laid = page.eval_on_selector_all('#reveal .meld-group.numbered[data-meld="1"] .card',
                                     "cs => cs.map((c) => c.classList.contains('laid-on'))")
    assert laid == [True, False, False, False, True]
    screenshot(page, "ending-reveal-run-order")
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_the_replay_ends_with_the_hand_as_the_table_showed_it(
        server: ServerProcess, browser: Browser) -> None:
    page = open_seat(browser, server, "replay-end")
    page.wait_for_selector("#layoff-panel #confirm-layoff")
    page.click("#confirm-layoff")
    page.wait_for_selector("#reveal")
    table_melds = meld_cards(page, "#reveal .meld-group.numbered")
    table_points = page.eval_on_selector_all("#reveal .reveal-seat", SEAT_POINTS_JS)
    page.wait_for_selector('#table-page[data-await="over"]')
    with sqlite3.connect(server.db_path) as db:
        [(match_id,)] = db.execute("SELECT id FROM matches WHERE table_id = ?", ("replay-end",))
    page.goto(f"/replay/{match_id}")
    page.wait_for_selector("#replay-page[data-steps]")
    page.keyboard.press("End")
    steps = int(page.get_attribute("#replay-page", "data-steps") or 0)
    page.wait_for_selector(f'#replay-page[data-step="{steps - 1}"] #reveal')
    # the same melds with the same layoffs, the same deadwood and points for every seat
    assert meld_cards(page, "#replay-page #reveal .meld-group.numbered") == table_melds
    assert table_melds[0] == RUN
    assert page.eval_on_selector_all("#replay-page #reveal .reveal-seat",
                                     SEAT_POINTS_JS) == table_points
    points = [text for _seat, text in table_points]
    assert all(re.search(r"\d", text) for text in points)
    assert any(re.search(r"[1-9]", text.split("·")[-1]) for text in points)  # not all 0
    # the defender's layoff (Kh on the kings) is shown as laid off, not as a sorted hand
    assert page.locator("#replay-page #reveal .card.laid-on").count() == 3
    assert page.locator("#replay-hands").count() == 0
    screenshot(page, "ending-replay-last-step")
    # a step before the end shows the hands as before
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f'#replay-page[data-step="{steps - 2}"] #replay-hands')
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def go_gin(page: Page) -> None:
    """Open the gin sheet and confirm the gin."""
    page.wait_for_selector("#action-gin")
    page.click("#action-gin")
    page.wait_for_selector("#knock-panel #confirm-knock")


ANIMATION_JS = "id => getComputedStyle(document.getElementById(id)).animationName"


@pytest.mark.parametrize("lang", soak_except(LANGUAGES, keep={"hu"}))
def test_a_gin_and_a_match_win_end_with_banners_and_the_words_for_gin(
        server: ServerProcess, browser: Browser, lang: str) -> None:
    words = catalogue(lang)
    page = open_seat(browser, server, f"gin-{lang}", lang)
    go_gin(page)
    # the gin sheet says gin: no "at most 10 to knock" under a gin
    assert page.inner_text("#knock-summary").strip() == words["arrange.gin_summary"]
    assert page.inner_text("#confirm-knock").strip() == words["action.confirm_gin"]
    page.click("#confirm-knock")
    page.wait_for_selector("#hand-banner")
    # the hand's banner: Ann wins the hand with gin, and its points
    assert page.get_attribute("#hand-banner", "data-outcome") == "gin"
    title = words["banner.hand_won"].replace("{name}", "Ann").replace(
        "{how}", words["outcome.gin"])
    assert page.inner_text("#hand-banner .banner-title").strip() == title
    assert re.search(rf"\b{GIN_POINTS}\b", page.inner_text("#hand-banner .banner-points"))
    # the gin card is the gin's, not a knock's
    discard = page.inner_text("#end-discard")
    assert discard.startswith(words["reveal.gin_discard"])
    assert words["reveal.knock_discard"] not in discard
    # the match's banner: the winner, the final score of both seats, the bonuses by name
    page.wait_for_selector("#match-banner")
    assert page.inner_text("#match-banner .banner-title").strip() == (
        words["banner.match_won"].replace("{name}", "Ann"))
    finals = page.eval_on_selector_all(
        "#match-final .final-seat",
        "ss => ss.map((s) => [s.dataset.seat, s.querySelector('strong').textContent])")
    assert finals[0] == ["0", str(GIN_TOTAL)] and finals[1] == ["1", "0"]
    assert page.eval_on_selector_all("#match-bonuses .bonus", "bs => bs.map((b) => b.dataset.bonus)"
                                     ) == ["line", "game", "shutout"]
    bonuses = page.inner_text("#match-bonuses")
    assert all(words[f"sheet.bonus_{kind}"] in bonuses for kind in ("line", "game", "shutout"))
    # the banners come before the cards, at the top of the reveal
    assert page.evaluate("document.getElementById('match-banner').getBoundingClientRect().top"
                         " < document.getElementById('hand-banner').getBoundingClientRect().top")
    # a gin and a match win are celebrated
    assert page.evaluate(ANIMATION_JS, "hand-banner") == "banner-celebrate"
    assert page.evaluate(ANIMATION_JS, "match-banner") == "banner-celebrate"
    page.locator("#match-banner").scroll_into_view_if_needed()
    screenshot(page, f"ending-gin-match-{lang}")
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_the_celebration_keeps_still_under_reduced_motion(
        server: ServerProcess, browser: Browser) -> None:
    page = open_seat(browser, server, "gin-still", reduced_motion=True)
    go_gin(page)
    page.click("#confirm-knock")
    page.wait_for_selector("#match-banner")
    assert page.evaluate(ANIMATION_JS, "hand-banner") == "none"
    assert page.evaluate(ANIMATION_JS, "match-banner") == "none"
    assert page.evaluate("document.getAnimations().length") == 0
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


LATER_MODULES = ("arrange.js", "reveal.js", "ending.js")
"""The table's modules of the later steps (js/later.js): not part of its first screen."""


def test_a_later_steps_module_is_asked_for_once_drawn_and_its_step_waits_for_it(
        server: ServerProcess, browser: Browser) -> None:
    """Issue 27 point 11: the gin sheet (js/arrange.js), the reveal and the banners
    (js/reveal.js, js/ending.js) are not part of the table's first screen. With their modules
    held back the table is drawn and can be played; they are asked for once it is drawn,
    before any of them is used; Gin shows its sheet as soon as arrange.js arrives (the page
    awaiting the player's action only then), and the hand's end its reveal and banners as
    soon as reveal.js and ending.js arrive, each drawn by itself (no further state comes)."""
    held: dict[str, list[Route]] = {name: [] for name in LATER_MODULES}

    def holder(name: str) -> Callable[[Route], None]:
        return lambda route: held[name].append(route)  # neither answered nor failed: held

    def hold_later_modules(page: Page) -> None:
        for name in LATER_MODULES:
            page.route(f"**/js/{name}", holder(name))

    page = open_seat(browser, server, "gin-later", before_table=hold_later_modules)
    page.wait_for_selector('#table-page[data-await="act"] #action-gin')
    hints = page.eval_on_selector_all('link[rel="modulepreload"]', "ls => ls.map((l) => l.href)")
    assert not [href for href in hints if href.endswith(LATER_MODULES)], hints
    deadline = time.monotonic() + 15
    while not all(held.values()) and time.monotonic() < deadline:
        page.wait_for_timeout(50)  # route events are delivered meanwhile
    assert {name: len(routes) for name, routes in held.items()} == dict.fromkeys(LATER_MODULES, 1)
    page.click("#action-gin")  # drawn at once: without arrange.js, no sheet yet
    assert page.locator("#knock-panel").count() == 0
    # and the page does not say it awaits the player's action meanwhile
    assert page.get_attribute("#table-page", "data-await") == "wait"
    held["arrange.js"][0].continue_()
    page.wait_for_selector('#table-page[data-await="act"] #knock-panel #confirm-knock')
    page.click("#confirm-knock")
    page.wait_for_selector('#table-page[data-await="over"]')
    assert page.locator("#reveal, #hand-banner, #match-banner").count() == 0
    for name in ("reveal.js", "ending.js"):
        held[name][0].continue_()
    page.wait_for_selector("#reveal #hand-banner")
    page.wait_for_selector("#match-banner")
    assert page.get_attribute("#hand-banner", "data-outcome") == "gin"
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()
