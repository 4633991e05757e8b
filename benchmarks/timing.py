"""What the benchmark scripts share: best-of-N timing and the ``--repeat`` argument.

The scripts import it as ``timing`` (their own folder is first on ``sys.path`` when they run
as ``.venv/bin/python benchmarks/NAME.py``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def best_of(repeat: int, func: Callable[[], T]) -> tuple[float, T]:
    """(best wall seconds, last result) of ``repeat`` calls (at least one)."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def arguments(doc: str, repeat: int = 3) -> argparse.ArgumentParser:
    """A parser described by the first line of ``doc`` (the script's docstring), with
    ``--repeat`` (how many times each step runs; the best time counts)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=repeat,
                        help=f"runs per step, the best counts (default {repeat})")
    return parser
