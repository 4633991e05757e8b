"""Scale benchmark: both engines from 1,024 to 32,768 GPUs, headless, one process per case.

Cases (rail-optimised fabrics: 8 GPUs and 8 x 400G NICs per server, radix-64 400G switches,
RoCE; 3 tiers from 4,096 GPUs):

* ``ring``  - 256 MiB flat-ring all-reduce (``algorithm: ring``, 64 KiB cells) on the cell
  engine and on the flow engine; the flow/cell time ratio where both run.  A lone ring on
  the cell engine is solved as arrays (``sim/workloads/ring_arrays.py``, the per-cell
  engine's exact result); engine ``cells`` runs the same ring cell by cell (every cell an
  event), for the before/after in one run;
* ``llm``   - one Llama-3-70B training iteration (TP 8, PP 4, 16M tokens) on the flow engine.

Per case: simulated time, what the engine did (cell-hops or rate updates), build and run
wall time, CPU time of the process (the machine is shared: CPU time is the figure to compare),
peak resident memory, and the growth of run time from the previous size.  Then the work
estimate (:mod:`fabricstudio.sim.work`) against the run: counted cell-hops or rate updates
against the estimate's, the run's CPU seconds against the predicted ones, and the CPU cost per
cell-hop next to a bare SimPy timeout loop timed in the same process; with ``--fit`` the
per-item costs that best explain the runs' CPU time (non-negative least squares on relative
error over the measured counts) - the source of the constants in ``sim/work.py``.

Targets (issue 10): cell ring on 4,096 GPUs < 120 s and < 1 GB; flow LLM iteration on
8,192 GPUs < 30 s, on 32,768 < 120 s and < 4 GB.  A case the work estimate refuses prints
the estimate's message.

Usage: python benchmarks/scale.py [--gpus 1024 4096 8192 32768] [--cases ring llm]
       [--engines cell flow] [--size 256MiB] [--seed 1] [--fit]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fabricstudio.model import Technology
from fabricstudio.sim import Scenario, ScenarioError, build_simulation, parse_size
from fabricstudio.sim.work import (
    ARRAY_S_PER_CELL_HOP,
    ARRAY_S_PER_STEP,
    CELL_S_PER_CELL_HOP,
    FLOW_S_PER_TRANSFER,
    FLOW_S_PER_UPDATE,
    FLOW_S_PER_UPDATE_ENTRY,
)
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric

sys.path.insert(0, str(Path(__file__).resolve().parent))
from engine import bare_simpy_events_per_s  # noqa: E402  (benchmarks/engine.py)

LLM = {"type": "llm_training", "model": "llama3-70b", "gpu": "h100", "tp": 8, "pp": 4,
       "seq_len": 8192, "global_batch": 2048}


def workload(case: str, size: int) -> dict[str, Any]:
    if case == "ring":
        return {"type": "all_reduce", "size_bytes": size, "algorithm": "ring"}
    return LLM


def measure(gpus: int, case: str, engine: str, size: int, seed: int = 1) -> dict[str, Any]:
    """Build and run one case in this process."""
    bare_per_s = bare_simpy_events_per_s()[1]
    wall0, cpu0 = time.perf_counter(), time.process_time()
    design = build_fabric(RailOptimizedSpec(gpus=gpus, technology=Technology.ROCE)).to_design()
    kind = "cell" if engine == "cells" else engine
    scenario = Scenario.model_validate({"engine": kind, "cell_bytes": 65536, "seed": seed,
                                        "workloads": [workload(case, size)]})
    out: dict[str, Any] = {"gpus": gpus, "case": case, "engine": engine,
                           "links": len(design.links)}
    try:
        sim = build_simulation(design, scenario)
    except ScenarioError as exc:
        out["refused"] = str(exc)
        return out
    if engine == "cells":  # cell by cell: no arrays
        sim.engine.sole_traffic = False  # type: ignore[union-attr]
    wall1, cpu1 = time.perf_counter(), time.process_time()
    estimate = sim.engine_info["estimate"]
    work = sim.engine_info["work"]
    if engine == "cells":  # priced cell by cell, whatever the arrays pre-check said
        work = dataclasses.replace(work, ring_arrays=False)
    out.update({"predicted_s": work.seconds(kind),
                "predicted_updates": estimate["rate_updates"],
                "predicted_cell_hops": estimate["cell_hops"],
                "predicted_arrays": estimate["ring_arrays"],
                "array_steps": estimate["array_steps"],
                "entries": estimate["concurrent_entries"]})
    result = sim.run()
    declined = getattr(sim.engine, "ring_arrays", None)
    if declined is not None and engine == "cell":  # None per phase solved as arrays
        out["arrays"] = bool(declined) and all(why is None for why in declined)
        out["arrays_declined"] = next((why for why in declined if why), None)
    wall2, cpu2 = time.perf_counter(), time.process_time()
    unfinished = [w for w in result.warnings if "unfinished" in w]
    if unfinished:
        out["unfinished"] = unfinished[0]
    if case == "ring":
        c = result.collective
        assert c is not None
        out.update({"sim_s": c.time_s, "busbw_gbps": c.busbw_gbps})
    else:
        t = result.llm_training
        assert t is not None
        out.update({"sim_s": t.iteration_time_s, "mfu": t.mfu, "tax": t.network_tax_fraction})
    log = getattr(sim.engine, "ring_arrays", None)
    if log:  # the cell engine's arrays: taken (None) or why not, per ring phase
        out["arrays"] = next((why for why in log if why is not None), "taken")
    out.update({"transfers": result.flow_summary.flows if result.flow_summary else None,
                "cell_hops": result.engine.cell_hops,
                "rate_updates": result.engine.rate_updates,
                "build_s": wall1 - wall0, "run_s": wall2 - wall1, "cpu_s": cpu2 - cpu0,
                "run_cpu_s": cpu2 - cpu1, "bare_events_per_cpu_s": bare_per_s,
                "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, nargs="+", default=[1024, 4096, 8192, 32768])
    parser.add_argument("--cases", nargs="+", default=["ring", "llm"], choices=["ring", "llm"])
    parser.add_argument("--engines", nargs="+", default=["cell", "flow"],
                        choices=["cell", "cells", "flow"],
                        help="cells = the cell engine with every cell an event (no arrays)")
    parser.add_argument("--size", type=parse_size, default=256 * 2**20)
    parser.add_argument("--seed", type=int, default=1,
                        help="the scenario's seed (ECMP hash): which links the ring shares")
    parser.add_argument("--fit", action="store_true",
                        help="fit the per-item costs of sim/work.py to the runs' CPU time")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        gpus, case, engine = args.one
        print(json.dumps(measure(int(gpus), case, engine, args.size, args.seed)))
        return
    print(f"seed {args.seed}; rail-optimised 8 x 400G per server, RoCE; ring = 256 MiB flat "
          "ring all-reduce (64 KiB cells), llm = one Llama-3-70B iteration (TP 8, PP 4, "
          "2,048 x 8,192 tokens); one process per case; cpu = process CPU time (the machine "
          "is shared)")
    header = (f"{'case':>4} {'engine':>6} {'GPUs':>6} {'sim time':>11} {'transfers':>10} "
              f"{'work':>18} {'build':>7} {'run':>7} {'cpu':>7} {'peak RSS':>9} {'growth':>7}")
    print(header)
    print("-" * len(header))
    times: dict[tuple[str, str, int], float] = {}
    rows: list[dict[str, Any]] = []
    for case in args.cases:
        engines = args.engines if case == "ring" else ["flow"]
        for engine in engines:
            previous = None
            for gpus in args.gpus:
                r = _run(gpus, case, engine, args.size, args.seed)
                if r is None:
                    continue
                if "refused" in r:
                    print(f"{case:>4} {engine:>6} {gpus:>6} refused: {r['refused'][:150]}")
                    continue
                if r.get("sim_s") is None:
                    print(f"{case:>4} {engine:>6} {gpus:>6} {r.get('unfinished', 'no result')}"
                          f" (run {r['run_s']:.1f}s, cpu {r['cpu_s']:.1f}s, "
                          f"peak {r['peak_mb']:.0f} MB)")
                    continue
                growth = (f"{r['cpu_s'] / previous[1]:.1f}x/{gpus / previous[0]:.0f}x"
                          if previous else "")
                previous = (gpus, r["cpu_s"])
                work = (f"{r['cell_hops']:,} cell-hops" if engine != "flow"
                        else f"{r['rate_updates']:,} updates")
                extra = (f"busbw {r['busbw_gbps']:.0f} Gb/s" if case == "ring"
                         else f"MFU {r['mfu'] * 100:.1f}%, tax {r['tax'] * 100:.1f}%")
                if "arrays" in r:
                    extra += f", arrays: {r['arrays']}"
                print(f"{case:>4} {engine:>6} {gpus:>6} {r['sim_s'] * 1e3:>8.3f} ms "
                      f"{r['transfers']:>10,} {work:>18} {r['build_s']:>6.1f}s "
                      f"{r['run_s']:>6.1f}s {r['cpu_s']:>6.1f}s {r['peak_mb']:>6.0f} MB "
                      f"{growth:>7}  {extra}")
                times[(case, engine, gpus)] = r["sim_s"]
                rows.append(r)
    both = [(c, g) for (c, e, g) in times if e == "cell" and (c, "flow", g) in times]
    if both:
        print("\nflow vs cell (same scenario): " + ", ".join(
            f"{c} {g:,} GPUs {times[(c, 'flow', g)] / times[(c, 'cell', g)]:.3f}x"
            for c, g in both))
    _print_predictions(rows)
    if args.fit:
        _fit(rows)
    print("targets: cell ring 4,096 GPUs < 120 s, < 1 GB; flow llm 8,192 GPUs < 30 s; "
          "32,768 GPUs < 120 s, < 4 GB")


def _print_predictions(rows: list[dict[str, Any]]) -> None:
    """The work estimate against each run: counts, and predicted against CPU seconds."""
    if not rows:
        return
    print("\nwork estimate against the run (run CPU = the simulation without building the "
          "fabric):")
    for r in rows:
        if r["engine"] != "flow":
            counted = r["cell_hops"]
            per_item = f"{r['run_cpu_s'] / counted * 1e6:.1f} us CPU per cell-hop = " \
                f"{r['bare_events_per_cpu_s'] * r['run_cpu_s'] / counted:.2f} bare SimPy events"
            count = f"cell-hops {counted:,} counted / {r['predicted_cell_hops']:,} estimated"
            if "arrays" in r:
                count += (f" ({'as arrays' if r['arrays'] else 'cell by cell'}, predicted "
                          f"{'arrays' if r['predicted_arrays'] else 'cell by cell'})")
        else:
            counted = r["rate_updates"]
            per_item = f"{r['transfers']:,} transfers, {r['entries']:,} entries"
            count = f"rate updates {counted:,} counted / {r['predicted_updates']:,} estimated"
        ratio = counted / max(1, r["predicted_cell_hops" if r["engine"] != "flow"
                                   else "predicted_updates"])
        print(f"{r['case']:>4} {r['engine']:>6} {r['gpus']:>6} {count} = {ratio:.2f}; run "
              f"{r['run_cpu_s']:.1f} s CPU / {r['predicted_s']:.1f} s predicted = "
              f"{r['run_cpu_s'] / r['predicted_s']:.2f}; {per_item}")


def _fit(rows: list[dict[str, Any]]) -> None:
    """Per-item costs that best explain the runs' CPU time from their counted work."""
    flow = [r for r in rows if r["engine"] == "flow" and r["case"] == "llm"]  # a ring: 2 updates
    if len(flow) >= 3:
        x, fitted = _fit_cpu(flow, lambda r: [r["transfers"], r["rate_updates"],
                                              r["rate_updates"] * r["entries"]])
        print(f"\nflow fit over {len(flow)} LLM runs: {x[0] * 1e6:.1f} us per transfer, "
              f"{x[1] * 1e6:.0f} us per rate update + {x[2] * 1e9:.2f} ns per update x entry "
              f"(sim/work.py: {FLOW_S_PER_TRANSFER * 1e6:.1f}, {FLOW_S_PER_UPDATE * 1e6:.0f}, "
              f"{FLOW_S_PER_UPDATE_ENTRY * 1e9:.2f}); fitted / measured "
              f"{fitted.min():.2f}-{fitted.max():.2f}")
    arrays = [r for r in rows if r.get("arrays")]
    if len(arrays) >= 2:
        x, fitted = _fit_cpu(arrays, lambda r: [r["array_steps"], r["cell_hops"]])
        print(f"ring arrays fit over {len(arrays)} runs: {x[0] * 1e3:.3g} ms per unit step + "
              f"{x[1] * 1e6:.3g} us per cell-hop (sim/work.py: {ARRAY_S_PER_STEP * 1e3:.3g}, "
              f"{ARRAY_S_PER_CELL_HOP * 1e6:.3g}); fitted / measured "
              f"{fitted.min():.2f}-{fitted.max():.2f}")
    # per-cell cost: from runs cell by cell (a lone ring's arrays cost far less per cell-hop
    # and have their own constants)
    cell = [r for r in rows if r["engine"] in ("cell", "cells") and not r.get("arrays")]
    if cell:
        per_hop = sorted(r["run_cpu_s"] / r["cell_hops"] for r in cell)
        print(f"cell: {per_hop[len(per_hop) // 2] * 1e6:.1f} us CPU per cell-hop (median of "
              f"{len(cell)}; sim/work.py: {CELL_S_PER_CELL_HOP * 1e6:.1f})")


def _fit_cpu(rows: list[dict[str, Any]], work) -> tuple[Any, Any]:
    """Non-negative per-item costs x fitting each run's CPU time from ``work(row)`` (its
    counted items), weighted by relative error; returns x and fitted / measured per run."""
    import numpy as np
    from scipy.optimize import nnls

    a = np.array([work(r) for r in rows], dtype=float)
    y = np.array([r["run_cpu_s"] for r in rows])
    x, _ = nnls(a / y[:, None], np.ones(len(y)))
    return x, a @ x / y


def _run(gpus: int, case: str, engine: str, size: int, seed: int) -> dict[str, Any] | None:
    out = subprocess.run([sys.executable, __file__, "--one", str(gpus), case, engine,
                          "--size", str(size), "--seed", str(seed)],
                         capture_output=True, text=True, check=False)
    if out.returncode:
        lines = out.stderr.strip().splitlines() or ["no output"]
        print(f"{case:>4} {engine:>6} {gpus:>6} failed: {lines[-1]}")
        return None
    return json.loads(out.stdout)


if __name__ == "__main__":
    main()
