"""Friends in a real browser (issue 31 point 7) against a real `ginrummy serve` process: two
accounts befriend each other on the friends page (the request appears live), each invites
the other to a table from the table's invite box; the invitation appears in the header, a
decline is told to the sender, an acceptance takes the friend to the table's seat form and
the friend sits down. axe finds nothing on the friends page, with an invitation in the
header too."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from web_support import ServerProcess, browser_missing, wait_for_first_state

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page, expect
from test_web_a11y import axe_violations
from test_web_players import fresh_name, no_errors, person, sign_up


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("friends") / "friends.db")
    process.start()
    try:
        yield process
    finally:
        process.stop()


def create_table(page: Page, *, public: bool) -> str:
    """A 2-player table made by the logged-in account through the lobby form."""
    page.goto("/")
    page.wait_for_selector("#create-form")
    page.select_option('#create-seats .seat-kind[data-seat="1"]', "")
    if not public:
        page.uncheck("#create-public")
    page.click("#create-submit")
    wait_for_first_state(page)
    match = re.search(r"[?&]table=([^&]+)", page.url)
    assert match, page.url
    return match.group(1)


def invite(page: Page, friend: str) -> None:
    """Invite ``friend`` from the table's invite box (once the box shows them online)."""
    button = page.locator(f'#invite-friends .friend-invite[data-name="{friend}"]')
    button.click()
    expect(page.locator(".toast", has_text=friend)).to_be_visible()


def test_two_friends_invite_each_other_to_a_table(server: ServerProcess,
                                                  browser: Browser) -> None:
    ann, bob = person(browser, server), person(browser, server)
    ann_name, bob_name = fresh_name("Ann"), fresh_name("Bob")
    sign_up(ann, ann_name)
    sign_up(bob, bob_name)

    # Ann asks on the friends page; Bob, on his, sees the request arrive and accepts it
    for page in (ann, bob):
        page.click("#nav-friends")
        page.wait_for_selector('#friends-page[data-loaded="true"]')
    ann.fill("#friend-name", bob_name)
    ann.click("#friend-add")
    ann.locator(f'#friend-outgoing .friend-row[data-name="{bob_name}"]').wait_for()
    request = bob.locator(f'#friend-incoming .friend-row[data-name="{ann_name}"]')
    request.locator(".friend-accept").click()
    bob.locator(f'#friend-list .friend-row[data-name="{ann_name}"][data-presence="online"]'
                ).wait_for()
    ann.locator(f'#friend-list .friend-row[data-name="{bob_name}"][data-presence="online"]'
                ).wait_for()
    assert axe_violations(ann) == []

    # Bob invites Ann to his public table; she declines, and he is told
    bob_table = create_table(bob, public=True)
    invite(bob, ann_name)
    invitation = ann.locator(f'#invitations .invitation[data-from="{bob_name}"]')
    invitation.wait_for()
    assert axe_violations(ann) == []  # the friends page with the header's invitation
    invitation.locator(".invitation-decline").click()
    expect(invitation).to_have_count(0)
    expect(bob.locator(".toast", has_text=f"{ann_name} declined")).to_be_visible()

    # Ann invites Bob to her private table (his presence: at a table); he accepts, lands on
    # her table's seat form with its invite code, and sits down
    ann_table = create_table(ann, public=False)
    assert ann_table != bob_table
    expect(ann.locator(f'#invite-friends .friend-row[data-name="{bob_name}"] .presence')
           ).to_have_text("At a table")
    invite(ann, bob_name)
    bob.locator(f'#invitations .invitation[data-from="{ann_name}"] .invitation-accept').click()
    bob.wait_for_url(re.compile(rf"table={ann_table}&invite="))
    bob.click("#join-submit")
    bob.wait_for_function("() => document.getElementById('table-page')?.dataset.seat === '1'")
    expect(ann.locator(".toast", has_text=f"{bob_name} accepted")).to_be_visible()
    expect(ann.locator("#opponents")).to_contain_text(bob_name)
    no_errors(ann, bob)
