"""Cell-level discrete-event engine of the fabric (SimPy clock, callback-driven ports).

Public API: :class:`Engine`, :class:`EngineConfig`, :class:`FlowRecord`, :class:`EngineError`.
See docs/engine.md for what is modelled.
"""

from fabricstudio.sim.engine.config import EngineConfig, EngineError, FlowRecord
from fabricstudio.sim.engine.core import Engine
from fabricstudio.sim.engine.measure import window_goodput_gbps

__all__ = ["Engine", "EngineConfig", "EngineError", "FlowRecord", "window_goodput_gbps"]
