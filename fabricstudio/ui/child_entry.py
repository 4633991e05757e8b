"""The child side of :class:`fabricstudio.ui.background.ChildCall` (Qt-free, so a child
imports only what its function needs).

The parent starts a spawned child on :func:`child_main` with one end of a duplex pipe, sends
the pickled ``(function, args, kwargs)`` as one message, and reads back one
``("ok", result)`` or ``("error", text)``.  The child runs at a lower scheduling priority
(on a loaded machine the GUI gets the CPU the moment it wants to paint) with the cyclic
garbage collector paused: the call owns this short-lived process.
"""

from __future__ import annotations

import importlib
import os
import pickle
from typing import Any

from fabricstudio.model.bulk import pause_collector

#: How much the child lowers its own scheduling priority (as simulation children do).
CHILD_NICENESS = 10


class ByName:
    """A module-level function named by its module and name, imported where it is called:
    the GUI sends a call to a child without importing the function's module itself (the
    design analysis took 0.1 s to import on the GUI thread)."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(self.module), self.name)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"{self.module}.{self.name}"


def child_main(conn: Any) -> None:
    """Receive one call, run it, send its outcome back."""
    try:
        os.nice(CHILD_NICENESS)
    except (AttributeError, OSError):
        pass
    pause_collector()
    try:
        function, args, kwargs = pickle.loads(conn.recv_bytes())
        outcome: tuple[str, Any] = ("ok", function(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - reported to the user by the parent
        outcome = ("error", f"{type(exc).__name__}: {exc}")
    try:
        conn.send(outcome)
    finally:
        conn.close()
