"""Freeze once: a run's design snapshot reads like the design, refuses changes, pickles."""

import pickle

import pytest
from psygnal import Signal

from fabricstudio.model import Design, DesignError, GpuServer, Leaf, Link, Technology
from fabricstudio.model.snapshot import FrozenDesign, freeze


def _design() -> Design:
    design = Design("snap")
    design.add_device(Leaf(id="leaf1"))
    design.add_device(GpuServer(id="gpu1"))
    design.add_link(Link(id="l1", a="gpu1", b="leaf1"))
    return design


def test_a_snapshot_reads_like_the_design_and_ignores_later_edits():
    design = _design()
    frozen = freeze(design)
    assert isinstance(frozen, FrozenDesign) and freeze(frozen) is frozen
    assert frozen.to_data() == design.to_data() and frozen.revision == design.revision
    assert frozen.links_of("gpu1") == design.links_of("gpu1")
    design.update_device("gpu1", gpus=4)
    design.remove_link("l1")
    assert frozen.device("gpu1").gpus == 8 and "l1" in frozen.links
    assert frozen.used_ports("leaf1") == {0: "l1"}


def test_a_snapshot_refuses_every_change():
    frozen = freeze(_design())
    for change in (lambda: frozen.add_device(Leaf(id="x")), lambda: frozen.remove_link("l1"),
                   lambda: frozen.update_device("gpu1", gpus=2),
                   lambda: frozen.set_fabric(frozen.fabric), lambda: frozen.set_name("x"),
                   lambda: frozen.move_devices({"gpu1": (1.0, 2.0)})):
        with pytest.raises(DesignError, match="cannot change"):
            change()


def test_a_snapshot_holds_every_attribute_of_a_design():
    """A new Design attribute must be added to FrozenDesign.STATE (copied and pickled)."""
    signals = {name for name in dir(Design) if isinstance(getattr(Design, name), Signal)}
    assert set(vars(_design())) - signals - {"_tree"} <= set(FrozenDesign.STATE)


def test_with_fabric_and_pickling_keep_the_snapshot_whole():
    frozen = freeze(_design())
    ib = frozen.with_fabric(frozen.fabric.model_copy(update={"technology": Technology.INFINIBAND}))
    assert ib.fabric.technology is Technology.INFINIBAND and ib.links == frozen.links
    assert frozen.with_fabric(frozen.fabric) is frozen
    back = pickle.loads(pickle.dumps(ib))
    assert isinstance(back, FrozenDesign)
    assert back.to_data() == ib.to_data() and back.used_ports("gpu1") == {0: "l1"}
    with pytest.raises(DesignError):
        back.remove_link("l1")


class _TaggedLink(Link):
    """A link subclass: pickled as it is, not as a row."""


def test_pickled_links_come_back_equal_with_the_fields_they_were_given():
    design = _design()
    design.add_device(GpuServer(id="gpu2"))
    design.add_link(Link(id="l2", a="gpu2", b="leaf1", length_m=7.5, speed_gbps=200.0))
    design.add_device(GpuServer(id="gpu3"))
    design.add_link(_TaggedLink(id="l3", a="gpu3", b="leaf1"))
    frozen = freeze(design)
    back = pickle.loads(pickle.dumps(frozen))
    assert list(back.links) == list(frozen.links) and back.links == frozen.links
    for link_id, link in frozen.links.items():
        copy = back.links[link_id]
        assert type(copy) is type(link) and copy.model_fields_set == link.model_fields_set
        assert copy.model_dump(exclude_unset=True) == link.model_dump(exclude_unset=True)
    assert back.links["l2"].length_m == 7.5 and back.links["l2"].plane is frozen.links["l2"].plane
    with pytest.raises(Exception, match="frozen"):
        back.links["l2"].length_m = 1.0  # still a frozen model
