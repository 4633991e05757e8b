"""Property test: random small fabrics and traffic keep the engine's invariants."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricstudio.model import Design, GpuServer, Leaf, Link, Spine, Technology
from fabricstudio.sim.engine import Engine, EngineConfig
from tests.sim.engine.designs import fabric
from tests.sim.engine.helpers import assert_conserved


@st.composite
def fabrics(draw):
    tech = draw(st.sampled_from(list(Technology)))
    leaves = draw(st.integers(1, 3))
    spines = draw(st.integers(1, 2)) if leaves > 1 else 0
    hosts = draw(st.integers(2, 4))
    host_speed = draw(st.sampled_from([100.0, 200.0, 400.0]))
    up_speed = draw(st.sampled_from([100.0, 400.0]))
    length = draw(st.sampled_from([1.0, 30.0, 300.0]))
    buffer = draw(st.sampled_from([2_000_000, 16_000_000]))
    design = Design("random", fabric=fabric(tech))
    for s in range(spines):
        design.add_device(Spine(id=f"sp{s}", radix=16, port_speed_gbps=up_speed,
                                buffer_bytes=buffer))
    names = []
    for lf in range(leaves):
        design.add_device(Leaf(id=f"lf{lf}", radix=32, port_speed_gbps=max(up_speed, host_speed),
                               buffer_bytes=buffer))
        for s in range(spines):
            design.add_link(Link(id=f"u{lf}{s}", a=f"lf{lf}", b=f"sp{s}", speed_gbps=up_speed,
                                 length_m=length))
        for h in range(hosts):
            name = f"h{lf}{h}"
            names.append(name)
            design.add_device(GpuServer(id=name, gpus=2, nics=1, nic_speed_gbps=host_speed,
                                        mgmt_ports=0))
            design.add_link(Link(id=f"d{name}", a=name, b=f"lf{lf}", speed_gbps=host_speed,
                                 length_m=min(length, 3.0)))
    flows = draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names),
                                    st.integers(1, 3_000_000), st.floats(0, 2e-4),
                                    st.sampled_from(["gpu0", "gpu1"])),
                          min_size=1, max_size=12))
    config = EngineConfig(routing=draw(st.sampled_from(["default", "ecmp", "static",
                                                        "adaptive"])),
                          cell_bytes=draw(st.sampled_from([4096, 16384, 65536])),
                          dcqcn=draw(st.booleans()), seed=draw(st.integers(0, 99)))
    return design, flows, config


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(fabrics())
def test_random_fabrics_conserve_bytes_and_finish(case):
    design, flows, config = case
    eng = Engine(design, config)
    for src, dst, size, start, gpu in flows:
        if src == dst:
            eng.add_flow(f"{src}/gpu0", f"{dst}/gpu1", size, start_s=start)  # NVLink
        else:
            eng.add_flow(f"{src}/{gpu}", f"{dst}/{gpu}", size, start_s=start)
    eng.advance(3e-4)
    assert_conserved(eng)
    eng.advance(0.2)
    assert_conserved(eng)
    totals = eng.totals()
    assert all(rec.done for rec in eng.flows)
    assert totals["in_flight_bytes"] == 0
    assert totals["goodput_bytes"] + totals["nvlink_bytes"] == sum(r.size_bytes for r in eng.flows)
    if eng.technology.is_lossless and not eng.config_warnings:
        assert totals["drops"] == 0
    for rec in eng.flows:
        assert rec.finish_s >= rec.start_s and rec.delivered_bytes == rec.size_bytes
