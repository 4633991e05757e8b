"""Which link a drag from one device to another would make, or why it is refused.

The rules behind drawing a link on the canvas (the editor asks while the user drags), kept in
the model so they are typed and tested without a display: the first network both devices are
on (compute, then storage, then management) where both have a free port; the link runs at
the slower port's rate.  The design's own checks (``Design.resolve_link``) decide; nothing is
changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricstudio.model.design import Design
from fabricstudio.model.devices import Device
from fabricstudio.model.enums import Plane
from fabricstudio.model.links import Link
from fabricstudio.model.validation import DesignError, first_free_port

PLANE_ORDER = (Plane.COMPUTE, Plane.STORAGE, Plane.MANAGEMENT)


@dataclass(frozen=True)
class LinkCandidate:
    """The outcome of a proposed connection: ``link`` when valid, else ``reason``."""

    link: Link | None
    reason: str = ""

    @property
    def valid(self) -> bool:
        """True when the link can be made."""
        return self.link is not None

    def describe(self) -> str:
        """One line for the status bar."""
        if self.link is None:
            return self.reason
        lk = self.link
        return f"{lk.a} port {lk.a_port} -> {lk.b} port {lk.b_port}: {lk.plane.value}, " \
               f"{lk.speed_gbps:g} Gb/s"


def propose_link(design: Design, a: str, b: str, link_id: str | None = None) -> LinkCandidate:
    """The link a drag from device ``a`` to device ``b`` would add."""
    if a == b:
        return LinkCandidate(None, "a device cannot be linked to itself")
    dev_a, dev_b = design.device(a), design.device(b)
    shared = [p for p in PLANE_ORDER if p in dev_a.planes and p in dev_b.planes]
    if not shared:
        return LinkCandidate(None, f"{a} ({_planes(dev_a)}) and {b} ({_planes(dev_b)}) "
                                   "are on different networks")
    reasons = []
    for plane in shared:
        port_a = first_free_port(dev_a, plane, design.used_ports(a))
        port_b = first_free_port(dev_b, plane, design.used_ports(b))
        if port_a is None or port_b is None:
            full = a if port_a is None else b
            reasons.append(f"{full} has no free {plane.value} port")
            continue
        speed = min(dev_a.speed_of_port(port_a), dev_b.speed_of_port(port_b))
        link = Link(id=link_id or design.unique_id("l"), a=a, b=b, a_port=port_a,
                    b_port=port_b, speed_gbps=speed, plane=plane, length_m=_length(dev_a, dev_b))
        try:
            return LinkCandidate(design.resolve_link(link))
        except DesignError as exc:
            reasons.append(str(exc))
    return LinkCandidate(None, "; ".join(reasons))


def _planes(device: Device) -> str:
    return ", ".join(p.value for p in device.planes) or "no network"


def _length(dev_a: Device, dev_b: Device) -> float:
    """Cable length guess: 3 m within a rack row (DAC), longer between tiers (AOC/optics)."""
    if dev_a.is_switch and dev_b.is_switch:
        return 30.0
    return 3.0
