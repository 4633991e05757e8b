"""``fabricstudio simulate DESIGN``: run a scenario (file and/or one workload from the command
line) headless, show a progress bar and a summary, optionally write the Result JSON and a
metrics CSV.  docs/simulation.md documents the scenario format and the JSON keys."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pydantic import ValidationError

from fabricstudio.cli.common import (
    CliError,
    add_cost_book_argument,
    add_failure_argument,
    load_cost_book_arg,
    load_design_arg,
    positive_float,
    positive_int,
)
from fabricstudio.cli.output import write_out
from fabricstudio.formats import OutputError, check_output, distinct_outputs, write_output
from fabricstudio.formats.output import inherited_fd
from fabricstudio.model import Design, Technology, format_validation_error
from fabricstudio.model.fabric import TRANSPORTS
from fabricstudio.model.units import format_bytes
from fabricstudio.model.units import format_seconds as _t
from fabricstudio.sim.engine import EngineError
from fabricstudio.sim.export import write_metrics_csv
from fabricstudio.sim.llm.models import GPUS, MODELS
from fabricstudio.sim.request import RunRequest, scenario_for
from fabricstudio.sim.result import Result
from fabricstudio.sim.run import MAX_CELL_HOPS, build_simulation
from fabricstudio.sim.scenario import (
    ENGINES,
    RECOMPUTE_MODES,
    ROUTINGS,
    WORKLOAD_TYPES,
    Scenario,
    ScenarioError,
    load_scenario,
    parse_size,
)

NAME = "simulate"
HELP = "simulate traffic on a design (scenario file or one workload) and summarise the result"


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _workload_name(text: str) -> str:
    name = text.replace("-", "_").lower()
    name = {"llm": "llm_training"}.get(name, name)
    if name not in WORKLOAD_TYPES:
        raise argparse.ArgumentTypeError(
            f"unknown workload {text!r} (choose from {', '.join(WORKLOAD_TYPES)})")
    return name


def _focus(text: str) -> dict[str, Any]:
    kind, _, rest = text.partition(":")
    if kind == "rail" and rest.isdigit():
        return {"rail": int(rest)}
    if kind == "devices" and rest:
        return {"devices": [d.strip() for d in rest.split(",") if d.strip()]}
    if kind == "group" and rest:
        return {"group": rest}
    if text and ":" not in text:
        return {"group": text}
    raise argparse.ArgumentTypeError(f"{text!r}: use GROUP, group:GROUP, rail:N or "
                                     "devices:A,B,...")


def _non_negative_float(text: str) -> float:
    if text.strip() in ("0", "0.0"):
        return 0.0
    return positive_float(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``simulate``."""
    parser.add_argument("design", metavar="DESIGN", help="design file")
    parser.add_argument("--scenario", metavar="FILE", help="scenario file (JSON)")
    group = parser.add_argument_group("one workload from the command line")
    group.add_argument("--workload", metavar="NAME", type=_workload_name,
                       help=f"one of {', '.join(w.replace('_', '-') for w in WORKLOAD_TYPES)}")
    group.add_argument("--size", metavar="BYTES", type=_size,
                       help="collective size, bytes per flow (incast, permutation), per client "
                            "(storage) or gradient size (training); e.g. 256MiB, 1GB")
    group.add_argument("--ranks", metavar="LIST", default="all",
                       help="comma-separated GPUs (server/gpuN) or 'all' (default)")
    group.add_argument("--receiver", metavar="ADDR",
                       help="incast receiver; stall: the receiver whose NIC stalls")
    group.add_argument("--duration", metavar="SECONDS", type=positive_float,
                       help="stall: how long the receiver's NIC stays stuck (default 1 ms)")
    group.add_argument("--senders", metavar="LIST",
                       help="incast senders (default: every other GPU server)")
    group.add_argument("--compute", metavar="SECONDS", type=positive_float,
                       help="training: compute time per iteration")
    group.add_argument("--overlap", metavar="FRACTION", type=float, default=0.0,
                       help="training: share of the compute the all-reduce may overlap (0..1)")
    group.add_argument("--iterations", metavar="N", type=positive_int, default=1,
                       help="training: iterations")
    llm = parser.add_argument_group("LLM training (--workload llm; docs/llm.md)")
    llm.add_argument("--model", metavar="NAME",
                     help=f"model preset: {', '.join(MODELS)} (default llama3-70b)")
    llm.add_argument("--gpu", choices=tuple(GPUS), help="GPU preset (default h100)")
    for flag, what in (("tp", "tensor"), ("pp", "pipeline"), ("dp", "data"),
                       ("ep", "expert"), ("cp", "context")):
        llm.add_argument(f"--{flag}", type=positive_int, metavar="N",
                         help=f"{what}-parallel size" + (" (default: the GPUs left)"
                                                          if flag == "dp" else ""))
    llm.add_argument("--zero", type=int, choices=(0, 1, 2, 3), help="ZeRO stage (default 1)")
    llm.add_argument("--seq-len", type=positive_int, metavar="TOKENS")
    llm.add_argument("--global-batch", type=positive_int, metavar="SEQUENCES")
    llm.add_argument("--micro-batch", type=positive_int, metavar="SEQUENCES")
    llm.add_argument("--efficiency", type=positive_float, metavar="FRACTION",
                     help="share of the BF16 peak while computing (default 0.6)")
    llm.add_argument("--recompute", choices=RECOMPUTE_MODES)
    run = parser.add_argument_group("run settings (override the scenario)")
    run.add_argument("--engine", choices=ENGINES,
                     help="cell: queues, PFC, ECN, drops; flow: max-min fair rates for whole "
                          "clusters; auto (default): cell when it fits the time budget")
    run.add_argument("--focus", metavar="REGION", type=_focus,
                     help="focused run: the cell engine on GROUP (a pod, scalable unit or rack "
                          "of the design), rail:N or devices:A,B,...; the rest at flow level")
    run.add_argument("--technology", choices=[t.value for t in Technology])
    run.add_argument("--dcqcn", action=argparse.BooleanOptionalAction, default=None,
                     help="DCQCN on RoCE (--no-dcqcn: PFC only)")
    run.add_argument("--routing", choices=ROUTINGS)
    run.add_argument("--transport", choices=TRANSPORTS,
                     help="lossy Ethernet transport (default: the design's, normally sack)")
    run.add_argument("--cell-size", metavar="BYTES", type=_size, help="engine cell size")
    run.add_argument("--seed", type=int)
    run.add_argument("--until", metavar="SECONDS", type=positive_float,
                     help="simulated horizon (default: until the traffic completes)")
    run.add_argument("--measure-from", metavar="SECONDS", type=_non_negative_float,
                     help="start of the statistics window")
    fail = parser.add_argument_group("failures (added to the scenario's; docs/failures.md)")
    add_failure_argument(fail, timed=True)
    fail.add_argument("--fail-at", metavar="SECONDS", type=_non_negative_float, default=0.0,
                      help="when the --fail elements go down (default 0)")
    fail.add_argument("--repair-at", metavar="SECONDS", type=positive_float,
                      help="when they come back (default: never)")
    out = parser.add_argument_group("output")
    out.add_argument("--json", metavar="FILE", help="write the Result JSON ('-' = stdout only)")
    out.add_argument("--metrics", metavar="FILE.csv", help="write the metric frames as CSV")
    out.add_argument("--force", action="store_true",
                     help="allow an output file to replace the design or scenario file")
    out.add_argument("--no-timing", action="store_true",
                     help="null the wall-clock fields so identical runs give identical JSON")
    add_cost_book_argument(out)
    out.add_argument("--no-limit", action="store_true",
                     help=f"run even when the estimated work exceeds "
                          f"{MAX_CELL_HOPS / 1e6:.0f} million cell-hops")


def build_request(args: argparse.Namespace) -> RunRequest:
    """The RunRequest the command line asks for: the scenario file (if any) as the base, the
    command-line workload on top, and the run settings that were given."""
    if not args.scenario and not args.workload:
        raise CliError("give a scenario (--scenario FILE) or a workload (--workload NAME "
                       "--size BYTES)", 2)
    fields: dict[str, Any] = {"workload": args.workload}
    if args.scenario:
        try:
            fields["scenario"] = load_scenario(args.scenario)
        except ScenarioError as exc:
            raise CliError(str(exc)) from None
    else:
        fields["name"] = f"{args.workload} from the command line"
    if args.workload:
        fields.update(_workload_fields(args))
    settings = {"engine": args.engine, "focus": args.focus,
                "technology": args.technology, "dcqcn": args.dcqcn, "routing": args.routing,
                "transport": args.transport,
                "cell_bytes": args.cell_size, "seed": args.seed, "until_s": args.until,
                "measure_from_s": args.measure_from}
    fields.update({k: v for k, v in settings.items() if v is not None})
    try:
        return RunRequest.model_validate(fields)
    except ValidationError as exc:
        raise CliError(f"bad scenario: {format_validation_error(exc, limit=1)}") from None


def build_scenario(args: argparse.Namespace, design: Design) -> Scenario:
    """The scenario the command line asks for on ``design``."""
    try:
        scenario = scenario_for(design, build_request(args))
    except ScenarioError as exc:
        raise CliError(f"bad scenario: {exc}") from None
    if not getattr(args, "fail", None):
        return scenario
    timing = {"at_s": args.fail_at, "repair_s": args.repair_at}
    try:
        added = [f.model_copy(update=timing) for f in args.fail]
        return scenario.with_changes(failures=[*scenario.failures, *(
            f.model_validate(f.model_dump()) for f in added)])
    except ValidationError as exc:
        raise CliError(f"bad failure: {format_validation_error(exc, limit=1)}") from None


def _ranks(text: str | None) -> tuple[str, ...]:
    if text is None or text.strip() == "all":
        return ()
    return tuple(item.strip() for item in text.split(",") if item.strip())


_LLM_OPTIONS = {"model": "model", "gpu": "gpu", "tp": "tp", "pp": "pp", "dp": "dp", "ep": "ep",
                "cp": "cp", "zero": "zero", "seq_len": "seq_len",
                "global_batch": "global_batch", "micro_batch": "micro_batch",
                "efficiency": "compute_efficiency", "recompute": "recompute",
                "iterations": "iterations"}


def _workload_fields(args: argparse.Namespace) -> dict[str, Any]:
    name = args.workload
    if name == "llm_training":
        llm: dict[str, Any] = {"type": "llm_training"}
        for option, key in _LLM_OPTIONS.items():
            value = getattr(args, option)
            if value is not None and not (option == "iterations" and value == 1):
                llm[key] = value
        return {"llm": llm, "ranks": _ranks(args.ranks)}
    if args.size is None:
        raise CliError(f"--workload {name.replace('_', '-')} needs --size BYTES", 2)
    if name == "training" and args.compute is None:
        raise CliError("--workload training needs --compute SECONDS", 2)
    if name in ("incast", "stall") and not args.receiver:
        raise CliError(f"--workload {name} needs --receiver ADDR", 2)
    fields: dict[str, Any] = {"size_bytes": args.size, "ranks": _ranks(args.ranks),
                              "overlap": args.overlap, "iterations": args.iterations,
                              "receiver": args.receiver, "senders": _ranks(args.senders)}
    if args.compute is not None:
        fields["compute_s"] = args.compute
    if args.duration is not None:
        fields["duration_s"] = args.duration
    return fields


class _ProgressBar:
    """A one-line progress bar on a terminal (stderr)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.shown = -1

    def __call__(self, fraction: float) -> None:
        percent = int(fraction * 100)
        if percent == self.shown:
            return
        self.shown = percent
        filled = percent * 30 // 100
        self.stream.write(f"\rsimulating [{'#' * filled}{'.' * (30 - filled)}] {percent:3d}%")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r" + " " * 48 + "\r")
        self.stream.flush()


def run(args: argparse.Namespace) -> int:
    """Build, run, report."""
    book = load_cost_book_arg(args.cost_book)
    design = load_design_arg(args.design)
    scenario = build_scenario(args, design)
    _check_outputs(args)
    try:
        sim = build_simulation(design, scenario, None if args.no_limit else MAX_CELL_HOPS)
    except ScenarioError as exc:
        raise CliError(str(exc)) from None
    bar = _ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        result = sim.run(bar)
    except EngineError as exc:  # a flow the checks let through but the engine cannot route
        raise CliError(f"the run stopped: {exc}") from None
    except ScenarioError as exc:  # known only once the run got there (a focused region)
        raise CliError(str(exc)) from None
    finally:
        if bar is not None:
            bar.close()
    text = result.to_json(timing=not args.no_timing)
    if args.json == "-":
        sys.stdout.write(text)
    else:
        write_out(summary_text(result, book=book))
        if args.json:
            _write(lambda: write_output(args.json, text, inputs=_inputs(args), force=args.force))
    if args.metrics:
        _write(lambda: write_metrics_csv(sim.stream, args.metrics, inputs=_inputs(args),
                                         force=args.force))
    return 0


def _inputs(args: argparse.Namespace) -> list[str]:
    return [p for p in (args.design, args.scenario) if p]


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse bad output paths before the run (not after minutes of simulation)."""
    outputs = [p for p in (args.json, args.metrics) if p and p != "-"]
    if args.json == "-" and args.metrics and inherited_fd(args.metrics) == 1:
        raise CliError("--json - and --metrics - both write to standard output; send one "
                       "of them to a file", 2)
    try:
        distinct_outputs([("--json", args.json or ""), ("--metrics", args.metrics or "")])
    except OutputError as exc:
        raise CliError(str(exc), 2) from None
    for path in outputs:
        _write(lambda p=path: check_output(p, inputs=_inputs(args), force=args.force))


def _write(action) -> None:
    try:
        action()
    except OutputError as exc:
        raise CliError(str(exc)) from None


# ------------------------------------------------------------------ summary
def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    return [line.rstrip(), "  ".join("-" * w for w in widths),
            *("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)]


def summary_text(result: Result, top: int = 8, book: Any = None) -> str:
    """A readable multi-line summary of a Result (with GPU-idle money when a cost book is
    given and the run has a training workload)."""
    run, tot, eng = result.run, result.totals, result.engine
    tech = run.technology.fabric_label(run.dcqcn)
    if run.technology is not Technology.ROCE and run.transport is not None:
        tech += f" ({run.transport.upper() if run.transport == 'dctcp' else run.transport})"
    grain = (f"{format_bytes(run.cell_bytes)} cells" if run.cell_bytes is not None
             else "flow level (max-min fair rates)")
    lines = [f"{run.design}: {tech}, routing {run.routing}, {grain}, seed {run.seed}",
             f"engine: {eng.reason or eng.kind}"]
    if eng.not_modelled:
        lines.append("not modelled at flow level: " + ", ".join(eng.not_modelled))
    lines.append(f"simulated {_t(result.end_s)}; completion "
                 f"{_t(result.completion_time_s) if result.finished else 'not reached'}"
                 f"{'' if result.finished else ' (unfinished)'}")
    deadlock = tot.deadlock
    if deadlock.detected:
        lines.append(f"DEADLOCK at {_t(deadlock.at_s)} (frozen since {_t(deadlock.since_s)}): "
                     f"cycle {' > '.join(deadlock.path or [])}, "
                     f"links {', '.join(deadlock.cycle or [])}")
    if result.collective:
        c = result.collective
        bw = (f"algbw {c.algbw_gbps:.1f} Gb/s, busbw {c.busbw_gbps:.1f} Gb/s"
              if c.algbw_gbps is not None and c.busbw_gbps is not None else "did not finish")
        lines.append(f"collective: {c.name} of {format_bytes(c.size_bytes)} over "
                     f"{c.ranks} ranks ({c.algorithm}): {_t(c.time_s)}, {bw}")
        if c.algorithm_reason.startswith("auto"):
            lines.append(f"algorithm {c.algorithm_reason}")
    if result.training:
        t = result.training
        dispatch = (f", MoE token dispatch {_t(t.dispatch_time_s)}"
                    if t.dispatch_time_s is not None else "")
        lines.append(f"training: step {_t(t.step_time_s)} (compute {_t(t.compute_s)}, "
                     f"exposed communication {_t(t.exposed_comm_s)}{dispatch}), "
                     f"GPU utilisation {t.gpu_utilisation * 100:.1f}%")
        if book is not None:
            lines += _idle_money_lines(result, book)
    lines += failure_lines(result)
    if result.llm_training is not None:
        lines += llm_lines(result.llm_training)
    if result.focus is not None:
        lines += focus_lines(result.focus)
    flow = result.engine.kind == "flow"
    moved = (f"traffic: offered {format_bytes(tot.offered_bytes)}, delivered "
             f"{format_bytes(tot.delivered_bytes)}")
    if flow:  # no false zeros: the "not modelled" line above lists what is missing
        lines.append(moved)
    else:
        lines.append(f"{moved}, dropped {format_bytes(tot.dropped_bytes)}, "
                     f"retransmitted {format_bytes(tot.retransmitted_bytes)}")
        lines.append(f"events: {tot.pfc_pauses} PFC pauses ({_t(tot.paused_time_s)} paused), "
                     f"{tot.ecn_marks} ECN marks, {tot.cnps} CNPs, {tot.drops} drops, "
                     f"credit stalls {_t(tot.credit_stall_time_s)}")
    hot = result.hotspots
    if hot is not None and hot.count:
        lines += ["", f"hotspots: {hot.count} link(s) offered more than their capacity "
                      "(a cell-level run would queue, pause or drop there):"]
        lines += _table(["link", "from > to", "overloaded", "peak offered"],
                        [[h.id, f"{h.src} > {h.dst}", _t(h.overloaded_s),
                          f"{h.peak_offered * 100:.0f}%"] for h in hot.links[:top]])
    if run.technology is Technology.ETHERNET or tot.timeouts:
        lines.append(f"loss recovery: {tot.fast_retransmits} fast recoveries, "
                     f"{tot.tail_loss_probes} tail loss probes, {tot.timeouts} timeouts")
    busiest = sorted(result.links, key=lambda ln: (-ln.utilisation, ln.id))[:top]
    if busiest:
        lines += ["", "busiest links (statistics window):"]
        if flow:
            lines += _table(["link", "from > to", "util"],
                            [[ln.id, f"{ln.src} > {ln.dst}", f"{ln.utilisation * 100:.1f}%"]
                             for ln in busiest])
        else:
            lines += _table(["link", "from > to", "util", "max queue", "pauses", "ECN",
                             "drops"],
                            [[ln.id, f"{ln.src} > {ln.dst}", f"{ln.utilisation * 100:.1f}%",
                              format_bytes(ln.max_queue_bytes), str(ln.pfc_pauses_sent),
                              str(ln.ecn_marks), str(ln.drops)] for ln in busiest])
    flows = result.flows[:top]
    if flows:
        more = len(result.flows) + result.flows_omitted - len(flows)
        lines += ["", f"flows{f' (first {top}; {more} more in --json)' if more > 0 else ''}:"]
        lines += _table(["id", "src > dst", "bytes", "delivered", "finish", "Gb/s"],
                        [[str(f.id), f"{f.src} > {f.dst}", format_bytes(f.bytes),
                          format_bytes(f.delivered_bytes), _t(f.finish_s),
                          "-" if f.throughput_gbps is None else f"{f.throughput_gbps:.1f}"]
                         for f in flows])
    wall = eng.wall_time_s
    work = (f"{eng.cell_hops or 0:,} cell-hops" if eng.kind == "cell"
            else f"{eng.rate_updates or 0:,} rate updates")
    lines += ["", f"engine: {eng.events:,} events, {work}"
                  + (f", {wall:.2f} s wall, {eng.events_per_s or 0:,.0f} events/s"
                     if wall else "")]
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)


def failure_lines(result: Result) -> list[str]:
    """What the failures did and cost (nothing when the scenario had none)."""
    found = result.failures
    if found is None:
        return []
    lines = [f"failures: {'; '.join(found.failures)}; routes converge "
             f"{_t(found.convergence_s) if found.convergence_s else 'at once'} after a "
             f"failure; {found.packets_lost:,} packets lost on dead links, "
             f"{found.flows_rerouted:,} flow paths moved in {found.reroutes} reroute(s)"]
    cost, base = found.cost, found.without_failures
    if cost is None or base is None:
        return lines
    mine = found.with_failures
    if mine.step_time_s is not None or base.step_time_s is not None:
        lines.append(f"  step time {_t(mine.step_time_s)} with vs {_t(base.step_time_s)} "
                     f"without ({mine.iterations} vs {base.iterations} iterations)")
    if mine.gpu_utilisation is not None and base.gpu_utilisation is not None:
        lines.append(f"  GPU utilisation {mine.gpu_utilisation * 100:.1f}% with vs "
                     f"{base.gpu_utilisation * 100:.1f}% without "
                     f"({cost.gpu_utilisation * 100:+.1f} points)")
    slow = f" ({cost.slowdown:.2f}x)" if cost.slowdown is not None else ""
    lines.append(f"  completion {_t(mine.completion_time_s) if mine.finished else 'not reached'}"
                 f" with vs {_t(base.completion_time_s)} without{slow}")
    return lines


def focus_lines(f: Any) -> list[str]:
    """The focused region's cell-level figures."""
    t = f.totals
    fg = f.foreground
    out = ["", f"focus: {f.region} at cell level ({f.servers} servers, {f.switches} switches, "
               f"{f.stubs} stubs for the fabric outside) from {_t(f.from_s)} to "
               f"{_t(f.until_s)}: {f.background_flows:,} background pieces "
               f"({format_bytes(f.background_bytes)}; {f.background_unpaced:,} bottlenecked "
               "inside the region run unpaced, the rest at their flow-level rates)",
           f"  region: {t.pfc_pauses} PFC pauses ({_t(t.paused_time_s)} paused), "
           f"{t.ecn_marks} ECN marks, {t.cnps} CNPs, {t.drops} drops, credit stalls "
           f"{_t(t.credit_stall_time_s)}"]
    if fg.flows:
        out.append(f"  the region's own {fg.flows} flow(s): {fg.finished} finished; cell / "
                   f"flow completion {fg.mean_slowdown or 0:.3f} mean, "
                   f"{fg.max_slowdown or 0:.3f} worst")
    busiest = f.links[:5]
    if busiest:
        out.append("  busiest: " + ", ".join(
            f"{ln.src} > {ln.dst} {ln.utilisation * 100:.0f}% (queue "
            f"{format_bytes(ln.max_queue_bytes)}, {ln.pfc_pauses_sent} pauses)" for ln in busiest))
    return out


def llm_lines(t: Any) -> list[str]:
    """The LLM training part of the summary: the iteration on this fabric, on an ideal one,
    and the network tax."""
    par = t.parallelism
    out = ["", f"LLM training: {t.model} on {t.gpus:,} x {t.gpu} (TP {par['tp']}, PP "
               f"{par['pp']}, DP {par['dp']}, EP {par['ep']}, CP {par['cp']}, ZeRO "
               f"{par['zero']}; {par['micro_batches']} micro-batches of {par['micro_batch']} "
               f"x {par['seq_len']:,} tokens)"]
    if t.iteration_time_s is None:
        return [*out, "  the iteration did not finish"]
    comm = t.exposed_comm_s or {}
    out.append(f"  iteration {_t(t.iteration_time_s)}: compute {_t(t.compute_s)}, bubble "
               f"{_t(t.bubble_s)}, exposed communication "
               + ", ".join(f"{k.upper()} {_t(v)}" for k, v in comm.items() if v))
    out.append(f"  GPU utilisation {t.gpu_utilisation * 100:.1f}%, MFU {t.mfu * 100:.1f}%, "
               f"{t.tokens_per_s:,.0f} tokens/s, {t.model_tflops_per_gpu:.0f} TFLOP/s per GPU")
    ideal = t.ideal
    out.append(f"  ideal network: iteration {_t(ideal.iteration_time_s)}, MFU "
               f"{(ideal.mfu or 0) * 100:.1f}%")
    if t.network_tax_s is not None:
        out.append(f"  network tax: {_t(t.network_tax_s)} per iteration "
                   f"({(t.network_tax_fraction or 0) * 100:.1f}% of it; "
                   f"{t.network_tax_gpu_hours:.3g} GPU-hours)")
    out += [f"  note: {w}" for w in t.warnings]
    return out


def _idle_money_lines(result: Result, book: Any) -> list[str]:
    from fabricstudio.sim.money import result_idle_money
    from fabricstudio.topology.cost import format_money, format_price

    money = result_idle_money(result, book)
    if money is None:
        return []
    cur = money.currency
    return [f"GPU idle money: {money.idle_fraction * 100:.1f}% of {money.gpus:,} GPUs' time "
            f"waiting = {format_money(money.per_day, cur)} per day, "
            f"{format_money(money.per_month, cur)} per month at "
            f"{format_price(money.gpu_hour_price, cur)} per GPU-hour "
            f"({money.confidence}; --cost-book FILE to change)"]


__all__ = ["NAME", "HELP", "add_arguments", "focus_lines", "llm_lines", "run",
           "summary_text"]
