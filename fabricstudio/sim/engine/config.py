"""Engine configuration, the public flow record and the engine's error type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from fabricstudio.model import FabricSettings, Technology

#: Routing modes: ``default`` = ECMP on Ethernet/RoCE, destination-based static on InfiniBand
#: (the scenario's ``routing``, the CLI's ``--routing`` and the panel's combo read these).
Routing = Literal["default", "ecmp", "static", "adaptive"]
ROUTING_MODES: tuple[Routing, ...] = get_args(Routing)

#: Frames aimed at per run when the horizon is known (SIMULATION.md section 4).
TARGET_FRAMES = 1000
#: Most frames one run may record (a frame is written even when nothing changed).
MAX_FRAMES = 100_000
#: Shortest sample period: 100 ns is below one 4 KiB packet's serialisation at 400 Gb/s (82 ns
#: at 400G, 41 ns at 800G would be finer, but frames that short show single packets, and a
#: sample is a Python walk over every port).
MIN_SAMPLE_PERIOD_S = 1e-7
#: Longest sample period (a frame averages everything inside it).
MAX_SAMPLE_PERIOD_S = 10.0
#: Sample period when neither a period nor a horizon is given (seconds).
DEFAULT_SAMPLE_PERIOD_S = 10e-6
#: A frozen cycle of paused/credit-starved ports is a deadlock after this long (seconds):
#: far longer than any PAUSE of a live fabric lasts (a 64 MB buffer drains in 1.3 ms at
#: 400G), far shorter than the PFC watchdogs' 100-200 ms.
DEFAULT_DEADLOCK_DETECT_S = 1e-3


class EngineError(ValueError):
    """A design, configuration or flow the engine cannot simulate (message names the object)."""


@dataclass(frozen=True)
class EngineConfig:
    """How to run the engine.

    ``technology``/``dcqcn``/``fabric`` override the design's fabric settings for this run only.
    ``cell_bytes`` is the unit the engine moves (``== mtu`` gives a packet-level run).
    ``sample_period_s`` is the metrics frame period; None picks one: ``horizon_s / 1000``
    rounded to 1-2-5 when ``horizon_s`` (the expected run length) is given, else 10 us.
    ``deadlock_detect_s``: a cycle of paused or credit-starved ports that has not moved for
    this long ends the run as a deadlock (None: never check).  ``control_in_band``: ACKs,
    CNPs, BECNs, NAKs and PFC frames occupy link time (see :mod:`.control`).
    """

    technology: Technology | None = None
    dcqcn: bool | None = None
    routing: str = "default"
    cell_bytes: int = 16384
    seed: int = 1
    sample_period_s: float | None = None
    fabric: FabricSettings | None = None
    horizon_s: float | None = None
    deadlock_detect_s: float | None = DEFAULT_DEADLOCK_DETECT_S
    control_in_band: bool = False

    def __post_init__(self) -> None:
        if self.technology is not None and not isinstance(self.technology, Technology):
            try:
                object.__setattr__(self, "technology", Technology(self.technology))
            except ValueError:
                names = ", ".join(t.value for t in Technology)
                raise EngineError(f"technology {self.technology!r} is not one of {names}") \
                    from None
        if self.routing not in ROUTING_MODES:
            raise EngineError(f"routing {self.routing!r} is not one of {', '.join(ROUTING_MODES)}")
        if not 256 <= int(self.cell_bytes) <= 64 * 1024 * 1024:
            raise EngineError(f"cell size {self.cell_bytes} B is outside 256 B .. 64 MiB")
        if self.sample_period_s is not None and not (
                MIN_SAMPLE_PERIOD_S <= self.sample_period_s <= MAX_SAMPLE_PERIOD_S):
            raise EngineError(f"sample period {self.sample_period_s:g} s is outside "
                              f"{MIN_SAMPLE_PERIOD_S:g} .. {MAX_SAMPLE_PERIOD_S:g} s")
        if self.horizon_s is not None and not self.horizon_s > 0:
            raise EngineError(f"horizon {self.horizon_s} s must be positive")
        if self.deadlock_detect_s is not None and not 1e-7 <= self.deadlock_detect_s <= 1e3:
            raise EngineError(f"deadlock detection stretch {self.deadlock_detect_s} s is "
                              "outside 100 ns .. 1000 s")

    def resolved_sample_period(self) -> float:
        """The sample period to use (seconds)."""
        if self.sample_period_s is not None:
            return float(self.sample_period_s)
        if self.horizon_s is not None:
            return nice_period(self.horizon_s / TARGET_FRAMES)
        return DEFAULT_SAMPLE_PERIOD_S


def nice_period(raw_s: float) -> float:
    """Round a period up to 1, 2 or 5 times a power of ten (at least 100 ns)."""
    raw_s = max(raw_s, 1e-7)
    scale = 1e-9
    while scale * 10 <= raw_s:
        scale *= 10
    for step in (1, 2, 5, 10):
        if scale * step >= raw_s * (1 - 1e-9):
            return scale * step
    return scale * 10  # pragma: no cover - loop always returns


@dataclass(slots=True, eq=False)
class FlowRecord:
    """Progress of one flow.  ``finish_s`` is None until the last byte is delivered."""

    id: int
    src: str
    dst: str
    size_bytes: int
    delivered_bytes: int = 0
    start_s: float = 0.0
    finish_s: float | None = None
    tag: str = ""

    @property
    def done(self) -> bool:
        """True once every byte has been delivered."""
        return self.finish_s is not None
