"""Run the engine off the UI thread (a background Worker) advancing it in short slices.

Slices are sized from the measured wall time of the previous one (target ~20 ms), so Stop
takes effect within one slice and the GIL is handed back to the UI thread often.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from PySide6.QtCore import Signal

from fabricstudio.model import FrozenDesign, Technology
from fabricstudio.sim.activity import GpuTimeline
from fabricstudio.sim.moments import Caption, RunFacts
from fabricstudio.sim.recorded import RecordedRun
from fabricstudio.sim.request import RunRequest, scenario_for
from fabricstudio.sim.result import Result
from fabricstudio.sim.run_cache import Lookup, RunCache, run_key
from fabricstudio.ui.background import Reported, Stopped, Worker
from fabricstudio.ui.simview.source import COMPARE_VARIANTS, SimulationSource, SourceFactory

SLICE_TARGET_S = 0.02


def _run_source(source: SimulationSource, stop: threading.Event,
                on_slice: Any = None) -> None:
    """Advance ``source`` to its end in adaptive slices; raise Stopped on request."""
    horizon = source.until_s  # without a horizon: the frame budget's limit (or inf)
    expected = min(horizon, source.expected_s)
    step = max(source.stream.sample_period_s, expected / 2000.0)
    while not source.finished:
        if stop.is_set():
            raise Stopped
        target = min(horizon, source.now + step)
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
    carries the Result.  The GPU states (``timeline``), the captions found so far
    (``captions``, announced by ``captions_changed``) and, once done, the run's ``facts`` are
    kept on the worker."""

    stream_ready = Signal(object)  # MetricStream
    progressed = Signal(float, float, float)  # simulated now, fraction done, sim-s per wall-s
    captions_changed = Signal(object)  # list of Caption

    def __init__(self, factory: SourceFactory, design: FrozenDesign, request: RunRequest,
                 parent: Any = None) -> None:
        super().__init__(parent)
        self._factory = factory
        self._design = design
        self._request = request
        self.source: SimulationSource | None = None
        self.timeline: GpuTimeline | None = None
        self.captions: list[Caption] = []
        self.facts: RunFacts | None = None

    def work(self) -> Result:
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

        _run_source(source, self.stop_event, report)
        source.stream.close(source.flow_ends())
        result = source.result()
        self._update_captions(source)
        self.facts = source.facts()
        return result

    def _update_captions(self, source: SimulationSource) -> None:
        captions = source.captions()
        if captions != self.captions:
            self.captions = captions
            self.captions_changed.emit(captions)


class CompareWorker(Worker):
    """Runs the same design and workload on each fabric of COMPARE_VARIANTS headless: in
    parallel child processes (as many at once as there are CPU cores) when the factory can be
    sent to one, else one after another in this thread.  Each fabric ends with
    ``variant_done(label, RecordedRun)``; a failing fabric stops the others and ``failed``
    names it.  With a ``cache`` (sim.run_cache), a fabric recorded before by this engine for
    the same design and scenario is announced at once from it (its RecordedRun's
    ``cached_at`` set), and every run computed is kept in it."""

    variant_done = Signal(str, object)  # label, RecordedRun
    variant_started = Signal(str)
    variant_progress = Signal(str, float, float)  # label, fraction done, simulated now

    def __init__(self, factory: SourceFactory, design: FrozenDesign, request: RunRequest,
                 parent: Any = None, use_process: bool = False,
                 variants: tuple[tuple[str, Technology, bool], ...] = COMPARE_VARIANTS,
                 parallel: int | None = None) -> None:
        super().__init__(parent)
        self._factory = factory
        self._design = design
        self._request = request
        self._use_process = use_process
        self.variants = variants
        self.parallel = max(1, parallel or os.cpu_count() or 1)
        #: Where finished runs are kept and looked up first (None: every run is computed).
        self.cache: RunCache | None = None
        #: label -> what the cache lookup found ("hit", "miss", "stale", "corrupt") and why.
        self.lookups: dict[str, Lookup] = {}
        self._keys: dict[str, str] = {}

    def _request_for(self, technology: Technology, dcqcn: bool) -> RunRequest:
        return self._request.with_changes(technology=technology, dcqcn=dcqcn)

    def jobs(self) -> list[tuple[str, FrozenDesign, RunRequest]]:
        """(label, design, request) of every run: the design on each fabric variant
        (design A/B overrides it: two designs, one request)."""
        return [(label, self._design, self._request_for(technology, dcqcn))
                for label, technology, dcqcn in self.variants]

    def work(self) -> None:
        jobs = [job for job in self.jobs() if not self._replay_cached(*job)]
        if self._use_process:
            self._run_in_children(jobs)
            return
        for label, design, request in jobs:
            self.check_stop()
            self.variant_started.emit(label)
            source = self._factory(design, request)
            _run_source(source, self.stop_event,
                        lambda now, _s, label=label, source=source:
                        self.variant_progress.emit(label, source.progress, now))
            source.stream.close(source.flow_ends())
            self._done(label, RecordedRun(
                label, design, source.stream, source.result(), source.timeline,
                source.captions(), source.facts()))

    def _replay_cached(self, label: str, design: FrozenDesign, request: RunRequest) -> bool:
        """Announce the cached run of one job at once; False when it must be computed (no
        cache, a request that does not validate, or no current entry)."""
        if self.cache is None:
            return False
        try:
            key = run_key(design, scenario_for(design, request), label)
        except Exception:  # noqa: BLE001 - the run itself reports what is wrong
            return False
        self._keys[label] = key
        found = self.lookups[label] = self.cache.lookup(key, label, design)
        if found.record is None:
            return False
        self.variant_started.emit(label)
        self.variant_done.emit(label, found.record)
        return True

    def _done(self, label: str, record: RecordedRun) -> None:
        """A run was computed: show it, then keep it in the cache."""
        self.variant_done.emit(label, record)
        key = self._keys.get(label)
        if self.cache is not None and key is not None:
            self.cache.store(key, record)

    def _run_in_children(self, jobs: list[tuple[str, FrozenDesign, RunRequest]]) -> None:
        """Every fabric in its own child, at most ``parallel`` at once; raises Reported for
        the first fabric that failed, Stopped when the comparison was stopped."""
        from fabricstudio.ui.simview.process_worker import run_variant_in_child

        slots = threading.Semaphore(self.parallel)
        errors: list[str] = []
        stop = self.stop_event

        def one(label: str, design: FrozenDesign, request: RunRequest) -> None:
            with slots:
                if stop.is_set():
                    return
                self.variant_started.emit(label)
                outcome, run = run_variant_in_child(
                    self._factory, design, request, stop,
                    lambda now, fraction: self.variant_progress.emit(label, fraction, now))
            if outcome == "error":
                errors.append(f"{label}: {run.error}")
                stop.set()  # one fabric failed: the comparison is incomplete
            elif outcome == "done" and run.stream is not None:
                self._done(label, RecordedRun(
                    label, design, run.stream, run.result, run.timeline, run.captions,
                    run.facts))

        threads = [threading.Thread(target=one, args=job, daemon=True,
                                    name=f"compare-{job[0]}") for job in jobs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise Reported(errors[0])
        self.check_stop()
