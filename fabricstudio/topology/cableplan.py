"""The cable plan (cutsheet): one row per cable end to end, and a summary by media and length.

Each row: cable id, network, both ends (rack, U, device, port name, module), media, the
cable part, the design length and the length to order after the slack rule, speed and
breakout.  A breakout cable serves several links: its rows share the cable id with a tail
number (``C00012/1``, ``C00012/2``).  Racks and U come from
:func:`fabricstudio.topology.racks.rack_plan` (the design's rack groups, or derived); media
and modules from THE cable-class function, so the plan, the BOM and the inspector agree.

Slack rule (docs/cost.md): fibre, AOC and RJ45 runs get 10 % or at least 0.5 m of slack,
then the next stock length; copper DAC/ACC is ordered at the next stock length of the
design length, never past the reach of its class (in-rack runs are measured as cables).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from fabricstudio.model import Design, DesignData
from fabricstudio.model.cabling import (
    ACC_MAX_M,
    DAC_MAX_M,
    MEDIA_LABELS,
    assembly_label,
    module_label,
)
from fabricstudio.model.hardware import cage_index, port_name
from fabricstudio.topology.analysis.bom import LinkParts, link_parts, segment
from fabricstudio.topology.analysis.view import DesignView
from fabricstudio.topology.racks import Slot, rack_plan

SLACK_FRACTION = 0.10
SLACK_MIN_M = 0.5
COPPER_STOCK_M = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0)
FIBRE_STOCK_M = (1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0,
                 70.0, 80.0, 90.0, 100.0)
#: Beyond the stock lengths: round up to 10 m, past 500 m to 50 m.
COLUMNS = ("cable_id", "network", "a_rack", "a_u", "a_device", "a_port", "a_module",
           "b_rack", "b_u", "b_device", "b_port", "b_module", "media", "cable_part",
           "length_m", "order_length_m", "speed_gbps", "breakout", "segment", "link_id")
HEADERS = ("Cable ID", "Network", "A rack", "A U", "A device", "A port", "A module",
           "B rack", "B U", "B device", "B port", "B module", "Media", "Cable",
           "Design length (m)", "Order length (m)", "Speed (Gb/s)", "Breakout", "Segment",
           "Link")


@dataclass(frozen=True)
class CableRow:
    """One row of the cutsheet."""

    cable_id: str
    network: str
    a_rack: str
    a_u: int
    a_device: str
    a_port: str
    a_module: str
    b_rack: str
    b_u: int
    b_device: str
    b_port: str
    b_module: str
    media: str
    cable_part: str
    length_m: float
    order_length_m: float
    speed_gbps: float
    breakout: str
    segment: str
    link_id: str

    def values(self) -> list[str | int | float]:
        """The row in COLUMNS order."""
        return [getattr(self, name) for name in COLUMNS]


@dataclass(frozen=True)
class CablePlan:
    """The rows of a design's cutsheet and its racks."""

    design: str
    technology: str
    rows: list[CableRow]
    racks: dict[str, Slot]

    def summary(self) -> list[list[str | int | float]]:
        """Counts by media and order length, then by network and by module."""
        out: list[list[str | int | float]] = [["Media", "Order length (m)", "Cables"]]
        by_length = Counter((r.media, r.order_length_m) for r in self.rows if _is_head(r))
        for (media, length), n in sorted(by_length.items()):
            out.append([media, length, n])
        out.append([])
        out.append(["Media", "Description", "Cables"])
        for media, n in sorted(Counter(r.media for r in self.rows if _is_head(r)).items()):
            out.append([media, MEDIA_LABELS[media], n])
        out.append([])
        out.append(["Network", "Links", "Cables"])
        links = Counter(r.network for r in self.rows)
        cables = Counter(r.network for r in self.rows if _is_head(r))
        for network in sorted(links):
            out.append([network, links[network], cables[network]])
        out.append([])
        out.append(["Cable part", "Description", "Cables"])
        for part, n in sorted(Counter(r.cable_part for r in self.rows if _is_head(r)).items()):
            out.append([part, assembly_label(part), n])
        out.append([])
        out.append(["Racks", len({s.rack for s in self.racks.values()}), ""])
        return out

    def sheets(self) -> list[tuple[str, list[str], list[list[str | int | float]]]]:
        """(name, headers, rows) of the cable sheet and the summary sheet."""
        summary = self.summary()
        return [("Cables", list(HEADERS), [r.values() for r in self.rows]),
                ("Summary", [str(c) for c in summary[0]], summary[1:])]


def _is_head(row: CableRow) -> bool:
    """True for the first row of a physical cable (breakout tails share the cable)."""
    return "/" not in row.cable_id or row.cable_id.endswith("/1")


def order_length(length_m: float, media: str, reach_m: float | None = None) -> float:
    """The length to order for a run of ``length_m`` (slack rule and stock lengths).  Slack
    never takes a cable past ``reach_m``, the reach of its class: there the slack is what is
    left up to the reach (the run itself fits, or the class would be another)."""
    if media in ("DAC", "ACC"):
        reach = DAC_MAX_M if media == "DAC" else ACC_MAX_M
        stock = [s for s in COPPER_STOCK_M if s <= reach]
        return next((s for s in stock if s >= length_m - 1e-9), stock[-1])
    need = length_m + max(SLACK_MIN_M, SLACK_FRACTION * length_m)
    wanted = next((s for s in FIBRE_STOCK_M if s >= need - 1e-9), None)
    if wanted is None:
        step = 10.0 if need <= 500 else 50.0
        wanted = math.ceil(need / step - 1e-9) * step
    if reach_m is not None and wanted > reach_m >= length_m:
        return max(length_m, reach_m)
    return wanted


def cable_plan(design: Design | DesignData) -> CablePlan:
    """The cutsheet of ``design``."""
    if not isinstance(design, Design):
        design = Design.from_data(design)
    view = DesignView.of(design)
    tech = view.fabric.technology
    slots = rack_plan(design).slots
    assembly_ids: dict[tuple[str, int], str] = {}
    tails: Counter[tuple[str, int]] = Counter()
    rows: list[CableRow] = []
    number = 0
    parts = sorted(link_parts(view), key=lambda p: _order_key(p, slots))
    for item in parts:
        link, choice = item.link, item.choice
        a, b = view.devices[link.a], view.devices[link.b]
        if choice.media in ("DAC", "ACC", "AOC") and (choice.breakout or
                                                      choice.cage_a.ports > 1 or
                                                      choice.cage_b.ports > 1):
            key = _head_key(view, item)
            if key not in assembly_ids:
                number += 1
                assembly_ids[key] = f"C{number:05d}"
            tails[key] += 1
            cable_id = f"{assembly_ids[key]}/{tails[key]}"
        else:
            number += 1
            cable_id = f"C{number:05d}"
        sa, sb = slots[link.a], slots[link.b]
        rows.append(CableRow(
            cable_id=cable_id, network=link.plane.value, a_rack=sa.rack, a_u=sa.position,
            a_device=a.label, a_port=port_name(a, link.a_port, tech),
            a_module=_module_text(choice.module_a, choice.media), b_rack=sb.rack, b_u=sb.position,
            b_device=b.label, b_port=port_name(b, link.b_port, tech),
            b_module=_module_text(choice.module_b, choice.media), media=choice.media,
            cable_part=choice.assembly, length_m=link.length_m,
            order_length_m=order_length(link.length_m, choice.media, choice.reach_m),
            speed_gbps=link.speed_gbps, breakout=choice.breakout, segment=segment(a, b),
            link_id=link.id))
    return CablePlan(view.name, tech.value, rows, slots)


def _order_key(item: LinkParts, slots: dict[str, Slot]) -> tuple[str, str, int, int, str]:
    link = item.link
    return (link.plane.value, slots[link.a].rack, -slots[link.a].position, link.a_port or 0,
            link.id)


def _head_key(view: DesignView, item: LinkParts) -> tuple[str, int]:
    """The cage a copper/AOC assembly's head sits in (the end with the larger cage)."""
    link, choice = item.link, item.choice
    tech = view.fabric.technology
    if choice.cage_a.gbps >= choice.cage_b.gbps:
        return link.a, cage_index(view.devices[link.a], link.a_port, tech)
    return link.b, cage_index(view.devices[link.b], link.b_port, tech)


def _module_text(module: str | None, media: str) -> str:
    if module is not None:
        return module_label(module)
    return {"DAC": "built into the DAC", "ACC": "built into the ACC",
            "AOC": "built into the AOC", "RJ45": "RJ45 socket"}.get(media, "")
