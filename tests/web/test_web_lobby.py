"""The lobby in a real browser (issue 13, point 7): "Play the computer" in one click, and a
create form whose numbers follow the choices (7 cards for 3-4 players, the target or one
hand, the knock limit, the prize pool's line), in each of the four languages.

The numbers the tests expect come from the server's own rules (``Ruleset``), never restated.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from plurals import message
from web_support import (
    LANGUAGES,
    ServerProcess,
    browser_missing,
    catalogue,
    english_patterns,
    new_page,
    running_server,
    wait_for_first_state,
)

from ginrummy.rules import Ruleset

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page

LOCALES = {"en": "en-GB", "fr": "fr-FR", "pl": "pl-PL", "hu": "hu-HU"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("lobby")) as process:
        yield process


def get_json(server: ServerProcess, path: str) -> Any:
    with urllib.request.urlopen(server.base + path, timeout=5) as answer:
        return json.loads(answer.read())


def fill_in(text: str, **values: object) -> str:
    """A catalogue text with its placeholders filled in."""
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), text)


def open_lobby(page: Page, nickname: str = "Ann") -> None:
    page.goto("/")
    page.wait_for_selector("#create-form")
    page.wait_for_selector("#quick-form")
    page.fill("#nickname", nickname)


def summary(page: Page) -> str:
    return page.inner_text("#create-summary")


def no_errors(page: Page) -> None:
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_play_the_computer_in_one_click(server: ServerProcess, browser: Browser) -> None:
    """The level list is the server's, its default first; one click makes a private 2-player
    table with the computer at the chosen level in seat 2, opens it, and the hand is dealt."""
    bots = get_json(server, "/api/bots")
    _, page = new_page(browser, server.base)
    open_lobby(page)
    levels = page.eval_on_selector_all("#quick-level option", "os => os.map(o => o.value)")
    assert levels == bots["levels"]
    assert page.input_value("#quick-level") == bots["default"]
    presets = get_json(server, "/api/presets")
    assert page.input_value("#quick-preset") == presets["default"]
    page.select_option("#quick-level", "simple")
    page.select_option("#quick-preset", "eaai")
    assert "EAAI" in page.inner_text("#quick-summary")

    page.click("#quick-submit")  # the one click
    wait_for_first_state(page)
    match = re.search(r"[?&]table=([^&]+)", page.url)
    assert match, page.url
    assert page.get_attribute("#table-page", "data-seat") == "0"
    # dealt at once: a hand of the preset's size, a phase of play, a computer opponent
    page.wait_for_selector("#my-hand .card")
    page.wait_for_function("() => document.getElementById('table-page').dataset.phase !== ''")
    dealt = Ruleset.preset("eaai").cards_per_hand
    assert page.locator("#my-hand .card").count() in (dealt, dealt + 1)
    assert page.get_attribute("#table-page", "data-phase") not in ("", "waiting")
    opponent = catalogue("en")["seat.computer"].replace("{level}", catalogue("en")["bot.simple"])
    assert opponent in page.inner_text("#opponents")
    # nobody else can sit down, so it is not listed in the lobby
    listed = [t["id"] for t in get_json(server, "/api/tables")["tables"]]
    assert match.group(1) not in listed
    no_errors(page)


def test_create_form_defaults_to_the_computer(server: ServerProcess, browser: Browser) -> None:
    """Every other seat starts as the server's default computer (a newcomer who just clicks
    Create does not sit alone), and can still be left to a person."""
    default = get_json(server, "/api/bots")["default"]
    _, page = new_page(browser, server.base)
    open_lobby(page)
    for players in (2, 3, 4):
        page.select_option("#create-players", str(players))
        kinds = page.eval_on_selector_all("#create-seats .seat-kind", "ss => ss.map(s => s.value)")
        assert kinds == [default] * (players - 1)
    page.select_option('#create-seats .seat-kind[data-seat="2"]', "")  # a person
    page.select_option("#create-players", "3")
    page.select_option("#create-players", "4")  # the choice survives the seats being redrawn
    assert page.input_value('#create-seats .seat-kind[data-seat="2"]') == ""
    page.select_option("#create-players", "2")
    page.click("#create-submit")  # straight away: the computer sits in seat 2, the hand starts
    wait_for_first_state(page)
    page.wait_for_selector("#my-hand .card")
    assert page.get_attribute("#table-page", "data-phase") not in ("", "waiting")
    no_errors(page)


def test_create_form_numbers_follow_the_choices(server: ServerProcess, browser: Browser) -> None:
    """3 and 4 players show the rules' 7 cards and one hand (no match target, the target
    field off) with the prize pool's line; back to 2 players, the preset's match and 10 cards
    again; the knock limit, target, pool and payout threshold typed show in the summary and
    the pool's line. A 4-player table made from the form deals 7 cards."""
    en = catalogue("en")
    _, page = new_page(browser, server.base)
    open_lobby(page)
    classic = Ruleset.preset("classic")
    two = classic.cards_per_hand
    assert fill_in(message(en, "en", "rules.summary_cards", two), cards=two) in summary(page)
    assert fill_in(en["rules.summary_match"], target=classic.target) in summary(page)
    assert page.is_hidden("#create-pool-line")
    page.click("#create-form details.options summary")
    for players in (3, 4):
        cards = Ruleset.preset("arena", players=players).cards_per_hand
        assert cards != two  # the rules' own number: 7
        page.select_option("#create-players", str(players))
        text = summary(page)
        assert fill_in(message(en, "en", "rules.summary_cards", cards), cards=cards) in text, text
        assert en["rules.summary_single"] in text and "match to" not in text, text
        assert page.input_value("#opt-hand_size") == str(cards)
        assert page.input_value("#opt-format") == "single_hand"
        assert page.is_disabled("#opt-target") and page.input_value("#opt-target") == ""
        line = page.inner_text("#create-pool-line")
        assert en["create.pool_none"] in line
        assert fill_in(message(en, "en", "sheet.payout_rule", classic.payout_threshold),
                       threshold=classic.payout_threshold, share="75%") not in line
    page.fill("#create-pool", "600")
    line = page.inner_text("#create-pool-line")
    assert fill_in(message(en, "en", "lobby.pool", 600), chips=600) in line, line
    assert fill_in(message(en, "en", "sheet.payout_rule", classic.payout_threshold),
                       threshold=classic.payout_threshold, share="75%") in line, line
    page.fill("#create-pool", "")
    page.select_option("#create-players", "2")  # the preset's own match comes back
    assert page.input_value("#opt-format") == "match"
    assert fill_in(message(en, "en", "rules.summary_cards", two), cards=two) in summary(page)
    assert fill_in(en["rules.summary_match"], target=classic.target) in summary(page)
    assert page.is_hidden("#create-pool-line")

    page.fill("#opt-knock_limit", "5")
    page.fill("#opt-target", "250")
    assert fill_in(en["rules.summary_knock"], limit=5) in summary(page)
    assert fill_in(en["rules.summary_match"], target=250) in summary(page)
    page.set_checked("#opt-oklahoma_knock_limit", True)  # R5.4: the upcard sets the limit
    assert fill_in(en["rules.summary_knock_oklahoma"], limit=5) in summary(page)
    assert fill_in(en["rules.summary_knock"], limit=5) not in summary(page)
    page.set_checked("#opt-oklahoma_knock_limit", False)
    assert fill_in(en["rules.summary_knock"], limit=5) in summary(page)
    page.select_option("#opt-format", "single_hand")  # by hand, at 2 players
    assert en["rules.summary_single"] in summary(page)
    page.select_option("#opt-format", "match")
    assert fill_in(en["rules.summary_match"], target=250) in summary(page)

    page.select_option("#create-preset", "arena")  # a new preset: its own numbers
    page.click("#create-form details.options summary")
    arena = Ruleset.preset("arena")
    assert fill_in(en["rules.summary_knock"], limit=arena.knock_limit) in summary(page)
    page.select_option("#create-players", "4")
    page.fill("#create-pool", "1000")
    page.fill("#opt-payout_threshold", "40")
    line = page.inner_text("#create-pool-line")
    assert fill_in(message(en, "en", "lobby.pool", 1000), chips="1,000") in line, line
    payout_rule = message(en, "en", "sheet.payout_rule", 40)
    assert fill_in(payout_rule, threshold=40, share="75%") in line, line
    page.click("#create-submit")  # three computers: dealt at once, 7 cards each
    wait_for_first_state(page)
    page.wait_for_selector("#my-hand .card")
    cards = Ruleset.preset("arena", players=4).cards_per_hand
    assert page.locator("#my-hand .card").count() in (cards, cards + 1)
    shown = page.inner_text(".table-head .rules-summary")
    assert fill_in(message(en, "en", "rules.summary_cards", cards), cards=cards) in shown
    no_errors(page)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_lobby_texts_in_each_language(server: ServerProcess, browser: Browser, lang: str) -> None:
    """The new lobby texts (the Play-the-computer block, the single-hand summary, the pool's
    line) come from the page's language, with nothing left in English."""
    texts = catalogue(lang)
    _, page = new_page(browser, server.base, locale=LOCALES[lang])
    open_lobby(page)
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.inner_text("#quick-heading") == texts["quick.title"]
    assert page.inner_text("#quick-submit") == texts["quick.submit"]
    assert texts["quick.help"] in page.inner_text("#quick-form")
    page.select_option("#create-players", "3")
    cards = Ruleset.preset("arena", players=3).cards_per_hand
    assert fill_in(message(texts, lang, "rules.summary_cards", cards), cards=cards) in summary(page)
    assert texts["rules.summary_single"] in summary(page)
    assert texts["create.pool_none"] in page.inner_text("#create-pool-line")
    shown = [page.inner_text(selector) for selector in
             ("#quick-play", "#create-summary", "#create-pool-line", "#create-seats")]
    assert not any(re.search(r"\{\w+\}|\b[a-z_]+\.[a-z_]+\b", text) for text in shown), shown
    if lang != "en":
        left = [key for key, pattern in english_patterns(lang)
                for text in shown if pattern.search(text) and text not in texts.values()]
        assert left == [], left
    no_errors(page)


def test_buy_in_pool_line_follows_the_players(server: ServerProcess, browser: Browser) -> None:
    """For an account, a buy-in's pool is the buy-in times the players, and the line follows
    the player count; the Play-the-computer block plays under the account's name."""
    en = catalogue("en")
    _, page = new_page(browser, server.base)
    page.goto("/")
    page.click("#nav-signup")
    page.wait_for_selector("#signup-form")
    page.fill("#signup-name", "Pooler")
    page.fill("#signup-password", "a long enough passphrase 13")
    page.click("#signup-submit")
    page.wait_for_selector("#nav-me")
    page.goto("/")
    page.wait_for_selector("#create-form")
    page.select_option("#create-preset", "arena")
    for players in (3, 4):
        page.select_option("#create-players", str(players))
        page.fill("#create-buy-in", "50")
        line = page.inner_text("#create-pool-line")
        pool = fill_in(message(en, "en", "create.pool_buy_in", 50 * players),
                       chips=50 * players, buy_in=50, players=players)
        assert pool in line, line
    page.click("#quick-submit")  # no nickname asked: the account's name
    wait_for_first_state(page)
    page.wait_for_selector("#my-hand .card")
    no_errors(page)


def test_a_new_language_keeps_the_choices(server: ServerProcess, browser: Browser) -> None:
    """Switching the language on screen redraws the lobby in it with the form's choices kept,
    and they are what the table gets."""
    fr = catalogue("fr")
    _, page = new_page(browser, server.base)
    open_lobby(page)
    page.select_option("#create-preset", "arena")
    page.select_option("#create-players", "3")
    page.click("#create-form details.options summary")
    page.fill("#opt-knock_limit", "4")
    page.fill("#create-pool", "500")
    page.select_option("#language-select", "fr")
    page.wait_for_function("() => document.documentElement.lang === 'fr'")
    assert page.inner_text("#quick-heading") == fr["quick.title"]
    assert page.input_value("#opt-knock_limit") == "4"
    cards = Ruleset.preset("arena", players=3).cards_per_hand
    text = summary(page)
    assert fill_in(fr["rules.summary_knock"], limit=4) in text, text
    assert fill_in(message(fr, "fr", "rules.summary_cards", cards), cards=cards) in text, text
    pool_line = page.inner_text("#create-pool-line")
    assert fill_in(message(fr, "fr", "lobby.pool", 500), chips=500) in pool_line
    page.click("#create-submit")
    wait_for_first_state(page)
    shown = page.inner_text(".table-head .rules-summary")
    assert fill_in(fr["rules.summary_knock"], limit=4) in shown, shown
    no_errors(page)
