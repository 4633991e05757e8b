"""Draw a :class:`~fabricstudio.ui.report.proposal.Proposal` as a PDF with QPdfWriter.

Pages: cover with the key figures; the design as a vector picture; key figures; bill of
materials; cost and power with confidence labels; the fabric comparison (chart, table and
GPU-idle money) when there is one; analysis findings; assumptions with their sources.  The
file is written atomically.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPdfWriter
from PySide6.QtSvg import QSvgRenderer

from fabricstudio.formats.output import write_output
from fabricstudio.topology.cost import format_money
from fabricstudio.ui.report.layout import (
    ACCENT,
    HEAD,
    INK,
    MUTED,
    WARN,
    Column,
    PageWriter,
    font,
)
from fabricstudio.ui.report.proposal import Proposal

CATEGORY_LABELS = {"gpu_servers": "GPU servers", "storage_servers": "Storage servers",
                   "switches": "Switches", "nics": "Adapters (NICs)",
                   "transceivers": "Transceivers", "cables": "Cables"}
CONFIDENCE_TEXT = {
    "sourced": "sourced: a dated public price or specification",
    "weak": "weak: an indirect, derived or unofficial source",
    "placeholder": "placeholder: no public source found; an estimate to be replaced by a quote",
}
SEVERITY_COLOURS = {"error": QColor("#B3261E"), "warning": WARN, "info": MUTED}
DESIGN_PICTURE_MAX = 600.0
#: The cover shows the design too when it is small enough to draw twice cheaply.
COVER_PICTURE_MAX_LINKS = 2000


class ReportError(ValueError):
    """The proposal could not be written; one line for the user."""


def load_logo(path: Path) -> QImage | QSvgRenderer:
    """The logo as an image or an SVG renderer; ReportError when it cannot be read."""
    if not path.is_file():
        raise ReportError(f"{path}: no such logo file")
    if path.suffix.lower() == ".svg":
        renderer = QSvgRenderer(str(path))
        if not renderer.isValid():
            raise ReportError(f"{path}: not a readable SVG logo")
        return renderer
    image = QImage(str(path))
    if image.isNull():
        raise ReportError(f"{path}: not a readable image (PNG, JPEG or SVG)")
    return image


def proposal_pdf_bytes(proposal: Proposal) -> bytes:
    """The proposal as PDF bytes."""
    logo = load_logo(proposal.logo) if proposal.logo is not None else None
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setTitle(f"Proposal: {proposal.title}")
    writer.setCreator(f"FabricStudio {proposal.version}")
    who = f" · {proposal.customer}" if proposal.customer else ""
    pages = PageWriter(writer, f"{proposal.title}{who}",
                       f"FabricStudio {proposal.version} · {proposal.date}")
    try:
        _cover(pages, proposal, logo)
        _design(pages, proposal)
        _figures(pages, proposal)
        _bom(pages, proposal)
        _cost(pages, proposal)
        if proposal.comparison is not None:
            _comparison(pages, proposal)
        _findings(pages, proposal)
        _assumptions(pages, proposal)
    finally:
        pages.finish()
        buffer.close()
    return bytes(data.data())


def write_proposal(proposal: Proposal, path: str | Path, *,
                   inputs: tuple[str, ...] = (), force: bool = False) -> int:
    """Write the PDF through THE output writer; returns its size in bytes.  ReportError /
    OutputError (one line) on failure."""
    data = proposal_pdf_bytes(proposal)
    write_output(path, data, inputs=inputs, force=force)
    return len(data)


# ------------------------------------------------------------------------------ helpers
def _money(proposal: Proposal, value: float | None) -> str:
    return format_money(value, proposal.book.currency)


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:g}:1"


def _tbps(gbps: float) -> str:
    return f"{gbps / 1000:,.1f} Tb/s" if gbps >= 1000 else f"{gbps:,.0f} Gb/s"


def _headline_figures(proposal: Proposal) -> list[tuple[str, str]]:
    report, cost = proposal.report, proposal.report.cost
    counts = report.counts
    switches = sum(counts.switches.values())
    leaf = next((t for t in report.oversubscription.tiers if t.tier == "leaf"), None)
    figures = [(f"{counts.gpus:,}", f"GPUs on {counts.gpu_servers:,} servers"),
               (f"{proposal.tiers()}-tier", f"{proposal.technology_label} fabric, "
                                            f"{switches:,} switch{'es' if switches != 1 else ''}"),
               (_tbps(report.bisection.gbps), "bisection bandwidth (one direction)"),
               (_ratio(leaf.ratio) if leaf and leaf.ratio is not None else "none",
                "leaf oversubscription (down:up)")]
    if cost is not None:
        if not proposal.hide_prices:
            per_gpu = cost.network_total / counts.gpus if counts.gpus else None
            figures += [(_money(proposal, cost.network_total),
                         f"network capex ({cost.network_confidence})"),
                        (_money(proposal, per_gpu), "network capex per GPU"),
                        (_money(proposal, cost.total), f"cluster capex ({cost.confidence})")]
        figures += [(f"{cost.power_w / 1000:,.0f} kW",
                     f"power, network {cost.network_power_w / 1000:,.1f} kW"),
                    (f"{cost.rack_units:,.0f} U", "rack units")]
    return figures


# ------------------------------------------------------------------------------- pages
def _cover(pages: PageWriter, proposal: Proposal, logo: QImage | QSvgRenderer | None) -> None:
    p = pages.painter
    if logo is not None:
        box = QRectF(pages.left, pages.y, 170, 64)
        if isinstance(logo, QSvgRenderer):
            size = logo.defaultSize()
            scale = min(box.width() / max(size.width(), 1), box.height() / max(size.height(), 1))
            logo.render(p, QRectF(box.x(), box.y(), size.width() * scale,
                                  size.height() * scale))
        else:
            scaled = logo.scaled(int(box.width() * 4), int(box.height() * 4),
                                 Qt.AspectRatioMode.KeepAspectRatio,
                                 Qt.TransformationMode.SmoothTransformation)
            p.drawImage(QRectF(box.x(), box.y(), scaled.width() / 4, scaled.height() / 4),
                        scaled)
        pages.space(80)
    else:
        pages.space(30)
    pages.paragraph("PROPOSAL · AI DATA-CENTRE NETWORK FABRIC", 9, ACCENT, bold=True, after=10)
    pages.paragraph(proposal.title, 24, HEAD, bold=True, after=8)
    lines = [f"{proposal.technology_label} fabric for {proposal.report.counts.gpus:,} GPUs"]
    if proposal.customer:
        lines.append(f"Prepared for {proposal.customer}")
    lines.append(proposal.date)
    for text in lines:
        pages.paragraph(text, 12, INK, after=3)
    pages.space(18)
    pages.tiles(_headline_figures(proposal))
    pages.space(6)
    pages.paragraph(_summary(proposal), 10, INK, after=10)
    headline = _comparison_headline(proposal)
    if headline:
        pages.paragraph(headline, 10.5, HEAD, bold=True, after=10)
    if proposal.report.cost is not None and proposal.report.cost.confidence != "sourced":
        pages.paragraph("Figures marked weak or placeholder are estimates from public sources "
                        "(see Assumptions and sources); they are not a quotation.", 8.5,
                        MUTED)
    room = pages.bottom - pages.y - 16
    if room > 180 and proposal.design.devices and len(proposal.design.links) <= \
            COVER_PICTURE_MAX_LINKS:
        _draw_design(pages, proposal, room)


def _draw_design(pages: PageWriter, proposal: Proposal, height: float) -> None:
    """The design as a vector picture ``height`` points tall at the cursor."""
    from fabricstudio.topology.layout import design_layout, needs_layout
    from fabricstudio.ui.canvas.scene import FabricScene
    from fabricstudio.ui.export import ExportOptions, paint_into
    from fabricstudio.ui.theme import LIGHT

    design = proposal.design
    if needs_layout(design):
        design = design.copy()
        design.move_devices(design_layout(design))
    scene = FabricScene(design)
    scene.set_theme(LIGHT)
    try:
        pages.picture(lambda painter, rect: paint_into(
            scene, painter, rect, ExportOptions(scale=1.0, background="white")), height)
    finally:
        scene.detach()
        scene.deleteLater()


def _summary(proposal: Proposal) -> str:
    report = proposal.report
    counts = report.counts
    sw = ", ".join(f"{n:,} {k.replace('_', ' ')}" for k, n in counts.switches.items() if n)
    hops = report.paths.hops
    hop_text = ""
    if hops is not None:
        span = f"{hops.min:g}" if hops.min == hops.max else f"{hops.min:g} to {hops.max:g}"
        hop_text = (f"GPUs on different servers are {span} hops apart (mean {hops.mean:.2f})")
    ecmp = report.paths.ecmp_width
    ecmp_text = (f", spread over up to {ecmp.max:g} equal-cost uplinks"
                 if ecmp is not None and ecmp.max > 1 else "")
    lossless = "lossless" if report.lossless else "lossy"
    return (f"{counts.gpus:,} GPUs on {counts.gpu_servers:,} servers, a {proposal.tiers()}-tier "
            f"{lossless} {proposal.technology_label} compute fabric ({sw}; {counts.links:,} "
            f"links). Bisection bandwidth {_tbps(report.bisection.gbps)}. {hop_text}"
            f"{ecmp_text}.")


def _comparison_headline(proposal: Proposal) -> str:
    comparison = proposal.comparison
    if comparison is None or not proposal.money:
        return ""
    known = [(label, pair) for label, pair in proposal.money.items() if pair is not None]
    if len(known) < 2:
        return ""
    worst_label, worst = max(known, key=lambda item: item[1][1].per_month)
    best_label = min(known, key=lambda item: item[1][1].per_month)[0]
    if worst[1].per_month <= 0:
        return ""
    return (f"On {comparison.workload}, {worst_label} keeps GPUs waiting "
            f"{worst[0].idle_fraction:.0%} of the time: "
            f"{_money(proposal, worst[1].per_month)} a month of GPU time more than "
            f"{best_label}.")


def _design(pages: PageWriter, proposal: Proposal) -> None:
    pages.new_page()
    pages.heading("The design")
    if not proposal.design.devices:
        pages.paragraph("The design is empty.", 10, MUTED)
        return
    _draw_design(pages, proposal, min(DESIGN_PICTURE_MAX, pages.bottom - pages.y - 40))
    pages.paragraph("Vector drawing: zoom in to read device names. Links are coloured by line "
                    "rate; bundles of parallel links are drawn once with their count.", 8, MUTED)


def _figures(pages: PageWriter, proposal: Proposal) -> None:
    report = proposal.report
    pages.new_page()
    pages.heading("Key figures")
    rows = [["GPUs", f"{report.counts.gpus:,} on {report.counts.gpu_servers:,} servers "
                     f"({report.counts.hosts:,} fabric NICs connected)"],
            ["Technology", f"{proposal.technology_label} "
                           f"({'lossless' if report.lossless else 'lossy'})"],
            ["Tiers", f"{proposal.tiers()} (" + ", ".join(
                f"{n:,} {k.replace('_', ' ')}" for k, n in report.counts.switches.items() if n)
             + ")"]]
    for tier in report.oversubscription.tiers:
        rows.append([f"Oversubscription, {tier.tier}",
                     f"{_ratio(tier.ratio)} (worst switch {_ratio(tier.worst_ratio)})"])
    b = report.bisection
    rows.append(["Bisection bandwidth", f"{_tbps(b.gbps)} one direction "
                                        f"({b.method}{'' if b.exact else ', estimate'})"])
    p = report.paths
    if p.hops is not None:
        rows.append(["Hops NIC to NIC", f"min {p.hops.min:g}, mean {p.hops.mean:.2f}, "
                                        f"max {p.hops.max:g}"])
    if p.ecmp_width is not None:
        rows.append(["ECMP width", f"mean {p.ecmp_width.mean:.1f}, max {p.ecmp_width.max:g} "
                                   "equal-cost next hops"])
    if p.ecmp_paths is not None:
        rows.append(["ECMP paths", f"mean {p.ecmp_paths.mean:.1f}, max {p.ecmp_paths.max:g}"])
    d = report.deadlock
    rows.append(["PFC / credit deadlock", "risk: dependency cycle" if d.risk else
                 "no cycle on shortest routes"])
    rows.append(["Links", f"{report.counts.links:,}; "
                 + ", ".join(f"{n:,} {k}" for k, n in report.bom.cables_by_class.items() if n)])
    pages.table([Column("Figure", 1.0), Column("Value", 2.6)], rows, size=9)


def _bom(pages: PageWriter, proposal: Proposal) -> None:
    pages.heading("Bill of materials")
    prices = not proposal.hide_prices
    columns = [Column("Qty", 0.45, right=True), Column("Part", 2.6), Column("Class", 1.35)]
    if prices:
        columns += [Column("Unit price", 0.8, right=True), Column("Total", 0.8, right=True)]
    rows = []
    colours: list[QColor | None] = []
    for line in proposal.lines:
        row = [f"{line.count:,}", line.label, line.part]
        if prices:
            row += ["-" if line.unit_price is None else _money(proposal, line.unit_price),
                    _money(proposal, line.total)]
        rows.append(row)
        colours.append(WARN if line.confidence == "placeholder" and prices else None)
    pages.table(columns, rows, colours=colours)
    pages.heading("Links and optics by segment", 2)
    rows = []
    for group in proposal.report.bom.cables:
        modules = "; ".join(f"{n:,} x {m}" for m, n in group.modules.items()) or "-"
        rows.append([group.plane, group.segment, f"{group.count:,}", group.media,
                     f"{group.speed_gbps:g}G", group.breakout or "-", f"{group.assemblies:,}",
                     modules])
    pages.table([Column("Network", 0.8), Column("Segment", 0.9), Column("Links", 0.5, True),
                 Column("Media", 0.5), Column("Speed", 0.5, True), Column("Breakout", 0.95),
                 Column("Cables", 0.55, True), Column("Transceivers", 1.9)], rows, size=8)
    for note in proposal.report.bom.notes:
        pages.paragraph(note, 8.5, WARN)


def _cost(pages: PageWriter, proposal: Proposal) -> None:
    cost = proposal.report.cost
    if cost is None:
        return
    pages.heading("Cost and power")
    prices = not proposal.hide_prices
    columns = [Column("Category", 1.3)]
    if prices:
        columns.append(Column("Capex", 0.9, True))
    columns += [Column("Power", 0.8, True), Column("Rack units", 0.7, True),
                Column("Confidence", 1.0)]
    rows, colours = [], []
    for name, cat in cost.by_category.items():
        row = [CATEGORY_LABELS.get(name, name)]
        if prices:
            row.append(_money(proposal, cat.total))
        row += [f"{cat.power_w / 1000:,.1f} kW", f"{cat.rack_units:,.0f}", cat.confidence]
        rows.append(row)
        colours.append(WARN if cat.confidence == "placeholder" else None)
    total = ["Total"] + ([_money(proposal, cost.total)] if prices else []) + [
        f"{cost.power_w / 1000:,.1f} kW", f"{cost.rack_units:,.0f}", cost.confidence]
    rows.append(total)
    colours.append(None)
    pages.table(columns, rows, size=9, colours=colours, bold_rows=[len(rows) - 1])
    gpus = proposal.report.counts.gpus
    facts = []
    if prices:
        network = cost.network_total
        facts.append(f"Network (switches, adapters, transceivers, cables): "
                     f"{_money(proposal, network)}"
                     + (f", {_money(proposal, network / gpus)} per GPU" if gpus else "")
                     + (f", {100 * network / cost.total:.1f}% of the cluster capex"
                        if cost.total else "") + f" ({cost.network_confidence}).")
        if cost.per_gpu:
            facts.append(f"Cluster capex per GPU: {_money(proposal, cost.per_gpu)}.")
        if cost.per_tbps_bisection:
            facts.append(f"Cluster capex per Tb/s of bisection: "
                         f"{_money(proposal, cost.per_tbps_bisection)}.")
    facts.append(f"Network power {cost.network_power_w / 1000:,.1f} kW of "
                 f"{cost.power_w / 1000:,.1f} kW in total.")
    pages.bullets(facts)
    pages.space(4)
    pages.ensure(70)
    pages.paragraph("Confidence labels", 9, HEAD, bold=True, after=2)
    pages.bullets([CONFIDENCE_TEXT[c] for c in ("sourced", "weak", "placeholder")], 8.5, MUTED)


def _comparison(pages: PageWriter, proposal: Proposal) -> None:
    comparison = proposal.comparison
    assert comparison is not None
    pages.ensure(380)  # the charts and the table on one page
    pages.heading("Fabric comparison")
    pages.paragraph(f"The same design and workload ({comparison.workload}; scenario "
                    f"'{comparison.scenario}') simulated on each fabric.", 9.5)
    labels = [o.label for o in comparison.outcomes]
    completion = [o.values.get("completion_time_s") for o in comparison.outcomes]
    longest = max((t for t in completion if t is not None), default=0.0)
    scale, unit = (1e3, " ms") if longest >= 1e-3 else (1e6, " µs")
    utilisation = [None if o.utilisation is None else 100 * o.utilisation
                   for o in comparison.outcomes]
    charts = [("Completion time", labels,
               [None if t is None else t * scale for t in completion], unit)]
    if any(u is not None for u in utilisation):
        charts.append(("GPU utilisation", labels, utilisation, "%"))
    charts.append(("Drops", labels, [o.values.get("dropped") for o in comparison.outcomes], ""))
    pages.bar_charts(charts)
    from fabricstudio.ui.panels.results_summary import figure_text, format_figure

    rows = []
    for outcome in comparison.outcomes:
        v = outcome.values
        money = proposal.money.get(outcome.label)
        rows.append([outcome.label, format_figure("completion_time_s", v.get("completion_time_s")),
                     format_figure("gpu_utilisation", v.get("gpu_utilisation")),
                     figure_text("dropped", v, "n/a"), figure_text("pauses", v, "n/a"),
                     "-" if money is None else _money(proposal, money[0].per_day),
                     "-" if money is None else _money(proposal, money[1].per_month)])
    pages.table([Column("Fabric", 1.1), Column("Completion", 0.8, True),
                 Column("GPU util.", 0.7, True), Column("Drops", 0.6, True),
                 Column("PAUSEs", 0.6, True), Column("Idle GPUs per day", 0.9, True),
                 Column("vs best per month", 0.9, True)], rows, size=8.5)
    flow = [o.label for o in comparison.outcomes if o.values.get("engine") == "flow"]
    if flow:
        pages.paragraph(
            f"n/a: {' and '.join(flow) if len(flow) < 3 else 'these fabrics'} ran on the "
            "flow-level engine, which models "
            "max-min fair rates only: not drops, PFC pauses, ECN or queueing, so it cannot "
            "show what losing packets or pausing costs. Run a smaller scenario or a focused "
            "run for that.", 8.5, MUTED)
    if proposal.money:
        sample = next((pair[0] for pair in proposal.money.values() if pair is not None), None)
        if sample is not None:
            pages.paragraph(
                f"GPU idle money: (utilisation difference) x {sample.gpus:,} GPUs x "
                f"{sample.gpu_hour_price:,.2f} {sample.currency} per GPU-hour "
                f"({sample.confidence}). Per day against GPUs that never wait; per month "
                "(730 h) against the best fabric above.", 8.5, MUTED)
    else:
        pages.paragraph("The workload has no training step, so GPU utilisation and GPU idle "
                        "money are not defined for it.", 8.5, MUTED)
    headline = _comparison_headline(proposal)
    if headline:
        pages.paragraph(headline, 10, HEAD, bold=True)


def _findings(pages: PageWriter, proposal: Proposal) -> None:
    report = proposal.report
    pages.heading("Analysis findings")
    if not report.issues:
        pages.paragraph("No errors, warnings or notes.", 9.5)
    p = pages.painter
    for issue in report.issues:
        text = f"{issue.severity.upper()}: {issue.message}"
        f = font(9)
        height = pages.text_height(text, f, pages.width - 14)
        pages.ensure(height)
        p.setPen(SEVERITY_COLOURS.get(issue.severity, INK))
        p.setFont(font(9, bold=True))
        p.drawText(QRectF(pages.left, pages.y, 12, 12), int(Qt.AlignmentFlag.AlignLeft), "•")
        pages.paragraph(text, 9, SEVERITY_COLOURS.get(issue.severity, INK), indent=14, after=3)
    d = report.deadlock
    pages.space(4)
    pages.paragraph(f"Deadlock check ({d.method}): {d.note}", 8.5, MUTED)


def _assumptions(pages: PageWriter, proposal: Proposal) -> None:
    pages.heading("Assumptions and sources")
    rows = [[text, source] for text, source in proposal.assumptions()]
    pages.table([Column("Assumption", 1.6), Column("Source", 2.0)], rows, size=7.5)
    pages.paragraph(f"Prices in {proposal.book.currency} from the FabricStudio cost book "
                    "(docs/cost.md) with the user's overrides; figures are list-price "
                    "estimates, not a quotation.", 8, MUTED)

