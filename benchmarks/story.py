"""The story in numbers (docs/simulation.md section 6): the 64-GPU demo on the four fabrics at
4, 16 and 64 KiB cells, and without its burst.

Run::

    python benchmarks/story.py [--save FILE.json [--resume]] [--load FILE.json]
                               [--update-doc] [--cells 4096,16384,65536]

Runs ``examples/scenarios/demo-training-incast.scenario.json`` on ``demo-rail64.design.json``
(seed 1, the defaults of ``FabricSettings``) on InfiniBand, RoCE + DCQCN, RoCE with PFC only
and lossy Ethernet at each cell size, then each fabric without the burst at 16 KiB, and lossy
Ethernet with classic NewReno (no SACK) at 16 KiB; prints one Markdown table.  ``--save``
keeps the measured rows as JSON (``--resume`` runs only the rows it lacks), ``--load``
renders saved rows without running, ``--update-doc`` writes the table between the
``story:begin`` / ``story:end`` markers of docs/simulation.md (the section is never typed by
hand).  Lossy Ethernet runs TCP packet by packet whatever the cell size, so each of its runs
takes minutes.  Asserts nothing.
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
DOC = ROOT / "docs" / "simulation.md"
BEGIN, END = "<!-- story:begin (benchmarks/story.py --update-doc) -->", "<!-- story:end -->"
FABRICS: dict[str, dict[str, Any]] = {
    "InfiniBand (credits, D-mod-K)": {"technology": "infiniband"},
    "RoCE + PFC + ECN/DCQCN": {"technology": "roce", "dcqcn": True},
    "RoCE, PFC only": {"technology": "roce", "dcqcn": False},
    "lossy Ethernet (TCP, SACK/RACK-TLP)": {"technology": "ethernet"},
}
#: variants run at the default 16 KiB cells only: classic TCP's recovery
EXTRA: dict[str, dict[str, Any]] = {
    "lossy Ethernet, NewReno (no SACK)": {"technology": "ethernet", "transport": "newreno"},
}
ALL = FABRICS | EXTRA


def demo(burst: bool) -> Scenario:
    """The demo scenario, with or without its MoE burst."""
    scenario = load_scenario(FOLDER / "demo-training-incast.scenario.json")
    if burst:
        return scenario
    training = [w for w in scenario.model_dump()["workloads"] if w["type"] == "training"]
    return scenario.with_changes(workloads=training)


def measure(fabric: str, cell: int, burst: bool) -> dict[str, Any]:
    """One run's figures (times in ms)."""
    scenario = demo(burst).with_changes(cell_bytes=cell, **ALL[fabric])
    started = time.perf_counter()
    result = build_simulation(load_design(FOLDER / "demo-rail64.design.json"), scenario).run()
    wall = time.perf_counter() - started
    t, training = result.totals, result.training
    assert training is not None
    row = {"fabric": fabric, "cell": cell, "burst": burst, "iterations": training.iterations,
           "step_ms": training.step_time_s * 1e3, "utilisation": training.gpu_utilisation,
           "exposed_ms": training.exposed_comm_s * 1e3, "drops": t.drops,
           "retransmitted_bytes": t.retransmitted_bytes, "timeouts": t.timeouts,
           "fast_retransmits": t.fast_retransmits, "pauses": t.pfc_pauses, "cnps": t.cnps,
           "wall_s": wall}
    print(f"  {fabric}, {cell} B, burst={burst}: {wall:.0f} s", file=sys.stderr, flush=True)
    return row


def run_all(cells: list[int], save: Path | None, resume: bool) -> list[dict[str, Any]]:
    """Every fabric at every cell size with the burst, then at 16 KiB without it, then the
    extra variants (saved to ``save`` after every run, so an interrupted run keeps what it
    measured; ``resume`` skips the points ``save`` already holds)."""
    points = [(fabric, cell, True) for cell in cells for fabric in FABRICS]
    points += [(fabric, 16384, False) for fabric in FABRICS]
    points += [(fabric, 16384, True) for fabric in EXTRA]
    rows: list[dict[str, Any]] = []
    if resume and save is not None and save.exists():
        rows = json.loads(save.read_text(encoding="utf-8"))
    done = {(r["fabric"], r["cell"], r["burst"]) for r in rows}
    for point in points:
        if point in done:
            continue
        rows.append(measure(*point))
        if save:
            save.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return rows


def resent_bytes(row: dict[str, Any]) -> int:
    """Bytes retransmitted in a row (rows saved before kept them as decimal MB at full float
    precision, so the count is recovered exactly)."""
    if "retransmitted_bytes" in row:
        return int(row["retransmitted_bytes"])
    return round(row["retransmitted_mb"] * 1e6)


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as one Markdown table, fabric by fabric."""
    lines = ["| fabric | cell | burst | step time | GPU utilisation | exposed comm. | drops | "
             "retransmitted | timeouts | fast retransmits | PAUSEs | CNPs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    lossless = ("InfiniBand", "RoCE")
    for fabric in ALL:
        for r in sorted((r for r in rows if r["fabric"] == fabric),
                        key=lambda r: (not r["burst"], r["cell"])):
            pauses = f"{r['pauses']:,}" if fabric.startswith("RoCE") else "-"
            cnps = f"{r['cnps']:,}" if "DCQCN" in fabric else "-"
            tcp = not fabric.startswith(lossless)
            lines.append(
                f"| {fabric} | {r['cell'] // 1024} KiB | {'yes' if r['burst'] else 'no'} | "
                f"{r['step_ms']:.2f} ms | **{r['utilisation'] * 100:.1f}%** | "
                f"{r['exposed_ms']:.2f} ms | {r['drops']:,} | {format_bytes(resent_bytes(r))} | "
                f"{r['timeouts']} | {r['fast_retransmits'] if tcp else '-'} | {pauses} | "
                f"{cnps} |")
    return "\n".join(lines)


def update_doc(text: str) -> None:
    """Put ``text`` between the markers of docs/simulation.md."""
    doc = DOC.read_text(encoding="utf-8")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=Path, help="write the measured rows to this JSON file")
    parser.add_argument("--load", type=Path, help="render rows saved by --save, run nothing")
    parser.add_argument("--resume", action="store_true",
                        help="keep the rows --save already holds, run only the missing ones")
    parser.add_argument("--update-doc", action="store_true",
                        help="write the table into docs/simulation.md section 6")
    parser.add_argument("--cells", default="4096,16384,65536",
                        help="comma-separated cell sizes in bytes")
    args = parser.parse_args()
    if args.load:
        rows = json.loads(args.load.read_text(encoding="utf-8"))
    else:
        rows = run_all([int(c) for c in args.cells.split(",")], args.save, args.resume)
    text = table(rows)
    print(text)
    if args.update_doc:
        update_doc(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
