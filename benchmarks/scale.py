"""Scale benchmark: a ring all-reduce of 256 MiB on rail-optimised fabrics of 64, 256 and 1,024
GPUs (8 GPUs and 8 x 400G NICs per server, radix-64 400G switches), headless.

Prints, per size: the collective algorithm the run used, simulated completion time, busbw,
flows, engine events and cell-hops, wall time (build and run) and peak memory (resident set
of a fresh process per size, from resource.getrusage).  Target (SIMULATION.md section 6):
1,024 GPUs in under a minute on one core, memory well under 2 GB.

Scale settings, stated in the output: 64 KiB cells by default (results agree within ~5% with
4 and 16 KiB cells on the validation scenarios), and ``auto`` collectives: NCCL's flat ring
(8 channels, one per rail) while it needs at most two million flows, the hierarchical ring
(NVLink rings + one ring per rail) beyond.

Usage: python benchmarks/scale.py [--gpus 64 256 1024] [--cell-size 65536] [--size 256MiB]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

from fabricstudio.model import Design, GpuServer, Leaf, Link, Spine, Technology
from fabricstudio.sim import Scenario, build_simulation, parse_size


def rail_optimised(gpus: int) -> tuple[Design, str]:
    """(design, builder name): the topology package's rail-optimised builder when available,
    else a local equivalent."""
    try:
        from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
    except ImportError:
        return _local_rail_optimised(gpus), "local helper"
    spec = RailOptimizedSpec(gpus=gpus, technology=Technology.ROCE)
    return build_fabric(spec).to_design(), "topology.builders"


def _local_rail_optimised(gpus: int, per_server: int = 8, radix: int = 64) -> Design:
    """Two-tier rail-optimised fabric: scalable units of radix/2 servers, NIC i of every server
    on rail leaf i of its unit, each leaf with radix/2 uplinks spread over the spines."""
    servers = gpus // per_server
    su_size = radix // 2
    design = Design(f"Rail-optimised, {gpus} GPUs")
    leaves = []
    for su in range(-(-servers // su_size)):
        for rail in range(per_server):
            leaves.append(f"leaf{su}_{rail}")
            design.add_device(Leaf(id=leaves[-1], radix=radix))
    spines = max(1, len(leaves) * (radix // 2) // radix)
    for s in range(spines):
        design.add_device(Spine(id=f"spine{s}", radix=radix))
    for n in range(servers):
        su = n // su_size
        design.add_device(GpuServer(id=f"server{n}", gpus=per_server, nics=per_server,
                                    mgmt_ports=0))
        for rail in range(per_server):
            design.add_link(Link(id=f"s{n}r{rail}", a=f"server{n}", b=f"leaf{su}_{rail}",
                                 a_port=rail))
    for leaf in leaves:
        for k in range(radix // 2):
            design.add_link(Link(id=f"{leaf}u{k}", a=leaf, b=f"spine{k % spines}", length_m=30))
    return design


def measure(gpus: int, cell_bytes: int, size: int) -> dict:
    """Build and run one size in this process; returns the figures."""
    t0 = time.perf_counter()
    design, builder = rail_optimised(gpus)
    scenario = Scenario.model_validate({
        "name": f"ring all-reduce, {gpus} GPUs", "cell_bytes": cell_bytes,
        "workloads": [{"type": "all_reduce", "ranks": "all", "size_bytes": size}]})
    sim = build_simulation(design, scenario, max_cell_hops=None)
    t1 = time.perf_counter()
    result = sim.run()
    t2 = time.perf_counter()
    c = result.collective
    return {"gpus": gpus, "builder": builder, "devices": len(design.devices),
            "links": len(design.links),
            "algorithm": f"{c.algorithm} x{c.channels}", "time_s": c.time_s,
            "busbw_gbps": c.busbw_gbps, "flows": len(sim.engine.flows),
            "events": result.engine.events, "cell_hops": result.engine.cell_hops,
            "build_s": t1 - t0, "run_s": t2 - t1,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--cell-size", type=parse_size, default=65536)
    parser.add_argument("--size", type=parse_size, default=256 * 2**20)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.cell_size, args.size)))
        return
    print(f"ring all-reduce of {args.size / 2**20:g} MiB, rail-optimised 8 x 400G per server, "
          f"RoCE, {args.cell_size // 1024} KiB cells (big cells for scale), one process per size")
    header = (f"{'GPUs':>6} {'links':>6} {'algorithm':>16} {'sim time':>10} {'busbw':>10} "
              f"{'flows':>9} {'events':>11} {'cell-hops':>10} {'build':>7} {'run':>7} "
              f"{'peak RSS':>9}")
    print(header)
    print("-" * len(header))
    for gpus in args.gpus:
        out = subprocess.run([sys.executable, __file__, "--one", str(gpus), "--cell-size",
                              str(args.cell_size), "--size", str(args.size)],
                             capture_output=True, text=True, check=False)
        if out.returncode:
            print(f"{gpus:>6} failed: {out.stderr.strip().splitlines()[-1]}")
            continue
        r = json.loads(out.stdout)
        print(f"{r.gpus:>6} {r.links:>6} {r.algorithm:>16} "
              f"{r.time_s * 1e3:>7.3f} ms {r.busbw_gbps:>5.0f} Gb/s {r.flows:>9,} "
              f"{r.events:>11,} {r.cell_hops:>10,} {r.build_s:>6.1f}s "
              f"{r.run_s:>6.1f}s {r.peak_mb:>6.0f} MB  ({r.builder})")
    print("target: 1,024 GPUs in under 60 s (build + run), memory well under 2 GB")


if __name__ == "__main__":
    main()
