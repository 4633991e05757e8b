"""Helpers of the hostile-input suite: the CLI in a subprocess, optionally under resource caps."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
TINY = EXAMPLES / "tiny.json"
#: Two GPU servers on one leaf: the smallest design a collective runs on.
PAIR = EXAMPLES / "two-servers-one-leaf.json"

_LIMITS = """
import resource, sys
mem, cpu = int(sys.argv[1]), int(sys.argv[2])
if mem:
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
if cpu:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
sys.argv = ["fabricstudio", *sys.argv[3:]]
from fabricstudio.cli import main
sys.exit(main())
"""


def run_cli(*args: str, mem_mib: int = 0, cpu_s: int = 0, timeout: float = 120,
            cwd: str | os.PathLike[str] | None = None, **kwargs) -> subprocess.CompletedProcess:
    """``fabricstudio ARGS`` in a child process, its address space capped at ``mem_mib`` MiB
    and its CPU time at ``cpu_s`` seconds (0 = no cap)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("FABRICSTUDIO_DEBUG", None)
    command = [sys.executable, "-c", _LIMITS, str(mem_mib * 2**20), str(cpu_s), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=cwd, **kwargs)


def one_line_error(out: subprocess.CompletedProcess, *needles: str) -> str:
    """Assert a clean refusal: exit status 1 or 2 (not 3 = internal error, not killed by a
    signal or a resource limit), one stderr line naming the error, no traceback, every needle
    in it; returns the line."""
    err = out.stderr.strip()
    assert out.returncode in (1, 2), (out.returncode, err)  # not 0, not 3, not a signal
    assert "Traceback" not in err and "internal error" not in err, err
    assert err.count("\n") == 0 and ("error" in err or err.startswith("invalid:")), err
    for needle in needles:
        assert needle in err, (needle, err)
    return err
