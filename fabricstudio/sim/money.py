"""GPU-idle money from a simulation result: how much the GPU time lost to waiting on the
network costs, per day and per month, at the cost book's GPU-hour price.

The GPUs counted are the ranks of the run's training workload (the GPUs the simulated job
keeps busy or idle); utilisation is the Result's ``training.gpu_utilisation`` (compute time
/ step time).  Runs without a training workload have no GPU utilisation and no idle money.
"""

from __future__ import annotations

from fabricstudio.model.costbook import CostBook
from fabricstudio.sim.result import Result, TrainingReport
from fabricstudio.topology.cost import IdleMoney, idle_money


def training_utilisation(result: Result | None) -> tuple[float, int] | None:
    """(GPU utilisation, GPUs in the training job) of a result, or None without training."""
    if result is None or result.training is None:
        return None
    gpus = next((w.collective.ranks for w in result.workloads
                 if isinstance(w, TrainingReport)), 0)
    if not gpus and result.collective is not None:
        gpus = result.collective.ranks
    return float(result.training.gpu_utilisation), int(gpus)


def result_idle_money(result: Result, book: CostBook, reference: float = 1.0
                      ) -> IdleMoney | None:
    """Money lost by a run's training job against GPUs at ``reference`` utilisation."""
    found = training_utilisation(result)
    if found is None or not found[1]:
        return None
    return idle_money(found[0], found[1], book, reference)
