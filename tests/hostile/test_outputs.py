"""Hostile outputs: what an output path points at is never destroyed (issue 17, item 3).

The writer under test is fabricstudio.formats.output.write_output; the CLI cases check that
every command writes through it (symlinks, hard links, devices, FIFOs, the input file itself,
crashes, stale temporary files, permissions)."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest

from fabricstudio.formats import OutputError, check_output, save_design, write_output
from fabricstudio.formats.output import TEMP_SUFFIX, remove_stale_temp_files, temp_files_for
from tests.hostile.helpers import PAIR, TINY, one_line_error, run_cli


def _default_mode(tmp_path: Path) -> int:
    probe = tmp_path / "probe"
    probe.write_text("x")
    mode = stat.S_IMODE(probe.stat().st_mode)
    probe.unlink()
    return mode


def _only(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# ------------------------------------------------------------------- the writer
def test_new_file_gets_the_usual_mode_without_touching_the_umask(tmp_path, monkeypatch):
    expected = _default_mode(tmp_path)

    def no_umask(*_a):
        raise AssertionError("the process umask must not be changed")

    monkeypatch.setattr(os, "umask", no_umask)
    write_output(tmp_path / "out.txt", "hello")
    assert stat.S_IMODE((tmp_path / "out.txt").stat().st_mode) == expected
    assert _only(tmp_path) == ["out.txt"]


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755])
def test_replacing_keeps_the_mode(tmp_path, mode):
    target = tmp_path / "out.txt"
    target.write_text("old")
    target.chmod(mode)
    write_output(target, "new")
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == mode


def test_symlink_is_followed_and_stays_a_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real.name)
    assert write_output(link, "new") == real.resolve()
    assert link.is_symlink() and real.read_text() == "new"
    assert _only(tmp_path) == ["link.json", "real.json"]


def test_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to("target.json")
    write_output(link, "data")
    assert link.is_symlink() and (tmp_path / "target.json").read_text() == "data"


def test_symlink_loop_is_a_message(tmp_path):
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(OutputError, match="symbolic links"):
        write_output(tmp_path / "a", "x")


def test_hard_link_keeps_both_names_on_the_new_data(tmp_path):
    first = tmp_path / "first.json"
    first.write_text("old contents")
    second = tmp_path / "second.json"
    os.link(first, second)
    inode = first.stat().st_ino
    write_output(second, "new")
    assert first.read_text() == second.read_text() == "new"
    assert first.stat().st_ino == second.stat().st_ino == inode
    assert _only(tmp_path) == ["first.json", "second.json"]


def _device(path: str) -> bool:
    return os.path.exists(path) and stat.S_ISCHR(os.stat(path).st_mode)


@pytest.mark.skipif(not _device("/dev/null"), reason="/dev/null is not a device here")
def test_character_device_is_written_not_replaced():
    write_output("/dev/null", b"discarded")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.skipif(not _device("/dev/full"), reason="needs the /dev/full device")
def test_full_device_is_a_message_and_stays_a_device():
    with pytest.raises(OutputError, match="/dev/full: cannot write: No space left"):
        write_output("/dev/full", b"x" * 10_000)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_fifo_with_a_reader_receives_the_data(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    deadline = time.monotonic() + 10
    while True:  # the reader opens the FIFO in its own time
        try:
            write_output(fifo, b"through the pipe")
            break
        except OutputError:
            assert time.monotonic() < deadline
            time.sleep(0.01)
    reader.join(10)
    assert received == [b"through the pipe"] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_fifo_without_a_reader_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="nobody reads"):
        write_output(fifo, b"x")
    with pytest.raises(OutputError, match="nobody reads"):
        check_output(fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_folder_and_missing_folder_are_messages(tmp_path):
    with pytest.raises(OutputError, match="is a folder"):
        write_output(tmp_path, "x")
    with pytest.raises(OutputError, match="folder .*missing does not exist"):
        write_output(tmp_path / "missing" / "out.json", "x")


def test_output_that_is_the_input_is_refused_unless_forced(tmp_path):
    design = tmp_path / "d.json"
    design.write_text("design")
    alias = tmp_path / "alias.json"
    alias.symlink_to(design.name)
    hard = tmp_path / "hard.json"
    os.link(design, hard)
    for out in (design, alias, hard, tmp_path / "." / "d.json"):
        with pytest.raises(OutputError, match="is the input file .*--force"):
            write_output(out, "result", inputs=[design])
        with pytest.raises(OutputError, match="is the input file"):
            check_output(out, inputs=[design])
    assert design.read_text() == "design"
    write_output(design, "result", inputs=[design], force=True)
    assert design.read_text() == "result"


def test_failed_write_removes_its_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text("original")

    def boom(*_a):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OutputError, match="No space left"):
        write_output(target, "new")
    assert target.read_text() == "original" and _only(tmp_path) == ["out.json"]


def test_interrupted_write_removes_its_temp_file(tmp_path):
    target = tmp_path / "out.csv"

    def interrupted(handle):
        handle.write(b"partial")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_output(target, interrupted)
    assert _only(tmp_path) == []


def _dead_pid() -> int:
    pid = 4_000_000  # above the kernel's pid_max default
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            pass
        pid += 1


def test_stale_temp_files_of_crashed_runs_are_removed(tmp_path):
    target = tmp_path / "d.json"
    crashed = tmp_path / f".d.json.{_dead_pid()}-0123abcd{TEMP_SUFFIX}"
    running = tmp_path / f".d.json.{os.getppid()}-89abcdef{TEMP_SUFFIX}"
    ancient = tmp_path / f".d.json.{os.getppid()}-00000000{TEMP_SUFFIX}"
    unrelated = tmp_path / f".other.json.{_dead_pid()}-0123abcd{TEMP_SUFFIX}"
    for temp in (crashed, running, ancient, unrelated):
        temp.write_text("partial")
    day_old = time.time() - 2 * 24 * 3600
    os.utime(ancient, (day_old, day_old))
    assert set(temp_files_for(target)) == {crashed, running, ancient}
    write_output(target, "new")
    assert not crashed.exists() and not ancient.exists()
    assert running.exists() and unrelated.exists()  # a live writer's file; another target's
    assert remove_stale_temp_files(target) == []


# --------------------------------------------------------- commands and the GUI
def test_simulate_json_into_the_design_is_refused_before_the_run(tmp_path):
    design = tmp_path / "d.json"
    design.write_bytes(PAIR.read_bytes())
    out = run_cli("simulate", design, "--workload", "all-reduce", "--size", "1MiB",
                  "--json", design)
    one_line_error(out, "is the input file", "--force")
    assert design.read_bytes() == PAIR.read_bytes()
    assert "simulated" not in out.stdout  # refused before simulating


def test_simulate_metrics_into_the_design_with_force_writes(tmp_path):
    design = tmp_path / "d.json"
    design.write_bytes(PAIR.read_bytes())
    out = run_cli("simulate", design, "--workload", "all-reduce", "--size", "64KiB",
                  "--metrics", design, "--force")
    assert out.returncode == 0, out.stderr
    assert design.read_text().startswith("t_s,kind,id")


def test_export_png_onto_the_design_is_refused(tmp_path):
    victim = tmp_path / "victim.json"
    victim.write_bytes(TINY.read_bytes())
    for option in ("--png", "--svg"):
        one_line_error(run_cli("export", victim, option, victim), "is the input file")
    assert victim.read_bytes() == TINY.read_bytes()


@pytest.mark.skipif(not _device("/dev/full"), reason="needs the /dev/full device")
def test_json_into_dev_full_is_a_message_and_the_device_survives():
    out = run_cli("simulate", PAIR, "--workload", "all-reduce", "--size", "64KiB",
                  "--json", "/dev/full")
    one_line_error(out, "/dev/full", "No space left")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_outputs_through_symlinks_update_the_real_files(tmp_path):
    for name in ("result.json", "metrics.csv", "picture.png", "picture.svg", "design.json"):
        (tmp_path / f"real-{name}").write_text("old")
        (tmp_path / name).symlink_to(f"real-{name}")
    sim = run_cli("simulate", PAIR, "--workload", "all-reduce", "--size", "64KiB",
                  "--json", tmp_path / "result.json", "--metrics", tmp_path / "metrics.csv")
    exp = run_cli("export", TINY, "--png", tmp_path / "picture.png",
                  "--svg", tmp_path / "picture.svg")
    gen = run_cli("generate", "leaf-spine", "--gpus", "16", "-o", tmp_path / "design.json")
    assert (sim.returncode, exp.returncode, gen.returncode) == (0, 0, 0), (sim.stderr,
                                                                          exp.stderr, gen.stderr)
    for name in ("result.json", "metrics.csv", "picture.png", "picture.svg", "design.json"):
        assert (tmp_path / name).is_symlink()
        assert (tmp_path / f"real-{name}").read_bytes() != b"old"
    assert not list(tmp_path.glob(f"*{TEMP_SUFFIX}"))


def test_generate_into_a_missing_folder_is_a_message(tmp_path):
    out = run_cli("generate", "leaf-spine", "--gpus", "16", "-o", tmp_path / "no" / "d.json")
    one_line_error(out, "does not exist")


def test_design_save_through_a_symlink_keeps_the_link(tmp_path):
    from fabricstudio.formats import load_design

    real = tmp_path / "real.json"
    real.write_bytes(TINY.read_bytes())
    link = tmp_path / "link.json"
    link.symlink_to(real)
    design = load_design(link)
    design.set_name("renamed")
    save_design(design, link)
    assert link.is_symlink() and load_design(real).name == "renamed"


def test_export_to_another_format_onto_the_design_is_refused(tmp_path):
    design = tmp_path / "d.json"
    design.write_bytes(TINY.read_bytes())
    one_line_error(run_cli("export", design, "--format", "graphml", "-o", design),
                   "is the input file")
    assert design.read_bytes() == TINY.read_bytes()
    out = run_cli("export", design, "--format", "graphml", "-o", design, "--force")
    assert out.returncode == 0, out.stderr
    assert b"graphml" in design.read_bytes()


# ------------------------------------------- standard output and open descriptors
def test_dev_stdout_into_a_pipe_gets_the_data_and_the_messages_go_to_stderr(tmp_path):
    """/dev/stdout of a piped process is /proc/self/fd/1 -> 'pipe:[123]', which realpath
    cannot open: it used to fail with 'No such file or directory'."""
    for target in ("/dev/stdout", "-", "/dev/fd/1"):
        out = run_cli("export", TINY, "--svg", target, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith("<?xml") and out.stdout.rstrip().endswith("</svg>")
        assert "wrote" in out.stderr
    gen = run_cli("import", "--format", "dot", _dot_file(tmp_path), "-o", "-", cwd=tmp_path)
    assert gen.returncode == 0, gen.stderr
    assert '"fabricstudio-design"' in gen.stdout
    assert _only(tmp_path) == ["t.dot"]  # no file named '-'


def _dot_file(tmp_path: Path) -> Path:
    path = tmp_path / "t.dot"
    path.write_text('graph t { a [kind="gpu_server"]; b [kind="leaf"]; a -- b }\n')
    return path


def test_user_symlink_to_dev_stdout_writes_into_the_pipe(tmp_path):
    link = tmp_path / "out.svg"
    link.symlink_to("/dev/stdout")
    out = run_cli("export", TINY, "--svg", link)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("<?xml") and link.is_symlink()


def test_open_descriptor_is_written_at_its_position_in_append_mode(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("first\n")
    with open(log, "ab") as handle:
        write_output(f"/dev/fd/{handle.fileno()}", b"second\n")
        write_output(f"/proc/self/fd/{handle.fileno()}", "third\n")
    assert log.read_text() == "first\nsecond\nthird\n"
    assert _only(tmp_path) == ["log.txt"]


def test_closed_descriptor_is_a_message():
    fd = os.open(os.devnull, os.O_WRONLY)
    os.close(fd)
    with pytest.raises(OutputError, match=f"file descriptor {fd} is not open"):
        write_output(f"/dev/fd/{fd}", b"x")
    with pytest.raises(OutputError, match="is not open"):
        check_output(f"/dev/fd/{fd}")


def test_json_and_metrics_cannot_both_be_stdout(tmp_path):
    out = run_cli("simulate", PAIR, "--workload", "all-reduce", "--size", "64KiB",
                  "--json", "-", "--metrics", "-", cwd=tmp_path)
    one_line_error(out, "both write to standard output")
    csv_out = run_cli("simulate", PAIR, "--workload", "all-reduce", "--size", "64KiB",
                      "--metrics", "-", cwd=tmp_path)
    assert csv_out.returncode == 0, csv_out.stderr
    assert csv_out.stdout.startswith("t_s,kind,id") and _only(tmp_path) == []


# ---------------------------------------------------- two outputs, one file
def test_two_outputs_naming_one_file_are_refused_before_work(tmp_path):
    (tmp_path / "real.csv").write_text("old")
    (tmp_path / "alias.json").symlink_to("real.csv")
    sim = run_cli("simulate", PAIR, "--workload", "all-reduce", "--size", "64KiB",
                  "--json", tmp_path / "alias.json", "--metrics", tmp_path / "real.csv")
    one_line_error(sim, "is named by both --json and --metrics")
    assert "simulated" not in sim.stdout
    exp = run_cli("export", TINY, "--cable-plan", tmp_path / "plan.csv",
                  "--png", tmp_path / "plan.summary.csv")
    one_line_error(exp, "is named by both --png and --cable-plan")
    assert (tmp_path / "real.csv").read_text() == "old"
    assert _only(tmp_path) == ["alias.json", "real.csv"]


def test_format_with_a_picture_or_plan_is_refused_not_ignored(tmp_path):
    out = run_cli("export", TINY, "--cable-plan", tmp_path / "p.xlsx", "--format", "graphml",
                  "-o", tmp_path / "p.xlsx")
    one_line_error(out, "--format writes one export", "--cable-plan")
    assert _only(tmp_path) == []


def test_export_set_into_a_folder_refuses_before_writing_any_file(tmp_path):
    design = tmp_path / "d.json"
    design.write_bytes(TINY.read_bytes())
    folder = tmp_path / "netbox"
    folder.mkdir()
    (folder / "devices.csv").symlink_to(design)
    out = run_cli("export", design, "--format", "netbox", "-o", folder)
    one_line_error(out, "devices.csv", "is the input file")
    assert _only(folder) == ["devices.csv"] and design.read_bytes() == TINY.read_bytes()


def test_gui_export_to_another_format_onto_the_open_design_is_refused(qtbot, tmp_path,
                                                                       monkeypatch):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import (
        QApplication,
        QDialogButtonBox,
        QFileDialog,
        QMessageBox,
    )

    from fabricstudio.ui.interop_menu import ExportOptionsDialog
    from fabricstudio.ui.main_window import MainWindow

    design = tmp_path / "d.graphml"
    design.write_bytes(TINY.read_bytes())
    window = MainWindow()
    qtbot.addWidget(window)
    assert window.files.open(str(design))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(design), ""))
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a: shown.append(a[2]))

    def press():
        dialog = next(w for w in QApplication.topLevelWidgets()
                      if isinstance(w, ExportOptionsDialog) and w.isVisible())
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()

    QTimer.singleShot(50, press)
    window.interop.export_actions["graphml"].trigger()
    assert shown and "is the input file" in shown[0]
    assert design.read_bytes() == TINY.read_bytes()


def test_stale_video_folders_of_crashed_recordings_are_removed(tmp_path):
    from fabricstudio.ui.recorder import VIDEO_TEMP_PREFIX, remove_stale_video_folders

    crashed = tmp_path / f"{VIDEO_TEMP_PREFIX}{_dead_pid()}-abc"
    running = tmp_path / f"{VIDEO_TEMP_PREFIX}{os.getppid()}-def"
    ancient = tmp_path / f"{VIDEO_TEMP_PREFIX}{os.getppid()}-ghi"
    mine = tmp_path / f"{VIDEO_TEMP_PREFIX}{os.getpid()}-jkl"
    other = tmp_path / "fabricstudio-videos-of-mine"
    for folder in (crashed, running, ancient, mine, other):
        folder.mkdir()
        (folder / "video.mp4").write_bytes(b"partial")
    day_old = time.time() - 2 * 24 * 3600
    os.utime(ancient, (day_old, day_old))
    removed = remove_stale_video_folders(str(tmp_path))
    assert sorted(removed) == sorted([str(crashed), str(ancient)])
    assert _only(tmp_path) == sorted(p.name for p in (running, mine, other))


def test_an_output_path_with_a_line_break_is_shown_on_one_line(tmp_path):
    """``wrote PATH`` is one line even when PATH holds a newline (quoted with escapes)."""
    target = tmp_path / "two\nlines.json"
    out = run_cli("generate", "leaf-spine", "--gpus", "16", "-o", target)
    assert out.returncode == 0, out.stderr
    assert target.is_file()
    line = out.stdout.strip()
    assert line.count("\n") == 0 and repr(str(target)) in line, line
    svg = tmp_path / "a\nb.svg"
    export = run_cli("export", target, "--svg", svg)
    assert export.returncode == 0, export.stderr
    line = export.stdout.strip()
    assert line.count("\n") == 0 and repr(str(svg)) in line, line
