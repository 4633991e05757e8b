"""Freeze once: an immutable snapshot of a Design for a simulation run.

A run reads the design while the user goes on editing it, so it takes a snapshot when it
starts.  The snapshot shares the design's device, link and group values (pydantic models,
frozen) and copies only the id maps, so it costs no validation: the design was valid when
taken.  It reads like a :class:`Design` (every read method works) and refuses every change; it
pickles to a child process as plain data: the links (98,304 at 32,768 GPUs) as rows of field
values, pickled LINK_CHUNK at a time, and the port tables in chunks too.  A GUI worker
thread pickles a snapshot for a child (the analysis of a large design, a simulation run):
pydantic's own per-model state took 0.7 s at 32k, and one pickle call of all rows, or of the
port tables, holds the GIL (and so the GUI) for 100 ms; a chunk holds it a few milliseconds,
and its rows are freed before the next.
"""

from __future__ import annotations

import pickle
from operator import attrgetter
from typing import Any, NoReturn

from fabricstudio.model.design import Design
from fabricstudio.model.fabric import FabricSettings
from fabricstudio.model.links import Link
from fabricstudio.model.validation import DesignError


class FrozenDesign(Design):
    """A read-only snapshot of a :class:`Design` (see the module docstring)."""

    #: The Design attributes a snapshot holds (a test checks Design has no others but caches).
    STATE = ("_name", "_description", "_fabric", "_devices", "_links", "_ports", "_groups",
             "revision")

    def __init__(self, source: Design, fabric: FabricSettings | None = None) -> None:
        super().__init__(source.name, fabric or source.fabric)
        self._description = source.description
        # straight from the source's own tables (dict.copy, not a copy through the read-only
        # views, nor a method call per device): taken on the GUI thread, 0.14 s at 32k GPUs
        self._devices = source._devices.copy()
        self._links = source._links.copy()
        self._ports = {device_id: ports.copy() for device_id, ports in source._ports.items()}
        self._groups = source._groups.copy()
        self.revision = source.revision

    def with_fabric(self, fabric: FabricSettings) -> FrozenDesign:
        """The same snapshot with other fabric settings (a run's effective ones)."""
        return self if fabric == self.fabric else FrozenDesign(self, fabric)

    def __reduce__(self) -> tuple[Any, ...]:
        state = {name: getattr(self, name) for name in self.STATE}
        state["_links"] = _pack_links(self._links)
        state["_ports"] = _chunked(list(self._ports.items()), LINK_CHUNK // 16)
        return (_unpickle, (state,))

    # ------------------------------------------------------------------ refusals
    def _refuse(self, *_args: Any, **_kwargs: Any) -> NoReturn:
        raise DesignError("a run's design snapshot cannot change")

    add_device = remove_device = replace_device = update_device = _refuse
    move_devices = add_link = remove_link = update_link = _refuse
    set_groups = add_group = replace_group = update_group = remove_group = _refuse
    set_fabric = set_name = load_data = _refuse


_LINK_FIELDS = tuple(Link.model_fields)
_link_values = attrgetter(*_LINK_FIELDS)


#: Links pickled per chunk (a few milliseconds of one pickle call).
LINK_CHUNK = 4096


def _pack_links(links: dict[str, Link]) -> tuple[list[bytes], dict[str, Link]]:
    """Plain links as pickled chunks of (field values, fields set) rows; any other link (a
    subclass, private or extra state) is kept as it is."""
    chunks: list[bytes] = []
    rows: list[tuple[tuple[Any, ...], frozenset[str]]] = []
    others: dict[str, Link] = {}
    sets: dict[frozenset[str], frozenset[str]] = {}  # one object per distinct set
    for link_id, link in links.items():
        if (type(link) is Link and link.__pydantic_private__ is None
                and link.__pydantic_extra__ is None):
            fields_set = frozenset(link.__pydantic_fields_set__)
            rows.append((_link_values(link), sets.setdefault(fields_set, fields_set)))
            if len(rows) == LINK_CHUNK:
                chunks.append(pickle.dumps(rows, pickle.HIGHEST_PROTOCOL))
                rows = []
        else:
            others[link_id] = link
    if rows:
        chunks.append(pickle.dumps(rows, pickle.HIGHEST_PROTOCOL))
    return chunks, others


def _unpack_links(packed: tuple[list[bytes], dict[str, Link]]) -> dict[str, Link]:
    """The links :func:`_pack_links` packed, rebuilt without validation (they were valid),
    in their order (rows keep theirs; the rare others follow)."""
    chunks, others = packed
    links: dict[str, Link] = {}
    new, restore = object.__new__, Link.__setstate__
    for chunk in chunks:
        for values, fields_set in pickle.loads(chunk):
            link = new(Link)
            restore(link, {"__dict__": dict(zip(_LINK_FIELDS, values, strict=True)),
                           "__pydantic_fields_set__": set(fields_set),
                           "__pydantic_extra__": None, "__pydantic_private__": None})
            links[link.id] = link
    links.update(others)
    return links


def _chunked(items: list[Any], size: int) -> list[bytes]:
    """``items`` pickled ``size`` at a time (each call holds the GIL a few milliseconds)."""
    return [pickle.dumps(items[i:i + size], pickle.HIGHEST_PROTOCOL)
            for i in range(0, len(items), size)]


def _unpickle(state: dict[str, Any]) -> FrozenDesign:
    state["_links"] = _unpack_links(state["_links"])
    state["_ports"] = {device_id: ports for chunk in state["_ports"]
                       for device_id, ports in pickle.loads(chunk)}
    frozen = FrozenDesign.__new__(FrozenDesign)
    Design.__init__(frozen, state["_name"], state["_fabric"])
    for name, value in state.items():
        setattr(frozen, name, value)
    return frozen


def freeze(design: Design) -> FrozenDesign:
    """A snapshot of ``design`` (the design itself when it already is one)."""
    return design if isinstance(design, FrozenDesign) else FrozenDesign(design)
