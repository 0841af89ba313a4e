"""The web client in a real browser (Chromium through Playwright) against a real
`ginrummy serve` process: people play through the page, as they would.

Every test uses fresh browser contexts (profiles). The tests skip, saying how to install it,
when Chromium or Playwright is missing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_support import (
    LANGUAGES,
    FrameRecorder,
    ServerProcess,
    browser_missing,
    catalogue,
    create_table,
    english_patterns,
    hand_cards,
    leaks,
    my_turn,
    new_page,
    no_undo_wait,
    play_game,
    play_turn,
    play_until,
    running_server,
    wait_for_await,
    wait_for_first_state,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("web")) as process:
        yield process


def no_errors(*pages: Page) -> None:
    for page in pages:
        assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_two_people_play_a_hand_watched_by_a_spectator(
        server: ServerProcess, browser: Browser) -> None:
    """Two contexts play a whole hand against each other through the page; every frame that
    each seat and a spectator receives names only cards that recipient may know."""
    frames = FrameRecorder()
    _, ann = new_page(browser, server.base, recorder=frames)
    _, bob = new_page(browser, server.base, recorder=frames)
    _, eve = new_page(browser, server.base, recorder=frames)
    frames.rename(ann, "ann")
    frames.rename(bob, "bob")
    frames.rename(eve, "spectator")
    table = create_table(ann, "Ann", preset="classic")
    assert ann.get_attribute("#table-page", "data-seat") == "0"

    bob.goto("/")
    bob.fill("#nickname", "Bob")
    entry = bob.locator(f'.table-entry[data-table="{table}"]')
    entry.wait_for()
    assert "Ann" in entry.inner_text()  # who sits where, before joining
    entry.locator(".join-button").click()
    bob.wait_for_selector("#my-hand")
    assert bob.get_attribute("#table-page", "data-seat") == "1"
    eve.goto(f"/?table={table}")
    wait_for_first_state(eve)
    assert eve.locator("#my-hand").count() == 0

    # chat, rendered as text, never as markup
    ann.fill("#chat-input", "<b>good luck</b>")
    ann.click("#chat-send")
    bob.wait_for_selector("#chat-log li")
    assert bob.locator("#chat-log b").count() == 0
    assert "<b>good luck</b>" in bob.inner_text("#chat-log")
    # Bob mutes Ann: her next message reaches the spectator, not him
    bob.locator(".mute-list button", has_text="Ann").click()
    ann.fill("#chat-input", "second")
    ann.click("#chat-send")
    eve.wait_for_selector("#chat-log li >> text=second")
    bob.wait_for_timeout(300)
    assert "second" not in bob.inner_text("#chat-log")

    moves = play_until([ann, bob], {"next", "over"})
    # a draw, and a card to the pile: a discard, or a knock or gin (which discards too; a
    # dealt hand can knock on its first draw, as it did once on CI: stock, knock, layoff)
    assert len(moves) >= 2 and {"discard", "knock", "gin"} & set(moves), moves
    for page in (ann, bob):
        page.wait_for_selector("#reveal")
    eve.wait_for_selector("#reveal")
    outcome = ann.inner_text("#reveal .outcome")
    assert re.search(r"Gin|Knock|Undercut|Void hand", outcome), outcome
    assert ann.locator("#reveal .explain li").count() >= 1  # the points and why
    if "Void" not in outcome:
        reveal = ann.inner_text("#reveal")
        assert "Ann" in reveal and "Bob" in reveal
        # after a knock every hand is shown to everyone, the spectator included (R4.8)
        assert eve.locator("#reveal .reveal-seat").count() == 2
        assert eve.locator("#reveal .card").count() >= 20
        assert ann.locator("#score-sheet tbody tr").count() == 1
    problems = leaks(frames.frames)
    assert problems == []
    names = {f.recipient for f in frames.states()}
    assert names == {"ann", "bob", "spectator"}
    no_errors(ann, bob, eve)


def test_classic_match_against_the_computer(server: ServerProcess, browser: Browser) -> None:
    """A whole `classic` match against the computer, to the final score sheet. The target is
    lowered to 10 points (an option of the create form) to keep the test short."""
    _, page = new_page(browser, server.base)
    create_table(page, "Ann", preset="classic", bots={1: "simple"}, options={"target": "10"})
    assert "10" in page.inner_text(".table-head .rules-summary")
    for _ in range(12):
        play_until([page], {"next", "over"})
        assert page.locator("#reveal .explain li").count() >= 1
        if page.get_attribute("#table-page", "data-await") == "over":
            break
        page.click("#next-hand")
        wait_for_await([page], {"act", "wait"})
    else:
        raise AssertionError("the match did not end")
    sheet = page.locator("#score-sheet")
    sheet.wait_for()
    assert sheet.locator(".total").count() == 1  # totals with the end bonuses
    assert sheet.locator(".bonus-game").count() == 1  # classic: game bonus 100
    assert sheet.locator(".bonus-line").count() == 1
    assert page.locator("#match-winner").inner_text().strip() != ""
    assert page.locator("#rematch").is_enabled()
    page.click("#rematch")
    page.wait_for_selector("#table-page[data-await='act'], #table-page[data-await='wait']")
    no_errors(page)


def test_reload_mid_hand_restores_the_table(server: ServerProcess, browser: Browser) -> None:
    """`eaai` starts with the upcard offer (take or pass, R3.5): the player answers it, then
    reloads the page mid-hand and finds the same hand."""
    _, page = new_page(browser, server.base)
    create_table(page, "Ann", preset="eaai", bots={1: "simple"})
    my_turn(page)
    play_turn(page)  # the offer answered, or a draw
    my_turn(page)
    before = hand_cards(page)
    version = page.get_attribute("#table-page", "data-version")
    page.reload()
    page.wait_for_selector("#my-hand .card")
    my_turn(page)
    assert hand_cards(page) == before
    assert page.get_attribute("#table-page", "data-version") == version
    assert page.locator(".discard-history").count() == 0  # R3.4: only the top discard
    play_turn(page)  # and the game goes on
    no_errors(page)


def visible_texts(page: Page) -> list[str]:
    """Every text node and every label-like attribute of the page (dialogs included)."""
    texts: list[str] = page.evaluate("""() => {
        const out = [];
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) {
            const node = walker.currentNode;
            // people's words: chat, names of players and tables; language names
            const skip = 'script, style, .chat-log, .player-name, .table-name, option[lang]';
            if (node.parentElement.closest(skip)) continue;
            const text = node.textContent.trim();
            if (text) out.push(text);
        }
        for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
            for (const name of ['aria-label', 'title', 'placeholder']) {
                const value = el.getAttribute(name);
                if (value && value.trim()) out.push(value.trim());
            }
        }
        return out;
    }""")
    return texts


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_table_in_each_language(server: ServerProcess, browser: Browser, lang: str) -> None:
    """Picked from the browser's language; no untranslated key, no English left over (words
    the languages share are listed in web_support.SAME_AS_ENGLISH)."""
    locale = {"en": "en-GB", "fr": "fr-FR", "pl": "pl-PL", "hu": "hu-HU"}[lang]
    _, page = new_page(browser, server.base, locale=locale)
    page.goto("/")
    page.wait_for_selector("#create-form")
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.input_value("#language-select") == lang
    lobby = visible_texts(page)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    my_turn(page)
    play_turn(page)
    my_turn(page)
    # the computer may have knocked (a layoff step) or a new hand begun (the upcard offer):
    # no card to choose there; play on to a turn with one (failed so once in .ci/run)
    while page.locator("#my-hand .card.playable").count() == 0:
        play_turn(page)
        my_turn(page)
    page.locator("#my-hand .card.playable").first.click()  # a chosen card: the discard button
    table = visible_texts(page)
    page.click("#rules-button")
    page.wait_for_selector("#rules-dialog[open]")
    rules = visible_texts(page)
    texts = lobby + table + rules
    own = set(catalogue(lang).values())
    key_like = [t for t in texts if re.fullmatch(r"[a-z_]+(\.[\w]+)+", t)]
    assert key_like == []
    if lang != "en":
        leftovers = [(key, text) for text in texts if text not in own
                     for key, pattern in english_patterns(lang) if pattern.search(text)]
        assert leftovers == []
    else:
        assert "Deadwood" in " ".join(table)
        page.keyboard.press("Escape")
        page.select_option("#language-select", "pl")  # switched on screen, at once
        # a function, not an expression string: the page's CSP has no 'unsafe-eval'
        page.wait_for_function("() => document.documentElement.lang === 'pl'")
        page.wait_for_selector(f'#my-hand[aria-label="{catalogue("pl")["hand.label"]}"]')
        assert page.inner_text("#rules-button") == catalogue("pl")["rules.button"]
    no_errors(page)


def test_arena_three_players_two_computers_pays_out(
        server: ServerProcess, browser: Browser) -> None:
    """A 3-player `arena` table with two computer players plays its single hand to the end and
    shows the penalties and the prize-pool split (the shares add up to the pool)."""
    frames = FrameRecorder()
    _, page = new_page(browser, server.base, recorder=frames)
    frames.rename(page, "ann")
    create_table(page, "Ann", preset="arena", players=3, bots={1: "simple", 2: "simple"}, pool=1000)
    assert page.locator("#opponents .seat-box").count() == 2
    play_game([page])  # void hands are dealt again (R6.1)
    payouts = page.locator("#score-sheet tr.payouts td")
    assert payouts.count() == 3
    chips = [int(re.sub(r"\D", "", payouts.nth(i).inner_text())) for i in range(3)]
    assert sum(chips) == 1000
    assert max(chips) >= 750  # R6.4: the winner gets at least 75 %
    assert page.locator("#score-sheet tr.penalties td").count() == 3
    assert leaks(frames.frames) == []
    no_errors(page)


@pytest.mark.slow
def test_server_killed_mid_hand_the_game_goes_on(browser: Browser, tmp_path: Path) -> None:
    """SIGKILL the server mid-hand, start it again on the same port and database: the page
    reconnects by itself, sends the move made while the server was down, and the hand goes
    on with nothing lost."""
    process = ServerProcess(tmp_path / "crash.db")
    process.start()
    try:
        _, page = new_page(browser, process.base)
        create_table(page, "Ann", preset="classic", bots={1: "simple"})
        my_turn(page)
        play_turn(page)
        my_turn(page)
        before = hand_cards(page)
        assert len(before) == 11
        version = int(page.get_attribute("#table-page", "data-version") or 0)
        process.kill()
        page.wait_for_selector("#conn-status[data-status='reconnecting']")
        # a discard made while the server is down waits, and is sent once it is back
        chosen = page.locator("#my-hand .card.playable").first
        card = chosen.get_attribute("data-card")
        chosen.click()
        chosen.click()
        assert page.get_attribute("#table-page", "data-await") == "sending"
        process.start()
        page.wait_for_selector("#conn-status[data-status='online']", timeout=30_000)
        page.wait_for_function("v => Number(document.getElementById('table-page')"
                               ".dataset.version) > v", arg=version)
        wait_for_await([page], {"act", "wait"})
        after = hand_cards(page)
        assert card not in after and len(after) == 10
        assert set(after) < set(before)  # the same hand, nothing lost
        no_errors_but_reconnects(page)
    finally:
        process.stop()


def no_errors_but_reconnects(page: Page) -> None:
    """Console errors other than the failed WebSocket connections while the server was down."""
    errors = [e for e in page.errors  # type: ignore[attr-defined]
              if "WebSocket" not in e and "ERR_CONNECTION_REFUSED" not in e]
    assert errors == []


def test_keyboard_drag_clock_and_display_options(server: ServerProcess, browser: Browser) -> None:
    """Keys: S draws, arrows choose, Enter discards, ? and R open help and rules; a drag onto
    the discard pile discards; the earlier discards show when the rules allow it; the
    four-colour and large-card options persist over a reload."""
    _, page = new_page(browser, server.base)
    table = create_table(page, "Ann", preset="classic", bots={1: "simple"},
                         options={"discard_history_visible": True})
    page.check("#pref-four-colour")
    page.check("#pref-large-cards")
    my_turn(page)
    page.click("#status-line")  # keys go to the table, not to the checkbox
    page.keyboard.press("?")
    page.wait_for_selector("#help-dialog[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#help-dialog:not([open])", state="attached")
    page.keyboard.press("r")
    page.wait_for_selector("#rules-dialog[open] dd[data-option='knock_limit']")
    page.keyboard.press("Escape")
    page.wait_for_selector("#rules-dialog", state="detached")

    for turn in range(2):
        my_turn(page)
        if page.get_attribute("#table-page", "data-phase") == "layoff":
            break  # the computer knocked at once (a live shuffle): the page asks for layoffs
        assert page.locator("#action-stock").count() == 1  # `classic`: no upcard offer
        before = int(page.get_attribute("#table-page", "data-version") or 0)
        page.keyboard.press("s")
        page.wait_for_function("v => Number(document.getElementById('table-page')"
                               ".dataset.version) > v", arg=before)
        my_turn(page)
        assert page.locator("#my-hand .card").count() == 11
        before = int(page.get_attribute("#table-page", "data-version") or 0)
        if turn == 0:
            page.keyboard.press("ArrowRight")
            chosen = page.locator("#my-hand .card.selected").get_attribute("data-card")
            assert chosen
            page.keyboard.press("Enter")
        else:
            card = page.locator("#my-hand .card.playable").last
            chosen = card.get_attribute("data-card")
            card.drag_to(page.locator("#discard-pile"))
        page.wait_for_function("v => Number(document.getElementById('table-page')"
                               ".dataset.version) > v", arg=before)
        _, state = wait_for_await([page], {"act", "wait", "next"})
        if state == "next":
            break  # the computer ended the hand at once: the page shows the reveal
        if page.get_attribute("#table-page", "data-phase") == "layoff":
            break  # the computer knocked at once: the page asks for layoffs, not a draw
        assert chosen not in hand_cards(page)
        assert len(hand_cards(page)) == 10
        # discard_history_visible: the cards under the top discard can be seen (R3.4)
        page.wait_for_selector(".discard-history .card")

    page.reload()
    page.wait_for_selector("#my-hand .card")
    assert page.evaluate("document.body.classList.contains('four-colour')")
    assert page.evaluate("document.body.classList.contains('large-cards')")
    assert page.is_checked("#pref-large-cards")
    assert table in page.url
    no_errors(page)


def test_turn_clock_shown_and_private_table_by_invite(server: ServerProcess,
                                                      browser: Browser) -> None:
    _, ann = new_page(browser, server.base)
    _, bob = new_page(browser, server.base)
    table = create_table(ann, "Ann", preset="classic", public=False, clock=60)
    link = ann.input_value("#invite-link")
    assert "invite=" in link
    bob.goto("/")
    bob.wait_for_selector("#table-list")
    assert bob.locator(f'.table-entry[data-table="{table}"]').count() == 0  # not listed
    bob.goto(link)
    bob.fill("#join-nickname", "Bob")
    bob.click("#join-submit")
    wait_for_first_state(bob)
    bob.wait_for_selector("#my-hand .card")
    wait_for_await([ann, bob], {"act"})
    assert ann.get_attribute("#table-page", "data-phase") in {"draw", "offer"}
    # the clock of the seat to move, shown to both
    for page in (ann, bob):
        clock = page.locator(".seat-box.to-move .clock")
        clock.wait_for()
        assert re.fullmatch(r"[01]:\d\d", clock.inner_text().strip())  # a CSS ring, no glyph
    no_errors(ann, bob)


def test_arrangements_can_be_changed_before_they_are_sent(server: ServerProcess,
                                                          browser: Browser) -> None:
    """The knock and layoff panels start from the proposal and can be changed (the client's
    own modules, loaded in the page)."""
    _, page = new_page(browser, server.base)
    page.goto("/")
    page.wait_for_selector("#create-form")
    result = page.evaluate(r"""async () => {
        // the page's own (versioned) module, whose catalogue is loaded
        const app = document.querySelector('script[type="module"]').src;
        const { ArrangementEditor, knockOptions, layoffPanel } = await import(
            new URL('arrange.js', app).href);
        const hand = ['As', '2s', '3s', '7h', '7d', '7c', '4c', '5d', '9h', '2c', 'Kd'];
        const legal = ['discard Kd', 'knock Kd [As 2s 3s] [7h 7d 7c]'];
        const [option] = knockOptions(legal, hand);
        const editor = new ArrangementEditor({ cards: hand.filter(c => c !== option.discard),
                                               melds: option.melds });
        const steps = [[option.deadwood, editor.deadwood(), editor.text()]];
        editor.melds.splice(1, 1);                      // break up the set of sevens
        steps.push([editor.deadwood(), editor.text()]);
        editor.selection = new Set(['7h', '7d', '7c']); // and make it again
        document.body.append(editor.render());
        document.querySelector('.arrangement .make-meld').click();
        steps.push([editor.deadwood(), editor.text()]);
        // the layoff sheet: the proposal lays 6h off, Jh is then tapped onto meld 1
        const sent = [];
        const defence = layoffPanel({ proposal: 'layoff [4s 4d 4c] 6h@1',
            hand: ['6h', 'Jh', '4s', '4d', '4c'], knock: { melds: [['7h', '8h', '9h', 'Th']] },
            hints: { layoff_targets: [{ meld: 1, fourth: null, low: ['6h'], high: ['Jh'] }] },
            send: (text) => sent.push(text) });
        document.body.append(defence);
        const deadwood = () => Number(
            defence.querySelector('#layoff-deadwood').textContent.match(/\d+/g).pop());
        const offers = () => [...defence.querySelectorAll('#layoff-cards .offer-card')]
            .map((b) => b.dataset.card);
        steps.push([deadwood(), offers()]);
        defence.querySelector('#layoff-cards .offer-card[data-card="Jh"]').click();
        defence.querySelector('#layoff-meld-1').click();
        steps.push([deadwood(), offers()]);
        defence.querySelector('#confirm-layoff').click();
        steps.push(sent);
        return steps;
    }""")
    assert result[0] == [20, 20, "[As 2s 3s] [7h 7d 7c]"]  # 4c 5d 9h 2c
    assert result[1] == [41, "[As 2s 3s]"]
    assert result[2] == [20, "[As 2s 3s] [7h 7d 7c]"]
    assert result[3] == [10, ["Jh"]]  # Jh kept, still offered
    assert result[4] == [0, []]
    assert result[5] == ["layoff [4s 4d 4c] 6h@1 Jh@1"]


OVERFLOW_JS = """() => ({
    pageWidth: document.documentElement.scrollWidth,
    clipped: [...document.querySelectorAll('body *')].filter((e) => {
        if (e.closest('.visually-hidden')) return false; // screen readers' text, 1 px on purpose
        const style = getComputedStyle(e);
        // the same, hidden by the phone layout (the hand's meld labels): clipped whole
        if (style.clipPath === 'inset(50%)' && e.clientWidth <= 1) return false;
        const hidesY = !['visible', 'auto', 'scroll'].includes(style.overflowY);
        const hidesX = !['visible', 'auto', 'scroll'].includes(style.overflowX);
        return (hidesY && e.clientHeight > 0 && e.scrollHeight > e.clientHeight + 1)
            || (hidesX && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1);
    }).map((e) => e.tagName + '.' + e.className),
})"""


def test_large_text_on_a_phone(server: ServerProcess, browser: Browser) -> None:
    """Text at twice the usual size on a 390 px wide screen: the table fits the width and no
    element cuts its content off (sizes in rem, no fixed heights)."""
    context = browser.new_context(locale="hu-HU", base_url=server.base,
                                  viewport={"width": 390, "height": 800})
    no_undo_wait(context)
    page = context.new_page()
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    # the root font size through the CSSOM: the page's CSP refuses inline <style>
    page.evaluate("() => { document.documentElement.style.fontSize = '200%'; }")
    my_turn(page)
    # the actions go under the piles, never over them (their grid row once shrank to nothing
    # and the action bar, centred in it, covered the stock: a click on it was intercepted)
    piles = page.locator(".play-area .piles").bounding_box()
    actions = page.locator("#action-bar").bounding_box()
    assert piles is not None and actions is not None
    assert actions["y"] >= piles["y"] + piles["height"] - 0.5, (piles, actions)
    play_turn(page)
    my_turn(page)
    layout = page.evaluate(OVERFLOW_JS)
    assert layout["pageWidth"] <= 390
    assert layout["clipped"] == []
    assert page.locator("#my-hand .card").count() == 11
    context.close()
