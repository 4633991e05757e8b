"""The one helper for background work in the GUI: :class:`Worker`, a QThread whose outcome
reaches the GUI thread through queued signals.

Subclasses implement :meth:`Worker.work` (it runs on the worker thread and returns the result;
it may call :meth:`Worker.check_stop` between steps, which raises :class:`Stopped` once
:meth:`Worker.request_stop` was called).  Every worker then ends with exactly one of
``succeeded(result)``, ``failed(message)`` or (after a stop) neither, followed by QThread's
``finished``.  :class:`Call` runs one function (the analysis panel uses it)::

    worker = Call(lambda: analyze(snapshot), parent=self)
    worker.succeeded.connect(self._show)
    worker.failed.connect(self._show_error)
    worker.start()

:class:`ChildCall` runs one function in a spawned child process instead (the analysis of a
large design: pure-Python work that would otherwise share the GUI's GIL for seconds); a stop
ends the child at once.  The simulation runs (in a thread or a child process), the fabric
comparison, the sweep and the autosave writes are Workers too.

Running workers are kept here until they finish (:func:`running_workers`), so an owner may let
go of one still running (:func:`abandon`: a window closing during a long analysis) and
:func:`wait_for_background_work` waits for all of them (quitting, test teardown).  While any
worker runs, Python's cyclic garbage collector runs only on the GUI thread (a timer collects
instead of the automatic collector): an automatic collection can start in whichever thread
allocates, and one started on a worker thread would destroy the GUI's unreachable Qt objects
there, which crashes Qt.
"""

from __future__ import annotations

import gc
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QThread, QTimer, Signal, Slot

from fabricstudio.model.bulk import pause_collector, resume_collector

#: How often the GUI thread collects garbage while workers run (milliseconds).
COLLECT_EVERY_MS = 250
#: How long a ChildCall's thread waits for its ended child to be gone (seconds).
REAP_WAIT_S = 0.2


class Stopped(Exception):
    """Raised inside a worker's ``work`` when a stop was requested."""


class Reported(Exception):
    """An error already worded for the user (e.g. sent by a child process): ``failed``
    carries its text as it is."""


class Worker(QThread):
    """A background task with a result, an error message, and a stop request."""

    succeeded = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._stop = threading.Event()
        #: True when the work ended because a stop was requested.
        self.stopped = False

    def work(self) -> Any:  # pragma: no cover - overridden
        """The task (runs on the worker thread); returns the result."""
        raise NotImplementedError

    def request_stop(self) -> None:
        """Ask the work to end at its next :meth:`check_stop`."""
        self._stop.set()

    @property
    def stop_event(self) -> threading.Event:
        """Set once a stop was requested (for code that polls it)."""
        return self._stop

    def check_stop(self) -> None:
        """Raise :class:`Stopped` when a stop was requested."""
        if self._stop.is_set():
            raise Stopped

    def start(self, priority: QThread.Priority = QThread.Priority.InheritPriority) -> None:
        """Start the work on its thread (kept alive until it has finished)."""
        _registry().add(self)
        super().start(priority)

    def run(self) -> None:  # noqa: D102 - QThread override
        try:
            result = self.work()
        except Stopped:
            self.stopped = True
            return
        except Exception as exc:  # noqa: BLE001 - shown to the user, never crashes the GUI
            self.failed.emit(describe_error(exc))
            return
        self.succeeded.emit(result)


class Call(Worker):
    """A Worker running one function."""

    def __init__(self, function: Callable[[], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._function = function

    def work(self) -> Any:
        return self._function()


class ChildCall(Worker):
    """A Worker running ``function(*args, **kwargs)`` in a child Python process, so its work
    never holds the GUI's GIL; the function and its arguments must pickle (a module-level
    function of a Qt-free module, or :class:`~fabricstudio.ui.child_entry.ByName`, keeps the
    child light).

    The call is pickled and written to the child on the worker thread; the child writes back
    the result or a one-line error (``failed``); see ``fabricstudio.ui.child_entry``.
    :meth:`request_stop` kills the child at once, from any thread, even while the call is
    still being written: the work then ends as stopped.  A plain subprocess, not a
    multiprocessing one: quitting never waits for a child to be reaped (multiprocessing's exit
    hook joins every child, and a killed child at low priority on a busy machine took a
    second to go).
    """

    def __init__(self, function: Callable[..., Any], *args: Any, parent: QObject | None = None,
                 **kwargs: Any) -> None:
        super().__init__(parent)
        self._call: tuple[Any, ...] | None = (function, args, kwargs)
        self._process: subprocess.Popen[bytes] | None = None
        # the child is started and signalled under the lock, and never signalled once its
        # outcome was read (the worker reaps it then: no signal can reach a reused pid)
        self._lock = threading.Lock()
        self._settled = False

    @property
    def pid(self) -> int | None:
        """The child's process id (None before it started)."""
        process = self._process
        return None if process is None else process.pid

    @property
    def exitcode(self) -> int | None:
        """How the child ended: 0, or minus the signal that ended it (None while it runs
        or before it started)."""
        process = self._process
        if process is None:
            return None
        with self._lock:  # once settled no signal is sent: polling (reaping) is safe
            return process.poll() if self._settled else process.returncode

    def request_stop(self) -> None:
        """Stop: the child is killed now (the worker thread then ends)."""
        super().request_stop()
        self._kill()

    def work(self) -> Any:
        payload = pickle.dumps(self._call, protocol=pickle.HIGHEST_PROTOCOL)
        self._call = None  # the child has its own copy from here on
        with self._lock:
            self.check_stop()
            self._process = subprocess.Popen(
                [sys.executable, "-m", "fabricstudio.ui.child_entry"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        answer = None
        try:
            try:
                process.stdin.write(payload)
                process.stdin.close()
                answer = process.stdout.read()  # to the end: the child is done or killed
            except OSError:  # killed (a stop) or died while the call was written
                answer = b""
        finally:
            self._kill(settle_only=answer is not None)  # read to the end: it exits by itself
            try:  # a killed child at low priority on a busy machine may take a second to
                process.wait(REAP_WAIT_S)  # go: exitcode or Popen's own clean-up reaps it
            except subprocess.TimeoutExpired:
                pass
            process.stdout.close()
        self.check_stop()
        if not answer:
            raise Reported("the background process ended unexpectedly")
        kind, value = pickle.loads(answer)
        if kind == "error":
            raise Reported(value)
        return value

    def _kill(self, settle_only: bool = False) -> None:
        """Kill the child unless its outcome is settled (read to the end, or killed once);
        ``settle_only``: just mark it settled (no signal from here on)."""
        with self._lock:
            if self._process is None or self._settled:
                return
            self._settled = True
            if not settle_only and self._process.poll() is None:
                self._process.kill()


class _Running(QObject):
    """The running workers, and the GUI-thread garbage collection while there are any."""

    def __init__(self, parent: QObject | None) -> None:
        super().__init__(parent)
        self.workers: set[Worker] = set()
        self._thresholds = gc.get_threshold()
        self._timer = QTimer(self)
        self._timer.setInterval(COLLECT_EVERY_MS)
        self._timer.timeout.connect(self.collect)

    def add(self, worker: Worker) -> None:
        if not self.workers:
            pause_collector()
            self._timer.start()
        self.workers.add(worker)
        worker.finished.connect(self._on_finished)  # queued: runs on the GUI thread

    @Slot()
    def _on_finished(self) -> None:
        worker = self.sender()
        if isinstance(worker, Worker) and worker in self.workers:
            worker.wait()  # it emitted ``finished`` on its way out: a moment at most
            self._drop({worker})
        self.prune()

    def prune(self) -> None:
        """Forget workers that are over: deleted (an owner's ``deleteLater`` in its own
        ``finished`` slot may run first, and this slot then has no sender) or finished
        whoever heard of it (a notification without its sender must not leave the collector
        paused for good)."""
        self._drop({w for w in self.workers if not shiboken6.isValid(w) or w.isFinished()})

    def _drop(self, gone: set[Worker]) -> None:
        had_any = bool(self.workers)
        self.workers -= gone
        if had_any and not self.workers:  # the last one: the collector is Python's again
            self._timer.stop()
            self.collect()
            resume_collector()

    def collect(self) -> None:
        """Collect the generations whose count passed the collector's own threshold (what
        the automatic collector would have done, here on the GUI thread)."""
        counts = gc.get_count()
        for generation in range(3):
            if counts[generation] <= self._thresholds[generation]:
                break
            gc.collect(generation)


_REGISTRY: _Running | None = None


def _registry() -> _Running:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _Running(QCoreApplication.instance())
    return _REGISTRY


def running_workers() -> list[Worker]:
    """Workers started and not finished yet (whoever started them)."""
    registry = _registry()
    registry.prune()
    return [w for w in registry.workers if not w.isFinished()]


def abandon(worker: Worker) -> None:
    """Let go of a running worker: it no longer dies with its parent and finishes on its
    own (its result then reaches no one)."""
    if worker.isRunning():
        worker.setParent(None)


def wait_for_background_work(timeout_s: float = 30.0) -> bool:
    """Wait until every running worker has finished (at most ``timeout_s`` in all) and its
    ``finished`` was handled; True when none is left running."""
    deadline = time.monotonic() + timeout_s
    for worker in running_workers():
        worker.wait(max(0, int((deadline - time.monotonic()) * 1000)))
    app = QCoreApplication.instance()
    if app is not None:
        app.processEvents()
    return not running_workers()


def describe_error(exc: BaseException) -> str:
    """The one-line text a worker reports for an exception."""
    return str(exc) if isinstance(exc, Reported) else f"{type(exc).__name__}: {exc}"
