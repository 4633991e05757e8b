"""Flow-level engine: max-min fair rates for whole-cluster runs (thousands of GPUs).

Public API: :class:`FlowEngine` (the cell engine's API: ``add_flow``, ``advance``, ``stream``,
``link_stats``, ``totals``, ``stats``; plus ``add_group`` and ``hotspots``),
:data:`NOT_MODELLED`, :func:`max_min_rates`.  See docs/engine.md, "Flow-level engine".
"""

from fabricstudio.sim.flow.core import NOT_MODELLED, FlowEngine
from fabricstudio.sim.flow.maxmin import max_min_rates

__all__ = ["NOT_MODELLED", "FlowEngine", "max_min_rates"]
