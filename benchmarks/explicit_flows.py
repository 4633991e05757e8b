"""What an explicit flow list costs per flow: parse, build and run time and peak memory.

Each size runs in a fresh child process (peak RSS from ``resource.getrusage``, CPU time from
``time.process_time``): one-byte flows with start times and tags (as a generated file has them)
between the two servers of examples/two-servers-one-leaf.json, read from a scenario file,
parsed, built and run.  Per-flow figures are the differences between two sizes divided by the
difference in flows (the interpreter's fixed cost drops out), median of ``--repeat`` runs.
They set ``S_PER_EXPLICIT_FLOW`` and ``BYTES_PER_EXPLICIT_FLOW`` in fabricstudio/sim/work.py.

    .venv/bin/python benchmarks/explicit_flows.py [--sizes 10000 40000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

PAIR = Path(__file__).resolve().parents[1] / "examples" / "two-servers-one-leaf.json"

CHILD = r"""
import json, os, resource, sys, tempfile, time
from fabricstudio.formats import load_design
from fabricstudio.sim.run import build_simulation
from fabricstudio.sim.scenario import load_scenario
n, design_path, engine = int(sys.argv[1]), sys.argv[2], sys.argv[3]
flows = [{"src": "server1", "dst": "server2", "bytes": 1, "start_s": i * 1e-9,
          "tag": f"f{i}"} for i in range(n)]
doc = {"format": "fabricstudio-scenario", "version": 1, "engine": engine, "flows": flows}
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
    json.dump(doc, handle)
del doc, flows
design = load_design(design_path)
t0 = time.process_time()
scenario = load_scenario(handle.name)
os.unlink(handle.name)
with open("/proc/self/statm") as statm:  # resident now: what the parse still holds
    parsed = int(statm.read().split()[1]) * resource.getpagesize()
t1 = time.process_time()
sim = build_simulation(design, scenario, max_cell_hops=None)
t2 = time.process_time()
sim.run()
t3 = time.process_time()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"parse": t1 - t0, "build": t2 - t1, "run": t3 - t2, "peak": peak,
                  "parsed": parsed,
                  "n": n}))
"""


def measure(n: int, engine: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(PAIR), engine],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[10_000, 40_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--engine", default="cell", choices=("cell", "flow"))
    args = parser.parse_args()
    small, large = args.sizes
    per_flow: dict[str, list[float]] = {key: [] for key in
                                        ("parse", "build", "run", "peak", "parsed")}
    for _ in range(args.repeat):
        a, b = measure(small, args.engine), measure(large, args.engine)
        for key in per_flow:
            per_flow[key].append((b[key] - a[key]) / (large - small))
    med = {key: statistics.median(values) for key, values in per_flow.items()}
    total = med["parse"] + med["build"] + med["run"]
    print(f"engine {args.engine}, sizes {small:,} and {large:,}, median of {args.repeat}:")
    print(f"  per flow: parse {med['parse'] * 1e6:.1f} us, build {med['build'] * 1e6:.1f} us, "
          f"run {med['run'] * 1e6:.1f} us, total {total * 1e6:.1f} us; "
          f"peak memory {med['peak']:,.0f} bytes "
          f"({med['parsed']:,.0f} of them held once parsed, "
          f"{med['peak'] - med['parsed']:,.0f} to come)")


if __name__ == "__main__":
    main()
