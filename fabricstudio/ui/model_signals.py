"""The one way a Qt object listens to the (Qt-free, psygnal) model's signals.

:class:`ModelSignals` connects slots of one Qt owner and forgets them together: a slot is
called only while its owner is alive on the C++ side (a deleted widget is never called, even
if the model outlives it), and :meth:`ModelSignals.disconnect_all` (or the owner's
destruction) drops every connection::

    self.model_signals = ModelSignals(self)
    self.model_signals.connect(design.changed, self.schedule)
    self.model_signals.connect(design.device_added, self._on_device_added)  # gets the id
    ...
    self.model_signals.disconnect_all()     # e.g. when the window closes
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject


class ModelSignals:
    """Connections of one Qt object (``owner``) to model signals."""

    def __init__(self, owner: QObject) -> None:
        self._owner = weakref.ref(owner)
        self._connections: list[tuple[Any, Callable[..., None]]] = []
        owner.destroyed.connect(lambda *_: self.disconnect_all())

    def connect(self, signal: Any, slot: Callable[..., Any]) -> None:
        """Call ``slot`` (with the signal's arguments, as many as it takes) on every emission
        of the psygnal ``signal`` while the owner is alive."""
        owner = self._owner
        target = weakref.WeakMethod(slot) if hasattr(slot, "__self__") else (lambda: slot)
        takes = _positional_count(slot)

        def relay(*args: Any) -> None:
            alive = owner()
            method = target()
            if alive is not None and method is not None and shiboken6.isValid(alive):
                method(*args[:takes])

        signal.connect(relay, check_nargs=False)
        self._connections.append((signal, relay))

    def disconnect_all(self) -> None:
        """Drop every connection made through this object."""
        connections, self._connections = self._connections, []
        for signal, relay in connections:
            try:
                signal.disconnect(relay)
            except (TypeError, ValueError, RuntimeError):
                pass  # the signal already let go of it


def _positional_count(slot: Callable[..., Any]) -> int | None:
    """How many positional arguments ``slot`` takes (None: any number), so a slot may ignore
    the signal's arguments, as with a direct psygnal connection."""
    count = 0
    for parameter in inspect.signature(slot).parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            return None
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            count += 1
    return count
