"""Sweep benchmark: the same points in this process, on a local process pool and on a Dask
LocalCluster; wall time, points per second and the speed-up over one process, measured in the
same run (the machine is shared: compare the ratios, and repeat).

The points: examples/sweeps/oversubscription.sweep.json cut to ``--points`` points (64 GPUs,
a 1-4 MiB all-reduce on the cell engine).  No cache, so every executor runs every point; the
rows must be identical across executors (checked).

Usage: python benchmarks/sweep.py [--points 16] [--workers 2] [--repeat 1]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from fabricstudio.sim.sweep import Executor, load_sweep, run_sweep
from fabricstudio.sim.sweep.spec import SweepSpec

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sweeps" / \
    "oversubscription.sweep.json"


def cut(spec: SweepSpec, points: int) -> SweepSpec:
    """The first keys' values kept whole, the seeds cut so the grid has about ``points``."""
    grid = dict(spec.grid)
    while SweepSpec(spec.base, spec.design, grid, spec.scenario).size > points:
        key = max(grid, key=lambda k: len(grid[k]))
        grid[key] = grid[key][:-1]
    return SweepSpec(spec.base, spec.design, grid, spec.scenario)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    spec = cut(load_sweep(EXAMPLE), args.points)
    executors = {"one process": Executor(workers=1),
                 f"pool of {args.workers}": Executor("local", workers=args.workers),
                 f"Dask LocalCluster of {args.workers}": Executor("dask",
                                                                  dask_local=args.workers)}
    print(f"{spec.size} points: {', '.join(f'{k} x{len(v)}' for k, v in spec.grid.items())}")
    times: dict[str, list[float]] = {name: [] for name in executors}
    reference = None
    for _ in range(args.repeat):
        for name, executor in executors.items():
            start = time.perf_counter()
            rows = run_sweep(spec, executor=executor)
            times[name].append(time.perf_counter() - start)
            if reference is None:
                reference = rows
            assert rows == reference, f"{name} gave other rows"
    base = statistics.median(times["one process"])
    print(f"{'executor':<26} {'wall s':>8} {'points/s':>9} {'speed-up':>9}")
    for name, values in times.items():
        wall = statistics.median(values)
        print(f"{name:<26} {wall:>8.1f} {spec.size / wall:>9.2f} {base / wall:>8.2f}x")
    print("rows identical across executors: yes")


if __name__ == "__main__":
    main()
