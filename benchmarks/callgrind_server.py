"""Instructions per action of the online server, counted by callgrind (independent of load).

Run: ``.venv/bin/python benchmarks/callgrind_server.py --tables 10 --duration 20
[--src /tmp/base_load/src] [--keep DIR] [--json]``.

The server (``ginrummy serve`` on a fresh SQLite file) runs under ``valgrind --tool=callgrind
--instr-atstart=no``; ``benchmarks/load_server.py`` drives it (people answering after
``--think`` seconds). Instrumentation is switched on when the measured window starts (the
tables are open and settled) and off when it ends, so the count covers the window only; it is
divided by the actions acknowledged in the window. ``--src`` puts another checkout's ``src``
first on ``PYTHONPATH`` (e.g. a ``git worktree`` of the base commit), so two versions compare
on the same machine. ``--keep DIR`` keeps the callgrind file for ``callgrind_annotate
--inclusive=yes``. Machine load changes the wall time of a run, not the count (a slower
machine answers fewer actions, each counted the same).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load_server

ROOT = Path(__file__).resolve().parent.parent


def start_under_callgrind(db: str, folder: Path, out_file: Path,
                          src: str | None) -> load_server.ServerHandle:
    """``ginrummy serve`` under callgrind (instrumentation off) on a free port."""
    port = load_server.free_port()
    env = {"GINRUMMY_TABLES_PER_ADDRESS": "1000000", "GINRUMMY_CONNECTIONS_PER_ADDRESS":
           "1000000", "GINRUMMY_MAX_CONNECTIONS": "1000000", **os.environ}
    if src:
        env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
           f"--callgrind-out-file={out_file}", sys.executable, "-m", "ginrummy.cli.main",
           "serve", "--port", str(port), "--db", db, "--log-level", "warning"]
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=folder,
                                   env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 600
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the server stopped at start-up:\n"
                               + log_path.read_text(errors="replace")[-2000:])
        try:
            if httpx.get(f"{url}/api/health", timeout=20).status_code == 200:
                # process=None: load_server must not SIGKILL it (callgrind writes at exit)
                return load_server.ServerHandle(url, process.pid, db, None, log_path)
        except httpx.HTTPError:
            pass
        time.sleep(1)
    process.kill()
    raise RuntimeError("the server under callgrind did not answer within 600 s")


def _control(pid: int, *args: str) -> None:
    subprocess.run(["callgrind_control", *args, str(pid)], check=True,
                   stdout=subprocess.DEVNULL)


def total_instructions(out_file: Path) -> int:
    """The largest ``totals:``/``summary:`` figure of a callgrind file (the header's summary
    reads 0 when instrumentation starts off)."""
    found = [int(line.split()[1]) for line in out_file.read_text(errors="replace").splitlines()
             if line.startswith(("summary:", "totals:"))]
    if not found:
        raise RuntimeError(f"no totals line in {out_file}")
    return max(found)


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One run: the server under callgrind, the load, the count per action."""
    with tempfile.TemporaryDirectory(prefix="ginrummy-cg-") as tmp:
        folder = Path(tmp)
        out_file = folder / "callgrind.out"
        db = f"sqlite:///{folder / 'load.db'}"
        server = start_under_callgrind(db, folder, out_file, args.src)
        pid = server.pid
        assert pid is not None
        calls = 0

        def toggling_sample(*a: Any, **k: Any) -> load_server.CpuSample:
            # run_load samples the CPU at the start and at the end of the window
            nonlocal calls
            calls += 1
            _control(pid, "-i", "on" if calls == 1 else "off")
            return original_sample(*a, **k)

        original_sample = load_server.cpu_sample
        load_server.cpu_sample = toggling_sample
        load_server.health = lambda url: None  # no HTTP request inside the window
        run_args = load_server.parse_args([
            "--tables", str(args.tables), "--duration", str(args.duration),
            "--url", server.url, "--server-pid", str(pid), "--think", str(args.think),
            "--seed", str(args.seed), "--settle", str(args.settle)])
        run_args.ramp = max(3.0, args.tables / 4)
        try:
            report = load_server.run_load(run_args, args.tables, server)
        finally:
            os.kill(pid, signal.SIGTERM)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                time.sleep(5)
        instructions = total_instructions(out_file)
        if args.keep:
            Path(args.keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(out_file, Path(args.keep) / f"callgrind.{args.tables}.out")
        actions = report.acks_in_window
        return {"tables": args.tables, "src": args.src or str(ROOT / "src"),
                "actions": actions, "instructions": instructions,
                "per_action": instructions / actions if actions else None,
                "errors": report.errors, "tables_opened": report.tables_opened}


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--src", default=None, help="a checkout's src, first on PYTHONPATH")
    parser.add_argument("--keep", default=None, help="folder for the callgrind file")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (apt-get install valgrind)")
    result = measure(args)
    if args.json:
        print(json.dumps(result))
    else:
        per = result["per_action"]
        print(f"{result['tables']} tables, {result['src']}: {result['actions']} actions, "
              f"{result['instructions']:,} instructions, "
              f"{'n/a' if per is None else f'{per / 1e6:.3f} M'} per action; "
              f"errors {result['errors'] or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
