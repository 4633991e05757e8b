"""Run the engine off the UI thread (a background Worker) advancing it in short slices.

Slices are sized from the measured wall time of the previous one (target ~20 ms), so Stop
takes effect within one slice and the GIL is handed back to the UI thread often.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from PySide6.QtCore import Signal

from fabricstudio.model import FrozenDesign
from fabricstudio.sim.request import RunRequest
from fabricstudio.sim.result import Result
from fabricstudio.ui.background import Reported, Stopped, Worker
from fabricstudio.ui.simview.source import COMPARE_VARIANTS, SimulationSource, SourceFactory

SLICE_TARGET_S = 0.02


def _run_source(source: SimulationSource, stop: threading.Event,
                on_slice: Any = None) -> None:
    """Advance ``source`` to its end in adaptive slices; raise Stopped on request."""
    step = max(source.stream.sample_period_s, source.until_s / 2000.0)
    while not source.finished:
        if stop.is_set():
            raise Stopped
        target = min(source.until_s, source.now + step)
        started = time.perf_counter()
        source.advance(target)
        spent = time.perf_counter() - started
        if spent > 0:
            step *= min(4.0, max(0.25, SLICE_TARGET_S / spent))
        if on_slice is not None:
            on_slice(source.now, spent)
        time.sleep(0)  # let the UI thread take the GIL between slices


class RunWorker(Worker):
    """Builds the simulation of a design snapshot and runs it to its horizon; ``succeeded``
    carries the Result."""

    stream_ready = Signal(object)  # MetricStream
    progressed = Signal(float, float, float)  # simulated now, fraction done, sim-s per wall-s

    def __init__(self, factory: SourceFactory, design: FrozenDesign, request: RunRequest,
                 parent: Any = None) -> None:
        super().__init__(parent)
        self._factory = factory
        self._design = design
        self._request = request
        self.source: SimulationSource | None = None

    def work(self) -> Result:
        source = self.source = self._factory(self._design, self._request)
        self.stream_ready.emit(source.stream)
        started = time.perf_counter()
        sim_started = source.now

        def report(now: float, _spent: float) -> None:
            wall = time.perf_counter() - started
            rate = (now - sim_started) / wall if wall > 0 else 0.0
            self.progressed.emit(now, source.progress, rate)

        _run_source(source, self.stop_event, report)
        source.stream.close(source.flow_ends())
        return source.result()


class CompareWorker(Worker):
    """Runs the same design and workload on each fabric of COMPARE_VARIANTS, headless."""

    variant_done = Signal(str, object, object)  # label, Result, stream
    variant_started = Signal(str)

    def __init__(self, factory: SourceFactory, design: FrozenDesign, request: RunRequest,
                 parent: Any = None, use_process: bool = False) -> None:
        super().__init__(parent)
        self._factory = factory
        self._design = design
        self._request = request
        self._use_process = use_process

    def _run_variant(self, request: RunRequest) -> tuple[Result, Any]:
        """(Result, stream) of one variant; raises Stopped or Reported."""
        if self._use_process:
            from fabricstudio.ui.simview.process_worker import run_variant_in_child

            outcome, result, stream = run_variant_in_child(
                self._factory, self._design, request, self.stop_event)
            if outcome == "stopped":
                raise Stopped
            if outcome == "error":
                raise Reported(result)
            return result, stream
        source = self._factory(self._design, request)
        _run_source(source, self.stop_event)
        source.stream.close(source.flow_ends())
        return source.result(), source.stream

    def work(self) -> None:
        for label, technology, dcqcn in COMPARE_VARIANTS:
            self.variant_started.emit(label)
            request = self._request.with_changes(technology=technology, dcqcn=dcqcn)
            result, stream = self._run_variant(request)
            self.variant_done.emit(label, result, stream)
