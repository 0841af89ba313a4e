"""Bad arguments: one clear line on stderr, exit status 2, never a traceback (R7.2)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import Run

from ginrummy import __version__


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--preset", "nope"], "invalid choice: 'nope'"),
        (["play", "--players", "5", "--preset", "arena"], "players"),
        (["play", "--players", "3"], "single_hand"),
        (["play", "--knock-limit", "11"], "knock_limit"),
        (["play", "--set", "gin_bonus=-1"], "gin_bonus"),
        (["play", "--set", "frobnicate=1"], "no ruleset option 'frobnicate'"),
        (["play", "--set", "big_gin=maybe"], "expected true or false"),
        (["play", "--set", "stock_end=never"], "void_at_two/reshuffle"),
        (["play", "--set", "knock_limit"], "OPTION=VALUE"),
        (["play", "--set", "upcard_offer=dealer_first", "--preset", "arena",
          "--players", "3"], "upcard_offer"),
        (["play", "--opponent", "grandmaster"], "unknown player 'grandmaster'"),
        (["play", "--opponent", "simple,simple"],
         "1 seat needs 1 name, one per seat (e.g. simple); got 2"),
        (["play", "--pool", "100"], "single_hand"),
        (["play", "--preset", "arena", "--pool", "-5"], ">= 0"),
        (["play", "--preset", "arena", "--target", "200"], "no target"),
        (["play", "--record", "/nonexistent-dir/x.json"], "does not exist"),
        (["play", "--target", "abc"], "invalid int value"),
        (["simulate", "--players", "random"], "2 seats need 2 names"),
        (["simulate", "--players", "random,random", "--preset", "arena", "--set",
          "players=3"], "3 seats"),
        (["simulate", "--players", "random,alphago"], "unknown player 'alphago'"),
        (["simulate", "--hands", "0"], "at least one hand"),
        (["analyze", "As 2s 3s", "--knock-limit", "12"], "0 to 10"),
        (["analyze", "As 2s 3s", "--hand-size", "11"], "1 to 10"),
        (["replay", "/nonexistent-dir/game.ginrec.json"], "cannot read"),
        (["rules", "bogus"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_arguments_exit_2(cli: Callable[..., Run], argv: list[str], message: str) -> None:
    run = cli(*argv)
    assert run.code == 2, run.out
    assert message in run.err
    assert "Traceback" not in run.err
    assert "Traceback" not in run.out


def test_no_command_prints_help(cli: Callable[..., Run]) -> None:
    run = cli()
    assert run.code == 2
    assert "play" in run.err and "simulate" in run.err


def test_version(cli: Callable[..., Run]) -> None:
    run = cli("--version")
    assert run.code == 0
    assert __version__ in run.out


@pytest.mark.parametrize("command", [[], ["play"], ["analyze"], ["simulate"], ["replay"],
                                     ["rules"]])
def test_help(cli: Callable[..., Run], command: list[str]) -> None:
    run = cli(*command, "--help")
    assert run.code == 0
    assert "usage: ginrummy" in run.out


def test_rules_table(cli: Callable[..., Run]) -> None:
    run = cli("rules")
    assert run.code == 0
    for preset in ("classic", "playok", "arena", "eaai"):
        assert preset in run.out.splitlines()[0]
    run = cli("rules", "playok", "--set", "target=200")
    assert run.code == 0
    assert "match to 200" in run.out
    assert any(line.split()[:2] == ["upcard_offer", "dealer_first"]
               for line in run.out.splitlines())


def test_unwritable_record_folder_is_a_file(cli: Callable[..., Run], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    run = cli("play", "--record", str(blocker / "game.json"))
    assert run.code == 2
    assert "does not exist" in run.err


def test_five_players_named_as_the_problem(capsys: pytest.CaptureFixture[str]) -> None:
    from ginrummy.cli.main import main

    assert main(["play", "--players", "5"]) == 2
    err = capsys.readouterr().err
    assert "players: 5 players; 2 to 4 may play" in err and "Traceback" not in err
