"""Run the engine in a separate process that streams frames back (no GIL shared with the UI).

A pure-Python engine in a thread of the GUI process holds the GIL most of the time, and every
Qt call the UI makes releases and re-acquires it, so painting slows down several-fold.  In a
child process the engine cannot stall the UI at all.  The child advances in short slices,
sends the frames recorded since the last slice, and stops between slices when asked; the
parent QThread appends them to a MetricStream the UI reads exactly like a local one.
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
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.sim.request import RunRequest
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
    """Child process: build the source, run it in slices, stream frames, send the result."""
    _lower_priority()
    try:
        source = factory(design, request)
        stream = source.stream
        conn.send(("stream", stream.links, stream.sample_period_s, stream.fabric))
        sent = 0
        started = time.perf_counter()

        def flush(now: float, _spent: float) -> None:
            nonlocal sent
            count = len(stream)
            frames = [stream.frame(i) for i in range(sent, count)] if send_frames else []
            sent = count
            wall = time.perf_counter() - started
            conn.send(("frames", frames, now, source.progress, now / wall if wall else 0.0))

        _run_source(source, stop, flush)
        flush(source.now, 0.0)
        conn.send(("result", source.result(), source.flow_ends()))
    except Stopped:
        conn.send(("stopped",))
    except Exception as exc:  # noqa: BLE001 - reported to the user by the parent
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


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

    def __init__(self, factory: SourceFactory, design: FrozenDesign, request: RunRequest,
                 parent: Any = None) -> None:
        super().__init__(parent)
        self._child = ChildRun(factory, design, request)
        self.stream: MetricStream | None = None
        self._outcome: tuple[str, Any] = ("stopped", None)

    @property
    def process(self) -> Any:
        """The child process (None before the run starts)."""
        return self._child.process

    def work(self) -> Any:
        if self._child.run(self._handle, self.stop_event) == "died":
            raise Reported("the simulation process ended unexpectedly")
        kind, value = self._outcome
        if kind == "error":
            raise Reported(value)
        if kind == "stopped":
            raise Stopped
        return value

    def _handle(self, message: tuple) -> bool:
        """Apply one message from the child; True when the run is over."""
        kind = message[0]
        if kind == "stream":
            self.stream = MetricStream(message[1], message[2], message[3])
            self.stream_ready.emit(self.stream)
        elif kind == "frames":
            _, frames, now, fraction, rate = message
            for frame in frames:
                self.stream.append(frame)
            self.progressed.emit(now, fraction, rate)
        elif kind == "result":
            self.stream.close(message[2])
            self._outcome = ("result", message[1])
            return True
        elif kind == "error":
            self._outcome = ("error", message[1])
            return True
        else:  # "stopped"
            return True
        return False


def run_variant_in_child(factory: SourceFactory, design: FrozenDesign, request: RunRequest,
                         stop: threading.Event) -> tuple[str, Any, MetricStream | None]:
    """Run one comparison variant headless in a child: (outcome, result or error, stream)."""
    box: dict[str, Any] = {}

    def handle(message: tuple) -> bool:
        kind = message[0]
        if kind == "stream":
            box["stream"] = MetricStream(message[1], message[2], message[3])
            return False
        if kind == "frames":
            return False
        if kind == "result" and "stream" in box:
            box["stream"].close(message[2])
        box[kind] = message[1] if len(message) > 1 else None
        return True

    outcome = ChildRun(factory, design, request, send_frames=False).run(handle, stop)
    if "error" in box:
        return "error", box["error"], None
    if outcome == "died":
        return "error", "the simulation process ended unexpectedly", None
    if "result" in box:
        return "done", box["result"], box.get("stream")
    return "stopped", None, None
