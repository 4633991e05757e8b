"""The analysis of a fabric with failed elements: reachability, and what else they cost.

:func:`degraded_data` is the design without the cables that are down (devices stay, so the
bill of materials and the cost are still those of what was bought); the report's paths,
bisection, ECMP width, deadlock and single points of failure come from it.  :func:`impact`
compares with the healthy report and counts, per GPU NIC, what can still reach the largest
part of the compute network.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import networkx as nx

from fabricstudio.model import Design, DesignData, GpuServer, Plane
from fabricstudio.model.failures import FailedElements, Failure
from fabricstudio.topology.analysis.report import AnalysisReport, FailureImpact, Issue
from fabricstudio.topology.analysis.resilience import natural_key

#: Issues of the degraded fabric that only restate the failure (replaced by ``failed``).
_RESTATED = frozenset({"gpu-nic-unconnected", "device-unconnected", "network-partitioned"})


def degraded_data(design: Design, failed: FailedElements) -> DesignData:
    """``design`` without the cables that are down (not validated again: it only loses
    cables, which keeps every rule of a valid design)."""
    return DesignData.model_construct(
        name=design.name, description=design.description, fabric=design.fabric,
        nodes=tuple(design.devices.values()),
        links=tuple(link for link in design.links.values() if not failed.link_down(link)),
        groups=tuple(design.groups.values()))


def impact(design: Design, failures: Sequence[Failure], failed: FailedElements,
           healthy: AnalysisReport, degraded: AnalysisReport) -> FailureImpact:
    """What ``failures`` cost: reachability from the wiring, the rest from the two reports."""
    reach = _reachability(design, failed)
    before = _spofs(healthy)
    after = _spofs(degraded)
    return FailureImpact(
        failures=[f.label for f in failures],
        links_down=failed.down_links(design),
        devices_down=sorted(failed.devices, key=natural_key),
        hosts=reach.hosts, hosts_cut_off=reach.hosts_cut_off, gpus_cut_off=reach.gpus_cut_off,
        servers_cut_off=reach.servers_cut_off, pairs=reach.pairs,
        unreachable_pairs=reach.unreachable_pairs,
        bisection_gbps=degraded.bisection.gbps, healthy_bisection_gbps=healthy.bisection.gbps,
        ecmp_width=degraded.paths.ecmp_width, healthy_ecmp_width=healthy.paths.ecmp_width,
        ecmp_paths=degraded.paths.ecmp_paths, healthy_ecmp_paths=healthy.paths.ecmp_paths,
        single_points_of_failure=after,
        new_single_points_of_failure=[s for s in after if s not in before])


def issues(design: Design, found: FailureImpact, degraded: AnalysisReport) -> list[Issue]:
    """The degraded fabric's issues, with those that only restate the failure replaced by
    one ``failed`` issue (and an error when GPUs are cut off)."""
    down = set(found.links_down) | set(found.devices_down)
    kept = [i for i in degraded.issues
            if not (i.code in _RESTATED and _touches_failure(design, i, down))]
    what = ", ".join(found.failures[:6]) + (" ..." if len(found.failures) > 6 else "")
    lost = (f"; {found.hosts_cut_off} of {found.hosts} GPU NICs and {found.gpus_cut_off} "
            f"GPUs cut off" if found.hosts_cut_off else "; every GPU NIC still reaches the "
            "others")
    out = [Issue(severity="warning", code="failed",
                 message=f"failed: {what} ({len(found.links_down)} cables down){lost}",
                 objects=found.devices_down + found.links_down)]
    if found.servers_cut_off:
        out.append(Issue(
            severity="error", code="failure-cuts-off",
            message=f"the failures cut {len(found.servers_cut_off)} GPU server(s) off: "
                    f"{', '.join(found.servers_cut_off[:8])}"
                    f"{' ...' if len(found.servers_cut_off) > 8 else ''}",
            objects=found.servers_cut_off))
    return out + kept


def _touches_failure(design: Design, issue: Issue, down: set[str]) -> bool:
    """True when the issue is about a device that lost cables to the failure."""
    for obj in issue.objects:
        if obj in down:
            return True
        if obj in design.devices and any(link.id in down for link in design.links_of(obj)):
            return True
    return issue.code == "network-partitioned"


def _spofs(report: AnalysisReport) -> list[str]:
    return [i.objects[0] for i in report.issues
            if i.code == "single-point-of-failure" and i.objects]


class _Reach:
    """Reachability figures of the GPU NICs (see :func:`_reachability`)."""

    def __init__(self) -> None:
        self.hosts = self.hosts_cut_off = self.gpus_cut_off = 0
        self.pairs = self.unreachable_pairs = 0
        self.servers_cut_off: list[str] = []


def _reachability(design: Design, failed: FailedElements) -> _Reach:
    """Per compute NIC of every GPU server: the part of the compute network (what stays
    connected) it plugs into, or none when its cable is down.  Pairs of NICs on different
    servers are reachable within one part; a NIC outside the largest part is cut off."""
    graph = nx.Graph()
    nics: list[tuple[str, int, str | None]] = []  # (server, NIC, switch it still reaches)
    for link in design.links.values():
        if link.plane is not Plane.COMPUTE:
            continue
        server = next((end for end in (link.a, link.b)
                       if isinstance(design.devices[end], GpuServer)), None)
        up = not failed.link_down(link)
        if server is not None and not design.devices[link.other_end(server)].is_switch:
            server = None  # a server-to-server cable: not a fabric NIC
        if server is not None:
            nic = link.port_at(server)
            nics.append((server, -1 if nic is None else nic,
                         link.other_end(server) if up else None))
        elif up:
            graph.add_edge(link.a, link.b)
    part = {node: i for i, nodes in enumerate(nx.connected_components(graph)) for node in nodes}
    where = [(server, nic, part.get(switch, -1 - i) if switch is not None else None)
             for i, (server, nic, switch) in enumerate(nics)]
    per_part = Counter(p for _, _, p in where if p is not None)
    main = max(per_part, key=lambda p: (per_part[p], -p)) if per_part else None
    reach = _Reach()
    reach.hosts = len(nics)
    per_server = Counter(server for server, _, _ in where)
    reach.pairs = reach.hosts ** 2 - sum(n * n for n in per_server.values())
    in_part = Counter((p, server) for server, _, p in where if p is not None)
    reachable = sum(n * n for n in per_part.values()) - sum(n * n for n in in_part.values())
    reach.unreachable_pairs = reach.pairs - reachable
    cut = {(server, nic) for server, nic, p in where if p is None or p != main}
    reach.hosts_cut_off = len(cut)
    cut_per_server = Counter(server for server, _ in cut)
    reach.servers_cut_off = sorted(
        (s for s, n in cut_per_server.items() if n == per_server[s]), key=natural_key)
    for server in per_server:
        device = design.devices[server]
        assert isinstance(device, GpuServer)
        if device.nics:
            reach.gpus_cut_off += sum(1 for g in range(device.gpus)
                                      if (server, device.gpu_nic(g)) in cut)
    return reach
