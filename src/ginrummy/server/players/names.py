"""Account names: what is allowed, and the folded key under which look-alikes collide.

A name is 3 to 20 characters: letters (any script), digits, ``_``, ``-`` and ``.``, starting
with a letter or digit, with no two punctuation marks in a row. Its key
(:func:`name_key`) is its NFKC case-fold with the usual look-alikes mapped to one letter
(``0``/``o``, ``1``/``l``/``i``, ``5``/``s``, Cyrillic and Greek letters that look Latin,
``_``/``-``/``.`` dropped), so ``Anna``, ``ANNA``, ``anna_`` and ``Аnna`` (a Cyrillic A) are the
same account name.
"""

from __future__ import annotations

import itertools
import unicodedata

MIN_LENGTH = 3
MAX_LENGTH = 20
KEY_LENGTH = 24
"""The longest key the database holds (``accounts.name_key``); ``ß`` folds to ``ss``, so a
name's key may be longer than the name."""
PUNCTUATION = "_-."

_LOOK_ALIKES = str.maketrans({
    "0": "o", "1": "l", "i": "l", "|": "l", "5": "s", "$": "s", "3": "e", "4": "a",
    "7": "t", "8": "b", "9": "g", "2": "z", "6": "b",
    # Cyrillic letters drawn like Latin ones
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "і": "l", "ј": "j", "ѕ": "s", "ԁ": "d",
    # Greek letters drawn like Latin ones
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c",
})


class BadName(ValueError):
    """A name that cannot be an account name; the message says why."""


def check_name(name: str) -> str:
    """The name as it will be shown (NFKC-normalised, trimmed), or :class:`BadName`."""
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
    if len(name_key(shown)) > KEY_LENGTH:
        raise BadName(f"a name has {MIN_LENGTH} to {MAX_LENGTH} characters, and letters "
                      f"such as ß that fold to two count twice")
    return shown


def name_key(name: str) -> str:
    """The key two names share when they look alike (unique among accounts)."""
    folded = unicodedata.normalize("NFKC", name).strip().casefold()
    folded = "".join(c for c in unicodedata.normalize("NFKD", folded)
                     if not unicodedata.combining(c))
    folded = folded.translate(_LOOK_ALIKES)
    folded = folded.replace("rn", "m").replace("vv", "w")
    return "".join(c for c in folded if c not in PUNCTUATION)
