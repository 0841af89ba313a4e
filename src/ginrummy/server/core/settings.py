"""Server settings: defaults, overridden by ``GINRUMMY_*`` environment variables and the CLI."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ginrummy.gameloop import MAX_DECISIONS
from ginrummy.web import STATIC_DIR


@dataclass(frozen=True)
class Settings:
    """Everything the server can be told. Times are in seconds unless the name says ms."""

    db: str = "sqlite:///ginrummy.db"
    """``sqlite:///path``, a bare file path, or ``postgresql://user@host/db``."""
    host: str = "127.0.0.1"
    port: int = 8000
    allowed_origins: tuple[str, ...] = ()
    """Origins accepted on WebSocket upgrades and state-changing requests besides the public
    origins (``*``: any)."""
    static_dir: Path = STATIC_DIR
    hold_seconds: float = 60.0
    """How long a disconnected player's seat is held before a computer plays it."""
    bot_delay_ms: int = 700
    """Pause before a computer player moves (so people can follow)."""
    between_hands_seconds: float = 30.0
    """Longest wait after a hand before the next deal (humans may say ``next`` earlier)."""
    fair_seed_seconds: float = 3.0
    """How long a hand's deal waits for the client seeds of the seats that offer them
    (docs/fair.md); a seed not sent by then is made by the server, announced as such."""
    default_bot: str = ""
    """Level used for timeouts and absent players; empty: intermediate if known, else simple."""
    frame_limit: int = 8192
    messages_per_window: int = 100
    message_window_seconds: float = 20.0
    chat_max_chars: int = 200
    chats_per_window: int = 5
    chat_window_seconds: float = 10.0
    hello_timeout_seconds: float = 10.0
    send_queue_limit: int = 512
    """Messages queued for one slow connection before it is closed."""
    ws_compression: bool = False
    """permessage-deflate on WebSockets: less bandwidth, more CPU per message."""
    sqlite_synchronous: str = "FULL"
    commit_interval_ms: float = 0.0
    """Extra wait before each group commit to gather more actions (0: commit as soon as the
    previous commit is done)."""
    commit_spacing_ms: float = 10.0
    """While the server is busy, the least time between the starts of two group commits:
    the actions of that time share one commit (one sync of the disk); a write that comes
    after a quiet spell commits at once (0: no spacing). 10 cut the CPU per action by a
    third at 1,000 tables (docs/server-load.md)."""
    keep_over_hours: float = 24.0
    """Finished tables stay open for a rematch this long (also across restarts)."""
    max_decisions: int = MAX_DECISIONS
    """Decisions of one hand after which the computer seats stop playing it and the table
    is stopped (``stuck``): the one game loop's cap (:mod:`ginrummy.gameloop`)."""
    min_clock_seconds: float = 5.0
    max_clock_seconds: float = 600.0
    log_level: str = "info"
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    # ----- quotas, limits and the tables' lifecycle (docs/server.md, *Quotas and lifecycle*)
    tables_per_address: int = 30
    """Tables one address may create per ``tables_window_seconds`` (more: HTTP 429)."""
    tables_window_seconds: float = 3600.0
    abandon_after_seconds: float = 600.0
    """A waiting or playing table with no person connected this long is closed
    (``abandoned``)."""
    unload_after_seconds: float = 300.0
    """A finished (over, stuck, abandoned) table with nobody connected this long leaves
    memory (it is loaded from the database again when asked for)."""
    tournament_grace_seconds: float = 120.0
    """A tournament player not at their match's table this long after the round started
    forfeits the match (docs/tournaments.md)."""
    tournament_tick_seconds: float = 2.0
    """How often the tournament driver looks at the tournaments."""
    tournaments_by_anyone: bool = False
    """Any account may create a tournament (else administrators only)."""
    max_connections: int = 900
    """WebSocket connections per process (more: close 1013)."""
    connections_per_address: int = 50
    """WebSocket connections per client address (more: close 1013)."""
    login_failures_per_name: int = 5
    """Failed log-ins per account name per ``login_window_seconds`` (more: HTTP 429)."""
    login_attempts_per_address: int = 30
    """Log-in and sign-up attempts per client address per ``login_window_seconds``."""
    login_window_seconds: float = 900.0
    signups_per_address: int = 5
    """Accounts one address may create per ``signup_window_seconds``."""
    signup_window_seconds: float = 3600.0
    replays_per_address: int = 60
    """Replays and record downloads of finished matches (``/api/matches/{id}/replay`` and
    ``/record``) one address may ask for per ``replays_window_seconds`` (more: HTTP 429)."""
    replays_window_seconds: float = 60.0
    replay_cache_bytes: int = 64 * 2**20
    """Built replays and records kept in memory (plain and gzipped), the least recently asked
    dropped first."""

    # ----- the HTTP edge and operations (docs/server.md *The edge*, docs/deploy.md)
    public_origins: tuple[str, ...] = ()
    """The origins the web client is served from (``https://cards.example``); the Origin of
    WebSockets and state-changing requests must be one of them (or of ``allowed_origins``).
    Empty: the address the server listens on (``http://127.0.0.1:PORT`` and
    ``http://localhost:PORT`` on a loopback or wildcard address)."""
    https: bool = False
    """The server is only reached over HTTPS (behind a TLS proxy): send HSTS on every
    response, not only on those whose request came over HTTPS."""
    forwarded_allow_ips: str = "127.0.0.1"
    """Proxies trusted for ``X-Forwarded-For``/``-Proto`` (uvicorn's option; ``*`` = any)."""
    max_body_bytes: int = 16 * 1024
    """Largest HTTP request body (more: 413, refused before it is read)."""
    log_format: str = "json"
    """``json`` (one JSON object a line) or ``text``."""
    log_file: str = ""
    """Also write the log to this file (JSON lines)."""
    head_timeout_seconds: float = 10.0
    """A request line and its headers must arrive within this (else the socket is closed):
    sockets that send nothing or half a request never pile up."""
    max_sockets: int = 0
    """Sockets the process keeps open at once; past it a new connection closes the oldest one
    still waiting for its request head. 0: the process's file limit less 64."""
    ws_ping_seconds: float = 15.0
    """WebSocket ping interval; a peer that does not answer within 10 s more is closed, so a
    vanished client's socket is gone within 25 s."""
    metrics_token: str = ""
    """Who may read ``/metrics``: whoever sends ``Authorization: Bearer <metrics_token>``
    (docs/moderation.md); empty: nobody, unless ``metrics_loopback``."""
    metrics_loopback: bool = False
    """Also serve ``/metrics`` without the token to a client on this machine that no proxy
    forwarded (no ``Forwarded``, ``X-Forwarded-*``, ``X-Real-IP`` header): the operator's
    explicit choice, for a server no proxy on the same machine fronts (docs/deploy.md)."""

    # ----- several processes on one PostgreSQL and one Redis (docs/cluster.md)
    redis: str = ""
    """``redis://host:port/db``: this process is one of several sharing the database, each
    table owned by one of them by a lease in Redis. Empty: one process owns every table."""
    redis_prefix: str = "ginrummy"
    """The prefix of every Redis key and channel of the server (one Redis may serve several
    independent clusters, or tests)."""
    lease_ttl_ms: int = 6000
    """A table's lease: a dead owner's tables are taken over at most this long after its last
    renewal (renewed every third of it)."""
    sweep_seconds: float = 1.0
    """How often a process looks for live tables without an owner (and takes them)."""
    lobby_publish_seconds: float = 2.0
    """How often a process publishes its tables' lobby entries (also at once on a change)."""

    def replace(self, **changes: Any) -> Settings:
        """A copy with some settings changed."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, then ``GINRUMMY_<NAME>`` variables, then ``overrides`` (not None)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name == "extra":
                continue
            raw = env.get(f"GINRUMMY_{f.name.upper()}")
            if raw is not None:
                values[f.name] = _convert(f.name, raw, type(getattr(cls(), f.name)))
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def _convert(name: str, raw: str, kind: type) -> Any:
    try:
        if kind is bool:
            return raw.strip().lower() in ("1", "true", "yes", "on")
        if kind is int:
            return int(raw)
        if kind is float:
            return float(raw)
        if kind is tuple:
            return tuple(x.strip() for x in raw.split(",") if x.strip())
        if kind is Path or issubclass(kind, Path):
            return Path(raw)
        return raw
    except ValueError:
        raise ValueError(f"GINRUMMY_{name.upper()}: bad value {raw!r}") from None
