"""Connect a Qt object's method to a psygnal signal of the (Qt-free) model safely."""

from __future__ import annotations

import weakref
from typing import Any

import shiboken6


def connect_safely(signal: Any, obj: Any, method_name: str) -> Any:
    """Connect ``obj.method_name`` to ``signal`` through a weak reference that also checks the
    C++ side is alive, so a deleted widget is never called.  Returns the slot (to disconnect)."""
    ref = weakref.ref(obj)

    def slot(*_args: Any) -> None:
        target = ref()
        if target is not None and shiboken6.isValid(target):
            getattr(target, method_name)()

    signal.connect(slot, check_nargs=False)
    return slot
