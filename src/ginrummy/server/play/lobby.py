"""The lobby: every open table in memory, table creation and joining, restore at start-up."""

from __future__ import annotations

import asyncio
import logging
import math
import re
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Literal

from ginrummy.bots import BOTS, parse_spec
from ginrummy.rules import OPTIONS, PRESETS, Format, Ruleset, RulesetError
from ginrummy.server.core.auth import invite_ok, new_secret, new_table_id, secret_hash
from ginrummy.server.core.kinds import OPEN_STATUSES, SeatKind, TableStatus
from ginrummy.server.core.limits import KeyedLimits, address_key
from ginrummy.server.core.protocol import Close, CreateTable, JoinTable
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.chat import ChatBlocks, ChatMutes, clean_name
from ginrummy.server.play.committer import CommitFailed, GroupCommitter
from ginrummy.server.play.connections import ConnectionCounts, SharedLimits
from ginrummy.server.play.messages import TableEntry
from ginrummy.server.play.restrictions import Restrictions
from ginrummy.server.play.seat import Seat
from ginrummy.server.play.settlement import Hooks, SeatRefused
from ginrummy.server.play.table import GameTable, table_rules
from ginrummy.server.play.tablewriter import ActionObserver, TableWriter
from ginrummy.storage import InsertTable, Repository, utcnow

if TYPE_CHECKING:
    from ginrummy.server.cluster.node import ClusterNode

log = logging.getLogger("ginrummy.server.lobby")

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
"""What a table id may look like (anything else is not looked up in the database)."""


class LobbyError(ValueError):
    """A lobby request that cannot be served: HTTP ``status``, error ``code``, ``field``."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.field = field
        self.retry_after = retry_after
        """Seconds to wait (``Retry-After``) for a 429."""

    @property
    def headers(self) -> dict[str, str]:
        """Headers of the error answer (``Retry-After`` for a 429)."""
        return {} if self.retry_after is None else {"Retry-After": str(self.retry_after)}


class Lobby:
    """Tables by id, each driven by its :class:`TableWriter`."""

    def __init__(self, settings: Settings, repository: Repository,
                 committer: GroupCommitter, node: ClusterNode | None = None) -> None:
        self.settings = settings
        self.repository = repository
        self.committer = committer
        self.node = node
        """This process in a cluster (docs/cluster.md): only the tables it owns are loaded
        here; ``None``: one process, every table is this one's."""
        if node is not None:
            node.handlers["join"] = self._answer_join
            node.handlers["describe"] = self._answer_describe
        self.writers: dict[str, TableWriter] = {}
        self.table_quota = KeyedLimits(settings.tables_per_address,
                                       settings.tables_window_seconds)
        """Tables created per address (``tables_per_address`` per ``tables_window_seconds``)."""
        self.limits = SharedLimits(settings)
        """Flood and chat budgets per seat and per spectator address."""
        self.sockets = ConnectionCounts(settings)
        """Open WebSocket connections per process and per address."""
        self._loading: dict[str, asyncio.Task[TableWriter | None]] = {}
        self.hooks = Hooks()
        """The players' layer's writes that go with a seat taken, given up or a match's end
        (:mod:`ginrummy.server.play.settlement`)."""
        self._refusals_logged = KeyedLimits(1, 60.0)
        """One log line a minute per refused address, not one per refused request."""
        self.mutes = ChatMutes()
        """Accounts an administrator muted in chat (docs/moderation.md)."""
        self.blocks = ChatBlocks()
        """Whose chat each connected account does not hear (docs/friends.md)."""
        self.restrictions = Restrictions()
        """Accounts banned now, and the addresses their bans and mutes extend to."""
        self.on_action: ActionObserver | None = None
        """Told of every committed action (the /metrics counters), if set."""
        self.on_error: Callable[[str], None] | None = None
        """Told the code of every ``error`` message sent to a connection, if set."""

    # ----------------------------------------------------------------- start and stop
    async def restore(self) -> int:
        """Load every unfinished table (and recently finished ones, for a rematch) by
        replaying its events; returns how many were restored. In a cluster: take over and load
        the live tables nobody owns (one sweep); the others are their owners'."""
        if self.node is not None:
            try:
                return await self.node.sweep_once()
            except Exception as exc:  # Redis or the database away: the next sweeps retry
                log.warning("the first sweep failed (%s: %s); the next ones retry",
                            type(exc).__name__, exc)
                return 0
        since = utcnow() - timedelta(hours=self.settings.keep_over_hours)
        loop = asyncio.get_running_loop()
        stored = await loop.run_in_executor(
            None, lambda: self.repository.load_tables(OPEN_STATUSES)
            + self.repository.load_tables((TableStatus.OVER,), updated_since=since))
        for row in stored:
            try:
                table = GameTable.from_stored(row)
            except Exception:
                log.exception("table %s does not replay; it is left out", row.id)
                continue
            self.writers[table.id] = self._writer(table)
        await asyncio.gather(*(writer.start() for writer in list(self.writers.values())))
        return len(stored)

    def close(self) -> None:
        """Stop every table's timers."""
        for writer in self.writers.values():
            writer.close()

    def _writer(self, table: GameTable) -> TableWriter:
        return TableWriter(table, self.settings, self.committer, self.repository,
                           self._unloaded, self.hooks, self.mutes, self.on_action)

    def _unloaded(self, writer: TableWriter) -> None:
        if self.writers.get(writer.table.id) is writer:
            del self.writers[writer.table.id]
            if self.node is not None:  # its lease given back: another process may load it
                self.node.released(writer.table.id)

    def unload(self, table_id: str, reason: str) -> bool:
        """Stop playing a table here at once (its lease lost): its timers stop, its
        connections close with 1012 and ``reason`` (the clients reconnect, to whichever
        process), it leaves the lobby. False when the table was not loaded."""
        writer = self.writers.get(table_id)
        if writer is None:
            return False
        writer.close()
        for conn in list(writer.connections):
            conn.close(Close.RESTARTING, reason)
        self._unloaded(writer)  # releases the lease
        return True

    # ----------------------------------------------------------------- queries
    def get(self, table_id: str) -> TableWriter | None:
        """A table's writer, if the table is in memory (see :meth:`load`)."""
        return self.writers.get(table_id)

    async def load(self, table_id: str) -> TableWriter | None:
        """A table's writer: in memory, or loaded from the database (a finished table
        unloaded after ``unload_after_seconds``); ``None`` for an unknown table, and in a
        cluster for a table another process owns (see :meth:`locate`)."""
        writer = self.writers.get(table_id)
        if writer is not None or not TABLE_ID.fullmatch(table_id):
            return writer
        if self.node is not None:
            try:
                if await self._ensure(table_id) != "local":
                    return None
            except LobbyError:  # Redis away (logged): not loaded
                return None
        return await self._load_here(table_id)

    async def _ensure(self, table_id: str) -> Literal["local", "remote"] | None:
        assert self.node is not None
        try:
            return await self.node.ensure(table_id)
        except Exception as exc:  # Redis away: the table's owner cannot be known
            log.warning("table %s: its owner is unknown (%s: %s)", table_id,
                        type(exc).__name__, exc)
            raise LobbyError(503, "unavailable", "the server cannot reach its cluster "
                             "(Redis); try again in a few seconds") from None

    async def adopt(self, table_ids: list[str]) -> int:
        """Load tables this process just took over (a sweep), read in one query and started
        together; how many were loaded (a table that cannot be is given back)."""
        wanted = [t for t in table_ids if t not in self.writers and t not in self._loading]
        if not wanted:
            return 0
        loop = asyncio.get_running_loop()
        stored = await loop.run_in_executor(
            None, lambda: self.repository.load_tables(ids=wanted))
        found = {row.id: row for row in stored}
        started: list[TableWriter] = []
        for table_id in wanted:
            row = found.get(table_id)
            if table_id in self.writers:  # loaded meanwhile (a client asked for it)
                continue
            try:
                table = None if row is None else GameTable.from_stored(row)
            except Exception:
                log.exception("table %s does not replay; it is left out", table_id)
                table = None
            if table is None:
                if self.node is not None:
                    self.node.broken(table_id)
                continue
            writer = self.writers[table_id] = self._writer(table)
            started.append(writer)
        results = await asyncio.gather(*(writer.start() for writer in started),
                                       return_exceptions=True)
        for writer, result in zip(started, results, strict=True):
            if isinstance(result, BaseException):
                log.error("table %s: its start after a takeover failed: %r", writer.table.id,
                          result)
            if self.node is not None:
                await self.node.acquired(writer.table.id)
        return len(started)

    async def locate(self, table_id: str) -> Literal["local", "remote"] | None:
        """Where a table is played: ``local`` (loaded here now), ``remote`` (another process
        of the cluster owns it: relay to it) or ``None`` (no such table)."""
        if table_id in self.writers:
            return "local"
        if not TABLE_ID.fullmatch(table_id):
            return None
        if self.node is None:
            return "local" if await self.load(table_id) is not None else None
        where = await self._ensure(table_id)
        if where == "local":
            return "local" if await self._load_here(table_id) is not None else None
        return where

    async def _load_here(self, table_id: str) -> TableWriter | None:
        writer = self.writers.get(table_id)
        if writer is not None:
            return writer
        task = self._loading.get(table_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._load(table_id))
            self._loading[table_id] = task
            task.add_done_callback(lambda _t: self._loading.pop(table_id, None))
        return await asyncio.shield(task)

    async def _load(self, table_id: str) -> TableWriter | None:
        loop = asyncio.get_running_loop()
        try:
            stored = await loop.run_in_executor(None, self.repository.load_table, table_id)
        except Exception:
            log.exception("table %s could not be loaded", table_id)
            return None
        if stored is None:
            if self.node is not None:
                self.node.broken(table_id)
            return None
        writer = self.writers.get(table_id)
        if writer is not None:
            return writer
        try:
            table = GameTable.from_stored(stored)
        except Exception:
            log.exception("table %s does not replay; it is left out", table_id)
            if self.node is not None:
                self.node.broken(table_id)
            return None
        writer = self.writers[table_id] = self._writer(table)
        await writer.start()
        if self.node is not None:
            await self.node.acquired(table_id)
        return writer

    async def listing(self) -> list[TableEntry] | list[dict[str, Any]]:
        """The lobby's table list: this process's :meth:`public_tables`, or in a cluster
        every process's (as published in Redis)."""
        if self.node is None:
            return self.public_tables()
        return await self.node.listing()

    def public_tables(self) -> list[TableEntry]:
        """Lobby entries of open public tables, newest first."""
        writers = [w for w in self.writers.values()
                   if w.table.public and w.table.status in OPEN_STATUSES]
        writers.sort(key=lambda w: w.table.created_at, reverse=True)
        return [w.table.entry() for w in writers]

    def visible(self, table_id: str, invite: str | None) -> TableWriter:
        """A table the caller may see; :class:`LobbyError` otherwise."""
        writer = self.writers.get(table_id)
        if writer is None:
            raise LobbyError(404, "not_found", f"no table {table_id!r}")
        table = writer.table
        if not invite_ok(table.public, table.invite_hash, invite):
            raise LobbyError(403, "forbidden", "this table is private: the invite is missing "
                             "or wrong", "invite")
        return writer

    # ----------------------------------------------------------------- create and join
    async def create(self, body: CreateTable, address: str | None = None,
                     account: tuple[int, str] | None = None) -> dict[str, Any]:
        """Create a table with the creator in seat 0; ``address`` (the client's) counts
        against its quota (:class:`LobbyError` 429 ``too_many_tables`` when spent). A
        logged-in creator's ``account`` (id, name) takes seat 0 under the account's name."""
        nickname = account[1] if account is not None else _name(body.nickname, 24, "nickname")
        # no name: "" stored, each client shows a default name in its viewer's language
        name = _name(body.name, 40, "name") if body.name else ""
        rules = _rules(body)
        players = rules.players
        seats = [Seat(i) for i in range(players)]
        token = new_secret()
        seats[0].kind, seats[0].name = SeatKind.HUMAN, nickname
        seats[0].token_hash = secret_hash(token)
        seats[0].account_id = None if account is None else account[0]
        for seat_no, spec in body.bots.items():
            if not 1 <= seat_no < players:
                raise LobbyError(400, "bad_request", f"bots: seat {seat_no} is not one of "
                                 f"1..{players - 1} (seat 0 is yours)", "bots")
            try:
                level, _ = parse_spec(spec)
            except ValueError as exc:
                raise LobbyError(400, "bad_request", f"bots: {exc}", "bots") from None
            seats[seat_no].kind, seats[seat_no].level = SeatKind.BOT, level
            seats[seat_no].name = f"computer ({level})"
        clock = body.clock_seconds
        if clock and not self.settings.min_clock_seconds <= clock <= \
                self.settings.max_clock_seconds:
            raise LobbyError(400, "bad_request", f"clock_seconds: {clock:g}; use 0 (no clock) "
                             f"or {self.settings.min_clock_seconds:g} to "
                             f"{self.settings.max_clock_seconds:g}", "clock_seconds")
        if body.pool_chips is not None and rules.format is not Format.SINGLE_HAND:
            raise LobbyError(400, "bad_request", "pool_chips: a prize pool is for single_hand "
                             "tables only (R6.4)", "pool_chips")
        pool = body.pool_chips if body.buy_in is None else _buy_in_pool(body, rules, account)
        if address is not None:
            address = address_key(address)
            quota = self.table_quota.get(address)
            if not quota.allow():
                wait = max(1, math.ceil(quota.retry_after()))
                if self._refusals_logged.get(address).allow():
                    log.warning("refused tables: an address over its quota of %d tables in "
                                "%g s", self.settings.tables_per_address,
                                self.settings.tables_window_seconds)
                raise LobbyError(429, "too_many_tables", f"at most "
                                 f"{self.settings.tables_per_address} new tables in "
                                 f"{self.settings.tables_window_seconds:g} s from one "
                                 f"address; try again in {wait} s", None, wait)
        invite = None if body.public else new_secret()
        table_id = new_table_id()
        while table_id in self.writers:
            table_id = new_table_id()
        if self.node is not None:  # its lease first: the insert is fenced by its token
            try:
                while await self.node.keeper.acquire(table_id) is None:
                    table_id = new_table_id()
            except Exception as exc:
                log.warning("no lease for a new table (%s: %s)", type(exc).__name__, exc)
                raise LobbyError(503, "unavailable", "the server cannot reach its cluster "
                                 "(Redis); try again in a few seconds") from None
        table = GameTable(table_id, name, rules.name, table_rules(rules), body.public,
                          None if invite is None else secret_hash(invite),
                          round(clock * 1000), pool, seats, buy_in=body.buy_in)
        try:  # the creator's seat hooks (a buy-in) commit with the table
            seated = self.hooks.sit(table, seats[0])
        except (SeatRefused, ValueError) as exc:
            if self.node is not None:  # no table: its lease given back
                self.node.released(table_id)
            if isinstance(exc, SeatRefused):
                raise LobbyError(exc.status, exc.code, str(exc), "buy_in") from None
            raise LobbyError(400, "bad_request", str(exc)) from None
        try:
            await self.committer.commit([InsertTable(table.to_stored()), *seated], table_id)
        except CommitFailed as exc:
            if self.node is not None:
                self.node.released(table_id)
            refused = exc.__cause__
            if isinstance(refused, SeatRefused):  # the buy-in, checked again in the commit
                raise LobbyError(refused.status, refused.code, str(refused), "buy_in") \
                    from None
            raise LobbyError(503, "storage", str(exc)) from None
        writer = self._writer(table)
        self.writers[table_id] = writer
        if body.seeds:  # the first deal waits for the creator's client seed
            writer.seeds.seeding_seats.add(0)
        await writer.start()
        if self.node is not None:
            await self.node.acquired(table_id)
        return {"table_id": table_id, "seat": 0, "token": token, "invite": invite,
                "table": writer.table.entry()}

    async def open_reserved(self, table_id: str, name: str, preset: str, rules: Ruleset,
                            clock_ms: int, accounts: list[tuple[int, str]]) -> bool:
        """Open a public table whose every seat is kept for an account (id, name), in
        order: each account's session takes its seat on any device, no token needed (a
        tournament's match). Idempotent: a table of that id already stored (or leased by
        another process) is left as it is and ``False`` returned."""
        if table_id in self.writers:
            return False
        loop = asyncio.get_running_loop()
        if await loop.run_in_executor(None, self.repository.load_table, table_id) is not None:
            return False
        if self.node is not None and await self.node.keeper.acquire(table_id) is None:
            return False
        seats = [Seat(i, SeatKind.HUMAN, account_name, account_id=account_id)
                 for i, (account_id, account_name) in enumerate(accounts)]
        table = GameTable(table_id, name, preset, table_rules(rules), True, None, clock_ms,
                          None, seats)
        try:
            await self.committer.commit([InsertTable(table.to_stored())], table_id)
        except CommitFailed:
            if self.node is not None:
                self.node.released(table_id)
            raise
        if table_id in self.writers:
            # a player's client asked for the table while its row was being committed and
            # loaded it from the database (its id is stored with the match before the table
            # opens): that writer is the table's only one, a second would fork it
            return True
        writer = self._writer(table)
        self.writers[table_id] = writer
        await writer.start()
        if self.node is not None:
            await self.node.acquired(table_id)
        return True

    async def join(self, table_id: str, body: JoinTable,
                   account: tuple[int, str] | None = None) -> dict[str, Any]:
        """Seat a guest, or a logged-in ``account`` (id, name) under its name, at a table.
        In a cluster, a table another process owns is joined by a request to that process
        (over Redis; :class:`LobbyError` 503 when it does not answer within 5 s)."""
        if await self.locate(table_id) == "remote":
            return await self._ask_owner(table_id, "join", {
                "table_id": table_id, "body": body.model_dump(mode="json"),
                "account": None if account is None else list(account)})
        return await self._join_here(table_id, body, account)

    async def describe(self, table_id: str, invite: str | None,
                       account_id: int | None) -> dict[str, Any]:
        """A table's entry for a caller who may see it, with ``your_seat`` (the seat of
        ``account_id``, if any); asked of the owner process when it is another."""
        where = await self.locate(table_id)
        if where == "remote":
            return await self._ask_owner(table_id, "describe", {
                "table_id": table_id, "invite": invite, "account_id": account_id})
        held = self.writers.get(table_id)
        your_seat = None if account_id is None or held is None else next(
            (s.seat for s in held.table.seats if s.account_id == account_id), None)
        # an account seated at a private table sees it without the invite (another device)
        writer = self.visible(table_id, invite) if your_seat is None else held
        assert writer is not None
        return {**writer.table.entry(), "your_seat": your_seat}

    async def _ask_owner(self, table_id: str, method: str,
                         args: dict[str, Any]) -> dict[str, Any]:
        from ginrummy.server.cluster.node import OwnerUnreachable

        assert self.node is not None
        try:
            answer = await self.node.call(table_id, method, args)
        except OwnerUnreachable as exc:
            raise LobbyError(503, "unavailable", f"{exc}; try again in a few seconds") \
                from None
        error = answer.get("error")
        if isinstance(error, dict):
            raise LobbyError(int(error.get("status", 500)), str(error.get("code", "internal")),
                             str(error.get("message", "")), error.get("field"))
        result: dict[str, Any] = answer.get("ok", {})
        return result

    async def _answer_join(self, args: dict[str, Any]) -> dict[str, Any]:
        """The owner's side of a join through another process."""
        account = args.get("account")
        return await self._answer(self._join_here(
            str(args["table_id"]), JoinTable.model_validate(args["body"]),
            None if account is None else (int(account[0]), str(account[1]))))

    async def _answer_describe(self, args: dict[str, Any]) -> dict[str, Any]:
        """The owner's side of a table's entry asked through another process."""
        table_id = str(args["table_id"])
        if table_id not in self.writers:
            return await self._answer(self._gone(table_id))
        account_id = args.get("account_id")
        return await self._answer(self.describe(
            table_id, args.get("invite"), None if account_id is None else int(account_id)))

    @staticmethod
    async def _gone(table_id: str) -> dict[str, Any]:
        raise LobbyError(503, "unavailable", f"table {table_id} is moving to another server "
                         "process; try again in a few seconds")

    @staticmethod
    async def _answer(work: Any) -> dict[str, Any]:
        try:
            return {"ok": await work}
        except LobbyError as exc:
            return {"error": {"status": exc.status, "code": exc.code, "message": str(exc),
                              "field": exc.field}}

    async def _join_here(self, table_id: str, body: JoinTable,
                         account: tuple[int, str] | None) -> dict[str, Any]:
        if await self.locate(table_id) == "remote":  # owned here no more
            await self._gone(table_id)
        writer = self.visible(table_id, body.invite)
        nickname = account[1] if account is not None else _name(body.nickname, 24, "nickname")
        try:
            seat, token = await writer.join(nickname, body.seat,
                                            None if account is None else account[0],
                                            seeds=body.seeds)
        except LookupError as exc:
            code = str(exc.args[0])
            raise LobbyError(409, code, _JOIN_REFUSALS.get(code, code), "seat") from None
        except CommitFailed as exc:
            refused = exc.__cause__
            if isinstance(refused, SeatRefused):  # the buy-in, checked again in the commit
                raise LobbyError(refused.status, refused.code, str(refused), "seat") from None
            raise LobbyError(503, "storage", str(exc)) from None
        except SeatRefused as exc:  # a buy-in table: a guest, or too few chips
            raise LobbyError(exc.status, exc.code, str(exc), "seat") from None
        except ValueError as exc:
            raise LobbyError(400, "bad_request", str(exc), "seat") from None
        if self.node is not None:
            self.node.changed()
        return {"seat": seat, "token": token, "table": writer.table.entry()}


_JOIN_REFUSALS = {"seat_taken": "that seat is taken", "table_full": "the table is full",
                  "already_seated": "your account already has a seat at this table",
                  "barred": "an administrator removed you from this table"}


def _buy_in_pool(body: CreateTable, rules: Ruleset, account: tuple[int, str] | None) -> int:
    """The pool of a table with a buy-in (the buy-in times the players, docs/chips.md); a
    :class:`LobbyError` when the table cannot have one."""
    if rules.format is not Format.SINGLE_HAND:
        raise LobbyError(400, "bad_request", "buy_in: a buy-in is for single_hand (arena) "
                         "tables only (R6.4)", "buy_in")
    if body.pool_chips is not None:
        raise LobbyError(400, "bad_request", "pool_chips: a table with a buy-in has the pool "
                         "its players pay (the buy-in times the players)", "pool_chips")
    if body.bots:
        raise LobbyError(400, "bad_request", "bots: a table with a buy-in seats accounts only",
                         "bots")
    if account is None:
        raise LobbyError(401, "login_required", "log in to create a table with a buy-in")
    assert body.buy_in is not None
    return body.buy_in * rules.players


def _name(text: str, limit: int, field: str) -> str:
    try:
        return clean_name(text, limit)
    except ValueError as exc:
        raise LobbyError(400, "bad_request", f"{field}: {exc}", field) from None


def _rules(body: CreateTable) -> Ruleset:
    if body.preset.lower() not in PRESETS:
        raise LobbyError(400, "bad_request", f"preset: unknown preset {body.preset!r}; known: "
                         f"{', '.join(PRESETS)}", "preset")
    options = dict(body.options)
    if body.players is not None:
        options["players"] = body.players
    players = options.get("players")
    if isinstance(players, int) and "format" not in options:
        allowed = OPTIONS["format"].value_players_allowed(players)
        preset_format = Ruleset.preset(body.preset).format.value
        if allowed and preset_format not in allowed:
            options["format"] = allowed[0]  # R6.1: 3-4 players play single hands
    try:
        return Ruleset.preset(body.preset, **options)
    except RulesetError as exc:
        raise LobbyError(400, "bad_request", str(exc), exc.option) from None
    except (TypeError, ValueError) as exc:
        raise LobbyError(400, "bad_request", f"options: {exc}", "options") from None


def known_levels() -> list[str]:
    """The registered computer levels."""
    return list(BOTS)
