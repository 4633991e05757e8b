"""``fabricstudio generate leaf-spine|fat-tree|rail-optimized [options] -o FILE``."""

from __future__ import annotations

import argparse
import json
import sys

from fabricstudio.cli.common import CliError
from fabricstudio.cli.output import shown_path, write_out
from fabricstudio.formats import DesignFileError, check_output, dump_design, write_design_text
from fabricstudio.formats.output import OutputError
from fabricstudio.model import Technology
from fabricstudio.topology.builders import TOPOLOGIES, BuildError, build_fabric, parse_spec

NAME = "generate"
HELP = "build a leaf-spine, fat-tree or rail-optimised fabric and write it as a design file"

#: Options that only one family understands: option dest -> topology.
_FAMILY_ONLY = {
    "servers_per_leaf": "leaf-spine",
    "spines": "leaf-spine",
    "leaves_per_pod": "fat-tree",
    "servers_per_su": "rail-optimized",
    "tiers": "rail-optimized",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``generate``."""
    parser.add_argument("topology", metavar="TOPOLOGY", choices=TOPOLOGIES,
                        help="leaf-spine | fat-tree | rail-optimized")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="design file to write ('-' = standard output)")
    size = parser.add_argument_group("size")
    size.add_argument("--gpus", type=int, help="total GPUs (a whole number of servers)")
    size.add_argument("--servers", type=int, help="GPU servers (instead of --gpus)")
    size.add_argument("--gpus-per-server", type=int, default=8, metavar="N")
    size.add_argument("--nics-per-server", type=int, default=8, metavar="N",
                      help="compute NICs per server (rails, for rail-optimized)")
    size.add_argument("--nic-speed", type=float, default=400.0, metavar="GBPS")
    sw = parser.add_argument_group("switches")
    sw.add_argument("--radix", "-k", type=int, default=64, dest="switch_radix", metavar="PORTS",
                    help="ports per switch (k of a k-ary fat tree)")
    sw.add_argument("--port-speed", type=float, default=400.0, metavar="GBPS")
    sw.add_argument("--oversubscription", type=float, default=1.0, metavar="O",
                    help="leaf down:up ratio O:1 (1 = non-blocking)")
    sw.add_argument("--technology", choices=[t.value for t in Technology], default="roce")
    fam = parser.add_argument_group("family options")
    fam.add_argument("--servers-per-leaf", type=int, metavar="N", help="leaf-spine: rack size")
    fam.add_argument("--spines", type=int, metavar="N", help="leaf-spine: spine count")
    fam.add_argument("--leaves-per-pod", type=int, metavar="N", help="fat-tree: pod size")
    fam.add_argument("--servers-per-su", type=int, metavar="N",
                     help="rail-optimized: servers per scalable unit (default 32)")
    fam.add_argument("--tiers", choices=["auto", "2", "3"], help="rail-optimized: tiers")
    net = parser.add_argument_group("storage and management networks")
    net.add_argument("--storage-servers", type=int, default=0, metavar="N",
                     help="add a storage network with N storage servers")
    net.add_argument("--storage-nic-speed", type=float, default=200.0, metavar="GBPS")
    net.add_argument("--management", action="store_true",
                     help="add a management network (one switch per rack)")
    net.add_argument("--servers-per-rack", type=int, default=4, metavar="N")
    parser.add_argument("--name", default="", help="design name (default: derived)")
    parser.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    parser.add_argument("--json", action="store_true",
                        help="print the build summary as JSON (keys in docs/generate.md)")


def spec_from_args(args: argparse.Namespace) -> dict:
    """The spec mapping the arguments describe; CliError for options of another family."""
    data = {
        "topology": args.topology, "name": args.name, "technology": args.technology,
        "gpus": args.gpus, "servers": args.servers, "gpus_per_server": args.gpus_per_server,
        "nics_per_server": args.nics_per_server, "nic_speed_gbps": args.nic_speed,
        "switch_radix": args.switch_radix, "port_speed_gbps": args.port_speed,
        "oversubscription": args.oversubscription, "storage_servers": args.storage_servers,
        "storage_nic_speed_gbps": args.storage_nic_speed, "management": args.management,
        "servers_per_rack": args.servers_per_rack,
    }
    for dest, family in _FAMILY_ONLY.items():
        value = getattr(args, dest)
        if value is None:
            continue
        if family != args.topology:
            option = "--" + dest.replace("_", "-")
            raise CliError(f"{option} applies to {family} only, not {args.topology}", 2)
        data[dest] = int(value) if dest == "tiers" and value != "auto" else value
    return data


def run(args: argparse.Namespace) -> int:
    """Build, write, and print a one-line summary."""
    if args.output != "-":
        try:
            check_output(args.output)
        except OutputError as exc:
            raise CliError(str(exc)) from None
    try:
        build = build_fabric(parse_spec(spec_from_args(args)))
    except BuildError as exc:
        raise CliError(f"{args.topology}: {exc}") from None
    text = dump_design(build.to_design())
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    try:
        write_design_text(args.output, text)
    except DesignFileError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        write_out(json.dumps(build.summary))
    elif not args.quiet:
        s = build.summary
        sw = s["switches"]
        ratio = s["oversubscription"]["leaf"]
        write_out(f"wrote {shown_path(args.output)}: {s['gpus']:,} GPUs on "
                  f"{s['servers']:,} servers, "
                  f"{sw['leaf']} leaves, {sw['spine']} spines, {sw['core']} cores, "
                  f"{s['links']:,} links, {s['tiers']} tiers, leaf "
                  f"{f'{ratio:g}:1' if ratio else 'only'}, bisection "
                  f"{s['bisection_gbps'] / 1000:,.1f} Tb/s")
    return 0
