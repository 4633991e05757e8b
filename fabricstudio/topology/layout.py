"""Role-sorted auto-placement: core > spine > leaf > servers, networks placed apart."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from fabricstudio.model import Design, Device, DeviceKind, Plane

#: Horizontal distance between devices in a row, vertical distance between tiers (px).
COLUMN_GAP = 90.0
ROW_GAP = 160.0


def role_rows(devices: Iterable[Device]) -> list[tuple[str, list[Device]]]:
    """Devices grouped into labelled rows, top row first."""
    rows: dict[tuple[int, str], list[Device]] = defaultdict(list)
    for device in devices:
        kind = DeviceKind(device.kind)
        network = _main_plane(device)
        rows[(-kind.tier, f"{network.value}:{kind.value}")].append(device)
    return [(label, members) for (_, label), members in sorted(rows.items())]


def _main_plane(device: Device) -> Plane:
    return device.planes[0] if device.planes else Plane.COMPUTE


def auto_layout(devices: Sequence[Device]) -> dict[str, tuple[float, float]]:
    """Positions for ``devices``: one row per (network, tier), rows centred on x = 0.

    The compute network sits on the left, storage to its right, management below the servers.
    """
    positions: dict[str, tuple[float, float]] = {}
    by_plane: dict[Plane, list[Device]] = defaultdict(list)
    for device in devices:
        by_plane[_main_plane(device)].append(device)
    x_offset = 0.0
    for plane in (Plane.COMPUTE, Plane.STORAGE):
        members = by_plane.get(plane, [])
        if not members:
            continue
        width = _place_rows(members, x_offset, 0.0, positions)
        x_offset += width + 3 * COLUMN_GAP
    mgmt = by_plane.get(Plane.MANAGEMENT, [])
    if mgmt:
        _place_rows(mgmt, 0.0, ROW_GAP * 1.5, positions)
    return positions


def _place_rows(devices: Sequence[Device], x0: float, y_base: float,
                positions: dict[str, tuple[float, float]]) -> float:
    """Place devices in tier rows starting at x0; returns the widest row's width."""
    tiers: dict[int, list[Device]] = defaultdict(list)
    for device in devices:
        tiers[DeviceKind(device.kind).tier].append(device)
    width = max((len(row) - 1) * COLUMN_GAP for row in tiers.values())
    for tier, row in tiers.items():
        row_width = (len(row) - 1) * COLUMN_GAP
        start = x0 + (width - row_width) / 2
        for i, device in enumerate(row):
            positions[device.id] = (start + i * COLUMN_GAP, y_base - tier * ROW_GAP)
    return width


def needs_layout(design: Design) -> bool:
    """True when several devices share one position (e.g. a hand-written file without x/y)."""
    seen = set()
    for device in design.devices.values():
        key = (device.x, device.y)
        if key in seen:
            return True
        seen.add(key)
    return False
