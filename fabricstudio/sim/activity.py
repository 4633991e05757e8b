"""What every GPU is doing, frame by frame: computing, communicating, waiting on the network
or idle.  The story of the demo is told by these states ("the GPUs sit idle while the network
stalls"), so they are derived from the run itself, never scripted:

- **computing**: the GPU is in a compute phase of a workload (a training step's forward and
  backward pass) for at least half of the frame;
- **communicating**: it has communication outstanding (a collective it takes part in is
  running, or one of its flows is not yet delivered) and its data moves: its rail NIC sends or
  receives at >= :data:`BUSY_NIC` of line rate, or one of its NVLink transfers progresses;
- **waiting on the network**: it has communication outstanding but its data does not move
  (held by PAUSE or missing credits, throttled, behind a full queue, waiting for a
  retransmission timeout, or for a ring neighbour that is);
- **idle**: none of these (no work scheduled, or done and waiting for the others).

:class:`GpuActivityTracker` reads a running :class:`~fabricstudio.sim.run.Simulation` after
each slice and appends the new frames' states to a :class:`GpuTimeline` (plain numpy arrays,
picklable, safe to read from another thread), which the live view, the recorder and the
captions use.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import Any

import numpy as np

from fabricstudio.model import Design, GpuServer
from fabricstudio.sim.metrics import DirectedLink, MetricStream
from fabricstudio.sim.workloads.base import Activity

#: A GPU with communication outstanding counts as communicating while its rail NIC carries at
#: least this fraction of line rate in one direction (a display rule, not a model constant:
#: a ring hop at speed runs at 0.9+, a throttled or paused one well below).
BUSY_NIC = 0.25
#: Fraction of a frame a GPU must spend in a compute phase to be shown computing.
COMPUTE_MAJORITY = 0.5


class GpuState(IntEnum):
    """State of one GPU in one frame (the values index :data:`STATE_LABELS`)."""

    COMPUTING = 0
    COMMUNICATING = 1
    WAITING = 2
    IDLE = 3


STATE_LABELS = ("computing", "communicating", "waiting on the network", "idle")


def gpu_addresses(design: Design) -> tuple[str, ...]:
    """Every GPU of every GPU server, ``server/gpuN``, in design order."""
    return tuple(f"{device.id}/gpu{g}" for device in design.devices.values()
                 if isinstance(device, GpuServer) for g in range(device.gpus))


class GpuTimeline:
    """Per-frame GPU states of a run: ``states`` (frames x GPUs, :class:`GpuState` values)
    and ``computing`` (frames: the fraction of GPU-time spent computing in each frame).

    Appending (one thread) and reading (another) are safe.  Picklable.
    """

    def __init__(self, gpus: Sequence[str], sample_period_s: float) -> None:
        self.gpus = tuple(gpus)
        self.sample_period_s = sample_period_s
        servers: list[str] = []
        for address in self.gpus:
            server = address.split("/", 1)[0]
            if not servers or servers[-1] != server:
                servers.append(server)
        #: GPU servers in design order, and each GPU's index into it.
        self.servers = tuple(servers)
        index = {s: i for i, s in enumerate(servers)}
        self.server_index = np.array([index[a.split("/", 1)[0]] for a in self.gpus], np.int32)
        self._states = np.zeros((0, len(self.gpus)), dtype=np.int8)
        self._computing = np.zeros(0, dtype=np.float64)
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._computing)

    def append(self, states: np.ndarray, computing: np.ndarray) -> None:
        """Add the rows of newly recorded frames."""
        states = np.asarray(states, dtype=np.int8).reshape(-1, len(self.gpus))
        with self._lock:
            self._states = np.concatenate([self._states, states])
            self._computing = np.concatenate([self._computing,
                                              np.asarray(computing, dtype=np.float64)])

    def rows(self, start: int, stop: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(states, computing) of frames ``start..stop`` (copies), to send elsewhere."""
        with self._lock:
            return self._states[start:stop].copy(), self._computing[start:stop].copy()

    def states(self, index: int) -> np.ndarray:
        """GPU states of frame ``index`` (clamped to the recorded frames)."""
        with self._lock:
            if not len(self._computing):
                return np.full(len(self.gpus), GpuState.IDLE, dtype=np.int8)
            row: np.ndarray = self._states[min(max(index, 0), len(self._computing) - 1)]
            return row.copy()

    def computing_now(self, index: int) -> float:
        """Fraction of the fleet's GPUs computing in frame ``index``."""
        with self._lock:
            if not len(self._computing) or not self.gpus:
                return 0.0
            return float(self._computing[min(max(index, 0), len(self._computing) - 1)])

    def utilisation_so_far(self, index: int) -> float:
        """The fleet's GPU utilisation from the start of the run to the end of frame
        ``index``: GPU-time computing over all GPU-time (the running version of the training
        result's compute / step time)."""
        with self._lock:
            n = min(index + 1, len(self._computing))
            return float(self._computing[:n].mean()) if n > 0 and self.gpus else 0.0

    def server_counts(self, index: int) -> np.ndarray:
        """(servers x 4) number of GPUs of each server in each state at frame ``index``."""
        counts = np.zeros((len(self.servers), len(GpuState)), dtype=np.int32)
        np.add.at(counts, (self.server_index, self.states(index).astype(np.intp)), 1)
        return counts

    def fleet_counts(self, index: int) -> np.ndarray:
        """Number of GPUs in each state at frame ``index``."""
        return np.bincount(self.states(index).astype(np.intp), minlength=len(GpuState))


def nic_link_indices(design: Design, links: Sequence[DirectedLink],
                     gpus: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per GPU, the directed link indices (send, receive) of its rail NIC's cable; -1 where the
    NIC is not cabled."""
    out_of = {(d.src, d.src_port): d.index for d in links}
    into = {(d.dst, d.dst_port): d.index for d in links}
    send = np.full(len(gpus), -1, dtype=np.int64)
    receive = np.full(len(gpus), -1, dtype=np.int64)
    for i, address in enumerate(gpus):
        server, _, gpu = address.partition("/")
        device = design.devices.get(server)
        if not isinstance(device, GpuServer) or not device.nics:
            continue
        port = device.gpu_nic(int(gpu[3:]))  # compute NICs are the server's first ports
        send[i] = out_of.get((server, port), -1)
        receive[i] = into.get((server, port), -1)
    return send, receive


class GpuActivityTracker:
    """Fills a :class:`GpuTimeline` from a running simulation, a few frames at a time.

    ``workloads`` are the run's workloads (each with ``activity()``), ``flows`` the engine's
    flow records indexed by flow id (for NVLink progress).  Call :meth:`update` after every
    slice of simulated time; it classifies the frames recorded since the last call.
    """

    def __init__(self, design: Design, stream: MetricStream, workloads: Sequence[Any],
                 flows: Sequence[Any] = ()) -> None:
        self.design = design
        self.stream = stream
        self.workloads = workloads
        self.flows = flows
        gpus = gpu_addresses(design)
        self.timeline = GpuTimeline(gpus, stream.sample_period_s)
        self._index = {address: i for i, address in enumerate(gpus)}
        self._send, self._receive = nic_link_indices(design, stream.links, gpus)
        by_server: dict[str, list[int]] = {}
        for i, address in enumerate(gpus):
            by_server.setdefault(address.split("/", 1)[0], []).append(i)
        self._server_gpus = {s: np.array(v, dtype=np.int64) for s, v in by_server.items()}
        # per flow id: src GPU, dst GPU (-1: not a GPU), True for NVLink (same server)
        self._flow_src = np.zeros(0, dtype=np.int64)
        self._flow_dst = np.zeros(0, dtype=np.int64)
        self._flow_nvlink = np.zeros(0, dtype=bool)
        self._done = 0
        self._address_cache: dict[tuple[str, ...], np.ndarray] = {}

    # ------------------------------------------------------------------ mapping
    def gpus_of(self, address: str) -> np.ndarray:
        """GPU indices an endpoint address stands for: one GPU, the GPUs behind one NIC, or
        every GPU of a server; empty for storage servers."""
        if address in self._index:
            return np.array([self._index[address]])
        server, _, rest = address.partition("/")
        gpus = self._server_gpus.get(server)
        if gpus is None:
            return np.zeros(0, dtype=np.int64)
        device = self.design.devices[server]
        if rest.startswith("nic") and isinstance(device, GpuServer):  # GPUs on this rail
            nic = int(rest[3:])
            return np.array([g for k, g in enumerate(gpus) if device.gpu_nic(k) == nic],
                            dtype=np.int64)
        return gpus

    def _gpus_of_all(self, addresses: tuple[str, ...]) -> np.ndarray:
        """GPU indices of several endpoint addresses (cached: workloads repeat them)."""
        gpus = self._address_cache.get(addresses)
        if gpus is None:
            gpus = np.unique(np.concatenate([self.gpus_of(a) for a in addresses]
                                            or [np.zeros(0, dtype=np.int64)]))
            if len(self._address_cache) < 100_000:
                self._address_cache[addresses] = gpus
        return gpus

    def _learn_flows(self) -> None:
        known, total = len(self._flow_src), len(self.flows)
        if total == known:
            return
        src = np.full(total - known, -1, dtype=np.int64)
        dst = np.full(total - known, -1, dtype=np.int64)
        nvlink = np.zeros(total - known, dtype=bool)
        for k in range(known, total):
            try:
                record = self.flows[k]
            except KeyError:  # finished within one slice and already forgotten by the
                continue      # engine's flow log: its NVLink progress is not shown
            src[k - known] = self._index.get(record.src, -1)
            dst[k - known] = self._index.get(record.dst, -1)
            nvlink[k - known] = record.src.split("/", 1)[0] == record.dst.split("/", 1)[0]
        self._flow_src = np.concatenate([self._flow_src, src])
        self._flow_dst = np.concatenate([self._flow_dst, dst])
        self._flow_nvlink = np.concatenate([self._flow_nvlink, nvlink])

    # ------------------------------------------------------------------ update
    def update(self) -> int:
        """Classify the frames recorded since the last call; returns how many."""
        stream = self.stream
        first, last = self._done, len(stream)
        if last <= first:
            return 0
        self._learn_flows()
        times = stream.times[first:last].astype(np.float64)
        period = stream.sample_period_s
        begins = np.maximum(times - period, 0.0)
        spans = np.maximum(times - begins, 1e-18)
        n_gpus = len(self.timeline.gpus)
        compute = np.zeros((last - first, n_gpus))
        comm = np.zeros((last - first, n_gpus), dtype=bool)
        nvlink = np.zeros((last - first, n_gpus), dtype=bool)
        window_start, window_end = float(begins[0]), float(times[-1])
        for activity in self._activities():
            if activity.start_s >= window_end or (activity.end_s is not None
                                                  and activity.end_s <= window_start):
                continue  # outside the new frames
            gpus = self._gpus_of_all(activity.addresses)
            if not len(gpus):
                continue
            end = np.inf if activity.end_s is None else activity.end_s
            overlap = np.clip(np.minimum(times, end) - np.maximum(begins, activity.start_s),
                              0.0, None)
            if activity.kind == "compute":
                compute[:, gpus] += (overlap / spans)[:, None]
            else:
                hit = overlap > 0
                comm[np.ix_(hit, gpus)] = True
                if activity.kind == "nvlink":  # a fixed-time NVLink exchange: it moves
                    nvlink[np.ix_(hit, gpus)] = True
        compute = np.clip(compute, 0.0, 1.0)
        moving = self._moving(first, last) | nvlink
        states = np.full((last - first, n_gpus), GpuState.IDLE, dtype=np.int8)
        states[comm & ~moving] = GpuState.WAITING
        states[comm & moving] = GpuState.COMMUNICATING
        states[compute >= COMPUTE_MAJORITY] = GpuState.COMPUTING
        self.timeline.append(states, compute.mean(axis=1) if n_gpus else np.zeros(last - first))
        self._done = last
        return last - first

    def _activities(self) -> Iterable[Activity]:
        for workload in self.workloads:
            yield from workload.activity()

    def _moving(self, first: int, last: int) -> np.ndarray:
        """(frames x GPUs) True where the GPU's data moves: its rail NIC busy in a direction,
        or one of its NVLink transfers progressing."""
        n_gpus = len(self.timeline.gpus)
        util = self.stream.link_rows("utilisation", first, last)
        busy = np.zeros((last - first, n_gpus), dtype=bool)
        for column in (self._send, self._receive):
            cabled = column >= 0
            busy[:, cabled] |= util[:, column[cabled]] >= BUSY_NIC
        if not self._flow_nvlink.any():
            return busy
        for row in range(last - first):
            _t, ids, flows = self.stream.flow_frame(first + row)
            if not ids:
                continue
            ids_array = np.asarray(ids, dtype=np.int64)
            known = ids_array < len(self._flow_nvlink)
            ids_array = ids_array[known]
            rates = np.asarray(flows.get("rate_gbps", np.zeros(len(ids))))[known]
            nvlink = self._flow_nvlink[ids_array] & (rates > 0)
            for column in (self._flow_src, self._flow_dst):
                gpus = column[ids_array[nvlink]]
                busy[row, gpus[gpus >= 0]] = True
        return busy


def track_simulation(simulation: Any) -> GpuActivityTracker:
    """A tracker for a :class:`~fabricstudio.sim.run.Simulation` (its frozen design, stream,
    workloads and the engine's flow records)."""
    return GpuActivityTracker(simulation.design, simulation.stream, simulation.workloads,
                              simulation.engine.flows)


__all__ = ["BUSY_NIC", "GpuActivityTracker", "GpuState", "GpuTimeline", "STATE_LABELS",
           "gpu_addresses", "nic_link_indices", "track_simulation"]
