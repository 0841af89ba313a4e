"""The message catalogues of the web client (no browser needed): same keys everywhere, no
empty text, the same placeholders, no English left in the other languages except the words
listed as shared, the glossary's terms, and every key the client uses present."""

from __future__ import annotations

import json
import re

import pytest
from web_support import PLACEHOLDER, SAME_AS_ENGLISH, catalogue, may_match_english

from ginrummy.web import LANGUAGES, STATIC_DIR, static_dir

OTHERS = [lang for lang in LANGUAGES if lang != "en"]


def test_static_files_ship_with_the_package() -> None:
    assert static_dir() == STATIC_DIR
    players_pages = ["js/session.js", "js/account.js", "js/profile.js", "js/leaderboard.js",
                     "js/history.js", "js/replay.js", "js/wallet.js", "js/admin.js"]
    for name in ["index.html", "css/app.css", "js/app.js", "js/table.js", "js/lobby.js",
                 *players_pages]:
        assert (STATIC_DIR / name).is_file(), name
    for lang in LANGUAGES:
        assert (STATIC_DIR / "i18n" / f"{lang}.json").is_file()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalogue_is_a_flat_object_of_non_empty_strings(lang: str) -> None:
    raw = (STATIC_DIR / "i18n" / f"{lang}.json").read_text("utf-8")
    pairs = json.loads(raw, object_pairs_hook=list)
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"{lang}: duplicate keys"
    for key, value in pairs:
        assert isinstance(value, str) and value.strip(), f"{lang}: {key} is empty"


@pytest.mark.parametrize("lang", OTHERS)
def test_same_keys_as_english(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    assert sorted(set(english) - set(other)) == [], f"{lang} lacks these keys"
    assert sorted(set(other) - set(english)) == [], f"{lang} has keys English lacks"


@pytest.mark.parametrize("lang", OTHERS)
def test_same_placeholders_as_english(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    for key, text in english.items():
        assert sorted(PLACEHOLDER.findall(other[key])) == sorted(PLACEHOLDER.findall(text)), key


@pytest.mark.parametrize("lang", OTHERS)
def test_no_english_left_except_listed_words(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    same = sorted(k for k, v in english.items() if other[k] == v and not may_match_english(lang, k))
    assert same == [], f"{lang}: still English (translate, or list in SAME_AS_ENGLISH)"
    stale = sorted(k for k in SAME_AS_ENGLISH[lang] if other[k] != english[k])
    assert stale == [], f"{lang}: listed as shared with English but translated"


# The glossary's terms (docs/glossary.md): each language's catalogue uses the source's word.
GLOSSARY = {
    "fr": {"hand.meld": "combinaison", "hand.deadwood_cards": "cartes restantes",
           "pile.stock": "Pioche", "pile.discard": "Pile de défausse", "pile.upcard": "Entame",
           "seat.dealer": "donneur", "sheet.hand": "Manche", "help.pass": "Passer",
           "sheet.penalties": "Points de pénalité", "sheet.bonus_game": "Bonus de victoire",
           "option.payout": "Distribution des gains", "card.suit.hearts": "cœur",
           "card.rank_name.J": "valet", "reveal.knocker": "knockeur"},
    "pl": {"hand.meld": "układ", "hand.deadwood_cards": "wolne karty",
           "pile.stock": "Stos zakryty", "pile.discard": "Stos odkryty",
           "pile.upcard": "Karta odkryta", "seat.dealer": "rozdający", "sheet.hand": "Rozdanie",
           "help.pass": "Pas", "reveal.knocker": "pukający", "card.suit.hearts": "kier",
           "card.rank_name.J": "walet", "help.knock": "Zapukaj"},
    "hu": {"hand.meld": "kombináció", "hand.deadwood_cards": "kombináción kívüli lapok",
           "pile.stock": "Talon", "pile.discard": "Dobott lapok",
           "pile.upcard": "Felfordított lap", "seat.dealer": "osztó", "sheet.hand": "Leosztás",
           "help.pass": "Passz", "outcome.undercut": "Alápontozás",
           "sheet.penalties": "Büntetőpontok", "sheet.payouts": "Nyereményalap",
           "option.payout": "Kifizetési táblázat", "card.suit.hearts": "kőr",
           "card.rank_name.J": "bubi", "reveal.knocker": "kopogó játékos"},
}


@pytest.mark.parametrize("lang", OTHERS)
def test_glossary_terms(lang: str) -> None:
    other = catalogue(lang)
    wrong = {k: other[k] for k, term in GLOSSARY[lang].items() if other[k] != term}
    assert wrong == {}


def client_sources() -> str:
    return "\n".join(p.read_text("utf-8") for p in sorted((STATIC_DIR / "js").glob("*.js"))) + \
        (STATIC_DIR / "index.html").read_text("utf-8")


def test_every_literal_key_the_client_uses_exists() -> None:
    english = catalogue("en")
    source = client_sources()
    used = set(re.findall(r'(?<![\w.])t\("([a-z_]+\.[\w.]+)"', source))
    used |= set(re.findall(r'data-i18n(?:-title|-label)?="([\w.]+)"', source))
    assert len(used) > 150
    assert sorted(used - set(english)) == []


def test_every_rule_option_has_a_label() -> None:
    from ginrummy.rules import Ruleset

    english = catalogue("en")
    options = Ruleset.preset("classic").to_dict()
    assert sorted(f"option.{n}" for n in options if f"option.{n}" not in english) == []
    assert [o["label"] for o in Ruleset.schema() if o["label"] not in english] == []
    for preset in ["classic", "playok", "arena", "eaai"]:
        assert f"preset.{preset}" in english
        for name, value in Ruleset.preset(preset).to_dict().items():
            if isinstance(value, str):
                assert f"value.{name}.{value}" in english, (preset, name, value)


def test_the_client_restates_no_option_list() -> None:
    """The create form and the rules list come from GET /api/rules/schema: no array or set
    literal of the client names two rule options."""
    from ginrummy.rules import OPTION_NAMES

    names = "|".join(sorted(OPTION_NAMES))
    listed = re.findall(rf'\[[^\[\]]*"(?:{names})"[^\[\]]*"(?:{names})"[^\[\]]*\]',
                        client_sources())
    assert listed == []


def test_user_text_is_never_parsed_as_html() -> None:
    source = client_sources()
    markup = r"\.(?:inner|outer)HTML\b|insertAdjacentHTML|document\.write|DOMParser"
    assert re.findall(markup, source) == []


def test_every_server_error_code_and_table_status_has_a_label() -> None:
    from ginrummy.server.kinds import TableStatus
    from ginrummy.server.protocol import Code

    english = catalogue("en")
    silent = {Code.STALE_VERSION}  # the client waits for the fresh state that follows
    missing = [f"error.{code.value}" for code in Code
               if code not in silent and f"error.{code.value}" not in english]
    missing += [f"status.{s.value}" for s in TableStatus if f"status.{s.value}" not in english]
    assert missing == []
