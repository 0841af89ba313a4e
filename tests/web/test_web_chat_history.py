"""Chat kept with the table, in a real browser (issue 13, 8): a reloaded table page shows the
lines said before, each once and in order, keeps its mutes, and a newcomer sees them too; a
page that reconnects after a server restart shows each line once.
"""

from __future__ import annotations

import pytest
from web_support import (
    FrameRecorder,
    browser_missing,
    create_table,
    new_page,
    running_server,
    wait_for_first_state,
)

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page


def chat_lines(page: Page) -> list[str]:
    """The texts of the chat log, top to bottom."""
    return page.eval_on_selector_all("#chat-log .chat-text", "ts => ts.map(t => t.textContent)")


def sign_up(page: Page, name: str) -> None:
    """Sign up through the header's form (a spectator chats only as an account)."""
    page.goto("/")
    page.click("#nav-signup")
    page.wait_for_selector("#signup-form")
    page.fill("#signup-name", name)
    page.fill("#signup-password", "a password 12")
    page.click("#signup-submit")
    page.wait_for_selector("#nav-me")


def say(page: Page, text: str, *listeners: Page) -> None:
    page.fill("#chat-input", text)
    page.click("#chat-send")
    for other in (page, *listeners):
        other.wait_for_selector(f"#chat-log .chat-text >> text={text}")


def test_a_reloaded_table_shows_the_earlier_lines(browser: Browser, tmp_path_factory:
                                                  pytest.TempPathFactory) -> None:
    with running_server(tmp_path_factory.mktemp("chat")) as server:
        frames = FrameRecorder()
        _, ann = new_page(browser, server.base, recorder=frames)
        frames.rename(ann, "ann")
        _, eve = new_page(browser, server.base)
        sign_up(eve, "Eve")  # a spectator chats only as an account (issue 25)
        table = create_table(ann, "Ann", preset="classic")  # seat 2 waits for a person
        eve.goto(f"/?table={table}")
        wait_for_first_state(eve)
        say(ann, "first line", eve)
        say(eve, "hello from the rail", ann)
        say(ann, "<i>third</i>", eve)
        earlier = ["first line", "hello from the rail", "<i>third</i>"]

        ann.reload()
        wait_for_first_state(ann)
        ann.wait_for_function("n => document.querySelectorAll('#chat-log li').length >= n", arg=3)
        assert chat_lines(ann) == earlier  # each once, in order, as text
        assert ann.locator("#chat-log i").count() == 0
        assert ann.get_attribute("#table-page", "data-seat") == "0"  # still her seat
        # a new line is added to the log, the earlier ones are not drawn (nor announced) again
        ann.eval_on_selector("#chat-log li", "li => { li.dataset.mark = 'kept'; }")
        say(ann, "after the reload", eve)
        assert ann.locator("#chat-log li[data-mark=kept]").count() == 1
        assert ann.get_attribute("#chat-log", "aria-live") == "polite"
        assert chat_lines(ann) == [*earlier, "after the reload"]
        assert chat_lines(eve) == [*earlier, "after the reload"]

        # Ann mutes the spectators: after a reload their earlier line stays hidden
        ann.locator(".mute-list button", has_text="spectators").click()
        assert "hello from the rail" not in chat_lines(ann)
        ann.reload()
        wait_for_first_state(ann)
        # the history has arrived whole (its last line read), and been drawn
        frames.wait_for(ann, "ann", lambda m: bool(m.get("history"))
                        and m.get("text") == "after the reload")
        ann.wait_for_function("n => document.querySelectorAll('#chat-log li').length >= n", arg=3)
        assert chat_lines(ann) == ["first line", "<i>third</i>", "after the reload"]
        assert ann.locator(".mute-list button[aria-pressed=true]").count() == 1
        say(eve, "still muted?")
        ann.wait_for_timeout(300)
        assert "still muted?" not in chat_lines(ann)

        # someone who was never here sees the whole conversation
        _, carol = new_page(browser, server.base)
        carol.goto(f"/?table={table}")
        wait_for_first_state(carol)
        carol.wait_for_function("n => document.querySelectorAll('#chat-log li').length >= n",
                                arg=5)
        everything = [*earlier, "after the reload", "still muted?"]
        assert chat_lines(carol) == everything

        # the server restarts: each page reconnects, is sent the history again, shows it once
        server.stop()
        for page in (ann, eve):
            page.wait_for_selector("#conn-status[data-status=reconnecting]")
        frames.frames.clear()
        eve_frames = FrameRecorder()
        eve_frames.attach(eve, "eve")  # its next connection's frames
        server.start()
        for page in (ann, eve):
            page.wait_for_selector("#conn-status[data-status=online]", timeout=60_000)
        for page, name, recorder in ((ann, "ann", frames), (eve, "eve", eve_frames)):
            recorder.wait_for(page, name, lambda m: bool(m.get("history"))  # sent again...
                              and m.get("text") == "still muted?")
        assert chat_lines(eve) == everything  # ...and shown once
        assert chat_lines(ann) == ["first line", "<i>third</i>", "after the reload"]
        say(eve, "after the restart", carol)
        say(ann, "me too", eve, carol)
        assert chat_lines(eve) == [*everything, "after the restart", "me too"]
        # the new connection was told Ann's mute: the spectator's live line never reached her
        assert not any(f.message.get("type") == "chat" and f.message.get("seat") is None
                       and not f.message.get("history") for f in frames.frames)
        for page in (ann, eve, carol):  # but the refused reconnections while it was down
            errors = [e for e in page.errors  # type: ignore[attr-defined]
                      if "ERR_CONNECTION_REFUSED" not in e]
            assert errors == [], errors
