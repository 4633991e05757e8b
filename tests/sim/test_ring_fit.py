"""The pre-check (sim.workloads.ring_fit.arrays_precheck) gives the engine's own answer.

Each case builds the plan from the design alone and runs the scenario on the cell engine:
the plan the engine builds when the phase starts must equal the pre-check's (routes, port and
switch figures), and so must the decision and its reason - on runs the arrays take and on
runs they leave to the per-cell engine.
"""

from __future__ import annotations

from typing import Any

import pytest

from fabricstudio.model import Technology
from fabricstudio.sim import Scenario, build_simulation
from fabricstudio.sim.workloads import ring_arrays
from fabricstudio.sim.workloads.ring_fit import FITS, NOT_SEALED, arrays_precheck, design_plans
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric


def _case(gpus: int, size: int, cell: int, spec_fabric: dict[str, Any] | None = None,
          technology: Technology = Technology.ROCE, **scenario: Any) -> tuple[Any, Scenario]:
    design = build_fabric(RailOptimizedSpec(gpus=gpus, technology=technology,
                                            **(spec_fabric or {}))).to_design()
    workload = {"type": "all_reduce", "size_bytes": size, "algorithm": "ring"}
    workload.update(scenario.pop("workload", {}))
    spec = {"engine": "cell", "cell_bytes": cell, "workloads": [workload], **scenario}
    return design, Scenario.model_validate(spec)


def _runtime(design: Any, scenario: Scenario, monkeypatch: pytest.MonkeyPatch
             ) -> tuple[bool, str | None, list[Any]]:
    """Run the scenario; (arrays taken, first reason given, plans the engine built)."""
    plans: list[Any] = []
    real = ring_arrays.engine_plan

    def record(*args: Any) -> Any:
        plans.append(real(*args))
        return plans[-1]

    monkeypatch.setattr(ring_arrays, "engine_plan", record)
    sim = build_simulation(design, scenario)
    sim.run()
    log = sim.engine.ring_arrays  # type: ignore[union-attr]
    reasons = [why for why in log if why is not None]
    return bool(log) and not reasons, reasons[0] if reasons else None, plans


CASES = {
    "lone ring": (16, 2 * 2**20, 65536, {}, Technology.ROCE, {}),
    "ring via spines": (128, 4 * 2**20, 16384, {"servers_per_su": 4}, Technology.ROCE, {}),
    "ECMP collision": (128, 2 * 2**20, 65536, {"servers_per_su": 2, "tiers": 3},
                       Technology.ROCE, {}),
    "multi-cell units": (16, 64 * 2**20, 16384, {}, Technology.ROCE, {}),
    "InfiniBand": (16, 2 * 2**20, 65536, {}, Technology.INFINIBAND, {}),
    "InfiniBand CC": (16, 2 * 2**20, 65536, {}, Technology.INFINIBAND,
                      {"fabric": {"infiniband": {"congestion_control": True}}}),
    "RoCE without PFC": (16, 2 * 2**20, 65536, {}, Technology.ROCE,
                         {"fabric": {"pfc": {"enabled": False}}}),
    "ECN could mark": (16, 2 * 2**20, 65536, {}, Technology.ROCE,
                       {"fabric": {"ecn": {"kmin_bytes_at_100g": 4096,
                                           "kmax_bytes_at_100g": 8192}}}),
    "adaptive": (16, 2 * 2**20, 65536, {}, Technology.ROCE, {"routing": "adaptive"}),
    "tree": (16, 2 * 2**20, 65536, {}, Technology.ROCE, {"workload": {"algorithm": "tree"}}),
}
EXPECTED = {"lone ring": None, "ring via spines": None,
            "ECMP collision": None,  # (shared links are served first come, first served)
            "multi-cell units": "units of more than one cell",
            "InfiniBand": None,  # (credits never run short)
            "InfiniBand CC": "InfiniBand congestion control paces the flows",
            "RoCE without PFC": ("only RoCE with PFC or InfiniBand, no in-band control frames, "
                                 "no failures"),
            "ECN could mark": "ECN could mark",
            "adaptive": "flows with their own pacing or adaptive routing",
            "tree": "a tree or a ring inside one server in the phase"}


@pytest.mark.parametrize("name", list(CASES))
def test_precheck_is_the_runtime_decision(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    gpus, size, cell, fabric, tech, extra = CASES[name]
    design, scenario = _case(gpus, size, cell, fabric, tech, **extra)
    applies, reason = arrays_precheck(design, scenario)
    taken, why, plans = _runtime(design, scenario, monkeypatch)
    assert plans == design_plans(design, scenario)  # the same facts, route for route
    assert (applies, reason if not applies else None) == (taken, why)
    assert why == EXPECTED[name]
    assert reason == (FITS if taken else why)


def test_unsealed_runs_are_cell_by_cell() -> None:
    design, scenario = _case(16, 2 * 2**20, 65536, until_s=1e-5)
    assert arrays_precheck(design, scenario) == (False, NOT_SEALED)
    sim = build_simulation(design, scenario)
    assert not sim.engine.sole_traffic  # type: ignore[union-attr]
    design, scenario = _case(16, 2 * 2**20, 65536, workload={"type": "all_to_all",
                                                            "algorithm": "auto"})
    assert arrays_precheck(design, scenario)[0] is False
