"""Design analysis: checks that name objects, oversubscription, bisection bandwidth, ECMP
width and hop counts, bill of materials and PFC deadlock risk.

``analyze(design)`` returns an :class:`AnalysisReport` (pydantic, stable keys, documented in
docs/analysis.md).  It is Qt-free and fast enough to run after every edit of a few-hundred-GPU
design; on very large fabrics paths and deadlock checks use a deterministic sample of leaves
and say so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from fabricstudio.model import Design, DesignData, GpuServer, Plane, Technology
from fabricstudio.model.costbook import CostBook
from fabricstudio.model.failures import Failure, failed_elements, failure_problems
from fabricstudio.topology.analysis import checks
from fabricstudio.topology.analysis import failures as failure_analysis
from fabricstudio.topology.analysis.bom import bill_of_materials
from fabricstudio.topology.analysis.capacity import bisection, oversubscription
from fabricstudio.topology.analysis.deadlock import deadlock_risk
from fabricstudio.topology.analysis.paths import distances, path_stats
from fabricstudio.topology.analysis.report import (
    AnalysisReport,
    BillOfMaterials,
    Bisection,
    BomItem,
    CategoryCost,
    Cost,
    Counts,
    Deadlock,
    DeadlockCycle,
    FailureImpact,
    Issue,
    Oversubscription,
    Paths,
    Stat,
    SwitchLoad,
    TierLoad,
)
from fabricstudio.topology.analysis.view import DesignView, PlaneGraph, plane_graph

#: Default budget of (source leaf x switch) pairs examined exactly before sampling.
DEFAULT_MAX_PAIRS = 4_000_000


def analyze(design: Design | DesignData, *, max_pairs: int = DEFAULT_MAX_PAIRS,
            cost_book: CostBook | None = None,
            failures: Sequence[Failure] = ()) -> AnalysisReport:
    """Analyse a design (a live Design or its DesignData); with a ``cost_book`` the report
    also prices the bill of materials (``report.cost``).

    With ``failures`` (links, devices or rails marked failed) the paths, bisection, ECMP
    width, deadlock risk, single points of failure and issues are those of the fabric
    without the failed elements, and ``report.failures`` says what they cost; counts, bill of
    materials and cost stay those of the whole design.  ValueError when a failure names
    something the design does not have.
    """
    if not failures:
        return _analyze(design, max_pairs, cost_book)
    live = design if isinstance(design, Design) else Design.from_data(design)
    problems = failure_problems(live, failures)
    if problems:
        raise ValueError("; ".join(problems[:5]))
    failed = failed_elements(live, failures)
    healthy = _analyze(live, max_pairs, cost_book)
    degraded = _analyze(failure_analysis.degraded_data(live, failed), max_pairs, None)
    found = failure_analysis.impact(live, failures, failed, healthy, degraded)
    return degraded.model_copy(update={
        "counts": healthy.counts, "bom": healthy.bom, "cost": healthy.cost,
        "issues": checks.merge(failure_analysis.issues(live, found, degraded)),
        "failures": found})


def _analyze(design: Design | DesignData, max_pairs: int,
             cost_book: CostBook | None) -> AnalysisReport:
    view = DesignView.of(design)
    compute = plane_graph(view, Plane.COMPUTE)
    lossless = _lossless(view)
    dists = distances(compute, max_pairs)
    paths = path_stats(compute, dists)
    deadlock = deadlock_risk(compute, dists, lossless)
    oversub = oversubscription(compute)
    issues = checks.unconnected(view)
    issues += checks.ports_over_radix(view)
    issues += checks.partitions(view, compute)
    storage = plane_graph(view, Plane.STORAGE)
    if storage.host_links:
        issues += checks.partitions(view, storage)
    issues += checks.speed_mismatches(view)
    issues += checks.technology_checks(view)
    issues += checks.resilience(view, compute)
    issues += checks.oversubscribed(oversub, compute)
    issues += checks.deadlock_issues(deadlock, lossless)
    issues += checks.full_switches(view)
    issues += checks.sampling_notes(paths, deadlock)
    bom = bill_of_materials(view)
    cut = bisection(view, compute)
    cost = None
    if cost_book is not None:
        from fabricstudio.topology.cost import cost_of

        cost = cost_of(bom, cost_book, cut.gbps)
    return AnalysisReport(
        design=view.name, technology=view.fabric.technology.value, lossless=lossless,
        counts=_counts(view, compute), issues=checks.merge(issues), oversubscription=oversub,
        bisection=cut, paths=paths, bom=bom, deadlock=deadlock, cost=cost)


def _lossless(view: DesignView) -> bool:
    tech = view.fabric.technology
    return tech is Technology.INFINIBAND or (tech is Technology.ROCE and view.fabric.pfc.enabled)


def _counts(view: DesignView, compute: PlaneGraph) -> Counts:
    kinds = Counter(d.kind for d in view.devices.values())
    gpus = sum(d.gpus for d in view.devices.values() if isinstance(d, GpuServer))
    return Counts(gpus=gpus, gpu_servers=kinds.get("gpu_server", 0),
                  hosts=sum(compute.hosts.values()),
                  storage_servers=kinds.get("storage_server", 0),
                  switches={k: kinds.get(k, 0) for k in ("leaf", "spine", "core", "mgmt_switch")},
                  links=len(view.links))


__all__ = [
    "DEFAULT_MAX_PAIRS", "AnalysisReport", "BillOfMaterials", "Bisection", "BomItem",
    "CategoryCost", "Cost", "Counts", "Deadlock", "DeadlockCycle", "FailureImpact", "Issue",
    "Oversubscription",
    "Paths", "Stat", "SwitchLoad", "TierLoad", "analyze",
]
