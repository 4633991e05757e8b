"""A thin callback scheduler on top of the SimPy clock.

The hot path schedules plain callbacks, not generator processes: each call is one tiny event
object pushed on SimPy's own event queue (the same ``(time, priority, id, event)`` entries
``Environment.schedule`` pushes), so workload processes interleave with the engine on one
clock and ``env.run``/``env.step`` process both.  Time unit: seconds (float).
"""

from __future__ import annotations

from collections.abc import Callable
from heapq import heappush
from typing import Any

import simpy
from simpy.events import NORMAL


class Call:
    """A minimal SimPy-compatible event: processed by ``env.step`` like any other event.

    ``callbacks`` is a tuple of functions taking the event (SimPy only iterates it);
    ``arg`` is the payload.
    """

    __slots__ = ("callbacks", "arg")
    callbacks: tuple[Callable[[Call], object], ...]
    arg: Any
    _ok = True  # SimPy checks ``event._ok`` after running the callbacks
    _value = None


class Clock:
    """Schedules callbacks on a SimPy environment and counts them."""

    __slots__ = ("env", "events", "queue", "eid")

    def __init__(self, env: simpy.Environment) -> None:
        self.env = env
        self.events = 0
        # SimPy's own heap and id counter (Environment.schedule pushes onto the same).
        # Entries are (time, priority, id, event); Call stands in for simpy.Event.
        self.queue: list[Any] = env._queue
        self.eid = env._eid

    def call(self, delay: float, fn: Callable[[Call], None], arg: object = None) -> None:
        """Run ``fn(event)`` after ``delay`` seconds; ``event.arg`` is ``arg``."""
        self.post(delay, (fn,), arg)

    def post(self, delay: float, callbacks: tuple[Callable[[Call], object], ...],
             arg: object = None) -> None:
        """Like :meth:`call` with a prebuilt callbacks tuple (hot path)."""
        event = Call()
        event.callbacks = callbacks
        event.arg = arg
        heappush(self.queue, (self.env._now + delay, NORMAL, next(self.eid), event))
        self.events += 1

    def call_late(self, delay: float, fn: Callable[[Call], None], arg: object = None) -> None:
        """Like :meth:`call`, but after every ordinary event due at the same instant (flow
        engine: one rate update for all the flows that start or end at one time)."""
        event = Call()
        event.callbacks = (fn,)
        event.arg = arg
        heappush(self.queue, (self.env._now + delay, NORMAL + 1, next(self.eid), event))
        self.events += 1

    @property
    def now(self) -> float:
        """Current simulated time (seconds)."""
        return self.env.now
