"""Focused runs: the cell engine on a region of the fabric, the rest at flow level.

Lossless effects (PFC pauses, ECN marks, queues, drops) happen where traffic converges; a
whole 8,192-GPU cluster is too big for the cell engine, one pod or rail of it is not.  A
focused run (scenario ``"focus"``):

1. runs the whole scenario at flow level, recording the rate history of every flow that
   crosses a cable touching the region;
2. builds the region as a design of its own - its servers and switches and the cables among
   them; each cable from the region to the outside ends at a *stub*, a one-NIC server standing
   for the rest of the fabric behind it;
3. replays those flows on the cell engine: a flow between two servers of the region that
   stays inside it runs as itself (start time and size from the flow-level run; its speed is
   the cell engine's); every other flow (and every hop of a collective, whose pace is set by
   the whole ring or tree) enters the region as background - from its source server or the
   stub of the cable it arrives on, to its destination or the stub it leaves by - piece by
   piece of its flow-level rate history: paced at the computed rate while its bottleneck was
   outside the region, and unpaced (the same bytes, as fast as the region lets them through)
   while its bottleneck was a link of the region, where the cell engine - queues, PFC, ECN,
   credits, drops - decides how fast it goes.

The Result is the flow-level one (the whole-cluster answer) with a ``focus`` object: the
region, the cell-level totals and link statistics of the region, and how much longer the
region's own flows took at cell level than at flow level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fabricstudio.model import Design, GpuServer, Link
from fabricstudio.model.units import format_seconds
from fabricstudio.sim.engine import Engine, EngineConfig, EngineError
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.sim.run import MAX_CELL_HOPS, Simulation
from fabricstudio.sim.scenario import FocusSpec, ScenarioError
from fabricstudio.sim.workloads.addresses import server_of

#: Consecutive rate pieces of a background flow closer than this (relative) are merged.
MERGE_RATE = 0.02
#: At most this many region links are listed in the result (busiest first).
LISTED_LINKS = 200


@dataclass
class Region:
    """The devices the cell engine simulates."""

    devices: set[str]
    description: str


def resolve_region(design: Design, spec: FocusSpec) -> Region:
    """The devices ``spec`` names: a group (pod, scalable unit, rack), a rail's leaves with
    every server's NIC on it, listed devices; plus the switches the region's servers attach
    to (``with_switches``)."""
    devices: set[str] = set()  # a group's and the listed devices
    what = []
    if spec.group is not None:
        if spec.group not in design.groups:
            raise ScenarioError(f"focus: no group {spec.group!r} in the design")
        devices.update(design.group_tree().devices(spec.group))
        what.append(f"group {spec.group}")
    for device in spec.devices:
        if device not in design.devices:
            raise ScenarioError(f"focus: no device {device!r} in the design")
        devices.add(device)
    if spec.devices:
        what.append(f"{len(spec.devices)} listed device(s)")
    if spec.with_switches:
        for device in list(devices):
            if isinstance(design.devices[device], GpuServer):
                devices.update(link.other_end(device) for link in design.links_of(device))
    if spec.rail is not None:  # the rail's leaves and every server on them (not other rails)
        rail = _rail_devices(design, spec.rail)
        if not rail:
            raise ScenarioError(f"focus: no server has a NIC {spec.rail} on the compute fabric")
        devices.update(rail)
        what.append(f"rail {spec.rail}")
    if not any(isinstance(design.devices[d], GpuServer) for d in devices):
        raise ScenarioError("focus: the region has no GPU server")
    return Region(devices, ", ".join(what) or "listed devices")


def _rail_devices(design: Design, rail: int) -> set[str]:
    out: set[str] = set()
    for device in design.devices.values():
        if isinstance(device, GpuServer) and rail < device.nics:
            for link in design.links_of(device.id):
                if link.port_at(device.id) == rail:
                    out.update((device.id, link.other_end(device.id)))
    return out


def region_design(design: Design, region: Region) -> tuple[Design, dict[str, str]]:
    """The region as a design: its devices, the cables among them, and a stub server at the
    outer end of every cable leaving it.  Returns (design, cable id -> stub id)."""
    sub = Design(f"{design.name} (focus)", fabric=design.fabric)
    for device in design.devices.values():
        if device.id in region.devices:
            sub.add_device(device.model_copy())
    stubs: dict[str, str] = {}
    for link in design.links.values():
        inside = [end for end in (link.a, link.b) if end in region.devices]
        if len(inside) == 2:
            sub.add_link(link.model_copy())
        elif len(inside) == 1:
            end = inside[0]
            stub = f"stub{len(stubs) + 1}"
            stubs[link.id] = stub
            sub.add_device(GpuServer(id=stub, gpus=1, nics=1, nic_speed_gbps=link.speed_gbps,
                                     mgmt_ports=0, planes=(link.plane,)))
            sub.add_link(Link(id=link.id, a=stub, a_port=0, b=end, b_port=link.port_at(end),
                              speed_gbps=link.speed_gbps, length_m=link.length_m,
                              plane=link.plane))
    return sub, stubs


@dataclass
class Replay:
    """What the region's cell-level run is given."""

    foreground: list[tuple[int, str, str, int, float, float]]  # id, src, dst, bytes, start, fct
    #: src, dst, start, end, rate B/s, paced (False: the bottleneck was in the region)
    background: list[tuple[str, str, float, float, float, bool]]
    skipped: int = 0


def plan_replay(flow_engine: Any, design: Design, region: Region, stubs: dict[str, str],
                start_s: float, end_s: float) -> Replay:
    """Split the recorded flows into the region's own (replayed as themselves) and background
    pieces (paced), clipped to ``[start_s, end_s]``."""
    links = flow_engine.links
    replay = Replay([], [])
    inner = {ln.index for ln in links if ln.src in region.devices or ln.dst in region.devices}
    history = flow_engine.alloc.history
    for slot, (rec, path, group) in sorted(flow_engine.watched.items()):
        path = [int(i) for i in path]
        ends = [(links[i].src in region.devices, links[i].dst in region.devices)
                for i in path]
        inside = all(a and b for a, b in ends)
        if inside and group < 0 and start_s <= rec.start_s < end_s:
            fct = (rec.finish_s - rec.start_s) if rec.finish_s is not None else float("nan")
            replay.foreground.append((rec.id, rec.src, rec.dst, rec.size_bytes, rec.start_s,
                                      fct))
            continue
        for first, last in _segments(ends):
            src = _end(rec.src, links[path[first]], region, stubs, entering=True)
            dst = _end(rec.dst, links[path[last]], region, stubs, entering=False)
            if src is None or dst is None or server_of(src) == server_of(dst):
                replay.skipped += 1
                continue
            for begin, stop, rate, neck in _pieces(history.get(slot, []), start_s, end_s):
                replay.background.append((src, dst, begin, stop, rate, neck not in inner))
    return replay


def _segments(ends: list[tuple[bool, bool]]) -> list[tuple[int, int]]:
    """Runs of a path inside the region, from ``(source in region, destination in region)``
    per link: a run starts at a link with either end inside and ends with a link that
    leaves the region (or the path's last link)."""
    out: list[tuple[int, int]] = []
    first: int | None = None
    for i, (src_in, dst_in) in enumerate(ends):
        if first is None and (src_in or dst_in):
            first = i
        if first is not None and not dst_in:
            out.append((first, i))
            first = None
    if first is not None:
        out.append((first, len(ends) - 1))
    return out


def _end(address: str, link: Any, region: Region, stubs: dict[str, str],
         entering: bool) -> str | None:
    """Where a segment starts (``entering``) or ends in the region's design: the flow's own
    server when the segment begins/ends at it, else the stub of the boundary cable."""
    host = link.src if entering else link.dst
    if host == server_of(address) and host in region.devices:
        return address
    return stubs.get(link.link_id)


def _pieces(history: list[tuple[float, float, int]], start_s: float,
            end_s: float) -> list[tuple[float, float, float, int]]:
    """Constant-rate pieces (begin, end, bytes/s, bottleneck link) of a rate history inside
    the window, near-equal neighbours with the same bottleneck merged."""
    pieces: list[list[Any]] = []
    for (t0, rate, neck), (t1, _, _) in zip(history, history[1:], strict=False):
        begin, stop = max(t0, start_s), min(t1, end_s)
        if stop <= begin or rate <= 0:
            continue
        last = pieces[-1] if pieces else None
        if last is not None and last[3] == neck and abs(last[2] - rate) <= MERGE_RATE * rate \
                and abs(last[1] - begin) < 1e-12:
            last[1] = stop
        else:
            pieces.append([begin, stop, rate, neck])
    return [(a, b, r, n) for a, b, r, n in pieces]


def run_region(sub: Design, config: EngineConfig, replay: Replay, start_s: float,
               end_s: float, max_cell_hops: float | None) -> tuple[Engine, dict[str, Any]]:
    """The cell-level run of the region; returns the engine and the foreground comparison."""
    cell_bytes = config.cell_bytes
    work = (sum(r[3] for r in replay.foreground)
            + sum((b[3] - b[2]) * b[4] for b in replay.background)) / cell_bytes * 3
    if max_cell_hops is not None and work > max_cell_hops:
        fits = (end_s - start_s) * max_cell_hops / work  # the window at the same pace
        raise ScenarioError(
            f"focus: the region's cell-level run is too big: about {work / 1e6:,.0f} million "
            f"cell-hops from {format_seconds(start_s)} to {format_seconds(end_s)} (limit "
            f"{max_cell_hops / 1e6:,.0f} million); use a smaller region (a scalable unit or "
            f"a rack) or a window of about {format_seconds(fits)} (focus.from_s / until_s in "
            "the scenario, --until on the command line)")
    engine = Engine(sub, config)
    engine.advance(start_s)
    results: dict[int, float] = {}

    def finished(fid: int) -> Any:
        def done(rec: Any) -> None:
            results[fid] = rec.finish_s - rec.start_s
        return done

    try:
        for fid, src, dst, size, start, _fct in replay.foreground:
            engine.add_flow(src, dst, size, start_s=max(start, engine.now), tag="focus",
                            on_done=finished(fid))
        for src, dst, begin, stop, rate, paced in replay.background:
            size = max(1, int(round((stop - begin) * rate)))
            engine.add_flow(src, dst, size, start_s=max(begin, engine.now), tag="background",
                            pace_bps=rate * 8 if paced else None)
    except EngineError as exc:
        raise ScenarioError(f"focus: {exc}") from None
    stop = end_s
    engine.advance(stop)
    while len(results) < len(replay.foreground) and engine.now < stop + 10 * (stop - start_s):
        engine.advance(engine.now + max(stop - start_s, 1e-6) / 10)
    slow = [results[f[0]] / f[5] for f in replay.foreground
            if f[0] in results and f[5] == f[5] and f[5] > 0]
    return engine, {"flows": len(replay.foreground), "finished": len(results),
                    "mean_slowdown": float(np.mean(slow)) if slow else None,
                    "max_slowdown": float(np.max(slow)) if slow else None}


class FocusedSimulation(Simulation):
    """A :class:`Simulation` whose run ends with the region's cell-level replay: the flow
    engine runs the whole scenario (``advance`` as usual), then :meth:`run_region` (called
    by :meth:`run`, or by :meth:`result` when not done yet) replays the region."""

    def __init__(self, *args: Any, region: Region,
                 max_cell_hops: float | None = MAX_CELL_HOPS, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.region = region
        self.max_cell_hops = max_cell_hops
        self.region_engine: Engine | None = None
        self._region: dict[str, Any] | None = None

    @property
    def stream(self) -> MetricStream:
        """The region's cell-level frames once replayed, the whole run's before."""
        if self.region_engine is not None:
            return self.region_engine.stream
        return self.engine.stream

    def run(self, progress: Any = None) -> Any:
        while not self.finished:
            self.advance(self.now + self.slice_s)
            if progress is not None:
                progress(0.5 * self.progress)
        self.run_region()
        if progress is not None:
            progress(1.0)
        self.stream.close(self.flow_ends())
        return self.result()

    def run_region(self) -> None:
        """Replay the region at cell level (once)."""
        if self._region is not None:
            return
        spec = self.scenario.focus
        assert spec is not None
        sub, stubs = region_design(self.design, self.region)
        start = spec.from_s
        end = spec.until_s if spec.until_s is not None else self.now
        if end <= start:
            raise ScenarioError(f"focus: the window [{start:g}, {end:g}] s is empty (the run "
                                f"ended at {self.now:.6g} s)")
        replay = plan_replay(self.engine, self.design, self.region, stubs, start, end)
        config = EngineConfig(technology=self.engine_config.technology,
                              dcqcn=self.engine_config.dcqcn,
                              routing=self.engine_config.routing,
                              cell_bytes=self.engine_config.cell_bytes,
                              seed=self.engine_config.seed, fabric=self.engine_config.fabric,
                              horizon_s=end - start)
        engine, foreground = run_region(sub, config, replay, start, end, self.max_cell_hops)
        self.region_engine = engine
        links = sorted(engine.link_stats(measure_from_s=start),
                       key=lambda ln: (-ln["utilisation"], ln["id"]))[:LISTED_LINKS]
        stats = engine.stats()
        servers = [d for d in self.region.devices
                   if isinstance(self.design.devices[d], GpuServer)]
        self._region = {
            "region": self.region.description, "servers": len(servers),
            "switches": len(self.region.devices) - len(servers), "stubs": len(stubs),
            "from_s": start, "until_s": end, "cell_bytes": engine.cell_bytes,
            "foreground": foreground, "background_flows": len(replay.background),
            "background_bytes": int(sum((b[3] - b[2]) * b[4] for b in replay.background)),
            "background_unpaced": sum(1 for b in replay.background if not b[5]),
            "skipped": replay.skipped, "events": stats["events"],
            "cell_hops": stats["cell_hops"], "wall_time_s": stats["wall_time_s"],
            "totals": engine.totals(), "links": links,
            "warnings": list(engine.config_warnings)}

    def _focus_summary(self, timing: bool) -> dict[str, Any] | None:
        if self._region is None and self.finished:
            self.run_region()
        return self._region
