"""Enumerations shared by the whole model: device kinds, network planes, fabric technologies."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class DeviceKind(StrEnum):
    """What a device is; the ``kind`` field of every node in a design file."""

    GPU_SERVER = "gpu_server"
    LEAF = "leaf"
    SPINE = "spine"
    CORE = "core"
    STORAGE_SERVER = "storage_server"
    MGMT_SWITCH = "mgmt_switch"

    @property
    def is_switch(self) -> bool:
        """True for leaf, spine, core and management switches."""
        return _KIND_FACTS[self].switch

    @property
    def tier(self) -> int:
        """Row in a role-sorted layout: 0 = servers (bottom) ... 3 = core (top)."""
        return _KIND_FACTS[self].tier

    @property
    def label(self) -> str:
        """Human name, e.g. ``"Leaf switch"``."""
        return _KIND_FACTS[self].label

    @property
    def id_prefix(self) -> str:
        """Start of the ids the editor gives new devices of this kind (``leaf`` -> leaf1)."""
        return _KIND_FACTS[self].id_prefix

    @property
    def colour(self) -> str:
        """Tile colour, hex ``RRGGBB`` (colour-blind-safe canvas palette)."""
        return _KIND_FACTS[self].colour


class _KindFacts(NamedTuple):
    label: str
    tier: int
    switch: bool
    id_prefix: str
    colour: str


#: Everything known about each kind, in one place (a new kind adds one row here and its
#: model class in devices.py).
_KIND_FACTS: dict[DeviceKind, _KindFacts] = {
    DeviceKind.GPU_SERVER: _KindFacts("GPU server", 0, False, "gpu", "0E9F6E"),
    DeviceKind.LEAF: _KindFacts("Leaf switch", 1, True, "leaf", "1F6FEB"),
    DeviceKind.SPINE: _KindFacts("Spine switch", 2, True, "spine", "6E56CF"),
    DeviceKind.CORE: _KindFacts("Core / super-spine", 3, True, "core", "D97706"),
    DeviceKind.STORAGE_SERVER: _KindFacts("Storage server", 0, False, "stor", "C2549B"),
    DeviceKind.MGMT_SWITCH: _KindFacts("Management switch", 1, True, "mgmt", "64748B"),
}


class Plane(StrEnum):
    """The three separate networks of an AI cluster."""

    COMPUTE = "compute"
    STORAGE = "storage"
    MANAGEMENT = "management"


class Technology(StrEnum):
    """Fabric technology: lossless InfiniBand, lossless RoCE, or a lossy Ethernet baseline."""

    INFINIBAND = "infiniband"
    ROCE = "roce"
    ETHERNET = "ethernet"

    @property
    def is_lossless(self) -> bool:
        """InfiniBand (credits) and RoCE (PFC) never drop by design."""
        return self is not Technology.ETHERNET

    @property
    def label(self) -> str:
        """Human-readable name (CLI summaries, menus, combos, captions)."""
        return _TECHNOLOGY_LABELS[self]

    def fabric_label(self, dcqcn: bool) -> str:
        """The name of a run's fabric: ``RoCE + DCQCN`` or ``RoCE (PFC only)`` for RoCE,
        :attr:`label` for the others (DCQCN applies to RoCE only)."""
        if self is Technology.ROCE:
            return f"{self.label} + DCQCN" if dcqcn else f"{self.label} (PFC only)"
        return self.label


_TECHNOLOGY_LABELS = {Technology.INFINIBAND: "InfiniBand", Technology.ROCE: "RoCE",
                      Technology.ETHERNET: "Lossy Ethernet"}
