"""Hostile input files: special files, sizes, and saves that could not be opened again
(issue 17, items 2 and 4)."""

from __future__ import annotations

import os
import stat
import time

import pytest

from fabricstudio.formats import (
    MAX_FILE_BYTES,
    DesignFileError,
    InputError,
    design_file,
    load_design,
    read_input,
    save_design,
)
from fabricstudio.sim.scenario import ScenarioError, load_scenario
from tests.hostile.helpers import PAIR, TINY, one_line_error, run_cli


def _is_device(path: str) -> bool:
    return os.path.exists(path) and stat.S_ISCHR(os.stat(path).st_mode)


@pytest.mark.skipif(not _is_device("/dev/zero"), reason="needs the /dev/zero device")
@pytest.mark.parametrize("command", ["analyze", "validate", "simulate", "export"])
def test_dev_zero_is_refused_without_reading(command):
    extra = {"simulate": ["--workload", "all-reduce", "--size", "1MiB"],
             "export": ["--png", "never.png"]}.get(command, [])
    out = run_cli(command, "/dev/zero", *extra, mem_mib=1024, timeout=60)
    one_line_error(out, "/dev/zero", "not a regular file (a character device)")


@pytest.mark.parametrize("command", ["analyze", "validate"])
def test_fifo_is_refused_instead_of_hanging(tmp_path, command):
    fifo = tmp_path / "design.json"
    os.mkfifo(fifo)
    start = time.monotonic()
    out = run_cli(command, fifo, timeout=60)
    one_line_error(out, "not a regular file (a FIFO (named pipe))")
    assert time.monotonic() - start < 60


def test_scenario_fifo_and_device_are_refused(tmp_path):
    fifo = tmp_path / "s.json"
    os.mkfifo(fifo)
    with pytest.raises(ScenarioError, match="not a regular file"):
        load_scenario(fifo)
    if _is_device("/dev/zero"):
        with pytest.raises(ScenarioError, match="not a regular file"):
            load_scenario("/dev/zero")
    out = run_cli("simulate", PAIR, "--scenario", fifo, timeout=60)
    one_line_error(out, "not a regular file")


def test_folder_is_refused(tmp_path):
    with pytest.raises(DesignFileError, match="is a folder"):
        load_design(tmp_path)
    with pytest.raises(InputError, match="is a folder"):
        read_input(tmp_path, 100)


def test_file_growing_past_the_limit_is_refused(tmp_path):
    path = tmp_path / "d.json"
    path.write_bytes(b" " * 200)
    with pytest.raises(InputError, match=r"too large \(0\.0 MiB; the limit is 0\.0 MiB\)"):
        read_input(path, 100)


def test_size_limit_is_printed_in_mebibytes(tmp_path):
    path = tmp_path / "big.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 5 * 2**20)  # sparse
    with pytest.raises(DesignFileError) as exc:
        load_design(path)
    assert exc.value.problem == "file is too large (261 MiB; the limit is 256 MiB)"


def test_save_refuses_a_design_too_large_to_open_and_keeps_the_old_file(tmp_path,
                                                                         monkeypatch):
    path = tmp_path / "d.json"
    path.write_bytes(TINY.read_bytes())
    design = load_design(PAIR)
    monkeypatch.setattr(design_file, "MAX_FILE_BYTES", 1000)
    with pytest.raises(DesignFileError, match=r"would be .* MiB, more than the .* MiB "
                                              "FabricStudio opens; not saved"):
        save_design(design, path)
    assert path.read_bytes() == TINY.read_bytes()


def test_gui_save_of_a_too_large_design_says_why_and_keeps_the_file(qtbot, tmp_path,
                                                                    monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from fabricstudio.ui.main_window import MainWindow

    path = tmp_path / "d.json"
    path.write_bytes(PAIR.read_bytes())
    window = MainWindow()
    qtbot.addWidget(window)
    assert window.files.open(str(path))
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a: shown.append(a[2]))
    monkeypatch.setattr(design_file, "MAX_FILE_BYTES", 1000)
    window.design.set_name("edited")
    assert window.files.save() is False
    assert shown and "not saved" in shown[0]
    assert path.read_bytes() == PAIR.read_bytes()
