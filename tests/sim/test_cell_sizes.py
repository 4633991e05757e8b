"""The same workload at 4, 16 and 64 KiB cells: completion within 5%, drops within 10%.

InfiniBand, RoCE with PFC only, RoCE with DCQCN and lossy Ethernet (TCP, SACK) on the incast,
parking-lot and (small) demo scenarios of examples/scenarios.  The 4 KiB run is the reference:
with the 4096-byte MTU a cell is one packet, so it is a packet-level run.  DCQCN reacts to a
handful of randomly drawn CNPs, so its completion is judged on the median of three seeds, each
with the flows' start times jittered by up to 2 us; the other fabrics are deterministic and run
once.  benchmarks/cells.py prints the long versions (the 8 x 16 MB incast of issue 9, the full
64-GPU demo).
"""

import random
import statistics
from functools import cache

import pytest

from fabricstudio.formats import load_design
from fabricstudio.sim import Scenario, build_simulation, load_scenario
from tests.sim.test_examples_scenarios import FOLDER

#: scenario -> design
CASES = {
    "incast8": "incast8",
    "parking-lot": "parking-lot",
    "demo-small-training-incast": "demo-rail16",
}
FABRICS = {
    "infiniband": {"technology": "infiniband"},
    "roce-pfc": {"technology": "roce", "dcqcn": False},
    "roce-dcqcn": {"technology": "roce", "dcqcn": True},
    "ethernet": {"technology": "ethernet"},
}
CELLS = (4096, 16384, 65536)


def jittered(scenario: Scenario, seed: int) -> Scenario:
    """``scenario`` with its seed and flow/incast start times shifted by up to 2 us."""
    rng = random.Random(seed)
    data = scenario.model_dump()
    for flow in data["flows"]:
        flow["start_s"] += rng.uniform(0, 2e-6)
    for workload in data["workloads"]:
        if workload["type"] == "incast":
            workload["start_s"] += rng.uniform(0, 2e-6)
    data["seed"] = seed
    return Scenario.model_validate(data)


@cache
def run(case: str, fabric: str, cell: int, seed: int) -> tuple[float, int]:
    """(completion time, packets dropped) of one run."""
    scenario = load_scenario(FOLDER / f"{case}.scenario.json")
    if seed:
        scenario = jittered(scenario, seed)
    scenario = scenario.with_changes(cell_bytes=cell, **FABRICS[fabric])
    result = build_simulation(load_design(FOLDER / f"{CASES[case]}.design.json"),
                              scenario).run()
    assert result.completion_time_s is not None, f"{case} on {fabric} did not finish"
    return result.completion_time_s, result.totals.drops


def figures(case: str, fabric: str, cell: int) -> tuple[float, float]:
    """Completion (median over seeds for DCQCN) and drops (mean) at one cell size."""
    seeds = (1, 2, 3) if fabric == "roce-dcqcn" else (0,)
    runs = [run(case, fabric, cell, seed) for seed in seeds]
    return (statistics.median(r[0] for r in runs), statistics.mean(r[1] for r in runs))


@pytest.mark.slow
@pytest.mark.parametrize("fabric", list(FABRICS))
@pytest.mark.parametrize("case", list(CASES))
def test_results_do_not_depend_on_the_cell_size(case, fabric):
    reference_time, reference_drops = figures(case, fabric, 4096)
    for cell in CELLS[1:]:
        time_s, drops = figures(case, fabric, cell)
        assert time_s == pytest.approx(reference_time, rel=0.05), (
            f"{case}, {fabric}: {cell} B cells finish at {time_s * 1e3:.3f} ms, "
            f"packet level at {reference_time * 1e3:.3f} ms")
        assert drops == pytest.approx(reference_drops, rel=0.10, abs=2), (
            f"{case}, {fabric}: {drops:.0f} drops at {cell} B cells, "
            f"{reference_drops:.0f} at packet level")
    if fabric == "ethernet":  # the story: only the lossy fabric drops
        assert reference_drops > 0
    else:
        assert reference_drops == 0
