"""``fabricstudio export DESIGN --format FMT -o FILE``: the interop formats of the export
command (``--list-formats`` names them).  export_cmd.py dispatches here."""

from __future__ import annotations

import argparse

from fabricstudio.cli.common import CliError, load_design_arg
from fabricstudio.cli.output import shown_path, write_err, write_out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The interop arguments of ``export``."""
    group = parser.add_argument_group("interop formats (containerlab, NetBox, Air, ...)")
    group.add_argument("--format", metavar="FMT",
                       help="export to FMT (see --list-formats) instead of a picture")
    group.add_argument("-o", "--output", metavar="FILE",
                       help="output file, folder or .zip for --format")
    group.add_argument("--list-formats", action="store_true",
                       help="list the export formats, one line each, and exit")
    group.add_argument("--subset", metavar="SPEC",
                       help="export part of the design: pod:N, su:N, rail:N or "
                            "network:compute|storage|management")
    group.add_argument("-O", "--option", metavar="KEY=VALUE", action="append", default=[],
                       help="format option (repeatable), e.g. -O switch-kind=arista_ceos; "
                            "--list-formats --format FMT lists a format's options")


def wanted(args: argparse.Namespace) -> bool:
    """True when the command line asks for an interop export."""
    return bool(args.list_formats or args.format or args.output or args.subset or args.option)


def run(args: argparse.Namespace) -> int:
    """List formats, or export the design and print what was written."""
    from fabricstudio.interop import InteropError, export_design, write_bundle

    if args.list_formats:
        return _list(args.format)
    if not args.format:
        raise CliError("give --format FMT with -o FILE (fabricstudio export --list-formats "
                       "names the formats)", 2)
    if not args.output:
        raise CliError(f"--format {args.format} needs -o FILE (a file, a folder or a .zip)", 2)
    if args.design is None:
        raise CliError("give the DESIGN file to export", 2)
    if args.png or args.svg or args.scenario:
        raise CliError("--format cannot be combined with --png/--svg/--scenario; run export "
                       "twice", 2)
    design = load_design_arg(args.design)
    try:
        bundle = export_design(design, args.format, args.option, args.subset)
        written = write_bundle(bundle, args.output, args.format, inputs=(args.design,),
                               force=args.force)
    except InteropError as exc:
        raise CliError(str(exc)) from None
    for note in bundle.notes:
        write_err(f"fabricstudio export: note: {note}")
    for path in written:
        write_out(f"wrote {shown_path(path)}")
    return 0


def _list(name: str | None) -> int:
    from fabricstudio.interop import InteropError, export_format, export_formats

    if name:
        try:
            fmt = export_format(name)
        except InteropError as exc:
            raise CliError(str(exc), 2) from None
        write_out(f"{fmt.name}: {fmt.summary}")
        write_out(f"  writes: {', '.join(fmt.suffixes)}"
              + (" (several files: a folder or a .zip)" if fmt.multi_file else ""))
        for option in fmt.options:
            key = option.key + ("KIND" if option.key.endswith(".") else "")
            default = f" (default {option.default})" if option.default else ""
            write_out(f"  -O {key}=VALUE  {option.help}{default}")
        return 0
    width = max(len(n) for n in export_formats())
    for fmt in export_formats().values():
        write_out(f"{fmt.name:<{width}}  {fmt.summary}")
    return 0
