"""Every table keyed by device kind has a row for every kind: a new DeviceKind that misses
one fails here, naming the table, instead of as a KeyError in an export or the BOM
(docs/ARCHITECTURE.md, "Add a switch kind", lists these files)."""

import pytest

from fabricstudio.interop.exporters import air, drawio
from fabricstudio.interop.naming import ROLE_NAMES
from fabricstudio.model import DeviceKind
from fabricstudio.model.devices import DEVICE_CLASSES
from fabricstudio.topology.analysis import bom

TABLES = {
    "model.devices.DEVICE_CLASSES": DEVICE_CLASSES,
    "topology.analysis.bom._ROLE": bom._ROLE,
    "interop.naming.ROLE_NAMES": ROLE_NAMES,
    "interop.exporters.drawio.SHAPES": drawio.SHAPES,
}


@pytest.mark.parametrize("name", TABLES)
def test_every_kind_has_a_row(name):
    missing = sorted(set(DeviceKind) - set(TABLES[name]))
    assert not missing, f"{name} has no row for {missing}"


def test_every_kind_has_its_facts_and_model_class():
    for kind in DeviceKind:
        assert kind.label and kind.id_prefix and len(kind.colour) == 6
        assert DEVICE_CLASSES[kind].model_fields["kind"].default == kind.value


def test_air_names_a_function_for_every_kind_it_simulates():
    # NVIDIA Air simulates the data plane: management switches are left out on purpose.
    assert set(air.FUNCTIONS) == set(DeviceKind) - {DeviceKind.MGMT_SWITCH}
