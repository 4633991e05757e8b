"""Run the engine in a separate process that streams frames back (no GIL shared with the UI).

A pure-Python engine in a thread of the GUI process holds the GIL most of the time, and every
Qt call the UI makes releases and re-acquires it, so painting slows down several-fold.  In a
child process the engine cannot stall the UI at all.  The child advances in short slices,
sends the frames recorded since the last slice, and stops between slices when asked; the
parent Worker appends them to a MetricStream the UI reads exactly like a local one.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import threading
import time
from typing import Any

from PySide6.QtCore import Signal

from fabricstudio.model import FrozenDesign
from fabricstudio.model.bulk import pause_collector
from fabricstudio.sim.activity import GpuTimeline
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.sim.moments import Caption, RunFacts
from fabricstudio.sim.request import RunRequest
from fabricstudio.sim.result import Result
from fabricstudio.ui.background import Reported, Stopped, Worker
from fabricstudio.ui.simview.source import SourceFactory
from fabricstudio.ui.simview.worker import _run_source

STOP_GRACE_S = 1.0
#: The child runs at a lower scheduling priority: on a loaded machine (fewer free cores than
#: runnable processes) the UI thread gets the CPU the moment it wants to paint, instead of
#: waiting out the engine's time slice; on an idle machine the engine runs just as fast.
CHILD_NICENESS = 10


def _lower_priority() -> None:
    """Make the current process yield the CPU to the UI (no-op where unsupported)."""
    try:
        os.nice(CHILD_NICENESS)
    except (AttributeError, OSError):
        pass


def picklable(factory: SourceFactory) -> bool:
    """True when ``factory`` can be sent to a child process (module-level callables)."""
    try:
        pickle.dumps(factory)
    except (pickle.PicklingError, AttributeError, TypeError):
        return False
    return True


def _child_main(factory: SourceFactory, design: FrozenDesign, request: RunRequest, conn: Any,
                stop: Any, send_frames: bool) -> None:
    """Child process: build the source, run it in slices, stream frames, GPU states and
    captions, send the result, the final captions and the facts (the run owns this process:
    the cyclic garbage collector stays paused)."""
    _lower_priority()
    pause_collector()  # for good: the run owns this process until it exits
    try:
        source = factory(design, request)
        stream = source.stream
        timeline = source.timeline
        conn.send(("stream", stream.links, stream.sample_period_s, stream.fabric,
                   timeline.gpus if timeline is not None else None, stream.fields,
                   stream.engine, stream.engine_reason))
        sent = 0
        captions: list = []
        started = time.perf_counter()

        def flush(now: float, _spent: float) -> None:
            nonlocal sent, captions
            count = len(stream)
            frames = [stream.frame(i) for i in range(sent, count)] if send_frames else []
            rows = timeline.rows(sent, count) if timeline is not None else None
            sent = count
            fresh = source.captions()
            changed = fresh if fresh != captions else None
            captions = fresh
            wall = time.perf_counter() - started
            conn.send(("frames", frames, now, source.progress, now / wall if wall else 0.0,
                       rows, changed))

        _run_source(source, stop, flush)
        flush(source.now, 0.0)
        result = source.result()
        conn.send(("result", result, source.flow_ends(), source.captions(), source.facts()))
    except Stopped:
        conn.send(("stopped",))
    except Exception as exc:  # noqa: BLE001 - reported to the user by the parent
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _stream_from(message: tuple) -> MetricStream:
    """The parent's copy of the child's stream: its links, period, fabric, recorded fields
    (a flow-level run records utilisation only) and why its engine was chosen."""
    _, links, period, fabric, _gpus, fields, engine, reason = message
    stream = MetricStream(links, period, fabric, fields=fields, engine=engine)
    stream.engine_reason = reason
    return stream


class RunAssembly:
    """The parent's copy of a child's run, put together from its messages."""

    def __init__(self) -> None:
        self.stream: MetricStream | None = None
        self.timeline: GpuTimeline | None = None
        self.captions: list[Caption] = []
        self.result: Result | None = None
        self.facts: RunFacts | None = None
        self.error: str | None = None
        self.stopped = False
        #: Simulated time reached, fraction done and speed of the last report.
        self.progress = (0.0, 0.0, 0.0)

    def apply(self, message: tuple) -> str:
        """Take one message; returns its kind ("stream", "frames", "captions" when the
        frames brought new captions, "result", "error" or "stopped")."""
        kind = message[0]
        if kind == "stream":
            self.stream = _stream_from(message)
            if message[4] is not None:
                self.timeline = GpuTimeline(message[4], message[2])
        elif kind == "frames":
            _, frames, now, fraction, rate, rows, captions = message
            assert self.stream is not None
            for frame in frames:
                self.stream.append(frame)
            if rows is not None and self.timeline is not None and len(rows[0]):
                self.timeline.append(*rows)
            self.progress = (now, fraction, rate)
            if captions is not None:
                self.captions = list(captions)
                return "captions"
        elif kind == "result":
            _, self.result, flow_ends, captions, self.facts = message
            self.captions = list(captions)
            if self.stream is not None:
                self.stream.close(flow_ends)
        elif kind == "error":
            self.error = message[1]
        else:
            self.stopped = True
        return kind


class ChildRun:
    """One simulation in a spawned child process, its messages handed to a callback."""

    def __init__(self, factory: SourceFactory, design: FrozenDesign, request: RunRequest,
                 send_frames: bool = True) -> None:
        self._args = (factory, design, request)
        self._send_frames = send_frames
        self.process: Any = None

    def run(self, handle: Any, stop: threading.Event) -> str:
        """Start the child and pass each message to ``handle`` until it returns True
        ("done"), ``stop`` is set ("stopped") or the child dies ("died").  The child is
        always reaped before this returns."""
        ctx = multiprocessing.get_context("spawn")
        receiver, sender = ctx.Pipe(duplex=False)
        child_stop = ctx.Event()
        self.process = ctx.Process(target=_child_main, daemon=True,
                                   name="fabricstudio-simulation",
                                   args=(*self._args, sender, child_stop, self._send_frames))
        self.process.start()
        sender.close()
        try:
            return self._receive(receiver, handle, stop)
        finally:
            child_stop.set()
            self._drain_until_exit(receiver)
            receiver.close()

    def _receive(self, receiver: Any, handle: Any, stop: threading.Event) -> str:
        while True:
            if stop.is_set():
                return "stopped"
            if not receiver.poll(0.02):
                if not self.process.is_alive() and not receiver.poll(0):
                    return "died"
                continue
            try:
                message = receiver.recv()
            except (EOFError, OSError):
                return "died"
            if handle(message):
                return "done"

    def _drain_until_exit(self, receiver: Any) -> None:
        """Let the child end between slices (reading what it still sends so it never blocks
        on a full pipe); terminate it after STOP_GRACE_S."""
        deadline = time.perf_counter() + STOP_GRACE_S
        while self.process.is_alive() and time.perf_counter() < deadline:
            try:
                if receiver.poll(0.01):
                    receiver.recv()
            except (EOFError, OSError):
                break
        self.process.join(0.05)
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()


class ProcessRunWorker(Worker):
    """Same signals as RunWorker; the simulation runs in a spawned child process (a stop
    ends it at once: the child stops between slices or is terminated)."""

    stream_ready = Signal(object)
    progressed = Signal(float, float, float)
    captions_changed = Signal(object)  # list of Caption

    def __init__(self, factory: SourceFactory, design: FrozenDesign, request: RunRequest,
                 parent: Any = None) -> None:
        super().__init__(parent)
        self._child = ChildRun(factory, design, request)
        self.assembly = RunAssembly()

    @property
    def stream(self) -> MetricStream | None:
        """The run's metric stream (None before the child reported it)."""
        return self.assembly.stream

    @property
    def timeline(self) -> GpuTimeline | None:
        """The GPU states recorded so far."""
        return self.assembly.timeline

    @property
    def captions(self) -> list[Caption]:
        """The captions found so far."""
        return self.assembly.captions

    @property
    def facts(self) -> RunFacts | None:
        """The finished run's facts."""
        return self.assembly.facts

    @property
    def process(self) -> Any:
        """The child process (None before the run starts)."""
        return self._child.process

    def work(self) -> Result:
        outcome = self._child.run(self._handle, self.stop_event)
        assembly = self.assembly
        if assembly.error is not None:
            raise Reported(assembly.error)
        if outcome == "died":
            raise Reported("the simulation process ended unexpectedly")
        if assembly.result is None:  # stopped by the user or by the child
            raise Stopped
        return assembly.result

    def _handle(self, message: tuple) -> bool:
        """Apply one message from the child; True when the run is over."""
        assembly = self.assembly
        kind = assembly.apply(message)
        if kind == "stream":
            self.stream_ready.emit(assembly.stream)
        elif kind in ("frames", "captions"):
            self.progressed.emit(*assembly.progress)
            if kind == "captions":
                self.captions_changed.emit(assembly.captions)
        elif kind == "result":
            self.captions_changed.emit(assembly.captions)
            return True
        elif kind == "error":
            return True
        else:  # "stopped"
            return True
        return False


def run_variant_in_child(factory: SourceFactory, design: FrozenDesign, request: RunRequest,
                         stop: threading.Event, on_progress: Any = None
                         ) -> tuple[str, RunAssembly]:
    """Run one comparison variant in a child: ("done" / "error" / "stopped", the assembled
    run); ``on_progress(now, fraction)`` after every slice the child reports."""
    assembly = RunAssembly()

    def handle(message: tuple) -> bool:
        kind = assembly.apply(message)
        if kind in ("frames", "captions") and on_progress is not None:
            on_progress(assembly.progress[0], assembly.progress[1])
        return kind in ("result", "error", "stopped")

    outcome = ChildRun(factory, design, request, send_frames=True).run(handle, stop)
    if assembly.error is not None:
        return "error", assembly
    if outcome == "died":
        assembly.error = "the simulation process ended unexpectedly"
        return "error", assembly
    if assembly.result is not None:
        return "done", assembly
    return "stopped", assembly
