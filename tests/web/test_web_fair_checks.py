"""The browser's check of a fair deal (issue 26 point 4; docs/fair.md, *In the browser*):
``js/fair.js`` is fed the states a server would send of one hand, built here with the engine
from known seeds, and checks every card the page was shown against the deck of the seeds.
An honest hand is verified and the mark lists what was checked; a dishonest server's hands
are rejected: a substituted stock card, a ground server-made seed, three seeds for two
seats, a changed first dealer; a page opened during the hand says it could not check."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import ServerProcess, browser_missing, new_page, running_server

from ginrummy import fair
from ginrummy.actions import DrawStock, Knock
from ginrummy.engine import CHANCE
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.views import view

if browser_missing():
    pytest.skip(browser_missing() or "", allow_module_level=True)

from playwright.sync_api import Browser, Page

SERVER_SEED = bytes(range(32))
RULES = Ruleset.preset("classic", stock_end="reshuffle")
"""The players below never knock: the hand runs to the stock's end twice (two reshuffles,
many stock draws), then is void."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("fairchecks")) as process:
        yield process


@pytest.fixture()
def page(server: ServerProcess, browser: Browser) -> Iterator[Page]:
    context, opened = new_page(browser, server.base)
    opened.goto("/")
    opened.wait_for_selector("#nickname")  # the app is up: its messages are loaded
    opened.evaluate("""async () => {
        // the module the app itself loaded (its versioned path): one i18n, its messages loaded
        const app = document.querySelector('script[type="module"]').src;
        window.__fairUrl = app.replace(/app\\.js$/, "fair.js");
        const m = await import(window.__fairUrl);
        window.__sent = [];
        const send = (msg) => { window.__sent.push(msg); return true; };
        window.__deals = new m.FairDeals({ send });
    }""")
    yield opened
    assert opened.errors == [], opened.errors  # type: ignore[attr-defined]
    context.close()


def block(seeds: list[bytes | None], made: list[bool], revealed: bool,
          server_seed: bytes = SERVER_SEED) -> dict[str, Any]:
    """The state's fair block of hand 1."""
    return {"hand": 1, "scheme": 2, "commitment": fair.commitment(server_seed),
            "client_seeds": [None if s is None else s.hex() for s in seeds],
            "server_made": made, "server_seed": server_seed.hex() if revealed else None}


def hand_states(seeds: list[bytes], made: list[bool], seat: int | None,
                first_dealer: int | None = None) -> list[dict[str, Any]]:
    """The states a server sends ``seat`` (None: a spectator) of one hand dealt from
    ``seeds``: one after the deal and after every move; the last reveals the server seed."""
    players = RULES.players
    dealer = fair.first_dealer(SERVER_SEED, seeds, players) if first_dealer is None \
        else first_dealer
    match = Match(RULES, first_dealer=dealer)
    hand = match.start_hand(fair.deck(SERVER_SEED, seeds))
    rng = random.Random(7)
    states = []
    while True:
        over = hand.over
        states.append({"type": "state", "seat": seat, "view": view(match, seat).to_dict(),
                       "fair": block(list(seeds), made, revealed=over)})
        if over:
            return states
        if hand.to_move == CHANCE:
            match.apply(fair.reshuffle_for(hand, SERVER_SEED, seeds))
        else:
            moves = [a for a in hand.legal_actions() if not isinstance(a, Knock)]
            stock = [a for a in moves if isinstance(a, DrawStock)]  # the stock runs out:
            move = stock[0] if stock and rng.random() < 0.8 else rng.choice(moves)  # an end
            match.apply(move, hand.to_move)


def feed(page: Page, states: list[dict[str, Any]]) -> dict[str, Any]:
    """Give the page's FairDeals these states; its verdict on the last one's hand.

    The states go as one JSON string: Playwright's own serialisation of a 1.5 MB structure
    took 20 s on the loaded test machine, a string well under a second."""
    return dict(page.evaluate("""async (text) => {
        const states = JSON.parse(text);
        const deals = window.__deals;
        for (const state of states) deals.receive(state);
        const last = states[states.length - 1];
        const key = `${last.fair.hand}:${last.fair.commitment}`;
        for (let i = 0; i < 400; i += 1) {
            const result = deals.results.get(key);
            if (result && !result.pending) break;
            await new Promise((resolve) => setTimeout(resolve, 25));
        }
        const mark = deals.mark(last);
        return { result: deals.results.get(key), classes: mark.className,
                 verdict: mark.querySelector(".fair-verdict").textContent,
                 checked: [...mark.querySelectorAll(".fair-checked li")]
                     .map((li) => li.textContent),
                 serverWord: Boolean(mark.querySelector(".fair-server-word")) };
    }""", json.dumps(states)))


def commit_then_seed(page: Page) -> tuple[list[bytes], list[bool]]:
    """The commitment reaches the page before any card; it sends its seed for seat 0; seat
    1's is server-made (derived). The hand's seeds."""
    derived = fair.server_made_seed(SERVER_SEED, 1)
    page.evaluate("(state) => window.__deals.receive(state)",
                  {"type": "state", "seat": 0, "view": None,
                   "fair": block([None, derived], [False, True], revealed=False)})
    sent = page.evaluate("() => window.__sent")
    assert [m["type"] for m in sent] == ["seed"] and sent[0]["hand"] == 1
    return [bytes.fromhex(sent[0]["seed"]), derived], [False, True]


def test_an_honest_hand_is_verified_card_by_card(page: Page) -> None:
    seeds, made = commit_then_seed(page)
    states = hand_states(seeds, made, seat=0)
    final = states[-1]["view"]
    assert final["reshuffles"] == 2 and any(e["card"] for e in final["log"])
    answer = feed(page, states)
    assert answer["result"]["verified"] is True, answer
    assert "verified" in answer["classes"].split()
    assert answer["verdict"] == "Deal of hand 1 verified"
    draws = sum(1 for e in final["log"] if e["card"] is not None)
    assert answer["checked"][:4] == [
        "the commitment, seen before the cards",
        "one seed per seat, each server-made seed derived from the server's seed",
        "your seed, used as sent", "the first dealer, drawn from the seeds"]
    assert "your cards as dealt" in answer["checked"] and "the upcard" in answer["checked"]
    assert f"stock draws you saw: {draws}" in answer["checked"]
    assert f"reshuffles: {final['reshuffles']}" in answer["checked"]


def substitute_stock_card(states: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A dishonest server's hand: the first card seat 0 drew from the stock is replaced, in
    its log and its hand from then on, by a card that nobody holds at that time."""
    at = next(i for i, e in enumerate(states[-1]["view"]["log"]) if e["card"] is not None)
    real = states[-1]["view"]["log"][at]["card"]
    state = states[at + 1]["view"]
    held = {c for s in state["seats"] for c in (s["cards"] or [])} | set(state["hand"])
    fake = next(f"{r}{s}" for s in "shdc" for r in "A23456789TJQK"
                if f"{r}{s}" not in held and f"{r}{s}" != state["top_discard"])
    forged = []
    for state in states:
        state = {**state, "view": dict(state["view"])}
        v = state["view"]
        v["log"] = [{**e, "card": fake} if i == at else e for i, e in enumerate(v["log"])]
        v["hand"] = [fake if c == real else c for c in v["hand"]]
        forged.append(state)
    return forged


def test_a_substituted_stock_card_is_rejected(page: Page) -> None:
    seeds, made = commit_then_seed(page)
    answer = feed(page, substitute_stock_card(hand_states(seeds, made, seat=0)))
    assert answer["result"]["verified"] is False
    assert "failed" in answer["classes"].split()
    assert answer["verdict"] == ("Deal of hand 1 NOT verified: a card drawn from the stock is "
                                 "not the one the deck gives")


def test_a_ground_server_made_seed_is_rejected(page: Page) -> None:
    seeds, made = commit_then_seed(page)
    ground = [seeds[0], random.Random(1).randbytes(32)]  # not derived from the server seed
    answer = feed(page, hand_states(ground, made, seat=0))
    assert answer["verdict"] == ("Deal of hand 1 NOT verified: a server-made seed is not the "
                                 "one the server's seed gives")


def test_three_seeds_for_two_seats_are_rejected(page: Page) -> None:
    seeds, _made = commit_then_seed(page)
    three = [*seeds, random.Random(2).randbytes(32)]
    answer = feed(page, hand_states(three, [False, True, False], seat=0))
    assert answer["verdict"] == ("Deal of hand 1 NOT verified: the seeds do not match the "
                                 "seats one to one")


def test_a_changed_first_dealer_is_rejected(page: Page) -> None:
    seeds, made = commit_then_seed(page)
    drawn = fair.first_dealer(SERVER_SEED, seeds, 2)
    answer = feed(page, hand_states(seeds, made, seat=0, first_dealer=1 - drawn))
    assert answer["verdict"] == ("Deal of hand 1 NOT verified: the first dealer is not the "
                                 "one the seeds give")


def test_a_page_opened_during_the_hand_says_it_could_not_check(page: Page) -> None:
    seeds = [random.Random(3).randbytes(32), fair.server_made_seed(SERVER_SEED, 1)]
    states = hand_states(seeds, [False, True], seat=0)
    answer = feed(page, states[len(states) // 2:])  # no commitment seen before the cards
    assert answer["result"]["verified"] is False
    assert "unchecked" in answer["classes"].split() and "verified" not in answer["classes"]
    assert answer["verdict"] == (
        "Deal of hand 1 not checked: this page was opened after the deal, so it did not see "
        "the commitment before the cards (what it was shown agrees with the seeds)")
    # a substituted stock card is still caught there: the log covers the whole hand
    forged = substitute_stock_card(states)
    page.evaluate("""async () => {
        const m = await import(window.__fairUrl);
        window.__deals = new m.FairDeals({ send: () => true });
    }""")
    answer = feed(page, forged[len(forged) // 2:])
    assert "failed" in answer["classes"].split()


def test_a_spectator_checks_the_public_cards(page: Page) -> None:
    seeds = [random.Random(4).randbytes(32), fair.server_made_seed(SERVER_SEED, 1)]
    states = hand_states(seeds, [False, True], seat=None)
    commit = {"type": "state", "seat": None, "view": None,
              "fair": block(seeds, [False, True], revealed=False)}
    answer = feed(page, [commit, *states])
    assert answer["verdict"] == "Deal of hand 1 verified", answer
    assert "your cards as dealt" not in answer["checked"] and "the upcard" in answer["checked"]
    assert any(line.startswith("discards and cards taken: ") for line in answer["checked"])


def test_server_made_seeds_only_are_marked_as_the_servers_word(page: Page) -> None:
    seeds = [fair.server_made_seed(SERVER_SEED, s) for s in range(2)]
    commit = {"type": "state", "seat": None, "view": None,
              "fair": block(seeds, [True, True], revealed=False)}
    answer = feed(page, [commit, *hand_states(seeds, [True, True], seat=None)])
    assert answer["verdict"] == "Deal of hand 1 verified" and answer["serverWord"] is True
