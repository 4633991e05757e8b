"""Write the Result JSON (wall-clock fields nulled) of every example scenario to a folder.

Run it before and after a change that must not move any simulated number, then compare:

    .venv/bin/python tools/result_golden.py /tmp/before    # on the old commit
    .venv/bin/python tools/result_golden.py /tmp/after     # on the new one
    diff -r /tmp/before /tmp/after && echo identical
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fabricstudio.formats import load_design  # noqa: E402
from fabricstudio.sim import build_simulation, load_scenario  # noqa: E402
from tests.sim.test_examples_scenarios import FOLDER, PAIRS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    for name, design_name in PAIRS.items():
        design = load_design(FOLDER / f"{design_name}.design.json")
        result = build_simulation(design, load_scenario(FOLDER / f"{name}.scenario.json")).run()
        (args.folder / f"{name}.json").write_text(result.to_json(timing=False))
        print(f"{name}: {len(result.flows)} flows, end {result.end_s:.6g} s")


if __name__ == "__main__":
    main()
