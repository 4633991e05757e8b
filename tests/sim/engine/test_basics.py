"""Engine basics: V1 goodput, addressing, NVLink, errors, determinism, frames."""

import pytest

from fabricstudio.model import Technology
from fabricstudio.sim.engine import Engine, EngineConfig, EngineError
from tests.sim.engine.designs import server, star
from tests.sim.engine.helpers import assert_conserved, rates_gbps


@pytest.mark.parametrize("tech", list(Technology))
def test_v1_single_flow_goodput_is_line_rate_minus_wire_overhead(tech):
    eng = Engine(star(["h1", "h2"], tech), EngineConfig())
    fid = eng.add_flow("h1", "h2", 10**12)
    (rate,) = rates_gbps(eng, [fid], 0.2e-3, 1.2e-3)
    mtu = eng.fabric.mtu_bytes
    expected = 100 * mtu / (mtu + eng.fabric.wire_overhead_bytes())
    assert rate == pytest.approx(expected, rel=0.02)
    assert_conserved(eng)
    stats = {(s["from"], s["to"]): s for s in eng.link_stats(0.2e-3)}
    assert stats[("h1", "s")]["utilisation"] == pytest.approx(1.0, abs=0.01)
    assert stats[("s", "h1")]["utilisation"] == 0.0


def test_finite_flow_completes_with_on_done_at_delivery_time():
    eng = Engine(star(["h1", "h2"]), EngineConfig())
    done = []
    eng.add_flow("h1", "h2", 1_000_000, start_s=1e-5, on_done=done.append, tag="x")
    eng.advance(1e-3)
    (rec,) = done
    assert rec.finish_s is not None and rec.delivered_bytes == 1_000_000 and rec.tag == "x"
    # 1 MB at ~98 Gb/s plus a few microseconds of latency
    assert 1e-5 + 1e6 * 8 / 100e9 < rec.finish_s < 1e-5 + 1e6 * 8 / 95e9 + 5e-6
    assert_conserved(eng)
    assert eng.totals()["in_flight_bytes"] == 0


def test_same_server_gpus_use_nvlink_not_the_fabric():
    design = star(["h1", "h2"])
    design.replace_device(server("h1", gpus=8, nics=1))
    eng = Engine(design, EngineConfig())
    done = []
    eng.add_flow("h1/gpu0", "h1/gpu5", 45_000_000, on_done=done.append)
    eng.advance(1e-3)
    assert done and done[0].finish_s == pytest.approx(45e6 * 8 / 3600e9, rel=0.01)
    assert eng.totals()["offered_bytes"] == 0


@pytest.mark.parametrize("src, dst, words", [
    ("nope", "h2", "unknown device"),
    ("s", "h2", "switch"),
    ("h1/gpu3", "h2", "no GPU 3"),
    ("h1/nic7", "h2", "no NIC 7"),
    ("h1", "h1", "same server"),
    ("h1/xyz", "h2", "bad address"),
])
def test_bad_flows_are_refused_with_a_clear_message(src, dst, words):
    eng = Engine(star(["h1", "h2"]), EngineConfig())
    with pytest.raises(EngineError, match=words):
        eng.add_flow(src, dst, 1000)


def test_unreachable_destination_is_refused():
    design = star(["h1", "h2"])
    design.add_device(server("lonely"))
    eng = Engine(design, EngineConfig())
    with pytest.raises(EngineError, match="not connected"):
        eng.add_flow("h1", "lonely", 1000)
    with pytest.raises(EngineError, match="positive"):
        eng.add_flow("h1", "h2", 0)


def test_frames_record_link_and_flow_metrics():
    eng = Engine(star(["h1", "h2"]), EngineConfig(sample_period_s=10e-6))
    fid = eng.add_flow("h1", "h2", 10**9)
    eng.advance(200e-6)
    assert len(eng.stream) == 20
    frame = eng.stream.latest()
    index = next(d.index for d in eng.stream.links if (d.src, d.dst) == ("h1", "s"))
    assert frame.link("utilisation")[index] == pytest.approx(1.0, abs=0.01)
    times, rates = eng.stream.flow_series("rate_gbps", fid)
    assert rates[-10:].mean() == pytest.approx(98.0, rel=0.02)  # cells make single frames lumpy


def test_config_overrides_apply_to_the_run_not_the_design():
    design = star(["h1", "h2"])
    eng = Engine(design, EngineConfig(technology="infiniband", dcqcn=False))
    assert eng.technology is Technology.INFINIBAND
    assert eng.design.fabric.technology is Technology.INFINIBAND
    assert not eng.design.fabric.dcqcn.enabled
    assert design.fabric.technology is Technology.ROCE and design.fabric.dcqcn.enabled
    for bad in (dict(technology="token-ring"), dict(routing="ospf"), dict(cell_bytes=10)):
        with pytest.raises(EngineError):
            EngineConfig(**bad)


def test_a_switch_without_buffer_is_flagged():
    eng = Engine(star(["h1", "h2"], Technology.ETHERNET, buffer=0), EngineConfig())
    assert any("s: packet buffer below two cells" in w for w in eng.config_warnings)


def test_nvlink_progress_is_reported_as_it_happens():
    design = star(["h1", "h2"])
    design.replace_device(server("h1", gpus=8, nics=1))
    eng = Engine(design, EngineConfig(sample_period_s=10e-6))
    fid = eng.add_flow("h1/gpu0", "h1/gpu1", 45_000_000)  # 100 us at 3.6 Tb/s
    eng.advance(50e-6)
    assert 0.4 < eng.flows[fid].delivered_bytes / 45e6 < 0.6
    _, rates = eng.stream.flow_series("rate_gbps", fid)
    assert rates[-1] == pytest.approx(3600, rel=0.01)
    eng.advance(200e-6)
    assert eng.flows[fid].delivered_bytes == 45_000_000 and eng.flows[fid].done


def test_ecn_thresholds_above_the_pfc_threshold_are_flagged():
    eng = Engine(star(["h1", "h2"], buffer=1_500_000), EngineConfig(dcqcn=True))
    assert any("ECN Kmin 400 KB is above the queue a 2:1 incast builds before PFC" in w
               for w in eng.config_warnings)
    assert not Engine(star(["h1", "h2"]), EngineConfig(dcqcn=True)).config_warnings
