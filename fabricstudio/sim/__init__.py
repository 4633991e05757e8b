"""Traffic simulation of the fabric (Qt-free).

Public API (see docs/simulation.md):

- :class:`Scenario`, :func:`load_scenario`, :func:`parse_scenario`, :class:`ScenarioError`
- :func:`build_simulation` -> :class:`Simulation` (resumable ``advance(until_s)``, ``stream``,
  ``progress``, ``result()``), :func:`run_simulation` -> :class:`Result`
- :mod:`fabricstudio.sim.engine` (the cell-level engine), :mod:`fabricstudio.sim.metrics`
  (Frames and the MetricStream), :mod:`fabricstudio.sim.export` (metrics CSV)
"""

from fabricstudio.sim.result import Result
from fabricstudio.sim.run import Simulation, build_simulation, run_simulation
from fabricstudio.sim.scenario import (
    Scenario,
    ScenarioError,
    dump_scenario,
    load_scenario,
    parse_scenario,
    parse_size,
)

__all__ = ["Result", "Scenario", "ScenarioError", "Simulation", "build_simulation",
           "dump_scenario", "load_scenario", "parse_scenario", "parse_size", "run_simulation"]
