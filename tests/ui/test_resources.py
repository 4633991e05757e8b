"""Icons and the device catalogue load through importlib.resources (as from a wheel)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from fabricstudio.model import DeviceKind, parse_device
from fabricstudio.ui.icons import kind_pixmap, svg_renderer
from fabricstudio.ui.panels.palette import catalogue


@pytest.mark.parametrize("kind", list(DeviceKind))
def test_every_kind_has_a_crisp_svg_icon(qapp, kind):
    renderer = svg_renderer(kind.value)
    assert renderer.isValid() and renderer.viewBoxF().width() > 0
    image = kind_pixmap(kind, 40).toImage()
    assert len({image.pixel(x, y) for x in range(0, 80, 4) for y in range(0, 80, 4)}) > 3


def test_catalogue_entries_make_valid_devices():
    from fabricstudio.topology.builders.units import build_unit

    kinds = set()
    units = set()
    for entry in catalogue():
        if entry["kind"] == "unit":
            unit = build_unit(entry["fields"], lambda ident: False)
            units.add(entry["fields"]["type"])
            assert unit.devices and unit.groups
            continue
        device = parse_device({**entry["fields"], "kind": entry["kind"], "id": "x"})
        kinds.add(DeviceKind(device.kind))
    assert kinds == set(DeviceKind)
    assert units == {"scalable_unit", "rack"}


def test_resources_are_package_data():
    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text())
    assert "resources/**/*" in config["tool"]["setuptools"]["package-data"]["fabricstudio"]
    assert (root / "fabricstudio" / "resources" / "icons" / "gpu_server.svg").is_file()


def test_toolbar_actions_have_icons(make_window):
    window = make_window()
    for action in (window.act.new, window.act.open, window.act.save, window.act.undo,
                   window.act.link_tool, window.act.wizard, window.act.export_png):
        assert not action.icon().isNull()
