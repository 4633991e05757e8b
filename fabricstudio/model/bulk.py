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
from collections.abc import Iterator
from contextlib import contextmanager

#: Objects one build may leave tracked before they are frozen (``freeze=True``).  Reading
#: an 8,192-GPU design leaves about 80,000, its window about 27,000; a 2,048-GPU one about
#: 14,000 and 11,000.  Unfrozen, they cost a full collector pass of about 0.2 s a moment after
#: an 8k design has opened (the window stalls); a test's small design stays below the limit.
FREEZE_AFTER = 20_000


@contextmanager
def bulk_build(freeze: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while a large design is read, built or drawn.

    With ``freeze`` (the window opening a design), when the build left more than
    :data:`FREEZE_AFTER` new objects, everything tracked is moved to the collector's
    permanent generation (:func:`gc.freeze`): the design lives as long as it is open, and
    otherwise the collector's next passes would walk all of it while the user pans and
    zooms.  Frozen objects are still freed when their last reference goes; only reference
    cycles among them wait for the end of the process, so library code (parsing a file)
    does not freeze.  Nested uses are free: the outermost one pauses and resumes (and
    decides about freezing).
    """
    if not gc.isenabled():  # nested, or the collector was switched off by someone else
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if freeze and gc.get_count()[0] > FREEZE_AFTER:
            gc.freeze()
        gc.enable()
