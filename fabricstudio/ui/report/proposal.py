"""What a proposal says: gathered once, drawn by :mod:`fabricstudio.ui.report.pdf`.

Everything here is plain data (no Qt): the analysis report with its cost, the priced order,
the optional fabric comparison with its GPU-idle money, findings and the assumptions with
their sources.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from pathlib import Path

from fabricstudio import __version__
from fabricstudio.model import Design, Technology
from fabricstudio.model.cabling import ACC_MAX_M, AOC_MAX_M, DAC_MAX_M
from fabricstudio.model.costbook import GPU_HOUR, CostBook
from fabricstudio.topology.analysis import AnalysisReport, analyze
from fabricstudio.topology.cost import (
    HOURS_PER_MONTH,
    CostLine,
    IdleMoney,
    compare_idle_money,
    cost_lines,
)
from fabricstudio.ui.report.compare import Comparison

#: Key-figure tiles of the cover and the figures page.
CONFIDENCE_WORDS = {"sourced": "sourced", "weak": "weak source", "placeholder": "placeholder"}


@dataclass
class Proposal:
    """Everything the PDF shows."""

    design: Design
    report: AnalysisReport
    book: CostBook
    lines: list[CostLine]
    customer: str = ""
    logo: Path | None = None
    hide_prices: bool = False
    comparison: Comparison | None = None
    money: dict[str, tuple[IdleMoney, IdleMoney] | None] = field(default_factory=dict)
    date: str = ""
    version: str = __version__

    @property
    def title(self) -> str:
        """The design's name."""
        return self.design.name or "Untitled design"

    @property
    def technology_label(self) -> str:
        """'InfiniBand', 'RoCE', 'Lossy Ethernet'."""
        return Technology(self.report.technology).label

    def tiers(self) -> int:
        """Switch tiers of the compute network."""
        return len(self.report.oversubscription.tiers)

    def assumptions(self) -> list[tuple[str, str]]:
        """(assumption, source) pairs: the rules and the figures that went in."""
        out = [
            ("Cables: RJ45 for management links of 10 Gb/s or less up to 100 m; passive DAC up "
             f"to {DAC_MAX_M:g} m, active copper up to {ACC_MAX_M:g} m, AOC up to "
             f"{AOC_MAX_M:g} m between single-port cages; beyond, transceivers and fibre "
             "(SR 50 m multimode, DR 100/500 m, FR 2 km, LR 10 km single mode).",
             "NVIDIA LinkX 100G-PAM4 optics overview; MCP4Y10 / MCA7J70 cable "
             "specifications (docs/cost.md)"),
            ("Quantum-2 and Spectrum-4 switches carry two 400G ports per twin-port 800G OSFP "
             "cage (one module per cage); ConnectX-7 adapters one 400G port per single-port "
             "OSFP cage.",
             "docs.nvidia.com/networking/display/800GMMS4X00NS/Overview; "
             "docs.nvidia.com/networking/display/QM97X0PUB/Interfaces"),
            ("Capex counts every part of the bill of materials; GPU servers are priced per GPU "
             "without their fabric adapters, which are listed on their own.",
             "docs/cost.md"),
            ("Power: servers at maximum draw, switches without optics, each transceiver and "
             "active cable on its own.", "docs/cost.md"),
        ]
        if self.comparison is not None:
            item = self.book.item(GPU_HOUR)
            price = f"{item.price:,.2f} {self.book.currency}" if item else "no price"
            out.append((f"GPU idle money = (utilisation difference) x GPUs x {price} per "
                        f"GPU-hour x 24 h a day or {HOURS_PER_MONTH:g} h a month; utilisation "
                        "= compute time / training step time in the simulation.",
                        item.source if item else "cost book"))
            out.append((f"Fabric comparison: scenario '{self.comparison.scenario}' "
                        f"({self.comparison.workload}) run on each fabric by FabricStudio's "
                        "cell-level simulation.", "docs/simulation.md, docs/engine.md"))
        seen = set()
        for line in self.lines:
            if line.part in seen:
                continue
            seen.add(line.part)
            price = "" if self.hide_prices or line.unit_price is None else \
                f" {line.unit_price:,.2f} {self.book.currency} each;"
            out.append((f"{line.label}:{price} {CONFIDENCE_WORDS.get(line.confidence, '')}",
                        line.source))
        return out


def build_proposal(design: Design, book: CostBook, *, customer: str = "",
                   logo: str | Path | None = None, hide_prices: bool = False,
                   comparison: Comparison | None = None,
                   report: AnalysisReport | None = None) -> Proposal:
    """Gather a proposal for ``design`` priced with ``book``."""
    report = report or analyze(design, cost_book=book)
    if report.cost is None:
        report = analyze(design, cost_book=book)
    money: dict[str, tuple[IdleMoney, IdleMoney] | None] = {}
    if comparison is not None:
        with_gpus = [o for o in comparison.outcomes if o.utilisation is not None and o.gpus]
        if with_gpus:
            gpus = max(o.gpus for o in with_gpus)
            money = compare_idle_money({o.label: o.utilisation for o in comparison.outcomes},
                                       gpus, book)
    return Proposal(design=design, report=report, book=book, lines=cost_lines(report.bom, book),
                    customer=customer.strip(), logo=Path(logo) if logo else None,
                    hide_prices=hide_prices, comparison=comparison, money=money,
                    date=_dt.date.today().isoformat())
