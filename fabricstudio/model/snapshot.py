"""Freeze once: an immutable snapshot of a Design for a simulation run.

A run reads the design while the user goes on editing it, so it takes a snapshot when it
starts.  The snapshot shares the design's device, link and group values (pydantic models,
frozen) and copies only the id maps, so it costs no validation: the design was valid when
taken.  It reads like a :class:`Design` (every read method works) and refuses every change; it
pickles to a child process as plain data.
"""

from __future__ import annotations

from typing import Any, NoReturn

from fabricstudio.model.design import Design
from fabricstudio.model.fabric import FabricSettings
from fabricstudio.model.validation import DesignError


class FrozenDesign(Design):
    """A read-only snapshot of a :class:`Design` (see the module docstring)."""

    #: The Design attributes a snapshot holds (a test checks Design has no others but caches).
    STATE = ("_name", "_description", "_fabric", "_devices", "_links", "_ports", "_groups",
             "revision")

    def __init__(self, source: Design, fabric: FabricSettings | None = None) -> None:
        super().__init__(source.name, fabric or source.fabric)
        self._description = source.description
        self._devices = dict(source.devices)
        self._links = dict(source.links)
        # straight from the source's own tables: a method call per device was most of the
        # snapshot's time at 32k GPUs (6,656 devices, taken on the GUI thread)
        self._ports = {device_id: ports.copy() for device_id, ports in source._ports.items()}
        self._groups = dict(source.groups)
        self.revision = source.revision

    def with_fabric(self, fabric: FabricSettings) -> FrozenDesign:
        """The same snapshot with other fabric settings (a run's effective ones)."""
        return self if fabric == self.fabric else FrozenDesign(self, fabric)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unpickle, ({name: getattr(self, name) for name in self.STATE},))

    # ------------------------------------------------------------------ refusals
    def _refuse(self, *_args: Any, **_kwargs: Any) -> NoReturn:
        raise DesignError("a run's design snapshot cannot change")

    add_device = remove_device = replace_device = update_device = _refuse
    move_devices = add_link = remove_link = update_link = _refuse
    set_groups = add_group = replace_group = update_group = remove_group = _refuse
    set_fabric = set_name = load_data = _refuse


def _unpickle(state: dict[str, Any]) -> FrozenDesign:
    frozen = FrozenDesign.__new__(FrozenDesign)
    Design.__init__(frozen, state["_name"], state["_fabric"])
    for name, value in state.items():
        setattr(frozen, name, value)
    return frozen


def freeze(design: Design) -> FrozenDesign:
    """A snapshot of ``design`` (the design itself when it already is one)."""
    return design if isinstance(design, FrozenDesign) else FrozenDesign(design)
