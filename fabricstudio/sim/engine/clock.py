"""A thin callback scheduler on top of the SimPy clock; the ONLY module that touches SimPy's
private internals.

The hot path schedules plain callbacks, not generator processes: each call is one tiny event
object pushed on SimPy's own event queue (the same ``(time, priority, id, event)`` entries
``Environment.schedule`` pushes; :attr:`Clock.queue` and :attr:`Clock.eid` are that heap and
id counter), so workload processes interleave with the engine on one clock and
``env.run``/``env.step`` process both.  The engines make their environment with
:func:`environment`: its current time is also the plain attribute ``t``, which hot paths read
as cheaply as SimPy's private ``_now``.  Time unit: seconds (float).

What this relies on (pinned ``simpy<5``; ``tests/sim/engine/test_clock.py`` checks each against
the installed SimPy): ``Environment._queue`` is a heapq of ``(time, priority, id, event)``,
``Environment._eid`` the id counter, ``Environment.step`` assigns ``self._now`` from the popped
entry, and an event is processed by calling its ``callbacks`` then reading ``_ok``.  Other
modules see the heap only through :meth:`Clock.scheduled`, except the cell engine's transmit
(``sim/engine/ports.py``), which pushes its two entries per cell inline, in the same layout as
:meth:`Clock.post`, because a method call per cell hop costs measurably there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
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


class ClockEnvironment(simpy.Environment):
    """A simpy.Environment whose current time is also the plain attribute ``t`` (SimPy writes
    the time through ``_now``; hot paths read ``env.t`` without a property call)."""

    t: float

    @property
    def _now(self) -> float:
        return self.t

    @_now.setter
    def _now(self, value: float) -> None:
        self.t = value


def environment() -> ClockEnvironment:
    """A fresh simulation clock (time 0)."""
    return ClockEnvironment()


class Clock:
    """Schedules callbacks on a SimPy environment and counts them."""

    __slots__ = ("env", "events", "queue", "eid")

    def __init__(self, env: ClockEnvironment) -> None:
        if not isinstance(env, ClockEnvironment):
            raise TypeError("Clock needs the environment made by clock.environment()")
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
        heappush(self.queue, (self.env.t + delay, NORMAL, next(self.eid), event))
        self.events += 1

    def at(self, time: float, fn: Callable[[Call], None], arg: object = None) -> None:
        """Run ``fn(event)`` at simulated ``time`` exactly (not now + a delay, which rounds)."""
        event = Call()
        event.callbacks = (fn,)
        event.arg = arg
        heappush(self.queue, (time, NORMAL, next(self.eid), event))
        self.events += 1

    def call_late(self, delay: float, fn: Callable[[Call], None], arg: object = None) -> None:
        """Like :meth:`call`, but after every ordinary event due at the same instant (flow
        engine: one rate update for all the flows that start or end at one time)."""
        event = Call()
        event.callbacks = (fn,)
        event.arg = arg
        heappush(self.queue, (self.env.t + delay, NORMAL + 1, next(self.eid), event))
        self.events += 1

    def scheduled(self) -> Iterator[Any]:
        """The events waiting on the heap (Calls and SimPy events), in no particular order:
        for scans between slices (is anything but housekeeping left? which cells are on a
        dead wire?); an event's ``callbacks`` may be replaced, nothing else."""
        return (entry[3] for entry in self.queue)

    @property
    def now(self) -> float:
        """Current simulated time (seconds)."""
        return self.env.now


def after_all(count: int, then: Callable[[], object]) -> Callable[..., None]:
    """A completion callback that runs ``then()`` when it has been called ``count`` times
    (with whatever arguments: a flow record, a time): "wait for all of these" for the
    workloads and engines, whose parts each report once."""
    left = [count]

    def one(*_args: Any) -> None:
        left[0] -= 1
        if not left[0]:
            then()

    return one
