"""The MoE demo in numbers: an expert dispatch that overloads four experts, on the four
fabrics, at 4, 16 and 64 KiB cells and over several seeds.

Run::

    python benchmarks/moe_story.py [--save FILE.json [--resume]] [--load FILE.json]
                                   [--cells 4096,16384,65536] [--seeds 1,2,3]

Runs ``examples/scenarios/demo-moe-dispatch.scenario.json`` on ``demo-rail64.design.json``
(the defaults of ``FabricSettings``: TCP with SACK and RACK-TLP, 10 ms minimum RTO) on
InfiniBand, RoCE + DCQCN, RoCE with PFC only and lossy Ethernet at each cell size with seed 1,
and at 16 KiB with each other seed; then each fabric without the dispatch's imbalance (a dense
model) at 16 KiB, seed 1.  Prints one Markdown table (the README's and the user guide's
figures come from it).  ``--save`` keeps the rows as JSON after every run (``--resume`` runs
only the rows it lacks), ``--load`` renders saved rows.  Lossy Ethernet runs TCP packet by
packet whatever the cell size.  Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fabricstudio.formats import load_design  # noqa: E402
from fabricstudio.model.units import format_bytes  # noqa: E402
from fabricstudio.sim import Scenario, build_simulation, load_scenario  # noqa: E402

FOLDER = ROOT / "examples" / "scenarios"
FABRICS: dict[str, dict[str, Any]] = {
    "InfiniBand": {"technology": "infiniband"},
    "RoCE + DCQCN": {"technology": "roce", "dcqcn": True},
    "RoCE, PFC only": {"technology": "roce", "dcqcn": False},
    "lossy Ethernet": {"technology": "ethernet"},
}


def demo(dispatch: bool) -> Scenario:
    """The MoE demo scenario, or the same training as a dense model (no token dispatch)."""
    scenario = load_scenario(FOLDER / "demo-moe-dispatch.scenario.json")
    if dispatch:
        return scenario
    workloads = scenario.model_dump()["workloads"]
    for workload in workloads:
        workload.pop("expert_dispatch", None)
    return scenario.with_changes(workloads=workloads)


def measure(fabric: str, cell: int, seed: int, dispatch: bool) -> dict[str, Any]:
    """One run's figures (times in ms)."""
    scenario = demo(dispatch).with_changes(cell_bytes=cell, seed=seed, **FABRICS[fabric])
    started = time.perf_counter()
    result = build_simulation(load_design(FOLDER / "demo-rail64.design.json"), scenario).run()
    wall = time.perf_counter() - started
    t, training = result.totals, result.training
    assert training is not None
    dispatch_ms = (training.dispatch_time_s * 1e3
                   if training.dispatch_time_s is not None else None)
    row = {"fabric": fabric, "cell": cell, "seed": seed, "dispatch": dispatch,
           "iterations": training.iterations, "step_ms": training.step_time_s * 1e3,
           "dispatch_ms": dispatch_ms, "utilisation": training.gpu_utilisation,
           "drops": t.drops, "retransmitted_bytes": t.retransmitted_bytes,
           "fast_retransmits": t.fast_retransmits, "loss_probes": t.tail_loss_probes,
           "timeouts": t.timeouts, "pauses": t.pfc_pauses, "cnps": t.cnps, "wall_s": wall}
    print(f"  {fabric}, {cell} B, seed {seed}, dispatch={dispatch}: {wall:.0f} s",
          file=sys.stderr, flush=True)
    return row


def points(cells: list[int], seeds: list[int]) -> list[tuple[str, int, int, bool]]:
    """(fabric, cell, seed, dispatch) of every run."""
    out = [(fabric, cell, seeds[0], True) for cell in cells for fabric in FABRICS]
    out += [(fabric, 16384, seed, True) for seed in seeds[1:] for fabric in FABRICS]
    out += [(fabric, 16384, seeds[0], False) for fabric in FABRICS]
    return out


def run_all(cells: list[int], seeds: list[int], save: Path | None,
            resume: bool) -> list[dict[str, Any]]:
    """Every point, saved after each run; ``resume`` skips those ``save`` already holds."""
    rows: list[dict[str, Any]] = []
    if resume and save is not None and save.exists():
        rows = json.loads(save.read_text(encoding="utf-8"))
    done = {(r["fabric"], r["cell"], r["seed"], r["dispatch"]) for r in rows}
    for point in points(cells, seeds):
        if point in done:
            continue
        rows.append(measure(*point))
        if save:
            save.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return rows


def _resent(row: dict[str, Any]) -> str:
    """Retransmitted bytes as the app writes them (rows saved before: decimal MB)."""
    if "retransmitted_bytes" in row:
        return format_bytes(row["retransmitted_bytes"])
    return format_bytes(row["retransmitted_mb"] * 1e6)


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as one Markdown table, fabric by fabric."""
    lines = ["| fabric | cell | seed | dispatch | step time | dispatch time | GPU utilisation | "
             "drops | retransmitted | loss probes | timeouts | PAUSEs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for fabric in FABRICS:
        for r in sorted((r for r in rows if r["fabric"] == fabric),
                        key=lambda r: (not r["dispatch"], r["seed"], r["cell"])):
            dispatch = f"{r['dispatch_ms']:.2f} ms" if r["dispatch_ms"] is not None else "-"
            pauses = f"{r['pauses']:,}" if fabric.startswith("RoCE") else "-"
            lines.append(
                f"| {fabric} | {r['cell'] // 1024} KiB | {r['seed']} | "
                f"{'4 hot experts' if r['dispatch'] else 'none (dense)'} | "
                f"{r['step_ms']:.2f} ms | {dispatch} | **{r['utilisation'] * 100:.1f}%** | "
                f"{r['drops']:,} | {_resent(r)} | {r['loss_probes']} | "
                f"{r['timeouts']} | {pauses} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=Path, help="write the measured rows to this JSON file")
    parser.add_argument("--load", type=Path, help="render rows saved by --save, run nothing")
    parser.add_argument("--resume", action="store_true",
                        help="keep the rows --save already holds, run only the missing ones")
    parser.add_argument("--cells", default="4096,16384,65536",
                        help="comma-separated cell sizes in bytes (seed 1 runs them all)")
    parser.add_argument("--seeds", default="1,2,3",
                        help="comma-separated seeds (the others run at 16 KiB)")
    args = parser.parse_args()
    if args.load:
        rows = json.loads(args.load.read_text(encoding="utf-8"))
    else:
        rows = run_all([int(c) for c in args.cells.split(",")],
                       [int(s) for s in args.seeds.split(",")], args.save, args.resume)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
