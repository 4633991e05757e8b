"""Semantic zoom's folding rule (Qt-free): a group unfolds only when what it then shows is
readable - devices large enough, member groups' tiles wide enough for their names."""

from fabricstudio.model import Design, GpuServer, Group
from fabricstudio.topology.folding import auto_collapse, fold_metrics, group_boxes, title_px


def _two_racks(name: str) -> Design:
    """A unit of two racks of four servers side by side, the racks named ``name``1/2."""
    design = Design("unit")
    for i in range(8):
        design.add_device(GpuServer(id=f"s{i}", x=90.0 * (i % 4) + 500 * (i // 4), y=0))
    for r in range(2):
        design.add_group(Group(id=f"r{r}", kind="rack", name=f"{name}{r + 1}",
                               members=tuple(f"s{i}" for i in range(4 * r, 4 * r + 4))))
    design.add_group(Group(id="unit", kind="scalable_unit", members=("r0", "r1")))
    return design


def test_title_room_grows_with_the_name():
    assert title_px("r1") == 50.0  # the least a tile gets
    assert title_px("rack157") > title_px("rack1") > 50.0


def test_a_unit_stays_folded_until_its_racks_can_show_their_names():
    short, long = _two_racks("r"), _two_racks("rack-row-a-")
    scale = 0.2
    folded = {}
    for label, design in (("short", short), ("long", long)):
        tree = design.group_tree()
        metrics = fold_metrics(tree, group_boxes(design, tree))
        folded[label] = auto_collapse(metrics, scale)
    assert "unit" not in folded["short"]  # racks 360 units wide: 72 px, room for "r1"
    assert "unit" in folded["long"]  # ... but not for "rack-row-a-1": the unit stays a tile


def test_representatives_are_the_outermost_folded_group_whatever_folds_in_any_order():
    import random

    from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
    from fabricstudio.topology.folding import Folding

    design = build_fabric(RailOptimizedSpec(gpus=512, servers_per_su=16)).to_design()
    tree = design.group_tree()
    folding = Folding(design)
    chooser = random.Random(7)
    groups = list(design.groups)
    for _ in range(12):
        wanted = set(chooser.sample(groups, chooser.randint(0, len(groups))))
        before = dict(folding.rep)
        changed = folding.set_collapsed(wanted)
        for device_id in design.devices:
            folded = [g for g in tree.ancestors(device_id) if g in wanted]
            assert folding.rep[device_id] == (folded[-1] if folded else device_id)
        assert changed == {d for d in design.devices if before[d] != folding.rep[d]}
    folding.reset()
    assert all(folding.rep[d] == (([g for g in tree.ancestors(d) if g in folding.collapsed]
                                   or [d])[-1]) for d in design.devices)
