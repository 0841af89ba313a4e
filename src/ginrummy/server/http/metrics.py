"""``/metrics``: the server's counters in the Prometheus text format (prometheus-client).

Each app has its own :class:`~prometheus_client.CollectorRegistry` (never the process-wide
default one: a test process builds many apps). What is measured, and where:

- ``ginrummy_connections``: open WebSocket connections (read at scrape time);
- ``ginrummy_tables{status}``: tables in memory by status (read at scrape time);
- ``ginrummy_actions_total{source}``: committed actions (``rate()`` gives actions per second);
- ``ginrummy_commit_seconds``: the group committer's transactions (one batch each);
- ``ginrummy_ack_seconds``: from a person's action reaching its table to its acknowledgement
  being queued (lock wait, checks, commit, the states built);
- ``ginrummy_logins_total{result}``: log-ins, ``ok`` or ``failed`` (:func:`count_login`);
- ``ginrummy_errors_total{channel, code}``: HTTP error answers by their ``error.code`` (else
  the status) and WebSocket ``error`` messages by code;
- ``ginrummy_commits_total``, ``ginrummy_commit_writes_total``,
  ``ginrummy_commit_failures_total``: the group committer's transactions, writes committed
  and writes refused; ``ginrummy_tables_restored``: tables restored at start-up.

Who may read it: :func:`allowed` (docs/moderation.md, *Metrics*).
"""

from __future__ import annotations

import hmac
import ipaddress
import time
from bisect import bisect_left
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ginrummy.server.core import jsontext
from ginrummy.server.core.kinds import Source, TableStatus
from ginrummy.server.http.common import error_response

if TYPE_CHECKING:
    from ginrummy.server.http.common import Server
    from ginrummy.server.play.lobby import Lobby

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                   5.0)
"""Seconds: a commit or an acknowledgement takes a few ms; the tail is what matters."""
ERROR_BODY_BYTES = 4096
"""Of an HTTP error answer, the bytes read for its ``error.code``."""


class LiveCollector(Collector):
    """What is read from the lobby at scrape time: connections, tables by status."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    def collect(self) -> Iterator[Metric]:
        """The gauges as they are now."""
        connections = GaugeMetricFamily("ginrummy_connections",
                                        "Open WebSocket connections")
        connections.add_metric([], self.lobby.sockets.total)
        yield connections
        counts = dict.fromkeys(TableStatus, 0)
        for writer in list(self.lobby.writers.values()):
            counts[writer.table.status] += 1
        tables = GaugeMetricFamily("ginrummy_tables", "Tables in memory by status",
                                   labels=["status"])
        for status, count in counts.items():
            tables.add_metric([status.value], count)
        yield tables


class StoreCollector(Collector):
    """The group committer's counters and the tables restored at start-up (read at scrape
    time; ``/api/health`` shows none of them to the public)."""

    def __init__(self, server: Server) -> None:
        self.server = server

    def collect(self) -> Iterator[Metric]:
        """The counters as they are now."""
        stats = self.server.committer.stats
        for name, documentation, value in (
                ("ginrummy_commits", "Group-commit transactions committed", stats.batches),
                ("ginrummy_commit_writes", "Writes committed (a table's change each)",
                 stats.writes),
                ("ginrummy_commit_failures", "Writes the database refused", stats.failures)):
            counter = CounterMetricFamily(name, documentation)
            counter.add_metric([], value)
            yield counter
        restored = GaugeMetricFamily("ginrummy_tables_restored",
                                     "Tables restored from the database at start-up")
        restored.add_metric([], self.server.restored)
        yield restored


class Latencies:
    """A histogram kept in plain numbers (one list index and two additions a sample, against
    a dozen calls and two locks in ``prometheus_client.Histogram``), read at scrape time.
    Each instance has one writer (the event loop, or the committer's thread)."""

    def __init__(self, name: str, documentation: str,
                 bounds: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.name = name
        self.documentation = documentation
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        """Samples per bucket (not cumulative); the last one is above every bound."""
        self.sum = 0.0
        self.created = time.time()

    def observe(self, seconds: float) -> None:
        """One sample (a bucket's bound is inclusive, as Prometheus's ``le``)."""
        self.counts[bisect_left(self.bounds, seconds)] += 1
        self.sum += seconds

    def family(self) -> Metric:
        """The histogram as Prometheus exposes it (cumulative buckets, count, sum, created)."""
        counts, total = list(self.counts), 0
        buckets: list[tuple[str, float]] = []
        for bound, count in zip((*map(floatToGoString, self.bounds), "+Inf"), counts,
                                strict=True):
            total += count
            buckets.append((bound, total))
        family = HistogramMetricFamily(self.name, self.documentation)
        family.add_metric([], buckets, self.sum)
        family.add_sample(f"{self.name}_created", {}, self.created)
        return family


class HotCollector(Collector):
    """The counters bumped on every action, kept as plain numbers by :class:`Metrics`."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        """The action counts and the two latency histograms."""
        metrics = self.metrics
        actions = CounterMetricFamily("ginrummy_actions", "Committed actions by who chose them",
                                      labels=["source"])
        for source, count in list(metrics.action_counts.items()):
            actions.add_metric([source.value], count, created=metrics.created)
        yield actions
        yield metrics.commit_seconds.family()
        yield metrics.ack_seconds.family()


class Metrics:
    """The metrics of one server."""

    def __init__(self, lobby: Lobby) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(LiveCollector(lobby))
        self.created = time.time()
        self.action_counts: dict[Source, int] = dict.fromkeys(Source, 0)
        """Committed actions by who chose them (``ginrummy_actions_total``)."""
        self.commit_seconds = Latencies(
            "ginrummy_commit_seconds", "Group commit transaction time (one batch)")
        self.ack_seconds = Latencies(
            "ginrummy_ack_seconds", "From a person's action reaching its table to its ack "
            "being queued")
        self.registry.register(HotCollector(self))
        self.logins = Counter("ginrummy_logins", "Log-in attempts by result", ["result"],
                              registry=self.registry)
        self.errors = Counter("ginrummy_errors", "Error answers by channel and code",
                              ["channel", "code"], registry=self.registry)
        for result in ("ok", "failed"):
            self.logins.labels(result)

    def action(self, source: Source, ack_seconds: float | None) -> None:
        """A committed action (a person's with its acknowledgement latency)."""
        self.action_counts[source] += 1
        if ack_seconds is not None:
            self.ack_seconds.observe(ack_seconds)

    def batch(self, _writes: int, seconds: float) -> None:
        """A committed group-commit transaction."""
        self.commit_seconds.observe(seconds)

    def ws_error(self, code: str) -> None:
        """An ``error`` message sent over a WebSocket."""
        self.errors.labels("ws", code).inc()

    def http_error(self, code: str) -> None:
        """An HTTP error answer."""
        self.errors.labels("http", code).inc()

    def text(self) -> bytes:
        """The exposition text."""
        return bytes(generate_latest(self.registry))


def install(server: Server) -> Metrics:
    """Make the server's metrics and connect them to the committer, the lobby's tables and
    its connections."""
    metrics = Metrics(server.lobby)
    metrics.registry.register(StoreCollector(server))
    server.extra["metrics"] = metrics
    server.committer.on_batch = metrics.batch
    server.lobby.on_action = metrics.action
    server.lobby.on_error = metrics.ws_error
    return metrics


def metrics_of(server: Server) -> Metrics | None:
    """The server's metrics (``None`` before :func:`install`)."""
    metrics = server.extra.get("metrics")
    return metrics if isinstance(metrics, Metrics) else None


def count_login(server: Server, ok: bool) -> None:
    """Count a log-in attempt (called by the accounts' log-in route)."""
    metrics = metrics_of(server)
    if metrics is not None:
        metrics.logins.labels("ok" if ok else "failed").inc()


# ---------------------------------------------------------------------- the route
def _loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


PROXY_HEADERS = ("forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto",
                 "x-real-ip", "x-client-ip", "true-client-ip", "cf-connecting-ip")
"""Headers a proxy adds: a request carrying any came through one, so its loopback address
is the proxy's, not the client's."""


def allowed(request: Request) -> bool:
    """The request carries the ``metrics_token`` setting as a bearer token; or the operator
    allowed loopback (``metrics_loopback``) and the client is on this machine with no proxy
    header at all. Nothing else: no token and no explicit loopback, no metrics."""
    settings = request.app.state.server.settings
    token: str = settings.metrics_token
    if token:
        given = request.headers.get("authorization", "")
        if hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return True
    if not settings.metrics_loopback:
        return False
    forwarded = any(name in request.headers for name in PROXY_HEADERS)
    return not forwarded and _loopback(request.client.host if request.client else None)


async def metrics_page(request: Request) -> Response:
    """``GET /metrics``."""
    if not allowed(request):
        return error_response(403, "forbidden", "metrics need the metrics token "
                              "(Authorization: Bearer; docs/deploy.md, *Health and metrics*)")
    metrics = metrics_of(request.app.state.server)
    if metrics is None:
        return error_response(503, "starting", "the server is starting")
    return Response(metrics.text(), media_type=CONTENT_TYPE_LATEST)


ROUTES = [Route("/metrics", metrics_page, methods=["GET"])]


# ---------------------------------------------------------------------- HTTP errors
class ErrorCounter:
    """ASGI middleware: counts every HTTP answer of status 400 or more by its JSON
    ``error.code`` (docs/protocol.md), else by its status."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 0
        body = bytearray()

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body" and status >= 400:
                room = ERROR_BODY_BYTES - len(body)
                if room > 0:
                    body.extend(bytes(message.get("body", b""))[:room])
                if not message.get("more_body", False):
                    _count_http_error(scope, status, bytes(body))
            await send(message)

        await self.app(scope, receive, watch)


def _count_http_error(scope: Scope, status: int, body: bytes) -> None:
    app = scope.get("app")
    server = getattr(getattr(app, "state", None), "server", None)
    metrics = None if server is None else metrics_of(server)
    if metrics is not None:
        metrics.http_error(_error_code(body) or str(status))


def _error_code(body: bytes) -> str | None:
    try:
        data: Any = jsontext.loads(body)
    except (jsontext.JSONTextError, ValueError):
        return None
    error = data.get("error") if isinstance(data, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code[:40] if isinstance(code, str) else None
