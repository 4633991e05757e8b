"""One declaration per fact: units, device kinds, technologies."""

import numpy as np

from fabricstudio.model import DeviceKind, Technology, units


def test_conversions_are_inverse_and_keep_their_arithmetic():
    assert units.gbps_to_bytes_per_s(400) == 50e9
    assert units.throughput_gbps(50e9, 1.0) == 400.0
    assert units.transfer_time_s(50e9, 400) == 1.0
    assert units.gigabits(np.array([125e6]))[0] == 1.0
    assert units.throughput_gbps(12345, 0.001) == 12345 * 8 / 0.001 / 1e9


def test_formatting():
    assert units.format_bytes(256 * 2**20) == "256 MiB" and units.format_bytes(100) == "100 B"
    assert units.format_seconds(12.03e-6) == "12.03 µs" and units.format_seconds(None) == "-"
    assert units.format_time(2e-5) == "20.00 µs" and units.format_time(0.0123) == "12.300 ms"
    assert units.format_kb(8000) == "8 KB" and units.format_mib(32 * 2**20) == "32 MiB"


def test_every_device_kind_has_its_facts_in_one_place():
    for kind in DeviceKind:
        assert kind.label and kind.id_prefix.isalpha() and len(kind.colour) == 6
    assert [k.tier for k in (DeviceKind.GPU_SERVER, DeviceKind.LEAF, DeviceKind.SPINE,
                             DeviceKind.CORE)] == [0, 1, 2, 3]
    assert {k for k in DeviceKind if k.is_switch} == {DeviceKind.LEAF, DeviceKind.SPINE,
                                                       DeviceKind.CORE, DeviceKind.MGMT_SWITCH}
    assert len({k.id_prefix for k in DeviceKind}) == len(DeviceKind)
    assert [t.label for t in Technology] == ["InfiniBand", "RoCE", "Lossy Ethernet"]


def test_a_runs_fabric_is_named_in_one_place():
    assert Technology.ROCE.fabric_label(True) == "RoCE + DCQCN"
    assert Technology.ROCE.fabric_label(False) == "RoCE (PFC only)"
    assert Technology.INFINIBAND.fabric_label(True) == "InfiniBand"
    assert Technology.ETHERNET.fabric_label(False) == "Lossy Ethernet"
