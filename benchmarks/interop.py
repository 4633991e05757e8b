"""Interop speed: every export format and every re-importable format's import, on
rail-optimised fabrics with storage and management networks (256, 2,048 and 8,192 GPUs).

Run: ``.venv/bin/python benchmarks/interop.py [--sizes 256,2048,8192] [--repeat 3]``.  Prints
seconds (median of the repeats) and output sizes; no pass/fail.  The design-file save and load
of the same design are printed as the baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from fabricstudio.formats import load_design, save_design
from fabricstudio.interop import export_design, import_design, write_bundle
from fabricstudio.interop.registry import export_formats
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric

#: Where each format is written (a zip for the multi-file ones).
TARGETS = {"air": "x.air.zip", "containerlab": "x.clab.yml", "dot": "x.dot",
           "drawio": "x.drawio", "graphml": "x.graphml", "netbox": "nb.zip",
           "slurm": "slurm.zip"}
REIMPORT = ("graphml", "dot", "containerlab", "netbox")


def timed(fn, repeat: int) -> float:
    """Median wall time of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(gpus: int, repeat: int, folder: Path) -> None:
    """Print the figures for one size."""
    spec = RailOptimizedSpec(gpus=gpus, storage_servers=max(2, gpus // 256), management=True)
    design = build_fabric(spec).to_design()
    sys.stdout.write(f"\n{gpus:,} GPUs: {len(design.devices):,} devices, "
                     f"{len(design.links):,} links\n")
    base = folder / "design.json"
    save_s = timed(lambda: save_design(design, base), repeat)
    load_s = timed(lambda: load_design(base), repeat)
    sys.stdout.write(f"  {'design file':<13} save {save_s:6.2f} s  load {load_s:6.2f} s  "
                     f"{base.stat().st_size / 1e6:7.1f} MB (baseline)\n")
    for name in export_formats():
        target = folder / TARGETS[name]
        out_s = timed(lambda n=name, t=target: write_bundle(export_design(design, n), t, n),
                      repeat)
        line = f"  {name:<13} export {out_s:6.2f} s  {target.stat().st_size / 1e6:7.1f} MB"
        if name in REIMPORT:
            in_s = timed(lambda t=target: import_design(t), repeat)
            line += f"  import {in_s:6.2f} s"
        sys.stdout.write(line + "\n")


def main() -> None:
    """Parse arguments and print every size's figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="256,2048,8192")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for gpus in (int(s) for s in args.sizes.split(",")):
            run(gpus, args.repeat, Path(folder))


if __name__ == "__main__":
    main()
