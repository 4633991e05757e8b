"""Run the engine off the UI thread: a QThread advancing the simulation in short slices.

Slices are sized from the measured wall time of the previous one (target ~20 ms), so Stop
takes effect within one slice and the GIL is handed back to the UI thread often.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from PySide6.QtCore import QThread, Signal

from fabricstudio.model import FrozenDesign, Technology
from fabricstudio.sim.activity import GpuTimeline
from fabricstudio.sim.moments import Caption, RunFacts
from fabricstudio.sim.recorded import RecordedRun
from fabricstudio.sim.request import RunRequest
from fabricstudio.ui.simview.source import COMPARE_VARIANTS, SimulationSource, SourceFactory

SLICE_TARGET_S = 0.02


class _Stopped(Exception):
    """Raised inside the worker when Stop was requested."""


def _run_source(source: SimulationSource, stop: threading.Event,
                on_slice: Any = None) -> None:
    """Advance ``source`` to its end in adaptive slices; raise _Stopped on request."""
    step = max(source.stream.sample_period_s, source.until_s / 2000.0)
    while not source.finished:
        if stop.is_set():
            raise _Stopped
        target = min(source.until_s, source.now + step)
        started = time.perf_counter()
        source.advance(target)
        spent = time.perf_counter() - started
        if spent > 0:
            step *= min(4.0, max(0.25, SLICE_TARGET_S / spent))
        if on_slice is not None:
            on_slice(source.now, spent)
        time.sleep(0)  # let the UI thread take the GIL between slices


class RunWorker(QThread):
    """Builds the simulation of a frozen design copy and runs it to its horizon."""

    stream_ready = Signal(object)  # MetricStream
    progressed = Signal(float, float, float)  # simulated now, fraction done, sim-s per wall-s
    captions_changed = Signal(object)  # list of Caption
    completed = Signal(object)  # Result
    failed = Signal(str)

    def __init__(self, factory: SourceFactory, design: FrozenDesign, request: RunRequest,
                 parent: Any = None) -> None:
        super().__init__(parent)
        self._factory = factory
        self._design = design
        self._request = request
        self._stop = threading.Event()
        self.source: SimulationSource | None = None
        self.stopped = False
        self.timeline: GpuTimeline | None = None
        self.captions: list[Caption] = []
        self.facts: RunFacts | None = None

    def request_stop(self) -> None:
        """Ask the run to end after the current slice."""
        self._stop.set()

    def run(self) -> None:  # noqa: D102 - QThread override
        try:
            source = self.source = self._factory(self._design, self._request)
            self.timeline = source.timeline
            self.stream_ready.emit(source.stream)
            started = time.perf_counter()
            sim_started = source.now

            def report(now: float, _spent: float) -> None:
                wall = time.perf_counter() - started
                rate = (now - sim_started) / wall if wall > 0 else 0.0
                self.progressed.emit(now, source.progress, rate)
                self._update_captions(source)

            _run_source(source, self._stop, report)
            source.stream.close(source.flow_ends())
            result = source.result()
            self._update_captions(source)
            self.facts = source.facts()
            self.completed.emit(result)
        except _Stopped:
            self.stopped = True
        except Exception as exc:  # noqa: BLE001 - any engine failure is shown to the user
            self.failed.emit(f"{type(exc).__name__}: {exc}")

    def _update_captions(self, source: SimulationSource) -> None:
        captions = source.captions()
        if captions != self.captions:
            self.captions = captions
            self.captions_changed.emit(captions)


class CompareWorker(QThread):
    """Runs the same design and workload on each fabric of COMPARE_VARIANTS headless: in
    parallel child processes (as many at once as there are CPU cores) when the factory can be
    sent to one, else one after another in this thread."""

    variant_done = Signal(str, object)  # label, RecordedRun
    variant_started = Signal(str)
    variant_progress = Signal(str, float, float)  # label, fraction done, simulated now
    failed = Signal(str)

    def __init__(self, factory: SourceFactory, design: FrozenDesign, request: RunRequest,
                 parent: Any = None, use_process: bool = False,
                 variants: tuple[tuple[str, Technology, bool], ...] = COMPARE_VARIANTS,
                 parallel: int | None = None) -> None:
        super().__init__(parent)
        self._factory = factory
        self._design = design
        self._request = request
        self._stop = threading.Event()
        self._use_process = use_process
        self.variants = variants
        self.parallel = max(1, parallel or os.cpu_count() or 1)

    def request_stop(self) -> None:
        """Stop every variant at once."""
        self._stop.set()

    def _request_for(self, technology: Technology, dcqcn: bool) -> RunRequest:
        return self._request.with_changes(technology=technology, dcqcn=dcqcn)

    def run(self) -> None:  # noqa: D102 - QThread override
        if self._use_process:
            self._run_in_children()
            return
        try:
            for label, technology, dcqcn in self.variants:
                self.variant_started.emit(label)
                source = self._factory(self._design, self._request_for(technology, dcqcn))
                _run_source(source, self._stop,
                            lambda now, _s, label=label, source=source:
                            self.variant_progress.emit(label, source.progress, now))
                source.stream.close(source.flow_ends())
                self.variant_done.emit(label, RecordedRun(
                    label, self._design, source.stream, source.result(), source.timeline,
                    source.captions(), source.facts()))
        except _Stopped:
            return
        except Exception as exc:  # noqa: BLE001 - shown to the user
            self.failed.emit(f"{type(exc).__name__}: {exc}")

    def _run_in_children(self) -> None:
        from fabricstudio.ui.simview.process_worker import run_variant_in_child

        slots = threading.Semaphore(self.parallel)
        errors: list[str] = []

        def one(label: str, technology: Technology, dcqcn: bool) -> None:
            with slots:
                if self._stop.is_set():
                    return
                self.variant_started.emit(label)
                outcome, run = run_variant_in_child(
                    self._factory, self._design, self._request_for(technology, dcqcn), self._stop,
                    lambda now, fraction: self.variant_progress.emit(label, fraction, now))
            if outcome == "error":
                errors.append(f"{label}: {run.error}")
                self._stop.set()  # one fabric failed: the comparison is incomplete
            elif outcome == "done" and run.stream is not None:
                self.variant_done.emit(label, RecordedRun(
                    label, self._design, run.stream, run.result, run.timeline, run.captions,
                    run.facts))

        threads = [threading.Thread(target=one, args=variant, daemon=True,
                                    name=f"compare-{variant[0]}") for variant in self.variants]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            self.failed.emit(errors[0])
