"""Idle and half-open sockets (issue 11, point 3): a request head must arrive in time, and a
flood of idle sockets never takes the process's last file descriptors."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx
from server_helpers import live_server


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """True when the server closes ``sock`` within ``seconds`` (recv returns b"")."""
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_a_silent_socket_and_half_a_request_line_are_closed_after_the_head_timeout(
        tmp_path: Path) -> None:
    with live_server(tmp_path, head_timeout_seconds=1.0) as server:
        port = int(server.base.rsplit(":", 1)[1])
        silent = socket.create_connection(("127.0.0.1", port))
        half = socket.create_connection(("127.0.0.1", port))
        half.sendall(b"GET /api/health HTT")
        started = time.monotonic()
        try:
            assert _closed_within(silent, 5.0)
            assert _closed_within(half, 5.0)
            assert time.monotonic() - started < 5.0
        finally:
            silent.close()
            half.close()


def test_a_kept_alive_connection_gets_a_new_deadline_for_its_next_request(
        tmp_path: Path) -> None:
    with live_server(tmp_path, head_timeout_seconds=1.0) as server:
        port = int(server.base.rsplit(":", 1)[1])
        sock = socket.create_connection(("127.0.0.1", port))
        try:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            sock.settimeout(5.0)
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            sock.sendall(b"GET /healthz HTT")  # then nothing more
            assert _closed_within(sock, 5.0)
        finally:
            sock.close()


def test_a_flood_of_idle_sockets_past_the_budget_leaves_room_for_real_requests(
        tmp_path: Path) -> None:
    with live_server(tmp_path, head_timeout_seconds=30.0, max_sockets=20) as server:
        port = int(server.base.rsplit(":", 1)[1])
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
        try:
            time.sleep(0.5)
            answered = httpx.get(f"{server.base}/healthz", timeout=5.0)
            assert answered.status_code == 200
            still_open = sum(1 for s in idle if not _closed_within(s, 0.05))
            assert still_open <= 20  # the oldest idle sockets made room
        finally:
            for s in idle:
                s.close()
