"""GPU-idle money from a simulation result: how much the GPU time lost to waiting on the
network costs, per day and per month, at the cost book's GPU-hour price.

The GPUs counted are the ranks of the run's training workload (the GPUs the simulated job
keeps busy or idle); utilisation is the Result's ``training.gpu_utilisation`` (compute time
/ step time).  Runs without a training workload have no GPU utilisation and no idle money.
"""

from __future__ import annotations

from typing import Any

from fabricstudio.model.costbook import CostBook
from fabricstudio.topology.cost import IdleMoney, idle_money


def _as_dict(result: Any) -> dict[str, Any]:
    if result is None:
        return {}
    if isinstance(result, dict):
        return result
    if hasattr(result, "to_dict"):
        return result.to_dict()
    if hasattr(result, "model_dump"):
        return result.model_dump(mode="json")
    return dict(result)


def training_utilisation(result: Any) -> tuple[float, int] | None:
    """(GPU utilisation, GPUs in the training job) of a result, or None without training."""
    data = _as_dict(result)
    training = data.get("training") or {}
    utilisation = training.get("gpu_utilisation")
    if utilisation is None:
        return None
    gpus = 0
    for workload in data.get("workloads") or []:
        if workload.get("type") == "training" and workload.get("collective"):
            gpus = int(workload["collective"].get("ranks") or 0)
            break
    if not gpus:
        gpus = int((data.get("collective") or {}).get("ranks") or 0)
    return float(utilisation), gpus


def result_idle_money(result: Any, book: CostBook, reference: float = 1.0
                      ) -> IdleMoney | None:
    """Money lost by a run's training job against GPUs at ``reference`` utilisation."""
    found = training_utilisation(result)
    if found is None or not found[1]:
        return None
    return idle_money(found[0], found[1], book, reference)
