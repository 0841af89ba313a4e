"""``ginrummy serve`` freezes what survives every 0.25 s and still collects frozen cyclic
garbage once in a while (run in a child process: the freezing thread never stops)."""

from __future__ import annotations

import subprocess
import sys

PRELUDE = """
import gc, time, weakref
from ginrummy.cli.serve import freeze_survivors

class Node:
    pass

freed = []
def cycle():
    a, b = Node(), Node()
    a.other, b.other = b, a
    weakref.finalize(a, freed.append, 1)
"""

SCRIPT = PRELUDE + """
gc.collect()
cycle()  # garbage at once, frozen before anything collects it
gc.freeze()
freeze_survivors(0.02, collect_every=3)
time.sleep(0.1)
assert gc.get_freeze_count() > 0, "nothing was frozen"
assert not freed, "frozen garbage collected early"
deadline = time.monotonic() + 30
while not freed and time.monotonic() < deadline:
    time.sleep(0.02)
assert freed, "the frozen cycle was never collected"
print("ok")
"""


def test_frozen_cyclic_garbage_is_collected_by_the_periodic_full_collection() -> None:
    _run(SCRIPT)


YOUNG = PRELUDE + """
gc.collect()
gc.freeze()
freeze_survivors(0.02)  # the full collection is an hour away
for _ in range(3):
    cycle()  # a closed connection's cycles: garbage before the next tick
    time.sleep(0.1)
# the next tick collects them, however late a busy machine runs it; frozen, they would wait
# for the full collection an hour away
deadline = time.monotonic() + 10
while len(freed) < 3 and time.monotonic() < deadline:
    time.sleep(0.02)
assert len(freed) == 3, f"only {len(freed)} of 3 young cycles collected: frozen instead"
print("ok")
"""

GROWN = PRELUDE + """
import resource
a, b = Node(), Node()
a.other, b.other = b, a
weakref.finalize(a, freed.append, 1)
gc.collect()
freeze_survivors(0.02, growth_pause=0.2)  # the hourly collection is an hour away
time.sleep(0.1)
del a, b  # a connection frozen while alive, closed later: frozen garbage
keep = b"x" * (4 * 1024 * resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # RSS x5
deadline = time.monotonic() + 5
while not freed and time.monotonic() < deadline:
    time.sleep(0.02)
assert freed, "frozen garbage waited for the hourly collection although the heap grew"
print("ok")
"""


def _run(script: str) -> None:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_young_cyclic_garbage_is_collected_before_it_is_frozen() -> None:
    _run(YOUNG)


def test_frozen_garbage_is_collected_when_the_process_grows() -> None:
    _run(GROWN)


BUSY = PRELUDE + """
gc.set_threshold(150, 100)  # the collector's own generation-0 collections run often
gc.collect()
gc.freeze()
freeze_survivors(0.2)
keep = []
for _ in range(5):
    a, b = Node(), Node()  # a connection: alive through the collector's own collections
    a.other, b.other = b, a
    weakref.finalize(a, freed.append, 1)
    for _ in range(400):  # a busy server: automatic collections that find cyclic garbage
        j = Node()
        j.me = j
    del j, a, b  # the connection closes: garbage older than generation 0
    time.sleep(0.3)
deadline = time.monotonic() + 10  # a late tick still collects them; frozen, they would wait
while len(freed) < 5 and time.monotonic() < deadline:  # for the full collection, an hour
    time.sleep(0.02)
assert len(freed) == 5, f"only {len(freed)} of 5 closed connections collected: frozen instead"
print("ok")
"""


def test_a_busy_process_collects_its_young_generations_when_cycles_are_dying() -> None:
    _run(BUSY)


QUIET_BUSY = PRELUDE + """
from ginrummy.cli.serve import GarbageWatch
watch = GarbageWatch()
gc.callbacks.append(watch.on_collection)
gc.collect()
watch.found = False
junk = [[] for _ in range(2000)]  # allocations with no cyclic garbage: collections find none
assert gc.get_count()[1] > 0, "no automatic collection ran"
assert not watch.found, "a collection without cyclic garbage counted as finding some"
cycle()
gc.collect(0)
assert watch.found, "a collection that freed a cycle was not noticed"
print("ok")
"""


def test_the_garbage_watch_notices_only_collections_that_free_cycles() -> None:
    _run(QUIET_BUSY)
