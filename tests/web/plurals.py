"""Plural messages of the catalogues on the Python side: a plural message ``key`` is the group
of keys ``key.one``, ``key.few``, ``key.many``, ``key.other``... (src/ginrummy/web/static/js/
i18n.js), one per category of the language's CLDR plural rules, which the browser's
``Intl.PluralRules`` applies; test_web_i18n checks these rules against Chromium's."""

from __future__ import annotations

import re

PLURAL_KEY = re.compile(r"^(?P<base>.+)\.(?P<form>zero|one|two|few|many|other)$")

CATEGORIES: dict[str, tuple[str, ...]] = {
    "en": ("one", "other"),
    "fr": ("one", "many", "other"),
    "pl": ("one", "few", "many", "other"),
    "hu": ("one", "other"),
}
"""The categories ``new Intl.PluralRules(lang).resolvedOptions().pluralCategories`` gives."""


def category(lang: str, count: int) -> str:
    """The CLDR plural category of a whole number ``count`` (cardinal) in ``lang``."""
    n = abs(count)
    if lang in ("en", "hu"):
        return "one" if n == 1 else "other"
    if lang == "fr":
        if n in (0, 1):
            return "one"
        return "many" if n % 1_000_000 == 0 else "other"
    if lang == "pl":
        if n == 1:
            return "one"
        if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14):
            return "few"
        return "many"
    raise ValueError(f"no plural rules for language {lang!r}")


def messages(texts: dict[str, str]) -> dict[str, dict[str, str] | str]:
    """A catalogue by message: a plain text, or a plural message's texts by category (a
    plural message has a ``one`` form in all four languages; ``clock.played.other``, a
    plain message, has none)."""
    plural = {match["base"] for key in texts if (match := PLURAL_KEY.match(key))
              and match["form"] == "one"}
    out: dict[str, dict[str, str] | str] = {}
    for key, text in texts.items():
        match = PLURAL_KEY.match(key)
        if match and match["base"] in plural:
            forms = out.setdefault(match["base"], {})
            assert isinstance(forms, dict), f"{key}: {match['base']} is also a plain message"
            forms[match["form"]] = text
        else:
            assert key not in out, f"{key} is also a plural message"
            out[key] = text
    return out


def message(texts: dict[str, str], lang: str, key: str, count: int) -> str:
    """The text of ``key`` for ``count`` (its plural form when it is a plural message)."""
    if key in texts:
        return texts[key]
    return texts.get(f"{key}.{category(lang, count)}", texts[f"{key}.other"])
