"""``ginrummy serve`` freezes what survives every 0.25 s and still collects frozen cyclic
garbage once in a while (run in a child process: the freezing thread never stops)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import gc, time, weakref
from ginrummy.cli.serve import freeze_survivors

class Node:
    pass

freed = []
def cycle():
    a, b = Node(), Node()
    a.other, b.other = b, a
    weakref.finalize(a, freed.append, 1)

gc.collect()
freeze_survivors(0.02, collect_every=0.6)
cycle()  # garbage at once, but nothing collects it before a freeze
time.sleep(0.1)
assert gc.get_freeze_count() > 0, "nothing was frozen"
assert not freed, "frozen garbage collected early"
deadline = time.monotonic() + 5
while not freed and time.monotonic() < deadline:
    time.sleep(0.02)
assert freed, "the frozen cycle was never collected"
print("ok")
"""


def test_frozen_cyclic_garbage_is_collected_by_the_periodic_full_collection() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
