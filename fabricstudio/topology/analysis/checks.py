"""Design checks that produce issues naming the objects involved."""

from __future__ import annotations

from collections import defaultdict

from fabricstudio.model import GpuServer, Plane, Technology
from fabricstudio.topology.analysis.capacity import switch_loads
from fabricstudio.topology.analysis.report import (
    Deadlock,
    Issue,
    Oversubscription,
    Paths,
    Severity,
)
from fabricstudio.topology.analysis.resilience import natural_key, single_points_of_failure
from fabricstudio.topology.analysis.view import DesignView, PlaneGraph

#: InfiniBand 4x link rates (SDR .. XDR) in Gb/s.
INFINIBAND_SPEEDS = frozenset({10.0, 20.0, 40.0, 56.0, 100.0, 200.0, 400.0, 800.0, 1600.0})
#: More findings of one code than this are merged into one issue.
MERGE_ABOVE = 8


def _names(ids: list[str], limit: int = 4) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" (+{len(ids) - limit} more)" if len(ids) > limit else "")


def unconnected(view: DesignView) -> list[Issue]:
    """GPU NICs with no cable, and devices with no link at all."""
    issues = []
    for device in view.devices.values():
        used = view.used_ports.get(device.id, set())
        if isinstance(device, GpuServer):
            free = [p for p in device.ports_for_plane(Plane.COMPUTE) if p not in used]
            if not free:
                continue
            gpus = [g for g in range(device.gpus) if device.gpu_nic(g) in free]
            what = (f"none of its {device.nics} GPU NICs is connected" if len(free) == device.nics
                    else f"GPU NIC{'s' if len(free) > 1 else ''} "
                         f"{', '.join(map(str, free))} {'are' if len(free) > 1 else 'is'} "
                         "not connected")
            issues.append(Issue(severity="error", code="gpu-nic-unconnected",
                                message=f"{device.id}: {what}; GPU{'s' if len(gpus) != 1 else ''}"
                                        f" {_names([str(g) for g in gpus], 8)} cannot reach "
                                        "the fabric",
                                objects=[device.id]))
        elif not used:
            issues.append(Issue(severity="warning", code="device-unconnected",
                                message=f"{device.id} ({device.kind.replace('_', ' ')}) has no "
                                        "links", objects=[device.id]))
    return issues


def ports_over_radix(view: DesignView) -> list[Issue]:
    """Devices with links on ports they do not have.  A Design refuses these; plain
    DesignData handed to analyze() directly is not checked otherwise."""
    issues = []
    for device_id, ports in view.used_ports.items():
        device = view.devices.get(device_id)
        if device is None:
            continue
        beyond = sorted(p for p in ports if p is not None and p >= device.port_count())
        if beyond:
            issues.append(Issue(
                severity="error", code="ports-over-radix",
                message=f"{device_id} has {device.port_count()} ports but links use port"
                        f"{'s' if len(beyond) > 1 else ''} {_names([str(p) for p in beyond])}",
                objects=[device_id]))
    return issues


def speed_mismatches(view: DesignView) -> list[Issue]:
    """Compute and storage links whose two ports run at different speeds, or that run slower
    than both of their ports."""
    issues = []
    for link in view.links:
        if link.plane is Plane.MANAGEMENT:
            continue
        a, b = view.devices.get(link.a), view.devices.get(link.b)
        if a is None or b is None or link.a_port is None or link.b_port is None:
            continue
        sa, sb = a.speed_of_port(link.a_port), b.speed_of_port(link.b_port)
        if sa != sb:
            issues.append(Issue(
                severity="warning", code="speed-mismatch",
                message=f"link {link.id}: {link.a} port {link.a_port} runs at {sa:g} Gb/s but "
                        f"{link.b} port {link.b_port} at {sb:g} Gb/s; the link carries "
                        f"{link.speed_gbps:g} Gb/s", objects=[link.id, link.a, link.b]))
        elif link.speed_gbps < sa:
            issues.append(Issue(
                severity="warning", code="speed-mismatch",
                message=f"link {link.id} runs at {link.speed_gbps:g} Gb/s between "
                        f"{sa:g} Gb/s ports", objects=[link.id]))
    return issues


def technology_checks(view: DesignView) -> list[Issue]:
    """Compute links at rates InfiniBand does not have; RoCE without PFC."""
    issues = []
    fabric = view.fabric
    if fabric.technology is Technology.INFINIBAND:
        for link in view.links:
            if link.plane is Plane.COMPUTE and link.speed_gbps not in INFINIBAND_SPEEDS:
                issues.append(Issue(
                    severity="warning", code="non-infiniband-speed",
                    message=f"link {link.id} runs at {link.speed_gbps:g} Gb/s, an Ethernet "
                            "rate with no InfiniBand equivalent: mixed IB and Ethernet parts?",
                    objects=[link.id]))
    if fabric.technology is Technology.ROCE and not fabric.pfc.enabled:
        issues.append(Issue(severity="warning", code="roce-without-pfc",
                            message="RoCE with PFC disabled is lossy: congestion drops "
                                    "packets and RDMA retransmits (go-back-N)"))
    return issues


def partitions(view: DesignView, graph: PlaneGraph) -> list[Issue]:
    """A network whose servers fall into separate parts."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    servers: dict[str, None] = {}
    for link in graph.host_links + graph.switch_links:
        parent[find(link.a)] = find(link.b)
        for end in (link.a, link.b):
            if not view.devices[end].is_switch:
                servers[end] = None
    groups: dict[str, list[str]] = defaultdict(list)
    for server in servers:
        groups[find(server)].append(server)
    if len(groups) < 2:
        return []
    parts = sorted((sorted(part, key=natural_key) for part in groups.values()),
                   key=lambda part: (-len(part), natural_key(part[0])))
    main = parts[0][0]
    cut_off = sorted((s for part in parts[1:] for s in part), key=natural_key)
    label = graph.plane.value
    return [Issue(severity="error", code="network-partitioned",
                  message=f"the {label} network is in {len(parts)} separate parts: "
                          f"{_names(cut_off)} cannot reach {main}",
                  objects=cut_off)]


def resilience(view: DesignView, graph: PlaneGraph) -> list[Issue]:
    """Single points of failure between GPU servers."""
    issues = []
    for failure in single_points_of_failure(view, graph):
        what = (f"switch {failure.element}" if failure.kind == "switch"
                else f"link {failure.element} (a single cable)")
        issues.append(Issue(severity="warning", code="single-point-of-failure",
                            message=f"{what} is a single point of failure: losing it cuts "
                                    f"{_names(failure.isolated)} off from the other GPUs",
                            objects=[failure.element] + failure.isolated))
    return issues


def oversubscribed(oversub: Oversubscription, graph: PlaneGraph) -> list[Issue]:
    """One warning per tier with switches whose down capacity exceeds their up capacity."""
    issues = []
    down, up = switch_loads(graph)
    for tier in oversub.tiers:
        if tier.worst_ratio is None or tier.worst_ratio <= 1.0 + 1e-9:
            continue
        over = [graph.switches[i] for i in range(graph.n)
                if _tier_name(int(graph.tier[i])) == tier.tier and up[i] > 0
                and down[i] / up[i] > 1.0 + 1e-9]
        issues.append(Issue(
            severity="warning", code="oversubscribed",
            message=f"{tier.tier} tier oversubscribed: {len(over)} of {tier.switches} "
                    f"switches, up to {tier.worst_ratio:g}:1 (tier total "
                    f"{tier.down_gbps / 1000:g} Tb/s down, {tier.up_gbps / 1000:g} Tb/s up)",
            objects=over))
    return issues


def _tier_name(tier: int) -> str:
    return {1: "leaf", 2: "spine", 3: "core"}.get(tier, str(tier))


def full_switches(view: DesignView) -> list[Issue]:
    """Switches with no free port left (the fabric cannot grow there)."""
    full = [d.id for d in view.devices.values()
            if d.is_switch and len(view.used_ports.get(d.id, ())) >= d.port_count()]
    if not full:
        return []
    return [Issue(severity="info", code="switch-full",
                  message=f"{len(full)} switch{'es' if len(full) > 1 else ''} "
                          f"use{'' if len(full) > 1 else 's'} every port: {_names(full)}",
                  objects=full)]


def deadlock_issues(deadlock: Deadlock, lossless: bool) -> list[Issue]:
    """One issue per buffer-dependency cycle."""
    return [Issue(severity="error" if lossless else "info", code="pfc-deadlock-risk",
                  message="cyclic buffer dependency " + " -> ".join(c.switches + c.switches[:1])
                          + (": PFC/credit deadlock possible" if lossless
                             else " (harmless without PFC)"),
                  objects=list(dict.fromkeys(c.switches)))
            for c in deadlock.cycles]


def sampling_notes(paths: Paths, deadlock: Deadlock) -> list[Issue]:
    """Say when figures come from a sample."""
    if not paths.sampled:
        return []
    return [Issue(severity="info", code="analysis-sampled",
                  message=f"large fabric: paths and deadlock check examined "
                          f"{deadlock.destinations_examined} of {deadlock.destinations} leaves "
                          "(evenly spaced); figures marked sampled")]


def merge(issues: list[Issue]) -> list[Issue]:
    """Merge codes with many findings into one issue that still lists every object."""
    by_code: dict[tuple[str, Severity], list[Issue]] = defaultdict(list)
    for issue in issues:
        by_code[(issue.code, issue.severity)].append(issue)
    merged = []
    for (code, severity), group in by_code.items():
        if len(group) <= MERGE_ABOVE:
            merged += group
            continue
        objects = list(dict.fromkeys(o for i in group for o in i.objects))
        merged.append(Issue(severity=severity, code=code,
                            message=f"{len(group)} findings, e.g. {group[0].message}",
                            objects=objects))
    rank = {"error": 0, "warning": 1, "info": 2}
    return sorted(merged, key=lambda i: rank[i.severity])
