"""Engine hot-loop speed: cell-hops/s and events/s next to a bare SimPy timeout loop measured
in the same process (target ratio >= 0.4, SIMULATION.md section 6), optionally against an
older checkout of the engine measured in the same run.

Run::

    python benchmarks/engine.py [--cell BYTES] [--ms SIM_MS] [--repeats N]
                                [--baseline DIR] [--profile] [--validation]

Every measurement runs in a fresh child process that first times the bare SimPy loop and then
the engine, so each engine figure has its own reference taken seconds apart on the same CPU;
the runs are interleaved (technology by technology, this tree then the baseline, repeat after
repeat) and the medians are printed, so load from other processes on a shared machine hits
both sides alike.  ``--baseline DIR`` is a checkout (or ``git archive``) of another commit:
its ``fabricstudio`` package runs the same workload, e.g.::

    git archive <commit> | tar -x -C /tmp/base && python benchmarks/engine.py --baseline /tmp/base

``--validation`` also prints the long versions of the congestion-control scenarios over several
seeds and cell sizes (V4 victim flow, V5 DCQCN 2:1 at 100 Gb/s).  ``--ring GPUS`` runs a lone
256 MiB flat-ring all-reduce (64 KiB cells, rail-optimised 400G RoCE) twice in fresh
processes, its rings solved as arrays (``sim/workloads/ring_arrays.py``) and cell by cell,
and prints cell-hops per CPU second of each next to the bare SimPy loop and whether the two
runs agree.  Prints figures only; it asserts nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
#: The tree whose ``fabricstudio`` this process imports (a worker may be pointed elsewhere).
ROOT = Path(os.environ.get("FABRICSTUDIO_BENCH_ROOT") or HERE.parents[1])
sys.path.insert(0, str(ROOT))

import simpy  # noqa: E402

from fabricstudio.model import Design, FabricSettings, GpuServer, Leaf, Link, Spine, Technology  # noqa: E402
from fabricstudio.sim.engine import Engine, EngineConfig  # noqa: E402

TECHNOLOGIES = ("infiniband", "roce", "ethernet")


def bare_simpy_events_per_s(events: int = 300_000, processes: int = 100) -> tuple[float, float]:
    """Events per wall-clock second and per CPU second of generator processes that only wait
    on timeouts."""
    env = simpy.Environment()

    def ticker(env: simpy.Environment):
        while True:
            yield env.timeout(1.0)

    for _ in range(processes):
        env.process(ticker(env))
    started, cpu = time.perf_counter(), time.process_time()
    env.run(until=events / processes)
    return (events / (time.perf_counter() - started), events / (time.process_time() - cpu))


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
    cpu = time.process_time()
    eng.advance(sim_s)
    cpu = time.process_time() - cpu
    stats = eng.stats()
    stats["cell_hops_per_s"] = stats["cell_hops"] / stats["wall_time_s"]
    stats["cell_hops_per_cpu_s"] = stats["cell_hops"] / cpu
    return stats


def worker(technology: str, cell: int, sim_s: float) -> dict:
    """One measurement in this process: the bare loop, then the engine."""
    bare, bare_cpu = bare_simpy_events_per_s()
    stats = engine_run(Technology(technology), cell, sim_s)
    return {"bare": bare, "bare_cpu": bare_cpu, "cell_hops_per_s": stats["cell_hops_per_s"],
            "cell_hops_per_cpu_s": stats["cell_hops_per_cpu_s"],
            "events_per_s": stats["events_per_s"], "cell_hops": stats["cell_hops"],
            "events": stats["events"]}


def measure(root: Path, technology: str, cell: int, sim_s: float) -> dict:
    """Run :func:`worker` in a fresh interpreter importing ``root``'s fabricstudio."""
    env = dict(os.environ, FABRICSTUDIO_BENCH_ROOT=str(root), PYTHONHASHSEED="0")
    out = subprocess.run(
        [sys.executable, str(HERE), "--worker", technology, "--cell", str(cell),
         "--ms", str(sim_s * 1e3)],
        env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def compare(cell: int, sim_s: float, repeats: int, baseline: Path | None) -> None:
    """Interleaved repeats; medians of cell-hops/s, of the bare loop and of their ratio."""
    trees = [("this tree", ROOT)] + ([("baseline", baseline)] if baseline else [])
    runs: dict[tuple[str, str], list[dict]] = {}
    for rep in range(repeats):
        for technology in TECHNOLOGIES:
            for name, root in trees:
                runs.setdefault((technology, name), []).append(
                    measure(root, technology, cell, sim_s))
        print(f"  repeat {rep + 1}/{repeats} done", file=sys.stderr, flush=True)
    bare = statistics.median(r["bare"] for rs in runs.values() for r in rs)
    print(f"cell {cell} B, {sim_s * 1e3:g} ms simulated, {repeats} interleaved repeats, medians; "
          f"bare SimPy timeout loop {bare:,.0f} events/s")
    print(f"{'technology':12s} {'tree':10s} {'cell-hops/s':>12s} {'events/s':>10s} "
          f"{'cell-hops/s / bare':>19s} {'events/s / bare':>16s}")
    ratios: dict[tuple[str, str], float] = {}
    cpu_ratios: dict[tuple[str, str], float] = {}
    for technology in TECHNOLOGIES:
        for name, _root in trees:
            rs = runs[(technology, name)]
            hop_ratio = statistics.median(r["cell_hops_per_s"] / r["bare"] for r in rs)
            ev_ratio = statistics.median(r["events_per_s"] / r["bare"] for r in rs)
            ratios[(technology, name)] = hop_ratio
            cpu_ratios[(technology, name)] = statistics.median(
                r["cell_hops_per_cpu_s"] / r["bare_cpu"] for r in rs)
            print(f"{technology:12s} {name:10s} "
                  f"{statistics.median(r['cell_hops_per_s'] for r in rs):12,.0f} "
                  f"{statistics.median(r['events_per_s'] for r in rs):10,.0f} "
                  f"{hop_ratio:19.3f} {ev_ratio:16.3f}")
    if baseline:
        # CPU seconds count only this process's work: steadier than wall time under load
        for label, table in (("wall clock", ratios), ("CPU time", cpu_ratios)):
            print(f"this tree / baseline (cell-hops per bare SimPy event, {label}, medians): "
                  + ", ".join(f"{t} {table[(t, 'this tree')] / table[(t, 'baseline')]:.3f}"
                              for t in TECHNOLOGIES))


def ring_worker(gpus: int, arrays: bool) -> dict:
    """A lone flat ring on a rail fabric, its rings as arrays or cell by cell."""
    from fabricstudio.sim import Scenario, build_simulation
    from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric

    bare, bare_cpu = bare_simpy_events_per_s()
    design = build_fabric(RailOptimizedSpec(gpus=gpus, technology=Technology.ROCE)).to_design()
    scenario = Scenario.model_validate({"engine": "cell", "cell_bytes": 65536, "workloads": [
        {"type": "all_reduce", "size_bytes": 256 * 2**20, "algorithm": "ring"}]})
    sim = build_simulation(design, scenario)
    engine = sim.engine
    assert isinstance(engine, Engine)
    engine.sole_traffic = arrays
    cpu = time.process_time()
    result = sim.run()
    cpu = time.process_time() - cpu
    assert result.collective is not None
    return {"bare_cpu": bare_cpu, "cpu_s": cpu, "cell_hops": result.engine.cell_hops,
            "sim_s": result.collective.time_s, "arrays": engine.ring_arrays,
            "totals": {k: v for k, v in engine.totals().items() if k != "deadlock"}}


def ring(gpus: int) -> None:
    """The lone ring with and without arrays, each in a fresh process."""
    runs = {}
    for arrays in (True, False):
        out = subprocess.run([sys.executable, str(HERE), "--ring-worker", str(gpus),
                              "1" if arrays else "0"], check=True, capture_output=True,
                             text=True).stdout
        runs[arrays] = json.loads(out.strip().splitlines()[-1])
    print(f"lone 256 MiB flat ring, {gpus:,} GPUs (rail-optimised 400G RoCE, 64 KiB cells), "
          f"process CPU time:")
    for arrays, r in runs.items():
        rate = r["cell_hops"] / r["cpu_s"]
        print(f"  {'arrays' if arrays else 'per cell':9s} {r['sim_s'] * 1e3:.6f} ms simulated, "
              f"{r['cell_hops']:,} cell-hops in {r['cpu_s']:.1f} s: {rate:,.0f} cell-hops/s = "
              f"{rate / r['bare_cpu']:.3f} per bare SimPy event ({r['bare_cpu']:,.0f}/s); "
              f"ring phases {r['arrays']}")
    same = runs[True]["sim_s"] == runs[False]["sim_s"] and \
        runs[True]["totals"] == runs[False]["totals"]
    print(f"  same time and totals: {same}; speed-up "
          f"{runs[False]['cpu_s'] / runs[True]['cpu_s']:.1f}x")


def profile(technology: str, cell: int, sim_s: float) -> None:
    """cProfile summary of one engine run in this process."""
    profiler = cProfile.Profile()
    profiler.enable()
    engine_run(Technology(technology), cell, sim_s)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(14)


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
    from fabricstudio.sim.engine import window_goodput_gbps

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
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats (median)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout whose engine runs the same workload")
    parser.add_argument("--profile", choices=TECHNOLOGIES, default=None,
                        help="print a cProfile summary of one technology instead")
    parser.add_argument("--validation", action="store_true",
                        help="also print long V4/V5 runs over seeds and cell sizes")
    parser.add_argument("--ring", type=int, default=None, metavar="GPUS",
                        help="a lone flat ring of GPUS GPUs as arrays and cell by cell instead")
    parser.add_argument("--worker", choices=TECHNOLOGIES, help=argparse.SUPPRESS)
    parser.add_argument("--ring-worker", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.ring_worker:
        gpus, arrays = args.ring_worker
        print(json.dumps(ring_worker(gpus, bool(arrays))))
        return 0
    if args.ring:
        ring(args.ring)
        return 0
    if args.worker:
        print(json.dumps(worker(args.worker, args.cell, args.ms * 1e-3)))
        return 0
    if args.profile:
        profile(args.profile, args.cell, args.ms * 1e-3)
        return 0
    compare(args.cell, args.ms * 1e-3, args.repeats, args.baseline)
    if args.validation:
        validation()
    return 0


if __name__ == "__main__":
    sys.exit(main())
