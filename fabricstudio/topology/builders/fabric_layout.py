"""Where a built fabric's devices go: the compute network in blocks (see placement.py), the
storage network in rows below the GPU servers, the management network at the bottom.

Below the compute servers come the storage leaves (each under the servers it serves), the
storage servers under their leaf and the storage spines; then one management switch per rack
under its servers, and the management aggregation.  Storage devices stand where no
management cable passes: they step sideways to the nearest clear spot.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from fabricstudio.model import Link, Plane
from fabricstudio.topology.builders.clearance import Obstacles, first_clear_x
from fabricstudio.topology.builders.families import ComputePlan
from fabricstudio.topology.builders.placement import (
    MAX_TIER_GAP,
    PITCH,
    POD_GAP,
    ROW_GAP,
    SERVER_DROP,
    UNIT_GAP,
    WRAP_COST,
    Block,
    arrange,
    aspect_cost,
    rack_block,
    spread,
    tier_gap,
    unit_block,
)
from fabricstudio.topology.builders.planes import MgmtPlan, StoragePlan

Positions = dict[str, tuple[float, float]]

#: Server row to the storage leaves; rows of the management network.
STORAGE_DROP = 1.4 * ROW_GAP
MGMT_DROP = ROW_GAP
#: Clear spots are searched for in layouts of up to this many devices; larger ones wrap into
#: blocks whose uplinks cross other blocks anyway, and keep the conservative positions.
SEARCH_UP_TO = 1000
#: Choosing pod shapes: the cost of a picture twice as large as the smallest candidate,
#: against the shape and crossing costs of placement.py.
AREA_WEIGHT = 0.7


def layout_fabric(compute: ComputePlan, storage: StoragePlan, mgmt: MgmtPlan,
                  links: Sequence[Link]) -> Positions:
    """Positions of every device of a built fabric (deterministic).  The compute blocks wrap
    for the whole picture's shape, storage and management rows included."""
    out = _layout(compute, storage, mgmt, links, 0.0)
    if storage.leaves or mgmt.racks:
        compute_height = max(out[s][1] for s in compute.servers) if compute.servers else 0.0
        extra = max(y for _, y in out.values()) - compute_height
        out = _layout(compute, storage, mgmt, links, extra)
    return {ident: (round(x, 1), round(y, 1)) for ident, (x, y) in out.items()}


def _layout(compute: ComputePlan, storage: StoragePlan, mgmt: MgmtPlan,
            links: Sequence[Link], extra_height: float) -> Positions:
    out: Positions = {}
    compute_block(compute, links, extra_height).place(0.0, 0.0, out)
    bottom = max(y for y in (p[1] for p in out.values()))
    if storage.leaves:
        bottom = place_storage(storage, links, bottom, out)
    if mgmt.racks:
        place_management(mgmt, bottom, links, out)
        clear_storage(storage_ids(storage), links, out)
    return out


def _servers_by_leaf(plan: ComputePlan, links: Sequence[Link]) -> dict[str, list[str]]:
    """Each server under the first leaf it is cabled to, in server order."""
    leaves = set(plan.leaves)
    home: dict[str, str] = {}
    for link in links:
        if link.plane is Plane.COMPUTE and link.b in leaves:
            home.setdefault(link.a, link.b)
    racks: dict[str, list[str]] = defaultdict(list)
    for server in plan.servers:
        if server in home:
            racks[home[server]].append(server)
    return racks


def _bundled(links: Sequence[Link], leaves: set[str]) -> bool:
    """True when some server has several cables to one leaf (drawn as a labelled bundle)."""
    seen = set()
    for link in links:
        if link.b in leaves and link.plane is Plane.COMPUTE:
            if (link.a, link.b) in seen:
                return True
            seen.add((link.a, link.b))
    return False


def compute_block(plan: ComputePlan, links: Sequence[Link], extra_height: float = 0.0) -> Block:
    """The compute network: racks or scalable units, pods, spines and cores (shaped for a
    picture ``extra_height`` taller)."""
    leaves = set(plan.leaves)
    if plan.servers_by_leaf:
        racks = _servers_by_leaf(plan, links)
        bundled = _bundled(links, leaves)
        units = [[rack_block(leaf, racks.get(leaf, []), bundled) for leaf in group_leaves]
                 for group_leaves, _ in plan.groups]
    else:
        units = [[unit_block(group_leaves, servers)] for group_leaves, servers in plan.groups]
    tiers = plan.tiers
    if not tiers.pod_spines:
        flat = [u for group in units for u in group]
        return arrange(flat, [t for t in (tiers.spines, tiers.cores) if t], UNIT_GAP,
                       extra_height)
    pod_of = _pod_of_leaf(tiers.pod_spines, links)
    pods: dict[int, list[Block]] = defaultdict(list)
    for (group_leaves, _), group in zip(plan.groups, units, strict=False):
        heads = group_leaves if plan.servers_by_leaf else group_leaves[:1]
        for leaf, unit in zip(heads, group, strict=False):
            pods[pod_of.get(leaf, 0)].append(unit)
    candidates = []
    largest = max(len(units) for units in pods.values())
    # Only the widths that give a different number of rows.
    for per_row in sorted({math.ceil(largest / rows) for rows in range(1, largest + 1)}):
        pod_blocks = [arrange(pods[p], [spines], UNIT_GAP, per_row=min(per_row, len(pods[p])))
                      for p, spines in enumerate(tiers.pod_spines) if pods[p]]
        candidates.append(arrange(pod_blocks, [tiers.cores] if tiers.cores else [], POD_GAP,
                                  extra_height))
    smallest = min(b.width * (b.height + extra_height) for b in candidates)

    def cost(block: Block) -> float:
        area = block.width * (block.height + extra_height)
        return (aspect_cost(block, extra_height) + WRAP_COST * block.wrapped
                + AREA_WEIGHT * math.log(area / smallest))

    return min(candidates, key=cost)


def _pod_of_leaf(pod_spines: Sequence[Sequence[str]], links: Sequence[Link]) -> dict[str, int]:
    spine_pod = {spines[0]: p for p, spines in enumerate(pod_spines) if spines}
    pod_of: dict[str, int] = {}
    for link in links:
        if link.b in spine_pod:
            pod_of.setdefault(link.a, spine_pod[link.b])
    return pod_of


def _row_apart(ideal: Sequence[tuple[str, float]], y: float, out: Positions,
               step: float = PITCH) -> None:
    """Place ids at their ideal x (sorted), pushed right just enough to stay ``step`` apart."""
    last = -float("inf")
    for ident, x in sorted(ideal, key=lambda item: (item[1], item[0])):
        x = max(x, last + step)
        out[ident] = (x, y)
        last = x


def _shallowest_clear_row(ideal: Sequence[tuple[str, float]], top: float, fallback: float,
                          links: Sequence[Link], out: Positions) -> float:
    """Place a row of devices at their ``ideal`` x: at the highest y from ``top`` down where
    all their cables run clear of other devices; at ``fallback`` in large layouts, and at
    ``top`` when no depth within ``MAX_TIER_GAP`` is clear (going deeper would not help);
    returns that y."""
    y = top if len(out) <= SEARCH_UP_TO else fallback
    _row_apart(ideal, y, out)
    if len(out) > SEARCH_UP_TO:
        return y
    obstacles = Obstacles(out, links, mobile=[i for i, _ in ideal])
    while any(obstacles.blocked(i, *out[i]) for i, _ in ideal):
        if y >= top + MAX_TIER_GAP:
            y = top
            _row_apart(ideal, y, out)
            break
        y += ROW_GAP / 4
        _row_apart(ideal, y, out)
    return y


def _mean_x(ids: Sequence[str], out: Positions, default: float) -> float:
    xs = [out[i][0] for i in ids if i in out]
    return sum(xs) / len(xs) if xs else default


def place_storage(plan: StoragePlan, links: Sequence[Link], bottom: float,
                   out: Positions) -> float:
    """Storage leaves under their GPU servers, storage servers under their leaf, spines below;
    returns the lowest y used."""
    ends: dict[str, list[str]] = defaultdict(list)
    leaves = set(plan.leaves)
    for link in links:
        if link.plane is Plane.STORAGE and link.b in leaves:
            ends[link.b].append(link.a)
    right = max(p[0] for p in out.values())
    ideal = [(leaf, _mean_x(ends[leaf], out, right)) for leaf in plan.leaves]
    server_xs = [out[a][0] for leaf in plan.leaves for a in ends[leaf]
                 if a in out and out[a][1] > bottom - ROW_GAP]
    deepest = bottom + tier_gap(server_xs, [x for _, x in ideal], STORAGE_DROP)
    leaf_y = _shallowest_clear_row(ideal, bottom + STORAGE_DROP, deepest, links, out)
    server_y = leaf_y + SERVER_DROP
    ideal = []
    for group_leaves, members in plan.groups:
        start = _mean_x(group_leaves, out, right) - (len(members) - 1) * PITCH / 2
        ideal += [(m, start + i * PITCH) for i, m in enumerate(members)]
    _row_apart(ideal, server_y, out)
    lowest = server_y if ideal else leaf_y
    leaf_xs = [out[leaf][0] for leaf in plan.leaves]
    span = max(leaf_xs) - min(leaf_xs) + PITCH
    below = leaf_xs
    for tier in (plan.tiers.spines, plan.tiers.cores):
        if not tier:
            continue
        xs = [min(leaf_xs) - PITCH / 2 + x for x in spread(len(tier), span)]
        lowest += tier_gap(below, xs, ROW_GAP)
        for ident, x in zip(tier, xs, strict=True):
            out[ident] = (x, lowest)
        below = xs
    return lowest


def place_management(plan: MgmtPlan, bottom: float, links: Sequence[Link],
                     out: Positions) -> None:
    """Rack switches under their racks (as high as their cables allow), aggregation rows
    below."""
    ideal = [(switch, _mean_x(members, out, 0.0)) for switch, members in plan.racks]
    y = _shallowest_clear_row(ideal, bottom + MGMT_DROP, bottom + MGMT_DROP, links, out)
    children = [out[s][0] for s, _ in plan.racks]
    for row in plan.aggregation:
        left = min(children) - PITCH / 2
        xs = [left + x for x in spread(len(row), max(children) - min(children) + PITCH)]
        y += tier_gap(children, xs, MGMT_DROP)
        for ident, x in zip(row, xs, strict=True):
            out[ident] = (x, y)
        children = xs


def storage_ids(plan: StoragePlan) -> list[str]:
    return [*plan.leaves, *plan.tiers.cores, *plan.tiers.spines, *plan.storage_servers]


def clear_storage(ids: Sequence[str], links: Sequence[Link], out: Positions) -> None:
    """Move storage-network devices sideways off the paths of management cables and storage
    uplinks, keeping their own cables off other devices."""
    if len(out) > SEARCH_UP_TO:
        return
    switches = set(ids) & {lk.b for lk in links if lk.plane is Plane.STORAGE}
    lines = [(lk.a, lk.b) for lk in links if lk.plane is Plane.MANAGEMENT
             or (lk.a in switches and lk.b in switches)]
    obstacles = Obstacles(out, links, mobile=ids, lines=lines)
    obstacles.parked.update(ids)
    for ident in ids:
        obstacles.move(ident, first_clear_x(ident, obstacles))
