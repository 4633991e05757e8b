"""``fabricstudio export --format`` / ``--list-formats`` and ``fabricstudio import``."""

from __future__ import annotations

import pytest
import yaml

from fabricstudio.cli import main
from fabricstudio.formats import load_design
from fabricstudio.interop import export_formats


def test_list_formats_one_line_each(capsys):
    assert main(["export", "--list-formats"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[0] for line in lines] == list(export_formats())
    assert main(["export", "--list-formats", "--format", "containerlab"]) == 0
    assert "-O switch-kind=VALUE" in capsys.readouterr().out


def test_export_containerlab_subset_with_options(examples_dir, tmp_path, capsys):
    out = tmp_path / "lab.clab.yml"
    code = main(["export", str(examples_dir / "rail-optimized-256-gpu-infiniband.json"),
                 "--format", "containerlab", "-o", str(out), "--subset", "su:1",
                 "-O", "switch-kind=arista_ceos", "-O", "image.arista_ceos=ceos:4.32.0F"])
    assert code == 0
    captured = capsys.readouterr()
    assert f"wrote {out}" in captured.out and "subset su:1" in captured.err
    doc = yaml.safe_load(out.read_text())
    kinds = {spec["kind"] for spec in doc["topology"]["nodes"].values()}
    assert kinds == {"arista_ceos", "linux"}
    assert all(e.split(":")[1].startswith("eth") for lk in doc["topology"]["links"]
               for e in lk["endpoints"])


@pytest.mark.parametrize("args,message", [
    (["--format", "nope", "-o", "x"], "unknown export format 'nope'"),
    (["--format", "graphml"], "needs -o FILE"),
    (["-o", "x.graphml"], "give --format FMT"),
    (["--format", "slurm", "-o", "{tmp}/x.csv"], "writes several files"),
    (["--format", "containerlab", "-o", "{tmp}/x.yml", "--subset", "su:99"],
     "has 1 scalable units"),
    (["--format", "containerlab", "-o", "{tmp}/x.yml", "-O", "colour=red"],
     "unknown option 'colour'"),
    (["--format", "containerlab", "-o", "{tmp}/x.yml", "-O", "switch-kind=vr-sros"],
     "no default image"),
    (["--format", "graphml", "-o", "{tmp}/missing/x.graphml"], "cannot write"),
])
def test_export_errors_are_one_line(examples_dir, tmp_path, capsys, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code = main(["export", str(examples_dir / "two-servers-one-leaf.json"), *args])
    err = capsys.readouterr().err
    assert code != 0 and message in err and err.count("\n") == 1


def test_import_round_trip_through_the_cli(examples_dir, tmp_path, capsys):
    source = examples_dir / "leaf-spine-storage-management.json"
    assert main(["export", str(source), "--format", "netbox", "-o", str(tmp_path / "nb.zip")]) == 0
    target = tmp_path / "back.json"
    assert main(["import", str(tmp_path / "nb.zip"), "-o", str(target)]) == 0
    out = capsys.readouterr().out
    assert "as netbox" in out and f"wrote {target}" in out
    assert load_design(target).to_data() == load_design(source).to_data()


def test_import_reports_guesses_and_refuses_bad_files(tmp_path, capsys):
    clab = tmp_path / "lab.clab.yml"
    clab.write_text('name: t\ntopology:\n  nodes:\n    leaf1: {kind: srl}\n'
                    '    gpu1: {kind: linux}\n  links:\n'
                    '    - endpoints: ["leaf1:e1-1", "gpu1:eth1"]\n')
    assert main(["import", str(clab), "-o", str(tmp_path / "d.json")]) == 0
    assert "guessed:" in capsys.readouterr().out
    bad = tmp_path / "bad.dot"
    bad.write_text("graph { a -- ")
    assert main(["import", str(bad), "-o", str(tmp_path / "e.json")]) == 1
    err = capsys.readouterr().err
    assert "DOT syntax error" in err and err.count("\n") == 1
    assert not (tmp_path / "e.json").exists()
    assert main(["import", str(clab), "-o", str(clab)]) == 2


def test_export_never_overwrites_its_design_unless_forced(examples_dir, tmp_path, capsys):
    design = tmp_path / "d.json"
    design.write_bytes((examples_dir / "tiny.json").read_bytes())
    before = design.read_bytes()
    assert main(["export", str(design), "--format", "graphml", "-o", str(design)]) != 0
    assert "input" in capsys.readouterr().err.lower() and design.read_bytes() == before
    assert main(["export", str(design), "--format", "graphml", "-o", str(design),
                 "--force"]) == 0
    assert design.read_bytes().startswith(b"<?xml")
