"""``ginrummy serve --workers N``: N server processes on one machine sharing one port.

Each child is a whole ``ginrummy serve`` process (its own event loop, group committer, lease
keeper and owner id: a full member of the cluster, docs/cluster.md) listening on the same
address with ``SO_REUSEPORT``, so the kernel spreads the connections over them. The parent
only supervises: it passes the settings down as ``GINRUMMY_*`` variables, forwards SIGTERM
and SIGINT (each child then shuts down gracefully, handing its tables over), and starts a
child again when one dies (its tables are meanwhile taken over by the others).

A child also stops gracefully, as on SIGTERM, when its supervisor dies without forwarding a
signal (SIGKILL, a crash): on Linux the kernel sends it SIGTERM then
(``prctl(PR_SET_PDEATHSIG)``, set between the fork and the exec); everywhere the child itself
watches its parent (:func:`watch_supervisor`: its parent pid changed, it was orphaned).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import functools
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("ginrummy.server")

RESTART_PAUSE_SECONDS = 1.0
"""Wait before starting a child again after it died."""
CRASH_WINDOW_SECONDS = 30.0
CRASHES_IN_WINDOW = 5
"""A child slot that died this many times within the window is not started again: the
supervisor stops every child and fails (a bad setting, a port taken, the database gone)."""
STOP_WAIT_SECONDS = 40.0
"""How long the children get to stop gracefully before they are killed."""
WATCH_SECONDS = 0.5
"""How often a child checks that its supervisor is alive (the portable fallback)."""
PR_SET_PDEATHSIG = 1
"""prctl(2): the signal the calling process gets when its parent dies (Linux)."""


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` (Linux), or ``None``; looked up once (``find_library`` runs
    ``ldconfig``), not at every child's start."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:  # pragma: no cover - no libc to load
        return None
    call: Callable[..., int] = libc.prctl
    return call


def stop_with(parent: int) -> Callable[[], None]:
    """A ``preexec_fn`` for a child of ``parent``: on Linux the child gets SIGTERM when
    ``parent`` dies; a child whose parent died already (before the call) exits at once."""
    prctl = _prctl()  # looked up before the fork: the child only calls it

    def arm() -> None:
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the death signal was armed
            os._exit(1)
    return arm


def watch_supervisor(supervisor: int, every: float = WATCH_SECONDS) -> threading.Thread:
    """In a child: a daemon thread that sends this process SIGTERM (the graceful stop that
    hands its tables over) once its parent is no longer ``supervisor`` (it died and the
    child was orphaned), where no death signal does it (not Linux)."""
    def watch() -> None:
        while os.getppid() == supervisor:
            time.sleep(every)
        log.warning("the --workers supervisor (pid %d) is gone: stopping", supervisor,
                    extra={"event": "supervisor_gone"})
        os.kill(os.getpid(), signal.SIGTERM)

    thread = threading.Thread(target=watch, name="watch-supervisor", daemon=True)
    thread.start()
    return thread


def settings_env(settings: Any) -> dict[str, str]:
    """``settings`` as the ``GINRUMMY_*`` variables that ``Settings.from_env`` reads back."""
    env: dict[str, str] = {}
    for f in dataclasses.fields(settings):
        if f.name == "extra":
            continue
        value = getattr(settings, f.name)
        if isinstance(value, bool):
            text = "1" if value else "0"
        elif isinstance(value, tuple):
            text = ",".join(str(v) for v in value)
        elif isinstance(value, Path):
            text = str(value)
        else:
            text = str(value)
        env[f"GINRUMMY_{f.name.upper()}"] = text
    return env


def shared_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` that other processes may bind too
    (``SO_REUSEPORT``: the kernel spreads new connections over the listeners)."""
    if not hasattr(socket, "SO_REUSEPORT"):  # pragma: no cover - not Linux/BSD/macOS
        raise OSError("--workers needs SO_REUSEPORT, which this system does not have")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


class Supervisor:
    """Starts the children, restarts those that die, stops them all on a signal."""

    def __init__(self, settings: Any, workers: int) -> None:
        self.workers = workers
        self.env = {**os.environ, **settings_env(settings)}
        self.command = [sys.executable, "-c", "import sys; from ginrummy.cli.main import "
                        "main; sys.exit(main(sys.argv[1:]))", "serve", "--reuse-port",
                        "--supervisor", str(os.getpid())]
        self.children: list[subprocess.Popen[bytes] | None] = [None] * workers
        self.deaths: list[list[float]] = [[] for _ in range(workers)]
        self.stopping = False

    def start(self, slot: int) -> None:
        """Start the child of ``slot``."""
        self.children[slot] = subprocess.Popen(self.command, env=self.env,
                                               preexec_fn=stop_with(os.getpid()))

    def stop(self, signum: int, _frame: object = None) -> None:
        """A signal handler: ask every child to stop gracefully (SIGTERM)."""
        self.stopping = True
        for child in self.children:
            if child is not None and child.poll() is None:
                child.send_signal(signal.SIGTERM)

    def run(self) -> int:
        """Supervise until a signal (0) or a child slot crashing again and again (1)."""
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)
        for slot in range(self.workers):
            self.start(slot)
        failed = False
        while not self.stopping:
            time.sleep(0.2)
            for slot, child in enumerate(self.children):
                if self.stopping or child is None or child.poll() is None:
                    continue
                now = time.monotonic()
                deaths = [t for t in self.deaths[slot] if now - t < CRASH_WINDOW_SECONDS]
                deaths.append(now)
                self.deaths[slot] = deaths
                print(f"ginrummy: server process {child.pid} exited with {child.returncode}",
                      file=sys.stderr, flush=True)
                if len(deaths) >= CRASHES_IN_WINDOW:
                    print(f"ginrummy: a server process died {len(deaths)} times in "
                          f"{CRASH_WINDOW_SECONDS:g} s; stopping", file=sys.stderr, flush=True)
                    failed = True
                    self.stop(signal.SIGTERM)
                    break
                time.sleep(RESTART_PAUSE_SECONDS)
                if not self.stopping:
                    self.start(slot)
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        for child in self.children:
            if child is None:
                continue
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                print(f"ginrummy: server process {child.pid} did not stop within "
                      f"{STOP_WAIT_SECONDS:g} s; killed", file=sys.stderr, flush=True)
                child.kill()
                child.wait()
        return 1 if failed else 0


def supervise(settings: Any, workers: int) -> int:
    """Run ``workers`` server processes on ``settings``' address until stopped."""
    probe = shared_socket(settings.host, settings.port)  # the port is free (or shared)
    probe.close()
    return Supervisor(settings, workers).run()
