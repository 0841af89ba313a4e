"""R7. Options and presets: the table, the two arena sites, overrides, refused combinations."""

from __future__ import annotations

import pytest

from ginrummy.engine import Hand
from ginrummy.match import Match
from ginrummy.rules import OPTION_NAMES, PRESETS, Ruleset, RulesetError

COMMON = dict(
    knock_limit=10, oklahoma_spades_double=False, oklahoma_knock_limit=False, big_gin=False,
    big_gin_bonus=31, next_dealer="alternate", no_rediscard_of_taken_card=True,
    discard_history_visible=False, melds_after_gin=False, openspiel_limits=False,
)
TABLE = {
    "classic": COMMON | dict(
        players=2, hand_size=10, format="match", target=100, upcard_offer="none",
        stock_end="void_at_two", gin_bonus=20, undercut_bonus=10, undercut_ties="defender",
        layoff_chain="own", game_bonus=100, line_bonus=20, shutout_bonus=100,
    ),
    "playok": COMMON | dict(
        players=2, hand_size=10, format="match", target=100, upcard_offer="dealer_first",
        stock_end="void_at_two", gin_bonus=25, undercut_bonus=20, undercut_ties="defender",
        layoff_chain="own", game_bonus=0, line_bonus=0, shutout_bonus=0,
    ),
    "arena": COMMON | dict(
        players=2, hand_size=10, format="single_hand", target=None, upcard_offer="none",
        stock_end="reshuffle", max_reshuffles=2, gin_bonus=25, undercut_bonus=20,
        undercut_ties="strict", layoff_chain="none", knocker_undercut_penalty=10,
        payout="linear_cap", payout_threshold=25,
    ),
    "eaai": COMMON | dict(
        players=2, hand_size=10, format="match", target=100, upcard_offer="non_dealer_first",
        stock_end="void_at_two", gin_bonus=25, undercut_bonus=25, undercut_ties="defender",
        layoff_chain="own", game_bonus=0, line_bonus=0, shutout_bonus=0,
    ),
}


# --------------------------------------------------------------------------- R7 table


@pytest.mark.parametrize("name", sorted(TABLE))
def test_R7_presets_follow_the_table(name):
    rules = Ruleset.preset(name)
    options = rules.to_dict()
    for option, value in TABLE[name].items():
        assert options[option] == value, option
    assert rules.name == name
    assert set(PRESETS) == set(TABLE)


# the values column of the R7 table, as the schema states it (and validation enforces it)
VALUES = {
    "players": "2-4", "hand_size": "1-10", "format": "match, single_hand", "target": "1-10000",
    "upcard_offer": "none, non_dealer_first, dealer_first",
    "stock_end": "void_at_two, reshuffle, wall",
    "max_reshuffles": "0-10", "knock_limit": "0-10", "gin_bonus": "0-1000",
    "undercut_bonus": "0-1000", "undercut_ties": "defender, strict",
    "layoff_chain": "own, none, two",
    "oklahoma_spades_double": "on/off", "oklahoma_knock_limit": "on/off", "big_gin": "on/off",
    "big_gin_bonus": "0-1000", "next_dealer": "alternate, winner, loser", "game_bonus": "0-1000",
    "line_bonus": "0-1000", "shutout_bonus": "0-1000", "knocker_undercut_penalty": "0-1000",
    "payout": "linear_cap", "payout_threshold": "1-1000", "no_rediscard_of_taken_card": "on/off",
    "discard_history_visible": "on/off", "melds_after_gin": "on/off", "openspiel_limits": "on/off",
}
TWO_PLAYERS_ONLY = {"format": ["match"], "upcard_offer": ["dealer_first"],
                    "next_dealer": ["winner", "loser"]}
MATCH_ONLY = {"target", "next_dealer", "game_bonus", "line_bonus", "shutout_bonus"}
SINGLE_HAND_ONLY = {"knocker_undercut_penalty", "payout", "payout_threshold"}


def _values(entry):
    if entry["type"] == "bool":
        return "on/off"
    if entry["type"] == "enum":
        return ", ".join(entry["values"])
    return f"{entry['min']}-{entry['max']}" if "max" in entry else f">= {entry['min']}"


def test_R7_the_schema_states_the_table_values():
    schema = Ruleset.schema()
    assert {e["name"]: _values(e) for e in schema} == VALUES
    assert {e["name"]: [v for v, counts in e["value_players"].items() if counts == [2]]
            for e in schema if "value_players" in e} == TWO_PLAYERS_ONLY
    assert {e["name"] for e in schema if e["formats"] == ["match"]} == MATCH_ONLY
    assert {e["name"] for e in schema if e["formats"] == ["single_hand"]} == SINGLE_HAND_ONLY
    assert [e["name"] for e in schema if e.get("nullable")] == ["hand_size", "target"]


def test_R7_preset_names_and_variants_from_the_table():
    assert Ruleset.preset("ARENA").name == "arena"
    with pytest.raises(RulesetError) as info:
        Ruleset.preset("bridge")
    assert info.value.option == "preset"
    # playok: target 100, 200 or 500; Oklahoma selectable
    for target in (100, 200, 500):
        assert Ruleset.preset("playok", target=target).target == target
    assert Ruleset.preset("playok", oklahoma_spades_double=True).oklahoma_spades_double
    # arena: 2 to 4 players; 7 cards with 3-4
    for players, size in ((2, 10), (3, 7), (4, 7)):
        rules = Ruleset.preset("arena", players=players)
        assert (rules.players, rules.cards_per_hand) == (players, size)
    assert Ruleset.preset("arena", players=4).replace(players=2).cards_per_hand == 10


# --------------------------------------------------------------------------- R7.1


def test_R7_1_seed_003_site_is_arena_with_two_overrides():
    site = Ruleset.preset("arena", undercut_ties="defender", payout_threshold=50)
    arena = Ruleset.preset("arena")
    diff = {k for k, v in site.to_dict().items() if arena.to_dict()[k] != v}
    assert diff == {"undercut_ties", "payout_threshold"}
    assert site.undercut_ties == "defender" and site.payout_threshold == 50
    # both sites play (the scoring differences are tested in R6)
    for rules in (arena, site):
        for players in (2, 3, 4):
            match = Match(rules.replace(players=players), seed=players, pool_cents=100)
            assert match.start_hand().rules.payout_threshold == rules.payout_threshold


def test_R7_1_eaai_is_the_research_rule_set():
    rules = Ruleset.preset("eaai")
    hand = Hand.deal(rules, dealer=0, seed=1)
    assert hand.phase == "offer" and hand.to_move == 1  # non-dealer first offer
    assert (rules.gin_bonus, rules.undercut_bonus, rules.knock_limit) == (25, 25, 10)


# --------------------------------------------------------------------------- R7.2

ALTERNATIVES = {
    "players": 3, "hand_size": 8, "format": "single_hand", "target": 250,
    "upcard_offer": "non_dealer_first", "stock_end": "reshuffle", "max_reshuffles": 0,
    "knock_limit": 0, "gin_bonus": 0, "undercut_bonus": 0, "undercut_ties": "strict",
    "layoff_chain": "none", "oklahoma_spades_double": True, "oklahoma_knock_limit": True,
    "big_gin": True, "big_gin_bonus": 50, "next_dealer": "loser", "game_bonus": 7,
    "line_bonus": 3, "shutout_bonus": 0, "knocker_undercut_penalty": 0,
    "payout": "linear_cap", "payout_threshold": 1, "no_rediscard_of_taken_card": False,
    "discard_history_visible": True, "melds_after_gin": True, "openspiel_limits": True,
}


@pytest.mark.parametrize("option", sorted(OPTION_NAMES))
def test_R7_2_any_option_can_be_overridden_on_a_preset(option):
    value = ALTERNATIVES[option]
    base = "arena" if option in ("players",) else "classic"
    extra = {"format": "single_hand"} if option in ("players", "knocker_undercut_penalty") \
        else {}
    if option == "format":
        extra = {"target": None}
    rules = Ruleset.preset(base, **({option: value} | extra))
    assert rules.to_dict()[option] == value
    assert Ruleset.from_dict(rules.to_dict()) == rules
    assert Ruleset.preset(base).replace(**({option: value} | extra)).to_dict()[option] == value


def test_R7_2_every_option_is_covered_here():
    assert set(ALTERNATIVES) == set(OPTION_NAMES)


@pytest.mark.parametrize(
    ("preset", "overrides", "option"),
    [
        ("arena", {"players": 5}, "players"),
        ("arena", {"players": 1}, "players"),
        ("classic", {"players": 3}, "format"),
        ("playok", {"players": 4}, "format"),
        ("arena", {"players": 3, "format": "match", "target": 100}, "format"),
        ("classic", {"hand_size": 11}, "hand_size"),
        ("classic", {"hand_size": 0}, "hand_size"),
        ("arena", {"players": 4, "hand_size": 13}, "hand_size"),
        ("arena", {"players": 3, "upcard_offer": "dealer_first"}, "upcard_offer"),
        ("arena", {"players": 4, "upcard_offer": "dealer_first"}, "upcard_offer"),
        ("classic", {"gin_bonus": -1}, "gin_bonus"),
        ("classic", {"undercut_bonus": -5}, "undercut_bonus"),
        ("classic", {"big_gin_bonus": -31}, "big_gin_bonus"),
        ("classic", {"game_bonus": -100}, "game_bonus"),
        ("classic", {"line_bonus": -20}, "line_bonus"),
        ("classic", {"shutout_bonus": -1}, "shutout_bonus"),
        ("arena", {"knocker_undercut_penalty": -10}, "knocker_undercut_penalty"),
        ("arena", {"max_reshuffles": -1}, "max_reshuffles"),
        ("classic", {"knock_limit": 11}, "knock_limit"),
        ("classic", {"knock_limit": -1}, "knock_limit"),
        ("classic", {"target": 0}, "target"),
        ("arena", {"payout_threshold": 0}, "payout_threshold"),
        ("arena", {"players": 3, "next_dealer": "winner"}, "next_dealer"),
        ("classic", {"upcard_offer": "sometimes"}, "upcard_offer"),
        ("classic", {"stock_end": "burn"}, "stock_end"),
        ("classic", {"big_gin": "yes"}, "big_gin"),
        ("classic", {"knock_limit": 7.5}, "knock_limit"),
        ("classic", {"colour": "red"}, "colour"),
    ],
)
def test_R7_2_invalid_combinations_are_refused_naming_the_option(preset, overrides, option):
    with pytest.raises(RulesetError) as info:
        Ruleset.preset(preset, **overrides)
    assert info.value.option == option
    assert str(info.value).startswith(f"{option}:")
    assert isinstance(info.value, ValueError)
    # the same through replace() and from_dict()
    with pytest.raises(RulesetError) as info:
        Ruleset.preset(preset).replace(**overrides)
    assert info.value.option == option
    with pytest.raises(RulesetError) as info:
        Ruleset.from_dict(Ruleset.preset(preset).to_dict() | overrides)
    assert info.value.option == option


def test_R7_2_rulesets_are_frozen_values():
    rules = Ruleset.preset("classic")
    with pytest.raises(AttributeError):
        rules.knock_limit = 5  # type: ignore[misc]
    assert rules == Ruleset.preset("classic") and hash(rules) == hash(Ruleset.preset("classic"))
    assert rules != Ruleset.preset("classic", knock_limit=9)
