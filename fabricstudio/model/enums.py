"""Enumerations shared by the whole model: device kinds, network planes, fabric technologies."""

from __future__ import annotations

from enum import StrEnum


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
        return self in SWITCH_KINDS

    @property
    def tier(self) -> int:
        """Row in a role-sorted layout: 0 = servers (bottom) ... 3 = core (top)."""
        return _TIERS[self]


SWITCH_KINDS = frozenset(
    {DeviceKind.LEAF, DeviceKind.SPINE, DeviceKind.CORE, DeviceKind.MGMT_SWITCH}
)
_TIERS = {
    DeviceKind.GPU_SERVER: 0,
    DeviceKind.STORAGE_SERVER: 0,
    DeviceKind.LEAF: 1,
    DeviceKind.MGMT_SWITCH: 1,
    DeviceKind.SPINE: 2,
    DeviceKind.CORE: 3,
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
        """Human-readable name."""
        return {"infiniband": "InfiniBand", "roce": "RoCE", "ethernet": "Lossy Ethernet"}[
            self.value
        ]
