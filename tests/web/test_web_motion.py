"""Issue 13.2 in a real browser: cards move (js/motion.js) when drawn, discarded and dealt,
a click or a key finishes the motion, `prefers-reduced-motion: reduce` turns every animation
off over a whole hand, and the move log (js/movelog.js) tells every move of the hand, the
computers' too, in full sentences (set-up as in test_web_browser.py)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import (
    FrameRecorder,
    ServerProcess,
    browser_missing,
    catalogue,
    create_table,
    my_turn,
    new_page,
    no_undo_wait,
    play_turn,
    play_until,
    running_server,
    wait_for_await,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, BrowserContext, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

# Every Element.animate call (where the animated card is) and, sampled at every frame, the
# most animations running at once in the document (before the page's own code runs).
ANIMATION_PROBE_JS = """() => {
    window.__animations = [];
    window.__mostRunning = 0;
    const animate = Element.prototype.animate;
    Element.prototype.animate = function (...args) {
        const animation = animate.apply(this, args);
        const where = this.closest('#my-hand') ? 'hand' : this.closest('#discard-pile') ? 'pile'
            : this.closest('.seat-box') ? 'seat' : this.closest('#reveal') ? 'reveal'
            : this.closest('#layoff-panel') ? 'layoff' : 'other';
        window.__animations.push({where, card: this.dataset.card || null,
            running: document.getAnimations().length});
        return animation;
    };
    const sample = () => {
        window.__mostRunning = Math.max(window.__mostRunning, document.getAnimations().length);
        requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
}"""

IDLE_JS = "() => document.getAnimations().length === 0"
RUNNING_JS = "() => document.getAnimations().length > 0"


def next_frame(page: Page) -> None:
    """After the page's next animation frame, where motion.js starts the flights it planned."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("motion")) as process:
        yield process


@pytest.fixture(scope="module")
def paced_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose computer answers 250 ms after a move, not 20: with deltas (protocol 3)
    the page takes a move in well under a frame, so the computer's draw and discard could
    reach it before the frame that starts the player's discard's flight, and a discard
    already covered on the pile does not fly (js/motion.js); it failed 4 of 8 runs so."""
    process = ServerProcess(tmp_path_factory.mktemp("motion-paced") / "web.db", env={},
                            bot_delay_ms=250)
    process.start()
    try:
        yield process
    finally:
        process.stop()


def motion_page(browser: Browser, server: ServerProcess, *, reduce: bool = False,
                recorder: FrameRecorder | None = None) -> tuple[BrowserContext, Page]:
    """A fresh context (with `prefers-reduced-motion: reduce` when asked) and page, probed."""
    if not reduce:
        context, page = new_page(browser, server.base, recorder=recorder)
    else:
        context = browser.new_context(base_url=server.base, locale="en-US",
                                      viewport={"width": 1280, "height": 900},
                                      reduced_motion="reduce")
        context.set_default_timeout(30_000)
        no_undo_wait(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.errors = errors  # type: ignore[attr-defined]
        if recorder is not None:
            recorder.attach(page)
    page.add_init_script(script=f"({ANIMATION_PROBE_JS})()")
    return context, page


MISSING = re.compile(r"missing message (\S+)")
OWN_KEYS = ("movelog.", "log.", "card.", "clock.")


def own_errors(page: Page) -> list[str]:
    """The page's errors, except catalogue keys missing outside this area's (the move log's,
    the cards' and the clock's): other parts of the client are edited at the same time."""
    def mine(error: str) -> bool:
        missing = MISSING.search(error)
        return missing is None or missing.group(1).startswith(OWN_KEYS)
    return [e for e in page.errors if mine(e)]  # type: ignore[attr-defined]


def shown_state(page: Page, frames: FrameRecorder) -> dict[str, Any]:
    """The last state message the page received, once the recorder has the one the page
    shows (Playwright hands frames over a moment after the page got them)."""
    deadline = time.monotonic() + 10
    while True:
        shown = int(page.get_attribute("#table-page", "data-version") or -1)
        states = frames.states()
        if states and states[-1].message.get("version") == shown:
            return states[-1].message
        if time.monotonic() > deadline:
            raise AssertionError(f"no recorded state of version {shown}")
        page.wait_for_timeout(20)


def animations(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("() => window.__animations")
    return found


def forget_animations(page: Page) -> None:
    page.wait_for_function(IDLE_JS)
    page.evaluate("() => { window.__animations = []; }")


MOTION_DIAGNOSIS_JS = """() => ({
    await: document.getElementById('table-page').dataset.await,
    phase: document.getElementById('table-page').dataset.phase,
    version: document.getElementById('table-page').dataset.version,
    started: window.ginrummyMotion.started, skipped: window.ginrummyMotion.skipped,
    frames: window.ginrummyMotion.frameMs.length, animations: window.__animations.slice(-8),
    log: [...document.querySelectorAll('#log .log-move')].slice(-4).map((l) => l.textContent),
})"""


def running(page: Page) -> None:
    """Wait until an animation runs; if none comes, say what the page showed and started."""
    try:
        page.wait_for_function(RUNNING_JS, polling="raf", timeout=15_000)
    except PlaywrightTimeout:
        raise AssertionError(f"no animation ran: {page.evaluate(MOTION_DIAGNOSIS_JS)}") from None


def after_state(page: Page, action: Any) -> None:
    """Run ``action`` (a click) and wait for the state that answers it."""
    before = int(page.get_attribute("#table-page", "data-version") or -1)
    action()
    page.wait_for_function("v => Number(document.getElementById('table-page').dataset.version)"
                           " > v", arg=before, polling=10)


def test_draw_and_discard_start_animations(paced_server: ServerProcess,
                                           browser: Browser) -> None:
    """With normal motion the deal, a draw from the stock (the drawn card flies into the hand)
    and a discard (the card flies onto the pile) each start animations; so do the
    computer's draws (into its seat) and discards."""
    _, page = motion_page(browser, paced_server)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    page.wait_for_function("() => window.__animations.length > 0")
    dealt = animations(page)
    assert sum(1 for a in dealt if a["where"] == "hand") >= 10, dealt  # the deal
    my_turn(page)
    if page.locator("#action-pass").count():
        after_state(page, lambda: page.keyboard.press("p"))
        my_turn(page)
    forget_animations(page)
    after_state(page, lambda: page.click("#stock"))
    page.wait_for_function(RUNNING_JS, polling="raf")
    drawn = page.get_attribute("#my-hand .card[data-drawn='true']", "data-card")
    moved = animations(page)
    assert {"where": "hand", "card": drawn} in [{"where": a["where"], "card": a["card"]}
                                                for a in moved], (drawn, moved)
    assert all(a["running"] >= 1 for a in moved)
    forget_animations(page)
    card = page.locator(f'#my-hand .card[data-card="{drawn}"]')
    card.click()
    after_state(page, card.click)
    page.wait_for_function("c => window.__animations.some((a) => a.where === 'pile'"
                           " && a.card === c)", arg=drawn)
    # the computer answers: its draw flies into its seat, its discard onto the pile
    hand = page.get_attribute("#table-page", "data-hand")
    _, state = wait_for_await([page], {"act", "next", "over"})
    if state == "act" and page.get_attribute("#table-page", "data-hand") == hand:
        next_frame(page)
        wheres = {a["where"] for a in animations(page)}
        assert {"seat", "pile"} <= wheres, animations(page)
    assert own_errors(page) == []


def test_the_knockers_melds_are_laid_out(server: ServerProcess, browser: Browser) -> None:
    """Hands are played to their end until one ends in a knock or gin: every card of the
    knocker's melds shown at the reveal (or, for a defender, first in the layoff panel) flies
    from the knocker's hand or seat; the next hand is dealt with motion again."""
    frames = FrameRecorder()
    _, page = motion_page(browser, server, recorder=frames)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    for _ in range(4):
        play_until([page], {"next", "over"})
        page.wait_for_selector("#reveal")
        knock = shown_state(page, frames)["view"]["knock"]
        next_frame(page)
        if knock is not None:
            melded = {card for meld in knock["melds"] for card in meld}
            laid = {a["card"] for a in animations(page) if a["where"] in ("reveal", "layoff")}
            assert melded and melded <= laid, (knock, animations(page))
            break
        if page.get_attribute("#table-page", "data-await") == "over":
            break
        page.evaluate("() => { window.__animations = []; }")
        page.click("#next-hand")
        page.wait_for_function("() => window.__animations.filter(a => a.where === 'hand')"
                               ".length >= 10")  # the next hand is dealt
    else:
        raise AssertionError("no hand ended in a knock")
    assert own_errors(page) == []


def test_a_click_or_a_key_finishes_the_motion(server: ServerProcess, browser: Browser) -> None:
    """Animations slowed down tenfold (DevTools) are still running when a click on the page
    or a key arrives, and that click or key ends every one of them at once."""
    context, page = motion_page(browser, server)
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    my_turn(page)
    if page.locator("#action-pass").count():
        after_state(page, lambda: page.keyboard.press("p"))
        my_turn(page)
    page.wait_for_function(IDLE_JS)
    devtools = context.new_cdp_session(page)
    devtools.send("Animation.enable")
    devtools.send("Animation.setPlaybackRate", {"playbackRate": 0.1})
    after_state(page, lambda: page.click("#stock"))
    running(page)
    box = page.locator("#status-line").bounding_box()
    assert box is not None
    skipped = page.evaluate("() => window.ginrummyMotion.skipped")
    page.mouse.click(box["x"] + 2, box["y"] + box["height"] / 2)
    assert page.evaluate("() => document.getAnimations().length") == 0
    assert page.evaluate("() => window.ginrummyMotion.skipped") > skipped
    # a key: the discard's card flies (slowly), Shift ends it
    drawn = page.get_attribute("#my-hand .card[data-drawn='true']", "data-card")
    card = page.locator(f'#my-hand .card[data-card="{drawn}"]')
    card.click()
    after_state(page, card.click)
    # the computer's draw and discard fly too (slowly); then nothing comes until Ann acts
    _, now = wait_for_await([page], {"act", "next", "over"})
    if now == "next" or page.get_attribute("#table-page", "data-phase") == "layoff":
        # the computer knocked or went gin on that turn: its melds took its hand's place and
        # nothing of its turn flies; Ann's draw in the next hand gives the key its flight
        if now == "act":  # Ann lays off against the knock first
            play_until([page], {"next", "over"})
        my_turn(page)
        if page.locator("#action-pass").count():
            after_state(page, lambda: page.keyboard.press("p"))
            my_turn(page)
        after_state(page, lambda: page.click("#stock"))
    running(page)
    page.keyboard.press("Shift")
    assert page.evaluate("() => document.getAnimations().length") == 0
    devtools.send("Animation.setPlaybackRate", {"playbackRate": 1})
    assert own_errors(page) == []


def test_reduced_motion_animates_nothing_over_a_whole_hand(
        server: ServerProcess, browser: Browser) -> None:
    """Under `prefers-reduced-motion: reduce` (set on the Playwright context) a whole hand is
    dealt and played to its end without a single animation: none started, none running at
    any frame."""
    _, page = motion_page(browser, server, reduce=True)
    assert page.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")
    create_table(page, "Ann", preset="classic", bots={1: "simple"})
    moves = play_until([page], {"next", "over"})
    assert len(moves) >= 2, moves
    assert page.get_attribute("#table-page", "data-phase") == "over"
    assert animations(page) == []
    assert page.evaluate("() => window.__mostRunning") == 0
    assert page.evaluate("() => window.ginrummyMotion.started") == 0
    assert own_errors(page) == []


def card_names() -> dict[str, str]:
    """Every card's full English name ("7s" -> "7 of spades")."""
    texts = catalogue("en")
    suits = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
    return {rank + suit: texts["card.name"].replace("{rank}", texts[f"card.rank_name.{rank}"])
            .replace("{suit}", texts[f"card.suit.{name}"])
            for rank in "A23456789TJQK" for suit, name in suits.items()}


LOG_STATE_JS = """() => {
    const log = document.getElementById('log');
    const lines = [...log.querySelectorAll('.log-move')];
    return {lines: lines.map((l) => ({text: l.textContent, seat: l.dataset.seat,
                                      index: Number(l.dataset.index)})),
            rounds: [...log.querySelectorAll('.log-round-label')].map((l) => l.textContent),
            scrollTop: log.scrollTop, clientHeight: log.clientHeight,
            scrollHeight: log.scrollHeight, overflowY: getComputedStyle(log).overflowY};
}"""


def check_log(page: Page, frames: FrameRecorder, names: dict[int, str]) -> int:
    """The page's log has one line per entry of the last state's log, each a sentence naming
    the player and the cards of the move; returns the number of lines."""
    state = shown_state(page, frames)
    log = state["view"]["log"]
    shown = page.evaluate(LOG_STATE_JS)
    lines = shown["lines"]
    assert len(lines) == len(log), (len(lines), len(log), lines[-3:], log[-3:])
    full = card_names()
    previous_discard = state["view"]["upcard"]
    for entry, line in zip(log, lines, strict=True):
        text = line["text"]
        words = entry["action"].split()
        kind = words[0]
        assert text.endswith("."), text
        if kind != "reshuffle":
            assert text.startswith(names[entry["seat"]]), (text, entry)
            assert line["seat"] == str(entry["seat"])
        if kind in ("discard", "knock", "gin") and len(words) > 1 and words[1] in full:
            assert full[words[1]] in text, (text, entry)
        if kind == "discard":
            previous_discard = words[1]
        if kind == "take":
            assert full[previous_discard] in text, (text, previous_discard)
        if kind == "stock":
            if entry["seat"] == state["view"]["seat"]:
                assert full[entry["card"]] in text, (text, entry)
            else:  # another seat's stock draw names no card
                assert not any(name in text for name in full.values()), text
    if len(lines) > 1:
        assert len(shown["rounds"]) >= 1 and shown["rounds"][0] == "Round 1", shown["rounds"]
    assert shown["overflowY"] == "auto"
    # scrolled to the newest line
    assert shown["scrollTop"] + shown["clientHeight"] >= shown["scrollHeight"] - 2, shown
    return len(lines)


def play_game_checking_log(page: Page, frames: FrameRecorder, names: dict[int, str]) -> int:
    """Play the arena game to its end, checking the log (:func:`check_log`) at each of the
    page's turns and at the end; the most lines it had."""
    most = 0
    for _ in range(6):  # void hands are dealt again (R6.1)
        for _ in range(200):
            _, state = wait_for_await([page], {"act", "next", "over"}, timeout=30)
            most = max(most, check_log(page, frames, names))
            if state != "act":
                break
            play_turn(page)
        if state == "over":
            return most
        page.click("#next-hand")
        wait_for_await([page], {"act", "wait"})
    raise AssertionError("the arena hand did not end")


def test_the_log_tells_every_move_of_a_three_player_hand(
        server: ServerProcess, browser: Browser) -> None:
    """A 3-player arena table with two computers: at each of the player's turns and at the
    end, the log has a line for every entry of the state's log (the computers' moves
    included), grouped by round, and is scrolled to the newest line inside itself."""
    frames = FrameRecorder()
    _, page = motion_page(browser, server, recorder=frames)
    create_table(page, "Ann", preset="arena", players=3, bots={1: "simple", 2: "simple"})
    names = {0: "Ann", 1: page.inner_text('.seat-box[data-seat="1"] .player-name'),
             2: page.inner_text('.seat-box[data-seat="2"] .player-name')}
    assert names[1] != names[2]
    most = 0
    seats: set[str] = set()
    for _ in range(4):  # games: a rematch while no log has reached 6 lines (below)
        most = max(most, play_game_checking_log(page, frames, names))
        shown = page.evaluate(LOG_STATE_JS)
        seats |= {line["seat"] for line in shown["lines"]}
        if most >= 6 and {"0", "1", "2"} <= seats:
            break
        # a live deal can end the arena's one hand within a round (a computer knocks with
        # 7 cards at its first turn: 4 lines); that log was checked, a rematch plays another
        page.click("#rematch")
        wait_for_await([page], {"act", "wait"})
    assert {"0", "1", "2"} <= seats, seats  # the computers' moves are in the logs
    assert most >= 6
    if shown["scrollHeight"] > shown["clientHeight"]:
        assert shown["scrollTop"] > 0  # a long log scrolled inside itself to its end
    assert re.fullmatch(r"Moves of hand \d+", page.get_attribute("#log", "aria-label") or "")
    assert own_errors(page) == []


# The page's own move log module (its URL is versioned: /v/<hash>/js/movelog.js), given a
# made-up 3-seat hand: the viewer (seat 0) drew 7s from the stock, Bob took the upcard and a
# discard, knocked, and the defenders laid off; the clock played Cleo's first discard.
SENTENCES_JS = """async () => {
    const app = document.querySelector('script[type=module]').src;
    const { MoveLog, moveSentence } = await import(new URL('movelog.js', app).href);
    const turn = [
        {seat: 1, action: 'take', card: null}, {seat: 1, action: 'discard Kd', card: null},
        {seat: 2, action: 'stock', card: null}, {seat: 2, action: 'discard 5h', card: null},
        {seat: 0, action: 'stock', card: '7s'}, {seat: 0, action: 'discard 2d', card: null}];
    const later = [];
    for (let i = 0; i < 4; i += 1) later.push(
        {seat: 1, action: 'stock', card: null}, {seat: 1, action: 'discard 8c', card: null},
        {seat: 2, action: 'stock', card: null}, {seat: 2, action: 'discard 9d', card: null},
        {seat: 0, action: 'stock', card: '3h'}, {seat: 0, action: 'discard 3h', card: null});
    const log = [...turn, ...later, {seat: 1, action: 'take', card: null},
        {seat: 1, action: 'knock 4c [4h 5h 6h] [Js Jd Jc]', card: null},
        {seat: 2, action: 'layoff 7h@0 Qs@1', card: null}, {seat: 0, action: 'layoff', card: null}];
    const view = {hand_number: 2, upcard: '9c', seat: 0, log};
    const names = ['Ann', 'Bob', 'Cleo'];
    const clock = new Map([['2:3', 'discard 5h'], ['1:0', 'stock']]);
    const moveLog = new MoveLog();
    const root = moveLog.render(view, names, clock);
    document.body.append(root);
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const lines = [...root.querySelectorAll('.log-move')];
    const atEnd = () => root.scrollTop + root.clientHeight >= root.scrollHeight - 2;
    const shown = {lines: lines.map((l) => l.textContent), clockLines:
        [...root.querySelectorAll('.log-move.clock-played')].map((l) => Number(l.dataset.index)),
        rounds: [...root.querySelectorAll('.log-round-label')].map((l) => l.textContent),
        scrollable: root.scrollHeight > root.clientHeight, atEnd: atEnd(),
        label: root.getAttribute('aria-label')};
    // a reader scrolled up stays there while nothing new comes, even when the render comes
    // before the browser's scroll event (as on a busy machine); a new move scrolls to it
    root.scrollTop = 0;
    moveLog.render(view, names, clock);
    await new Promise((resolve) => requestAnimationFrame(resolve));
    shown.keptTop = root.scrollTop;
    moveLog.render({...view, log: [...log, {seat: 1, action: 'layoff', card: null}]}, names, clock);
    await new Promise((resolve) => requestAnimationFrame(resolve));
    shown.newAtEnd = atEnd();
    shown.sameElement = moveLog.render(view, names, clock) === root;
    shown.gin = moveSentence({seat: 2, action: 'gin 2c [As 2s 3s]'}, {name: 'Cleo'});
    shown.bigGin = moveSentence({seat: 2, action: 'gin [As 2s 3s]'}, {name: 'Cleo'});
    shown.reshuffle = moveSentence({seat: 2, action: 'reshuffle'}, {name: 'Cleo'});
    root.remove();
    return shown;
}"""


def test_move_log_sentences_rounds_and_scrolling(server: ServerProcess, browser: Browser) -> None:
    """The move log of a made-up 3-seat hand: one full sentence a move naming the player and
    the cards (the card taken, the viewer's own stock draw, the knock's discard, the cards
    laid off; no card for another seat's stock draw), the clock's move told as such, rounds
    and the layoffs grouped; scrolled to its end, kept where a reader scrolled to, and
    scrolled to a new move."""
    _, page = motion_page(browser, server)
    page.goto("/")
    page.wait_for_selector("#create-form")
    shown = page.evaluate(SENTENCES_JS)
    lines = shown["lines"]
    assert len(lines) == 34
    assert lines[:6] == [
        "Bob takes the 9 of clubs from the discard pile.", "Bob discards the king of diamonds.",
        "Cleo draws from the stock.",
        "Time ran out: the computer discarded 5 of hearts for Cleo.",
        "Ann draws the 7 of spades from the stock.", "Ann discards the 2 of diamonds."]
    assert lines[-4:] == [
        "Bob takes the 3 of hearts from the discard pile.",
        "Bob knocks and discards the 4 of clubs.",
        "Cleo lays off 7 of hearts and queen of spades.", "Ann lays off no card."]
    assert shown["clockLines"] == [3]  # the other hand's clock move is not this hand's
    assert shown["rounds"] == ["Round 1", "Round 2", "Round 3", "Round 4", "Round 5",
                               "Round 6", "Layoffs"]
    assert shown["label"] == "Moves of hand 2"
    assert shown["scrollable"] and shown["atEnd"]
    assert shown["keptTop"] == 0
    assert shown["newAtEnd"] and shown["sameElement"]
    assert shown["gin"] == "Cleo goes gin and discards the 2 of clubs."
    assert shown["bigGin"] == "Cleo goes big gin."
    assert shown["reshuffle"] == "The discards are reshuffled into a new stock."
    assert own_errors(page) == []
