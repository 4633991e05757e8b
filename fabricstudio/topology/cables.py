"""Cable classes for the bill of materials: passive copper (DAC) up to 3 m, active optical
cable (AOC) up to 30 m, separate optics (two transceivers and fibre) beyond; management
links at 10 Gb/s or less are twisted-pair copper (RJ45)."""

from __future__ import annotations

from fabricstudio.model import Link, Plane
from fabricstudio.model.links import AOC_MAX_M, DAC_MAX_M

CABLE_CLASSES = ("DAC", "AOC", "optics", "copper")
#: Twisted-pair copper reaches 100 m at up to 10GBASE-T.
COPPER_MAX_M = 100.0
COPPER_MAX_GBPS = 10.0


def cable_class(link: Link) -> str:
    """'DAC', 'AOC', 'optics' or 'copper' (management RJ45)."""
    if (link.plane is Plane.MANAGEMENT and link.speed_gbps <= COPPER_MAX_GBPS
            and link.length_m <= COPPER_MAX_M):
        return "copper"
    if link.length_m <= DAC_MAX_M:
        return "DAC"
    if link.length_m <= AOC_MAX_M:
        return "AOC"
    return "optics"


def transceivers_for(link: Link) -> int:
    """Pluggable optical transceivers a link needs (optics: one per end; others none)."""
    return 2 if cable_class(link) == "optics" else 0
