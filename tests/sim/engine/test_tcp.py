"""TCP on lossy Ethernet, accounted per packet inside cells: NewReno, SACK with RACK-TLP,
DCTCP, the receive window, and packet-level drops at a full switch queue."""

import pytest

from fabricstudio.model import TcpSettings, Technology
from fabricstudio.sim.engine import Engine, EngineConfig
from fabricstudio.sim.engine.clock import Call
from fabricstudio.sim.engine.config import FlowRecord
from fabricstudio.sim.engine.nodes import EthernetSwitch
from fabricstudio.sim.engine.tcp import LOST, RECOVERY, RETRANS, SACKED, TcpFlow
from tests.sim.engine.designs import fabric, star
from tests.sim.engine.helpers import assert_conserved, jain, rates_gbps


def tcp_fabric(**tcp):
    return fabric(Technology.ETHERNET, tcp=TcpSettings(**tcp))


def sender(eng: Engine, host: str = "h1") -> TcpFlow:
    (flow,) = eng.net.endpoint_of[(host, 0)].up.flows
    assert isinstance(flow, TcpFlow)
    return flow


def ack(flow: TcpFlow, cum: int, first: int, end: int, ce: int = 0) -> None:
    """Feed the sender the ACK the receiver sends for packets first..end-1."""
    event = Call()
    event.arg = (cum, first, end, end - first, ce, flow.xmit[flow.base + end - 1 - flow.una])
    flow.on_ack(event)


def frozen_window(transport: str, window: int = 20, cell: int = 4096) -> tuple[Engine, TcpFlow]:
    """A flow whose first window has left and whose first ACK is still far away (1 km
    cables: ~25 us round trip)."""
    settings = tcp_fabric(transport=transport, initial_window_packets=window)
    eng = Engine(star(["h1", "h2"], settings=settings, length_m=1000),
                 EngineConfig(cell_bytes=cell))
    eng.add_flow("h1", "h2", 10**9)
    eng.advance(9e-6)
    flow = sender(eng)
    assert flow.nxt == window and flow.una == 0
    return eng, flow


def test_the_window_counts_packets_whatever_the_cell_size():
    """Three packets of window with 64 KiB (16-packet) cells: three packets leave."""
    settings = tcp_fabric(initial_window_packets=3)
    eng = Engine(star(["h1", "h2"], settings=settings), EngineConfig(cell_bytes=65536))
    eng.add_flow("h1", "h2", 10**9)
    eng.advance(2e-6)  # the first ACK is ~5 us away
    flow = sender(eng)
    assert flow.nxt == 3 and flow.pipe() == 3 and not flow._can_send()
    assert eng.totals()["offered_bytes"] == 3 * 4096


def test_newreno_fast_retransmit_partial_acks_and_timeout():
    eng, flow = frozen_window("newreno")
    for k in (1, 2):  # duplicate ACKs counted per packet: the 4-packet cell adds 4
        ack(flow, 0, k, k + 1)
    assert flow.state != RECOVERY
    ack(flow, 0, 3, 7)
    assert flow.state == RECOVERY and flow.cwnd == pytest.approx(10)  # halved
    eng.advance(eng.now + 1e-6)  # the NIC finishes its current cell (no ACK arrives yet)
    assert flow.flags[flow.base] & (LOST | RETRANS) == LOST | RETRANS  # resent at once
    assert eng.totals()["retransmitted_bytes"] == 4096
    ack(flow, 5, 7, 8)  # partial ACK: the next hole (packet 5) is resent at once
    eng.advance(eng.now + 1e-6)
    assert flow.flags[flow.base] & RETRANS and eng.totals()["retransmitted_bytes"] == 2 * 4096
    top = flow.recover  # what was outstanding when recovery began (new data went out since)
    ack(flow, top, top - 1, top)  # all of it: recovery ends at ssthresh (then grows again)
    assert flow.state == 0 and flow.ssthresh == 10 and 10 <= flow.cwnd < 12
    eng.advance(eng.now + 3e-6)
    outstanding = flow.nxt - flow.una
    rto = flow.rto
    flow._timeout(eng.now)
    assert flow.cwnd == 1 and flow.lost_out == outstanding and flow.retrans_out == 0
    assert flow.rto == pytest.approx(2 * rto) and eng.totals()["timeouts"] == 1


def test_sack_resends_only_the_holes_once_three_packets_are_sacked():
    eng, flow = frozen_window("sack")
    ack(flow, 0, 1, 3)
    assert flow.state != RECOVERY  # two SACKed packets: RACK still waits (reordering window)
    ack(flow, 0, 3, 4)
    assert flow.state == RECOVERY  # three: packet 0, sent before them, is lost
    assert flow.cwnd == pytest.approx(0.7 * 20)  # CUBIC's decrease
    eng.advance(eng.now + 1e-6)
    flags = flow.flags[flow.base:flow.base + 4]
    assert flags[0] == LOST | RETRANS and all(f == SACKED for f in flags[1:])
    assert eng.totals()["retransmitted_bytes"] == 4096  # only the hole


def drop_once(monkeypatch, packets: set[int]) -> None:
    """The switch drops the cells carrying these packet numbers the first time."""
    receive = EthernetSwitch.receive

    def lossy(switch, event):
        cell = event.arg
        if set(range(cell.seq, cell.seq + cell.npkts)) & packets:
            packets.difference_update(range(cell.seq, cell.seq + cell.npkts))
            switch.route(cell)
            switch.drop(cell, cell.via)
            return
        receive(switch, event)

    monkeypatch.setattr(EthernetSwitch, "receive", lossy)


@pytest.mark.parametrize("probe", [True, False])
def test_a_lost_tail_is_recovered_by_a_loss_probe_not_a_timeout(monkeypatch, probe):
    drop_once(monkeypatch, {37, 38, 39})  # the last three packets of the flow
    eng = Engine(star(["h1", "h2"], settings=tcp_fabric(tail_loss_probe=probe)),
                 EngineConfig(cell_bytes=4096))
    fid = eng.add_flow("h1", "h2", 40 * 4096)
    eng.advance(30e-3)
    done, totals = eng.flows[fid].finish_s, eng.totals()
    assert done is not None and totals["drops"] == 3
    if probe:  # 2 SRTT + 2 ms, then RACK marks the other two and recovery resends them
        assert totals["tail_loss_probes"] == 1 and totals["timeouts"] == 0
        assert 2e-3 < done < 3e-3
    else:
        assert totals["timeouts"] == 1 and done > 10e-3  # the 10 ms minimum RTO
    assert_conserved(eng)


def test_the_receive_window_limits_a_long_round_trip():
    def rate(rwnd: int | None) -> float:
        settings = tcp_fabric(**({"receive_window_bytes": rwnd} if rwnd else {}))
        eng = Engine(star(["h1", "h2"], settings=settings, length_m=1000), EngineConfig())
        fid = eng.add_flow("h1", "h2", 10**10)
        (gbps,) = rates_gbps(eng, [fid], 1e-3, 2e-3)
        return gbps

    rtt = 2 * (2 * 0.5e-6 + 2 * 5e-6 + 0.3e-6)  # NICs, two 1 km cables, the switch
    assert rate(16 * 4096) == pytest.approx(16 * 4096 * 8 / rtt / 1e9, rel=0.15)
    assert rate(None) == pytest.approx(100 * 4096 / 4174, rel=0.02)


def test_dctcp_keeps_the_queue_near_k_without_drops():
    settings = tcp_fabric(transport="dctcp")
    eng = Engine(star(["h1", "h2", "r"], settings=settings, buffer=4_000_000),
                 EngineConfig(sample_period_s=50e-6))
    ids = [eng.add_flow(h, "r", 10**10) for h in ("h1", "h2")]
    rates = rates_gbps(eng, ids, 2e-3, 4e-3)
    totals = eng.totals()
    assert totals["drops"] == 0 and totals["ecn_marks"] > 0
    assert sum(rates) == pytest.approx(100 * 4096 / 4174, rel=0.03) and jain(rates) > 0.95
    stats = {(s["from"], s["to"]): s for s in eng.link_stats(2e-3)}
    k = settings.tcp.dctcp_k_bytes_at_100g
    assert k < stats[("s", "r")]["max_queue_bytes"] < 2 * k  # marks hold it just above K
    flows = [f for ep in ("h1", "h2") for f in eng.net.endpoint_of[(ep, 0)].up.flows]
    assert all(0 < f.alpha < 1 for f in flows)


def test_a_cell_meeting_a_full_queue_keeps_the_packets_that_fit():
    """A 16-packet cell reaches a (paused) egress queue with room for three packets: it is
    taken apart, three packets are queued and thirteen dropped, counted per packet."""
    eng = Engine(star(["h1", "h2"], Technology.ETHERNET, buffer=400_000),
                 EngineConfig(cell_bytes=65536))
    src, dst = eng.net.endpoint_of[("h1", 0)], eng.net.endpoint_of[("h2", 0)]
    path, delay = eng._route(src, dst, 0)
    flow = TcpFlow(eng, FlowRecord(0, "h1", "h2", 10**9), src.up, path, dst.index, delay, None)
    switch, out = eng.net.switches["s"], dst.down
    out.paused = True
    # the queue may grow while it is below the free buffer (alpha 1), and each packet it
    # takes also shrinks the free buffer: 5 packets of headway are room for three packets
    switch.used = out.q_bytes = (400_000 - 5 * 4096) // 2
    cell = flow._cell(100, 16, eng.now)
    cell.via = src.up
    cell.tail = eng.now + 16 * 4174 / 12.5e9
    switch.receive_lossy(cell, out)
    eng.advance(eng.now + 10e-6)
    assert eng.totals()["drops"] == 13 and out.drops == 13
    assert [c.seq for c in out.queue] == [100, 101, 102]


def test_in_band_acks_take_their_share_of_the_link():
    """Two TCP flows in opposite directions: in band, each one's ACKs (84 B per 4096 B
    packet) ride the other's link, so each goodput drops by 84/(4174 + 84); out of band
    they cost nothing."""
    def run(in_band: bool):
        eng = Engine(star(["h1", "h2"], Technology.ETHERNET),
                     EngineConfig(control_in_band=in_band))
        ids = [eng.add_flow("h1", "h2", 10**10), eng.add_flow("h2", "h1", 10**10)]
        return eng, rates_gbps(eng, ids, 1e-3, 2e-3)

    out, (a, b) = run(False)
    inside, (c, d) = run(True)
    assert out.totals()["control_wire_bytes"] == 0
    assert inside.totals()["control_wire_bytes"] > 0
    share = 4174 / (4174 + 84)
    assert c == pytest.approx(a * share, rel=0.005) and d == pytest.approx(b * share, rel=0.005)
    stats = {(s["from"], s["to"]): s for s in inside.link_stats(1e-3)}
    assert stats[("h1", "s")]["utilisation"] == pytest.approx(1.0, abs=0.01)
    assert_conserved(inside)
