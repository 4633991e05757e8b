"""Freeze once: an immutable snapshot of a Design for a simulation run.

A run reads the design while the user goes on editing it, so it takes a snapshot when it
starts.  The snapshot shares the design's device and link values (pydantic models, frozen)
and copies only the id maps, so it costs no validation: the design was valid when taken.
It reads like a :class:`Design` (every read method works) and refuses every change; it pickles
to a child process as plain data.
"""

from __future__ import annotations

from typing import Any, NoReturn

from fabricstudio.model.design import Design
from fabricstudio.model.devices import Device
from fabricstudio.model.fabric import FabricSettings
from fabricstudio.model.links import Link
from fabricstudio.model.validation import DesignError


class FrozenDesign(Design):
    """A read-only snapshot of a :class:`Design` (see the module docstring)."""

    def __init__(self, source: Design, fabric: FabricSettings | None = None) -> None:
        super().__init__(source.name, fabric or source.fabric)
        self._description = source.description
        self._devices = dict(source.devices)
        self._links = dict(source.links)
        self._ports = {device_id: dict(source.used_ports(device_id))
                       for device_id in source.devices}
        self.revision = source.revision

    def with_fabric(self, fabric: FabricSettings) -> FrozenDesign:
        """The same snapshot with other fabric settings (a run's effective ones)."""
        return self if fabric == self.fabric else FrozenDesign(self, fabric)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unpickle, (self.name, self.description, self.fabric, self._devices,
                            self._links, self._ports, self.revision))

    # ------------------------------------------------------------------ refusals
    def _refuse(self, *_args: Any, **_kwargs: Any) -> NoReturn:
        raise DesignError("a run's design snapshot cannot change")

    add_device = remove_device = replace_device = update_device = _refuse
    move_devices = add_link = remove_link = update_link = _refuse
    set_fabric = set_name = load_data = _refuse


def _unpickle(name: str, description: str, fabric: FabricSettings, devices: dict[str, Device],
              links: dict[str, Link], ports: dict[str, dict[int, str]],
              revision: int) -> FrozenDesign:
    frozen = FrozenDesign.__new__(FrozenDesign)
    Design.__init__(frozen, name, fabric)
    frozen._description = description
    frozen._devices, frozen._links, frozen._ports = devices, links, ports
    frozen.revision = revision
    return frozen


def freeze(design: Design) -> FrozenDesign:
    """A snapshot of ``design`` (the design itself when it already is one)."""
    return design if isinstance(design, FrozenDesign) else FrozenDesign(design)
