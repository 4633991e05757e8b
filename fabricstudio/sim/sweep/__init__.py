"""Parameter sweeps: a grid of fabrics and run settings, each point cached by the hash of its
inputs, run on a local process pool or a Dask cluster (docs/sweeps.md)."""

from fabricstudio.sim.sweep.results import default_axes, pareto_front, read_results, write_results
from fabricstudio.sim.sweep.runner import Executor, PointCache, Progress, format_progress, run_sweep
from fabricstudio.sim.sweep.spec import SweepError, SweepSpec, load_sweep, parse_sweep

__all__ = ["Executor", "PointCache", "Progress", "SweepError", "SweepSpec", "default_axes",
           "format_progress", "load_sweep", "pareto_front", "parse_sweep", "read_results",
           "run_sweep", "write_results"]
