"""Time to generate and analyse 1,024, 4,096 and 16,384-GPU fabrics.

Run: ``.venv/bin/python benchmarks/topology.py [--repeat N]``.  Prints wall times (best of N)
and, as a machine-independent figure, each step's ratio to loading the same design from its
JSON text (a peer measured in the same run).
"""

from __future__ import annotations

from timing import arguments, best_of

from fabricstudio.formats import dump_design, parse_design
from fabricstudio.topology.analysis import analyze
from fabricstudio.topology.builders import FatTreeSpec, RailOptimizedSpec, build_fabric

CASES = [
    ("rail-optimized", 1024, RailOptimizedSpec(gpus=1024)),
    ("fat-tree k=16", 1024, FatTreeSpec(switch_radix=16)),
    ("rail-optimized", 4096, RailOptimizedSpec(gpus=4096)),
    ("fat-tree radix 32", 4096, FatTreeSpec(switch_radix=32, gpus=4096)),
    ("rail-optimized", 16384, RailOptimizedSpec(gpus=16384)),
    ("fat-tree radix 64", 16384, FatTreeSpec(switch_radix=64, gpus=16384)),
]


def main() -> None:
    """Measure and print one row per case."""
    parser = arguments(__doc__)
    args = parser.parse_args()
    print(f"{'fabric':<20} {'GPUs':>6} {'devices':>8} {'links':>7} {'generate':>9} "
          f"{'design':>8} {'load':>8} {'analyse':>8} {'an/load':>8} {'sampled':>8}")
    for label, gpus, spec in CASES:
        t_build, build = best_of(args.repeat, lambda spec=spec: build_fabric(spec))
        t_design, design = best_of(args.repeat, build.to_design)
        text = dump_design(design)
        t_load, _ = best_of(args.repeat, lambda text=text: parse_design(text))
        t_analyse, report = best_of(args.repeat, lambda design=design: analyze(design))
        print(f"{label:<20} {gpus:>6,} {len(build.devices):>8,} {len(build.links):>7,} "
              f"{t_build:>8.3f}s {t_design:>7.3f}s {t_load:>7.3f}s {t_analyse:>7.3f}s "
              f"{t_analyse / t_load:>8.2f} {str(report.paths.sampled):>8}")


if __name__ == "__main__":
    main()
