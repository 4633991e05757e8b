"""The figures the README and the user guide quote from the bundled demos, as the app shows
them: each demo compared on the four fabrics (what Compare fabrics runs, the scenario file's
own seed and cell size), with the Compare panel's explanation and the captions of each run.

Run::

    python benchmarks/demo_figures.py [--demo NAME,...]

NAME: moe-dispatch, training-incast, training-incast-auto, moe-variants, dcqcn-seeds
(default: all).

``training-incast-auto`` is the burst demo with ``"algorithm": "auto"`` (NCCL's choice: a
tree at this size); ``moe-variants`` runs the MoE demo's test cut (one short step, as
tests/sim/test_moe_story.py) on lossy Ethernet with NewReno and with DCTCP, and with the four
hot experts on four different leaves; ``dcqcn-seeds`` runs the burst demo on RoCE + DCQCN
at 4, 16 and 64 KiB cells with seeds 1-3 (DCQCN moves with the seed there).  Prints
Markdown; asserts nothing.  The MoE demo's
cell-size and seed table is benchmarks/moe_story.py's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fabricstudio.formats import load_design  # noqa: E402
from fabricstudio.model.units import format_bytes  # noqa: E402
from fabricstudio.sim import Scenario, load_scenario  # noqa: E402
from fabricstudio.sim.explain import explain_fabrics  # noqa: E402
from fabricstudio.sim.recorded import RecordedRun, record_run  # noqa: E402
from fabricstudio.ui.simview.source import COMPARE_VARIANTS  # noqa: E402

FOLDER = ROOT / "examples" / "scenarios"
DESIGN = FOLDER / "demo-rail64.design.json"
DEMOS = {"moe-dispatch": "demo-moe-dispatch.scenario.json",
         "training-incast": "demo-training-incast.scenario.json",
         "training-incast-auto": "demo-training-incast.scenario.json"}


def scenario_of(demo: str) -> Scenario:
    """The demo's scenario file (``-auto``: its training lets NCCL's tuning pick)."""
    scenario = load_scenario(FOLDER / DEMOS[demo])
    if demo.endswith("-auto"):
        workloads = scenario.model_dump()["workloads"]
        for workload in workloads:
            if workload["type"] == "training":
                workload["algorithm"] = "auto"
        scenario = scenario.with_changes(workloads=workloads)
    return scenario


def run(scenario: Scenario, label: str) -> RecordedRun:
    """One headless run, recorded as the Compare panel records it."""
    started = time.perf_counter()
    record = record_run(load_design(DESIGN), scenario, label)
    print(f"  {label}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return record


def figures(record: RecordedRun) -> dict[str, Any]:
    """The figures quoted from one run."""
    result = record.result
    assert result is not None and result.training is not None
    t, training = result.totals, result.training
    return {"utilisation": f"{training.gpu_utilisation * 100:.1f}%",
            "step": f"{training.step_time_s * 1e3:.2f} ms",
            "dispatch": (f"{training.dispatch_time_s * 1e3:.2f} ms"
                         if training.dispatch_time_s is not None else "-"),
            "completion": f"{result.completion_time_s * 1e3:.3f} ms",
            "drops": f"{t.drops:,}", "resent": format_bytes(t.retransmitted_bytes),
            "probes / timeouts": f"{t.tail_loss_probes} / {t.timeouts}",
            "fast retransmits": f"{t.fast_retransmits:,}", "PAUSEs": f"{t.pfc_pauses:,}",
            "CNPs": f"{t.cnps:,}", "ECN marks": f"{t.ecn_marks:,}"}


def compare(demo: str) -> None:
    """The demo on the four fabrics: a table, the explanation, each run's captions."""
    base = scenario_of(demo)
    records = {label: run(base.with_changes(technology=technology, dcqcn=dcqcn), label)
               for label, technology, dcqcn in COMPARE_VARIANTS}
    rows = {label: figures(r) for label, r in records.items()}
    keys = list(next(iter(rows.values())))
    print(f"\n## {demo} (seed {base.seed}, {base.cell_bytes // 1024} KiB cells)\n")
    print("| fabric | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for label, row in rows.items():
        print(f"| {label} | " + " | ".join(str(row[k]) for k in keys) + " |")
    facts = {label: r.facts for label, r in records.items() if r.facts is not None}
    print("\nExplanation: " + " ".join(explain_fabrics(facts)))
    for label, record in records.items():
        print(f"\nCaptions, {label}:")
        for caption in record.captions:
            print(f"- {caption.start_s * 1e3:.3f} ms: {caption.text}")


def moe_variants() -> None:
    """The MoE test cut with other transports, and with the hot experts spread out."""
    scenario = load_scenario(FOLDER / DEMOS["moe-dispatch"])
    workloads = scenario.model_dump()["workloads"]
    workloads[0].update(gradient_bytes=2**20, compute_s=2e-4, iterations=1)
    cut = scenario.with_changes(workloads=workloads, sample_period_s=1e-4)
    spread = [dict(w) for w in workloads]
    spread[0]["expert_dispatch"] = dict(spread[0]["expert_dispatch"],
                                        experts=[f"server{i + 1}/gpu{i}" for i in range(4)])
    variants = {
        "lossy Ethernet, SACK (default)": cut.with_changes(technology="ethernet"),
        "lossy Ethernet, NewReno": cut.with_changes(technology="ethernet", transport="newreno"),
        "lossy Ethernet, DCTCP": cut.with_changes(technology="ethernet", transport="dctcp"),
        "lossy Ethernet, experts on 4 leaves": cut.with_changes(technology="ethernet",
                                                                workloads=spread),
    }
    print(f"\n## moe-variants (the test's one-step cut, seed {scenario.seed})\n")
    print("| variant | dispatch | drops | resent | probes / timeouts |")
    print("|---|---|---|---|---|")
    for label, variant in variants.items():
        row = figures(run(variant, label))
        print(f"| {label} | {row['dispatch']} | {row['drops']} | {row['resent']} | "
              f"{row['probes / timeouts']} |")


def dcqcn_seeds() -> None:
    """The burst demo's GPU utilisation on RoCE + DCQCN over cells and seeds, with medians."""
    from statistics import median

    base = scenario_of("training-incast")
    cells, seeds = (4096, 16384, 65536), (1, 2, 3)
    table = {(cell, seed): figures(run(base.with_changes(technology="roce", dcqcn=True,
                                                         cell_bytes=cell, seed=seed),
                                       f"RoCE + DCQCN, {cell} B, seed {seed}"))["utilisation"]
             for cell in cells for seed in seeds}
    print("\n## dcqcn-seeds (training-incast, RoCE + DCQCN, GPU utilisation)\n")
    print("| cell | " + " | ".join(f"seed {s}" for s in seeds) + " | median |")
    print("|---" * (len(seeds) + 2) + "|")
    for cell in cells:
        values = [table[cell, seed] for seed in seeds]
        middle = median(float(v.rstrip("%")) for v in values)
        print(f"| {cell // 1024} KiB | " + " | ".join(values) + f" | {middle:.1f}% |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", default="moe-dispatch,training-incast,training-incast-auto,"
                        "moe-variants,dcqcn-seeds", help="comma-separated: which figures to run")
    args = parser.parse_args()
    for demo in args.demo.split(","):
        if demo == "moe-variants":
            moe_variants()
        elif demo == "dcqcn-seeds":
            dcqcn_seeds()
        elif demo in DEMOS:
            compare(demo)
        else:
            parser.error(f"unknown demo {demo!r} (choose from {', '.join(DEMOS)}, "
                         "moe-variants, dcqcn-seeds)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
