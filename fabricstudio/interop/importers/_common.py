"""Helpers shared by the importers."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from fabricstudio.interop.safety import read_limited

#: Attributes that describe what a device is, by importer-neutral name.
ROLE_KEYS = ("role", "device_role", "function", "type", "device_type", "group", "tier")


def head(path: Path, size: int = 4096) -> str:
    """The first bytes of a regular file as text ('' when it cannot be read)."""
    try:
        if not path.is_file():
            return ""
        with open(path, "rb") as handle:
            return handle.read(size).decode("utf-8", "replace")
    except OSError:
        return ""


def coordinate(value: Any) -> float | None:
    """A finite float from an attribute value, or None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and abs(number) <= 1e7 else None


def port_number(value: Any) -> int | None:
    """A link end's port number from an attribute value (0 to 4096), or None."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        port = int(value)
    except (TypeError, ValueError):
        return None
    return port if 0 <= port <= 4096 else None


def role_hints(attrs: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, words) pairs from role-like attributes, most specific first."""
    hints = []
    for key in ROLE_KEYS:
        value = attrs.get(key)
        if isinstance(value, str) and value.strip():
            hints.append((f"its {key}", value))
    label = attrs.get("label")
    if isinstance(label, str) and label.strip():
        hints.append(("names", label))
    return hints


def read_file(path: Path) -> bytes:
    """The bytes of an import file (size-limited, regular files only)."""
    return read_limited(path)
