"""Recorded runs kept on disk, so a demo (or any comparison) shown again starts in seconds.

An entry is one fabric's :class:`~fabricstudio.sim.recorded.RecordedRun`: its metric
stream, Result, GPU timeline, captions and facts (not the design: the caller has it).  It is
filed under a hash of *what* ran (the design file text, the validated Scenario, the fabric's
label) and records *how* it ran: the engine fingerprint (a hash of the source of every module
that shapes a result: sim, model, topology, formats and the hardware catalogue), the
package, Python and numpy versions.  On load an entry is used only when all of these are the
current ones; otherwise it is *stale* and the run is recomputed (and the entry replaced).

The file: a magic line, one JSON header line (format, version, key, label, when recorded, the
fingerprint and versions, the payload's size and SHA-256), then the zlib-compressed pickle of
the payload.  A *corrupt* entry (truncated, bad checksum, unreadable, unexpected contents) is
ignored, removed and recomputed; a failed lookup or store never stops a run.  The pickle is
read with an unpickler that only rebuilds FabricStudio's and numpy's data classes (never
calls a function), and only after its checksum matched the header.

Entries are written atomically through :func:`fabricstudio.formats.write_output`; the
folder is kept under :data:`MAX_CACHE_BYTES` by removing the entries used longest ago.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import pickle
import sys
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np

import fabricstudio
from fabricstudio.formats import write_output
from fabricstudio.formats.design_file import dump_design
from fabricstudio.model import Design
from fabricstudio.sim.activity import GpuTimeline
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.sim.moments import Caption, RunFacts
from fabricstudio.sim.recorded import RecordedRun
from fabricstudio.sim.result import Result
from fabricstudio.sim.scenario import Scenario

log = logging.getLogger(__name__)

CACHE_FORMAT = "fabricstudio-run-cache"
#: Bumped when the entry layout or the payload's contents change.
CACHE_VERSION = 1
MAGIC = b"FABRICSTUDIO-RUN-CACHE\n"
SUFFIX = ".fsrun"
#: The folder is pruned to this size (oldest used first); a demo's four runs take ~1 MB.
MAX_CACHE_BYTES = 256 * 2**20
#: An entry larger than this is neither written nor read.
MAX_ENTRY_BYTES = 64 * 2**20
#: Setting this environment variable to 0 / off / no turns the cache off.
DISABLE_ENV = "FABRICSTUDIO_RUN_CACHE"
#: Package folders whose code shapes a run's result (their source is fingerprinted).
ENGINE_PACKAGES = ("sim", "model", "topology", "formats")
ENGINE_DATA = ("resources/catalogue.json",)

Status = Literal["hit", "miss", "stale", "corrupt"]


def cache_enabled() -> bool:
    """False when the user turned the cache off (:data:`DISABLE_ENV`)."""
    return os.environ.get(DISABLE_ENV, "1").strip().lower() not in ("0", "off", "no", "false")


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """SHA-256 of the source of every module that shapes a run (and the hardware catalogue):
    any change to the engine's code makes the cached runs stale."""
    root = Path(fabricstudio.__file__).parent
    digest = hashlib.sha256(fabricstudio.__version__.encode())
    files = [p for package in ENGINE_PACKAGES for p in (root / package).rglob("*.py")]
    files += [root / name for name in ENGINE_DATA]
    for path in sorted(files):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def environment() -> dict[str, str]:
    """How a run is computed: the engine fingerprint and the versions that may change it."""
    return {"engine": engine_fingerprint(), "fabricstudio": fabricstudio.__version__,
            "python": "{}.{}".format(*sys.version_info[:2]), "numpy": np.__version__}


def run_key(design: Design, scenario: Scenario, label: str) -> str:
    """The hash of what runs: the design (as its file), the validated scenario, the label."""
    digest = hashlib.sha256()
    for part in (dump_design(design), scenario.model_dump_json(), label):
        data = part.encode()
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


@dataclass(frozen=True)
class Lookup:
    """What a lookup found: the run on a ``hit``, else None and why (``miss``: no entry,
    ``stale``: recorded by another engine or version, ``corrupt``: unreadable)."""

    status: Status
    record: RecordedRun | None = None
    detail: str = ""


class _DataOnly(pickle.Unpickler):
    """Rebuilds FabricStudio's and numpy's data classes and plain containers; refuses
    every other global (a pickle could otherwise call any function)."""

    _NUMPY = {("numpy", "dtype"), ("numpy", "ndarray"), ("numpy._core.numeric", "_frombuffer"),
              ("numpy.core.numeric", "_frombuffer"),
              ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
              ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar")}
    _BUILTINS = {"set", "frozenset", "complex", "slice", "range", "bytearray"}

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self._NUMPY or module == "builtins" and name in self._BUILTINS:
            return super().find_class(module, name)
        if module == "collections" and name in ("OrderedDict", "defaultdict", "deque"):
            return super().find_class(module, name)
        if module.startswith("fabricstudio."):
            found = super().find_class(module, name)
            if isinstance(found, type):
                return found
        raise pickle.UnpicklingError(f"unexpected {module}.{name} in a cached run")


class RunCache:
    """The recorded runs in one folder (see the module docstring)."""

    def __init__(self, folder: str | os.PathLike[str],
                 max_bytes: int = MAX_CACHE_BYTES) -> None:
        self.folder = Path(folder)
        self.max_bytes = max_bytes

    def path(self, key: str) -> Path:
        """The file of the entry ``key``."""
        return self.folder / f"{key}{SUFFIX}"

    # ------------------------------------------------------------------ reading
    def lookup(self, key: str, label: str, design: Design) -> Lookup:
        """The run recorded under ``key`` by this engine, as a RecordedRun of ``design``
        whose ``cached_at`` says when it was recorded.  A stale or corrupt entry is removed."""
        path = self.path(key)
        try:
            with path.open("rb") as handle:
                raw = handle.read(MAX_ENTRY_BYTES + 1)
        except FileNotFoundError:
            return Lookup("miss")
        except OSError as exc:
            return Lookup("corrupt", detail=f"cannot read it: {exc.strerror or exc}")
        try:
            header, payload = _split(raw, key)
        except _Stale as exc:
            self._discard(path)
            return Lookup("stale", detail=str(exc))
        except (ValueError, UnicodeDecodeError) as exc:
            self._discard(path)
            return Lookup("corrupt", detail=str(exc))
        try:
            parts = _DataOnly(io.BytesIO(zlib.decompress(payload))).load()
            record = _record(parts, label, design, float(header["recorded_at"]))
        except Exception as exc:  # noqa: BLE001 - any unreadable entry is recomputed
            self._discard(path)
            return Lookup("corrupt", detail=f"{type(exc).__name__}: {exc}")
        try:
            os.utime(path)  # used now: pruned last
        except OSError:
            pass
        return Lookup("hit", record)

    # ------------------------------------------------------------------ writing
    def store(self, key: str, record: RecordedRun) -> Path | None:
        """Keep ``record`` under ``key`` (atomically); None when it could not be written (the
        reason is logged: a full disk or a read-only cache never stops a run)."""
        try:
            parts = {"stream": record.stream, "result": record.result,
                     "timeline": record.timeline, "captions": list(record.captions),
                     "facts": record.facts}
            payload = zlib.compress(pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL), 1)
            if len(payload) > MAX_ENTRY_BYTES:
                return None
            header = {"format": CACHE_FORMAT, "version": CACHE_VERSION, "key": key,
                      "label": record.label, "recorded_at": time.time(), **environment(),
                      "payload_bytes": len(payload),
                      "payload_sha256": hashlib.sha256(payload).hexdigest()}
            data = MAGIC + json.dumps(header).encode() + b"\n" + payload
            self.folder.mkdir(parents=True, exist_ok=True)
            written = write_output(self.path(key), data)
        except Exception as exc:  # noqa: BLE001 - the cache is an optimisation
            log.warning("run cache: cannot keep the %s run: %s", record.label, exc)
            return None
        self.prune(keep=(written,))
        return written

    def entries(self) -> list[Path]:
        """The entry files, used longest ago first."""
        try:
            found = [p for p in self.folder.iterdir() if p.name.endswith(SUFFIX)]
        except OSError:
            return []
        return sorted(found, key=_mtime)

    def prune(self, keep: Iterable[Path] = ()) -> None:
        """Remove the entries used longest ago until the folder is within ``max_bytes``."""
        kept = set(keep)
        entries = self.entries()
        sizes = {p: _size(p) for p in entries}
        total = sum(sizes.values())
        for path in entries:
            if total <= self.max_bytes:
                break
            if path not in kept:
                self._discard(path)
                total -= sizes[path]

    def clear(self) -> int:
        """Remove every entry; returns how many."""
        entries = self.entries()
        for path in entries:
            self._discard(path)
        return len(entries)

    def _discard(self, path: Path) -> None:
        try:
            path.unlink()
        except OSError:
            pass


class _Stale(ValueError):
    """The entry was recorded by another engine, version or cache layout."""


def _split(raw: bytes, key: str) -> tuple[dict[str, Any], bytes]:
    """The header and the payload of an entry, checked (ValueError: corrupt, _Stale)."""
    if len(raw) > MAX_ENTRY_BYTES:
        raise ValueError("larger than any entry the cache writes")
    if not raw.startswith(MAGIC):
        raise ValueError("not a run-cache entry")
    line_end = raw.find(b"\n", len(MAGIC))
    if line_end < 0:
        raise ValueError("truncated header")
    header = json.loads(raw[len(MAGIC):line_end])
    if not isinstance(header, dict) or header.get("format") != CACHE_FORMAT:
        raise ValueError("not a run-cache header")
    if header.get("version") != CACHE_VERSION:
        raise _Stale(f"cache layout {header.get('version')!r}, this one is {CACHE_VERSION}")
    for name, value in environment().items():
        if header.get(name) != value:
            raise _Stale(f"recorded with another {name} ({str(header.get(name))[:12]})")
    if header.get("key") != key:
        raise ValueError("filed under another key")
    payload = raw[line_end + 1:]
    if len(payload) != header.get("payload_bytes"):
        raise ValueError(f"payload of {len(payload)} bytes, header says "
                         f"{header.get('payload_bytes')}")
    if hashlib.sha256(payload).hexdigest() != header.get("payload_sha256"):
        raise ValueError("payload checksum mismatch")
    float(header["recorded_at"])
    return header, payload


def _record(parts: Any, label: str, design: Design, recorded_at: float) -> RecordedRun:
    """The RecordedRun of a loaded payload (TypeError when it is not what the cache wrote)."""
    expected = {"stream": MetricStream, "result": Result, "timeline": GpuTimeline | None,
                "captions": list, "facts": RunFacts | None}
    if not isinstance(parts, dict) or set(parts) != set(expected):
        raise TypeError("unexpected contents")
    for name, kind in expected.items():
        if not isinstance(parts[name], kind):
            raise TypeError(f"{name} is a {type(parts[name]).__name__}")
    if not all(isinstance(c, Caption) for c in parts["captions"]):
        raise TypeError("captions hold something else")
    if not parts["stream"].finished:
        raise TypeError("the recorded stream was not closed")
    record = RecordedRun(label, design, parts["stream"], parts["result"], parts["timeline"],
                         parts["captions"], parts["facts"])
    return replace(record, cached_at=recorded_at)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


__all__ = ["CACHE_FORMAT", "CACHE_VERSION", "Lookup", "RunCache", "cache_enabled",
           "engine_fingerprint", "environment", "run_key"]
