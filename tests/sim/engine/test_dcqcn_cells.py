"""DCQCN pacing whatever the cell size (issue 9, item 2): throttled flows feed a bottleneck as
their packets would, a rate change applies to the gap that is running, and a paced flow that
shares its NIC keeps its rate.  (Closed-loop agreement: tests/sim/test_cell_sizes.py.)"""

import pytest

from fabricstudio.sim.engine import Engine, EngineConfig
from fabricstudio.sim.engine.dcqcn import DcqcnRp
from tests.sim.engine.designs import star

CELLS = (4096, 16384, 65536)
#: payload share of the wire at the 4096-byte MTU (Ethernet + RoCE headers: 82 B a packet)
PAYLOAD = 4096 / 4178


@pytest.fixture
def no_reaction(monkeypatch):
    """Queue pairs keep the rate a test sets: CNPs are counted but change nothing."""
    monkeypatch.setattr(DcqcnRp, "on_cnp", lambda self, event: None)


def throttle(eng: Engine, src: str, dst: str, bps: float) -> DcqcnRp:
    """Hold the queue pair ``src`` -> ``dst`` at ``bps`` (wire bits per second)."""
    rp = eng.queue_pair(src, dst)
    assert isinstance(rp, DcqcnRp)
    rp.set_rate(bps / 8)
    return rp


def marks_of_eight_throttled_senders(cell: int) -> tuple[int, int]:
    """(ECN marks, PAUSEs) after 1 ms of eight senders held at 1.1 x C / 8 into one port."""
    senders = [f"h{i}" for i in range(1, 9)]
    eng = Engine(star(senders + ["r"], buffer=64 * 2**20),
                 EngineConfig(dcqcn=True, cell_bytes=cell))
    for i, host in enumerate(senders):
        eng.add_flow(host, "r", 10**9, start_s=i * 0.37e-6)
        throttle(eng, host, "r", 1.1 * 100e9 / 8)
    eng.advance(1e-3)
    totals = eng.totals()
    return totals["ecn_marks"], totals["pfc_pauses"]


@pytest.mark.usefixtures("no_reaction")
def test_throttled_senders_draw_the_same_marks_at_every_cell_size():
    """A cell of a throttled flow must not run ahead of its packets: with cells sent when
    their first packet was due, eight flows added eight half-cells to the queue and drew
    75% more marks at 64 KiB cells than packet by packet (138, 144, 241)."""
    reference, pauses = marks_of_eight_throttled_senders(4096)
    assert pauses == 0 and reference > 50  # the queue crosses Kmin: ECN, not PFC, acts
    for cell in CELLS[1:]:
        marks, _ = marks_of_eight_throttled_senders(cell)
        assert marks == pytest.approx(reference, rel=0.05), cell


@pytest.mark.usefixtures("no_reaction")
def test_a_rate_raise_applies_to_the_gap_that_is_running():
    """At 1 Gb/s a 64 KiB cell books the next one half a millisecond later; raised to half
    the line rate, the flow must not sit out that old gap (a NIC paces packet by packet)."""
    eng = Engine(star(["h1", "h2"]), EngineConfig(dcqcn=True, cell_bytes=65536))
    fid = eng.add_flow("h1", "h2", 10**9)
    rp = throttle(eng, "h1", "h2", 1e9)
    eng.advance(100e-6)
    before = eng.flows[fid].delivered_bytes
    rp.set_rate(rp.line / 2)
    eng.advance(eng.now + 100e-6)
    rate = (eng.flows[fid].delivered_bytes - before) * 8 / 100e-6
    assert rate == pytest.approx(50e9 * PAYLOAD, rel=0.1)


@pytest.mark.usefixtures("no_reaction")
@pytest.mark.parametrize("cell", CELLS)
def test_a_paced_flow_keeps_its_rate_beside_a_line_rate_flow(cell):
    """h1 sends to h2 at 30 Gb/s (its queue pair throttled) and to h3 at whatever is left:
    the paced flow gets its 30 Gb/s at every cell size, as a packet pacer would, although
    the NIC's round robin makes it wait for the other flow's cells."""
    eng = Engine(star(["h1", "h2", "h3"]), EngineConfig(dcqcn=True, cell_bytes=cell))
    paced = eng.add_flow("h1", "h2", 10**9)
    other = eng.add_flow("h1", "h3", 10**9)
    throttle(eng, "h1", "h2", 30e9)
    eng.advance(50e-6)
    start = eng.now
    before = {f: eng.flows[f].delivered_bytes for f in (paced, other)}
    eng.advance(start + 300e-6)
    rates = [(eng.flows[f].delivered_bytes - before[f]) * 8 / 300e-6 for f in (paced, other)]
    assert rates[0] == pytest.approx(30e9 * PAYLOAD, rel=0.05)
    assert rates[1] == pytest.approx(70e9 * PAYLOAD, rel=0.05)  # the NIC stays busy



def cnps_of_a_shallow_incast(cell: int, seed: int) -> int:
    """CNPs of an 8:1 DCQCN incast into a 1 MB switch (200 m cables) in 2 ms: PFC holds the
    queue near its peak and ECN marks only there."""
    hosts = [f"h{i}" for i in range(8)]
    eng = Engine(star(hosts + ["r"], buffer=1_000_000, length_m=200.0),
                 EngineConfig(dcqcn=True, cell_bytes=cell, seed=seed))
    for i, host in enumerate(hosts):
        eng.add_flow(host, "r", 1e12, start_s=i * 0.37e-6 * seed)
    eng.advance(2e-3)
    assert eng.totals()["drops"] == 0
    return eng.totals()["cnps"]


def test_throttled_senders_whose_nic_cuts_fine_cells_draw_the_same_cnps():
    """Near XOFF (and after a PAUSE) the NIC cuts cells of one packet.  The pacer booked a
    throttled flow's next cell for when a full cell's share of its packets was due, so its
    packets ran that far behind their rate: 16-17 CNPs at 64 KiB against 21-25 packet by
    packet (seeds 1-3); mean of three seeds within 15% (or 5)."""
    seeds = (1, 2, 3)
    reference = sum(cnps_of_a_shallow_incast(4096, s) for s in seeds) / len(seeds)
    assert reference > 10  # ECN does act
    coarse = sum(cnps_of_a_shallow_incast(65536, s) for s in seeds) / len(seeds)
    assert coarse == pytest.approx(reference, rel=0.15, abs=5)
