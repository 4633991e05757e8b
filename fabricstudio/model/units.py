"""Units in one place (Qt-free): line rates, byte counts and times, and how they are written.

Model fields carry their unit in their name (``_gbps`` gigabits per second, ``_bytes``, ``_s``
seconds); these helpers convert between them and format them for people.  Each conversion is
written once, in one arithmetic order, so the same inputs always give the same float.
"""

from __future__ import annotations

from typing import Any


# ------------------------------------------------------------------ conversions
def gbps_to_bytes_per_s(gbps: float) -> float:
    """Line rate in Gb/s -> bytes per second."""
    return gbps * 1e9 / 8


def gigabits(nbytes: Any) -> Any:
    """Bytes -> gigabits (a number or a numpy array)."""
    return nbytes * 8e-9


def throughput_gbps(nbytes: float, seconds: float) -> float:
    """Gb/s of ``nbytes`` moved in ``seconds`` (``seconds`` > 0)."""
    return nbytes * 8 / seconds / 1e9


def transfer_time_s(nbytes: float, gbps: float) -> float:
    """Seconds to move ``nbytes`` at ``gbps``."""
    return nbytes * 8 / (gbps * 1e9)


# ------------------------------------------------------------------ formatting
_BINARY = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


def format_bytes(size: float) -> str:
    """A byte count in binary units, 4 significant digits (``268435456`` -> ``"256 MiB"``)."""
    for unit, scale in _BINARY:
        if size >= scale:
            return f"{size / scale:.4g} {unit}"
    return f"{size:.0f} B"


def format_mib(size: float) -> str:
    """A byte count in MiB, for size limits (``33554432`` -> ``"32 MiB"``)."""
    mib = size / 2**20
    return f"{mib:.0f} MiB" if mib >= 10 else f"{mib:.1f} MiB"


def format_kb(size: float) -> str:
    """A buffer size in decimal KB / MB, as data sheets give them (``8000`` -> ``"8 KB"``)."""
    return f"{size / 1000:.0f} KB" if size < 10**6 else f"{size / 1e6:.1f} MB"


def format_seconds(seconds: float | None) -> str:
    """A duration with 4 significant digits in s, ms, µs or ns (``None`` -> ``"-"``)."""
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds / 1e-9:.4g} ns"


def format_time(t: float) -> str:
    """A simulated time for a clock display, fixed decimals (``2e-5`` -> ``"20.00 µs"``)."""
    if t < 1e-3:
        return f"{t * 1e6:.2f} µs"
    if t < 1.0:
        return f"{t * 1e3:.3f} ms"
    return f"{t:.3f} s"
