"""Cell-size agreement, long versions: the same workloads at 4, 16 and 64 KiB cells on every
fabric (tests/sim/test_cell_sizes.py runs short ones and asserts them).

Run::

    python benchmarks/cells.py [--case examples|incast|parking|demo|transports|all] [--seeds N]
                               [--dcqcn-seeds N]

``examples`` - every (scenario, fabric) pair of the agreement test on the short example
scenarios (incast8, parking-lot, demo-small-training-incast x four fabrics, and
dcqcn-incast7 on RoCE + DCQCN: thirteen in all), judged by the test's own functions and
tolerances; the suite runs a subset of them.  DCQCN reacts to randomly drawn marks, so its
pairs compare the median completion and mean CNPs over ``--dcqcn-seeds`` seeds (15; the
suite uses 3), and print the packet-level spread over the seeds and the median's shift with
its bootstrap standard error: a shift within about two standard errors is the seeds, not
the cell size;
``incast`` - the reference cases of issue 9, 8 x 16 MB into one 100G port of a 1 MB
switch (1 us per hop); ``parking`` - the parking lot with 32 MB per flow; ``demo`` - the full
64-GPU demo (two training steps meeting a 7:1 MoE burst, docs/simulation.md section 6);
``transports`` - the 8 x 16 MB incast on lossy Ethernet with NewReno, SACK and DCTCP.  The
4 KiB run is packet level (one 4096-byte MTU per cell): the reference.  Prints a table of
completion time, drops and retransmission timeouts, and the largest deviation from the
reference per row; exits 1 if an ``examples`` pair disagrees beyond the test's tolerances.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fabricstudio.formats import load_design  # noqa: E402
from fabricstudio.sim import Scenario, build_simulation, load_scenario  # noqa: E402

FOLDER = ROOT / "examples" / "scenarios"
CELLS = (4096, 16384, 65536)
FABRICS = {
    "InfiniBand": {"technology": "infiniband"},
    "RoCE + DCQCN": {"technology": "roce", "dcqcn": True},
    "RoCE, PFC only": {"technology": "roce", "dcqcn": False},
    "lossy Ethernet": {"technology": "ethernet"},
}


def scenario(case: str) -> tuple[str, Scenario]:
    """(design file stem, scenario) of a case."""
    if case == "incast":
        base = load_scenario(FOLDER / "incast8.scenario.json")
        flows = [dict(f.model_dump(), bytes=16_000_000) for f in base.flows]
        return "incast8", base.with_changes(flows=flows, name="8 x 16 MB incast, 1 MB switch")
    if case == "parking":
        base = load_scenario(FOLDER / "parking-lot.scenario.json")
        flows = [dict(f.model_dump(), bytes=32_000_000) for f in base.flows]
        return "parking-lot", base.with_changes(flows=flows)
    return "demo-rail64", load_scenario(FOLDER / "demo-training-incast.scenario.json")


def measure(design: str, base: Scenario, changes: dict, seeds: int) -> tuple[float, float, float]:
    """Median completion (ms), mean drops and mean timeouts over ``seeds`` seeds."""
    runs = []
    for seed in range(1, seeds + 1):
        s = base.with_changes(seed=seed, **changes)
        result = build_simulation(load_design(FOLDER / f"{design}.design.json"), s).run()
        done = result.completion_time_s
        runs.append((done * 1e3 if done is not None else float("nan"), result.totals.drops,
                     result.totals.timeouts))
    return (statistics.median(r[0] for r in runs), statistics.mean(r[1] for r in runs),
            statistics.mean(r[2] for r in runs))


def table(case: str, rows: dict[str, dict], seeds: int) -> None:
    design, base = scenario(case)
    print(f"\n{base.name} ({design}); median of {seeds} seed(s); 4 KiB = packet level")
    print(f"{'fabric':28s}" + "".join(f"{c // 1024:>3d} KiB: ms / drops / RTOs    "
                                       for c in CELLS) + "max deviation")
    for label, changes in rows.items():
        started = time.perf_counter()
        figures = [measure(design, base, dict(changes, cell_bytes=c), seeds) for c in CELLS]
        ref = figures[0]
        worst_t = max(abs(f[0] / ref[0] - 1) for f in figures[1:])
        worst_d = max(abs(f[1] / ref[1] - 1) for f in figures[1:]) if ref[1] else 0.0
        cells = "".join(f"{t:9.3f} / {d:6.0f} / {r:3.0f}     " for t, d, r in figures)
        print(f"{label:28s}{cells}time {worst_t * 100:4.1f}%, drops {worst_d * 100:4.1f}% "
              f"({time.perf_counter() - started:.0f} s)", flush=True)


def median_shift(reference: list[float], other: list[float], draws: int = 2000
                 ) -> tuple[float, float]:
    """Shift of the median of ``other`` from the median of ``reference`` (relative) and its
    standard error from a bootstrap over the seeds (fixed generator: reproducible)."""
    rng = random.Random(0)
    ref = statistics.median(reference)
    shift = statistics.median(other) / ref - 1
    boot = [statistics.median(rng.choices(other, k=len(other)))
            / statistics.median(rng.choices(reference, k=len(reference))) - 1
            for _ in range(draws)]
    return shift, statistics.stdev(boot)


def examples(dcqcn_seeds: int) -> int:
    """The agreement test's pairs, DCQCN over ``dcqcn_seeds`` seeds (the suite takes three);
    the number of pairs that disagree."""
    from tests.sim import test_cell_sizes as agreement

    seeds = tuple(range(1, dcqcn_seeds + 1))
    print("\nshort example scenarios, the agreement test's criteria (completion 5%, drops 10% "
          "or 2, DCQCN CNPs and PFC-only ECN marks 15% or 5 of the 4 KiB run); ms / drops / "
          f"CNPs at 4, 16, 64 KiB; DCQCN: median completion and mean CNPs of seeds 1-"
          f"{dcqcn_seeds}")
    failed = 0
    for case, fabric in agreement.PAIRS:
        started = time.perf_counter()
        figures = [agreement.figures(case, fabric, cell, seeds) for cell in agreement.CELLS]
        problems = agreement.disagreement(case, fabric, seeds)
        failed += bool(problems)
        cells = "".join(f"{t * 1e3:8.3f} / {d:5.0f} / {c:4.0f}   " for t, d, c, _ in figures)
        suite = "suite" if (case, fabric) in agreement.SUITE else "bench"
        print(f"{case:28s} {fabric:11s} {cells}{'FAIL' if problems else 'ok':4s} {suite} "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
        if fabric == "roce-dcqcn":  # how far the seeds alone move the median
            times = {cell: [agreement.run(case, fabric, cell, seed)[0] for seed in seeds]
                     for cell in agreement.CELLS}
            ref = times[agreement.CELLS[0]]
            shifts = [median_shift(ref, times[cell]) for cell in agreement.CELLS[1:]]
            print(f"    seeds at 4 KiB: {min(ref) * 1e3:.3f}-{max(ref) * 1e3:.3f} ms; median "
                  "shift at 16 / 64 KiB: " + " / ".join(
                      f"{m * 100:+.1f}% (bootstrap s.e. {e * 100:.1f}%)" for m, e in shifts))
        for problem in problems:
            print(f"    {problem}")
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="all", choices=[
        "examples", "incast", "parking", "demo", "transports", "all"])
    parser.add_argument("--seeds", type=int, default=1, help="seeds per point (median)")
    parser.add_argument("--dcqcn-seeds", type=int, default=15,
                        help="seeds per DCQCN point of --case examples (median; the suite: 3)")
    args = parser.parse_args()
    cases = (["examples", "incast", "parking", "transports", "demo"] if args.case == "all"
             else [args.case])
    failed = 0
    for case in cases:
        if case == "examples":
            failed += examples(args.dcqcn_seeds)
        elif case == "transports":
            table("incast", {f"lossy Ethernet, {t}": {"technology": "ethernet", "transport": t}
                             for t in ("newreno", "sack", "dctcp")}, args.seeds)
        else:
            table(case, FABRICS, args.seeds)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
