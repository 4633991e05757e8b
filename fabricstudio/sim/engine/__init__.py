"""Cell-level discrete-event engine of the fabric (SimPy clock, callback-driven ports).

Public API: :class:`Engine`, :class:`EngineConfig`, :class:`FlowRecord`, :class:`EngineError`.
See docs/engine.md for what is modelled.
"""

from fabricstudio.sim.engine.config import EngineConfig, EngineError, FlowRecord
from fabricstudio.sim.engine.core import Engine

__all__ = ["Engine", "EngineConfig", "EngineError", "FlowRecord"]
