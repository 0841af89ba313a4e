"""The coach in the browser, end to end (issue 29, point 3: "a 2-player match is coached in
at most 5 s in the browser, p95 over 20 matches, with a progress bar; long matches are capped
and say so").

``benchmarks/bench_coach.py`` times what the server's worker runs; this times what a player
waits for. Each run starts a real ``ginrummy serve`` on a fresh SQLite file (as the browser
tests do: ``tests/web/web_support.py``), signs up one account through the API, and stores
``--matches`` finished classic matches to 100 in which that account held seat 0, the way the
server stores a finished table (``tests/server/player_helpers.py``: the events of a match
played in memory, then the match-end hook's writes). The matches are bench_coach.py's:
``intermediate`` in seat 0 (the account's moves) against ``simple``, seeds 0..N-1, so every
run coaches the same matches and the worker-side figures compare.

For each match a fresh browser profile (a new context holding only the account's session
cookie) opens the replay of the match (``/replay/ID``), as the account would from its
history (``--view table``: the end of the match at its table, ``/?table=ID``, where the
seated account sees the coach under the rematch box), and clicks *Ask the coach*. The
time is taken inside the page: from the click's event to the first animation frame after
the advice is on the page: the costliest mistake's reason (``.coach-reason``) and its
replay link (``a.coach-step-link``), beside the accuracy (a match without a mistake: the
accuracy alone, counted as ``no_mistake``); ``render_seconds`` is the part from the end of
the ``200`` answer to that frame. The page also records whether the progress bar
(``#coach-progress``) showed while it waited (and filled: a ``value``, the decisions done,
from a ``202``'s ``progress``) and whether the summary says the match was capped
(``#coach-capped``).

The first match of a run is the server's first coach request: its worker process is spawned
then (``coach_api.CoachService.pool``); ``first_s`` gives it apart.

Headless Debian Chromium (``/usr/bin/chromium``, ``--chromium`` to change it) with the
browser tests' arguments (``--no-sandbox --disable-gpu --disable-background-networking``).

    .venv/bin/python benchmarks/bench_coach_browser.py [--matches 20] [--runs 1] [--json]

``--ask-cost N`` measures instead what each ask costs the server while the coach works (the
client asks every ``RETRY_MS``): its process's CPU time for N asks answered ``202``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "web"))
sys.path.insert(0, str(ROOT / "tests" / "server"))

from player_helpers import (  # noqa: E402 - after the path set-up
    add_account,
    events_of,
    log_in,
    migrated,
    passing_table,
    store,
    table_with,
)
from web_support import CHROMIUM_ARGS, running_server  # noqa: E402

from ginrummy.bots import make_bot  # noqa: E402
from ginrummy.gameloop import play_match  # noqa: E402
from ginrummy.rules import Ruleset  # noqa: E402
from ginrummy.server.play.settlement import Ending  # noqa: E402
from ginrummy.server.players.names import name_key  # noqa: E402
from ginrummy.server.players.sessions import SESSION_COOKIE  # noqa: E402
from ginrummy.storage import open_engine, players  # noqa: E402
from ginrummy.storage.accounts import AccountStore  # noqa: E402

PASSWORD = "correct horse battery"
TIMEOUT_MS = 120_000
ADVICE = "#coach-costliest li.coach-costly"

WATCH_JS = """() => {
    const t = window.__coachTimes = {asked: null, shown: null, painted: null,
                                     progress: false, filled: false, capped: false,
                                     mistake: false};
    document.addEventListener('click', (event) => {
        if (event.target.closest && event.target.closest('#coach-ask') && t.asked === null)
            t.asked = performance.now();
    }, true);
    const check = () => {
        if (t.shown !== null) return;
        const bar = document.getElementById('coach-progress');
        if (bar) t.progress = true;
        if (bar && bar.hasAttribute('value')) t.filled = true;
        if (!document.getElementById('coach-accuracy')) return;
        const advice = document.querySelector('ADVICE');
        const ready = advice
            ? advice.querySelector('.coach-reason') && advice.querySelector('a.coach-step-link')
            : !document.querySelector('#coach-costliest');
        if (!ready) return;
        t.shown = performance.now();
        t.mistake = Boolean(advice);
        t.capped = Boolean(document.getElementById('coach-capped'));
        requestAnimationFrame(() => { t.painted = performance.now(); });
    };
    new MutationObserver(check).observe(document.body, {childList: true, subtree: true,
                                                        attributes: true});
}""".replace("ADVICE", ADVICE)


TIMES_JS = """() => {
    const t = window.__coachTimes;
    const asks = performance.getEntriesByType('resource')
        .filter((e) => e.name.endsWith('/coach') && e.startTime >= t.asked);
    const last = asks[asks.length - 1];
    return {...t, first_ask: asks.length ? asks[0].startTime : null,
            answered: last ? last.responseEnd : null};
}"""


def percentile(sorted_values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank (as bench_coach.py)."""
    rank = max(1, min(len(sorted_values), round(q / 100 * len(sorted_values) + 0.5)))
    return sorted_values[rank - 1]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20, help="matches a run (default 20)")
    parser.add_argument("--runs", type=int, default=1, help="runs, each with a fresh server")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the browser")
    parser.add_argument("--view", choices=["replay", "table"], default="replay",
                        help="where the player asks: the match's replay (default) or the "
                        "end of the match at its table")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--ask-cost", type=int, default=0, metavar="N",
                        help="instead: the server's CPU for each of N asks (3 rounds) that "
                        "answer 202 while a long match is coached")
    return parser.parse_args(argv)


def stored_matches(db: Path, account_id: int, matches: int) -> list[str]:
    """Store ``matches`` finished classic matches to 100 (intermediate, the account, against
    simple; seeds 0..N-1) as the server stores a finished table; their replay ids."""
    rules = Ruleset.preset("classic")
    engine = open_engine(f"sqlite:///{db}")
    try:
        for seed in range(matches):
            match = play_match(rules, [make_bot("intermediate", seed),
                                       make_bot("simple", seed)], seed=seed)
            store(engine, table_with(f"cb{seed}", rules, "classic", [account_id, "simple"],
                                     events_of(match), ["Ann", "Simple"]))
        stored = players.account_matches(engine, account_id)
        by_table = {m.table_id: m.id for m in stored}
        return [str(by_table[f"cb{seed}"]) for seed in range(matches)]
    finally:
        engine.dispose()


def coach_one(browser: Any, base: str, state: Any, match_id: str, table_id: str,
              view: str) -> dict[str, Any]:
    """Open the match's replay (or its table's end) in a fresh profile, ask the coach, and
    time the advice."""
    context = browser.new_context(base_url=base, storage_state=state,
                                  viewport={"width": 1280, "height": 900})
    context.add_init_script("localStorage.setItem('ginrummy.loggedIn', 'true');")
    try:
        page = context.new_page()
        requests: list[int] = []
        page.on("response", lambda r: requests.append(r.status) if r.url.endswith("/coach")
                else None)
        if view == "table":
            page.goto(f"/?table={table_id}")
            page.wait_for_selector("#rematch-box #coach-ask")
        else:
            page.goto(f"/replay/{match_id}")
            page.wait_for_selector("#replay-page[data-steps] #coach-ask")
        page.evaluate(WATCH_JS)
        started = time.perf_counter()
        page.click("#coach-ask")
        page.wait_for_function("() => window.__coachTimes.painted !== null",
                               timeout=TIMEOUT_MS)
        outside = time.perf_counter() - started
        times = page.evaluate(TIMES_JS)
        answered = times["answered"]
        return {"match_id": match_id, "seconds": (times["painted"] - times["asked"]) / 1000,
                "render_seconds": None if answered is None
                else (times["painted"] - answered) / 1000,
                "outside_seconds": outside, "progress_bar": times["progress"],
                "progress_filled": times["filled"],
                "capped": times["capped"], "mistake": times["mistake"],
                "requests": len(requests), "answers_202": requests.count(202)}
    finally:
        context.close()


def one_run(matches: int, chromium: str, view: str) -> dict[str, Any]:
    """A fresh server, the matches stored, each coached in the browser once."""
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory() as tmp, running_server(Path(tmp)) as server, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(base_url=server.base)
            signup = context.request.post("/api/account/signup",
                                          headers={"Origin": server.base},
                                          data={"name": "Ann", "password": PASSWORD})
            assert signup.status == 201, signup.text()
            state = context.storage_state()
            context.close()
            engine = open_engine(f"sqlite:///{server.db_path}")
            found = AccountStore(engine).by_key(name_key("Ann"))
            engine.dispose()
            assert found is not None
            ids = stored_matches(server.db_path, found.id, matches)
            per_match = [coach_one(browser, server.base, state, match_id, f"cb{seed}", view)
                         for seed, match_id in enumerate(ids)]
        finally:
            browser.close()
    return summarise(per_match)


def summarise(per_match: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = sorted(m["seconds"] for m in per_match)
    return {"matches": len(per_match), "p50_s": round(percentile(seconds, 50), 2),
            "p95_s": round(percentile(seconds, 95), 2), "max_s": round(seconds[-1], 2),
            "first_s": round(per_match[0]["seconds"], 2),
            "capped": sum(m["capped"] for m in per_match),
            "no_mistake": sum(not m["mistake"] for m in per_match),
            "progress_bar": sum(m["progress_bar"] for m in per_match),
            "progress_filled": sum(m["progress_filled"] for m in per_match),
            "render_max_s": round(max(m["render_seconds"] or 0 for m in per_match), 3),
            "requests_mean": round(sum(m["requests"] for m in per_match) / len(per_match), 2),
            "per_match": [{k: round(v, 3) if isinstance(v, float) else v
                           for k, v in m.items()} for m in per_match]}


def ask_cost(asks: int) -> list[float]:
    """The server process's CPU milliseconds for one ask answered ``202`` (the worker's
    apart): a stuck match of 2,330 decisions keeps the coach busy while ``asks`` asks of
    its account are timed, 3 rounds."""
    import httpx
    import psutil
    with tempfile.TemporaryDirectory() as tmp, running_server(Path(tmp)) as server:
        assert server.process is not None
        engine = migrated(f"sqlite:///{server.db_path}")
        ann = add_account(engine, "Ann")
        store(engine, passing_table("long", [ann, None], 2330, ["Ann", "Guest"]),
              Ending.STUCK)
        cookie = {"cookie": f"{SESSION_COOKIE}={log_in(engine, ann)}"}
        engine.dispose()
        process = psutil.Process(server.process.pid)
        with httpx.Client(base_url=server.base, timeout=30, trust_env=False) as client:
            (match_id,) = [m["id"] for m in client.get("/api/players/Ann").json()["recent"]]
            path = f"/api/matches/{match_id}/coach"
            assert client.get(path, headers=cookie).status_code == 202
            time.sleep(1)  # the worker started
            rounds = []
            for _ in range(3):
                before = process.cpu_times()
                codes = [client.get(path, headers=cookie).status_code for _ in range(asks)]
                after = process.cpu_times()
                assert codes == [202] * asks, codes
                spent = after.user + after.system - before.user - before.system
                rounds.append(round(spent / asks * 1000, 3))
    return rounds


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.ask_cost:
        rounds = ask_cost(args.ask_cost)
        print(json.dumps({"ask_cpu_ms": rounds}) if args.json else
              f"server CPU a 202 ask: {', '.join(f'{r} ms' for r in rounds)}")
        return 0
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    load_before = os.getloadavg()
    runs = [one_run(args.matches, args.chromium, args.view) for _ in range(args.runs)]
    out = {"started": started, "load_before": [round(x, 2) for x in load_before],
           "load_after": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count(),
           "chromium": args.chromium, "view": args.view, "runs": runs}
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{started}, load average {out['load_before'][0]} -> {out['load_after'][0]}, "
          f"{out['cpus']} CPUs, the {args.view} view")
    for i, run in enumerate(runs, 1):
        print(f"  run {i}: {run['matches']} matches, p50 {run['p50_s']} s, p95 {run['p95_s']} "
              f"s, max {run['max_s']} s (first, the worker's start: {run['first_s']} s), "
              f"{run['capped']} capped, progress bar in {run['progress_bar']} (filling in "
              f"{run['progress_filled']}), "
              f"{run['requests_mean']} requests a match (the answer to the frame shown: at most "
              f"{run['render_max_s']} s), {run['no_mistake']} without a "
              f"mistake")
    return 0


if __name__ == "__main__":
    sys.exit(main())
