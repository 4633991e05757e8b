"""Slurm topology: ``topology.conf`` for the tree plugin and ``topology.yaml`` (Slurm 25.05+)
with the same tree as the cluster default plus a block topology.

The compute network's scalable units are the lowest switches Slurm sees: a top-of-rack leaf
with its servers, or the rail leaves of a rail-optimised unit taken together (one hop on every
rail), so every GPU server is listed once.  Spines list the units below them and cores the
spines.  Blocks are those units (``-O blocks=rack`` uses racks instead, for racks that are
NVLink domains); block sizes are the smallest block and its doublings, as the block plugin
requires.  Storage and management networks are not scheduling topology and are left out."""

from __future__ import annotations

from collections import defaultdict

import yaml

from fabricstudio.interop.bundle import Bundle
from fabricstudio.interop.hostlist import compress
from fabricstudio.interop.naming import one_line, unique_names
from fabricstudio.interop.options import Options
from fabricstudio.interop.registry import ExportFormat, InteropError, Option
from fabricstudio.model import Design, DeviceKind, Plane
from fabricstudio.topology.groups import leaf_units
from fabricstudio.topology.racks import rack_plan

HEADER = ("# Slurm network topology of {name}, exported by FabricStudio.\n"
          "# {summary}\n# LinkSpeed is in Gb/s.\n")


def tree(design: Design) -> tuple[list[dict], dict[str, list[str]], list[str]]:
    """Switch entries (name, nodes or switches, speed), units' GPU servers by unit name, and
    GPU servers not under any compute leaf."""
    names = unique_names(list(design.devices), r"[^A-Za-z0-9._-]")
    gpu = {d.id for d in design.devices_of_kind(DeviceKind.GPU_SERVER)}
    used_names = set(names.values())
    entries: list[dict] = []
    unit_of_leaf: dict[str, str] = {}
    units: dict[str, list[str]] = {}
    for number, unit in enumerate(leaf_units(design), start=1):
        servers = [s for s in unit.servers if s in gpu]
        if not servers:
            continue
        if len(unit.leaves) == 1:
            name = names[unit.leaves[0]]
        else:
            name, n = f"su{number}", 2
            while name in used_names:
                name = f"su{number}-{n}"
                n += 1
            used_names.add(name)
        units[name] = [names[s] for s in servers]
        for leaf in unit.leaves:
            unit_of_leaf[leaf] = name
        entries.append({"name": name, "nodes": units[name],
                        "speed": _speed(design, unit.leaves, gpu)})
    children: dict[str, list[str]] = defaultdict(list)
    speeds: dict[str, float] = defaultdict(float)
    for link in design.links.values():
        if link.plane is not Plane.COMPUTE:
            continue
        for up, down in ((link.a, link.b), (link.b, link.a)):
            kinds = (DeviceKind(design.devices[up].kind), DeviceKind(design.devices[down].kind))
            if kinds == (DeviceKind.SPINE, DeviceKind.LEAF) and down in unit_of_leaf:
                child = unit_of_leaf[down]
            elif kinds == (DeviceKind.CORE, DeviceKind.SPINE):
                child = names[down]
            else:
                continue
            if child not in children[names[up]]:
                children[names[up]].append(child)
            speeds[names[up]] = max(speeds[names[up]], link.speed_gbps)
    for kind in (DeviceKind.SPINE, DeviceKind.CORE):
        for device in design.devices_of_kind(kind):
            name = names[device.id]
            if children.get(name):
                entries.append({"name": name, "switches": children[name],
                                "speed": speeds[name]})
    placed = {s for servers in units.values() for s in servers}
    missing = [names[i] for i in gpu if names[i] not in placed]
    return entries, units, missing


def _speed(design: Design, leaves: list[str], gpu: set[str]) -> float:
    wanted = set(leaves)
    return max((lk.speed_gbps for lk in design.links.values()
                if (lk.a in wanted and lk.b in gpu) or (lk.b in wanted and lk.a in gpu)),
               default=0.0)


def blocks(design: Design, how: str, units: dict[str, list[str]]) -> dict[str, list[str]]:
    """Blocks of GPU servers: the units, or the racks."""
    if how == "unit":
        return units
    if how != "rack":
        raise InteropError(f"option blocks={how!r}: choose unit or rack")
    names = unique_names(list(design.devices), r"[^A-Za-z0-9._-]")
    placed = {s for servers in units.values() for s in servers}
    out: dict[str, list[str]] = {}
    for rack, members in rack_plan(design).racks.items():
        servers = [names[m] for m in members if names[m] in placed]
        if servers:
            out[rack] = servers
    return out


def block_sizes(groups: dict[str, list[str]]) -> list[int]:
    """The smallest block and its doublings up to all nodes."""
    if not groups:
        return []
    base = min(len(v) for v in groups.values())
    total = sum(len(v) for v in groups.values())
    sizes = [base]
    while sizes[-1] * 2 <= total:
        sizes.append(sizes[-1] * 2)
    return sizes


def export(design: Design, options: Options) -> Bundle:
    """topology.conf and topology.yaml."""
    entries, units, missing = tree(design)
    if not entries:
        raise InteropError("slurm: the design has no GPU servers cabled to compute leaves")
    grouped = blocks(design, options.get("blocks", "unit"), units)
    nodes = sum(len(v) for v in units.values())
    summary = f"{nodes} GPU servers in {len(units)} units; {len(entries) - len(units)} " \
              "upper switches"
    conf = [HEADER.format(name=one_line(design.name), summary=summary)]
    for entry in entries:
        kids = f"Nodes={compress(entry['nodes'])}" if "nodes" in entry else \
            f"Switches={compress(entry['switches'])}"
        speed = f" LinkSpeed={entry['speed']:g}" if entry["speed"] else ""
        conf.append(f"SwitchName={entry['name']} {kids}{speed}\n")
    switches = []
    for entry in entries:
        item = {"switch": entry["name"]}
        if "nodes" in entry:
            item["nodes"] = compress(entry["nodes"])
        else:
            item["children"] = compress(entry["switches"])
        switches.append(item)
    doc = [{"topology": "fabric", "cluster_default": True, "tree": {"switches": switches}},
           {"topology": "blocks", "cluster_default": False,
            "block": {"block_sizes": block_sizes(grouped),
                      "blocks": [{"block": name, "nodes": compress(members)}
                                 for name, members in grouped.items()]}}]
    bundle = Bundle()
    bundle.add_text("topology.conf", "".join(conf))
    bundle.add_text("topology.yaml", HEADER.format(name=one_line(design.name), summary=summary)
                    + yaml.safe_dump(doc, sort_keys=False))
    if missing:
        bundle.notes.append(f"{len(missing)} GPU server(s) on no compute leaf are not in the "
                            f"topology: {compress(missing[:10])}")
    return bundle


FORMAT = ExportFormat(
    name="slurm",
    summary="Slurm topology.conf (tree plugin) and topology.yaml (tree + block topology of "
            "scalable units or racks)",
    suffixes=(".conf", ".yaml"),
    export=export,
    options=(Option("blocks", "block topology groups: unit (scalable units) or rack", "unit"),),
    multi_file=True,
)
