"""The child side of :class:`fabricstudio.ui.background.ChildCall` (Qt-free, so a child
imports only what its function needs): ``python -m fabricstudio.ui.child_entry``.

The parent writes the pickled ``(function, args, kwargs)`` to the child's standard input and
reads back, from its standard output, one pickled ``("ok", result)`` or ``("error", text)``.
The child runs at a lower scheduling priority (on a loaded machine the GUI gets the CPU the
moment it wants to paint) with the cyclic garbage collector paused (the call owns this
short-lived process), and ends without tearing its objects down one by one.
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys
from typing import Any

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


def run_call(payload: bytes) -> bytes:
    """The pickled outcome of the pickled call ``payload``."""
    try:
        function, args, kwargs = pickle.loads(payload)
        return pickle.dumps(("ok", function(*args, **kwargs)), pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - reported to the user by the parent
        return pickle.dumps(("error", f"{type(exc).__name__}: {exc}"))


def main() -> None:
    """Read one call from standard input, write its outcome to standard output, exit."""
    answer = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print cannot spoil the answer
    try:
        os.nice(CHILD_NICENESS)
    except (AttributeError, OSError):
        pass
    from fabricstudio.model.bulk import pause_collector

    pause_collector()
    answer.write(run_call(sys.stdin.buffer.read()))
    answer.close()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
