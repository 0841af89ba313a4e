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

import posixpath
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

STATIC_IMPORT = re.compile(
    r"""(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?["'](\.{1,2}/[^"'\n]+)["']""")
"""A static import or re-export with a relative specifier (``import { a } from "./x.js"``,
``import "./x.js"``, ``export { b } from "./y.js"``), declarations spanning several lines
included; ``import("./x.js")`` (a dynamic import) is not one."""

PAGE_MODULES: Mapping[str, str] = {"table": "js/table.js"}
"""Pages whose module ``app.js`` loads with ``import()``, hinted too when the address is the
page's (``/?table=ID``)."""


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
