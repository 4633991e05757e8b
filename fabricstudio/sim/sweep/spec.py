"""The sweep file: a base fabric, a grid of values, a scenario; expanded into points.

```json
{"format": "fabricstudio-sweep", "version": 1,
 "base": {"topology": "leaf-spine", "gpus": 64, "switch_radix": 32, "technology": "roce"},
 "grid": {"oversubscription": [1, 2, 4], "technology": ["roce", "infiniband"],
          "size_bytes": ["16MiB", "64MiB"], "seed": [1, 2]},
 "scenario": {"workloads": [{"type": "all_reduce", "ranks": "all", "size_bytes": "16MiB"}]}}
```

``base`` is a generator spec (the options of ``fabricstudio generate``, docs/generate.md) or
``{"design": "file.json"}`` (a design file, relative to the sweep file).  Each grid key takes
a list of values; the points are every combination, in the grid's key order (the last key
varies fastest).  Where a key goes (:func:`apply`):

* generator options (``topology`` or ``family``, ``gpus``, ``servers``, ``oversubscription``,
  ``switch_radix`` or ``radix``, ``port_speed_gbps``, ``nic_speed_gbps``, ``spines`` ...):
  into the base spec (not with a design file);
* ``technology``: the generated fabric's and the run's;
* run settings ``dcqcn``, ``routing``, ``engine``, ``seed``, ``cell_bytes``, ``until_s``:
  into the scenario;
* ``size_bytes``: the size of every workload and flow (a collective's ``size_bytes``, a
  training step's ``gradient_bytes``, the ``bytes`` of incast, permutation, storage and
  flows);
* ``failures``: the scenario's failure list (each value is a list, docs/failures.md);
* ``scenario.PATH`` (dotted, numbers index lists, e.g. ``scenario.workloads.0.compute_s``):
  any scenario field.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SWEEP_FORMAT = "fabricstudio-sweep"
SWEEP_VERSION = 1
#: Most points one sweep may have.
MAX_POINTS = 100_000
#: Largest sweep file read (a design embedded in ``base`` is a separate file).
MAX_SWEEP_BYTES = 16 * 2**20
#: Generator options a grid may vary (FabricSpec fields; aliases below).
GENERATOR_KEYS = frozenset({
    "topology", "gpus", "servers", "gpus_per_server", "nics_per_server", "nic_speed_gbps",
    "switch_radix", "port_speed_gbps", "oversubscription", "servers_per_leaf", "spines",
    "leaves_per_pod", "servers_per_su", "tiers", "storage_servers", "storage_nic_speed_gbps",
    "management", "servers_per_rack", "name"})
ALIASES = {"family": "topology", "radix": "switch_radix"}
RUN_KEYS = frozenset({"dcqcn", "routing", "engine", "seed", "cell_bytes", "until_s",
                      "measure_from_s", "sample_period_s"})
#: Workload and flow fields that ``size_bytes`` sets.
SIZE_FIELDS = ("size_bytes", "gradient_bytes", "bytes")


class SweepError(ValueError):
    """A sweep file that cannot run (one readable line)."""


@dataclass(frozen=True)
class SweepSpec:
    """A parsed sweep file."""

    base: dict[str, Any]
    design: str | None  # design-file text when the base is a design file
    grid: dict[str, list[Any]]
    scenario: dict[str, Any]

    @property
    def size(self) -> int:
        """Number of points."""
        return math.prod(len(values) for values in self.grid.values())

    def points(self) -> list[dict[str, Any]]:
        """The parameters of every point (grid key -> value), in order."""
        keys = list(self.grid)
        return [dict(zip(keys, combo, strict=True))
                for combo in itertools.product(*(self.grid[k] for k in keys))]


def parse_sweep(data: Any, folder: Path | None = None) -> SweepSpec:
    """Check a sweep document (``folder``: where a ``design`` path is relative to);
    SweepError names the first problem."""
    if not isinstance(data, dict):
        raise SweepError("a sweep file is a JSON object")
    if data.get("format") != SWEEP_FORMAT:
        raise SweepError(f'"format" must be "{SWEEP_FORMAT}"')
    if data.get("version") != SWEEP_VERSION:
        raise SweepError(f'"version" must be {SWEEP_VERSION} (got {data.get("version")!r})')
    unknown = set(data) - {"format", "version", "name", "description", "base", "grid",
                           "scenario"}
    if unknown:
        raise SweepError(f"unknown key(s) {', '.join(sorted(unknown))}")
    base, grid, scenario = data.get("base"), data.get("grid", {}), data.get("scenario")
    if not isinstance(base, dict) or not base:
        raise SweepError('"base" must be an object: generator options or {"design": FILE}')
    if not isinstance(grid, dict):
        raise SweepError('"grid" must be an object of key: [values]')
    if not isinstance(scenario, dict):
        raise SweepError('"scenario" must be an object (a scenario, without format/version)')
    design = _design(base, folder)
    base = {ALIASES.get(k, k): v for k, v in base.items() if k != "design"}
    clean: dict[str, list[Any]] = {}
    for raw_key, values in grid.items():
        key = ALIASES.get(str(raw_key), str(raw_key))
        _check_key(key, design is not None)
        if not isinstance(values, list) or not values:
            raise SweepError(f"grid.{raw_key} must be a non-empty list of values")
        clean[key] = values
    spec = SweepSpec(base, design, clean, scenario)
    if spec.size > MAX_POINTS:
        raise SweepError(f"the grid has {spec.size:,} points (at most {MAX_POINTS:,})")
    return spec


def _design(base: dict[str, Any], folder: Path | None) -> str | None:
    path = base.get("design")
    if path is None:
        return None
    if len(base) > 1:
        raise SweepError('"base" is either {"design": FILE} or generator options, not both')
    from fabricstudio.formats import DesignFileError, dump_design, load_design

    if not isinstance(path, str):
        raise SweepError('"base.design" must be a file name')
    full = Path(path) if folder is None else folder / path
    try:
        return dump_design(load_design(full))
    except DesignFileError as exc:
        raise SweepError(str(exc)) from None


def _check_key(key: str, has_design: bool) -> None:
    if key in GENERATOR_KEYS:
        if has_design:
            raise SweepError(f"grid.{key} varies the generator, but the base is a design file")
        return
    if key in RUN_KEYS or key in ("technology", "size_bytes", "failures"):
        return
    if key.startswith("scenario.") and len(key) > len("scenario."):
        return
    raise SweepError(f"grid.{key}: not a generator option, run setting, size_bytes, failures "
                     f"or scenario.PATH (docs/sweeps.md)")


def apply(spec: SweepSpec, params: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None,
                                                             dict[str, Any]]:
    """(generator spec or None, design-file text or None, scenario data) of one point."""
    generator = None if spec.design is not None else copy.deepcopy(spec.base)
    scenario = copy.deepcopy(spec.scenario)
    scenario.setdefault("format", "fabricstudio-scenario")
    scenario.setdefault("version", 1)
    for key, value in params.items():
        if key in GENERATOR_KEYS and generator is not None:
            generator[key] = value
        elif key == "technology":
            scenario["technology"] = value
            if generator is not None:
                generator["technology"] = value
        elif key in RUN_KEYS or key == "failures":
            scenario[key] = value
        elif key == "size_bytes":
            for entry in [*scenario.get("workloads", []), *scenario.get("flows", [])]:
                for name in SIZE_FIELDS:
                    if isinstance(entry, dict) and name in entry:
                        entry[name] = value
        elif key.startswith("scenario."):
            _set_path(scenario, key.split(".")[1:], value, key)
    return generator, spec.design, scenario


def _set_path(target: Any, path: list[str], value: Any, key: str) -> None:
    for i, part in enumerate(path):
        last = i == len(path) - 1
        if isinstance(target, list):
            try:
                index = int(part)
                if last:
                    target[index] = value
                    return
                target = target[index]
            except (ValueError, IndexError):
                raise SweepError(f"grid.{key}: {part!r} is not an index of the list") from None
        elif isinstance(target, dict):
            if last:
                target[part] = value
                return
            target = target.setdefault(part, {})
        else:
            raise SweepError(f"grid.{key}: {part!r} is inside a value, not an object or list")


def load_sweep(path: str | Path) -> SweepSpec:
    """Read and check a sweep file (strict JSON; SweepError names the problem)."""
    from fabricstudio.formats.reading import InputError, decode_json, read_input

    try:
        data = decode_json(read_input(path, MAX_SWEEP_BYTES), path)
    except InputError as exc:
        raise SweepError(f"{path}: {exc.problem}") from None
    try:
        return parse_sweep(data, Path(path).parent)
    except SweepError as exc:
        raise SweepError(f"{path}: {exc}") from None


def canonical(data: Any) -> str:
    """Stable JSON text of ``data`` (sorted keys): what a point's hash is taken of."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)
