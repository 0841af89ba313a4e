"""What a fair deal adds to a hand's start at the server: the time from a client's ``seed``
message to the ``state`` of the dealt hand (the seeds checked, the deck made by
``ginrummy.fair.deck``, the deal and the seeds committed, the states sent).

    python benchmarks/bench_fair_deal.py [--tables 20]

Runs a test server (SQLite, in this process), creates ``--tables`` tables of one person and a
computer; the person's client offers seeds, sends its seed as soon as the commitment arrives,
and the time to the dealt state is measured. Prints the median and the largest.
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "server"))

from server_helpers import live_server
from test_fair_deals import seeding


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    args = parser.parse_args()
    waits: list[float] = []
    with live_server(Path(tempfile.mkdtemp())) as server:
        for _ in range(args.tables):
            created = server.create(bots={"1": "simple"}, seeds=True)
            client = seeding(server, created["table_id"], created["token"])
            block = client.state["fair"] or client.wait(
                lambda m: m["type"] == "state" and m["fair"] is not None)["fair"]
            start = time.perf_counter()
            client.send({"type": "seed", "hand": block["hand"], "seed": secrets.token_hex(32)})
            client.wait(lambda m: m["type"] == "state" and m["view"] is not None)
            waits.append((time.perf_counter() - start) * 1000)
            client.close()
    print(f"seed sent -> dealt state: median {statistics.median(waits):.1f} ms, "
          f"max {max(waits):.1f} ms over {len(waits)} tables")


if __name__ == "__main__":
    main()
