"""Translations in the browser: plural forms chosen by Chromium's Intl.PluralRules ("1 point",
"1 pont", "1 punkt", "2 punkty", "5 punktów"), in the texts the page renders, and a table
created without a name shown under a default name in each viewer's language, in the lobby and
at the table (the server stores no name)."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from plurals import CATEGORIES, category, message
from web_support import (
    LANGUAGES,
    ServerProcess,
    browser_missing,
    catalogue,
    new_page,
    running_server,
    wait_for_first_state,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page

LOCALES = {"en": "en-GB", "fr": "fr-FR", "pl": "pl-PL", "hu": "hu-HU"}
COUNTS = [*range(0, 30), 100, 101, 102, 105, 111, 112, 122, 1000, 1_000_000, 2_000_000]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("i18n")) as process:
        yield process


def post_json(server: ServerProcess, path: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(server.base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              "Origin": server.base})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def get_json(server: ServerProcess, path: str) -> Any:
    with urllib.request.urlopen(server.base + path, timeout=5) as answer:
        return json.loads(answer.read())


def open_lobby(browser: Browser, server: ServerProcess, lang: str) -> Page:
    _, page = new_page(browser, server.base, locale=LOCALES[lang])
    page.goto("/")
    page.wait_for_selector("#create-form")
    page.wait_for_function(f"() => document.documentElement.lang === '{lang}'")
    return page


def t_in_page(page: Page, key: str, params: dict[str, Any]) -> str:
    """The page's own t() (the i18n module the client loaded, in the page's language)."""
    return str(page.evaluate(
        """async ([key, params]) => {
             const app = document.querySelector('script[type=module]').src;
             const i18n = await import(app.replace(/app\\.js$/, 'i18n.js'));
             return i18n.t(key, params);
           }""", [key, params]))


def summary(page: Page) -> str:
    return page.inner_text("#create-summary")


def no_errors(page: Page) -> None:
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_the_plural_rules_are_chromiums(browser: Browser, server: ServerProcess) -> None:
    """The categories the catalogues are written in, and tests/web/plurals.py's rules, are the
    ones Intl.PluralRules applies in Chromium."""
    page = open_lobby(browser, server, "en")
    for lang in LANGUAGES:
        found = page.evaluate("""([lang, counts]) => {
            const rules = new Intl.PluralRules(lang);
            return [rules.resolvedOptions().pluralCategories, counts.map((n) => rules.select(n))];
          }""", [lang, COUNTS])
        assert sorted(found[0]) == sorted(CATEGORIES[lang]), lang
        assert found[1] == [category(lang, n) for n in COUNTS], lang
    no_errors(page)


SINGULAR_POINT = {"en": "1 point", "fr": "1 point", "pl": "1 punkt", "hu": "1 pont"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_counts_take_their_plural_form(browser: Browser, server: ServerProcess, lang: str) -> None:
    """One point, chip or card in the singular, two and five in Polish's few and many forms:
    in t() and in what the create form renders (the rules summary, the prize pool's line)."""
    texts = catalogue(lang)
    page = open_lobby(browser, server, lang)
    assert t_in_page(page, "seat.score", {"count": 1, "points": 1}) == SINGULAR_POINT[lang]
    for count in (0, 1, 2, 5, 12, 22, 1_000_000):
        wanted = message(texts, lang, "seat.score", count).replace("{points}", str(count))
        assert t_in_page(page, "seat.score", {"count": count, "points": count}) == wanted
    if lang == "pl":
        assert t_in_page(page, "seat.score", {"count": 2, "points": 2}) == "2 punkty"
        assert t_in_page(page, "seat.score", {"count": 5, "points": 5}) == "5 punktów"
        assert t_in_page(page, "reveal.penalty", {"count": 22, "points": 22}) == "22 punkty karne"
    if lang == "fr":  # French counts 0 in the singular, English does not
        assert t_in_page(page, "reveal.points", {"count": 0, "points": 0}) == "0 point"
    if lang == "en":
        assert t_in_page(page, "reveal.points", {"count": 0, "points": 0}) == "0 points"

    page.select_option("#create-preset", "arena")
    page.click("#create-form details.options summary")
    for count in (1, 2, 5):
        page.fill("#opt-hand_size", str(count))
        page.fill("#create-pool", str(count))
        page.fill("#opt-payout_threshold", str(count))
        cards = message(texts, lang, "rules.summary_cards", count).replace("{cards}", str(count))
        page.wait_for_function("(text) => document.getElementById('create-summary')"
                               ".textContent.includes(text)", arg=cards)
        line = page.inner_text("#create-pool-line")
        pool = message(texts, lang, "lobby.pool", count).replace("{chips}", str(count))
        assert pool in line, line
        below = message(texts, lang, "sheet.payout_rule", count)
        assert below.split("{threshold}")[1] in line, line  # "... penalty point(s) ..."
        if lang == "pl":
            assert {1: "1 karta", 2: "2 karty", 5: "5 kart"}[count] in summary(page)
            assert {1: "1 żeton", 2: "2 żetony", 5: "5 żetonów"}[count] in line
        if lang == "en":
            assert {1: "1 card", 2: "2 cards", 5: "5 cards"}[count] in summary(page)
            assert ("below 1 penalty point gets" in line) == (count == 1), line
    share = page.evaluate("new Intl.NumberFormat(document.documentElement.lang, "
                          "{style: 'percent'}).format(0.75)")
    assert share in page.inner_text("#create-pool-line")
    assert not re.search(r"\{\w+\}", page.inner_text("#create-form"))
    no_errors(page)


DEFAULT_NAMES = {  # (Anna, Bob): the catalogue's default names after the first seat's player
    "en": ("Anna's table", "Bob's table"),
    "fr": ("Table d'Anna", "Table de Bob"),
    "pl": ("Stół gracza Anna", "Stół gracza Bob"),
    "hu": ("Anna asztala", "Bob asztala"),
}


def test_a_table_without_a_name_is_named_in_each_viewers_language(
        browser: Browser, server: ServerProcess) -> None:
    """The server stores no name (no English "Anna's table" in the lobby's data); the lobby and
    the table page show the default name in the viewer's language, elided in French."""
    anna = post_json(server, "/api/tables", {"nickname": "Anna", "preset": "classic"})
    bob = post_json(server, "/api/tables", {"nickname": "Bob", "preset": "classic"})
    named = post_json(server, "/api/tables", {"nickname": "Cleo", "name": "Cleo's club"})
    entries = {e["id"]: e for e in get_json(server, "/api/tables")["tables"]}
    assert entries[anna["table_id"]]["name"] == ""
    assert entries[bob["table_id"]]["name"] == ""
    assert entries[named["table_id"]]["name"] == "Cleo's club"
    for lang in LANGUAGES:
        page = open_lobby(browser, server, lang)
        for answer, wanted in zip((anna, bob, named), (*DEFAULT_NAMES[lang], "Cleo's club"),
                                  strict=True):
            selector = f'.table-entry[data-table="{answer["table_id"]}"] .table-name'
            page.wait_for_selector(selector)
            assert page.inner_text(selector) == wanted, lang
        page.goto(f"/?table={anna['table_id']}")  # watching: the table's own heading
        wait_for_first_state(page)
        assert page.inner_text(".table-head .table-name") == DEFAULT_NAMES[lang][0], lang
        no_errors(page)


def test_play_the_computer_names_the_table_in_the_viewers_language(
        browser: Browser, server: ServerProcess) -> None:
    """The one-click table is created without a name: in Hungarian its heading is the
    Hungarian default, and switched to English the same page reads the English one (no text
    stored by the server in the creator's language)."""
    page = open_lobby(browser, server, "hu")
    page.fill("#nickname", "Ede")
    page.click("#quick-submit")
    wait_for_first_state(page)
    assert page.inner_text(".table-head .table-name") == "Ede asztala"
    page.select_option("#language-select", "en")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.wait_for_function("() => document.querySelector('.table-head .table-name')"
                           ".textContent === \"Ede's table\"")
    no_errors(page)
