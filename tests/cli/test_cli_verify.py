"""``ginrummy verify``: a record dealt from fair seeds is verified hand by hand; a changed card,
seed, commitment or reshuffle fails naming the hand; a record without fair data is not
verified (exit status 1); an unreadable record is a usage error (exit status 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import Run

from fair_helpers import fair_match_record, hand_seeds
from ginrummy import fair
from ginrummy.bots import make_bot
from ginrummy.gameloop import play_match
from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset


@pytest.fixture(scope="module")
def fair_record() -> dict[str, Any]:
    """A whole match of random bots, every deal and reshuffle from seeds."""
    record = fair_match_record(8, target=25)
    assert record["result"] is not None and len(record["hands"]) >= 3
    assert any(a.startswith("reshuffle ") for a in record["hands"][1]["actions"])
    return record


def _write(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "game.ginrec.json"
    path.write_text(json.dumps(data))
    return str(path)


def _copy(record: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(record))
    return data


def _lines(run: Run) -> list[str]:
    return run.out.splitlines()


def test_a_fair_record_is_verified_hand_by_hand(cli: Callable[..., Run], tmp_path: Path,
                                                fair_record: dict[str, Any]) -> None:
    run = cli("verify", _write(tmp_path, fair_record))
    count = len(fair_record["hands"])
    assert run.code == 0, run.out
    assert _lines(run) == [f"hand {h}: verified" for h in range(1, count + 1)] + [
        f"{count} of {count} hands verified"]


def test_one_changed_card_fails_naming_the_hand(cli: Callable[..., Run], tmp_path: Path,
                                                fair_record: dict[str, Any]) -> None:
    data = _copy(fair_record)
    cards = data["hands"][2]["deck"].split()
    cards[30], cards[31] = cards[31], cards[30]  # still 52 cards: only the order is wrong
    data["hands"][2]["deck"] = " ".join(cards)
    run = cli("verify", _write(tmp_path, data))
    assert run.code == 1
    lines = _lines(run)
    assert lines[2] == (f"hand 3: NOT verified: the deck differs from position 31: played "
                        f"{cards[30]}, the seeds give {cards[31]}")
    assert lines[0] == "hand 1: verified" and lines[1] == "hand 2: verified"
    assert lines[-1].endswith("hands verified: FAILED")
    # a card replaced by another one: the deck is no longer 52 distinct cards
    cards[5] = cards[6]
    data["hands"][2]["deck"] = " ".join(cards)
    run = cli("verify", _write(tmp_path, data))
    assert run.code == 1
    assert _lines(run)[2].startswith("hand 3: NOT verified: bad deal or actions: duplicate card")


@pytest.mark.parametrize(("field", "message"), [
    ("server_seed", "the commitment does not match the revealed server seed"),
    ("commitment", "the commitment does not match the revealed server seed"),
    ("client_seed", "the deck differs from position "),
    ("hidden", "the server seed is not revealed"),
    ("missing seat", "no client seed for seat 1"),
])
def test_altered_seeds_fail_naming_the_hand(cli: Callable[..., Run], tmp_path: Path,
                                            fair_record: dict[str, Any], field: str,
                                            message: str) -> None:
    data = _copy(fair_record)
    seeds = data["hands"][1]["fair"]
    if field == "server_seed":
        seeds["server_seed"] = seeds["server_seed"][:-2] + (
            "00" if seeds["server_seed"][-2:] != "00" else "01")
    elif field == "commitment":
        seeds["commitment"] = seeds["commitment"][::-1]
    elif field == "client_seed":
        seeds["client_seeds"][0] = "00" + seeds["client_seeds"][0][2:] if not seeds[
            "client_seeds"][0].startswith("00") else "ff" + seeds["client_seeds"][0][2:]
    elif field == "hidden":
        seeds["server_seed"] = None
    else:
        seeds["client_seeds"][1] = None
    run = cli("verify", _write(tmp_path, data))
    assert run.code == 1
    line = _lines(run)[1]
    assert line.startswith("hand 2: NOT verified: ") and message in line
    assert all(x.endswith(": verified") for i, x in enumerate(_lines(run)[:-1]) if i != 1)


def test_a_changed_reshuffle_fails(cli: Callable[..., Run], tmp_path: Path,
                                   fair_record: dict[str, Any]) -> None:
    data = _copy(fair_record)
    actions = data["hands"][1]["actions"]
    at = next(i for i, a in enumerate(actions) if a.startswith("reshuffle "))
    cards = actions[at].split()[1:]
    cards[0], cards[1] = cards[1], cards[0]
    actions[at] = "reshuffle " + " ".join(cards)
    run = cli("verify", _write(tmp_path, data))
    assert run.code == 1
    assert _lines(run)[1] == (f"hand 2: NOT verified: reshuffle 1 differs from position 1: "
                              f"played {cards[0]}, the seeds give {cards[1]}")


def test_a_fair_deck_whose_actions_do_not_replay_fails(cli: Callable[..., Run],
                                                       tmp_path: Path,
                                                       fair_record: dict[str, Any]) -> None:
    data = _copy(fair_record)
    data["hands"][0]["actions"][0] = "knock As"
    run = cli("verify", _write(tmp_path, data))
    assert run.code == 1
    assert _lines(run)[0].startswith("hand 1: NOT verified: the hand does not replay: ")


def test_a_record_without_fair_data_is_not_verified(cli: Callable[..., Run],
                                                    tmp_path: Path) -> None:
    match = play_match(Ruleset.preset("classic", target=25),
                       [make_bot("simple", 1), make_bot("simple", 2)], seed=3)
    data = GameRecord.from_match(match, ["a", "b"]).to_json()
    run = cli("verify", _write(tmp_path, data))
    assert run.code == 1
    hands = len(data["hands"])
    assert _lines(run)[:hands] == [
        f"hand {h}: NOT verified: no fair data: this hand was not dealt from committed seeds"
        for h in range(1, hands + 1)]
    assert _lines(run)[-1] == f"0 of {hands} hands verified: FAILED"


def test_json_output(cli: Callable[..., Run], tmp_path: Path,
                     fair_record: dict[str, Any]) -> None:
    data = _copy(fair_record)
    data["hands"][0]["fair"]["commitment"] = "0" * 64
    path = _write(tmp_path, data)
    run = cli("verify", path, "--json")
    assert run.code == 1
    report = json.loads(run.out)
    assert report["record"] == path and report["verified"] is False
    first, second = report["hands"][:2]
    assert first == {"hand": 1, "verified": False, "commitment": "0" * 64, "problems": [
        "the commitment does not match the revealed server seed"], "scheme": None,
        "server_word": False, "weaknesses": []}
    assert second["verified"] is True and second["problems"] == []
    assert second["scheme"] == 2 and second["server_word"] is False
    assert report["server_word_hands"] == [] and report["scheme1_hands"] == []
    assert second["commitment"] == fair_record["hands"][1]["fair"]["commitment"]
    run = cli("verify", _write(tmp_path, fair_record), "--json")
    assert run.code == 0 and json.loads(run.out)["verified"] is True


def test_records_keep_fair_data_through_save_and_load(tmp_path: Path,
                                                      fair_record: dict[str, Any]) -> None:
    record = GameRecord.from_json(fair_record)
    path = tmp_path / "again.ginrec.json"
    record.save(path)
    again = GameRecord.load(path).to_json()
    assert [h["fair"] for h in again["hands"]] == [h["fair"] for h in fair_record["hands"]]
    record.replay()  # the fair deals replay as any deals


@pytest.mark.parametrize(("content", "message"), [
    ("{", "is not JSON"),
    ('{"format": "pgn"}', "not a ginrummy record"),
])
def test_an_unreadable_record_is_a_usage_error(cli: Callable[..., Run], tmp_path: Path,
                                               content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    run = cli("verify", str(path))
    assert run.code == 2
    assert run.err.startswith("ginrummy verify: error:") and message in run.err
    run = cli("verify", str(tmp_path / "missing.json"))
    assert run.code == 2 and "cannot read" in run.err


def test_the_installed_command(tmp_path: Path, fair_record: dict[str, Any]) -> None:
    path = _write(tmp_path, fair_record)
    done = subprocess.run([sys.executable, "-m", "ginrummy.cli.main", "verify", path],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "hand 1: verified"


def _doc_output(command: str) -> list[str]:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "fair.md").read_text(encoding="utf-8")
    block = doc.split(f"```console\n$ {command}\n", 1)[1].split("```", 1)[0]
    return block.splitlines()


def test_the_doc_examples_are_this_commands_output(cli: Callable[..., Run], tmp_path: Path,
                                                   fair_record: dict[str, Any]) -> None:
    run = cli("verify", _write(tmp_path, fair_record))
    assert _lines(run) == _doc_output("ginrummy verify game.ginrec.json")
    data = _copy(fair_record)  # the tampering the doc describes
    cards = data["hands"][1]["deck"].split()
    cards[13], cards[40] = cards[40], cards[13]
    data["hands"][1]["deck"] = " ".join(cards)
    data["hands"][2]["fair"]["server_seed"] = "00" + data["hands"][2]["fair"]["server_seed"][2:]
    del data["hands"][3]["fair"]
    run = cli("verify", _write(tmp_path, data))
    assert run.code == 1
    assert _lines(run) == _doc_output("ginrummy verify tampered.ginrec.json")


# ----------------------------------------------------------------- a dishonest server (issue 26)
def ground_seeds(rng: Any, players: int) -> tuple[bytes, list[bytes], tuple[bool, ...]]:
    """A dishonest server's hand: it knows its seed and seat 0's, and grinds seat 1's
    "server-made" seed until the deal gives seat 1 (the dealer's opponent when seat 0
    deals... whoever sits at odd deck positions) all four aces among its ten cards."""
    server_seed, seeds, made = hand_seeds(rng, players)
    for tries in range(200_000):
        candidate = tries.to_bytes(32, "big")
        dealt = fair.deck(server_seed, [seeds[0], candidate])
        if sum(card % 13 == 0 for card in dealt[0:20:2]) == 4:
            return server_seed, [seeds[0], candidate], made
    raise AssertionError("no ground seed found")


def test_a_ground_server_made_seed_is_rejected(cli: Callable[..., Run],
                                               tmp_path: Path) -> None:
    record = fair_match_record(8, target=25, max_hands=1, make_seeds=ground_seeds)
    entry = record["hands"][0]
    assert entry["fair"]["server_made"] == [False, True]
    assert sum(c.startswith("A") for c in entry["deck"].split()[0:20:2]) == 4
    run = cli("verify", _write(tmp_path, record))
    assert run.code == 1
    assert ("hand 1: NOT verified: the server-made seed of seat 1 is not the one its server "
            "seed gives (HMAC-SHA256 of seat 1): the server could have chosen it") in run.out
    # the same record under scheme 1 passes its rules, and says what they leave unproven
    del entry["fair"]["scheme"]
    run = cli("verify", _write(tmp_path, record))
    assert run.code == 0, run.out
    assert _lines(run)[0] == ("hand 1: verified (scheme 1: its server-made seeds are not "
                              "derived from the committed server seed, so the server could "
                              "have chosen them after seeing the players' seeds) (scheme 1: "
                              "the first dealer was drawn by the server, not from the seeds)")
    assert _lines(run)[-1] == "1 of 1 hands verified, 1 by the weaker scheme 1 rules"
    report = json.loads(cli("verify", _write(tmp_path, record), "--json").out)
    assert report["scheme1_hands"] == [1] and report["hands"][0]["scheme"] == 1
    assert len(report["hands"][0]["weaknesses"]) == 2


def test_three_seeds_for_two_seats_are_rejected(cli: Callable[..., Run],
                                                tmp_path: Path) -> None:
    def three(rng: Any, players: int) -> tuple[bytes, list[bytes], tuple[bool, ...]]:
        server_seed, seeds, made = hand_seeds(rng, players)
        return server_seed, [*seeds, rng.randbytes(32)], (*made, False)

    record = fair_match_record(8, target=25, max_hands=1, make_seeds=three)
    assert len(record["hands"][0]["fair"]["client_seeds"]) == 3
    run = cli("verify", _write(tmp_path, record))
    assert run.code == 1
    assert _lines(run)[0] == ("hand 1: NOT verified: 3 client seeds for 2 seats: each seat "
                              "gives exactly one")
    del record["hands"][0]["fair"]["scheme"]  # one seed per seat holds for scheme 1 too
    assert cli("verify", _write(tmp_path, record)).code == 1


def test_a_changed_first_dealer_is_rejected(cli: Callable[..., Run], tmp_path: Path) -> None:
    honest = fair_match_record(8, target=25, max_hands=1)
    drawn = honest["first_dealer"]
    record = fair_match_record(8, target=25, max_hands=1, first_dealer=1 - drawn)
    assert record["hands"][0]["fair"] == honest["hands"][0]["fair"]  # the same seeds
    run = cli("verify", _write(tmp_path, record))
    assert run.code == 1
    assert _lines(run)[0] == (f"hand 1: NOT verified: the first dealer is seat {1 - drawn}, "
                              f"the seeds give seat {drawn}")
    assert cli("verify", _write(tmp_path, honest)).code == 0


def test_a_hand_of_server_made_seeds_only_rests_on_the_servers_word(
        cli: Callable[..., Run], tmp_path: Path) -> None:
    def computers(rng: Any, players: int) -> tuple[bytes, list[bytes], tuple[bool, ...]]:
        server_seed = rng.randbytes(32)
        return (server_seed, [fair.server_made_seed(server_seed, s) for s in range(players)],
                (True,) * players)

    record = fair_match_record(8, target=25, max_hands=2, make_seeds=computers)
    run = cli("verify", _write(tmp_path, record))
    assert run.code == 0, run.out
    assert _lines(run) == [
        "hand 1: verified (on the server's word: the server made every client seed)",
        "hand 2: verified (on the server's word: the server made every client seed)",
        "2 of 2 hands verified, 2 on the server's word"]
    report = json.loads(cli("verify", _write(tmp_path, record), "--json").out)
    assert report["server_word_hands"] == [1, 2]
    assert [h["server_word"] for h in report["hands"]] == [True, True]


def test_the_doc_example_of_weaker_verdicts(cli: Callable[..., Run], tmp_path: Path) -> None:
    """docs/fair.md's example: hand 1 on the server's word, hand 2 by the scheme 1 rules."""
    hands = iter(range(100))

    def mixed(rng: Any, players: int) -> tuple[bytes, list[bytes], tuple[bool, ...]]:
        if next(hands) == 0:  # every seed server-made
            server_seed = rng.randbytes(32)
            return (server_seed, [fair.server_made_seed(server_seed, s) for s in range(2)],
                    (True, True))
        return hand_seeds(rng, players)

    record = fair_match_record(8, target=25, max_hands=2, make_seeds=mixed)
    del record["hands"][1]["fair"]["scheme"]
    run = cli("verify", _write(tmp_path, record))
    assert run.code == 0, run.out
    doc = (Path(__file__).resolve().parents[2] / "docs" / "fair.md").read_text(encoding="utf-8")
    block = doc.split("```text\nhand 1: verified (on the server's word", 1)[1]
    expected = ("hand 1: verified (on the server's word" + block.split("```", 1)[0]).splitlines()
    assert _lines(run) == expected
