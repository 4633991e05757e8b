"""``fabricstudio export DESIGN --scenario FILE --at SECONDS --png FILE``."""


from PySide6.QtGui import QImage

from fabricstudio.cli import main
from fabricstudio.formats import load_design
from fabricstudio.model import Technology
from fabricstudio.sim.request import RunRequest, scenario_for
from fabricstudio.sim.scenario import dump_scenario
from fabricstudio.ui.simview import source as source_module
from tests.ui.simview.synthetic import SyntheticSource


def _scenario_file(tmp_path, design):
    scenario = scenario_for(design, RunRequest(technology=Technology.ROCE))
    path = tmp_path / "scenario.json"
    path.write_text(dump_scenario(scenario))
    return path


def test_moment_png_differs_from_idle_design_png(tmp_path, examples_dir, monkeypatch, qapp):
    design_path = examples_dir / "two-servers-one-leaf.json"
    design = load_design(design_path)
    monkeypatch.setattr(source_module, "scenario_source",
                        lambda d, scenario: SyntheticSource(d, RunRequest(until_s=10e-6)))
    idle, moment = tmp_path / "idle.png", tmp_path / "moment.png"
    assert main(["export", str(design_path), "--no-legend", "--png", str(idle)]) == 0
    assert main(["export", str(design_path), "--scenario", str(_scenario_file(tmp_path, design)),
                 "--at", "5e-6", "--png", str(moment)]) == 0
    a, b = QImage(str(idle)), QImage(str(moment))
    assert b.width() > a.width()  # the legend column
    dy = (b.height() - a.height()) // 2  # the drawing is centred beside the legend
    differing = sum(a.pixelColor(x, y) != b.pixelColor(x, y + dy)
                    for x in range(0, a.width(), 4) for y in range(0, a.height(), 4))
    assert differing > 50


def test_at_without_scenario_is_a_usage_error(tmp_path, examples_dir, capsys):
    code = main(["export", str(examples_dir / "tiny.json"), "--at", "1e-6",
                 "--png", str(tmp_path / "x.png")])
    assert code == 2
    assert "--at needs --scenario" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_bad_scenario_file_is_one_clear_line(tmp_path, examples_dir, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    code = main(["export", str(examples_dir / "tiny.json"), "--scenario", str(bad),
                 "--at", "1e-6", "--png", str(tmp_path / "x.png")])
    assert code == 1
    err = capsys.readouterr().err
    assert "not a FabricStudio scenario" in err and "Traceback" not in err
