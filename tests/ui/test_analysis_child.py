"""A large design is analysed in a child process (its work never holds the GUI's GIL): the
dock gets the same report as an analysis in this process, a change ends the running child
and analyses again, closing the window ends the child at once."""

from __future__ import annotations

import os
import signal
import time

import pytest

from fabricstudio.model import freeze
from fabricstudio.model.failures import marked
from fabricstudio.topology.analysis import analyze
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
from fabricstudio.ui.background import ChildCall, wait_for_background_work
from fabricstudio.ui.panels import analysis as analysis_panel


@pytest.fixture
def child_analysis(monkeypatch):
    """Every design counts as large: the analysis runs in a child process."""
    monkeypatch.setattr(analysis_panel, "CHILD_PROCESS_FROM", 1)


def _design():
    return build_fabric(RailOptimizedSpec(gpus=64)).to_design()


def _child_started(panel) -> bool:
    worker = panel.worker
    return isinstance(worker, ChildCall) and worker.pid is not None


def _reported(panel, design) -> bool:
    return (panel.report is not None and not panel.running
            and panel.worker is not None and panel._revision == design.revision)


def test_the_dock_gets_the_same_report_from_a_child_as_from_this_process(
        qtbot, make_window, child_analysis):
    window = make_window(_design())
    panel = window.analysis
    qtbot.waitUntil(lambda: _reported(panel, window.design), timeout=60_000)
    assert isinstance(panel.worker, ChildCall) and panel.worker.pid != os.getpid()
    here = analyze(freeze(window.design), cost_book=panel.cost_book)
    assert panel.report == here and panel.report.cost is not None
    assert panel.tree.topLevelItemCount() > 0
    # what-if failures travel to the child too
    leaf = next(d.id for d in window.design.devices.values() if d.kind == "leaf")
    panel.set_failures(marked(devices=[leaf]))
    qtbot.waitUntil(lambda: panel.report.failures is not None and not panel.running,
                    timeout=60_000)
    assert panel.report == analyze(freeze(window.design), cost_book=panel.cost_book,
                                   failures=marked(devices=[leaf]))


def test_a_change_during_the_analysis_ends_its_child_and_analyses_again(
        qtbot, make_window, child_analysis):
    window = make_window(_design())
    panel = window.analysis
    qtbot.waitUntil(lambda: _child_started(panel), timeout=30_000)
    first = panel.worker
    cable = next(iter(window.design.links))
    window.design.remove_link(cable)  # the child is still starting: far from done
    qtbot.waitUntil(lambda: first.isFinished() and first.exitcode is not None, timeout=10_000)
    assert first.stopped and first.exitcode == -signal.SIGKILL
    qtbot.waitUntil(lambda: _reported(panel, window.design), timeout=60_000)
    assert panel.worker is not first
    assert panel.report == analyze(freeze(window.design), cost_book=panel.cost_book)
    assert cable not in window.design.links


def test_closing_the_window_during_the_analysis_ends_its_child_at_once(
        qtbot, make_window, child_analysis):
    window = make_window(_design())
    panel = window.analysis
    qtbot.waitUntil(lambda: _child_started(panel), timeout=30_000)
    worker = panel.worker
    window.close()
    assert wait_for_background_work(10)
    qtbot.waitUntil(lambda: worker.exitcode is not None, timeout=10_000)
    assert worker.stopped and worker.exitcode == -signal.SIGKILL  # ended, not finished


def test_a_child_call_reports_an_error_in_one_line_and_a_stop_ends_it(qtbot):
    failing = ChildCall(int, "x")
    with qtbot.waitSignal(failing.failed, timeout=30_000) as blocker:
        failing.start()
    assert blocker.args[0].startswith("ValueError: invalid literal")
    sleeper = ChildCall(time.sleep, 600)
    sleeper.start()
    qtbot.waitUntil(lambda: sleeper.pid is not None, timeout=10_000)
    sleeper.request_stop()
    qtbot.waitUntil(sleeper.isFinished, timeout=10_000)  # not the 600 s of its call
    qtbot.waitUntil(lambda: sleeper.exitcode is not None, timeout=10_000)
    assert sleeper.stopped and sleeper.exitcode == -signal.SIGKILL
    assert wait_for_background_work(10)


QUIT_SCRIPT = """
import sys
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
from fabricstudio.ui import app as app_module
from fabricstudio.ui.app import ensure_app
from fabricstudio.ui.main_window import MainWindow
from fabricstudio.ui.panels import analysis

analysis.CHILD_PROCESS_FROM = 1
app = ensure_app()
window = MainWindow(build_fabric(RailOptimizedSpec(gpus=64)).to_design(),
                    recovery_dir=__import__("pathlib").Path(sys.argv[1]))
window.show()
while not (window.analysis.worker is not None and window.analysis.worker.pid):
    app.processEvents()
window.close()
app_module.leave(0)
"""


def test_quitting_during_a_child_analysis_ends_the_process_cleanly(tmp_path):
    """leave() with the analysis child just killed: no 'QThread destroyed while running'
    abort, and the process is gone (the child too)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", QUIT_SCRIPT, str(tmp_path)],
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "QThread: Destroyed" not in done.stderr
