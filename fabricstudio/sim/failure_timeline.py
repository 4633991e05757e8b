"""When each failure of a scenario is down and when the fabric has routed around it.

The live view draws a failed element from the moment it fails, and says when the routes
avoid it (the reroute) and when it is back.  The times follow the engines' own rule
(:func:`~fabricstudio.sim.engine.failures.convergence_delay` on the run's technology and
routing), so the picture agrees with the run without reading the engine (which may run in
another process).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fabricstudio.model import Technology
from fabricstudio.model.failures import FailoverSettings, Failure, failed_elements
from fabricstudio.sim.engine.failures import convergence_delay


@dataclass(frozen=True)
class FailureWindow:
    """One failure of a run: what it takes down and its times (simulated seconds)."""

    label: str
    links: frozenset[str]
    devices: frozenset[str]
    at_s: float
    rerouted_s: float
    repair_s: float | None
    reused_s: float | None

    def down_at(self, t: float) -> bool:
        """True while the element is down at ``t``."""
        return self.at_s <= t and (self.repair_s is None or t < self.repair_s)


@dataclass(frozen=True)
class FailureState:
    """What is down at one moment: cable and device ids, each with ``down`` (traffic routed
    into it is lost) or ``rerouted`` (the routes avoid it)."""

    links: dict[str, str]
    devices: dict[str, str]
    labels: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.links or self.devices)


def routing_mode(technology: Technology, routing: str) -> str:
    """The routing the engines use for ``routing`` ("default": static on InfiniBand, where
    the subnet manager programs the routes, ECMP on Ethernet)."""
    if routing == "default":
        return "static" if technology is Technology.INFINIBAND else "ecmp"
    return routing


def failure_timeline(design: object, failures: Iterable[Failure], technology: Technology,
                     routing: str, settings: FailoverSettings | None = None
                     ) -> list[FailureWindow]:
    """The windows of ``failures`` on ``design`` (a Design) run on ``technology`` with
    ``routing`` ("default", "ecmp", "static" or "adaptive")."""
    settings = settings or FailoverSettings()
    mode = routing_mode(technology, routing)
    down = convergence_delay(technology, mode, settings)
    back = convergence_delay(technology, mode, settings, repair=True)
    windows = []
    for failure in failures:
        elements = failed_elements(design, [failure])
        links = frozenset(elements.down_links(design))
        rerouted = failure.at_s if failure.at_s == 0 else failure.at_s + down  # as the engines
        windows.append(FailureWindow(
            failure.label, links, elements.devices, failure.at_s, rerouted,
            failure.repair_s, None if failure.repair_s is None else failure.repair_s + back))
    return windows


def state_at(windows: Iterable[FailureWindow], t: float) -> FailureState:
    """What ``windows`` have down at ``t`` (a cable down through two failures counts as
    rerouted once either has been routed around)."""
    links: dict[str, str] = {}
    devices: dict[str, str] = {}
    labels = []
    for window in windows:
        if not window.down_at(t):
            continue
        labels.append(window.label)
        state = "rerouted" if t >= window.rerouted_s else "down"
        for link in window.links:
            if links.get(link) != "rerouted":
                links[link] = state
        for device in window.devices:
            if devices.get(device) != "rerouted":
                devices[device] = state
    return FailureState(links, devices, tuple(labels))


__all__ = ["FailureState", "FailureWindow", "failure_timeline", "routing_mode", "state_at"]
