"""The fabric comparison of a proposal: one scenario run on each fabric of Compare fabrics
(InfiniBand, RoCE with and without DCQCN, lossy Ethernet), headless and in turn."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fabricstudio.model import Design
from fabricstudio.sim.money import training_utilisation
from fabricstudio.sim.result import Result
from fabricstudio.ui.panels.results_summary import figures
from fabricstudio.ui.simview.source import COMPARE_VARIANTS


@dataclass
class Outcome:
    """One fabric's run: its label and key figures (as the Compare panel shows them)."""

    label: str
    technology: str
    dcqcn: bool
    values: dict[str, Any] = field(default_factory=dict)
    utilisation: float | None = None
    gpus: int = 0


@dataclass
class Comparison:
    """The scenario's name and the fabrics' outcomes in COMPARE_VARIANTS order."""

    scenario: str
    workload: str
    outcomes: list[Outcome]

    def outcome(self, label: str) -> Outcome:
        """The outcome of the fabric ``label``."""
        return next(o for o in self.outcomes if o.label == label)


def outcome_from_result(label: str, technology: str, dcqcn: bool, result: Result,
                        stream: Any = None) -> Outcome:
    """An Outcome from a Result and, optionally, its metric stream."""
    found = training_utilisation(result)
    return Outcome(label, technology, dcqcn, figures(result, stream),
                   None if found is None else found[0], 0 if found is None else found[1])


def run_comparison(design: Design, scenario: Any,
                   progress: Callable[[str], None] | None = None) -> Comparison:
    """Run ``scenario`` (a sim Scenario) on a copy of ``design`` on every fabric.

    ScenarioError (one sentence) when the scenario does not fit the design or is too big.
    """
    from fabricstudio.sim.request import describe_workloads
    from fabricstudio.sim.run import MAX_CELL_HOPS, build_simulation

    outcomes = []
    for label, technology, dcqcn in COMPARE_VARIANTS:
        if progress is not None:
            progress(label)
        variant = scenario.with_changes(technology=technology, dcqcn=dcqcn)
        sim = build_simulation(design.copy(), variant, MAX_CELL_HOPS)
        result = sim.run(None)
        outcomes.append(outcome_from_result(label, technology.value, dcqcn, result,
                                            sim.stream))
    return Comparison(scenario.name, describe_workloads(scenario), outcomes)
