"""Serving the web client: versioned static URLs, cache headers and compression.

* The client's files are served under ``/v/<version>/...``, where ``<version>`` is a content
  hash of the whole static tree, with ``Cache-Control: public, max-age=31536000, immutable``:
  a browser fetches each file once per release. ES modules import each other by relative
  URLs, so every import of a versioned module stays inside its version.
* ``index.html`` (at ``/``, ``/index.html`` and every client page of :mod:`pages`) is served
  ``no-cache`` with its asset URLs rewritten to the current version.
* The unversioned paths (``/js/app.js``...) keep working, revalidated on every use
  (``no-cache``; the ``ETag`` makes that a 304 when nothing changed).
* ``index.html`` hints every module the page needs (``<link rel="modulepreload">``, made
  from the modules' imports by :mod:`preload`), so they load together, not level by level;
  the lobby's first API answers and the catalogue of the visitor's language
  (``Accept-Language``) are fetched along with them (``<link rel="preload" as="fetch">``).
* :class:`Compression` compresses text responses (HTML, JS, CSS, JSON, SVG...) of at least
  :data:`MINIMUM_SIZE` bytes: Brotli when the client accepts ``br``, else gzip when it
  accepts gzip; WebSocket traffic is never touched.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import brotli  # the server extra's
from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ginrummy.server.http import preload

IMMUTABLE = "public, max-age=31536000, immutable"
"""``Cache-Control`` of a file under the current version."""
REVALIDATE = "no-cache"
"""``Cache-Control`` of ``index.html``, unversioned paths and a version that is not current."""
VERSION_PREFIX = "/v/"
HASH_CHARS = 16
"""Hex digits of SHA-256 kept in the version (64 bits)."""


@dataclass
class StaticTree:
    """The static directory and its current version (a content hash of every file in it).

    The files' sizes and modification times are looked at again at most every
    ``check_seconds``; the contents are hashed again only when those changed, so an edited
    file gets a new version while the server runs.
    """

    directory: Path
    check_seconds: float = 1.0
    _signature: tuple[tuple[str, int, int], ...] | None = field(default=None, repr=False)
    _version: str = field(default="", repr=False)
    _files: frozenset[str] = field(default=frozenset(), repr=False)
    _checked_at: float = field(default=float("-inf"), repr=False)
    _index: dict[tuple[str, str | None, str | None], str] = field(default_factory=dict,
                                                                  repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def version(self) -> str:
        """The current content hash (16 hex digits)."""
        self._refresh()
        return self._version

    def files(self) -> frozenset[str]:
        """The tree's files, as URL paths relative to it (``js/app.js``)."""
        self._refresh()
        return self._files

    def _refresh(self) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._checked_at < self.check_seconds and self._signature is not None:
                return
            self._checked_at = now
            signature = self._scan()
            if signature == self._signature:
                return
            digest = hashlib.sha256()
            files = []
            for relative, _size, _mtime in signature:
                try:
                    content = (self.directory / relative).read_bytes()
                except FileNotFoundError:  # removed since the scan (an editor's temp file)
                    continue
                files.append(relative)
                digest.update(relative.encode() + b"\0" + content + b"\0")
            self._signature = signature
            self._version = digest.hexdigest()[:HASH_CHARS]
            self._files = frozenset(files)
            self._index = {}

    def _scan(self) -> tuple[tuple[str, int, int], ...]:
        found = []
        for root, dirs, names in os.walk(self.directory):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            for name in names:
                if name.startswith("."):
                    continue
                path = Path(root) / name
                try:
                    stat = path.stat()
                except FileNotFoundError:  # removed while the tree was walked
                    continue
                found.append((path.relative_to(self.directory).as_posix(), stat.st_size,
                              stat.st_mtime_ns))
        return tuple(sorted(found))

    def prefix(self) -> str:
        """``/v/<version>``: where the current files are served."""
        return VERSION_PREFIX + self.version()

    def index_html(self, page: str | None = None, accept_language: str = "") -> str | None:
        """``index.html`` with a ``modulepreload`` hint for each module the page needs (the
        lobby's, and for ``page`` ``"table"`` the table's too: :mod:`preload`), a fetch
        preload for the API answers of ``page`` ``"lobby"`` and for the catalogue of the
        visitor's language, and each ``src``/``href`` naming a file of the tree pointed at the
        current version (``/css/app.css`` -> ``/v/<version>/css/app.css``); None without it."""
        version = self.version()
        known = page in preload.PAGE_MODULES or page in preload.PAGE_FETCHES
        key = (version, page if known else None,
               preload.catalogue_language(accept_language, self.files()))
        with self._lock:
            found = self._index.get(key)
            if found is not None:
                return found
        index = self.directory / "index.html"
        if not index.is_file():
            return None
        files = self.files()
        prefix = VERSION_PREFIX + version

        def versioned(match: re.Match[str]) -> str:
            path = match.group(2)
            if path not in files or path == "index.html":
                return match.group(0)
            return f'{match.group(1)}="{prefix}/{path}"'

        hinted, _modules = preload.preload_links(self.directory, index.read_text("utf-8"), files,
                                                 key[1])
        hinted, _fetched = preload.fetch_links(hinted, key[1], key[2])
        html = preload.inline_catalogue(_ASSET_URL.sub(versioned, hinted), self.directory,
                                        files, key[2])  # after: its text is left as it is
        html = preload.inline_answers(html, key[1])
        with self._lock:
            self._index[key] = html
        return html


_ASSET_URL = re.compile(r'\b(src|href)="/([^"?#/][^"?#]*)"')
_TREES: dict[Path, StaticTree] = {}
_TREES_LOCK = threading.Lock()


def tree_for(directory: Path) -> StaticTree:
    """The one :class:`StaticTree` of a directory (shared by the routes serving it)."""
    key = directory.resolve()
    with _TREES_LOCK:
        tree = _TREES.get(key)
        if tree is None:
            tree = _TREES[key] = StaticTree(key)
        return tree


def index_response(directory: Path, status_code: int = 200, page: str | None = None,
                   accept_language: str = "") -> Response:
    """The client's ``index.html`` pointing at the current version, never cached unchecked;
    ``page`` names the page shown (``"table"``, ``"lobby"``), whose modules and first API
    answers are hinted too; ``accept_language`` picks the catalogue preloaded besides
    English's (hence ``Vary: Accept-Language``)."""
    html = tree_for(directory).index_html(page, accept_language)
    if html is None:
        return PlainTextResponse("ginrummy server: the web client is missing\n", 404)
    return Response(html, status_code=status_code, media_type="text/html",
                    headers={"cache-control": REVALIDATE, "vary": "Accept-Language"})


class VersionedFiles(StaticFiles):
    """``/v/<version>/...``: the tree's files, ``immutable`` when ``<version>`` is current.

    A version that is not current (a page loaded before a new release asking for more
    modules) still gets today's files, but ``no-cache``, so no cache keeps them under the old
    version's URL for a year."""

    def __init__(self, tree: StaticTree) -> None:
        super().__init__(directory=tree.directory, html=False)
        self.tree = tree

    async def get_response(self, path: str, scope: Scope) -> Response:
        """The file, with the cache header its version calls for."""
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            current = scope.get("path_params", {}).get("version") == self.tree.version()
            response.headers["cache-control"] = IMMUTABLE if current else REVALIDATE
        return response


class PlainFiles(StaticFiles):
    """The unversioned paths (``/js/app.js``): served as before, revalidated on every use."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        """The file, ``no-cache``."""
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            response.headers["cache-control"] = REVALIDATE
        return response


def routes(directory: Path) -> list[BaseRoute]:
    """The web client's routes: ``/`` and ``/index.html``, the versioned tree, then every
    file at its plain path (the catch-all, last)."""
    tree = tree_for(directory)

    async def index(request: Request) -> Response:
        # "/?table=ID" is a table's page: its modules are hinted along with the lobby's;
        # "/" is the lobby, whose first API answers are fetched with its modules
        return index_response(directory, page="table" if request.query_params.get("table")
                              else "lobby",
                              accept_language=request.headers.get("accept-language", ""))

    return [
        Route("/", index, methods=["GET", "HEAD"]),
        Route("/index.html", index, methods=["GET", "HEAD"]),
        Mount(VERSION_PREFIX + "{version}", app=VersionedFiles(tree), name="versioned"),
        Mount("/", app=PlainFiles(directory=directory, html=False), name="web"),
    ]


MINIMUM_SIZE = 1024
"""Smaller bodies are sent as they are: gzip would save little or even add bytes."""
COMPRESSIBLE = frozenset({
    "application/javascript", "text/javascript", "application/json", "application/xml",
    "image/svg+xml", "application/manifest+json", "application/problem+json",
})
"""Compressed media types besides every ``text/*``."""
BROTLI_QUALITY = 11
"""Brotli's quality for a body kept for reuse (a static file), reached in a worker thread
after the first answer: it costs no request anything."""
BROTLI_STREAM_QUALITY = 5
"""Brotli's quality for an answer made per request (an API answer) and for the first answer
of a static file: about gzip's cost."""
CACHED_BODY_LIMIT = 1 << 20
"""Compressed bodies kept for reuse are at most this large (1 MiB)."""


def compressible(content_type: str) -> bool:
    """True for text media types (``text/*``, JavaScript, JSON, XML, SVG)."""
    media = content_type.partition(";")[0].strip().lower()
    return media.startswith("text/") or media in COMPRESSIBLE


def accepted_codings(accept_encoding: str) -> dict[str, bool]:
    """The content codings an ``Accept-Encoding`` value names, each with whether it is
    allowed (q > 0), lower-cased."""
    return {coding: q > 0 for coding, q in preload.weighted(accept_encoding)}


def accepts_gzip(accept_encoding: str) -> bool:
    """True when an ``Accept-Encoding`` value allows gzip (``gzip`` or ``*`` with q > 0)."""
    return _allows_gzip(accepted_codings(accept_encoding))


def _allows_gzip(allowed: dict[str, bool]) -> bool:
    return allowed.get("gzip", allowed.get("x-gzip", allowed.get("*", False)))


def chosen_coding(accept_encoding: str) -> str | None:
    """The coding a text answer is sent in: ``br`` (Brotli, some 15 % smaller than gzip on
    the client's files) when the client names it (browsers do over HTTPS and to
    ``localhost``), else ``gzip`` when allowed, else None (sent as it is). ``*`` alone means
    gzip: a client that has never heard of Brotli may say it."""
    allowed = accepted_codings(accept_encoding)  # read once: this runs on every request
    if allowed.get("br", False):
        return "br"
    return "gzip" if _allows_gzip(allowed) else None


class Compression:
    """Brotli or gzip (:func:`chosen_coding`) on text HTTP responses of at least
    ``minimum_size`` bytes for clients that accept it; everything else (WebSockets, HEAD,
    partial and ``304`` answers, images, bodies already encoded, small bodies) passes
    untouched. A compressed answer's ``ETag`` becomes weak (its
    bytes differ from the plain file's) and every text answer says ``Vary: Accept-Encoding``.
    The compressed body of an answer with an ``ETag`` (a static file) is kept and reused while
    the file is unchanged, so each file is compressed once per coding, not once per visitor
    (Brotli then once more at its best quality, in a worker thread, off the event loop).
    """

    def __init__(self, app: ASGIApp, minimum_size: int = MINIMUM_SIZE, level: int = 6,
                 cache_entries: int = 256) -> None:
        self.app = app
        self.minimum_size = minimum_size
        self.level = level
        self.cache_entries = cache_entries
        self.cache: OrderedDict[tuple[str, str, str], bytes] = OrderedDict()
        """Compressed bodies of answers with an ``ETag`` (the static files: their ETag
        changes with the file), by path, query, ETag and coding, the least recently used
        dropped first."""
        self.cache_hits = 0
        self.improving: dict[tuple[str, str, str], asyncio.Future[bytes]] = {}
        """Brotli bodies being compressed again at :data:`BROTLI_QUALITY`, by cache key."""

    def improve(self, key: tuple[str, str, str], body: bytes) -> None:
        """Compress ``body`` again at Brotli's best quality in a worker thread and put it in
        the cache under ``key`` (if still there) when done: the first visitors of a release
        are not kept waiting for it, the next ones get some 10 % fewer bytes."""
        if key in self.improving:
            return
        future = asyncio.get_running_loop().run_in_executor(None, compress_best, body)
        self.improving[key] = future

        def done(finished: asyncio.Future[bytes]) -> None:
            self.improving.pop(key, None)
            if not finished.cancelled() and finished.exception() is None \
                    and key in self.cache:
                self.cache[key] = finished.result()

        future.add_done_callback(done)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") == "HEAD":
            await self.app(scope, receive, send)
            return
        coding = chosen_coding(Headers(scope=scope).get("accept-encoding", ""))
        if coding is None:
            await self.app(scope, receive, _vary_only(send))
            return
        url = scope.get("path", "") + "?" + scope.get("query_string", b"").decode("latin-1")
        await _CompressingSend(self, send, url, coding).run(scope, receive)


def _vary_only(send: Send) -> Send:
    """Adds ``Vary: Accept-Encoding`` to text answers sent plain to a client that takes no
    coding of ours."""

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(raw=message.setdefault("headers", []))
            if compressible(headers.get("content-type", "")):
                headers.add_vary_header("Accept-Encoding")
        await send(message)

    return wrapped


class _Stream:
    """One body's compressor, gzip or Brotli: ``chunk(data, more)`` gives the bytes to send
    (a sync flush while ``more``, the end of the stream after the last chunk)."""

    def __init__(self, coding: str, level: int) -> None:
        self.chunk: Callable[[bytes, bool], bytes]
        if coding == "br":
            compressor = brotli.Compressor(quality=BROTLI_STREAM_QUALITY)

            def brotli_chunk(data: bytes, more: bool) -> bytes:
                out: bytes = compressor.process(data)
                end: bytes = compressor.flush() if more else compressor.finish()
                return out + end

            self.chunk = brotli_chunk
        else:
            deflate = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)

            def gzip_chunk(data: bytes, more: bool) -> bytes:
                out = deflate.compress(data)
                return out + deflate.flush(zlib.Z_SYNC_FLUSH if more else zlib.Z_FINISH)

            self.chunk = gzip_chunk


def compress_best(body: bytes) -> bytes:
    """``body`` in Brotli at :data:`BROTLI_QUALITY` (tens of milliseconds for a module: run
    in a worker thread)."""
    out: bytes = brotli.compress(body, quality=BROTLI_QUALITY)
    return out


class _CompressingSend:
    """One response on its way through :class:`Compression`."""

    def __init__(self, owner: Compression, send: Send, url: str, coding: str) -> None:
        self.owner = owner
        self.send = send
        self.url = url
        self.coding = coding
        self.start: Message | None = None
        self.passthrough = False
        self.stream: _Stream | None = None

    async def run(self, scope: Scope, receive: Receive) -> None:
        await self.owner.app(scope, receive, self.on_message)

    async def on_message(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            headers = MutableHeaders(raw=message.setdefault("headers", []))
            text = compressible(headers.get("content-type", ""))
            if text:
                headers.add_vary_header("Accept-Encoding")
            self.passthrough = (not text or message["status"] in (204, 206, 304)
                                or "content-encoding" in headers)
            if self.passthrough:
                await self.send(message)
            else:
                self.start = message  # held until the first body says how large it is
            return
        if self.passthrough or kind != "http.response.body":
            if self.start is not None:  # e.g. a pathsend answer: sent as it is
                await self.send(self.start)
                self.start = None
            await self.send(message)
            return
        body: bytes = message.get("body", b"")
        more = bool(message.get("more_body", False))
        if self.start is not None:
            start, self.start = self.start, None
            if not more and len(body) < self.owner.minimum_size:
                self.passthrough = True
                await self.send(start)
                await self.send(message)
                return
            self.stream = _Stream(self.coding, self.owner.level)
            headers = MutableHeaders(raw=start["headers"])
            headers["content-encoding"] = self.coding
            etag = headers.get("etag")
            if etag and not etag.startswith("W/"):
                headers["etag"] = "W/" + etag
            compressed = self._cached(etag, body) if etag and not more else \
                self.stream.chunk(body, more)
            if more:
                del headers["content-length"]
            else:
                headers["content-length"] = str(len(compressed))
            await self.send(start)
            await self.send({"type": "http.response.body", "body": compressed,
                             "more_body": more})
            return
        assert self.stream is not None
        await self.send({"type": "http.response.body", "body": self.stream.chunk(body, more),
                         "more_body": more})

    def _cached(self, etag: str, body: bytes) -> bytes:
        """The whole body compressed, from the owner's cache when the same URL and ETag
        were compressed before in the same coding. A Brotli body is first compressed at
        the fast quality (this answer does not wait) and improved to the best one in a
        worker thread for the next answers (:meth:`Compression.improve`)."""
        owner = self.owner
        key = (self.url, etag, self.coding)
        found = owner.cache.get(key)
        if found is not None:
            owner.cache.move_to_end(key)
            owner.cache_hits += 1
            return found
        assert self.stream is not None
        compressed = self.stream.chunk(body, False)
        if owner.cache_entries > 0 and len(compressed) <= CACHED_BODY_LIMIT:
            owner.cache[key] = compressed
            while len(owner.cache) > owner.cache_entries:
                owner.cache.popitem(last=False)
            if self.coding == "br":
                owner.improve(key, body)
        return compressed
