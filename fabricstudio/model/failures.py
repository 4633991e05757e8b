"""Failures: links, devices or whole rails that go down (and maybe come back) during a run.

A scenario lists them (``"failures": [{"at_s": 0.001, "link": "L7", "repair_s": null}]``);
the designer marks elements failed for the analysis and the next run.  Everything here is
plain data and set arithmetic on a design, so the analysis (``topology``) and the engines
(``sim``) resolve a failure list the same way:

* ``link``: the cable (both directions) goes down;
* ``device``: every cable of the device goes down (a dead switch, a crashed server);
* ``rail``: rail N of a rail-optimised fabric: the switches that only GPU-server compute NIC N
  plugs into (the rail's leaves) go down with all their cables; where NIC N shares its switch
  with other NICs (a top-of-rack leaf) only the NIC-N cables go down.

Times are absolute simulated seconds: ``at_s`` when it fails, ``repair_s`` when it is back
(``null``: it stays down).  How fast the fabric routes around a failure is in
:class:`FailoverSettings` (docs/failures.md gives the sources of the defaults).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from fabricstudio.model.devices import DeviceId, GpuServer
from fabricstudio.model.enums import Plane
from fabricstudio.model.strict import StrictNumbers

#: Most failure events one scenario may list.
MAX_FAILURES = 10_000
#: Highest rail number (a server has at most 64 compute NICs).
MAX_RAIL = 63

FailureKind = Literal["link", "device", "rail"]


class Failure(StrictNumbers):
    """One element that goes down at ``at_s`` and comes back at ``repair_s`` (or never)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    at_s: float = Field(default=0.0, ge=0, le=1e4, allow_inf_nan=False,
                        description="when it fails (simulated seconds)")
    link: DeviceId | None = Field(default=None, description="a cable id")
    device: DeviceId | None = Field(default=None, description="a device id")
    rail: int | None = Field(default=None, ge=0, le=MAX_RAIL,
                             description="rail N: the switches of GPU-server compute NIC N")
    repair_s: float | None = Field(
        default=None, gt=0, le=1e4, allow_inf_nan=False,
        description="when it is back (simulated seconds, after at_s); null = stays down")

    @model_validator(mode="after")
    def _one_target(self) -> Failure:
        given = [name for name in ("link", "device", "rail") if getattr(self, name) is not None]
        if len(given) != 1:
            what = "none" if not given else " and ".join(given)
            raise ValueError(f'a failure names exactly one of "link", "device" or "rail" '
                             f"(got {what})")
        if self.repair_s is not None and self.repair_s <= self.at_s:
            raise ValueError(f"repair_s ({self.repair_s:g} s) must be after at_s "
                             f"({self.at_s:g} s): both are times in the run, not durations")
        return self

    @property
    def kind(self) -> FailureKind:
        """``link``, ``device`` or ``rail``."""
        if self.link is not None:
            return "link"
        return "device" if self.device is not None else "rail"

    @property
    def target(self) -> str:
        """The failed element's id, or the rail number as text."""
        return str(self.link if self.link is not None else
                   self.device if self.device is not None else self.rail)

    @property
    def label(self) -> str:
        """``link L7``, ``device spine1`` or ``rail 3``."""
        return f"{self.kind} {self.target}"

    def down_at(self, time_s: float) -> bool:
        """True when the element is down at ``time_s``."""
        return self.at_s <= time_s and (self.repair_s is None or time_s < self.repair_s)


class FailoverSettings(StrictNumbers):
    """How long the fabric takes to route around a failure (docs/failures.md, sources).

    * Ethernet and RoCE with ECMP (or static routes): the switches rehash over the remaining
      equal-cost paths once routing has converged, ``routing_convergence_s`` after the failure;
    * InfiniBand with the subnet manager's static routes: the SM's heavy sweep after the
      link-state trap reprograms the forwarding tables, ``sm_resweep_s`` after the failure;
      with ``ib_shield`` (NVIDIA SHIELD / fast link fault recovery, on by default in NVIDIA's
      OpenSM) switch-to-switch failures are routed around by the switches at once;
    * adaptive routing: the switches stop choosing a dead port at once.
    Until then, traffic routed into a dead element is lost.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    routing_convergence_s: float = Field(
        default=0.05, ge=0, le=1e4, allow_inf_nan=False,
        description="ECMP rehash after BGP converges: link-down detected in milliseconds, "
                    "rerouted within tens of milliseconds (RFC 7938 section 7; R. White, "
                    "'Rethinking BGP on the DC fabric', rule11.tech)")
    sm_resweep_s: float = Field(
        default=1.0, ge=0, le=1e4, allow_inf_nan=False,
        description="InfiniBand subnet manager: the link-state trap starts a heavy sweep "
                    "(opensm(8)) that rediscovers, reroutes and reloads every forwarding "
                    "table; seconds on large fabrics (an estimate: no published timing)")
    ib_shield: bool = Field(
        default=True,
        description="InfiniBand SHIELD (fast link fault recovery): switches pick another "
                    "output port for switch-to-switch failures without the subnet manager "
                    "(NVIDIA InfiniBand cluster bring-up guide, 'SHIELD': on by default)")


@dataclass(frozen=True)
class FailedElements:
    """What a set of failures takes down: cables and devices (a device takes its cables)."""

    links: frozenset[str] = frozenset()
    devices: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.links or self.devices)

    def link_down(self, link: Any) -> bool:
        """True when cable ``link`` (a Link) is down, itself or through a dead end."""
        return link.id in self.links or link.a in self.devices or link.b in self.devices

    def down_links(self, design: Any) -> list[str]:
        """Ids of every cable of ``design`` that is down, in design order."""
        if not self:  # nothing failed: no walk over 100k cables
            return []
        return [link.id for link in design.links.values() if self.link_down(link)]


def rail_elements(design: Any, rail: int) -> FailedElements:
    """Rail ``rail`` of ``design`` (a Design): the switches only compute NIC ``rail`` of the
    GPU servers plugs into, or the NIC-``rail`` cables where the switch is shared."""
    rail_cables: list[tuple[str, str]] = []  # (cable, the device at its far end)
    shared: set[str] = set()  # devices other NICs plug into too
    for device in design.devices.values():
        if not isinstance(device, GpuServer):
            continue
        for link in design.links_of(device.id):
            if link.plane is not Plane.COMPUTE:
                continue
            other = link.other_end(device.id)
            if link.port_at(device.id) == rail:
                rail_cables.append((link.id, other))
            else:
                shared.add(other)
    own = {other for _, other in rail_cables
           if other not in shared and design.devices[other].is_switch}
    cables = frozenset(cable for cable, other in rail_cables if other not in own)
    return FailedElements(cables, frozenset(own))


def failure_problems(design: Any, failures: Sequence[Failure]) -> list[str]:
    """What in ``failures`` does not fit ``design`` (unknown ids, empty rails), one sentence
    each; empty when every failure names something that exists."""
    problems: list[str] = []
    for i, failure in enumerate(failures):
        where = f"failures.{i}"
        if failure.link is not None and failure.link not in design.links:
            problems.append(f"{where}: the design has no link {failure.link!r}")
        elif failure.device is not None and failure.device not in design.devices:
            problems.append(f"{where}: the design has no device {failure.device!r}")
        elif failure.rail is not None and not rail_elements(design, failure.rail):
            problems.append(f"{where}: no GPU server has a connected compute NIC "
                            f"{failure.rail} (rails count from 0)")
    return problems


def failed_elements(design: Any, failures: Iterable[Failure],
                    at_s: float | None = None) -> FailedElements:
    """Everything ``failures`` take down in ``design`` (a Design); with ``at_s``, only the
    failures that are down at that time (unknown ids are ignored: check them first with
    :func:`failure_problems`)."""
    links: set[str] = set()
    devices: set[str] = set()
    for failure in failures:
        if at_s is not None and not failure.down_at(at_s):
            continue
        if failure.link is not None:
            if failure.link in design.links:
                links.add(failure.link)
        elif failure.device is not None:
            if failure.device in design.devices:
                devices.add(failure.device)
        elif failure.rail is not None:
            rail = rail_elements(design, failure.rail)
            links |= rail.links
            devices |= rail.devices
    return FailedElements(frozenset(links), frozenset(devices))


def marked(links: Iterable[str] = (), devices: Iterable[str] = ()) -> list[Failure]:
    """Failures for elements marked failed in the designer: down from the start, never back."""
    return ([Failure(link=link_id) for link_id in links]
            + [Failure(device=device_id) for device_id in devices])
