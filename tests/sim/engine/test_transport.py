"""Sender mechanisms in isolation: DCQCN reaction point, RoCE go-back-N, warnings (TCP:
test_tcp.py)."""

import pytest

from fabricstudio.model import DcqcnSettings, InfinibandSettings, Technology
from fabricstudio.sim.engine import Engine, EngineConfig
from fabricstudio.sim.engine.clock import Call
from fabricstudio.sim.engine.flows import DcqcnFlow
from tests.sim.engine.designs import fabric, star
from tests.sim.engine.helpers import assert_conserved


def first_flow(eng: Engine):
    eng.advance(2e-6)
    (flow,) = eng.net.endpoint_of[("h1", 0)].up.flows
    return flow


def cnp(rp) -> None:
    rp.on_cnp(Call())


#: The paper's algorithm and constants (the defaults follow deployed NICs instead).
PAPER = dict(byte_counter_bytes=0, fast_recovery_steps=5, rate_increase_timer_us=55.0,
             rai_mbps=40.0, rhai_mbps=200.0, scale_increase_with_rate=False,
             clamp_target_rate=True, rate_decrease_period_us=0)


def test_dcqcn_cut_alpha_and_fast_recovery_follow_the_paper():
    settings = fabric(dcqcn=DcqcnSettings(**PAPER))
    eng = Engine(star(["h1", "h2"], settings=settings), EngineConfig(dcqcn=True))
    eng.add_flow("h1", "h2", 10**12)
    flow = first_flow(eng)
    assert isinstance(flow, DcqcnFlow)
    flow = flow.rp
    g, line = 1 / 256, flow.line
    cnp(flow)  # alpha starts at 1: the first CNP halves the rate
    assert flow.rc == pytest.approx(line / 2) and flow.rt == pytest.approx(line)
    assert flow.alpha == pytest.approx(1.0)
    t_cnp = eng.now
    # five timer periods of fast recovery: Rc = (Rt + Rc) / 2 each, Rt unchanged
    eng.advance(t_cnp + 5 * 55e-6 + 1e-9)
    assert flow.rt == pytest.approx(line)
    assert flow.rc == pytest.approx(line - (line / 2) / 2**5)
    # lazy alpha: k whole periods without a CNP decay alpha by (1-g)^k, with no events
    events = eng.stats()["events"]
    assert flow.alpha_at(t_cnp + 7 * 55e-6 + 1e-9) == pytest.approx((1 - g) ** 7)
    assert eng.stats()["events"] == events


def test_dcqcn_additive_increase_after_fast_recovery():
    dc = DcqcnSettings(**{**PAPER, "rai_mbps": 1000.0})
    eng = Engine(star(["h1", "h2"], settings=fabric(dcqcn=dc)), EngineConfig(dcqcn=True))
    eng.add_flow("h1", "h2", 10**12)
    flow = first_flow(eng).rp
    for _ in range(8):  # several CNPs drive Rt well below line rate
        cnp(flow)
    rt0 = flow.rt
    t = eng.now
    eng.advance(t + 6 * 55e-6 + 1e-9)  # 5 fast-recovery events, then one additive step
    assert flow.rt == pytest.approx(rt0 + 1000e6 / 8)


def test_dcqcn_rate_floor_and_pacing():
    dc = DcqcnSettings(**{**PAPER, "min_rate_mbps": 5000.0, "rate_increase_timer_us": 1000.0})
    eng = Engine(star(["h1", "h2"], settings=fabric(dcqcn=dc)), EngineConfig(dcqcn=True))
    fid = eng.add_flow("h1", "h2", 10**12)
    flow = first_flow(eng).rp
    for _ in range(200):
        cnp(flow)
    assert flow.rc == pytest.approx(5e9 / 8)
    eng.advance(eng.now + 20e-6)  # cells already on the wire arrive
    before = eng.flows[fid].delivered_bytes
    eng.advance(eng.now + 400e-6)  # shorter than one increase period
    rate = (eng.flows[fid].delivered_bytes - before) * 8 / 400e-6
    assert rate == pytest.approx(5e9 * 4096 / 4178, rel=0.1)  # paced at Rc on the wire


def test_dcqcn_defaults_keep_the_target_across_a_burst_of_cuts():
    settings = fabric(dcqcn=DcqcnSettings(byte_counter_bytes=0))  # timer-driven increases only
    eng = Engine(star(["h1", "h2"], settings=settings), EngineConfig(dcqcn=True))
    eng.add_flow("h1", "h2", 10**12)
    rp = first_flow(eng).rp
    line = rp.line
    assert rp.rai == pytest.approx(20e6 / 8 * line / (100e9 / 8))  # 5 Mb/s x C / 25G
    for _ in range(6):  # cuts 10 us apart: no timer increase in between
        eng.advance(eng.now + 10e-6)
        cnp(rp)
    assert rp.rt == pytest.approx(line)  # ConnectX clamp_tgt_rate 0: target kept
    assert rp.rc < line / 8
    low = rp.rc
    eng.advance(eng.now + 301e-6)  # one timer increase: fast recovery toward the kept target
    assert rp.rc > line / 2 - low
    cnp(rp)  # after a timer increase the next cut clamps the target
    assert rp.rt < line


def test_dcqcn_cuts_at_most_once_per_rate_decrease_period():
    settings = fabric(dcqcn=DcqcnSettings(byte_counter_bytes=0))
    eng = Engine(star(["h1", "h2"], settings=settings), EngineConfig(dcqcn=True))
    eng.add_flow("h1", "h2", 10**12)
    rp = first_flow(eng).rp
    for _ in range(5):  # five CNPs at once: one cut now, one folded cut after 4 us
        cnp(rp)
    assert rp.rc == pytest.approx(rp.line / 2)
    eng.advance(eng.now + 3.5e-6)
    assert rp.rc == pytest.approx(rp.line / 2)
    eng.advance(eng.now + 1e-6)  # alpha is still 1 (no alpha period has passed): halved again
    assert rp.rc == pytest.approx(rp.line / 4)


def test_lossy_flow_recovers_from_every_drop():
    eng = Engine(star(["h1", "h2", "h3", "r"], Technology.ETHERNET, buffer=300_000),
                 EngineConfig())
    for h in ("h1", "h2", "h3"):
        eng.add_flow(h, "r", 3_000_000)
    eng.advance(50e-3)
    totals = eng.totals()
    assert totals["drops"] > 0 and all(r.done for r in eng.flows)
    assert totals["goodput_bytes"] == 9_000_000
    assert totals["retransmitted_bytes"] >= totals["dropped_bytes"]
    assert_conserved(eng)


def test_infiniband_warns_when_credits_cannot_cover_the_loop():
    settings = fabric(Technology.INFINIBAND,
                      infiniband=InfinibandSettings(vl_buffer_bytes=8192))
    eng = Engine(star(["h1", "h2"], settings=settings), EngineConfig(cell_bytes=4096))
    assert any("cannot reach line rate" in w for w in eng.config_warnings)
    fid = eng.add_flow("h1", "h2", 10**12)
    eng.advance(1e-3)
    # 8 KB of credits over a ~2.6 us credit loop: far below 100 Gb/s
    assert eng.flows[fid].delivered_bytes * 8 / 1e-3 < 50e9
    assert eng.totals()["credit_stall_time_s"] > 0


def test_roce_without_pfc_recovers_losses_by_go_back_n_at_a_high_cost():
    from fabricstudio.model import PfcSettings

    def incast(settings):
        eng = Engine(star([f"h{i}" for i in range(8)] + ["r"], buffer=1_000_000,
                          length_m=3.0, settings=settings), EngineConfig(dcqcn=False))
        for i in range(8):
            eng.add_flow(f"h{i}", "r", 2_000_000)
        eng.advance(0.1)
        assert all(r.done for r in eng.flows)
        assert_conserved(eng)
        return eng, max(r.finish_s for r in eng.flows)

    lossy, lossy_done = incast(fabric(pfc=PfcSettings(enabled=False)))
    lossless, lossless_done = incast(fabric())
    assert any("go-back-N" in w for w in lossy.config_warnings)
    totals = lossy.totals()
    assert totals["drops"] > 0 and totals["lossless_violations"] == 0
    # go-back-N: cells behind a gap reach the receiver and are discarded, then resent
    assert totals["duplicate_bytes"] > 0
    assert totals["retransmitted_bytes"] >= totals["dropped_bytes"] + totals["duplicate_bytes"]
    assert totals["goodput_bytes"] == 16_000_000
    assert lossless.totals()["drops"] == 0
    assert lossy_done > 2 * lossless_done


def test_dcqcn_rate_belongs_to_the_queue_pair_not_the_message():
    """A new message on a throttled queue pair starts at its current rate; another queue
    pair between the same NICs starts at line rate."""
    eng = Engine(star(["h1", "h2"]), EngineConfig(dcqcn=True))
    eng.add_flow("h1", "h2", 1_000_000)
    rp = first_flow(eng).rp
    cnp(rp)
    eng.add_flow("h1", "h2", 1_000_000)
    eng.add_flow("h1", "h2", 1_000_000, qp=1)
    eng.advance(eng.now + 2e-6)
    flows = {f.rec.id: f for f in eng.net.endpoint_of[("h1", 0)].up.flows}
    same_qp, other_qp = flows[1], flows[2]
    assert same_qp.rp is rp and other_qp.rp is not rp
    assert other_qp.rp.rc == other_qp.rp.line > rp.rc
