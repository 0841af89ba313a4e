"""Password changes (issue 25, 4): each counts against the account's and the address's
attempt limits, a new password equal to the old one is refused, and their Argon2 work waits in
its own bounded pool, so a log-in goes through while changes hold every thread they may."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from server_helpers import LiveServer
from test_accounts import PASSWORD, Browser

from ginrummy.server.players import sessions

NEW = "a brand new password"


def _change(browser: Browser, old: str, new: str) -> tuple[int, dict[str, object]]:
    answer = browser.post("/api/account/password", {"old": old, "new": new})
    return answer.status_code, answer.json() if answer.content else {}


def test_a_new_password_equal_to_the_old_is_refused(server: LiveServer) -> None:
    ann, other = Browser(server), Browser(server)
    ann.signup("Ann")
    other.token = None
    assert other.login("Ann").status_code == 200  # a second session
    status, body = _change(ann, PASSWORD, PASSWORD)
    assert status == 400
    error = body["error"]
    assert isinstance(error, dict) and error["field"] == "new"
    assert "the old one" in str(error["message"])
    assert other.me().status_code == 200, "a refused change ended another session"
    assert ann.login("Ann", PASSWORD).status_code == 200
    for browser in (ann, other):
        browser.close()


def test_changes_are_limited_per_account(make_server: Callable[..., LiveServer]) -> None:
    server = make_server(login_failures_per_name=2)
    ann = Browser(server)
    ann.signup("Ann")
    assert _change(ann, PASSWORD, NEW)[0] == 200
    assert _change(ann, NEW, PASSWORD)[0] == 200
    status, body = _change(ann, PASSWORD, NEW)
    assert status == 429 and "password changes for this account" in str(body["error"])
    assert int(ann.answers[-1].headers["retry-after"]) <= server.settings.login_window_seconds
    # the refused change changed nothing, and its owner still logs in
    assert ann.login("Ann", PASSWORD).status_code == 200
    ann.close()


def test_changes_count_against_the_address(make_server: Callable[..., LiveServer]) -> None:
    server = make_server(login_attempts_per_address=3)
    ann = Browser(server)
    ann.signup("Ann")  # the first attempt of this address
    assert _change(ann, PASSWORD, NEW)[0] == 200
    assert _change(ann, NEW, PASSWORD)[0] == 200
    status, body = _change(ann, PASSWORD, NEW)
    assert status == 429 and "from this address" in str(body["error"])
    refused = ann.login("Ann", PASSWORD)
    assert refused.status_code == 429  # a log-in from there waits too
    ann.close()


@pytest.fixture
def held_changes(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event,
                                                                      list[str]]]:
    """Old-password checks of ``held ...`` passwords wait for the event (released at the
    end); the names of the threads that ran them are listed."""
    release = threading.Event()
    entered: list[str] = []
    check = sessions.password_ok

    def held(stored_hash: str | None, password: str) -> bool:
        if password.startswith("held "):
            entered.append(threading.current_thread().name)
            release.wait(60)
        return check(stored_hash, password)

    monkeypatch.setattr(sessions, "password_ok", held)
    yield release, entered
    release.set()


def test_a_log_in_goes_through_while_password_changes_hold_their_threads(
        make_server: Callable[..., LiveServer],
        held_changes: tuple[threading.Event, list[str]]) -> None:
    release, entered = held_changes
    server = make_server(signups_per_address=20)
    count = sessions.HASH_THREADS + 1
    changers = [Browser(server) for _ in range(count)]
    for number, browser in enumerate(changers):
        browser.signup(f"Changer{number}", f"held password {number}")
    victim = Browser(server)
    victim.signup("Victim")
    victim.token = None
    with ThreadPoolExecutor(max_workers=count) as pool:
        changes = [pool.submit(_change, b, f"held password {n}", f"{NEW} {n}")
                   for n, b in enumerate(changers)]
        deadline = time.monotonic() + 30
        while not entered and time.monotonic() < deadline:
            time.sleep(0.01)
        assert entered, "no password change reached its check"
        time.sleep(1)  # the other changes reach the pool meanwhile
        victim.http.timeout = 20  # a log-in stuck behind the changes fails the test
        assert victim.login("Victim").status_code == 200
        assert all(not c.done() for c in changes), "a change did not wait for its check"
        held_threads = set(entered)
        release.set()
        assert [c.result()[0] for c in changes] == [200] * count
    assert all(name.startswith("argon2-other") for name in held_threads), held_threads
    for browser in (*changers, victim):
        browser.close()
