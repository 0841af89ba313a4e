"""``ginrummy serve``: the web client, lobby API and WebSocket endpoint under uvicorn."""

from __future__ import annotations

import argparse
import gc
import sys
import threading
import time
from typing import Any

GC_FREEZE_SECONDS = 0.25
"""How often the objects that survived are moved out of the cyclic collector's reach."""
GIL_SWITCH_SECONDS = 0.001
"""The interpreter's thread switch interval in the server (Python's default is 5 ms). The
group committer's database thread lets the GIL go around every SQLite call and must get it
back from a busy event loop each time: with 5 ms, at 1,600 tables commits slowed to 127 a
second of 12 writes each and p99 was 161 ms; with 1 ms, 328 commits a second and p99 33 ms
(docs/server-load.md)."""
GC_COLLECT_SECONDS = 3600.0
"""Longest time between two full collections (everything handed back to the collector)."""
GC_GROWTH = 1.0
"""A full collection also runs when the process's peak RSS doubled since the last one: a
bound on garbage frozen while it was alive, well above the growth of a server filling with
tables (at 25%, the collections that growth started while 1,000 tables were opened paused the
event loop 500 ms and took the load benchmark's p99 from 11 to 240-270 ms). Peak RSS
costs one system call to read; ``gc.get_freeze_count()`` walks every frozen object (at
300 tables, reading it every tick took p99 from 4 to 30 ms)."""
GC_QUIET_TICKS = 3
"""On a quiet server (the collector made no collection of its own since the last freeze), the
young collection and the freeze run every this many ticks; the ticks between leave the few
young objects young (neither collected nor frozen). At 10-20 tables the young collection on
every tick cost 2% of the server's instructions (callgrind: benchmarks/callgrind_server.py)."""
GC_GROWTH_PAUSE_SECONDS = 600.0
"""Shortest time between two full collections started by growth (a full collection pauses
the event loop 100-300 ms at hundreds of tables; while tables are being created or restored
the frozen objects grow fast)."""
GRACEFUL_SHUTDOWN_SECONDS = 10.0
"""On SIGTERM/SIGINT uvicorn stops accepting, closes the WebSockets (1012) and waits this
long for requests in flight before it cancels them; then the lobby stops and the group
committer writes what is pending."""
WS_PING_TIMEOUT_SECONDS = 10.0
"""A WebSocket peer that does not answer a ping within this is closed."""


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``serve``."""
    parser.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="port (default 8000)")
    parser.add_argument("--db", default=None, metavar="URL",
                        help="database: sqlite:///path/to/file.db (default "
                        "sqlite:///ginrummy.db) or postgresql://user@host/dbname")
    parser.add_argument("--allow-origin", dest="allowed_origins", action="append",
                        metavar="ORIGIN", help="another web origin allowed to open WebSockets "
                        "(repeatable), e.g. http://localhost:5173")
    parser.add_argument("--hold", dest="hold_seconds", type=float, metavar="SECONDS",
                        help="how long a disconnected player's seat is held before the "
                        "computer plays it (default 60)")
    parser.add_argument("--bot-delay", dest="bot_delay_ms", type=int, metavar="MS",
                        help="pause before a computer player moves (default 700)")
    parser.add_argument("--between-hands", dest="between_hands_seconds", type=float,
                        metavar="SECONDS", help="longest pause between hands (default 30)")
    parser.add_argument("--public-origin", dest="public_origins", action="append",
                        metavar="ORIGIN", help="an origin the web client is served from, "
                        "e.g. https://cards.example (repeatable; default: the address it "
                        "listens on); WebSockets and state-changing requests from any other "
                        "Origin are refused")
    parser.add_argument("--https", action="store_true", default=None,
                        help="the server is reached over HTTPS only (behind a TLS proxy): "
                        "send Strict-Transport-Security on every response")
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                        help="proxies trusted for X-Forwarded-For/-Proto (comma-separated; "
                        "default 127.0.0.1)")
    parser.add_argument("--redis", default=None, metavar="URL",
                        help="one of several processes sharing the database: table leases, "
                        "the lobby and frames between processes in this Redis, e.g. "
                        "redis://127.0.0.1:6379/0 (needs a PostgreSQL --db; docs/cluster.md)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="run N server processes on this machine sharing the port, each "
                        "a member of the cluster (N > 1 needs --redis and a PostgreSQL --db)")
    parser.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--supervisor", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--log-level", default=None,
                        choices=("critical", "error", "warning", "info", "debug"))
    parser.add_argument("--log-format", default=None, choices=("json", "text"),
                        help="json: one JSON object a line (default); text")
    parser.add_argument("--log-file", default=None, metavar="PATH",
                        help="also write the log to this file")


def run_serve(args: argparse.Namespace) -> int:
    """Start the server; returns when it stops."""
    import uvicorn  # the server extra (a missing one: ginrummy.cli.extras, in main)

    from ginrummy.server import Settings, create_app
    from ginrummy.server.core.logs import configure_logging
    settings = Settings.from_env(
        host=args.host, port=args.port, db=args.db,
        allowed_origins=tuple(args.allowed_origins) if args.allowed_origins else None,
        hold_seconds=args.hold_seconds, bot_delay_ms=args.bot_delay_ms,
        between_hands_seconds=args.between_hands_seconds, log_level=args.log_level,
        public_origins=tuple(args.public_origins) if args.public_origins else None,
        https=args.https, forwarded_allow_ips=args.forwarded_allow_ips,
        log_format=args.log_format, log_file=args.log_file, redis=args.redis)
    if not 0 < settings.port < 65536:
        raise ValueError(f"--port: {settings.port} is not a port number")
    workers = getattr(args, "workers", 1)
    check_cluster(settings, workers)
    if workers > 1:
        from ginrummy.cli.workers import supervise

        print(f"ginrummy: serving on http://{settings.host}:{settings.port}/ with {workers} "
              f"processes (database {_safe_url(settings.db)}, redis "
              f"{_safe_url(settings.redis)})", flush=True)
        return supervise(settings, workers)
    configure_logging(settings.log_level, settings.log_format, settings.log_file)
    app = create_app(settings)
    sys.setswitchinterval(GIL_SWITCH_SECONDS)
    freeze_survivors(GC_FREEZE_SECONDS)
    if not getattr(args, "reuse_port", False):
        print(f"ginrummy: serving on http://{settings.host}:{settings.port}/ "
              f"(database {_safe_url(settings.db)}"
              + (f", redis {_safe_url(settings.redis)})" if settings.redis else ")"),
              flush=True)
        uvicorn.Server(uvicorn_config(app, settings)).run()
        return 0
    from ginrummy.cli.workers import shared_socket, watch_supervisor

    supervisor = getattr(args, "supervisor", None)
    if supervisor is not None:  # a child of --workers: it stops when its supervisor dies
        watch_supervisor(supervisor)
    uvicorn.Server(uvicorn_config(app, settings)).run(
        sockets=[shared_socket(settings.host, settings.port)])
    return 0


def check_cluster(settings: Any, workers: int) -> None:
    """Refuse, with a message saying why, what cannot run: ``--workers`` below 1, or above 1
    without Redis and PostgreSQL; ``--redis`` with SQLite (one file, one process)."""
    if workers < 1:
        raise ValueError(f"--workers: {workers}; give 1 or more processes")
    postgres = settings.db.startswith(("postgresql://", "postgresql+", "postgres://"))
    if workers > 1 and not settings.redis:
        raise ValueError(f"--workers {workers}: several processes share their tables through "
                         "Redis: give --redis redis://HOST:PORT/DB (and a PostgreSQL --db)")
    if (workers > 1 or settings.redis) and not postgres:
        what = f"--workers {workers}" if workers > 1 else "--redis"
        raise ValueError(f"{what}: several processes need a shared PostgreSQL database "
                         f"(--db postgresql://USER@HOST/DB), not {_safe_url(settings.db)}")
    if settings.redis and not settings.redis.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(f"--redis: {_safe_url(settings.redis)} is not a Redis URL "
                         "(redis://HOST:PORT/DB, rediss://... or unix://...)")


def freeze_survivors(every: float, collect_every: float = GC_COLLECT_SECONDS,
                     growth_pause: float = GC_GROWTH_PAUSE_SECONDS) -> None:
    """Every ``every`` seconds, put the objects that survived out of the cyclic collector's
    reach (``gc.freeze``), so that no collection ever walks the tables' long-lived objects:
    with hundreds of tables a full collection stopped the event loop for 100-300 ms (at 400
    tables p99 was 158-195 ms, 34 ms with a freeze every 2 s), and a generation-1 collection
    still took 12-19 ms every second at 1,000-1,200 tables (p99 45-58 ms; 12 ms with a freeze
    every 0.25 s, which also resets the collector's counts so that only generation 0 is ever
    collected: docs/server-load.md). Frozen objects are still freed by reference counting;
    the cyclic garbage frozen meanwhile (a few objects per closed connection) is collected
    every ``collect_every`` seconds by a full collection (one pause of the event loop).

    Garbage must not be frozen: each closed connection left a few cycles that were frozen
    with the survivors and stayed until the hourly collection (RSS grew ~2 KB per
    connect/close). So each tick first collects the young generations (0 and 1: only what was
    allocated since the last freeze, a short pause), and a full collection also runs as soon
    as the process's peak RSS grew by ``GC_GROWTH`` since the last one (cycles that were
    frozen while alive and died later: a connection that lived longer than a tick), at most
    once every ``growth_pause`` seconds.

    The young collection runs only when it is cheap (the collector made no collection of its
    own since the last tick: a few hundred young objects) or after one of the collector's own
    collections found cyclic garbage (:class:`GarbageWatch`): a server whose connections come
    and go makes cycles and pays for the collection; a busy one whose players stay makes none
    and skips it
    (at 1,000 tables that collection every tick took the load benchmark's p99 from 6 to
    9 ms: docs/benchmarks.md)."""
    collect_ticks = max(1, round(collect_every / every))
    pause_ticks = max(1, round(growth_pause / every))
    watch = GarbageWatch()  # reads the collector's totals: no callback on each collection

    def run() -> None:
        ticks = quiet = 0
        baseline = peak_rss()
        while True:
            time.sleep(every)
            ticks += 1
            grown = ticks >= pause_ticks and peak_rss() > baseline * (1 + GC_GROWTH)
            if ticks >= collect_ticks or grown:
                gc.unfreeze()
                gc.collect()
                gc.freeze()
                ticks = 0
                baseline = peak_rss()
                watch.found = False
                continue
            # the young collection: when cheap (no automatic collection since the last tick: a
            # few hundred objects) or when cycles are dying (one of those collections found some)
            if watch.found:
                gc.collect(1)
                watch.found = False
            elif gc.get_count()[1] == 0:  # quiet: every GC_QUIET_TICKS ticks only
                quiet += 1
                if quiet < GC_QUIET_TICKS:
                    continue
                gc.collect(1)
                watch.found = False
            quiet = 0
            gc.freeze()

    threading.Thread(target=run, name="ginrummy-gc-freeze", daemon=True).start()


class GarbageWatch:
    """Whether a collection found cyclic garbage since ``found`` was last set to False: read
    from the collector's own totals (``gc.get_stats()``) when asked, so that collections cost
    nothing more (a ``gc.callbacks`` entry is two Python calls per collection, a few hundred a
    second under load). :meth:`on_collection` still serves as such an entry."""

    def __init__(self) -> None:
        self._flag = False
        self._seen = _collected()

    @property
    def found(self) -> bool:
        """True when some collection freed cyclic garbage since the last reset."""
        return self._flag or _collected() > self._seen

    @found.setter
    def found(self, value: bool) -> None:
        self._flag = value
        if not value:
            self._seen = _collected()

    def on_collection(self, phase: str, info: dict[str, int]) -> None:
        """A ``gc.callbacks`` entry: called before (``start``) and after (``stop``) each
        collection."""
        if phase == "stop" and info["collected"]:
            self._flag = True


def _collected() -> int:
    """Objects the cyclic collector freed since the process started (every generation)."""
    return sum(generation["collected"] for generation in gc.get_stats())


def peak_rss() -> int:
    """The process's peak resident set size (KiB on Linux, bytes on macOS; 0 elsewhere)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return 0
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def uvicorn_config(app: Any, settings: Any, **overrides: Any) -> Any:
    """The uvicorn configuration of ``serve`` (tests run the same one)."""
    import uvicorn

    from ginrummy.server.core.httpproto import protocol_options

    options: dict[str, Any] = dict(
        host=settings.host, port=settings.port, log_level=settings.log_level,
        ws_max_size=settings.frame_limit, ws_ping_interval=settings.ws_ping_seconds,
        ws_ping_timeout=WS_PING_TIMEOUT_SECONDS,
        ws_per_message_deflate=settings.ws_compression,
        # our own access log (ginrummy.server.core.logs.AccessLog) logs paths without their query
        # string; uvicorn's loggers propagate to the root logger that ``serve`` configures
        access_log=False, log_config=None, lifespan="on", server_header=False,
        proxy_headers=True, forwarded_allow_ips=settings.forwarded_allow_ips,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS)
    options.update(protocol_options(settings.head_timeout_seconds,
                                    settings.max_sockets or socket_budget()))
    options.update(overrides)
    return uvicorn.Config(app, **options)


def socket_budget() -> int:
    """The process's open-file limit less 64 (for the database, logs and static files)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return 4096
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 65_536
    return max(16, soft - 64)


def _safe_url(url: str) -> str:
    """The URL without its password."""
    scheme, sep, rest = url.partition("://")
    if sep and "@" in rest:
        auth, _, host = rest.rpartition("@")
        user = auth.split(":", 1)[0]
        return f"{scheme}://{user}@{host}"
    return url
