"""A thin callback scheduler on top of the SimPy clock.

The hot path schedules plain callbacks, not generator processes: each call is one tiny event
object pushed on SimPy's own event queue, so workloads written as SimPy processes interleave
with the engine on the same clock.  Time unit: seconds (float).
"""

from __future__ import annotations

from collections.abc import Callable

import simpy
from simpy.events import NORMAL


class Call:
    """A minimal SimPy-compatible event: processed by ``env.step`` like any other event.

    ``callbacks`` holds one function taking the event; ``arg`` is its payload.
    """

    __slots__ = ("callbacks", "arg")
    _ok = True  # SimPy checks ``event._ok`` after running the callbacks
    _value = None


class Clock:
    """Schedules callbacks on a SimPy environment and counts them."""

    __slots__ = ("env", "events", "_schedule")

    def __init__(self, env: simpy.Environment) -> None:
        self.env = env
        self.events = 0
        self._schedule = env.schedule

    def call(self, delay: float, fn: Callable[[Call], None], arg: object = None) -> None:
        """Run ``fn(event)`` after ``delay`` seconds; ``event.arg`` is ``arg``."""
        event = Call()
        event.callbacks = [fn]
        event.arg = arg
        self._schedule(event, NORMAL, delay)  # type: ignore[arg-type]
        self.events += 1

    @property
    def now(self) -> float:
        """Current simulated time (seconds)."""
        return self.env.now
