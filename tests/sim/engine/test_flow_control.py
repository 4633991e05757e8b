"""PFC frames (order, quanta, refresh), the switch PFC watchdog, InfiniBand buffers from the
switch's real buffer, and deadlock detection."""

import pytest

from fabricstudio.model import (
    Design,
    GpuServer,
    InfinibandSettings,
    Leaf,
    Link,
    PfcSettings,
    Technology,
)
from fabricstudio.sim.engine import Engine, EngineConfig
from fabricstudio.sim.engine.ports import Port
from tests.sim.engine.designs import fabric, star
from tests.sim.engine.helpers import assert_conserved, rates_gbps


def hot_port(eng: Engine, src: str, dst: str) -> Port:
    return next(p for p in eng.ports if (p.src, p.dst) == (src, dst))


# ---------------------------------------------------------------- PFC frames
def _record_pfc_frames(monkeypatch) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Record, per port index, the PFC quanta each port sends and the frames it applies."""
    sent: dict[int, list[int]] = {}
    applied: dict[int, list[int]] = {}
    send, apply = Port._send_pfc, Port.pfc_frame

    def record_send(port, quanta):
        sent.setdefault(port.index, []).append(quanta)
        send(port, quanta)

    def record_apply(port, event):
        applied.setdefault(port.index, []).append(event.arg)
        apply(port, event)

    monkeypatch.setattr(Port, "_send_pfc", record_send)
    monkeypatch.setattr(Port, "pfc_frame", record_apply)
    return sent, applied


def test_pfc_frames_are_applied_in_the_order_they_were_sent(monkeypatch):
    """PAUSE and RESUME take the same path and delay: on every link the transmitter applies
    the receiver's frames in sending order, and ends in the state the last frame asked for.
    (PAUSE used to be back-dated by the switch latency, so a PAUSE sent just after a RESUME
    overtook it and the stale RESUME un-paused the port: false lossless violations.)"""
    sent, applied = _record_pfc_frames(monkeypatch)
    hosts = [f"h{i}" for i in range(24)]  # 400G, 3 m: the switch latency dominates the loop
    eng = Engine(star(hosts + ["r"], speed=400, length_m=3, buffer=4_000_000),
                 EngineConfig(dcqcn=False, cell_bytes=4096))
    for h in hosts:
        eng.add_flow(h, "r", 1e12)
    eng.advance(0.5e-3)
    resumes = sum(q == 0 for frames in sent.values() for q in frames)
    assert resumes > 100  # many PAUSE/RESUME turns
    for index, frames in sent.items():
        arrived = applied.get(index, [])
        assert arrived == frames[:len(arrived)]  # same order, none overtaken
        port = eng.ports[index]
        if len(arrived) == len(frames) and frames[-1] == 0:
            assert not port.paused
    assert eng.totals()["drops"] == 0 and eng.totals()["lossless_violations"] == 0
    assert_conserved(eng)


def test_a_pause_lapses_after_its_quanta_unless_refreshed():
    quanta = 1000  # 1000 x 512 bit times = 5.12 us at 100G
    settings = fabric(pfc=PfcSettings(pause_quanta=quanta, refresh_quanta=quanta // 2))
    eng = Engine(star(["h1", "r"], settings=settings), EngineConfig())
    port = hot_port(eng, "h1", "s")
    pause_s = quanta * 512 / 100e9
    port.rx_pause()  # the switch's ingress from h1 goes above XOFF
    eng.advance(5 * pause_s)
    assert port.paused  # refreshed every half pause time
    assert port.pfc_frames >= 9
    port.rx_resume()
    eng.advance(6 * pause_s)
    assert not port.paused
    port.refresh_s = float("inf")  # no refresh: the PAUSE runs out on its own
    port.refresh_pending = False
    port.rx_pause()
    eng.advance(eng.now + port.pfc_delay + 0.5 * pause_s)
    assert port.paused
    eng.advance(eng.now + pause_s)
    assert not port.paused and port.rx_paused  # lapsed although the receiver is above XON


def test_an_incast_stays_lossless_only_while_pauses_are_refreshed():
    def run(refresh: int):
        settings = fabric(pfc=PfcSettings(pause_quanta=400, refresh_quanta=refresh))
        eng = Engine(star([f"h{i}" for i in range(4)] + ["r"], buffer=2 * 1024**2,
                          settings=settings), EngineConfig(dcqcn=False))
        for i in range(4):
            eng.add_flow(f"h{i}", "r", 1e12)
        eng.advance(1e-3)
        assert_conserved(eng)
        return eng.totals()

    refreshed, lapsing = run(200), run(65535)
    assert refreshed["drops"] == 0 and refreshed["pfc_frames"] > refreshed["pfc_pauses"]
    assert lapsing["lossless_violations"] > 0  # 2 us pauses that are never renewed


# ---------------------------------------------------------------- switch PFC watchdog
def watchdog_settings(action: str) -> object:
    return fabric(pfc=PfcSettings(watchdog=True, watchdog_detect_ms=0.5,
                                  watchdog_restore_ms=0.5, watchdog_action=action))


@pytest.mark.parametrize("action", ["drop", "forward"])
def test_switch_watchdog_breaks_a_pause_storm(action):
    """A stuck NIC pauses its switch port for 5 ms; the flow into it blocks an innocent one
    sharing the sender's uplink.  The watchdog (0.5 ms) un-blocks the switch queue toward
    the stuck NIC: the innocent flow runs again long before the NIC recovers."""
    eng = Engine(star(["h1", "stuck", "other"], settings=watchdog_settings(action)),
                 EngineConfig(dcqcn=False))
    eng.add_flow("h1", "stuck", 1e12)
    innocent = eng.add_flow("h1", "other", 1e12)
    eng.stall_receiver("stuck", 0.1e-3, 5e-3)
    (rate,) = rates_gbps(eng, [innocent], 2e-3, 4e-3)
    totals = eng.totals()
    assert totals["pfc_watchdog_triggers"] >= 1
    assert hot_port(eng, "s", "stuck").wd_triggers >= 1
    assert totals["watchdog_drops"] > 0 and totals["lossless_violations"] == 0
    assert rate > 40  # shares h1's uplink with the flow into the stuck NIC (which drops)
    assert_conserved(eng)


def test_without_the_watchdog_the_storm_blocks_the_innocent_flow():
    eng = Engine(star(["h1", "stuck", "other"]), EngineConfig(dcqcn=False))
    eng.add_flow("h1", "stuck", 1e12)
    innocent = eng.add_flow("h1", "other", 1e12)
    eng.stall_receiver("stuck", 0.1e-3, 5e-3)
    (rate,) = rates_gbps(eng, [innocent], 2e-3, 4e-3)
    assert rate < 1 and eng.totals()["pfc_watchdog_triggers"] == 0


# ---------------------------------------------------------------- PFC buffer carve-up
def test_the_pfc_carve_up_and_what_the_switch_does_do_not_depend_on_the_cell_size():
    """An 8:1 incast into a 1 MB switch (1 us cables), PFC only.  The switch sets aside the
    physical headroom C x (2 t_prop + t_resp) + 2 MTU and the 4 KB reserve per ingress at
    every cell size (it set aside 1.6 MB of its 1 MB at 64 KiB cells: it paused at once and
    never let the queue reach ECN's Kmin: 0 marks against 41 packet by packet), and the hot
    queue, the marks it draws and the time the senders spend paused are those of the
    packet-level (4 KiB) run."""
    hosts = [f"h{i}" for i in range(8)]
    seen = []
    for cell in (4096, 16384, 65536):
        eng = Engine(star(hosts + ["r"], buffer=1_000_000, length_m=200.0),
                     EngineConfig(dcqcn=False, cell_bytes=cell))
        switch = eng.net.switches["s"]
        ingress = [p for p in eng.ports if p.peer is switch]
        assert not eng.config_warnings
        for h in hosts:
            eng.add_flow(h, "r", 1e12)
        eng.advance(1e-3)
        hot = next(s for s in eng.link_stats() if (s["from"], s["to"]) == ("s", "r"))
        paused = sum(s["paused_time_s"] for s in eng.link_stats())
        totals = eng.totals()
        assert totals["drops"] == 0 and totals["pfc_pauses"] > 0
        seen.append((switch.fixed, [p.headroom for p in ingress], hot["max_queue_bytes"],
                     totals["ecn_marks"], paused))
        assert_conserved(eng)
    (fixed, headroom, queue, marks, paused), *coarse = seen
    mtu, t_loop = 4096, 2 * 1e-6 + 1e-6  # two 200 m propagations + the PFC response time
    assert headroom == [int(100e9 / 8 * t_loop + 2 * mtu)] * 9
    assert fixed == sum(headroom) + 9 * 4096
    for fixed_c, headroom_c, queue_c, marks_c, paused_c in coarse:
        assert (fixed_c, headroom_c) == (fixed, headroom)
        assert queue_c == pytest.approx(queue, rel=0.05)
        assert marks_c == pytest.approx(marks, rel=0.15, abs=5)
        assert paused_c == pytest.approx(paused, rel=0.02)


# ---------------------------------------------------------------- InfiniBand buffers
def test_infiniband_switch_never_holds_more_than_its_buffer():
    """A 1 MB switch with 9 ports advertises at most 1 MB / 9 per input port (not 256 KiB
    each, 2.3 MB in all): an 8:1 incast never puts more than 1 MB into it."""
    hosts = [f"h{i}" for i in range(8)]
    eng = Engine(star(hosts + ["r"], Technology.INFINIBAND, buffer=1_000_000),
                 EngineConfig(cell_bytes=4096))
    switch = eng.net.switches["s"]
    assert all(p.credit_max == 1_000_000 // 9 for p in eng.ports if p.peer is switch)
    assert all(p.credit_max == 256 * 1024 for p in eng.ports if p.to_host)
    for h in hosts:
        eng.add_flow(h, "r", 4_000_000)
    peak = 0
    for k in range(1, 41):
        eng.advance(k * 10e-6)
        peak = max(peak, switch.used)
    assert switch.peak_used <= 1_000_000 and peak <= 1_000_000
    assert switch.peak_used > 0.8 * 1_000_000  # the incast does fill it
    eng.advance(5e-3)
    assert all(r.done for r in eng.flows) and eng.totals()["drops"] == 0
    assert_conserved(eng)


def test_infiniband_warns_when_the_buffer_share_is_below_the_credit_loop():
    settings = fabric(Technology.INFINIBAND, infiniband=InfinibandSettings())
    eng = Engine(star([f"h{i}" for i in range(8)], settings=settings, buffer=150_000,
                      length_m=100), EngineConfig(cell_bytes=4096))
    assert any("8 input ports" in w and "cannot reach line rate" in w
               for w in eng.config_warnings)


# ---------------------------------------------------------------- deadlock
def ring(n: int, technology: Technology = Technology.ROCE, buffer: int = 2 * 1024**2,
         settings=None) -> Design:
    """``n`` switches in a ring, one server on each; minimal routes between servers two
    switches apart go one way round, so flows i -> i+2 make a cyclic buffer dependency."""
    design = Design("ring", fabric=settings or fabric(technology))
    for i in range(n):
        design.add_device(Leaf(id=f"s{i}", radix=8, port_speed_gbps=100, buffer_bytes=buffer))
    for i in range(n):
        design.add_link(Link(id=f"r{i}", a=f"s{i}", b=f"s{(i + 1) % n}", speed_gbps=100,
                             length_m=10))
        design.add_device(GpuServer(id=f"h{i}", gpus=1, nics=1, nic_speed_gbps=100,
                                    mgmt_ports=0))
        design.add_link(Link(id=f"l{i}", a=f"h{i}", b=f"s{i}", speed_gbps=100, length_m=3))
    return design


def ring_run(technology: Technology, hop: int = 2, settings=None, detect: float | None = 1e-3,
             size: float = 50e6):
    eng = Engine(ring(5, technology, settings=settings),
                 EngineConfig(dcqcn=False, deadlock_detect_s=detect))
    for i in range(5):
        eng.add_flow(f"h{i}", f"h{(i + hop) % 5}", size)
    return eng


@pytest.mark.parametrize("technology", [Technology.ROCE, Technology.INFINIBAND])
def test_a_frozen_dependency_cycle_ends_the_run_as_a_deadlock(technology):
    eng = ring_run(technology)
    eng.advance(20e-3)
    deadlock = eng.totals()["deadlock"]
    assert deadlock["detected"]
    assert deadlock["cycle"] == ["r0", "r1", "r2", "r3", "r4"]
    assert deadlock["path"] == ["s0", "s1", "s2", "s3", "s4", "s0"]
    # it froze within the first 100 us and was reported one stretch (+ a check period) later
    assert deadlock["since_s"] < 0.1e-3
    assert deadlock["since_s"] + 1e-3 <= deadlock["at_s"] <= deadlock["since_s"] + 1.25e-3
    assert eng.now == deadlock["at_s"]  # the run stopped there
    eng.advance(30e-3)
    assert eng.now == deadlock["at_s"]
    assert not any(r.done for r in eng.flows)
    assert_conserved(eng)


def test_no_cycle_no_deadlock():
    eng = ring_run(Technology.ROCE, hop=1)
    eng.advance(20e-3)
    assert eng.totals()["deadlock"] == {"detected": False}
    assert all(r.done for r in eng.flows)


def test_the_pfc_watchdog_breaks_a_deadlock_instead():
    """With the switch watchdog on, a frozen cycle gets its chance first: the watchdog drops
    the stuck queues (again each time the cycle re-forms: it mitigates, it does not cure), the
    flows recover the losses by go-back-N and finish; no deadlock is reported."""
    eng = ring_run(Technology.ROCE, settings=watchdog_settings("drop"), size=2e6)
    eng.advance(100e-3)
    totals = eng.totals()
    assert totals["pfc_watchdog_triggers"] > 0 and totals["watchdog_drops"] > 0
    assert totals["deadlock"] == {"detected": False}
    assert all(r.done for r in eng.flows)
    assert_conserved(eng)


def test_stalled_engine_is_told_from_a_busy_one():
    """Only housekeeping left (metric frames, the deadlock watch, PFC refreshes of a standing
    PAUSE): nothing can move any more."""
    eng = ring_run(Technology.INFINIBAND, detect=None)  # credits frozen, no timers
    eng.advance(0.05e-3)
    assert not eng.stalled()  # cells still move
    eng.advance(3e-3)
    assert eng.stalled() and eng.totals()["deadlock"] == {"detected": False}
    done = ring_run(Technology.ROCE, hop=1, size=1e6)
    done.advance(5e-3)
    assert all(r.done for r in done.flows) and done.stalled()


def test_in_band_pfc_frames_still_arrive_in_order_and_cost_link_time(monkeypatch):
    sent, applied = _record_pfc_frames(monkeypatch)
    hosts = [f"h{i}" for i in range(8)]
    eng = Engine(star(hosts + ["r"], buffer=2 * 1024**2),
                 EngineConfig(dcqcn=False, control_in_band=True))
    for h in hosts:
        eng.add_flow(h, "r", 1e12)
        eng.add_flow("r", h, 1e12)  # the PFC frames share these links with data
    eng.advance(1e-3)
    totals = eng.totals()
    assert totals["pfc_frames"] > 100 and totals["drops"] == 0
    assert totals["control_wire_bytes"] == 84 * totals["pfc_frames"]  # one hop each
    for index, frames in sent.items():
        arrived = applied.get(index, [])
        assert arrived == frames[:len(arrived)]
    assert_conserved(eng)
