"""Link (cable) model."""

from __future__ import annotations

from pydantic import ConfigDict, Field, model_validator

from fabricstudio.model.devices import DeviceId, Speed
from fabricstudio.model.enums import Plane
from fabricstudio.model.strict import StrictNumbers


class Link(StrictNumbers):
    """A full-duplex cable between port ``a_port`` of device ``a`` and ``b_port`` of ``b``.

    Ports may be omitted in files and commands; the design assigns the first free port of the
    right plane on each end.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: DeviceId
    a: DeviceId
    b: DeviceId
    a_port: int | None = Field(default=None, ge=0, le=4096)
    b_port: int | None = Field(default=None, ge=0, le=4096)
    speed_gbps: Speed = 400.0
    length_m: float = Field(default=3.0, ge=0.1, le=100_000, description="Cable length (m)")
    plane: Plane = Plane.COMPUTE

    @model_validator(mode="after")
    def _no_self_loop(self) -> Link:
        if self.a == self.b:
            raise ValueError(f"link {self.id} connects {self.a} to itself")
        return self

    def other_end(self, device_id: str) -> str:
        """The device at the far end from ``device_id``."""
        return self.b if device_id == self.a else self.a

    def port_at(self, device_id: str) -> int | None:
        """This link's port number on ``device_id``."""
        return self.a_port if device_id == self.a else self.b_port
