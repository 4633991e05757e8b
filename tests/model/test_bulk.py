"""Loading large designs fast: the garbage-collector pause and the per-port tables."""

from __future__ import annotations

import gc
import weakref

import pytest
from pydantic import ValidationError

from fabricstudio.model import Core, GpuServer, Leaf, Link, MgmtSwitch, Plane, Spine, StorageServer
from fabricstudio.model.bulk import (
    FREEZE_AFTER,
    bulk_build,
    pause_collector,
    reclaim_frozen,
    resume_collector,
)


def test_bulk_build_pauses_the_collector_and_resumes_it() -> None:
    assert gc.isenabled()
    with bulk_build():
        assert not gc.isenabled()
        with bulk_build():  # nested: the outer one resumes
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_bulk_build_resumes_after_an_error() -> None:
    with pytest.raises(ValueError), bulk_build():
        raise ValueError("bad file")
    assert gc.isenabled()


def test_bulk_build_leaves_a_switched_off_collector_off() -> None:
    gc.disable()
    try:
        with bulk_build():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_background_work_and_a_build_share_the_collector_in_any_order() -> None:
    """A worker starting inside a build keeps the collector off after the build ends (it
    would otherwise collect on the worker's thread); the last to end switches it back on."""
    with bulk_build():
        pause_collector()  # a background worker starts while the design is built
    assert not gc.isenabled()
    resume_collector()
    assert gc.isenabled()
    pause_collector()
    with bulk_build():
        resume_collector()  # the worker ends during the build
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        resume_collector()


def test_a_large_build_is_frozen_when_asked_a_small_one_is_not() -> None:
    frozen = gc.get_freeze_count()
    with bulk_build(freeze=True):
        small = [[i] for i in range(100)]
    with bulk_build():
        large = [[i] for i in range(FREEZE_AFTER + 1000)]
    assert gc.get_freeze_count() == frozen  # neither the small build nor an unasked one
    with bulk_build(freeze=True):
        larger = [[i] for i in range(FREEZE_AFTER + 1000)]
    assert gc.get_freeze_count() >= frozen + len(larger)
    assert small and large


class _Node:
    """A weakly referenceable object to put in a reference cycle."""

    me: _Node


def test_reclaim_frozen_frees_a_frozen_designs_cycles_and_refreezes_the_living() -> None:
    with bulk_build(freeze=True):
        closed = _Node()
        closed.me = closed
        ballast = [[i] for i in range(FREEZE_AFTER + 1000)]
    alive = _Node()
    alive.me = alive
    gone = weakref.ref(closed)
    del closed, ballast
    gc.collect()
    assert gone() is not None  # frozen: the cycle waits for the end of the process
    assert reclaim_frozen()
    assert gone() is None
    assert gc.get_freeze_count() > 0 and alive.me is alive  # the rest is frozen again


@pytest.mark.parametrize("device", [
    GpuServer(id="g", nics=8, storage_nics=2, mgmt_ports=1, nic_speed_gbps=400,
              storage_nic_speed_gbps=200, mgmt_speed_gbps=1),
    GpuServer(id="g0", nics=0, storage_nics=0, mgmt_ports=1),
    StorageServer(id="s"), Leaf(id="l", radix=64), Spine(id="sp", radix=32),
    Core(id="c", radix=4), MgmtSwitch(id="m"),
])
def test_port_layout_matches_port_by_port(device) -> None:
    count = device.port_count()
    assert device.port_layout() == (tuple(device.port_plane(p) for p in range(count)),
                                    tuple(device.speed_of_port(p) for p in range(count)))


@pytest.mark.parametrize("value", [True, "400", b"400", Plane.COMPUTE])
def test_numbers_stay_numbers_on_the_fast_path(value) -> None:
    """The one-pass check still refuses booleans and text (also a str subclass)."""
    with pytest.raises(ValidationError, match="expected a number"):
        Link.model_validate({"id": "l1", "a": "x", "b": "y", "speed_gbps": value})
    assert Link.model_validate({"id": "l1", "a": "x", "b": "y", "speed_gbps": 400,
                                "a_port": None}).speed_gbps == 400.0
