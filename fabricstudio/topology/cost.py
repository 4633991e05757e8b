"""Capex, power and rack units of a bill of materials priced with a cost book, and the money
GPUs lose while they wait for the network.

``cost_of(bom, book, bisection_gbps)`` gives the ``cost`` object of the analysis report:
total, per GPU, per Tb/s of bisection, power, rack units, by category, and the lowest
confidence of every price and power figure that went in.  ``cost_lines`` gives the priced
order line by line (for the proposal and the analysis dock).  ``idle_money`` turns a GPU
utilisation difference into money per day and per month.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fabricstudio.model.costbook import GPU_HOUR, CostBook, lowest_confidence
from fabricstudio.topology.analysis.bom import CATEGORIES
from fabricstudio.topology.analysis.report import (
    BillOfMaterials,
    CategoryCost,
    Cost,
)

#: Hours in a day and in an average month (8,760 h / 12).
HOURS_PER_DAY = 24.0
HOURS_PER_MONTH = 730.0


@dataclass(frozen=True)
class CostLine:
    """One priced line of the order."""

    category: str
    part: str
    label: str
    count: int
    unit_price: float | None
    total: float
    power_w: float
    rack_units: float
    confidence: str
    source: str
    price_range: tuple[float, float] | None = None


def cost_lines(bom: BillOfMaterials, book: CostBook) -> list[CostLine]:
    """The order priced line by line; a class the book lacks costs nothing and is marked
    ``placeholder`` (its source says so)."""
    lines = []
    for item in bom.items:
        entry = book.item(item.part)
        if entry is None:
            lines.append(CostLine(item.category, item.part, item.label, item.count, None, 0.0,
                                  0.0, 0.0, "placeholder", "not in the cost book: counted at 0"))
            continue
        rng = entry.price_range
        lines.append(CostLine(
            item.category, item.part, entry.label or item.label, item.count, entry.price,
            entry.price * item.count, entry.power_w * item.count,
            entry.rack_units * item.count, entry.lowest_confidence, entry.source,
            None if rng is None else (rng[0] * item.count, rng[1] * item.count)))
    return lines


def cost_of(bom: BillOfMaterials, book: CostBook, bisection_gbps: float) -> Cost:
    """Capex, power and rack units of ``bom`` priced with ``book``."""
    lines = cost_lines(bom, book)
    by_category = {}
    for category in CATEGORIES:
        mine = [line for line in lines if line.category == category]
        if not mine:
            continue
        by_category[category] = CategoryCost(
            total=_cents(sum(line.total for line in mine)),
            power_w=_cents(sum(line.power_w for line in mine)),
            rack_units=_cents(sum(line.rack_units for line in mine)),
            confidence=lowest_confidence(line.confidence for line in mine))
    total = sum(line.total for line in lines)
    tbps = bisection_gbps / 1000.0
    return Cost(currency=book.currency, total=_cents(total),
                per_gpu=_cents(total / bom.gpus) if bom.gpus else None,
                per_tbps_bisection=_cents(total / tbps) if tbps > 0 else None,
                by_category=by_category, power_w=_cents(sum(line.power_w for line in lines)),
                rack_units=_cents(sum(line.rack_units for line in lines)),
                confidence=lowest_confidence(line.confidence for line in lines))


def _cents(value: float) -> float:
    return round(value, 2)


@dataclass(frozen=True)
class IdleMoney:
    """Money lost while GPUs wait, per day and per month."""

    utilisation: float
    reference: float
    gpus: int
    gpu_hour_price: float
    currency: str
    confidence: str

    @property
    def idle_fraction(self) -> float:
        """Share of the GPUs' time lost against the reference (never negative)."""
        return max(0.0, self.reference - self.utilisation)

    @property
    def per_hour(self) -> float:
        """Money lost per hour."""
        return self.idle_fraction * self.gpus * self.gpu_hour_price

    @property
    def per_day(self) -> float:
        """Money lost per day."""
        return self.per_hour * HOURS_PER_DAY

    @property
    def per_month(self) -> float:
        """Money lost per month (730 h)."""
        return self.per_hour * HOURS_PER_MONTH


def idle_money(utilisation: float, gpus: int, book: CostBook, reference: float = 1.0
               ) -> IdleMoney:
    """Money lost when ``gpus`` GPUs run at ``utilisation`` instead of ``reference`` (1.0 =
    never waiting; the best fabric's utilisation for a comparison), priced at the book's
    GPU-hour price: (reference - utilisation) x GPUs x price x hours."""
    item = book.item(GPU_HOUR)
    price = item.price if item is not None else 0.0
    confidence = item.confidence if item is not None else "placeholder"
    return IdleMoney(float(utilisation), float(reference), int(gpus), price, book.currency,
                     confidence)


def compare_idle_money(utilisations: Mapping[str, float | None], gpus: int, book: CostBook
                       ) -> dict[str, tuple[IdleMoney, IdleMoney] | None]:
    """For each fabric: (money lost against GPUs that never wait, money lost against the best
    fabric of the comparison); None where a fabric has no utilisation."""
    known = [u for u in utilisations.values() if u is not None]
    best = max(known) if known else 1.0
    return {label: None if u is None else
            (idle_money(u, gpus, book), idle_money(u, gpus, book, reference=best))
            for label, u in utilisations.items()}


def currency_prefix(currency: str) -> str:
    """'$' for USD, '€' for EUR, '£' for GBP, else the code and a space."""
    return {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency, f"{currency} ")


def format_price(value: float, currency: str = "USD") -> str:
    """A unit price with cents: '$2.50', '$43,000.00'."""
    return f"{currency_prefix(currency)}{value:,.2f}"


def format_money(value: float | None, currency: str = "USD") -> str:
    """'$1.23M', '$45.6k', '$789' (other currencies: 'EUR 1.23M')."""
    if value is None:
        return "-"
    sign = "-" if value < 0 else ""
    value = abs(value)
    prefix = currency_prefix(currency)
    for limit, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if value >= limit:
            scaled = value / limit
            digits = 2 if scaled < 10 else 1 if scaled < 100 else 0
            return f"{sign}{prefix}{scaled:,.{digits}f}{suffix}"
    return f"{sign}{prefix}{value:,.0f}"
