"""Slurm hostlist expressions: ``server1, server2, server3, gpu07`` -> ``server[1-3],gpu07``."""

from __future__ import annotations

import re
from collections.abc import Iterable

_SPLIT = re.compile(r"^(.*?)(\d+)$")


def compress(names: Iterable[str]) -> str:
    """A hostlist expression naming every one of ``names`` once (order of first appearance
    of each prefix; numbers sorted within a prefix)."""
    groups: dict[tuple[str, int], list[int]] = {}
    plain: list[str] = []
    order: list[tuple[str, int] | str] = []
    for name in dict.fromkeys(names):
        match = _SPLIT.match(name)
        if not match:
            plain.append(name)
            order.append(name)
            continue
        prefix, digits = match.groups()
        width = len(digits) if digits.startswith("0") and len(digits) > 1 else 0
        key = (prefix, width)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(digits))
    for (prefix, width), numbers in list(groups.items()):
        plain_key = (prefix, 0)
        if width and plain_key in groups:
            fits = [n for n in groups[plain_key] if len(str(n)) == width]
            numbers.extend(fits)
            groups[plain_key] = [n for n in groups[plain_key] if len(str(n)) != width]
            if not groups[plain_key]:
                del groups[plain_key]
                order.remove(plain_key)
    parts = []
    for item in order:
        if isinstance(item, str):
            parts.append(item)
            continue
        prefix, width = item
        numbers = sorted(set(groups[item]))
        if len(numbers) == 1:
            parts.append(f"{prefix}{numbers[0]:0{width}d}")
            continue
        parts.append(f"{prefix}[{','.join(_ranges(numbers, width))}]")
    return ",".join(parts)


def _ranges(numbers: list[int], width: int) -> list[str]:
    out = []
    start = prev = numbers[0]
    tail: list[int | None] = [*numbers[1:], None]
    for number in tail:
        if number is not None and number == prev + 1:
            prev = number
            continue
        out.append(f"{start:0{width}d}" if start == prev else f"{start:0{width}d}-{prev:0{width}d}")
        if number is not None:
            start = prev = number
    return out


def expand(expression: str) -> list[str]:
    """The names of a hostlist expression (the inverse of :func:`compress`)."""
    names = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", expression):
        part = part.strip(",")
        match = re.match(r"^(.*)\[([^\]]*)\]$", part)
        if not match:
            names.append(part)
            continue
        prefix, body = match.groups()
        for item in body.split(","):
            low, _, high = item.partition("-")
            width = len(low) if low.startswith("0") and len(low) > 1 else 0
            for number in range(int(low), int(high or low) + 1):
                names.append(f"{prefix}{number:0{width}d}")
    return names
