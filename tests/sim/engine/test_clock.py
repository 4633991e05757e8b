"""What the clock module relies on in SimPy's internals (simpy is pinned below 5; a new SimPy
that changes any of this fails here, not somewhere in the engine)."""

from heapq import heappop

import simpy
from simpy.events import NORMAL, URGENT

from fabricstudio.sim.engine.clock import Call, Clock, environment


def test_the_heap_entry_layout_is_time_priority_id_event():
    env = simpy.Environment()
    event = env.timeout(2.5)
    entry = env._queue[0]
    assert len(entry) == 4 and entry[0] == 2.5 and entry[1] == NORMAL and entry[3] is event
    assert isinstance(entry[2], int) and next(env._eid) > entry[2]
    assert URGENT < NORMAL  # lower sorts first
    assert heappop(env._queue) is entry


def test_step_writes_the_time_through_now_and_reads_ok():
    env = environment()
    assert env.t == 0 and env.now == 0
    env.timeout(1.5)
    env.step()
    assert env.t == 1.5 == env.now
    env.run(until=4.0)
    assert env.t == 4.0


def test_calls_and_simpy_events_share_one_clock_in_order():
    env = environment()
    clock = Clock(env)
    seen = []

    def process():
        yield env.timeout(2.0)
        seen.append(("process", env.t))

    env.process(process())
    clock.call(1.0, lambda ev: seen.append(("call", env.t, ev.arg)), "a")
    clock.call(3.0, lambda ev: seen.append(("call", env.t, ev.arg)), "b")
    env.run()
    assert seen == [("call", 1.0, "a"), ("process", 2.0), ("call", 3.0, "b")]
    assert clock.events == 2 and Call._ok is True


def test_only_the_clock_module_touches_simpy_internals():
    import re
    from pathlib import Path

    import fabricstudio

    root = Path(fabricstudio.__file__).parent
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if p.name != "clock.py" and re.search(r"\._(now|queue|eid)\b", p.read_text())]
    assert offenders == []
    # the heap's entries: read through Clock.scheduled, built by the clock (and, inline for
    # speed, by the cell engine's transmit in ports.py)
    layout = re.compile(r"\bentry\[3\]|clock\.queue\b|heappush\(")
    readers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                     if p.name != "clock.py" and layout.search(p.read_text()))
    assert readers == ["sim/engine/ports.py"]
