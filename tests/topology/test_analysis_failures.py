"""The analysis with failed elements: reachability, bisection, ECMP width, new SPOFs."""

from __future__ import annotations

import json

import pytest

from fabricstudio.cli import main
from fabricstudio.model.failures import Failure
from fabricstudio.topology.analysis import analyze
from fabricstudio.topology.builders import LeafSpineSpec, RailOptimizedSpec, build_fabric


@pytest.fixture(scope="module")
def leaf_spine():
    return build_fabric(LeafSpineSpec(gpus=32, switch_radix=16, spines=2)).to_design()


def test_a_spine_failure_halves_bisection_and_ecmp_width_and_adds_a_spof(leaf_spine):
    healthy = analyze(leaf_spine)
    hurt = analyze(leaf_spine, failures=[Failure(device="spine1")])
    found = hurt.failures
    assert found is not None and healthy.failures is None
    assert found.devices_down == ["spine1"]
    assert found.hosts_cut_off == 0 and found.unreachable_pairs == 0
    assert found.healthy_bisection_gbps == healthy.bisection.gbps
    assert found.bisection_gbps == pytest.approx(healthy.bisection.gbps / 2)
    assert found.ecmp_width.max == healthy.paths.ecmp_width.max / 2
    assert "spine2" in found.new_single_points_of_failure
    assert hurt.bom == healthy.bom and hurt.counts == healthy.counts  # still bought
    codes = [i.code for i in hurt.issues]
    assert "failed" in codes and "device-unconnected" not in codes


def test_a_leaf_failure_cuts_its_servers_off(leaf_spine):
    report = analyze(leaf_spine, failures=[Failure(device="leaf1")])
    found = report.failures
    cut = found.servers_cut_off
    assert cut and found.hosts_cut_off == 8 * len(cut) and found.gpus_cut_off == 8 * len(cut)
    others = found.hosts - found.hosts_cut_off
    assert found.unreachable_pairs == found.pairs - (others ** 2 - 8 * 8 * (others // 8))
    assert any(i.code == "failure-cuts-off" and i.severity == "error" for i in report.issues)
    assert not any(i.code == "gpu-nic-unconnected" for i in report.issues)


def test_a_rail_failure_cuts_one_nic_of_every_server():
    design = build_fabric(RailOptimizedSpec(gpus=64, servers_per_su=4)).to_design()
    found = analyze(design, failures=[Failure(rail=2)]).failures
    assert found.hosts_cut_off == 8 and found.gpus_cut_off == 8
    assert found.servers_cut_off == []  # their other rails still reach the fabric
    assert len(found.devices_down) == 2


def test_unknown_failed_element_is_a_value_error(leaf_spine):
    with pytest.raises(ValueError, match="no link 'ghost'"):
        analyze(leaf_spine, failures=[Failure(link="ghost")])


def test_cli_analyze_with_failures(tmp_path, capsys):
    design = tmp_path / "d.json"
    assert main(["generate", "leaf-spine", "--gpus", "16", "--radix", "16", "-o",
                 str(design), "-q"]) == 0
    assert main(["analyze", str(design), "--fail", "device:spine1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["failures"]["devices_down"] == ["spine1"]
    assert main(["analyze", str(design), "--fail", "device:spine1"]) == 0
    assert "Failures: device spine1" in capsys.readouterr().out
    with pytest.raises(SystemExit) as usage:
        main(["analyze", str(design), "--fail", "switch:spine1"])
    assert usage.value.code == 2
    assert "use link:ID, device:ID or rail:N" in capsys.readouterr().err
    assert main(["analyze", str(design), "--fail", "link:nope"]) == 1
    assert "no link 'nope'" in capsys.readouterr().err
