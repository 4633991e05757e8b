"""``fabricstudio report``: the proposal PDF read back with pypdf."""

from __future__ import annotations

import json
import re

import pytest
from pypdf import PdfReader

from fabricstudio.cli import main
from fabricstudio.formats import load_design
from fabricstudio.formats.costbook import default_cost_book
from fabricstudio.topology.analysis import analyze
from fabricstudio.topology.cost import format_money


def pdf_text(path) -> str:
    """All text of a PDF, whitespace collapsed."""
    reader = PdfReader(str(path))
    text = " ".join(page.extract_text() for page in reader.pages)
    text = text.replace("\ufb01", "fi").replace("\ufb02", "fl")
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def training_scenario(tmp_path_factory):
    path = tmp_path_factory.mktemp("scen") / "train.scenario.json"
    path.write_text(json.dumps({
        "format": "fabricstudio-scenario", "version": 1, "name": "Proposal test step",
        "seed": 1, "workloads": [{"type": "training", "ranks": "all",
                                  "gradient_bytes": "8MiB", "compute_s": 0.002,
                                  "overlap": 0.0, "iterations": 1}]}))
    return path


def test_report_has_the_key_figures_bom_cost_comparison_and_sources(
        tmp_path, capsys, examples_dir, training_scenario):
    design_path = examples_dir / "scenarios" / "ring8.design.json"
    out = tmp_path / "proposal.pdf"
    assert main(["report", str(design_path), "--scenario", str(training_scenario),
                 "--customer", "Acme AI Labs", "-o", str(out)]) == 0
    assert "with the fabric comparison" in capsys.readouterr().out
    reader = PdfReader(str(out))
    assert len(reader.pages) >= 4
    text = pdf_text(out)
    report = analyze(load_design(design_path), cost_book=default_cost_book())
    for needle in ("PROPOSAL", "Prepared for Acme AI Labs", "Key figures", "Bill of materials",
                   "Cost and power", "Fabric comparison", "Analysis findings",
                   "Assumptions and sources", "InfiniBand", "RoCE + DCQCN", "RoCE PFC only",
                   "Lossy Ethernet", "Idle GPUs per day", "GPU idle money",
                   f"{report.counts.gpus} GPUs on {report.counts.gpu_servers} servers",
                   "Bisection bandwidth", "Oversubscription", "Hops NIC to NIC", "ECMP width",
                   format_money(report.cost.total), format_money(report.cost.network_total),
                   "placeholder", "docs.nvidia.com"):
        assert needle in text, needle
    for line in report.bom.items:
        assert f"{line.count:,}" in text and line.part in text


def test_hide_prices_keeps_quantities_and_power_but_no_capex(tmp_path, examples_dir):
    design_path = examples_dir / "rail-optimized-256-gpu-infiniband.json"
    out = tmp_path / "p.pdf"
    assert main(["report", str(design_path), "--hide-prices", "-o", str(out)]) == 0
    text = pdf_text(out)
    report = analyze(load_design(design_path), cost_book=default_cost_book())
    assert format_money(report.cost.total) not in text and "Unit price" not in text
    assert "384" in text and "xcvr-osfp-800g-sr" in text  # the twin-port modules
    assert f"{report.cost.power_w / 1000:,.1f} kW" in text


def test_logo_and_bad_inputs(tmp_path, capsys, examples_dir):
    from PySide6.QtGui import QColor, QImage

    from fabricstudio.ui.app import ensure_app

    ensure_app()
    logo = tmp_path / "logo.png"
    image = QImage(120, 40, QImage.Format.Format_ARGB32)
    image.fill(QColor("#0B5CAD"))
    assert image.save(str(logo))
    design = str(examples_dir / "tiny.json")
    assert main(["report", design, "--logo", str(logo), "-o", str(tmp_path / "a.pdf")]) == 0
    capsys.readouterr()
    fake = tmp_path / "fake.png"
    fake.write_text("not an image")
    for args, message, code in (
            (["--logo", str(fake)], "not a readable image", 1),
            (["--logo", str(tmp_path / "none.png")], "no such file", 1),
            (["-o", str(tmp_path / "a.txt")], "must end in .pdf", 2),
            (["--cost-book", str(fake)], "not valid JSON", 1),
            (["--customer", "a\x07b"], "printable", 2)):
        argv = ["report", design, *args]
        if "-o" not in args:
            argv += ["-o", str(tmp_path / "b.pdf")]
        assert main(argv) == code, args
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert not (tmp_path / "b.pdf").exists()


def test_a_flow_level_comparison_says_drops_are_not_modelled_never_zero(tmp_path, examples_dir):
    """The flow engine models neither drops nor PFC pauses: the comparison's table and chart
    say n/a and why, where they used to print 0 for every fabric."""
    scenario = tmp_path / "flow.scenario.json"
    scenario.write_text(json.dumps({
        "format": "fabricstudio-scenario", "version": 1, "name": "Flow step", "seed": 1,
        "engine": "flow", "workloads": [{"type": "training", "ranks": "all",
                                         "gradient_bytes": "8MiB", "compute_s": 0.002,
                                         "overlap": 0.0, "iterations": 1}]}))
    out = tmp_path / "proposal.pdf"
    assert main(["report", str(examples_dir / "scenarios" / "ring8.design.json"),
                 "--scenario", str(scenario), "-o", str(out)]) == 0
    text = pdf_text(out)
    comparison = text[text.index("Fabric comparison"):text.index("Analysis findings")]
    table = comparison[comparison.index("vs best per month"):]
    for fabric in ("InfiniBand", "RoCE + DCQCN", "RoCE PFC only", "Lossy Ethernet"):
        row = table[table.index(fabric) + len(fabric):].split()
        assert row[3:5] == ["n/a", "n/a"], row[:6]  # completion (2 words), GPU util., drops, PAUSEs
    assert "ran on the flow-level engine" in comparison and "not drops, PFC pauses" in comparison
    assert comparison.count("n/a") >= 12  # 4 bars of the drops chart + 8 table cells
