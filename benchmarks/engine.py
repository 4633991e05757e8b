"""Engine hot-loop speed: engine events/s and cell-hops/s against a bare SimPy timeout loop
measured in the same process (target ratio >= 0.4, SIMULATION.md section 6).

Run: ``python benchmarks/engine.py [--cell BYTES] [--ms SIM_MS] [--profile] [--validation]``.
``--validation`` also prints the long versions of the congestion-control scenarios over several
seeds and cell sizes (V4 victim flow, V5 DCQCN 2:1 at 100 Gb/s).  Prints figures only; it
asserts nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import simpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fabricstudio.model import Design, FabricSettings, GpuServer, Leaf, Link, Spine, Technology  # noqa: E402
from fabricstudio.sim.engine import Engine, EngineConfig, window_goodput_gbps  # noqa: E402


def bare_simpy_events_per_s(events: int = 400_000, processes: int = 100) -> float:
    """Events/s of generator processes that only wait on timeouts."""
    env = simpy.Environment()

    def ticker(env: simpy.Environment):
        while True:
            yield env.timeout(1.0)

    for _ in range(processes):
        env.process(ticker(env))
    started = time.perf_counter()
    env.run(until=events / processes)
    return events / (time.perf_counter() - started)


def leaf_spine(technology: Technology, hosts_per_leaf: int = 8, leaves: int = 4,
               spines: int = 4) -> Design:
    """A small 100G leaf-spine (non-blocking)."""
    design = Design("bench", fabric=FabricSettings(technology=technology))
    for s in range(spines):
        design.add_device(Spine(id=f"sp{s}", radix=32, port_speed_gbps=100,
                                buffer_bytes=16 * 1024**2))
    for lf in range(leaves):
        design.add_device(Leaf(id=f"lf{lf}", radix=32, port_speed_gbps=100,
                               buffer_bytes=16 * 1024**2))
        for s in range(spines):
            for k in range(hosts_per_leaf // spines):
                design.add_link(Link(id=f"u{lf}-{s}-{k}", a=f"lf{lf}", b=f"sp{s}",
                                     speed_gbps=100, length_m=30))
        for h in range(hosts_per_leaf):
            hid = f"h{lf}-{h}"
            design.add_device(GpuServer(id=hid, gpus=1, nics=1, nic_speed_gbps=100,
                                        mgmt_ports=0))
            design.add_link(Link(id=f"d{hid}", a=hid, b=f"lf{lf}", speed_gbps=100))
    return design


def engine_run(technology: Technology, cell: int, sim_s: float) -> dict:
    """A permutation across leaves plus a 4:1 incast (PFC/credits/drops all active)."""
    design = leaf_spine(technology)
    hosts = [d for d in design.devices if d.startswith("h")]
    eng = Engine(design, EngineConfig(cell_bytes=cell, sample_period_s=sim_s / 500))
    for i, src in enumerate(hosts):
        eng.add_flow(src, hosts[(i + 9) % len(hosts)], 1e12)
    for src in hosts[1:5]:
        eng.add_flow(src, hosts[0], 1e12)
    eng.advance(sim_s)
    stats = eng.stats()
    stats["cell_hops_per_s"] = stats["cell_hops"] / stats["wall_time_s"]
    return stats


def victim(technology: Technology) -> Design:
    """V4: A and V on s1; B1-B3, R and W on s2; one s1-s2 link; 100G, 200 m cables."""
    design = Design("victim", fabric=FabricSettings(technology=technology))
    for sw in ("s1", "s2"):
        design.add_device(Leaf(id=sw, radix=16, port_speed_gbps=100, buffer_bytes=16 * 1024**2))
    for host, sw in (("a", "s1"), ("v", "s1"), ("b1", "s2"), ("b2", "s2"), ("b3", "s2"),
                     ("r", "s2"), ("w", "s2")):
        design.add_device(GpuServer(id=host, gpus=1, nics=1, nic_speed_gbps=100, mgmt_ports=0))
        design.add_link(Link(id=f"l-{host}", a=host, b=sw, speed_gbps=100, length_m=200))
    design.add_link(Link(id="l-s1s2", a="s1", b="s2", speed_gbps=100, length_m=200))
    return design


def validation() -> None:
    """Long congestion-control runs over seeds and cell sizes."""
    pairs = (("a", "r"), ("b1", "r"), ("b2", "r"), ("b3", "r"), ("v", "w"))
    print("V4 victim flow V (Gb/s) measured 20-30 ms; fair share 75, PFC-only expectation 25")
    for dcqcn in (False, True):
        for cell in (4096, 16384, 65536):
            figures = []
            for seed in (1, 2, 3):
                eng = Engine(victim(Technology.ROCE),
                             EngineConfig(dcqcn=dcqcn, cell_bytes=cell, seed=seed))
                ids = [eng.add_flow(s, d, 1e12) for s, d in pairs]
                eng.advance(20e-3)
                pauses = eng.totals()["pfc_pauses"]
                v = window_goodput_gbps(eng, ids, 20e-3, 30e-3)[-1]
                figures.append(f"{v:5.1f} ({eng.totals()['pfc_pauses'] - pauses} pauses)")
            print(f"  dcqcn={dcqcn!s:5} cell {cell:>5}: " + ", ".join(figures))
    print("V5 DCQCN 2:1, 3 m cables, 4 MB buffer: rates and Jain index")
    for t0, t1 in ((15e-3, 25e-3), (40e-3, 50e-3)):
        row = []
        for seed in (1, 2, 3, 4, 5, 6):
            design = Design("v5", fabric=FabricSettings(technology=Technology.ROCE))
            design.add_device(Leaf(id="s", radix=8, port_speed_gbps=100, buffer_bytes=4_000_000))
            for host in ("h1", "h2", "r"):
                design.add_device(GpuServer(id=host, gpus=1, nics=1, nic_speed_gbps=100,
                                            mgmt_ports=0))
                design.add_link(Link(id=f"l-{host}", a=host, b="s", speed_gbps=100))
            eng = Engine(design, EngineConfig(dcqcn=True, seed=seed, sample_period_s=1e-4))
            ids = [eng.add_flow(h, "r", 1e12) for h in ("h1", "h2")]
            rates = window_goodput_gbps(eng, ids, t0, t1)
            jain = sum(rates) ** 2 / (2 * sum(r * r for r in rates))
            row.append(f"{rates[0]:.0f}/{rates[1]:.0f} J={jain:.3f}")
        print(f"  {t0 * 1e3:.0f}-{t1 * 1e3:.0f} ms: " + ", ".join(row))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cell", type=int, default=16384)
    parser.add_argument("--ms", type=float, default=2.0, help="simulated milliseconds")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary")
    parser.add_argument("--validation", action="store_true",
                        help="also print long V4/V5 runs over seeds and cell sizes")
    args = parser.parse_args()
    bare = bare_simpy_events_per_s()
    print(f"bare SimPy timeout loop: {bare:,.0f} events/s")
    for technology in Technology:
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
        stats = engine_run(technology, args.cell, args.ms * 1e-3)
        if args.profile:
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(12)
        ratio = stats["events_per_s"] / bare
        print(f"{technology.label:15s} cell {args.cell} B, {args.ms} ms: "
              f"{stats['events']:,} events in {stats['wall_time_s']:.2f} s = "
              f"{stats['events_per_s']:,.0f} events/s, "
              f"{stats['cell_hops_per_s']:,.0f} cell-hops/s, "
              f"ratio to bare SimPy {ratio:.2f} (target >= 0.4)")
    if args.validation:
        validation()
    return 0


if __name__ == "__main__":
    sys.exit(main())
