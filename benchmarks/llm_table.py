"""Published training efficiency vs the llm_training workload (docs/llm.md's table).

Each row: the configuration a paper reports, simulated at flow level on a generated
rail-optimised fabric of its size (8 GPUs and 8 NICs per server, radix-64 switches, the
paper's NIC speed and technology), with ONE compute efficiency for every row (never tuned
per row).  Prints the published figure next to ours, and our iteration breakdown.

Usage: python benchmarks/llm_table.py [--efficiency 0.6] [--rows 1 2 ...] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from typing import Any

from fabricstudio.model import Technology
from fabricstudio.sim import Scenario, build_simulation
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric

#: (label, source, published figure, kind of figure, GPUs, NIC Gb/s, technology, workload)
ROWS: list[tuple[str, str, float, str, int, float, Technology, dict[str, Any]]] = [
    ("GPT-3 175B, 1,024 A100", "Narayanan et al. 2021, sec. 5.1 (estimate for GPT-3)", 140.0,
     "hw", 1024, 200.0, Technology.INFINIBAND,
     {"model": "gpt3-175b", "gpu": "a100", "seq_len": 2048, "global_batch": 1536,
      "tp": 8, "pp": 16, "recompute": "full", "zero": 0}),
    ("GPT-3 175B, 1,536 A100", "Narayanan et al. 2021, Table 1", 153.0, "hw", 1536, 200.0,
     Technology.INFINIBAND,
     {"model": "gpt3-175b", "gpu": "a100", "seq_len": 2048, "global_batch": 1536,
      "tp": 8, "pp": 16, "recompute": "full", "zero": 0}),
    ("Llama 3 405B, 8,192 H100", "Llama 3 paper, Table 4 (43% MFU)", 430.0, "model", 8192,
     400.0, Technology.ROCE,
     {"model": "llama3-405b", "gpu": "h100", "seq_len": 8192, "global_batch": 2048,
      "tp": 8, "pp": 16, "zero": 1}),
    ("Llama 3 405B, 16,384 H100", "Llama 3 paper, Table 4 (41% MFU)", 400.0, "model", 16384,
     400.0, Technology.ROCE,
     {"model": "llama3-405b", "gpu": "h100", "seq_len": 8192, "global_batch": 2048,
      "tp": 8, "pp": 16, "zero": 1}),
    ("Llama 3 405B, 16,384 H100, 128k context", "Llama 3 paper, Table 4 (38% MFU)", 380.0,
     "model", 16384, 400.0, Technology.ROCE,
     {"model": "llama3-405b", "gpu": "h100", "seq_len": 131072, "global_batch": 128,
      "tp": 8, "pp": 16, "cp": 16, "zero": 1}),
]


def measure(row: int, efficiency: float) -> dict[str, Any]:
    """Run one row in this process."""
    label, source, published, kind, gpus, nic, tech, workload = ROWS[row]
    t0 = time.process_time()
    spec = RailOptimizedSpec(gpus=gpus, technology=tech, nic_speed_gbps=nic,
                             port_speed_gbps=nic)
    design = build_fabric(spec).to_design()
    scenario = Scenario.model_validate({"engine": "flow", "workloads": [
        {"type": "llm_training", "compute_efficiency": efficiency, **workload}]})
    sim = build_simulation(design, scenario, max_cell_hops=None)
    result = sim.run()
    cpu = time.process_time() - t0
    t = result.llm_training
    assert t is not None and t.iteration_time_s is not None
    model_tflops = t.model_tflops_per_gpu or 0.0
    recompute = workload.get("recompute") == "full"
    hw = model_tflops * (4 / 3 if recompute else 1.0)  # Megatron reports hardware FLOPs
    return {"row": row, "label": label, "source": source, "published": published,
            "kind": kind, "ours": hw if kind == "hw" else model_tflops,
            "mfu": t.mfu, "iteration_s": t.iteration_time_s,
            "ideal_s": t.ideal.iteration_time_s, "tax": t.network_tax_fraction,
            "bubble_s": t.bubble_s, "exposed": t.exposed_comm_s, "cpu_s": cpu,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "parallel": t.parallelism, "nic": nic, "tech": tech.value}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--efficiency", type=float, default=0.6)
    parser.add_argument("--rows", type=int, nargs="+", default=list(range(len(ROWS))))
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--markdown", action="store_true", help="print a docs table")
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(measure(args.one, args.efficiency)))
        return
    results = []
    for row in args.rows:
        out = subprocess.run([sys.executable, __file__, "--one", str(row), "--efficiency",
                              str(args.efficiency)], capture_output=True, text=True,
                             check=False)
        if out.returncode:
            print(f"row {row} failed: {out.stderr.strip().splitlines()[-1]}")
            continue
        results.append(json.loads(out.stdout))
    if args.markdown:
        print("| configuration | published | ours | iteration | ideal | network tax | "
              "bubble | exposed comm. (TP/PP/DP/CP) | source |")
        print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        what = "TFLOP/s/GPU (hardware)" if r["kind"] == "hw" else "TFLOP/s/GPU (model)"
        e = r["exposed"]
        comm = "/".join(f"{e[k]:.2f}" for k in ("tp", "pp", "dp", "cp"))
        if args.markdown:
            print(f"| {r['label']} ({r['tech']} {r['nic']:.0f}G; "
                  f"{_parallel(r['parallel'])}) | {r['published']:.0f} {what} | "
                  f"{r['ours']:.0f} (MFU {r['mfu'] * 100:.1f}%) | {r['iteration_s']:.2f} s | "
                  f"{r['ideal_s']:.2f} s | {r['tax'] * 100:.1f}% | {r['bubble_s']:.2f} s | "
                  f"{comm} s | {r['source']} |")
        else:
            print(f"{r['label']:45} published {r['published']:5.0f} ours {r['ours']:5.0f} "
                  f"{what:24} MFU {r['mfu'] * 100:5.1f}%  iteration {r['iteration_s']:.2f} s "
                  f"ideal {r['ideal_s']:.2f} s tax {r['tax'] * 100:4.1f}%  bubble "
                  f"{r['bubble_s']:.2f} s  exposed TP/PP/DP/CP {comm} s  "
                  f"cpu {r['cpu_s']:.0f} s  peak {r['peak_mb']:.0f} MB")
    print(f"compute efficiency {args.efficiency} for every row")


def _parallel(p: dict[str, Any]) -> str:
    parts = [f"TP {p['tp']}", f"PP {p['pp']}", f"DP {p['dp']}"]
    if p["cp"] > 1:
        parts.append(f"CP {p['cp']}")
    parts.append(f"{p['global_batch']} x {p['seq_len']:,} tokens")
    return ", ".join(parts)


if __name__ == "__main__":
    main()
