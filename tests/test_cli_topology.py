"""``fabricstudio generate`` and ``fabricstudio analyze``."""

import json

import pytest

from fabricstudio.cli import main
from fabricstudio.formats import load_design, save_design
from tests.topology.designs import ring_design


def test_generate_writes_a_valid_design_and_prints_a_summary(tmp_path, capsys):
    out = tmp_path / "rail.json"
    assert main(["generate", "rail-optimized", "--gpus", "512", "--technology", "infiniband",
                 "-o", str(out)]) == 0
    assert "512 GPUs on 64 servers, 16 leaves" in capsys.readouterr().out
    design = load_design(out)
    assert design.fabric.technology.value == "infiniband"
    assert len(design.devices_of_kind("gpu_server")) == 64


def test_generate_fat_tree_with_k(tmp_path, capsys):
    out = tmp_path / "ft.json"
    assert main(["generate", "fat-tree", "-k", "4", "--gpus-per-server", "1",
                 "--nics-per-server", "1", "-o", str(out), "-q"]) == 0
    assert capsys.readouterr().out == ""
    assert len(load_design(out).devices) == 16 + 20


@pytest.mark.parametrize("args,message", [
    (["leaf-spine", "--gpus", "16", "--radix", "0"], "radix 0: must be at least 2"),
    (["leaf-spine", "--gpus", "4096"], "4,096 GPUs need more than the 2 tiers of radix-64"),
    (["rail-optimized", "--gpus", "-8"], "GPU count -8: must be at least 1"),
    (["leaf-spine", "--gpus", "16", "--oversubscription", "-1"], "oversubscription -1"),
    (["fat-tree", "--spines", "4"], "--spines applies to leaf-spine only"),
    (["torus", "--gpus", "16"], "invalid choice: 'torus'"),
    (["leaf-spine", "--gpus", "lots"], "invalid int value: 'lots'"),
])
def test_generate_bad_options_give_one_line_and_non_zero_exit(tmp_path, capsys, args, message):
    out = tmp_path / "x.json"
    assert exit_code(["generate", *args, "-o", str(out)]) != 0
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def exit_code(argv):
    """main()'s status, also when argparse exits."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def test_analyze_prints_a_table(examples_dir, capsys):
    assert main(["analyze", str(examples_dir / "rail-optimized-256-gpu-infiniband.json")]) == 0
    out = capsys.readouterr().out
    for heading in ("Issues:", "Oversubscription", "Bisection bandwidth: 51.2 Tb/s",
                    "ECMP paths", "PFC deadlock: no risk", "Bill of materials"):
        assert heading in out


def test_analyze_json_and_strict_exit(tmp_path, capsys):
    ring = tmp_path / "ring.json"
    save_design(ring_design(4), ring)
    assert main(["analyze", str(ring), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["deadlock"]["risk"] and doc["deadlock"]["cycles"]
    assert main(["analyze", str(ring), "--strict"]) == 1
    assert "RISK" in capsys.readouterr().out


def test_analyze_bad_file_is_one_line(tmp_path, capsys):
    assert main(["analyze", str(tmp_path / "missing.json")]) == 1
    err = capsys.readouterr().err
    assert "no such file" in err and err.count("\n") == 1


def test_generate_json_summary(tmp_path, capsys):
    assert main(["generate", "leaf-spine", "--gpus", "2048", "--json",
                 "-o", str(tmp_path / "ls.json")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["switches"]["leaf"] == 64 and summary["switches"]["spine"] == 32


def test_analyze_json_has_the_cost_object(capsys, examples_dir):
    design = examples_dir / "rail-optimized-256-gpu-infiniband.json"
    assert main(["analyze", str(design), "--json"]) == 0
    cost = json.loads(capsys.readouterr().out)["cost"]
    assert set(cost) == {"currency", "total", "per_gpu", "per_tbps_bisection", "by_category",
                         "power_w", "rack_units", "confidence"}
    assert cost["currency"] == "USD" and cost["total"] > 0
    assert set(cost["by_category"]) >= {"gpu_servers", "switches", "nics", "transceivers",
                                        "cables"}
    assert cost["per_gpu"] == pytest.approx(cost["total"] / 256, rel=1e-6)
    assert cost["confidence"] in ("sourced", "weak", "placeholder")


def test_analyze_cost_book_override_changes_the_total(tmp_path, capsys, examples_dir):
    design = str(examples_dir / "rail-optimized-256-gpu-infiniband.json")
    main(["analyze", design, "--json"])
    before = json.loads(capsys.readouterr().out)["cost"]
    book = tmp_path / "quote.json"
    book.write_text(json.dumps({"format": "fabricstudio-costbook", "version": 1,
                                "currency": "USD", "items": [
                                    {"class": "switch-ib-ndr-64x400g", "price": 0}]}))
    main(["analyze", design, "--json", "--cost-book", str(book)])
    after = json.loads(capsys.readouterr().out)["cost"]
    assert after["by_category"]["switches"]["total"] == 0
    assert before["total"] - after["total"] == pytest.approx(
        before["by_category"]["switches"]["total"])
    assert main(["analyze", design]) == 0
    text = capsys.readouterr().out
    assert "Cost and power (USD" in text and "network (switches, adapters, optics, cables)" in text


def test_analyze_bad_cost_book_is_one_line(tmp_path, capsys, examples_dir):
    book = tmp_path / "bad.json"
    book.write_text("{nope")
    code = main(["analyze", str(examples_dir / "tiny.json"), "--cost-book", str(book)])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "not valid JSON" in err


def test_export_cable_plan_csv_and_xlsx(tmp_path, capsys, examples_dir):
    design = str(examples_dir / "leaf-spine-storage-management.json")
    out = tmp_path / "plan.csv"
    assert main(["export", design, "--cable-plan", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "cables in" in printed and (tmp_path / "plan.summary.csv").exists()
    header = out.read_text(encoding="utf-8-sig").splitlines()[0]
    assert header.startswith("Cable ID,Network,A rack,A U,A device,A port,A module,B rack")
    assert main(["export", design, "--cable-plan", str(tmp_path / "plan.xlsx")]) == 0
    assert (tmp_path / "plan.xlsx").read_bytes()[:2] == b"PK"
    assert main(["export", design, "--cable-plan", str(tmp_path / "plan.txt")]) == 2
    assert "must end in .csv or .xlsx" in capsys.readouterr().err
    assert main(["export", design, "--cable-plan", str(tmp_path / "none" / "p.csv")]) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_cable_plan_never_overwrites_its_design_without_force(tmp_path, capsys, examples_dir):
    design = tmp_path / "fabric.xlsx"  # a design file with a spreadsheet's name
    design.write_bytes((examples_dir / "tiny.json").read_bytes())
    assert main(["export", str(design), "--cable-plan", str(design)]) == 1
    assert "--force" in capsys.readouterr().err
    assert design.read_bytes() == (examples_dir / "tiny.json").read_bytes()
    assert main(["export", str(design), "--cable-plan", str(design), "--force"]) == 0
    assert design.read_bytes()[:2] == b"PK"
