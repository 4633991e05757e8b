"""``fabricstudio sweep SPEC -o RESULTS``: CSV and Parquet tables, plots, resuming, errors."""

from __future__ import annotations

import json

import pytest

from fabricstudio.cli import main
from fabricstudio.sim.sweep import read_results

SPEC = {"format": "fabricstudio-sweep", "version": 1,
        "base": {"topology": "leaf-spine", "gpus": 16, "switch_radix": 16},
        "grid": {"oversubscription": [1, 2]},
        "scenario": {"name": "all-reduce", "workloads": [
            {"type": "all_reduce", "ranks": "all", "size_bytes": "256KiB"}]}}


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(SPEC))
    return path


def test_csv_parquet_and_plots(spec_file, tmp_path, capsys):
    out = tmp_path / "r.csv"
    code = main(["sweep", str(spec_file), "-o", str(out), "--workers", "1",
                 "--plot", str(tmp_path / "p.png"), "--plot", str(tmp_path / "p.svg")])
    text = capsys.readouterr()
    assert code == 0, text.err
    assert "2 points" in text.out and "Pareto front" in text.out
    rows = read_results(out)
    assert [r["oversubscription"] for r in rows] == [1, 2]
    assert rows[0]["network_capex"] > rows[1]["network_capex"]  # 2:1 buys fewer uplinks
    assert rows[0]["completion_time_s"] < rows[1]["completion_time_s"]
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (tmp_path / "p.svg").read_bytes()[:400]
    assert len(list((tmp_path / "r.csv.cache").glob("*.json"))) == 2
    # the same sweep to Parquet: every point comes from the cache, same figures
    parquet = tmp_path / "r.parquet"
    assert main(["sweep", str(spec_file), "-o", str(parquet), "--workers", "1",
                 "--cache", str(tmp_path / "r.csv.cache")]) == 0
    assert "2 points on" in capsys.readouterr().err
    again = read_results(parquet)
    assert [r["completion_time_s"] for r in again] == pytest.approx(
        [r["completion_time_s"] for r in rows])
    assert [r["key"] for r in again] == [r["key"] for r in rows]


@pytest.mark.parametrize("extra, message", [
    (["-o", "r.txt"], ".csv or .parquet"),
    (["-o", "r.csv", "--plot", "p.gif"], ".png or .svg"),
    (["-o", "r.csv", "--scheduler", "myhost:8786"], "tcp://HOST:8786"),
    (["-o", "r.csv", "--x", "colour"], "figure column"),
    (["-o", "r.csv", "--workers", "0"], "positive"),
    (["-o", "r.csv", "--cost-book", "nowhere.json"], "nowhere.json"),
])
def test_bad_arguments_are_one_line(spec_file, tmp_path, capsys, monkeypatch, extra, message):
    monkeypatch.chdir(tmp_path)
    args = [a.format(spec=spec_file) for a in extra]
    try:
        code = main(["sweep", str(spec_file), *args])
    except SystemExit as exc:  # argparse refusals
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code in (1, 2) and message in err and "\n" not in err
    assert not (tmp_path / "r.csv").exists()


def test_a_bad_sweep_file_names_the_problem(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**SPEC, "grid": {"oversubscription": [1], "wheels": [4]}}))
    assert main(["sweep", str(path), "-o", str(tmp_path / "r.csv")]) == 1
    err = capsys.readouterr().err
    assert "grid.wheels" in err and str(path) in err


@pytest.fixture
def dask_scheduler(tmp_path):
    """A real Dask scheduler and one worker, each its own process started with the ``dask``
    command as on a cluster (the worker imports only the installed package); yields the
    scheduler's ``tcp://`` address."""
    import subprocess
    import sys
    import time

    scheduler_file = tmp_path / "scheduler.json"
    common = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": tmp_path}
    dask = [sys.executable, "-m", "dask"]
    processes = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                                   "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                                  **common)]
    try:
        deadline = time.monotonic() + 60
        address = None
        while address is None:
            assert time.monotonic() < deadline, "the Dask scheduler did not start"
            assert processes[0].poll() is None, "the Dask scheduler exited"
            time.sleep(0.2)
            try:
                address = json.loads(scheduler_file.read_text())["address"]
            except (OSError, ValueError, KeyError):
                continue  # not written (completely) yet
        processes.append(subprocess.Popen(
            [*dask, "worker", address, "--no-nanny", "--nthreads", "1", "--no-dashboard",
             "--host", "127.0.0.1"], **common))
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in reversed(processes):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def test_a_remote_dask_scheduler_gives_the_local_pool_rows(spec_file, tmp_path, capsys,
                                                            dask_scheduler):
    """``--scheduler tcp://HOST:PORT`` as a user types it, against a real scheduler and worker
    in other processes: the same rows as a local run."""
    assert dask_scheduler.startswith("tcp://127.0.0.1:")
    remote, local = tmp_path / "remote.csv", tmp_path / "local.csv"
    assert main(["sweep", str(spec_file), "-o", str(remote), "--scheduler", dask_scheduler,
                 "--no-cache"]) == 0, capsys.readouterr().err
    assert f"Dask scheduler {dask_scheduler}" in capsys.readouterr().err
    assert main(["sweep", str(spec_file), "-o", str(local), "--workers", "1",
                 "--no-cache"]) == 0  # (test_sweep: this process = a pool = a LocalCluster)
    remote_rows, local_rows = read_results(remote), read_results(local)
    assert remote_rows == local_rows
    assert [r["oversubscription"] for r in remote_rows] == [1, 2]
    assert all(r["error"] is None for r in remote_rows)
