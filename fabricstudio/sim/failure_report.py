"""The cost of a scenario's failures: the run's figures against its no-failure twin.

A run with failures is compared with the same scenario run without them (the *twin*: same
design, seed and traffic), so what the Result reports as the failure's cost is the
difference the failure alone made: completion, collective and step time, and GPU
utilisation.  GPU utilisation counts the time a step that had not finished when the run
ended had already waited (a failure that stalls the ring for the rest of the horizon shows
as idle GPUs, not as a missing number).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from fabricstudio.model.failures import Failure
from fabricstudio.sim.engine.failures import convergence_delay
from fabricstudio.sim.workloads.collectives import Collective
from fabricstudio.sim.workloads.training import TrainingStep


def _time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:g} ms"
    return f"{seconds * 1e6:g} us"


def describe(failure: Failure) -> str:
    """``link L7 at 1 ms (repaired at 5 ms)``."""
    text = f"{failure.label} at {_time(failure.at_s)}"
    if failure.repair_s is not None:
        text += f" (repaired at {_time(failure.repair_s)})"
    return text


def training_utilisation(step: TrainingStep, end_s: float) -> float | None:
    """Compute time over training time of ``step`` by ``end_s``; an unfinished step counts
    the compute it has done and all the time it has waited."""
    if step.start_s is None:
        return None
    compute = step.spec.compute_s
    stop = step.finish_s if step.finish_s is not None else end_s
    elapsed = stop - step.start_s
    if elapsed <= 0:
        return None
    busy = len(step.steps) * compute
    if step.finish_s is None:
        in_step = end_s - (step.start_s + sum(s for s, _ in step.steps))
        busy += min(compute, max(0.0, in_step))
    return float(busy) / elapsed


def run_figures(sim: Any) -> dict[str, Any]:
    """The :class:`~fabricstudio.sim.result.RunFigures` of a finished Simulation."""
    end = sim.now
    completion = (max(w.finish_s for w in sim.workloads if w.finish_s is not None)
                  if sim.complete else None)
    training = next((w for w in sim.workloads if isinstance(w, TrainingStep)), None)
    collective = next((w for w in sim.workloads if isinstance(w, Collective)), None)
    if collective is None and training is not None:
        collective = training.allreduce
    coll = collective.summary() if collective is not None else None
    figures: dict[str, Any] = {
        "finished": sim.complete, "completion_time_s": completion,
        "collective_time_s": coll["time_s"] if coll else None,
        "iterations": None, "step_time_s": None, "gpu_utilisation": None}
    if training is not None:
        steps = training.steps
        figures["iterations"] = len(steps)
        figures["step_time_s"] = sum(s for s, _ in steps) / len(steps) if steps else None
        figures["gpu_utilisation"] = training_utilisation(training, end)
    return figures


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def cost(with_failures: dict[str, Any], without: dict[str, Any]) -> dict[str, Any]:
    """With minus without, figure by figure (None where either run lacks it)."""
    done_a, done_b = with_failures["completion_time_s"], without["completion_time_s"]
    return {
        "completion_time_s": _delta(done_a, done_b),
        "slowdown": done_a / done_b if done_a is not None and done_b else None,
        "collective_time_s": _delta(with_failures["collective_time_s"],
                                    without["collective_time_s"]),
        "step_time_s": _delta(with_failures["step_time_s"], without["step_time_s"]),
        "gpu_utilisation": _delta(with_failures["gpu_utilisation"],
                                  without["gpu_utilisation"]),
    }


def failure_report(sim: Any, twin: dict[str, Any] | None) -> dict[str, Any]:
    """The Result's ``failures`` object of a run with failures (``twin``: the RunFigures of
    its no-failure twin, or None when it was not run)."""
    engine = sim.engine
    failures: Sequence[Failure] = sim.scenario.failures
    settings = sim.scenario.failover
    injected = engine.failures.report()
    mine = run_figures(sim)
    return {
        "failures": [describe(f) for f in failures],
        "convergence_s": convergence_delay(engine.technology, engine.routing, settings),
        "repair_convergence_s": convergence_delay(engine.technology, engine.routing,
                                                  settings, repair=True),
        **injected,
        "with_failures": mine,
        "without_failures": twin,
        "cost": cost(mine, twin) if twin is not None else None,
    }


def run_twin(sim: Any, progress: Callable[[float], None] | None = None) -> dict[str, Any]:
    """Run the same scenario without failures on the same design; its RunFigures."""
    from fabricstudio.sim.run import build_simulation

    scenario = sim.scenario.with_changes(failures=[])
    twin = build_simulation(sim.design, scenario, max_cell_hops=None)
    while not twin.finished:
        twin.advance(twin.now + twin.slice_s)
        if progress is not None:
            progress(twin.progress)
    return run_figures(twin)
