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

The simulation runs (in a thread or a child process) and the fabric comparison are Workers
too (``fabricstudio.ui.simview.worker`` / ``process_worker``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal


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


def describe_error(exc: BaseException) -> str:
    """The one-line text a worker reports for an exception."""
    return str(exc) if isinstance(exc, Reported) else f"{type(exc).__name__}: {exc}"
