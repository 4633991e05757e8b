"""``fabricstudio sweep SPEC.json -o RESULTS.csv|.parquet``: a grid of fabrics and runs."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from fabricstudio.cli.common import CliError, load_cost_book_arg, positive_int
from fabricstudio.cli.output import shown_path, write_err, write_out

NAME = "sweep"
HELP = ("run a parameter sweep (generator options, technology, DCQCN, routing, sizes, failures, "
        "seeds): cached, resumable, on a local process pool or Dask; CSV or Parquet results "
        "and a Pareto plot")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``sweep``."""
    parser.add_argument("spec", metavar="SPEC.json", help="sweep file (docs/sweeps.md)")
    parser.add_argument("-o", "--output", required=True, metavar="RESULTS",
                        help="results table: .csv or .parquet")
    parser.add_argument("--plot", action="append", default=[], metavar="FILE",
                        help="Pareto plot as .png or .svg (repeat for both)")
    parser.add_argument("--x", metavar="FIGURE",
                        help="plot's x axis (default: network_capex, else capex, else "
                             "leaf_oversubscription)")
    parser.add_argument("--y", metavar="FIGURE",
                        help="plot's y axis (default: step_time_s, else completion_time_s)")
    where = parser.add_argument_group("where points run (results are the same)")
    mode = where.add_mutually_exclusive_group()
    mode.add_argument("--workers", type=positive_int, metavar="N",
                      help="local process pool size (default: one per CPU; 1 = no pool)")
    mode.add_argument("--scheduler", metavar="tcp://HOST:8786",
                      help="run on a Dask distributed cluster (workers: pip install "
                           "fabricstudio)")
    mode.add_argument("--dask-local", type=positive_int, metavar="N",
                      help="start a Dask LocalCluster of N worker processes")
    cache = parser.add_argument_group("cache (resuming)")
    cache.add_argument("--cache", metavar="DIR",
                       help="folder of finished points (default: RESULTS.cache beside the "
                            "results)")
    cache.add_argument("--no-cache", action="store_true", help="run every point again")
    parser.add_argument("--cost-book", metavar="FILE",
                        help="cost book overriding the default prices (docs/cost.md)")
    parser.add_argument("--force", action="store_true", help="let outputs overwrite an input")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar or summary")


def run(args: argparse.Namespace) -> int:
    """Expand the grid, run the points not cached yet, write results and plots."""
    from fabricstudio.formats import OutputError, check_output
    from fabricstudio.sim.sweep import (
        PointCache,
        SweepError,
        default_axes,
        format_progress,
        load_sweep,
        run_sweep,
        write_results,
    )
    from fabricstudio.sim.sweep.results import FIGURE_COLUMNS, output_format

    try:
        spec = load_sweep(args.spec)
        output_format(args.output)
        for plot in args.plot:
            if Path(plot).suffix.lower() not in (".png", ".svg"):
                raise CliError(f"{plot}: the plot is written as .png or .svg", 2)
    except (SweepError, ValueError) as exc:
        raise CliError(str(exc)) from None
    for axis in (args.x, args.y):
        if axis is not None and axis not in FIGURE_COLUMNS:
            raise CliError(f"--x/--y {axis!r}: choose a figure column "
                           f"({', '.join(FIGURE_COLUMNS)})", 2)
    book = load_cost_book_arg(args.cost_book)
    inputs = [args.spec] + ([args.cost_book] if args.cost_book else [])
    try:
        for path in (args.output, *args.plot):
            check_output(path, inputs=inputs, force=args.force)
    except OutputError as exc:
        raise CliError(str(exc)) from None
    executor = _executor(args)
    cache = None if args.no_cache else PointCache(args.cache or f"{args.output}.cache")
    show = not args.quiet and sys.stderr.isatty()
    if not args.quiet:
        write_err(f"sweep: {spec.size:,} points on {executor.describe()}"
                  + (f", cache {cache.folder}" if cache else ""))

    def progress(p) -> None:
        if show:
            sys.stderr.write("\r" + format_progress(p))
            sys.stderr.flush()

    try:
        rows = run_sweep(spec, cost_book=book, cache=cache, executor=executor,
                         progress=progress)
    except OSError as exc:  # a Dask scheduler that cannot be reached, a cache not writable
        raise CliError(f"the sweep stopped: {exc}") from None
    finally:
        if show:
            sys.stderr.write("\n")
    try:
        write_results(args.output, rows, list(spec.grid), inputs=inputs, force=args.force)
        x, y = default_axes(rows)
        x, y = args.x or x, args.y or y
        fronts = []
        if args.plot:
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no display needed
            from fabricstudio.ui.sweep_plot import render_pareto

            for plot in args.plot:
                fronts = render_pareto(rows, x, y, plot, title=Path(args.spec).stem,
                                       inputs=inputs, force=args.force)
    except (OutputError, ValueError) as exc:
        raise CliError(str(exc)) from None
    if not args.quiet:
        failed = sum(1 for r in rows if r.get("error"))
        write_out(f"wrote {shown_path(args.output)}: {len(rows):,} points"
                  + (f" ({failed:,} could not run: see the error column)" if failed else "")
                  + (f"; Pareto front of {y} against {x}: {len(fronts)} points, plot "
                     f"{', '.join(args.plot)}" if args.plot else ""))
    return 0


def _executor(args: argparse.Namespace):
    from fabricstudio.sim.sweep import Executor

    if args.scheduler:
        if not args.scheduler.startswith(("tcp://", "tls://", "inproc://", "ws://", "wss://")):
            raise CliError(f"--scheduler {args.scheduler!r}: give an address such as "
                           "tcp://HOST:8786", 2)
        return Executor("dask", scheduler=args.scheduler)
    if args.dask_local:
        return Executor("dask", dask_local=args.dask_local)
    return Executor("local", workers=args.workers or 0)
