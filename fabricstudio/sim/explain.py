"""Why the fabrics differ, in plain language, from the runs' own figures.

:func:`explain_fabrics` takes the :class:`~fabricstudio.sim.moments.RunFacts` of the same
workload on several fabrics and returns a few sentences for the Compare panel, the presenter
and the recordings.  Every number comes from the runs; a sentence that claims a cause is only
said when the figures carry it (e.g. "DCQCN gave the all-reduce more of the shared port" only
when the fabric with the busiest GPUs is also the one whose collective got the largest share
of the port where the burst met it).

The mechanisms named are the engine's (docs/engine.md): InfiniBand credits (and FECN/BECN
congestion control only when the design enables it), RoCE's PFC PAUSE with ECN marking and
DCQCN rate cuts, lossy Ethernet's tail drops with fast retransmit, tail loss probes and
retransmission timeouts.
Switch egress queues are FIFOs: a collective's hop that shares a port with a burst waits
behind whatever the burst has queued there.
"""

from __future__ import annotations

from collections.abc import Mapping

from fabricstudio.model.units import format_bytes
from fabricstudio.sim.moments import RunFacts


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _share(value: float) -> str:
    return f"{100 * value:.0f}%" if value >= 0.01 else "under 1%"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def _port(meeting_port: str) -> str:
    """``su1-rail1 > server1`` -> ``su1-rail1's port to server1``."""
    src, _, dst = meeting_port.partition(" > ")
    return f"{src}'s port to {dst}"


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _collective_share(facts: RunFacts) -> float:
    """The port share of whatever was not the burst (the collective's hop)."""
    return sum(v for k, v in facts.port_share.items() if k != "incast")


def _mechanism(label: str, facts: RunFacts, share: str) -> str:
    """How this fabric treated the burst at the shared port and what the collective got."""
    if facts.technology == "infiniband":
        if facts.ib_congestion_control:
            return (f"{label}'s congestion control slowed the burst ({facts.ecn_marks:,} FECN "
                    f"marks): {share}")
        return (f"{label} (no congestion control here) shares the port among its busy inputs "
                f"as cells arrive: {share}")
    if facts.technology == "roce" and facts.dcqcn:
        return (f"{label}'s {facts.cnps:,} CNPs slowed the {facts.burst_senders} burst senders "
                f"and kept the queue under {format_bytes(facts.port_peak_queue_bytes)}: {share}")
    if facts.technology == "roce":
        queue = format_bytes(facts.port_peak_queue_bytes)
        return (f"{label} lets the burst fill the queue ({queue}, {facts.pauses:,} PAUSE frames)"
                f" and the all-reduce waits behind it: {share}")
    return f"{label}: {share}"


def _loss_sentence(label: str, facts: RunFacts) -> str | None:
    if not facts.drops:
        return None
    where = (f" at {_port(facts.meeting_port)}" if facts.meeting_port
             else f" at {facts.drop_switch}" if facts.drop_switch else "")
    text = f"{label} dropped {facts.drops:,} packets{where}"
    if facts.tail_loss_probes:
        text += (f" and resent {format_bytes(facts.retransmitted_bytes)}; fast retransmit "
                 "repairs a loss only when a later packet arrives, so lost last packets waited for "
                 + _join([f"{facts.tail_loss_probes:,} loss probe"
                          f"{'' if facts.tail_loss_probes == 1 else 's'}"]
                         + ([f"{facts.timeouts:,} retransmission timeout"
                             f"{'' if facts.timeouts == 1 else 's'}"] if facts.timeouts else []))
                 + (f" (up to {_ms(facts.longest_stall_s)} without progress)"
                    if facts.longest_stall_s else ""))
    elif facts.timeouts:
        times = {1: "a", 2: "two"}.get(facts.timeouts, str(facts.timeouts))
        plural = "" if facts.timeouts == 1 else "s"
        text += (f"; {times} {_ms(facts.min_rto_s)} retransmission timeout{plural} stalled "
                 "every GPU of the collective")
    else:
        text += f" and resent {format_bytes(facts.retransmitted_bytes)}"
    if facts.gpu_utilisation is not None:
        text += f": GPUs busy {_pct(facts.gpu_utilisation)} of the time"
    return text + "."


def _dispatch_sentence(facts: Mapping[str, RunFacts]) -> str | None:
    """How long the MoE token dispatch took on each fabric (the GPUs wait for it)."""
    timed = {label: f.dispatch_s for label, f in facts.items() if f.dispatch_s is not None}
    if len(timed) < 2:
        return None
    return ("The GPUs wait for the token dispatch; it took "
            + "; ".join(f"{_ms(t)} on {label}" for label, t in timed.items()) + ".")


def _lossless_sentence(facts: Mapping[str, RunFacts]) -> str | None:
    clean = [label for label, f in facts.items() if not f.drops and f.technology != "ethernet"]
    if not clean:
        return None
    how = []
    if any(facts[label].technology == "infiniband" for label in clean):
        how.append("credits")
    if any(facts[label].technology == "roce" for label in clean):
        how.append("PAUSE")
    verb = "holds" if how == ["PAUSE"] else "hold"
    return f"The lossless fabrics drop nothing: {_join(how)} {verb} senders back instead."


def _contention_sentences(facts: Mapping[str, RunFacts]) -> list[str]:
    """Among the lossless fabrics: why the best one kept the GPUs busiest at the port where
    the burst met the collective (only when the port shares say so)."""
    lossless = {label: f for label, f in facts.items()
                if not f.drops and f.meeting_port and f.port_share
                and f.gpu_utilisation is not None}
    if len(lossless) < 2:
        return []
    ranked = sorted(lossless.items(), key=lambda item: -(item[1].gpu_utilisation or 0.0))
    best_label, best = ranked[0]
    shares = {label: _collective_share(f) for label, f in lossless.items()}
    if max(shares, key=lambda label: shares[label]) != best_label or \
            (best.gpu_utilisation or 0.0) - (ranked[-1][1].gpu_utilisation or 0.0) < 0.005:
        return []  # the port shares do not explain the ranking: say nothing causal
    assert best.meeting_port is not None  # filtered above
    clauses = [_mechanism(label, f, _share(shares[label])) for label, f in ranked]
    among = " of the lossless fabrics" if len(lossless) < len(facts) else ""
    text = [f"{best_label} keeps the GPUs busiest{among} ({_pct(best.gpu_utilisation)}). While the "
            f"burst and the all-reduce shared {_port(best.meeting_port)}, the all-reduce's "
            "share of it: " + "; ".join(clauses) + "."]
    if all(f.step_times_s for _, f in ranked):
        text.append("A ring runs at its slowest hop: the step with the burst took "
                    + " / ".join(_ms(f.step_times_s[0]) for _, f in ranked) + ".")
    return text


def _lossy_ahead_sentences(facts: Mapping[str, RunFacts]) -> list[str]:
    """A lossy fabric whose GPUs were busier than every lossless one's: said plainly."""
    lossless = [(f.gpu_utilisation, label) for label, f in facts.items()
                if not f.drops and f.gpu_utilisation is not None]
    if not lossless:
        return []
    best, best_label = max(lossless)
    out = []
    for label, f in facts.items():
        if not f.drops or f.gpu_utilisation is None or f.gpu_utilisation <= best:
            continue
        how = ("fast retransmit recovered every loss without a retransmission timeout"
               if not f.timeouts and not f.tail_loss_probes else
               f"despite {f.timeouts:,} retransmission timeouts and {f.tail_loss_probes:,} "
               "loss probes")
        out.append(f"On this run the losses cost {label} less than the lossless fabrics lost "
                   f"to the burst: its GPUs were busier ({_pct(f.gpu_utilisation)}, "
                   f"{best_label} {_pct(best)}); {how}.")
    return out


def explain_fabrics(facts: Mapping[str, RunFacts]) -> list[str]:
    """Plain sentences on why the runs of ``facts`` (label -> RunFacts, in display order)
    differ; empty when there is nothing to compare."""
    if not facts:
        return []
    out = []
    for label, f in facts.items():
        sentence = _loss_sentence(label, f)
        if sentence:
            out.append(sentence)
    sentence = _lossless_sentence(facts)
    if sentence and any(f.drops for f in facts.values()):
        out.append(sentence)
    sentence = _dispatch_sentence(facts)
    if sentence:
        out.append(sentence)
    out += _contention_sentences(facts)
    out += _lossy_ahead_sentences(facts)
    return out
