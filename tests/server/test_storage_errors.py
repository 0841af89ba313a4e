"""Storage errors on PostgreSQL leave no hidden card in any log line (docs/security.md,
*Storage errors and logs*): games run while the database refuses a deal (a NOT NULL
violation, whose detail is the whole row) and a write with a NUL that went around the edge;
every record of every logger at DEBUG, formatted as ``ginrummy serve`` writes it (tracebacks
included), is searched for a list of five or more cards and for every stored deck. The other
tables play on without an error."""

from __future__ import annotations

import logging
import re
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest
from server_helpers import Client, LiveServer
from sqlalchemy import text

from ginrummy.server.core import protocol
from ginrummy.server.core.logs import JsonFormatter, TextFormatter
from ginrummy.storage import open_engine

CARD = r"(?:10|[2-9TJQKA])[shdc]"
CARD_LIST = re.compile(rf"(?<![A-Za-z0-9])(?:{CARD}[\s,'\"\\]{{1,6}}){{4,}}{CARD}"
                       r"(?![A-Za-z0-9])")
"""Five or more card codes in a row: a deck or a hand as text, or as a JSON or Python list."""

REFUSE_POISONED_DEALS = """
CREATE FUNCTION refuse_poisoned_deals() RETURNS trigger AS $$
BEGIN
    IF NEW.kind = 'deal' AND EXISTS (
            SELECT 1 FROM game_tables WHERE id = NEW.table_id AND name = 'poisoned') THEN
        NEW.kind := NULL;  -- the NOT NULL check refuses it, the row in its DETAIL
    END IF;
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER refuse_poisoned_deals BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION refuse_poisoned_deals();
"""
"""The poisoned table's deals break the NOT NULL of ``events.kind``: PostgreSQL's own error
then shows the whole row, its deck, as ``DETAIL: Failing row contains (...)``, which
SQLAlchemy's ``hide_parameters`` does not hide."""


def test_the_card_list_regex_finds_decks_and_hands() -> None:
    assert CARD_LIST.search("7h 5s 3c 7s Ks 6d Th")
    assert CARD_LIST.search("""[parameters: ('t1', 2, 'deal', None, '7h 5s 3c 7s Ks'""")
    assert CARD_LIST.search('"hand": ["As", "2c", "10d", "Kh", "Qs"]')
    assert not CARD_LIST.search("discard As; draw stock; 4 cards: As 2c 3d 4h")


def test_both_log_formats_hide_the_values_of_a_refused_row() -> None:
    detail = ("null value in column \"kind\" violates not-null constraint\n"
              "DETAIL:  Failing row contains (t1, 2, null, null, 7h 5s 3c 7s Ks 6d).\n"
              "DETAIL:  Key (token_hash)=(abc123) already exists.")
    try:
        raise RuntimeError(detail)
    except RuntimeError:
        record = logging.LogRecord("ginrummy.server.commit", logging.ERROR, __file__, 1,
                                   "a write failed: %s", (detail,), sys.exc_info())
    for formatter in (JsonFormatter(), TextFormatter("%(levelname)s %(message)s")):
        line = formatter.format(record)
        assert not CARD_LIST.search(line) and "abc123" not in line, line
        assert "Failing row contains ... (values hidden)" in line


def play(client: Client, moves: int, prefix: str) -> list[dict[str, Any]]:
    """Play up to ``moves`` of this seat's actions (fewer when the match ends: one hand of
    a big gin may pass 100 points); the errors the client received."""
    for n in range(moves):
        try:
            state = client.playable(10)
        except TimeoutError:
            if client.state["table"]["status"] == "over":
                break
            raise
        client.send({"type": "action", "id": f"{prefix}{n}", "version": state["version"],
                     "action": state["legal"][0]})
        answer = client.answer()
        if answer["type"] == "error" or state["legal"][0].startswith(("gin", "knock")):
            break
    return [m for m in client.frames if m["type"] == "error"]


def test_no_card_list_reaches_a_log_when_storage_fails(
        make_server: Callable[..., LiveServer], pg_url: str,
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.DEBUG)  # an operator's --log-level debug: every logger
    for name in ("uvicorn", "uvicorn.error", "ginrummy"):
        caplog.set_level(logging.DEBUG, logger=name)
    server = make_server(db=pg_url, commit_interval_ms=20)
    engine = open_engine(pg_url)
    with engine.begin() as conn:
        conn.execute(text(REFUSE_POISONED_DEALS))
    tables = [server.create(nickname="Ann", bots={"1": "simple"}) for _ in range(4)]
    clients = [Client.open(server, t["table_id"], t["token"]) for t in tables]
    poisoned = server.create(nickname="Pat", name="poisoned", bots={"1": "simple"})
    # a write PostgreSQL refuses, around the edge's check (which would answer bad_message)
    monkeypatch.setattr(protocol, "check_strings", lambda _data, _where="": None,
                        raising=False)  # (raising: the test also runs on code without it)
    bad = clients[0]
    state = bad.playable()
    bad.send({"type": "action", "id": "nul\u0000id", "version": state["version"],
              "action": state["legal"][0]})
    refused = bad.answer()
    assert refused["type"] == "error" and refused["code"] == "storage", refused
    errors = {n: play(c, 12, f"t{n}-") for n, c in enumerate(clients)}
    assert errors[0] == [refused]  # the bad write's seat alone heard of it
    assert all(found == [] for n, found in errors.items() if n != 0), errors
    time.sleep(0.5)  # the poisoned table's deal was refused (and tried again) meanwhile
    for client in clients:
        client.close()
    with engine.connect() as conn:
        decks = [row[0] for row in conn.execute(text(
            "SELECT payload FROM events WHERE kind = 'deal'"))]
        poisoned_deals = conn.execute(text("SELECT count(*) FROM events WHERE kind = 'deal' "
                                           "AND table_id = :t"),
                                      {"t": poisoned["table_id"]}).scalar_one()
    engine.dispose()
    assert len(decks) >= 4 and poisoned_deals == 0
    formatter = JsonFormatter()
    lines = [formatter.format(r) for r in caplog.records]
    everything = "\n".join(lines)
    leaks = [line[:300] for line in lines if CARD_LIST.search(line)]
    assert leaks == []
    assert "DataError" in everything  # the NUL write failed in the database, and said so
    assert "Failing row contains ... (values hidden)" in everything  # the poisoned deals
    for deck in decks:
        assert deck[:20] not in everything
