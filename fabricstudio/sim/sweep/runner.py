"""Running a sweep: cached points, a local process pool or Dask, progress with an estimate.

Every finished point is stored at once in the cache folder (one JSON file per point, named by
the hash of its inputs, written through the safe writer), so an interrupted sweep resumes where
it stopped and a sweep that shares points with an earlier one reuses them.  Whoever runs a
point (this process, a local pool, a Dask cluster) gets the same inputs and returns the same
row, so the results do not depend on the executor.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fabricstudio.sim.sweep.point import evaluate_point, point_inputs, point_key
from fabricstudio.sim.sweep.spec import SweepSpec

#: What a cache file says it is.
CACHE_FORMAT = "fabricstudio-sweep-point"


@dataclass
class Progress:
    """Where a sweep stands: points done (cached ones included), of which cached, and the
    estimated seconds left (None until a point has run)."""

    done: int
    total: int
    cached: int
    elapsed_s: float
    remaining_s: float | None


class PointCache:
    """A folder of finished points, one ``KEY.json`` each."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached row of ``key`` (None when absent or unreadable: it is run again)."""
        path = self.folder / f"{key}.json"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(doc, dict) or doc.get("format") != CACHE_FORMAT or \
                doc.get("key") != key or not isinstance(doc.get("row"), dict):
            return None
        row: dict[str, Any] = doc["row"]
        return row

    def put(self, key: str, row: dict[str, Any]) -> None:
        """Store a finished point (atomically, through the safe writer)."""
        from fabricstudio.formats import write_output

        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"format": CACHE_FORMAT, "key": key, "row": row}, allow_nan=False)
        write_output(self.folder / f"{key}.json", text + "\n")


@dataclass(frozen=True)
class Executor:
    """Where points run: ``local`` (a process pool of ``workers``; 1 = this process),
    ``dask`` on ``scheduler`` (``tcp://HOST:8786``) or on a LocalCluster of ``dask_local``
    workers."""

    kind: str = "local"
    workers: int = 0  # local: 0 = one per CPU
    scheduler: str | None = None
    dask_local: int = 0

    def describe(self) -> str:
        """``local pool of 4 processes``, ``Dask at tcp://...``."""
        if self.kind == "dask":
            return (f"Dask LocalCluster of {self.dask_local} workers" if self.dask_local
                    else f"Dask scheduler {self.scheduler}")
        workers = self.workers or os.cpu_count() or 1
        return "this process" if workers == 1 else f"local pool of {workers} processes"


def run_sweep(spec: SweepSpec, *, cost_book: Any = None, cache: PointCache | None = None,
              executor: Executor = Executor(),
              progress: Callable[[Progress], None] | None = None,
              on_point: Callable[[dict[str, Any]], None] | None = None,
              should_stop: Callable[[], bool] | None = None) -> list[dict[str, Any]]:
    """Every point's row (parameters, then figures), in grid order.

    ``on_point`` gets each row as soon as it is known (cached ones first); ``should_stop``
    is asked after each point: when it says True the sweep ends early with the points done
    so far (the others are left out of the list, and run next time)."""
    points = spec.points()
    inputs = [point_inputs(spec, params, cost_book) for params in points]
    keys = [point_key(i) for i in inputs]
    rows: list[dict[str, Any] | None] = [None] * len(points)
    pending = []
    for index, key in enumerate(keys):
        cached = cache.get(key) if cache is not None else None
        if cached is not None:
            rows[index] = cached
        else:
            pending.append(index)
    start = time.monotonic()
    cached_count = len(points) - len(pending)
    ran = 0

    def report() -> None:
        if progress is None:
            return
        elapsed = time.monotonic() - start
        left = len(pending) - ran
        remaining = elapsed / ran * left if ran else None
        progress(Progress(cached_count + ran, len(points), cached_count, elapsed, remaining))

    def full(i: int) -> dict[str, Any]:
        return {"point": i, "key": keys[i], **_flat(points[i]), **(rows[i] or {})}

    report()
    if on_point is not None:
        for i in range(len(points)):
            if rows[i] is not None:
                on_point(full(i))
    results = _execute(executor, [(i, inputs[i]) for i in pending])
    try:
        for index, row in results:
            rows[index] = row
            if cache is not None and not str(row.get("error") or "").startswith("internal"):
                cache.put(keys[index], row)
            ran += 1
            report()
            if on_point is not None:
                on_point(full(index))
            if should_stop is not None and should_stop():
                break
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()  # a pool or cluster cancels what has not started
    return [full(i) for i in range(len(points)) if rows[i] is not None]


def _flat(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters as table cells (lists and objects as JSON text)."""
    return {key: value if isinstance(value, (str, int, float, bool)) or value is None
            else json.dumps(value, sort_keys=True) for key, value in params.items()}


def _execute(executor: Executor, jobs: list[tuple[int, dict[str, Any]]]
             ) -> Iterator[tuple[int, dict[str, Any]]]:
    if not jobs:
        return iter(())
    if executor.kind == "dask":
        return _dask(executor, jobs)
    workers = min(executor.workers or os.cpu_count() or 1, len(jobs))
    if workers == 1:
        return ((index, _safe(payload)) for index, payload in jobs)
    return _pool(workers, jobs)


def _safe(payload: dict[str, Any]) -> dict[str, Any]:
    """evaluate_point, with an unexpected exception recorded (and not cached)."""
    try:
        return evaluate_point(payload)
    except Exception as exc:  # noqa: BLE001 - one broken point must not lose the others
        from fabricstudio.sim.sweep.point import FIGURE_COLUMNS

        row: dict[str, Any] = dict.fromkeys(FIGURE_COLUMNS)
        row.update({"engine": None, "finished": None,
                    "error": f"internal error: {type(exc).__name__}: {exc}"})
        return row


def _pool(workers: int, jobs: list[tuple[int, dict[str, Any]]]
          ) -> Iterator[tuple[int, dict[str, Any]]]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    context = multiprocessing.get_context("spawn")  # no fork of a process that may run Qt
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(_safe, payload): index for index, payload in jobs}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _dask(executor: Executor, jobs: list[tuple[int, dict[str, Any]]]
          ) -> Iterator[tuple[int, dict[str, Any]]]:
    import importlib
    import logging

    try:  # imported only here: the GUI and the other commands never load Dask
        distributed: Any = importlib.import_module("dask.distributed")
    except ImportError:  # pragma: no cover - a dependency of the package
        raise RuntimeError("Dask is not installed: pip install 'dask[distributed]'") from None
    Client, LocalCluster, as_completed = (distributed.Client, distributed.LocalCluster,
                                          distributed.as_completed)

    cluster = None
    if executor.dask_local:
        cluster = LocalCluster(n_workers=executor.dask_local, threads_per_worker=1,
                               processes=True, dashboard_address=None,
                               silence_logs=logging.ERROR)
        client = Client(cluster)
    else:
        client = Client(executor.scheduler, timeout="20s")
    try:
        futures = {}
        for index, payload in jobs:
            future = client.submit(_safe, payload, pure=False)
            futures[future] = index
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def format_progress(p: Progress) -> str:
    """``sweep [#####.....] 12/100 points (3 cached), 1m05s left``."""
    filled = p.done * 30 // p.total if p.total else 30
    left = "estimating" if p.remaining_s is None else f"{_duration(p.remaining_s)} left"
    if p.done == p.total:
        left = f"done in {_duration(p.elapsed_s)}"
    return (f"sweep [{'#' * filled}{'.' * (30 - filled)}] {p.done}/{p.total} points "
            f"({p.cached} cached), {left}")


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
