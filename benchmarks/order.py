"""Time from design to order: the bill of materials, its price, the cable plan (rows, XLSX and
CSV) and the proposal PDF, at 1,024 to 16,384 GPUs.

Run: ``.venv/bin/python benchmarks/order.py [--repeat N] [--pdf]``.  Prints wall times (best
of N) and, as a machine-independent figure, each step's ratio to the whole analysis of the
same design measured in the same run (the Analysis dock runs BOM and cost with it).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from timing import arguments, best_of

from fabricstudio.formats.costbook import load_cost_book
from fabricstudio.formats.tables import csv_bytes, xlsx_bytes
from fabricstudio.topology.analysis import analyze
from fabricstudio.topology.analysis.bom import bill_of_materials
from fabricstudio.topology.analysis.view import DesignView
from fabricstudio.topology.builders import FatTreeSpec, RailOptimizedSpec, build_fabric
from fabricstudio.topology.cableplan import cable_plan
from fabricstudio.topology.cost import cost_of

CASES = [
    ("rail-optimized", 1024, RailOptimizedSpec(gpus=1024, management=True)),
    ("rail-optimized", 4096, RailOptimizedSpec(gpus=4096, management=True)),
    ("fat-tree radix 64", 16384, FatTreeSpec(switch_radix=64, gpus=16384)),
]


def main() -> None:
    """Measure and print one row per case."""
    parser = arguments(__doc__)
    parser.add_argument("--pdf", action="store_true", help="also time the proposal PDF")
    args = parser.parse_args()
    book = load_cost_book()
    print(f"{'fabric':<18} {'GPUs':>6} {'links':>7} {'analyse':>8} {'bom':>7} {'cost':>7} "
          f"{'plan':>7} {'xlsx':>7} {'csv':>7} {'bom/an':>7} {'plan/an':>8}"
          + (f" {'pdf':>7} {'pdf KiB':>8}" if args.pdf else ""))
    for label, gpus, spec in CASES:
        design = build_fabric(spec).to_design()
        t_an, report = best_of(args.repeat, lambda d=design: analyze(d))
        view = DesignView.of(design)
        t_bom, bom = best_of(args.repeat, lambda v=view: bill_of_materials(v))
        gbps = report.bisection.gbps
        t_cost, _ = best_of(args.repeat, lambda b=bom, g=gbps: cost_of(b, book, g))
        t_plan, plan = best_of(args.repeat, lambda d=design: cable_plan(d))
        sheets = plan.sheets()
        t_xlsx, _ = best_of(args.repeat, lambda s=sheets: xlsx_bytes(s))
        t_csv, _ = best_of(args.repeat, lambda s=sheets: csv_bytes(*s[0][1:]))
        line = (f"{label:<18} {gpus:>6,} {len(design.links):>7,} {t_an:>7.2f}s {t_bom:>6.2f}s "
                f"{t_cost:>6.3f}s {t_plan:>6.2f}s {t_xlsx:>6.2f}s {t_csv:>6.2f}s "
                f"{t_bom / t_an:>7.2f} {t_plan / t_an:>8.2f}")
        if args.pdf:
            line += _pdf(design, book)
        print(line)


def _pdf(design, book) -> str:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from fabricstudio.ui.app import ensure_app
    from fabricstudio.ui.report.pdf import write_proposal
    from fabricstudio.ui.report.proposal import build_proposal

    ensure_app()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.pdf"
        start = time.perf_counter()
        size = write_proposal(build_proposal(design, book), path)
        return f" {time.perf_counter() - start:>6.2f}s {size / 1024:>8,.0f}"


if __name__ == "__main__":
    main()
