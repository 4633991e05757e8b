"""analyze() never fails on arbitrary small drawings, and its JSON always parses."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from fabricstudio.model import (
    Core,
    Design,
    DesignError,
    FabricSettings,
    GpuServer,
    Leaf,
    Link,
    Spine,
    Technology,
)
from fabricstudio.topology.analysis import analyze

SWITCHES = st.tuples(st.sampled_from([Leaf, Spine, Core]), st.integers(1, 6),
                     st.sampled_from([100.0, 400.0]))
SERVERS = st.tuples(st.integers(1, 4), st.integers(0, 3))
LINKS = st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20), st.sampled_from([1, 10, 100])),
                 max_size=15)


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.sampled_from(list(Technology)), st.lists(SWITCHES, max_size=6),
       st.lists(SERVERS, max_size=5), LINKS, st.integers(1, 50))
def test_arbitrary_designs_analyse(technology, switches, servers, links, max_pairs):
    design = Design("drawn", FabricSettings(technology=technology))
    for i, (cls, radix, speed) in enumerate(switches):
        design.add_device(cls(id=f"sw{i}", radix=radix, port_speed_gbps=speed, x=float(i)))
    for i, (gpus, nics) in enumerate(servers):
        design.add_device(GpuServer(id=f"g{i}", gpus=gpus, nics=nics, x=float(i)))
    ids = list(design.devices)
    for k, (a, b, length) in enumerate(links):
        if len(ids) < 2 or ids[a % len(ids)] == ids[b % len(ids)]:
            continue
        try:
            design.add_link(Link(id=f"l{k}", a=ids[a % len(ids)], b=ids[b % len(ids)],
                                 speed_gbps=100.0, length_m=length))
        except DesignError:
            pass
    report = analyze(design, max_pairs=max_pairs)
    doc = json.loads(report.to_json())
    assert doc["counts"]["gpu_servers"] == len(servers)
    for issue in report.issues:
        assert all(obj in design for obj in issue.objects)
