"""Devices within N hops of a selection (for "focus on the neighbourhood"), Qt-free."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from fabricstudio.model import Design, Plane


def neighbourhood(design: Design, start: Iterable[str], hops: int,
                  hidden_planes: Collection[Plane] = ()) -> set[str]:
    """``start`` and every device reachable from it over at most ``hops`` links (links of
    hidden networks are not followed)."""
    if hops < 0:
        raise ValueError(f"hops must be 0 or more, not {hops}")
    frontier = {d for d in start if d in design.devices}
    seen = set(frontier)
    links = design.links
    for _ in range(hops):
        reached = set()
        for device_id in frontier:
            for link_id in design.used_ports(device_id).values():
                link = links[link_id]
                if link.plane in hidden_planes:
                    continue
                other = link.other_end(device_id)
                if other not in seen:
                    reached.add(other)
        if not reached:
            break
        seen |= reached
        frontier = reached
    return seen
