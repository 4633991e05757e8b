"""The command line: subcommands, help, exit codes and one-line errors."""

import subprocess
import sys

import pytest

from fabricstudio import __version__
from fabricstudio.cli import build_parser, main


def run_cli(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "fabricstudio", *args], capture_output=True,
                          text=True, timeout=120, **kwargs)


def test_version():
    out = run_cli("--version")
    assert out.returncode == 0 and __version__ in out.stdout


def test_every_subcommand_has_help(capsys):
    _, modules = build_parser()
    assert {"gui", "validate"} <= set(modules)
    for name in modules:
        with pytest.raises(SystemExit) as exc:
            main([name, "--help"])
        assert exc.value.code == 0
        assert name in capsys.readouterr().out


def test_validate_exit_codes(examples_dir, tmp_path, capsys):
    assert main(["validate", str(examples_dir / "tiny.json")]) == 0
    assert "valid" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "fabricstudio-design", "version": 1, "nodes": [{"id": 1}]}')
    assert main(["validate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.json" in err
    assert main(["validate", str(tmp_path / "nope.json")]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["validate"])
    assert exc.value.code == 2


def test_bad_design_for_gui_is_one_line_not_a_traceback(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_bytes(b'{"format": "fabricstudio-design", "version": 1, "nodes": [')
    for args in ([str(bad)], ["gui", str(bad)]):
        out = run_cli(*args)
        assert out.returncode == 1
        assert "Traceback" not in out.stderr
        assert out.stderr.strip().count("\n") == 0 and "broken.json" in out.stderr


def test_unknown_option_is_a_usage_error():
    out = run_cli("validate", "--frobnicate", "x.json")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "unrecognized arguments" in out.stderr


def test_gui_without_display_says_so(examples_dir):
    import os

    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = run_cli("gui", str(examples_dir / "tiny.json"), env=env)
    assert out.returncode == 1 and "no display found" in out.stderr
    assert "Traceback" not in out.stderr
