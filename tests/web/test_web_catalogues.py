"""The message catalogues of the web client (no browser needed): same messages everywhere, no
empty text, the same placeholders, no English left in the other languages except the words
listed as shared, plural messages with their language's forms, no number a table's rules
decide written into a text, the glossary's terms (one per concept), and every key the client
uses present."""

from __future__ import annotations

import json
import re

import pytest
from plurals import CATEGORIES, messages
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
def test_same_messages_as_english(lang: str) -> None:
    """The same keys, except that a plural message has its own language's forms."""
    english, other = messages(catalogue("en")), messages(catalogue(lang))
    assert sorted(set(english) - set(other)) == [], f"{lang} lacks these messages"
    assert sorted(set(other) - set(english)) == [], f"{lang} has messages English lacks"
    kind = {key: isinstance(text, dict) for key, text in english.items()}
    assert sorted(k for k, text in other.items() if isinstance(text, dict) != kind[k]) == [], \
        f"{lang}: plural in one language, plain in the other"


def texts_of(message: dict[str, str] | str) -> list[str]:
    return list(message.values()) if isinstance(message, dict) else [message]


@pytest.mark.parametrize("lang", OTHERS)
def test_same_placeholders_as_english(lang: str) -> None:
    english, other = messages(catalogue("en")), messages(catalogue(lang))
    for key, message in english.items():
        wanted = {tuple(sorted(PLACEHOLDER.findall(text))) for text in texts_of(message)}
        assert len(wanted) == 1, f"en: the forms of {key} differ in their placeholders"
        for text in texts_of(other[key]):
            assert tuple(sorted(PLACEHOLDER.findall(text))) in wanted, (key, text)


@pytest.mark.parametrize("lang", OTHERS)
def test_no_english_left_except_listed_words(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    same = sorted(k for k, v in english.items()
                  if other.get(k) == v and not may_match_english(lang, k))
    assert same == [], f"{lang}: still English (translate, or list in SAME_AS_ENGLISH)"
    english_messages, other_messages = messages(english), messages(other)
    stale = sorted(k for k in SAME_AS_ENGLISH[lang]
                   if texts_of(other_messages[k])[-1] != texts_of(english_messages[k])[-1])
    assert stale == [], f"{lang}: listed as shared with English but translated"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_messages_have_the_forms_of_their_language(lang: str) -> None:
    """A plural message has one text for each category of Intl.PluralRules(lang) (CLDR: en, hu
    one/other; fr one/many/other; pl one/few/many/other)."""
    plural = {k: m for k, m in messages(catalogue(lang)).items() if isinstance(m, dict)}
    assert len(plural) >= 15
    wrong = {k: sorted(m) for k, m in plural.items() if sorted(m) != sorted(CATEGORIES[lang])}
    assert wrong == {}, f"{lang}: wanted {sorted(CATEGORIES[lang])}"


COUNTED = re.compile(r"\{\w+\} (?:penalty )?(?:chips?|points?|cards?)\b")


def test_every_counted_noun_is_a_plural_message() -> None:
    """No "1 points": a number before a noun (chips, points, cards) is a plural message's."""
    plain = sorted(k for k, m in messages(catalogue("en")).items()
                   if isinstance(m, str) and COUNTED.search(m))
    assert plain == []


# Digits a text may hold, with the reason; any other number comes from a param (the table's
# rules, the state), so that no text states a number a preset or an option changes.
DIGITS_ALLOWED = {
    r"card\.rank(_name)?\.[2-9T]": "the cards' own ranks (2-10)",
    r"account\.name_rules": "the account rules of server/players/names.py and sessions.py, "
                             "the same for every table "
                             "(test_account_rules_text_states_the_servers_limits)",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_digit_outside_the_allow_list(lang: str) -> None:
    allowed = re.compile("|".join(f"(?:{pattern})" for pattern in DIGITS_ALLOWED))
    with_digits = {k: v for k, v in catalogue(lang).items()
                   if re.search(r"\d", PLACEHOLDER.sub("", v)) and not allowed.fullmatch(k)}
    assert with_digits == {}, f"{lang}: a number in the text: make it a param"


def test_account_rules_text_states_the_servers_limits() -> None:
    from ginrummy.server.players import names, sessions

    limits = [names.MIN_LENGTH, names.MAX_LENGTH, sessions.MIN_PASSWORD, sessions.MAX_PASSWORD]
    for lang in LANGUAGES:
        numbers = [int(n) for n in re.findall(r"\d+", catalogue(lang)["account.name_rules"])]
        assert [n for n in numbers if n != 0] == limits, lang  # 0: the digit that looks like o


def test_payout_share_of_the_client_is_the_engines() -> None:
    """format.js's WINNER_MIN_SHARE (sheet.payout_rule's {share}) is what scoring.split_pool
    leaves the winner when every other player has no penalty point (R6.4)."""
    from ginrummy.scoring import split_pool

    source = (STATIC_DIR / "js" / "format.js").read_text("utf-8")
    table = source.split("WINNER_MIN_SHARE = {")[1].split("}")[0]
    shares = dict(re.findall(r"(\w+): ([\d.]+)", table))
    assert set(shares) == {"linear_cap"}
    for players in (2, 3, 4):
        split = split_pool(1_200_000, [0] * players, winner=0, threshold=25)
        assert split[0] / 1_200_000 == float(shares["linear_cap"]), players


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


# One term per concept (docs/glossary.md): each concept's messages all use the language's term
# (any inflection), and no message of the catalogue uses a second word for it.
DEADWOOD_KEYS = ["hand.deadwood_cards", "hand.deadwood", "arrange.deadwood",
                 "arrange.knock_summary", "reveal.deadwood", "option.knock_limit",
                 "option.undercut_ties", "result.gin_line", "result.big_gin_line",
                 "result.knock_line", "result.single_knock_line", "profile.avg_deadwood_caught"]
MELD_KEYS = ["hand.meld", "arrange.your_melds", "arrange.no_melds", "arrange.make_meld",
             "arrange.not_a_meld", "arrange.knocker_melds", "action.confirm_knock"]
KNOCK_KEYS = ["help.knock", "log.knock", "outcome.knock", "reveal.knocker"]
STOCK_KEYS = ["pile.stock", "help.stock", "action.stock", "log.stock", "option.stock_end"]
CONCEPTS: dict[str, dict[str, tuple[list[str], str, str | None]]] = {
    # concept: {lang: (keys, the term, a second word the catalogue must not use)}
    "deadwood": {"en": (DEADWOOD_KEYS, r"deadwood", r"dead wood"),
                 "fr": (DEADWOOD_KEYS, r"cartes restantes", r"bois mort"),
                 "pl": (DEADWOOD_KEYS, r"woln\w+ kart", r"martw"),
                 "hu": (DEADWOOD_KEYS, r"kombináción kívüli lap", r"kéz\w* maradt")},
    "meld": {"en": (MELD_KEYS, r"meld", None), "fr": (MELD_KEYS, r"combinaison", None),
             "pl": (MELD_KEYS, r"układ", None), "hu": (MELD_KEYS, r"kombináci", None)},
    "stock": {"en": (STOCK_KEYS, r"stock", None), "fr": (STOCK_KEYS, r"pioch", r"talon"),
              "pl": (STOCK_KEYS, r"stos\w* zakryt", None), "hu": (STOCK_KEYS, r"talon", None)},
    "discard": {"pl": (["help.enter", "action.discard", "arrange.discard_card", "log.discard",
                        "option.no_rediscard_of_taken_card", "pile.history"],
                       r"zrzu", r"odł[oó]ż")},
    "rematch": {"fr": (["table.rematch", "table.rematch_asked", "seat.wants_rematch",
                        "table.rematch_waiting"], r"revanche", r"rejou")},
    "computer": {"hu": (["seat.computer", "quick.title", "clock.played.pass", "clock.played.other"],
                        r"számítógép", r"(?<!számító)gép\b")},
    "knock": {"en": (KNOCK_KEYS, r"knock", None),
              "fr": (KNOCK_KEYS, r"knock", r"ferm\w* la manche"),
              "pl": (KNOCK_KEYS, r"puk", None),
              "hu": (KNOCK_KEYS, r"kopog", None)},
}


@pytest.mark.parametrize("concept", sorted(CONCEPTS))
def test_one_term_per_concept(concept: str) -> None:
    for lang, (keys, term, second) in CONCEPTS[concept].items():
        texts = catalogue(lang)
        missing = [k for k in keys if not re.search(term, texts[k], re.IGNORECASE)]
        assert missing == [], f"{lang}: {concept} is not called {term!r} in these"
        if second is not None:
            others = sorted(k for k, text in texts.items()
                            if re.search(second, text, re.IGNORECASE))
            assert others == [], f"{lang}: a second word for {concept}: {second!r}"


def client_sources() -> str:
    return "\n".join(p.read_text("utf-8") for p in sorted((STATIC_DIR / "js").glob("*.js"))) + \
        (STATIC_DIR / "index.html").read_text("utf-8")


def test_every_literal_key_the_client_uses_exists() -> None:
    english = catalogue("en")
    source = client_sources()
    used = set(re.findall(r'(?<![\w.])t\("([a-z_]+\.[\w.]+)"', source))
    used |= set(re.findall(r'data-i18n(?:-title|-label)?="([\w.]+)"', source))
    assert len(used) > 150
    assert sorted(used - set(messages(english))) == []


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


def call_params(source: str, start: int) -> str:
    """The text of the params object literal that starts at ``source[start]`` ("{")."""
    depth = 0
    for end in range(start, len(source)):
        depth += {"{": 1, "}": -1}.get(source[end], 0)
        if depth == 0:
            return source[start:end + 1]
    raise AssertionError(f"unbalanced params at {start}")


def test_every_plural_message_is_given_its_count() -> None:
    """t("seat.score", {...}) without a count would fall back to the other form ("1 points")."""
    plural = {k for k, m in messages(catalogue("en")).items() if isinstance(m, dict)}
    source = client_sources()
    calls = [(m[1], m.end() - 1) for m in re.finditer(r'(?<![\w.])t\("([\w.]+)",\s*\{', source)
             if m[1] in plural]
    assert len(calls) >= 20
    missing = [key for key, start in calls
               if not re.search(r"\bcount\b", call_params(source, start))]
    assert missing == []
    bare = re.findall(r'(?<![\w.])t\("([\w.]+)"\)', source)
    assert sorted(set(bare) & plural) == []


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
    from ginrummy.server.core.kinds import TableStatus
    from ginrummy.server.core.protocol import Code

    english = catalogue("en")
    silent = {Code.STALE_VERSION}  # the client waits for the fresh state that follows
    missing = [f"error.{code.value}" for code in Code
               if code not in silent and f"error.{code.value}" not in english]
    missing += [f"status.{s.value}" for s in TableStatus if f"status.{s.value}" not in english]
    assert missing == []
