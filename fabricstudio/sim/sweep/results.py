"""Sweep results: the table (CSV or Parquet, through the safe writer) and its Pareto front."""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fabricstudio.sim.compare import ALL_KPIS, Kpi
from fabricstudio.sim.sweep.point import FIGURE_COLUMNS, STATUS_COLUMNS

#: Output formats by file suffix.
FORMATS = {".csv": "csv", ".parquet": "parquet"}
KPIS: dict[str, Kpi[Any]] = {k.key: k for k in ALL_KPIS}


def columns(grid_keys: Sequence[str]) -> list[str]:
    """The table's columns: point number and hash, the parameters, figures, status."""
    return ["point", "key", *grid_keys, *FIGURE_COLUMNS, *STATUS_COLUMNS]


def output_format(path: str | os.PathLike[str]) -> str:
    """``csv`` or ``parquet`` from the file name (ValueError otherwise)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"{path}: results are written as .csv or .parquet")
    return FORMATS[suffix]


def write_results(path: str | os.PathLike[str], rows: Sequence[dict[str, Any]],
                  grid_keys: Sequence[str], *, inputs: Sequence[str | os.PathLike[str]] = (),
                  force: bool = False) -> Path:
    """Write the rows as CSV or Parquet (by suffix) through the safe writer."""
    from fabricstudio.formats import write_output

    cols = columns(grid_keys)
    if output_format(path) == "csv":
        from fabricstudio.formats.tables import csv_bytes

        data = csv_bytes(cols, [[row.get(c) for c in cols] for row in rows])
    else:
        data = parquet_bytes(rows, cols)
    return write_output(path, data, inputs=inputs, force=force)


def parquet_bytes(rows: Sequence[dict[str, Any]], cols: Sequence[str]) -> bytes:
    """The rows as a Parquet file (pyarrow infers each column's type; mixed columns become
    text)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {}
    for col in cols:
        values = [row.get(col) for row in rows]
        try:
            arrays[col] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arrays[col] = pa.array([None if v is None else str(v) for v in values])
    buffer = io.BytesIO()
    pq.write_table(pa.table(arrays), buffer)
    return buffer.getvalue()


def read_results(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Rows of a results file written by :func:`write_results` (numbers back as numbers)."""
    if output_format(path) == "parquet":
        import pyarrow.parquet as pq

        table: list[dict[str, Any]] = pq.read_table(path).to_pylist()
        return table
    import csv

    with open(path, encoding="utf-8-sig", newline="") as handle:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(handle)]


def _number(text: str) -> Any:
    if text == "":
        return None
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


# ------------------------------------------------------------------ Pareto
def default_axes(rows: Sequence[dict[str, Any]]) -> tuple[str, str]:
    """(x, y) for the Pareto plot: network capex (else capex, else oversubscription) against
    step time (else completion time, else GPU utilisation) - the first with values."""
    def has(key: str) -> bool:
        return any(isinstance(r.get(key), (int, float)) and not isinstance(r.get(key), bool)
                   for r in rows)

    x = next((k for k in ("network_capex", "capex", "leaf_oversubscription") if has(k)),
             "leaf_oversubscription")
    y = next((k for k in ("step_time_s", "completion_time_s", "gpu_utilisation") if has(k)),
             "completion_time_s")
    return x, y


def pareto_front(rows: Sequence[dict[str, Any]], x: str, y: str) -> list[int]:
    """Indices of the rows no other row beats on both ``x`` and ``y`` (each in its better
    direction: lower cost or time, higher utilisation or bandwidth), sorted by ``x``."""
    sx, sy = _sign(x), _sign(y)
    points = [(sx * float(r[x]), sy * float(r[y]), i) for i, r in enumerate(rows)
              if _numeric(r.get(x)) and _numeric(r.get(y))]
    points.sort()
    front: list[int] = []
    best_y = float("inf")
    for _x, py, i in points:
        if py < best_y:
            front.append(i)
            best_y = py
    return sorted(front, key=lambda i: sx * float(rows[i][x]))


def _sign(key: str) -> int:
    kpi = KPIS.get(key)
    return -1 if kpi is not None and kpi.better == "higher" else 1


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def axis_label(key: str) -> str:
    """``Network capex (USD)``, ``Step / iteration time (s)``."""
    kpi = KPIS.get(key)
    if kpi is None:
        return key
    unit = {"money": "USD", "%": "0..1", ":1": "x:1"}.get(kpi.unit, kpi.unit)
    return f"{kpi.label} ({unit})" if unit else kpi.label
