"""Time-stamped simulation metrics: Frames, and the append-only MetricStream that holds them.

The engine appends one :class:`Frame` per sample period of simulated time.  Per-link values
are numpy arrays indexed by the fixed order of :attr:`MetricStream.links` (one entry per
*directed* link: each cable appears twice, once per direction).  The stream keeps the whole
history in columnar arrays, so the live view, replay, scrubbing, plots and CSV export all read
the same data by index or by time.  Appending and reading are safe from different threads.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from fabricstudio.model import FabricSettings
from fabricstudio.model.units import format_bytes

#: How a field reads over a sample period, and so how several periods combine:
#: ``fraction`` of the period (0..1; periods average), ``count`` of events in the period
#: (periods add up), ``level`` at the end of the period (the last one stands), ``peak`` during
#: the period (the largest stands), ``rate`` over the period (periods average).
MetricKind = Literal["fraction", "count", "level", "peak", "rate"]


@dataclass(frozen=True)
class MetricField:
    """One field of a frame: the one declaration the sampler, window statistics, the CSV
    columns, chart units and the overlay's tooltips derive from."""

    name: str
    kind: MetricKind
    #: Unit of the stored value: "fraction", "B", "packets", "frames" or "Gb/s".
    unit: str
    #: Short name for charts and tooltips.
    label: str
    description: str
    dtype: type = np.float32


#: Per-directed-link fields of a frame, in column order (CSV, arrays).
LINK_METRICS: tuple[MetricField, ...] = (
    MetricField("utilisation", "fraction", "fraction", "utilisation",
                "fraction of the period the transmitter was sending (0..1)"),
    MetricField("queue_bytes", "level", "B", "queue",
                "bytes queued for this link at the sending port (instant)"),
    MetricField("queue_max_bytes", "peak", "B", "peak queue",
                "largest queue at the sending port during the period"),
    MetricField("paused", "fraction", "fraction", "paused",
                "fraction of the period the sender was held by PFC PAUSE (0..1)"),
    MetricField("pauses_sent", "count", "frames", "PAUSE frames sent",
                "PFC PAUSE frames the receiving end sent upstream on this link", np.int32),
    MetricField("ecn_marks", "count", "packets", "ECN marks",
                "packets ECN-marked when leaving this link's egress queue", np.int32),
    MetricField("cnps", "count", "packets", "CNPs", "CNPs caused by marks on this link",
                np.int32),
    MetricField("drops", "count", "packets", "drops",
                "packets dropped at this link's egress (tail drop or headroom overflow)",
                np.int32),
    MetricField("credit_stall", "fraction", "fraction", "credit stall",
                "fraction of the period data waited for IB credits (0..1)"),
)
#: Per-flow fields of a frame.
FLOW_METRICS: tuple[MetricField, ...] = (
    MetricField("delivered_bytes", "level", "B", "delivered",
                "bytes delivered to the destination so far (cumulative)", np.float64),
    MetricField("rate_gbps", "rate", "Gb/s", "goodput", "goodput over the period (Gb/s)"),
)
#: name -> field.
METRICS: dict[str, MetricField] = {f.name: f for f in (*LINK_METRICS, *FLOW_METRICS)}
#: name -> (dtype, description) of the per-link and per-flow fields (column order).
LINK_FIELDS: dict[str, tuple[type, str]] = {f.name: (f.dtype, f.description)
                                            for f in LINK_METRICS}
FLOW_FIELDS: dict[str, tuple[type, str]] = {f.name: (f.dtype, f.description)
                                            for f in FLOW_METRICS}


def link_fields(*kinds: MetricKind) -> tuple[str, ...]:
    """Names of the per-link fields of these kinds, in column order."""
    return tuple(f.name for f in LINK_METRICS if f.kind in kinds)


def combine(field: MetricField, values: list[np.ndarray]) -> np.ndarray:
    """Several consecutive periods' values of ``field`` as one (see :data:`MetricKind`)."""
    stacked = np.asarray(values)
    if field.kind in ("fraction", "rate"):
        merged: np.ndarray = stacked.mean(axis=0)
    elif field.kind == "count":
        merged = stacked.sum(axis=0)
    elif field.kind == "peak":
        merged = stacked.max(axis=0)
    else:
        return values[-1]
    return merged.astype(field.dtype)


def chart_unit(field: MetricField) -> tuple[str, float]:
    """(axis unit, factor) a chart plots ``field`` in: fractions in %, bytes in KiB."""
    return {"fraction": ("%", 100.0), "B": ("KiB", 1 / 1024)}.get(field.unit, (field.unit, 1.0))


def format_value(field: MetricField, value: float) -> str:
    """A field's value for people: fractions in %, bytes in binary units, counts whole."""
    if field.unit == "fraction":
        return f"{100 * value:.1f}%"
    if field.unit == "B":
        return format_bytes(value)
    if field.unit == "Gb/s":
        return f"{value:.1f} Gb/s"
    return f"{value:,.0f}"


@dataclass(frozen=True)
class DirectedLink:
    """One direction of a cable: traffic leaves ``src`` on ``src_port`` toward ``dst``."""

    index: int
    link_id: str
    src: str
    src_port: int
    dst: str
    dst_port: int
    speed_gbps: float

    @property
    def key(self) -> str:
        """Stable text key, e.g. ``l1:h1>s1``."""
        return f"{self.link_id}:{self.src}>{self.dst}"


@dataclass
class Frame:
    """Metrics of one sample period ending at simulated time ``t`` (seconds)."""

    t: float
    links: dict[str, np.ndarray]
    flows: dict[str, np.ndarray] = field(default_factory=dict)
    flow_ids: tuple[int, ...] = ()

    def link(self, name: str) -> np.ndarray:
        """One per-link field, indexed like :attr:`MetricStream.links`."""
        return self.links[name]


def empty_link_arrays(n_links: int) -> dict[str, np.ndarray]:
    """Zeroed per-link arrays for one frame."""
    return {name: np.zeros(n_links, dtype=dtype) for name, (dtype, _) in LINK_FIELDS.items()}


#: Moments a recording is searched for (the live view's jump buttons, story events): name ->
#: (link field, "first" frame where it is non-zero or "peak" frame of its largest value).
MOMENTS: dict[str, tuple[str, str]] = {
    "first_pause": ("pauses_sent", "first"), "peak_queue": ("queue_bytes", "peak"),
    "first_drop": ("drops", "first"), "first_ecn": ("ecn_marks", "first")}


class MetricStream:
    """Append-only history of frames with columnar per-link storage.

    ``links`` fixes the per-link order.  Flows may be added during a run, so per-flow arrays are
    kept per frame (their ids in ``Frame.flow_ids``).  The engine lists in a frame the flows
    that were added, progressed or finished during its period; a flow absent from a frame made
    no progress in it (rate 0, delivered bytes unchanged).
    """

    def __init__(self, links: tuple[DirectedLink, ...], sample_period_s: float,
                 fabric: FabricSettings | None = None,
                 fields: tuple[str, ...] | None = None, engine: str = "cell") -> None:
        self.links = links
        self.sample_period_s = sample_period_s
        #: The fabric settings the run used (after its overrides): views scale by these, not
        #: by the live design, so editing the design never changes how a recorded run looks.
        self.fabric = fabric or FabricSettings()
        #: Per-link fields this stream records (None = all); the others read as zeros
        #: (the flow-level engine records utilisation only: a 32k-GPU fabric has 200k links).
        self.fields = tuple(LINK_FIELDS) if fields is None else fields
        #: The engine that records it ("cell" or "flow") and why it was chosen (the reason is
        #: set by sim.run.build_simulation; views say what a flow-level run leaves out).
        self.engine = engine
        self.engine_reason = ""
        self._lock = threading.Lock()
        self._times = np.zeros(64, dtype=np.float64)
        self._columns: dict[str, np.ndarray] = {
            name: np.zeros((64, len(links)), dtype=dtype)
            for name, (dtype, _) in LINK_FIELDS.items() if name in self.fields}
        self._flows: list[tuple[tuple[int, ...], dict[str, np.ndarray]]] = []
        self._count = 0
        self.finished = False
        #: Flow id -> (src, dst) of the run's flows, set when the run ends (:meth:`close`).
        self.flow_ends: dict[int, tuple[str, str]] = {}

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its lock and its unused capacity (the run cache stores streams)."""
        with self._lock:
            state = dict(self.__dict__)
            n = self._count
            state["_times"] = self._times[:n].copy()
            state["_columns"] = {name: column[:n].copy() for name, column in self._columns.items()}
            state["_flows"] = list(self._flows)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def close(self, flow_ends: dict[int, tuple[str, str]]) -> None:
        """The run is over: no more frames; ``flow_ends`` names its flows (CSV export)."""
        self.flow_ends = dict(flow_ends)
        self.finished = True

    # ---------------------------------------------------------------- writing
    def append(self, frame: Frame) -> None:
        """Add the next frame (times must increase)."""
        with self._lock:
            if self._count and frame.t <= self._times[self._count - 1]:
                raise ValueError("frames must be appended in increasing time")
            if self._count == len(self._times):
                self._grow()
            i = self._count
            self._times[i] = frame.t
            for name, column in self._columns.items():
                column[i] = frame.links.get(name, 0)  # a field the engine does not record
            self._flows.append((frame.flow_ids, frame.flows))
            self._count += 1

    def _grow(self) -> None:
        capacity = max(64, 2 * len(self._times))
        self._times = np.resize(self._times, capacity)
        for name, column in self._columns.items():
            grown = np.zeros((capacity, column.shape[1]), dtype=column.dtype)
            grown[: self._count] = column[: self._count]
            self._columns[name] = grown

    # ---------------------------------------------------------------- reading
    def __len__(self) -> int:
        return self._count

    @property
    def times(self) -> np.ndarray:
        """Frame end times so far (a read-only view)."""
        view = self._times[: self._count]
        view.flags.writeable = False
        return view

    def frame(self, index: int) -> Frame:
        """Frame number ``index`` (negative counts from the end)."""
        with self._lock:
            n = self._count
            if index < 0:
                index += n
            if not 0 <= index < n:
                raise IndexError(f"frame {index} of {n}")
            links = {name: self._columns[name][index].copy() if name in self._columns
                     else np.zeros(len(self.links), dtype=dtype)
                     for name, (dtype, _) in LINK_FIELDS.items()}
            flow_ids, flows = self._flows[index]
            return Frame(float(self._times[index]), links, flows, flow_ids)

    def latest(self) -> Frame | None:
        """The newest frame, or None before the first sample."""
        return self.frame(-1) if self._count else None

    def index_at(self, t: float) -> int:
        """Index of the frame covering time ``t`` (the last frame ending at or before it,
        clamped to the recorded range); -1 when empty."""
        if not self._count:
            return -1
        i = bisect_right(self._times[: self._count].tolist(), t) - 1
        return min(max(i, 0), self._count - 1)

    def frame_at(self, t: float) -> Frame | None:
        """The frame covering simulated time ``t``."""
        i = self.index_at(t)
        return None if i < 0 else self.frame(i)

    def link_series(self, name: str, link_index: int | None = None) -> np.ndarray:
        """History of a per-link field: shape (frames,) for one link, (frames, links) for all."""
        column = self._column(name)[: self._count]
        return column[:, link_index].copy() if link_index is not None else column.copy()

    def _column(self, name: str) -> np.ndarray:
        column = self._columns.get(name)
        if column is None:  # a field this stream does not record: zeros
            dtype = LINK_FIELDS[name][0]
            column = np.zeros((self._count, len(self.links)), dtype=dtype)
        return column

    def link_rows(self, name: str, start: int, stop: int | None = None) -> np.ndarray:
        """Rows ``start..stop`` (frames, links) of a per-link field: lets readers that keep
        running aggregates read only the frames they have not seen."""
        stop = self._count if stop is None else min(stop, self._count)
        return self._column(name)[start:stop].copy()

    def flow_frame(self, index: int) -> tuple[float, tuple[int, ...], dict[str, np.ndarray]]:
        """(time, flow ids, per-flow arrays) of frame ``index`` without copying link columns."""
        with self._lock:
            if not 0 <= index < self._count:
                raise IndexError(f"frame {index} of {self._count}")
            flow_ids, flows = self._flows[index]
            return float(self._times[index]), flow_ids, flows

    def flow_series(self, name: str, flow_id: int) -> tuple[np.ndarray, np.ndarray]:
        """(times, values) of a per-flow field over the frames in which the flow existed."""
        times, values = [], []
        for t, (ids, flows) in zip(self.times, self._flows[: self._count], strict=True):
            if flow_id in ids:
                times.append(t)
                values.append(flows[name][ids.index(flow_id)])
        return np.asarray(times), np.asarray(values)

    def first_time(self, name: str) -> float | None:
        """Time of the first frame where any link's ``name`` is non-zero (e.g. first PAUSE)."""
        column = self._column(name)[: self._count]
        rows = np.flatnonzero(column.any(axis=1)) if column.size else np.zeros(0, dtype=int)
        return float(self._times[rows[0]]) if len(rows) else None

    def peak_time(self, name: str) -> float | None:
        """Time of the frame holding the largest value of ``name`` over all links."""
        column = self._column(name)[: self._count]
        if not column.size:
            return None
        row = int(np.unravel_index(np.argmax(column), column.shape)[0])
        return float(self._times[row])

    def moment_time(self, moment: str) -> float | None:
        """Time of one of the :data:`MOMENTS` (None when the recording has none)."""
        name, how = MOMENTS[moment]
        return self.first_time(name) if how == "first" else self.peak_time(name)
