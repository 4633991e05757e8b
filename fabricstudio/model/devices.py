"""Device models: GPU servers, storage servers and switches.

Ports are numbered from 0.  A server's ports come in plane order: compute NICs first
(``0 .. nics-1``), then storage NICs, then management ports.  A switch's ports are all
alike (``0 .. radix-1``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import ConfigDict, Field, field_validator

from fabricstudio.model.enums import DeviceKind, Plane
from fabricstudio.model.strict import StrictNumbers
from fabricstudio.model.text import printable

DeviceId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        pattern=r"^[^\s/\x00-\x1f\x7f-\x9f]+$",
        description="Stable unique id: no spaces, no control characters and no '/' "
                    "('server/gpuN' addresses a GPU).",
    ),
]
Speed = Annotated[float, Field(ge=0.01, le=100_000, description="Gb/s (10 Mb/s .. 100 Tb/s)")]
#: Canvas coordinates are kept within +-COORDINATE_LIMIT px (every exporter can draw them).
COORDINATE_LIMIT = 1e7

class _DeviceBase(StrictNumbers):
    """Fields every device has."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    if TYPE_CHECKING:  # each device class declares its own ``kind`` Literal field
        kind: str

    id: DeviceId
    name: str = Field(default="", max_length=200, description="Display name (id when empty)")
    x: float = Field(default=0.0, ge=-COORDINATE_LIMIT, le=COORDINATE_LIMIT,
                     allow_inf_nan=False, description="Canvas x position (px)")
    y: float = Field(default=0.0, ge=-COORDINATE_LIMIT, le=COORDINATE_LIMIT,
                     allow_inf_nan=False, description="Canvas y position (px)")
    planes: tuple[Plane, ...] = Field(
        default=(), description="Networks the device belongs to (defaults by kind)"
    )

    @property
    def label(self) -> str:
        """Name to show: the name (without control characters), or the id when it is empty."""
        return printable(self.name) or self.id

    @property
    def is_switch(self) -> bool:
        """True for switches."""
        return DeviceKind(self.kind).is_switch

    def port_count(self) -> int:  # pragma: no cover - overridden
        """Number of ports."""
        raise NotImplementedError

    def port_plane(self, port: int) -> Plane | None:
        """Plane a port is dedicated to, or None when any plane may use it (switches)."""
        return None

    def speed_of_port(self, port: int) -> float:  # pragma: no cover - overridden
        """Line rate of a port (Gb/s)."""
        raise NotImplementedError

    def ports_for_plane(self, plane: Plane) -> range:
        """Port indices usable by links of ``plane``."""
        return range(self.port_count())

    def port_layout(self) -> tuple[tuple[Plane | None, ...], tuple[float, ...]]:
        """:meth:`port_plane` and :meth:`speed_of_port` of every port, by port number (built
        at once for checking the links of a large file)."""
        count = self.port_count()
        return (tuple(self.port_plane(p) for p in range(count)),
                tuple(self.speed_of_port(p) for p in range(count)))


class _ServerBase(_DeviceBase):
    """Common port layout of GPU and storage servers."""

    nics: int = Field(default=1, ge=0, le=64, description="Compute-plane NICs")
    nic_speed_gbps: Speed = 400.0
    storage_nics: int = Field(default=0, ge=0, le=16, description="Storage-plane NICs")
    storage_nic_speed_gbps: Speed = 200.0
    mgmt_ports: int = Field(default=1, ge=0, le=4, description="Management ports")
    mgmt_speed_gbps: Speed = 1.0

    def port_count(self) -> int:
        return self.nics + self.storage_nics + self.mgmt_ports

    def port_plane(self, port: int) -> Plane | None:
        if port < self.nics:
            return Plane.COMPUTE
        if port < self.nics + self.storage_nics:
            return Plane.STORAGE
        return Plane.MANAGEMENT

    def speed_of_port(self, port: int) -> float:
        plane = self.port_plane(port)
        if plane is Plane.COMPUTE:
            return self.nic_speed_gbps
        if plane is Plane.STORAGE:
            return self.storage_nic_speed_gbps
        return self.mgmt_speed_gbps

    def port_layout(self) -> tuple[tuple[Plane | None, ...], tuple[float, ...]]:
        nics, storage, mgmt = self.nics, self.storage_nics, self.mgmt_ports
        planes: tuple[Plane | None, ...] = ((Plane.COMPUTE,) * nics + (Plane.STORAGE,) * storage
                                            + (Plane.MANAGEMENT,) * mgmt)
        return planes, ((self.nic_speed_gbps,) * nics + (self.storage_nic_speed_gbps,) * storage
                        + (self.mgmt_speed_gbps,) * mgmt)

    def ports_for_plane(self, plane: Plane) -> range:
        if plane is Plane.COMPUTE:
            return range(0, self.nics)
        if plane is Plane.STORAGE:
            return range(self.nics, self.nics + self.storage_nics)
        return range(self.nics + self.storage_nics, self.port_count())


class GpuServer(_ServerBase):
    """A GPU server (e.g. an HGX node): GPUs on NVLink, one or more compute NICs."""

    kind: Literal["gpu_server"] = "gpu_server"
    gpus: int = Field(default=8, ge=1, le=256)
    nvlink_gbps: Speed = Field(
        default=3600.0, description="Per-GPU NVLink bandwidth (Gb/s); H100: 18 links x 25 GB/s"
    )

    @field_validator("planes")
    @classmethod
    def _default_planes(cls, v: tuple[Plane, ...]) -> tuple[Plane, ...]:
        return v or (Plane.COMPUTE,)

    def gpu_nic(self, gpu: int) -> int:
        """Compute NIC used by GPU ``gpu`` (rail mapping: GPU i -> NIC i mod nics)."""
        if self.nics == 0:
            raise ValueError(f"{self.id} has no compute NIC")
        return (gpu * self.nics) // self.gpus if self.gpus > self.nics else gpu % self.nics


class StorageServer(_ServerBase):
    """A storage server on the storage network."""

    kind: Literal["storage_server"] = "storage_server"
    nics: int = Field(default=0, ge=0, le=64)
    storage_nics: int = Field(default=2, ge=0, le=16)
    capacity_tb: float = Field(default=500.0, ge=0, le=1e6)

    @field_validator("planes")
    @classmethod
    def _default_planes(cls, v: tuple[Plane, ...]) -> tuple[Plane, ...]:
        return v or (Plane.STORAGE,)


class _SwitchBase(_DeviceBase):
    """Common switch fields."""

    radix: int = Field(default=64, ge=1, le=1024, description="Port count")
    port_speed_gbps: Speed = 400.0
    buffer_bytes: int = Field(
        default=64 * 1024 * 1024,
        ge=0,
        le=16 * 1024**3,
        description="Shared packet buffer; ~64 MB for 51.2 Tb/s class parts",
    )
    latency_ns: float | None = Field(
        default=None,
        ge=0,
        le=1e6,
        description="Port-to-port latency; None = technology default (Ethernet 300, IB 200)",
    )

    def port_count(self) -> int:
        return self.radix

    def speed_of_port(self, port: int) -> float:
        return self.port_speed_gbps

    def port_layout(self) -> tuple[tuple[Plane | None, ...], tuple[float, ...]]:
        return (None,) * self.radix, (self.port_speed_gbps,) * self.radix

    @field_validator("planes")
    @classmethod
    def _default_planes(cls, v: tuple[Plane, ...]) -> tuple[Plane, ...]:
        return v or (Plane.COMPUTE,)


class Leaf(_SwitchBase):
    """Leaf (top-of-rack or rail) switch."""

    kind: Literal["leaf"] = "leaf"


class Spine(_SwitchBase):
    """Spine switch."""

    kind: Literal["spine"] = "spine"


class Core(_SwitchBase):
    """Super-spine / core switch."""

    kind: Literal["core"] = "core"


class MgmtSwitch(_SwitchBase):
    """Management (out-of-band) switch."""

    kind: Literal["mgmt_switch"] = "mgmt_switch"
    radix: int = Field(default=48, ge=1, le=1024)
    port_speed_gbps: Speed = 1.0
    buffer_bytes: int = Field(default=4 * 1024 * 1024, ge=0, le=16 * 1024**3)

    @field_validator("planes")
    @classmethod
    def _default_planes(cls, v: tuple[Plane, ...]) -> tuple[Plane, ...]:
        return v or (Plane.MANAGEMENT,)


Device = Annotated[
    GpuServer | StorageServer | Leaf | Spine | Core | MgmtSwitch,
    Field(discriminator="kind"),
]
Switch = Leaf | Spine | Core | MgmtSwitch
#: For ``isinstance``: narrows a Device to the switch or server classes.
SWITCH_TYPES = (Leaf, Spine, Core, MgmtSwitch)
SERVER_TYPES = (GpuServer, StorageServer)

#: The model class of each kind.
DeviceClass = (type[GpuServer] | type[StorageServer] | type[Leaf] | type[Spine] | type[Core]
               | type[MgmtSwitch])
DEVICE_CLASSES: dict[DeviceKind, DeviceClass] = {
    DeviceKind.GPU_SERVER: GpuServer,
    DeviceKind.STORAGE_SERVER: StorageServer,
    DeviceKind.LEAF: Leaf,
    DeviceKind.SPINE: Spine,
    DeviceKind.CORE: Core,
    DeviceKind.MGMT_SWITCH: MgmtSwitch,
}
