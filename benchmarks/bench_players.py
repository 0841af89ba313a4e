"""The players' queries at scale on PostgreSQL: the leaderboard (top 100 and the viewer's own
rank), a profile, and the rating update at a match's end.

The script creates its own database on the server of ``--pg`` (dropped at the end unless
``--keep``), migrates it, and bulk-loads (``COPY``) ``--accounts`` accounts with their
ratings and ``--matches`` finished matches with their players (2 seats each; the
``arena-multi`` ones 3). Then, for each of ``--runs`` runs, it measures:

- ``leaderboard``: ``--requests`` leaderboard reads of the ``classic`` board, each the top 100
  plus the rank of a random viewer (what ``GET /api/leaderboard/classic`` reads), p50/p95/p99,
  measured by the client; ``leaderboard_in_database``: the same statements' planning and
  execution time inside PostgreSQL (``EXPLAIN ANALYZE``), without the client's and the
  machine's share;
- ``profile``: the reads of ``GET /api/players/NAME`` for random accounts (ratings with ranks,
  rating history, statistics, recent matches), p50/p95/p99;
- ``rating_update``: the match-end write (:func:`ginrummy.server.players.matchrecord.store_match`:
  read both players' ratings, Glicko-2, insert the match and its players, write the ratings),
  each in its own committed transaction, p50/p95/p99; and ``summarise``, the part the hook
  computes on the event loop (statistics of a 14-hand match), in microseconds.

JSON on standard output::

    .venv/bin/python benchmarks/bench_players.py --runs 3 > /tmp/players.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event, text
from sqlalchemy.engine import make_url

from ginrummy.server.play.settlement import Ending
from ginrummy.server.players.matchrecord import MatchSummary, SeatRecord, SeatStats, store_match
from ginrummy.server.players.ratings import CATEGORIES, MULTI
from ginrummy.storage import migrate, open_engine, players

ROOT = Path(__file__).resolve().parent.parent
PG_URL = os.environ.get("GINRUMMY_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
CATEGORY_SHARE = {"classic": 0.5, "playok": 0.2, "eaai": 0.1, "arena": 0.1, MULTI: 0.1}
"""How the matches are spread over the categories."""
START = datetime(2026, 1, 1, tzinfo=UTC)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg", default=PG_URL, help="a PostgreSQL URL on the server to use")
    parser.add_argument("--accounts", type=int, default=100_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--requests", type=int, default=500,
                        help="leaderboard and profile reads a run (default 500)")
    parser.add_argument("--updates", type=int, default=300,
                        help="rating updates a run (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    return parser.parse_args(argv)


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50, p95, p99 and max of samples in milliseconds, rounded to 0.01 ms."""
    ordered = sorted(samples)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"p50": at(0.50), "p95": at(0.95), "p99": at(0.99), "max": round(ordered[-1], 2),
            "n": len(ordered)}


# ----------------------------------------------------------------------------- the database
def create_database(url: str, name: str) -> str:
    """Create database ``name`` on the server of ``url``; its URL."""
    admin = open_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        admin.dispose()
    return make_url(url).set(database=name).render_as_string(hide_password=False)


def drop_database(url: str, name: str) -> None:
    admin = open_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


def _field(value: object) -> str:
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _copy(engine: Engine, statement: str, rows: Iterator[tuple[Any, ...]],
          chunk: int = 20_000) -> int:
    """COPY rows in text format, written in chunks of lines (much faster than row by row)."""
    raw = engine.raw_connection()
    count = 0
    try:
        driver: Any = raw.driver_connection
        with driver.cursor() as cursor, cursor.copy(statement) as copy:
            lines: list[str] = []
            for row in rows:
                lines.append("\t".join(map(_field, row)))
                count += 1
                if len(lines) >= chunk:
                    copy.write("\n".join(lines) + "\n")
                    lines.clear()
            if lines:
                copy.write("\n".join(lines) + "\n")
        driver.commit()
    finally:
        raw.close()
    return count


def load(engine: Engine, accounts: int, matches: int, seed: int) -> dict[str, Any]:
    """Bulk-load the accounts, their ratings, the tables and the matches; the row counts and
    seconds taken."""
    rng = random.Random(seed)
    started = time.perf_counter()
    counts: dict[str, int] = {}
    counts["accounts"] = _copy(
        engine, "COPY accounts (id, name, name_key, password_hash, role, created_at) "
        "FROM STDIN",
        ((i, f"player{i}", f"player{i}", "x", "player", START) for i in range(1, accounts + 1)))
    played: dict[str, list[int]] = {c: [] for c in CATEGORIES}
    category_list = list(CATEGORY_SHARE)
    weights = list(CATEGORY_SHARE.values())

    buckets: Counter[tuple[str, int]] = Counter()

    def rating_rows() -> Iterator[tuple[Any, ...]]:
        for account in range(1, accounts + 1):
            for category in CATEGORIES:
                if category == "classic" or rng.random() < CATEGORY_SHARE[category] * 2:
                    played[category].append(account)
                    rating = rng.gauss(1500, 250)
                    buckets[(category, players.bucket_of(rating))] += 1
                    yield (account, category, rating, rng.uniform(45, 350),
                           0.06 if category != MULTI else 0.0, rng.randint(1, 60), START)

    counts["ratings"] = _copy(engine, "COPY ratings (account_id, category, rating, deviation, "
                              "volatility, games, updated_at) FROM STDIN", rating_rows())
    counts["rating_buckets"] = _copy(
        engine, "COPY rating_buckets (category, bucket, accounts) FROM STDIN",
        ((category, bucket, n) for (category, bucket), n in sorted(buckets.items())))
    tables = max(1, matches // 10)
    counts["game_tables"] = _copy(
        engine, "COPY game_tables (id, name, preset, rules, players, public, clock_ms, "
        "status, version, created_at, updated_at) FROM STDIN",
        ((f"b{t:09d}", "bench", "classic", "{}", 2, True, 0, "over", 200, START, START)
         for t in range(tables)))
    match_categories = rng.choices(category_list, weights, k=matches)

    def match_rows() -> Iterator[tuple[Any, ...]]:
        for m, category in enumerate(match_categories, start=1):
            preset = "arena" if category == MULTI else category
            yield (m, f"b{m % tables:09d}", 1, 150, preset, category,
                   3 if category == MULTI else 2, "over", START + timedelta(seconds=m * 30))

    counts["matches"] = _copy(engine, "COPY matches (id, table_id, first_version, "
                              "last_version, preset, category, players, ending, finished_at) "
                              "FROM STDIN", match_rows())

    def seat_rows() -> Iterator[tuple[Any, ...]]:
        for m, category in enumerate(match_categories, start=1):
            pool = played[category]
            seats = 3 if category == MULTI else 2
            for seat in range(seats):
                computer = seat > 0 and rng.random() < 0.3
                account = None if computer else rng.choice(pool)
                place = 1 + (seat + m) % seats
                rating = None if account is None else rng.gauss(1500, 250)
                yield (m, seat, account, "expert" if computer else None,
                       "Expert" if computer else f"player{account}", 100 if place == 1 else 40,
                       place, False, rating, rating, 8, 1, 4, 1, 0, 3, 45, 100)

    counts["match_players"] = _copy(
        engine, "COPY match_players (match_id, seat, account_id, level, name, score, place, "
        "abandoned, rating_before, rating_after, hands, gins, knocks, undercuts, voids, "
        "caught, caught_deadwood, points) FROM STDIN", seat_rows())
    with engine.begin() as conn:
        conn.execute(text("SELECT setval('accounts_id_seq', (SELECT max(id) FROM accounts))"))
        conn.execute(text("SELECT setval('matches_id_seq', (SELECT max(id) FROM matches))"))
        # a few banned accounts, as a live site has (they leave the boards)
        conn.execute(text("UPDATE accounts SET banned_at = :t WHERE id % 1000 = 7"),
                     {"t": START})
    loaded = time.perf_counter() - started
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))
    return {"rows": counts, "load_seconds": round(loaded, 1),
            "vacuum_analyze_seconds": round(time.perf_counter() - started - loaded, 1)}


# ----------------------------------------------------------------------------- measurements
def timed(work: Callable[[], object], repeat: int) -> list[float]:
    """Milliseconds of each call."""
    samples = []
    for _ in range(repeat):
        began = time.perf_counter()
        work()
        samples.append((time.perf_counter() - began) * 1000)
    return samples


def measure_leaderboard(engine: Engine, accounts: int, requests: int,
                        rng: random.Random) -> dict[str, float]:
    def one() -> None:  # as the route reads: one connection
        with engine.connect() as conn:
            top = players.leaderboard(conn, "classic", 100)
            me = players.board_entry(conn, "classic", rng.randint(1, accounts))
        assert len(top) == 100 and (me is None or me.rank >= 1)

    timed(one, 20)  # warm the connection pool and the caches
    return percentiles(timed(one, requests))


def measure_leaderboard_in_server(engine: Engine, accounts: int, requests: int,
                                  rng: random.Random) -> dict[str, float]:
    """The database's own time (planning + execution, ``EXPLAIN ANALYZE``) of a leaderboard
    read's statements: what the queries cost without the client and the machine's load."""
    captured: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_rest: Any) -> None:
        if not statement.startswith("EXPLAIN"):
            captured.append((statement, parameters))

    samples = []
    event.listen(engine, "before_cursor_execute", capture)
    try:
        for _ in range(requests):
            captured.clear()
            with engine.connect() as conn:
                players.leaderboard(conn, "classic", 100)
                players.board_entry(conn, "classic", rng.randint(1, accounts))
                statements = [c for c in captured if not c[0].startswith("select pg_")]
                total = 0.0
                for statement, parameters in statements:
                    plan = conn.exec_driver_sql("EXPLAIN (ANALYZE, FORMAT JSON) " + statement,
                                                parameters).scalar_one()
                    plan = plan[0] if isinstance(plan, list) else json.loads(plan)[0]
                    total += plan["Planning Time"] + plan["Execution Time"]
            samples.append(total)
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    return percentiles(samples)


def measure_profile(engine: Engine, accounts: int, requests: int,
                    rng: random.Random) -> dict[str, float]:
    def one() -> None:  # as the route reads: one connection
        account = rng.randint(1, accounts)
        with engine.connect() as conn:
            players.account_ratings(conn, account)
            players.rating_history(conn, account)
            players.account_totals(conn, account)
            players.account_matches(conn, account, limit=10)

    timed(one, 20)
    return percentiles(timed(one, requests))


def _summary(rng: random.Random, accounts: int, table_id: str) -> MatchSummary:
    first, second = rng.sample(range(1, accounts + 1), 2)
    stats = SeatStats(hands=9, knocks=4, caught=5, caught_deadwood=80, points=110)
    return MatchSummary(table_id, 1, 150, "classic", "classic", Ending.OVER, (
        SeatRecord(0, f"player{first}", first, None, 230, 1, False, stats),
        SeatRecord(1, f"player{second}", second, None, 60, 2, False, stats)))


def measure_rating_update(engine: Engine, accounts: int, updates: int,
                          rng: random.Random) -> dict[str, float]:
    def one() -> None:
        with engine.begin() as conn:
            store_match(conn, _summary(rng, accounts, f"b{rng.randrange(100):09d}"))

    timed(one, 10)
    return percentiles(timed(one, updates))


def measure_summarise(repeat: int = 200) -> dict[str, float]:
    sys.path.insert(0, str(ROOT / "tests" / "server"))
    from player_helpers import bot_table

    from ginrummy.server.play.settlement import MatchEnd
    from ginrummy.server.players.matchrecord import summarise

    table = bot_table("bench", "classic", [1, "simple"], seed=4)
    end = MatchEnd(table, Ending.OVER)
    samples = timed(lambda: summarise(end), repeat)
    return {k: round(v * 1000, 1) for k, v in percentiles(samples).items() if k != "n"}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    name = f"ginrummy_bench_players_{os.getpid()}"
    url = create_database(args.pg, name)
    report: dict[str, Any] = {
        "benchmark": "players", "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "accounts": args.accounts, "matches": args.matches, "runs": []}
    engine = open_engine(url)
    try:
        with engine.connect() as conn:
            report["postgresql"] = conn.execute(text("SHOW server_version")).scalar()
        migrate(engine)
        report["load"] = load(engine, args.accounts, args.matches, args.seed)
        rng = random.Random(args.seed)
        for run in range(args.runs):
            report["runs"].append({
                "run": run + 1,
                "leaderboard_ms": measure_leaderboard(engine, args.accounts, args.requests,
                                                      rng),
                "leaderboard_in_database_ms": measure_leaderboard_in_server(
                    engine, args.accounts, min(args.requests, 200), rng),
                "profile_ms": measure_profile(engine, args.accounts, args.requests, rng),
                "rating_update_ms": measure_rating_update(engine, args.accounts, args.updates,
                                                          rng),
                "summarise_us": measure_summarise(),
            })
            report["runs"][-1]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
            print(json.dumps(report["runs"][-1]), file=sys.stderr)
    finally:
        engine.dispose()
        if not args.keep:
            drop_database(args.pg, name)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
