"""The moments that matter in a run, found in its own records and told in one line each.

:func:`find_captions` reads a finished (or partly run) :class:`~fabricstudio.sim.run.Simulation`
- its workloads' phases, the metric stream's per-link counters and the engine's flow records -
and returns time-stamped :class:`Caption` s such as "PAUSE spreads from su1-rail1 to 6
senders", "DCQCN slows the 7 burst senders (137 CNPs)" or "server3 waits for a 10 ms
retransmission timeout".  Nothing is scripted: a caption appears only when the run's counters
show its event, and its numbers are the run's.

:func:`run_facts` condenses a run into the figures :mod:`fabricstudio.sim.explain` compares
across fabrics (picklable plain data, so a comparison's child processes can send it back).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from fabricstudio.model import DeviceKind, Technology
from fabricstudio.model.units import format_bytes, gbps_to_bytes_per_s
from fabricstudio.sim.engine.tcp import TLP_EXTRA_S
from fabricstudio.sim.metrics import DirectedLink, MetricStream
from fabricstudio.sim.workloads.addresses import rail_of, server_of

#: A network flow that makes no progress for this fraction of the minimum RTO, in a run that
#: counted retransmission timeouts, is shown waiting for one.
STALL_OF_RTO = 0.5


@dataclass(frozen=True)
class Caption:
    """One line about the run, shown from ``start_s`` (simulated seconds) on.

    ``kind`` groups captions (phase, burst, pause, ecn, credit, drop, timeout, step, end);
    ``focus`` names the devices the line is about (highlighted, and framed by a story's
    camera).  ``end_s`` is set where the moment has a known end (a timeout's stall).
    """

    start_s: float
    text: str
    kind: str
    focus: tuple[str, ...] = ()
    end_s: float | None = None


def caption_at(captions: Sequence[Caption], t: float) -> Caption | None:
    """The caption to show at simulated time ``t``: the latest one started by then, except
    that a moment with an end (a timeout's stall) stays up until it ends."""
    started = [c for c in captions if c.start_s <= t + 1e-12]
    lasting = [c for c in started if c.end_s is not None and c.end_s >= t]
    if lasting:
        return lasting[-1]
    return started[-1] if started else None


# ---------------------------------------------------------------------- helpers
def _ms(seconds: float) -> str:
    if seconds >= 1.0:  # an LLM iteration: "9.39 s", not "9.39e+03 ms"
        return f"{seconds:.3g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def _size(nbytes: float) -> str:
    return format_bytes(nbytes)


def _names(devices: Sequence[str], limit: int = 3) -> str:
    devices = list(devices)
    if len(devices) <= limit:
        return ", ".join(devices[:-1]) + (" and " if len(devices) > 1 else "") + devices[-1]
    return f"{', '.join(devices[:limit])} and {len(devices) - limit} more"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _first_frame(stream: MetricStream, name: str, threshold: float = 0.0) -> int | None:
    column = stream.link_series(name)
    if not column.size:
        return None
    rows = np.flatnonzero((column > threshold).any(axis=1))
    return int(rows[0]) if len(rows) else None


def _frame_start(stream: MetricStream, index: int) -> float:
    return max(0.0, float(stream.times[index]) - stream.sample_period_s)


def label_of(design: Any, address: str) -> str:
    """What the canvas calls a device or endpoint: the device's name (its id when unnamed),
    with a ``/gpuN`` suffix kept (``server1/gpu0``, ``su1-rail1``)."""
    device_id, slash, rest = address.partition("/")
    device = design.devices.get(device_id)
    name = device.label if device is not None else device_id
    return name + slash + rest


def _device_kind(design: Any, device_id: str) -> DeviceKind | None:
    device = design.devices.get(device_id)
    return DeviceKind(device.kind) if device is not None else None


# ---------------------------------------------------------------------- phases
def _phase_captions(workloads: Sequence[Any], design: Any) -> list[Caption]:
    out: list[Caption] = []
    for workload in workloads:
        kind = workload.kind
        if kind == "training":
            out += _training_captions(workload)
        elif kind == "incast":
            out += _burst_captions(workload, design)
        elif kind == "llm_training":
            out += _llm_captions(workload)
        elif hasattr(workload, "runs") and workload.start_s is not None:
            name = kind.replace("_", "-")
            ranks = len(getattr(workload, "ranks", ()))
            out.append(Caption(workload.start_s, f"The {name} of {_size(workload.size_bytes)} "
                               f"across {ranks} GPUs starts", "phase"))
            for began, ended in workload.runs:
                out.append(Caption(ended, f"The {name} is done in {_ms(ended - began)}",
                                   "step"))
        elif workload.start_s is not None:
            out.append(Caption(workload.start_s, f"{kind.replace('_', ' ').capitalize()} "
                               f"starts ({_size(workload.planned_bytes)})", "phase"))
    return out


def _llm_captions(workload: Any) -> list[Caption]:
    """The iteration starts (model and parallelism); each iteration ends (with the same
    iteration's time on an ideal network)."""
    if workload.start_s is None:
        return []
    plan = workload.plan
    grid = f"TP {plan.tp} x PP {plan.pp} x DP {plan.dp}" + (
        f" x CP {plan.cp}" if plan.cp > 1 else "")
    out = [Caption(workload.start_s, f"{plan.model.name} training starts: {grid} on "
                   f"{plan.gpus:,} GPUs", "phase")]
    t = workload.start_s
    ideal = workload.ideal.time_s
    for i, result in enumerate(workload.results):
        t += result.time_s
        out.append(Caption(t, f"Iteration {i + 1} done in {_ms(result.time_s)} (an ideal "
                           f"network: {_ms(ideal)})", "step"))
    return out


def _training_captions(workload: Any) -> list[Caption]:
    ranks = len(workload.allreduce.ranks)
    compute = workload.spec.compute_s
    size = _size(workload.allreduce.size_bytes)
    servers = sorted({server_of(r) for r in workload.allreduce.ranks})
    out = []
    dispatches = getattr(workload, "dispatches", [])
    for i, (began, comm_began, ended) in enumerate(workload.iterations, start=1):
        out.append(Caption(began, f"Step {i}: {ranks} GPUs compute the forward and backward "
                           f"pass ({_ms(compute)})", "phase"))
        if i <= len(dispatches):
            out += _dispatch_captions(workload, i, *dispatches[i - 1])
        if comm_began is not None:
            out.append(Caption(comm_began, f"Step {i}: the {ranks} GPUs all-reduce {size} of "
                               f"gradients across {_plural(len(servers), 'server')}",
                               "phase"))
        if ended is not None:
            busy = compute / (ended - began) if ended > began else 1.0
            out.append(Caption(ended, f"Step {i} done in {_ms(ended - began)}: the GPUs "
                               f"computed {100 * busy:.0f}% of it", "step"))
    return out


def _dispatch_captions(workload: Any, i: int, began: float, ended: float | None
                       ) -> list[Caption]:
    """Step ``i``'s MoE token dispatch: who sends what to the overloaded experts, and when
    the last token arrived."""
    spec = workload.spec.expert_dispatch
    experts = list(dict.fromkeys(spec.experts))
    fan_in = max(sum(1 for _, dst in workload.dispatch_pairs if dst == e) for e in experts)
    focus = tuple(dict.fromkeys(server_of(e) for e in experts))
    out = [Caption(began, f"Step {i}: an MoE layer dispatches its tokens: every GPU sends "
                   f"{_size(spec.bytes)} to each of {_plural(len(experts), 'overloaded expert')}"
                   f" ({_names(experts, 4)}), a {fan_in}:1 incast into each; every GPU waits "
                   "for them", "burst", focus)]
    if ended is not None:
        out.append(Caption(ended, f"Step {i}: the last tokens arrive after "
                           f"{_ms(ended - began)}", "step", focus))
    return out


def _burst_captions(workload: Any, design: Any) -> list[Caption]:
    if workload.start_s is None or not workload.flows:
        return []
    senders = [f[0] for f in workload.flows]
    receiver = workload.flows[0][1]
    size = _size(workload.flows[0][2])
    focus = tuple(dict.fromkeys([server_of(receiver), *(server_of(s) for s in senders)]))
    out = [Caption(workload.start_s, f"A burst: {_plural(len(senders), 'GPU')} send {size} "
                   f"each to {label_of(design, receiver)} ({len(senders)}:1)", "burst", focus)]
    if workload.finish_s is not None:
        out.append(Caption(workload.finish_s, f"The burst is delivered after "
                           f"{_ms(workload.finish_s - workload.start_s)}", "burst", focus))
    return out


def _end_caption(simulation: Any) -> Caption | None:
    """When everything is done: the run's completion and the fleet's GPU utilisation."""
    workloads = simulation.workloads
    if not workloads or not all(w.done for w in workloads):
        return None
    end = max(w.finish_s for w in workloads)
    text = f"All done at {_ms(end)}"
    for workload in workloads:
        summary = workload.summary() if workload.kind in ("training", "llm_training") else None
        if summary is None or summary.get("gpu_utilisation") is None:
            continue
        if workload.kind == "training":
            text += (f": the GPUs computed {100 * summary['gpu_utilisation']:.1f}% of the time "
                     f"({_plural(summary['iterations'], 'step')} of "
                     f"{_ms(summary['step_time_s'])} on average)")
        else:
            text += (f": the GPUs computed {100 * summary['gpu_utilisation']:.1f}% of the time "
                     f"({_plural(summary['iterations'], 'iteration')} of "
                     f"{_ms(summary['iteration_time_s'])} on average)")
        break
    return Caption(end, text, "end")


# ---------------------------------------------------------------------- fabric events
def _pause_caption(stream: MetricStream, design: Any) -> Caption | None:
    first = _first_frame(stream, "pauses_sent")
    if first is None:
        return None
    links = stream.links
    frame = stream.frame(first)
    origins = list(dict.fromkeys(links[i].dst for i in
                                 np.flatnonzero(frame.links["pauses_sent"] > 0)))
    held_rows = np.flatnonzero(stream.link_series("paused").sum(axis=0) > 0)
    held = list(dict.fromkeys(links[i].src for i in held_rows))
    total = int(stream.link_series("pauses_sent").sum())
    names = [label_of(design, d) for d in origins]
    text = (f"PAUSE spreads from {_names(names, 2)} to {_plural(len(held), 'sender')}"
            f" ({total:,} PAUSE frames)")
    return Caption(_frame_start(stream, first), text, "pause", tuple([*origins, *held]))


def _credit_caption(stream: MetricStream, design: Any) -> Caption | None:
    first = _first_frame(stream, "credit_stall", 0.01)
    if first is None:
        return None
    links = stream.links
    stalls = stream.link_series("credit_stall").sum(axis=0)
    rows = np.flatnonzero(stalls > 0.01)
    held = list(dict.fromkeys(links[i].src for i in rows))
    worst = links[int(np.argmax(stalls))]
    text = (f"Credits run out towards {label_of(design, worst.dst)}: "
            f"{_plural(len(held), 'sender')} wait "
            "(InfiniBand holds data back instead of dropping it)")
    return Caption(_frame_start(stream, first), text, "credit", (worst.dst, *held))


def _drop_caption(stream: MetricStream, design: Any) -> Caption | None:
    first = _first_frame(stream, "drops")
    if first is None:
        return None
    drops = stream.link_series("drops").sum(axis=0)
    worst = stream.links[int(np.argmax(drops))]
    total = int(drops.sum())
    text = (f"{label_of(design, worst.src)} drops packets on its full port to "
            f"{label_of(design, worst.dst)} "
            f"({total:,} drops in the run)")
    return Caption(_frame_start(stream, first), text, "drop", (worst.src, worst.dst))


def _flows_into(link: DirectedLink, design: Any, records: Sequence[Any]) -> list[Any]:
    """Network flows whose last hop is ``link`` (a link into a server's NIC)."""
    return [r for r in records if server_of(r.dst) == link.dst
            and server_of(r.src) != link.dst and rail_of(design, r.dst) == link.dst_port]


def _ecn_caption(stream: MetricStream, design: Any, records: Sequence[Any],
                 tags: dict[str, str]) -> Caption | None:
    first = _first_frame(stream, "cnps")
    if first is None:
        return None
    cnps = stream.link_series("cnps").sum(axis=0)
    hot = stream.links[int(np.argmax(cnps))]
    total = int(cnps.sum())
    t = _frame_start(stream, first)
    if _device_kind(design, hot.dst) is not DeviceKind.GPU_SERVER:
        return Caption(t, f"DCQCN slows the senders whose packets {label_of(design, hot.src)} "
                          f"marks "
                          f"({total:,} CNPs)", "ecn", (hot.src, hot.dst))
    flows = [r for r in _flows_into(hot, design, records)
             if r.start_s <= stream.times[-1] and (r.finish_s is None or r.finish_s >= t)]
    by_kind: dict[str, set[str]] = {}
    for record in flows:
        by_kind.setdefault(tags.get(record.tag, "other"), set()).add(record.src)
    parts = []
    for kind, noun in (("incast", "burst sender"), ("training", "all-reduce sender"),
                       ("other", "sender")):
        if kind in by_kind:
            parts.append(_plural(len(by_kind[kind]), noun))
    for kind, senders in by_kind.items():
        if kind not in ("incast", "training", "other"):
            parts.append(_plural(len(senders), f"{kind.replace('_', '-')} sender"))
    who = " and ".join(parts) if parts else "the senders"
    if len(parts) == 1 and parts[0].split()[0] != "1":
        who = "the " + who
    focus = tuple(dict.fromkeys([hot.src, hot.dst, *(server_of(r.src) for r in flows)]))
    return Caption(t, f"DCQCN slows {who} into {label_of(design, hot.dst)} ({total:,} CNPs)",
                   "ecn", focus)


# ---------------------------------------------------------------------- timeouts
def find_stalls(stream: MetricStream, records: Sequence[Any], min_gap_s: float
                ) -> list[tuple[int, float, float]]:
    """(flow id, from, to) of network flows that made no progress for at least
    ``min_gap_s`` while not yet delivered (to = the end of the recording if still stalled).

    ``records`` are the engine's flow records by id (its flow log keeps the first few
    thousand and the live ones; a flow it has forgotten is not looked at)."""
    count = len(records)
    if not len(stream) or not count:
        return []
    last = np.full(count, np.nan)
    network = np.zeros(count, dtype=bool)
    delivered = np.ones(count, dtype=bool)
    for record in records:
        last[record.id] = record.start_s
        network[record.id] = server_of(record.src) != server_of(record.dst)
        delivered[record.id] = record.finish_s is not None
    stalls = []
    for index in range(len(stream)):
        t, ids, flows = stream.flow_frame(index)
        if not ids or "rate_gbps" not in flows:
            continue
        ids_array = np.asarray(ids, dtype=np.int64)
        rates = np.asarray(flows["rate_gbps"])
        known = ids_array < count
        moved = ids_array[known & (rates[:len(ids_array)] > 0)]
        begin = t - stream.sample_period_s
        gaps = begin - last[moved]
        with np.errstate(invalid="ignore"):
            stalled = (gaps >= min_gap_s) & network[moved]
        for fid in moved[stalled].tolist():
            stalls.append((fid, float(last[fid]), begin))
        last[moved] = t
    end = float(stream.times[-1])
    with np.errstate(invalid="ignore"):
        open_ = network & ~delivered & (last <= end) & (end - last >= min_gap_s)
    for fid in np.flatnonzero(open_).tolist():
        stalls.append((fid, float(last[fid]), end))
    return sorted(stalls, key=lambda s: s[1])


def stall_threshold_s(min_rto_s: float, probes: bool) -> float:
    """No progress for this long counts as a stall: half the minimum RTO, or with tail loss
    probes in the run the probe's own allowance (2 ms, Linux TCP_TIMEOUT_MIN, if shorter)."""
    return min(STALL_OF_RTO * min_rto_s, TLP_EXTRA_S) if probes else STALL_OF_RTO * min_rto_s


def _timeout_captions(stream: MetricStream, records: Sequence[Any], min_rto_s: float,
                      tags: dict[str, str], design: Any, timeouts: int = 1,
                      probes: int = 0) -> list[Caption]:
    """One caption per stall episode.  A run that only timed out says so; one with tail loss
    probes says what they are for: a lost last packet that no later packet reveals."""
    stalls = find_stalls(stream, records, stall_threshold_s(min_rto_s, bool(probes)))
    out: list[Caption] = []
    for fid, begin, end in _longest_per_episode(stalls):
        record = records[fid]
        server = server_of(record.src)
        kind = tags.get(record.tag)
        if probes:
            how = "a loss probe or a timeout" if timeouts else "a loss probe"
            text = (f"{label_of(design, server)} waits {_ms(end - begin)} for its lost last "
                    f"packets: no later packet reveals the loss, only {how} resends them")
            if not timeouts and end - begin >= 0.9 * min_rto_s:
                text += (f" (with one packet left the probe waits as long as the "
                         f"{_ms(min_rto_s)} minimum RTO)")
        else:
            text = (f"{label_of(design, server)} waits for a {_ms(min_rto_s)} retransmission "
                    f"timeout ({_ms(end - begin)} without progress)")
        if kind in ("training", "all_reduce", "all_gather", "reduce_scatter"):
            text += ": the whole ring waits with it"
        elif kind == "expert_dispatch":
            text += ": every GPU waits for these tokens"
        out.append(Caption(begin, text, "timeout", (server, server_of(record.dst)), end))
    return out


def _longest_per_episode(stalls: list[tuple[int, float, float]]
                         ) -> list[tuple[int, float, float]]:
    """The longest stall of each episode (stalls that overlap in time), in time order."""
    out: list[tuple[int, float, float]] = []
    episode_end = -1.0
    for stall in stalls:  # sorted by start
        if out and stall[1] < episode_end:
            if stall[2] - stall[1] > out[-1][2] - out[-1][1]:
                out[-1] = stall
            episode_end = max(episode_end, stall[2])
            continue
        out.append(stall)
        episode_end = stall[2]
    return out


# ---------------------------------------------------------------------- public
def workload_tags(workloads: Sequence[Any]) -> dict[str, str]:
    """Flow tag -> workload kind (``w1:incast`` -> ``incast``; a training step's MoE token
    dispatch -> ``expert_dispatch``)."""
    tags = {workload.tag: workload.kind for workload in workloads}
    for workload in workloads:
        if getattr(workload, "dispatch_pairs", None):
            tags[workload.dispatch_tag] = "expert_dispatch"
    return tags


def min_rto_s(simulation: Any) -> float:
    """The minimum retransmission timeout the run used (seconds)."""
    return float(simulation.engine.fabric.tcp.min_rto_us) * 1e-6


def find_captions(simulation: Any) -> list[Caption]:
    """The captions of a run so far, in time order (see the module docstring)."""
    stream = simulation.stream
    records = simulation.engine.flows
    design = simulation.design
    tags = workload_tags(simulation.workloads)
    captions = _phase_captions(simulation.workloads, design)
    end = _end_caption(simulation)
    if end is not None:
        captions.append(end)
    if len(stream):
        for caption in (_pause_caption(stream, design), _credit_caption(stream, design),
                        _drop_caption(stream, design), _ecn_caption(stream, design, records, tags)):
            if caption is not None:
                captions.append(caption)
        totals = simulation.engine.totals()
        timeouts, probes = totals.get("timeouts", 0), totals.get("tail_loss_probes", 0)
        if timeouts or probes:  # the engine's counters confirm the stalls
            captions += _timeout_captions(stream, records, min_rto_s(simulation), tags, design,
                                          timeouts, probes)
    if len(stream):  # nothing after the last frame, which the display can reach
        last = float(stream.times[-1])
        captions = [c if c.start_s <= last else replace(c, start_s=last) for c in captions]
    return sorted(captions, key=lambda c: c.start_s)


# ---------------------------------------------------------------------- facts
@dataclass
class RunFacts:
    """What one run's figures say, as plain data (compared across fabrics by
    :func:`fabricstudio.sim.explain.explain_fabrics`)."""

    technology: str
    dcqcn: bool
    ib_congestion_control: bool
    gpu_utilisation: float | None
    completion_s: float | None
    step_times_s: list[float]
    drops: int
    retransmitted_bytes: int
    timeouts: int
    min_rto_s: float
    longest_stall_s: float
    pauses: int
    ecn_marks: int
    cnps: int
    credit_stall_s: float
    #: The port the burst and the collective share: "leaf1 > server1" (None without a burst).
    meeting_port: str | None = None
    burst_senders: int = 0
    burst_start_s: float | None = None
    burst_end_s: float | None = None
    #: While the burst and the collective both ran: when, and the fraction of the meeting
    #: port's line rate each workload kind got (``{"incast": 0.8, "training": 0.12}``).
    contention_s: tuple[float, float] | None = None
    port_share: dict[str, float] = field(default_factory=dict)
    #: Deepest queue at the meeting port (bytes).
    port_peak_queue_bytes: float = 0.0
    #: Tail loss probes sent (lossy Ethernet's TCP).
    tail_loss_probes: int = 0
    #: Mean MoE token dispatch time of the training steps (None without a dispatch).
    dispatch_s: float | None = None
    #: The switch that dropped most packets (None without drops).
    drop_switch: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return asdict(self)


def _burst(workloads: Sequence[Any]) -> Any:
    for workload in workloads:
        if workload.kind == "incast" and workload.flows:
            return workload
    return None


def _meeting_link(stream: MetricStream, design: Any, receiver: str) -> DirectedLink | None:
    port = rail_of(design, receiver)
    server = server_of(receiver)
    for link in stream.links:
        if link.dst == server and link.dst_port == port:
            return link
    return None


def _port_share(stream: MetricStream, link: DirectedLink, design: Any, records: Sequence[Any],
                tags: dict[str, str], begin: float, end: float) -> dict[str, float]:
    """Per workload kind: bytes delivered into ``link``'s NIC in [begin, end] over what the
    link could carry in that time."""
    flows = _flows_into(link, design, records)
    kind_of = {r.id: tags.get(r.tag, "other") for r in flows}
    moved: dict[str, float] = {}
    period = stream.sample_period_s
    first = stream.index_at(begin)
    for index in range(max(first, 0), len(stream)):
        t, ids, data = stream.flow_frame(index)
        if t - period >= end:
            break
        if t <= begin:
            continue
        rates = np.asarray(data["rate_gbps"])
        for position, fid in enumerate(ids):
            kind = kind_of.get(fid)
            if kind is not None:
                moved[kind] = (moved.get(kind, 0.0)
                               + gbps_to_bytes_per_s(float(rates[position])) * period)
    capacity = gbps_to_bytes_per_s(link.speed_gbps) * max(end - begin, 1e-12)
    return {kind: value / capacity for kind, value in moved.items()}


def run_facts(simulation: Any, result: Any = None) -> RunFacts:
    """The figures of a run that explain how it went (see :class:`RunFacts`)."""
    result = result if result is not None else simulation.result()
    totals = result.totals
    steps = [s for w in simulation.workloads if w.kind == "training"
             for s, _ in getattr(w, "steps", ())]
    probes = int(getattr(totals, "tail_loss_probes", 0) or 0)
    stalls = (find_stalls(simulation.stream, simulation.engine.flows,
                          stall_threshold_s(min_rto_s(simulation), bool(probes)))
              if totals.timeouts or probes else [])
    facts = RunFacts(
        technology=Technology(result.run.technology).value, dcqcn=bool(result.run.dcqcn),
        ib_congestion_control=bool(simulation.engine.fabric.infiniband.congestion_control),
        gpu_utilisation=gpu_utilisation(result),
        completion_s=result.completion_time_s, step_times_s=steps,
        drops=totals.drops, retransmitted_bytes=totals.retransmitted_bytes,
        timeouts=totals.timeouts, min_rto_s=min_rto_s(simulation),
        longest_stall_s=max((b - a for _f, a, b in stalls), default=0.0),
        pauses=totals.pfc_pauses, ecn_marks=totals.ecn_marks, cnps=totals.cnps,
        credit_stall_s=float(totals.credit_stall_time_s), tail_loss_probes=probes,
        dispatch_s=(result.training.dispatch_time_s if result.training is not None else None),
        drop_switch=_worst_dropper(simulation.stream, simulation.design))
    burst = _burst(simulation.workloads)
    if burst is not None and burst.start_s is not None:
        link = _meeting_link(simulation.stream, simulation.design, burst.flows[0][1])
        end = burst.finish_s if burst.finish_s is not None else simulation.now
        facts.burst_senders = len(burst.flows)
        facts.burst_start_s, facts.burst_end_s = burst.start_s, burst.finish_s
        if link is not None:
            design = simulation.design
            facts.meeting_port = f"{label_of(design, link.src)} > {label_of(design, link.dst)}"
            window = _contention(simulation.workloads, burst, burst.start_s, end)
            facts.contention_s = window
            facts.port_share = _port_share(simulation.stream, link, design,
                                           simulation.engine.flows,
                                           workload_tags(simulation.workloads), *window)
            queue = simulation.stream.link_series("queue_max_bytes", link.index)
            facts.port_peak_queue_bytes = float(queue.max()) if len(queue) else 0.0
    return facts


def _worst_dropper(stream: MetricStream, design: Any) -> str | None:
    """The device whose ports dropped most packets (None without drops)."""
    if not len(stream):
        return None
    drops = stream.link_series("drops").sum(axis=0)
    if not len(drops) or drops.max() <= 0:
        return None
    by_device: dict[str, float] = {}
    for link, count in zip(stream.links, drops, strict=True):
        by_device[link.src] = by_device.get(link.src, 0.0) + float(count)
    return label_of(design, max(by_device, key=lambda d: by_device[d]))


def _contention(workloads: Sequence[Any], burst: Any, begin: float, end: float
                ) -> tuple[float, float]:
    """The part of [begin, end] in which another workload's communication also ran (the
    whole burst when none did)."""
    ends = []
    for workload in workloads:
        if workload is burst:
            continue
        for activity in workload.activity():
            if activity.kind == "comm" and activity.start_s <= begin and \
                    (activity.end_s is None or activity.end_s > begin):
                ends.append(end if activity.end_s is None else activity.end_s)
    return (begin, min(end, max(ends))) if ends else (begin, end)


def gpu_utilisation(result: Any) -> float | None:
    """The run's GPU utilisation: its training steps', else its LLM iterations' (None when
    it trained nothing)."""
    if result is None:
        return None
    if result.training is not None:
        return float(result.training.gpu_utilisation)
    llm = getattr(result, "llm_training", None)
    if llm is not None and llm.gpu_utilisation is not None:
        return float(llm.gpu_utilisation)
    return None
