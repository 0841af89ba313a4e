"""The client's ES module graph, for the ``<link rel="modulepreload">`` hints of ``index.html``.

Without hints a browser learns a module's imports only once that module has arrived, so the
client's modules load in a chain: ``app.js``, then what it imports, then what those import...
one round trip per level (three for the lobby, four for a table). The hints name every module
of the page up front, so they are all asked for as soon as the page's head is read.

The list is made from the modules themselves (their static ``import``/``export ... from``
declarations; ``import()`` of a page's module is left to its page), so it cannot fall behind
the code: a new import is hinted as soon as it is written.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ginrummy.server.http import lobby_api

STATIC_IMPORT = re.compile(
    r"""(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?["'](\.{1,2}/[^"'\n]+)["']""")
"""A static import or re-export with a relative specifier (``import { a } from "./x.js"``,
``import "./x.js"``, ``export { b } from "./y.js"``), declarations spanning several lines
included; ``import("./x.js")`` (a dynamic import) is not one."""

PAGE_MODULES: Mapping[str, str] = {"table": "js/table.js", "lobby": "js/lobby.js"}
"""Pages whose module ``app.js`` loads with ``import()``, hinted too when the address is the
page's (``/?table=ID``, ``/``): the lobby's module is not downloaded for a table's link."""

PAGE_FETCHES: Mapping[str, tuple[str, ...]] = {"lobby": ("/api/tables", "/api/bots")}
"""The API answers a page asks for as soon as its modules have run (``Lobby.start``), fetched
with the modules (``<link rel="preload" as="fetch">``): on a slow link the lobby is drawn one
round trip sooner. Only ``GET`` calls whose answer depends on the server's state or settings
(the others are in the page: :data:`PAGE_ANSWERS`)."""

PAGE_ANSWERS: Mapping[str | None, tuple[str, ...]] = {
    None: ("/api/rules/schema",),
    "table": ("/api/rules/schema",),
    "lobby": ("/api/presets", "/api/rules/schema"),
}
"""The API answers put in a page (``<script type="application/json" id="api-answers">``,
which ``js/api.js`` answers a first ``GET`` of the path from): those that are the same for
every visitor and request (the code's), so they cost no request of their own. Every page
loads ``js/format.js``, whose rules part asks for the rule schema at once."""
ANSWER_MAKERS: Mapping[str, Callable[[], object]] = {
    "/api/presets": lobby_api.presets_answer,
    "/api/rules/schema": lobby_api.schema_answer,
}

CATALOGUE = "i18n/{}.json"
"""A language's catalogue in the tree."""
FALLBACK_LANGUAGE = "en"
"""The catalogue every page loads (the fallback for a missing key), preloaded by ``index.html``
itself."""


def imports_of(source: str, module: str) -> list[str]:
    """The modules ``module`` (a path in the tree, ``js/app.js``) imports statically, as paths
    in the tree, in the order written."""
    found: list[str] = []
    base = posixpath.dirname(module)
    for match in STATIC_IMPORT.finditer(_without_comments(source)):
        path = posixpath.normpath(posixpath.join(base, match.group(1)))
        if path not in found:
            found.append(path)
    return found


def _without_comments(source: str) -> str:
    """The source with its ``//`` line comments and ``/* */`` blocks blanked (line by line:
    a quote in a comment does not start a string here, the client's comments being prose)."""
    source = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$", "", source)


def module_closure(directory: Path, entries: Iterable[str], files: frozenset[str]) -> list[str]:
    """Every module reachable from ``entries`` through static imports, breadth first (the
    entries' own imports first), the entries themselves left out; paths outside ``files``
    (a module that does not exist) are skipped."""
    entries = list(entries)
    seen = set(entries)
    order: list[str] = []
    queue = list(entries)
    while queue:
        module = queue.pop(0)
        if module not in files:
            continue
        source = (directory / module).read_text("utf-8")
        for imported in imports_of(source, module):
            if imported not in seen and imported in files:
                seen.add(imported)
                order.append(imported)
                queue.append(imported)
    return order


ENTRY_SCRIPT = re.compile(r'<script\b[^>]*\btype="module"[^>]*\bsrc="/([^"?#]+)"[^>]*>')
"""The page's entry module in ``index.html``."""


def preload_links(directory: Path, html: str, files: frozenset[str],
                  page: str | None = None) -> tuple[str, list[str]]:
    """``html`` with a ``<link rel="modulepreload">`` for every module the entry scripts
    import (and, for ``page``, its own module and what that imports) put just after the
    first entry script (asked for first); the hinted paths. ``html`` is the file as written
    (plain paths)."""
    entries = ENTRY_SCRIPT.findall(html)
    if not entries:
        return html, []
    modules = module_closure(directory, entries, files)
    extra = PAGE_MODULES.get(page or "")
    if extra and extra in files and extra not in entries:
        for module in [extra, *module_closure(directory, [extra], files)]:
            if module not in modules and module not in entries:
                modules.append(module)
    first = ENTRY_SCRIPT.search(html)
    assert first is not None
    indent = html[html.rfind("\n", 0, first.start()) + 1:first.start()]
    end = html.find("</script>", first.end())
    end = first.end() if end < 0 else end + len("</script>")
    links = "".join(f'\n{indent}<link rel="modulepreload" href="/{m}">' for m in modules)
    return html[:end] + links + html[end:], modules


def weighted(header: str) -> list[tuple[str, float]]:
    """The values of a comma-separated header with ``q`` weights (``Accept-Language``,
    ``Accept-Encoding``), lower-cased, in the header's order, each with its weight (1 when
    none is given, 0 when it does not read as a number)."""
    found: list[tuple[str, float]] = []
    for part in header.split(","):
        value, _, params = part.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            name, _, text = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(text)
                except ValueError:
                    weight = 0.0
        found.append((value.strip().lower(), weight))
    return found


def catalogue_language(accept_language: str, files: frozenset[str]) -> str | None:
    """The language whose catalogue the page will load besides English, as the client's
    ``pickLanguage`` chooses it (the first of the visitor's languages with a catalogue, by
    ``Accept-Language``'s order and weights); None for English or none."""
    ranked: list[tuple[float, int, str]] = []
    for position, (tag, weight) in enumerate(weighted(accept_language)):
        base = tag.split("-")[0]
        if base and weight > 0:
            ranked.append((-weight, position, base))
    for _weight, _position, base in sorted(ranked):
        if CATALOGUE.format(base) in files:
            return None if base == FALLBACK_LANGUAGE else base
    return None


def fetch_links(html: str, page: str | None, language: str | None) -> tuple[str, list[str]]:
    """``html`` with a ``<link rel="preload" as="fetch">`` before ``</head>`` for each API
    answer ``page`` asks for first (:data:`PAGE_FETCHES`) and for the catalogue of
    ``language`` (besides English's, which ``index.html`` preloads itself); the paths."""
    paths = list(PAGE_FETCHES.get(page or "", ()))
    if language:
        paths.append("/" + CATALOGUE.format(language))
    end = html.find("</head>")
    if not paths or end < 0:
        return html, []
    indent = html[html.rfind("\n", 0, end) + 1:end] + "  "
    links = "".join(f'{indent}<link rel="preload" href="{path}" as="fetch" crossorigin>\n'
                    for path in paths)
    return html[:end].rstrip(" ") + links + html[end:], paths


FALLBACK_PRELOAD = re.compile(
    r'[ \t]*<link rel="preload" href="(?:/v/[0-9a-f]+)?/i18n/en\.json"[^>]*>\n?')
"""``index.html``'s preload of the English catalogue."""
INLINE_CATALOGUE_ID = "catalogue-{}"
"""The ``id`` of a catalogue put in the page (``<script type="application/json">``), which
``js/i18n.js`` reads instead of fetching it."""


def _data_block(element_id: str, value: object) -> str:
    """A JSON data block (``<script type="application/json">``: not run, so the CSP has
    nothing to say), ``<`` escaped so that no ``</script>`` ends it early."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c")  # "<" only occurs in strings, where this is the same
    return f'<script type="application/json" id="{element_id}">{text}</script>\n'


def inline_answers(html: str, page: str | None) -> str:
    """``html`` with the API answers of :data:`PAGE_ANSWERS` for ``page`` before
    ``</body>``, by path."""
    paths = PAGE_ANSWERS.get(page, ())
    end = html.rfind("</body>")
    if not paths or end < 0:
        return html
    block = _data_block("api-answers", {path: ANSWER_MAKERS[path]() for path in paths})
    return html[:end] + block + html[end:]


def inline_catalogue(html: str, directory: Path, files: frozenset[str],
                     language: str | None) -> str:
    """For an English visitor (``language`` None), ``html`` with the English catalogue in the
    page itself (a JSON data block before ``</body>``) in place of its preload: one request
    fewer on the first load, when every request waits its turn for one of the browser's six
    connections. A visitor of another language gets both catalogues preloaded instead
    (:func:`fetch_links`): a page never carries two."""
    path = CATALOGUE.format(FALLBACK_LANGUAGE)
    end = html.rfind("</body>")
    if language is not None or path not in files or end < 0:
        return html
    block = _data_block(INLINE_CATALOGUE_ID.format(FALLBACK_LANGUAGE),
                        json.loads((directory / path).read_text("utf-8")))
    html = FALLBACK_PRELOAD.sub("", html, count=1)
    end = html.rfind("</body>")
    return html[:end] + block + html[end:]
