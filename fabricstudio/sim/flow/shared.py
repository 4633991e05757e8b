"""Arrays with two faces over one buffer: numpy for whole-array arithmetic, ``array.array``
for reading and writing one element (about half the cost of indexing numpy, and its elements
come out as Python numbers).  Both faces hold the same float64 / int64 values, so a number
written through one is read bit for bit through the other."""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np


def doubles(n: int, fill: float = 0.0) -> tuple[array[float], np.ndarray]:
    """(element face, numpy face) of ``n`` float64 set to ``fill``."""
    buf = array("d", [fill]) * n
    return buf, np.frombuffer(buf, dtype=np.float64)


def ints(n: int, fill: int = 0) -> tuple[array[int], np.ndarray]:
    """(element face, numpy face) of ``n`` int64 set to ``fill``."""
    buf = array("q", [fill]) * n
    return buf, np.frombuffer(buf, dtype=np.int64)


def grown(buf: array[Any], size: int, fill: float | int) -> tuple[array[Any], np.ndarray]:
    """A copy of ``buf`` grown to ``size`` elements (the new ones ``fill``), with its numpy
    face (an exported buffer cannot grow in place)."""
    new = array(buf.typecode, buf)
    new.extend(array(buf.typecode, [fill]) * (size - len(buf)))
    return new, np.frombuffer(new, dtype=np.float64 if buf.typecode == "d" else np.int64)
