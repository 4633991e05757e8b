"""One sweep point: its inputs (plain JSON data, so any worker can take it), its hash, and
its evaluation (build or read the design, analyse it, run the scenario, keep the figures).

:func:`evaluate_point` is what a local process or a Dask worker runs; it needs nothing but
``pip install fabricstudio`` and the point's inputs, and returns the same row wherever it
runs (wall-clock figures are left out).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from fabricstudio.sim.compare import DESIGN_KPIS, RUN_KPIS
from fabricstudio.sim.sweep.spec import SweepSpec, apply, canonical

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.model import Design
    from fabricstudio.sim.result import Result

#: Figure columns of a result row, after the point's parameters.
FIGURE_COLUMNS = tuple(k.key for k in DESIGN_KPIS) + tuple(k.key for k in RUN_KPIS)
#: Last columns: what ran and whether it worked.
STATUS_COLUMNS = ("engine", "finished", "error")


def point_inputs(spec: SweepSpec, params: dict[str, Any], cost_book: Any = None) -> dict[str, Any]:
    """Everything one point depends on, as JSON data (the hash is taken of it)."""
    from fabricstudio import __version__

    generator, design, scenario = apply(spec, params)
    return {"fabricstudio": __version__, "params": params, "generator": generator,
            "design": design, "scenario": scenario,
            "cost_book": None if cost_book is None else cost_book.model_dump(mode="json")}


def point_key(inputs: dict[str, Any]) -> str:
    """The point's cache key: SHA-256 of its canonical inputs (first 24 hex digits)."""
    return hashlib.sha256(canonical(inputs).encode()).hexdigest()[:24]


def evaluate_point(inputs: dict[str, Any]) -> dict[str, Any]:
    """The figures of one point (a row without the parameters).  A point that cannot be
    built or run gets its reason in ``error`` and no run figures; it is a result too."""
    from fabricstudio.sim.compare import design_figures, run_figures

    row: dict[str, Any] = dict.fromkeys(FIGURE_COLUMNS)
    row.update({"engine": None, "finished": None, "error": None})
    try:
        design = _design(inputs)
        figures, _currency = design_figures(design, _cost_book(inputs.get("cost_book")))
        row.update(figures)
        result = _run(design, inputs["scenario"])
    except _EXPECTED as exc:
        row["error"] = f"{type(exc).__name__}: {exc}"
        return row
    row.update(run_figures(result))
    row["engine"] = result.run.engine
    row["finished"] = result.finished
    return row


class PointError(ValueError):
    """A point's inputs that cannot become a design or a scenario."""


def _design(inputs: dict[str, Any]) -> Design:
    from fabricstudio.formats import parse_design
    from fabricstudio.topology.builders import build_fabric, parse_spec

    if inputs.get("design") is not None:
        return parse_design(inputs["design"], "<sweep base design>")
    return build_fabric(parse_spec(inputs["generator"])).to_design()


def _cost_book(data: Any) -> Any:
    if data is None:
        return None
    from fabricstudio.model.costbook import CostBook

    return CostBook.model_validate(data)


def _run(design: Design, scenario_data: dict[str, Any]) -> Result:
    from fabricstudio.sim.run import build_simulation
    from fabricstudio.sim.scenario import parse_scenario

    scenario = parse_scenario(json.dumps(scenario_data))
    return build_simulation(design, scenario).run()


def _expected() -> tuple[type[BaseException], ...]:
    from fabricstudio.formats import DesignFileError
    from fabricstudio.sim.engine.config import EngineError
    from fabricstudio.sim.scenario import ScenarioError
    from fabricstudio.topology.builders import BuildError

    return (BuildError, DesignFileError, ScenarioError, EngineError, PointError)


_EXPECTED = _expected()
