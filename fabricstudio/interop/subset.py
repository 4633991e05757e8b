"""Parts of a design small enough for a lab: one pod, one scalable unit, one rail or one
network (``--subset pod:1``, ``su:2``, ``rail:1``, ``network:storage``).

A pod, unit or rail keeps the compute network only: its leaves, the servers cabled to them
and the spines directly above them, with the cables among those devices.
"""

from __future__ import annotations

from fabricstudio.interop.registry import InteropError
from fabricstudio.model import Design, DesignData, DeviceKind, Link, Plane
from fabricstudio.topology.groups import leaf_units, pods, rail_count, rail_of

KINDS = ("pod", "su", "rail", "network")


def apply_subset(design: Design, spec: str | None) -> Design:
    """The part of ``design`` named by ``spec`` (the design itself when ``spec`` is None)."""
    if not spec:
        return design
    kind, _, value = spec.partition(":")
    kind = kind.strip().lower()
    if kind == "unit":
        kind = "su"
    if kind not in KINDS or not value:
        raise InteropError(f"--subset {spec!r}: write pod:N, su:N, rail:N or network:NAME")
    if kind == "network":
        return _network(design, value.strip(), spec)
    number = _number(value, spec)
    if kind == "rail":
        rails = rail_count(design)
        _check(number, rails, "rails", "rail", spec)
        links = [lk for lk in design.links.values() if rail_of(design, lk) == number - 1]
        leaves = {e for lk in links for e in (lk.a, lk.b)
                  if DeviceKind(design.devices[e].kind) is DeviceKind.LEAF}
        return _with_spines(design, leaves, links, spec)
    if kind == "su":
        units = leaf_units(design)
        _check(number, len(units), "scalable units", "su", spec)
        unit = units[number - 1]
        return _with_spines(design, set(unit.leaves), _compute_links(design, unit.leaves), spec)
    found = pods(design)
    _check(number, len(found), "pods", "pod", spec)
    pod = found[number - 1]
    members = set(pod.leaves) | set(pod.spines)
    links = [lk for lk in design.links.values() if lk.plane is Plane.COMPUTE
             and (lk.a in members or lk.b in members)
             and not _is_core(design, lk.a) and not _is_core(design, lk.b)]
    return _build(design, links, spec)


def _number(value: str, spec: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise InteropError(f"--subset {spec!r}: {value!r} is not a number") from None
    return number


def _check(number: int, count: int, what: str, prefix: str, spec: str) -> None:
    if count == 0:
        raise InteropError(f"--subset {spec!r}: the design has no {what}")
    if not 1 <= number <= count:
        raise InteropError(f"--subset {spec!r}: the design has {count} {what} "
                           f"({prefix}:1 .. {prefix}:{count})")


def _is_core(design: Design, ident: str) -> bool:
    return DeviceKind(design.devices[ident].kind) is DeviceKind.CORE


def _compute_links(design: Design, leaves: list[str]) -> list[Link]:
    wanted = set(leaves)
    return [lk for lk in design.links.values() if lk.plane is Plane.COMPUTE
            and (lk.a in wanted or lk.b in wanted)
            and DeviceKind(design.devices[lk.other_end(lk.a if lk.a in wanted else lk.b)].kind)
            in (DeviceKind.GPU_SERVER, DeviceKind.STORAGE_SERVER)]


def _with_spines(design: Design, leaves: set[str], links: list[Link], spec: str) -> Design:
    """``links`` plus the cables from ``leaves`` up to spines."""
    up = [lk for lk in design.links.values() if lk.plane is Plane.COMPUTE
          and ((lk.a in leaves and _kind(design, lk.b) is DeviceKind.SPINE)
               or (lk.b in leaves and _kind(design, lk.a) is DeviceKind.SPINE))]
    return _build(design, list(links) + up, spec)


def _kind(design: Design, ident: str) -> DeviceKind:
    return DeviceKind(design.devices[ident].kind)


def _network(design: Design, name: str, spec: str) -> Design:
    try:
        plane = Plane(name.lower())
    except ValueError:
        names = ", ".join(p.value for p in Plane)
        raise InteropError(f"--subset {spec!r}: unknown network {name!r} ({names})") from None
    links = [lk for lk in design.links.values() if lk.plane is plane]
    devices = [d for d in design.devices.values() if plane in d.planes]
    return _design(design, devices, links, spec)


def _build(design: Design, links: list[Link], spec: str) -> Design:
    seen = dict.fromkeys(lk.id for lk in links)
    links = [design.links[i] for i in seen]
    ends = {e for lk in links for e in (lk.a, lk.b)}
    devices = [d for d in design.devices.values() if d.id in ends]
    return _design(design, devices, links, spec)


def _design(design: Design, devices, links, spec: str) -> Design:
    if not devices:
        raise InteropError(f"--subset {spec!r}: selects no devices")
    data = DesignData(name=f"{design.name} ({spec})", description=design.description,
                      fabric=design.fabric, nodes=tuple(devices), links=tuple(links))
    return Design.from_data(data)
