"""The main window shows the design's devices and links."""

from fabricstudio.formats import load_design
from fabricstudio.model import Leaf, Link


def test_window_shows_design_items(make_window, examples_dir):
    design = load_design(examples_dir / "two-servers-one-leaf.json")
    window = make_window(design, str(examples_dir / "two-servers-one-leaf.json"))
    assert set(window.scene.device_items) == set(design.devices)
    assert set(window.scene.link_items) == set(design.links)
    assert "two-servers-one-leaf.json" in window.windowTitle()


def test_scene_follows_design_changes(make_window, examples_dir):
    design = load_design(examples_dir / "tiny.json")
    window = make_window(design)
    design.add_device(Leaf(id="s2", port_speed_gbps=100))
    design.update_device("s2", radix=4)
    design.add_device(Leaf(id="s3", port_speed_gbps=100))
    design.add_link(Link(id="l2", a="s2", b="s3", speed_gbps=100))
    design.add_link(Link(id="l3", a="s2", b="s3", speed_gbps=100))
    items = window.scene.link_items
    assert items["l2"].offset == -items["l3"].offset != 0
    design.move_devices({"s2": (300, 40)})
    assert window.scene.device_items["s2"].pos().x() == 300
    design.remove_link("l2")
    assert "l2" not in items and items["l3"].offset == 0
    design.remove_link("l3")
    design.remove_device("s3")
    assert "s3" not in window.scene.device_items
