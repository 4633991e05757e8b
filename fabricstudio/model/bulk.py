"""Building many objects at once without Python's cyclic garbage collector in the way.

Reading a 32,768-GPU design creates about a million Python objects (JSON values, validated
models, index dictionaries) and drawing it a few hundred thousand more.  While they are being
created the collector walks every one of them again and again: each full pass is triggered by
25 % growth of the long-lived objects, so a build that grows them tenfold pays for several
passes over all of them (measured: 1.7 s of a 5.2 s parse, 0.8 s of the window build).
:func:`bulk_build` pauses the collector for such a build; it changes nothing but when cycles
are collected.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: Objects one build may leave tracked before they are frozen (``freeze=True``).  Reading
#: an 8,192-GPU design leaves about 80,000, its window about 27,000; a 2,048-GPU one about
#: 14,000 and 11,000.  Unfrozen, they cost a full collector pass of about 0.2 s a moment after
#: an 8k design has opened (the window stalls); a test's small design stays below the limit.
FREEZE_AFTER = 20_000


_lock = threading.Lock()
_pauses = 0
_was_enabled = False


def pause_collector() -> None:
    """Switch the cyclic collector off until every pause has been resumed.

    The one owner of the collector's on/off state in the application: builds
    (:func:`bulk_build`), headless simulation runs and the GUI's child process
    (``sim.run.cyclic_gc_paused``) and the GUI's background work (``ui.background``) pause
    and resume here, in any order and from any thread, and the collector comes back on only
    when the last pause ends, and only if it was on when the first began.  Where each pause
    is and why: docs/ARCHITECTURE.md, "Rules that run"."""
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1


def resume_collector() -> None:
    """End one :func:`pause_collector`."""
    global _pauses
    with _lock:
        if _pauses == 0:
            raise RuntimeError("resume_collector() without pause_collector()")
        _pauses -= 1
        if _pauses == 0 and _was_enabled:
            gc.enable()


@contextmanager
def bulk_build(freeze: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while a large design is read, built or drawn.

    With ``freeze`` (the window opening a design), when the build left more than
    :data:`FREEZE_AFTER` new objects, everything tracked is moved to the collector's
    permanent generation (:func:`gc.freeze`): the design lives as long as it is open, and
    otherwise the collector's next passes would walk all of it while the user pans and
    zooms.  Frozen objects are still freed when their last reference goes; only reference
    cycles among them wait for the end of the process, so library code (parsing a file)
    does not freeze.  Nested uses are free, and so is a build while background work has the
    collector paused: the collector resumes when the last pause ends.
    """
    pause_collector()
    try:
        yield
    finally:
        if freeze and gc.get_count()[0] > FREEZE_AFTER:
            gc.freeze()
        resume_collector()


def reclaim_frozen() -> bool:
    """Free what frozen designs left behind: a design frozen by :func:`bulk_build` and then
    closed or replaced keeps its reference cycles (and what they hold) in the permanent
    generation until the process ends.  This moves everything back (:func:`gc.unfreeze`),
    collects once and freezes what is still alive (the open design) again, so later passes
    still skip it.  One full pass over every object: a fraction of a second after a
    32,768-GPU design; nothing when nothing is frozen.  True when it collected."""
    if not gc.get_freeze_count():
        return False
    pause_collector()  # no automatic pass in between; this one is explicit
    try:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
    finally:
        resume_collector()
    return True
