"""The analysis report: pydantic models with stable keys (documented in docs/analysis.md)."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from fabricstudio.model.costbook import lowest_confidence

Severity = Literal["error", "warning", "info"]
#: Categories of the order that make up the network (everything but the servers).
NETWORK_CATEGORIES = ("switches", "nics", "transceivers", "cables")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Issue(_Model):
    """One finding; ``objects`` are device/link ids the UI can select."""

    severity: Severity
    code: str = Field(description="Stable slug, e.g. 'gpu-nic-unconnected'")
    message: str
    objects: list[str] = Field(default_factory=list)


class Counts(_Model):
    """What the design holds."""

    gpus: int
    gpu_servers: int
    hosts: int = Field(description="Connected GPU-server compute NICs (the fabric endpoints)")
    storage_servers: int
    switches: dict[str, int] = Field(description="By kind: leaf, spine, core, mgmt_switch")
    links: int


class SwitchLoad(_Model):
    """Down and up capacity of one switch on the compute network."""

    id: str
    down_gbps: float
    up_gbps: float
    ratio: float | None = Field(description="down/up; None when there is no uplink")
    hosts: int = Field(description="GPU NICs attached directly")


class TierLoad(_Model):
    """Totals of one tier of the compute network."""

    tier: str = Field(description="leaf, spine or core")
    switches: int
    down_gbps: float
    up_gbps: float
    ratio: float | None = Field(description="total down/up of the tier; None at the top")
    worst_ratio: float | None = Field(description="largest ratio of any switch in the tier")


class Oversubscription(_Model):
    """Down:up bandwidth ratios by tier and by leaf."""

    tiers: list[TierLoad]
    leaves: list[SwitchLoad]


class Bisection(_Model):
    """Bandwidth across the narrowest balanced cut of the compute network (one direction)."""

    gbps: float
    method: Literal["clos-formula", "max-flow-split", "none"]
    exact: bool
    note: str


class Stat(_Model):
    """min / mean / max over GPU NIC pairs (mean weighted by pairs)."""

    min: float
    mean: float
    max: float


class Paths(_Model):
    """Shortest paths between GPU NICs on different servers."""

    pairs: int = Field(description="Ordered NIC pairs on different servers in the fabric")
    pairs_examined: int
    sampled: bool
    method: str
    hops: Stat | None = Field(description="Links from NIC to NIC (same leaf = 2)")
    ecmp_paths: Stat | None = Field(
        description="Distinct equal-cost shortest paths through switches (parallel cables "
                    "between the same two switches count once)")
    ecmp_width: Stat | None = Field(
        description="Equal-cost next-hop links at the first switch (parallel cables count)")
    diameter_hops: int | None = Field(description="Most links between any two GPU NICs")
    unreachable_pairs: int


class SwitchGroup(_Model):
    """Switches of one kind, radix and speed."""

    kind: str
    radix: int
    port_speed_gbps: float
    count: int
    ports_used: int
    ports_free: int
    part: str = Field(description="Cost-book class the switch is ordered as")


class NicGroup(_Model):
    """Server ports of one plane and speed."""

    plane: str
    speed_gbps: float
    count: int
    connected: int
    part: str | None = Field(description="Cost-book class of the adapter (per port); None "
                                         "for management ports on the motherboard")


class CableGroup(_Model):
    """Links of one plane, segment, media, speed and breakout, with the parts they need."""

    plane: str
    segment: str = Field(description="Roles of the two ends, e.g. server-leaf, leaf-spine")
    cable: str = Field(description="DAC, ACC, AOC, optics (transceivers + fibre) or copper "
                                   "(RJ45)")
    media: str = Field(description="DAC, ACC, AOC, MMF, SMF or RJ45")
    speed_gbps: float
    breakout: str = Field(description="e.g. '800G->2x400G'; empty when none")
    count: int = Field(description="Links")
    transceivers: int = Field(description="Modules (a twin-port module serves two links)")
    assemblies: int = Field(description="Cables to order: a breakout serves several links, "
                                        "optics need one fibre per link")
    modules: dict[str, int] = Field(description="Transceivers by cost-book class")


class BomItem(_Model):
    """One line of the order: ``count`` parts of cost-book class ``part``."""

    category: str = Field(description="gpu_servers, storage_servers, switches, nics, "
                                      "transceivers or cables")
    part: str
    label: str
    count: int


class BillOfMaterials(_Model):
    """What to order."""

    gpu_servers: int
    gpus: int
    storage_servers: int
    switches: list[SwitchGroup]
    nics: list[NicGroup]
    cables: list[CableGroup]
    cables_by_class: dict[str, int]
    transceivers: int
    switch_ports_used: int
    switch_ports_free: int
    items: list[BomItem] = Field(description="The order, line by line")
    notes: list[str] = Field(description="What the parts cannot do as drawn")


class CategoryCost(_Model):
    """Capex, power and height of one category of the order."""

    total: float
    power_w: float
    rack_units: float
    confidence: str


class Cost(_Model):
    """The ``cost`` object of ``analyze --json`` (documented in docs/cost.md)."""

    currency: str
    total: float = Field(description="Capex of everything in the bill of materials")
    per_gpu: float | None = Field(description="total / GPUs; None without GPUs")
    per_tbps_bisection: float | None = Field(
        description="total / bisection bandwidth in Tb/s; None without bisection")
    by_category: dict[str, CategoryCost]
    power_w: float
    rack_units: float
    confidence: str = Field(description="Lowest confidence of the prices and power figures "
                                        "that went in: sourced, weak or placeholder")

    @property
    def network_total(self) -> float:
        """Capex of switches, adapters, transceivers and cables (servers left out)."""
        return sum(c.total for k, c in self.by_category.items() if k in NETWORK_CATEGORIES)

    @property
    def network_power_w(self) -> float:
        """Power of the network parts."""
        return sum(c.power_w for k, c in self.by_category.items() if k in NETWORK_CATEGORIES)

    @property
    def network_confidence(self) -> str:
        """Lowest confidence among the network categories."""
        return lowest_confidence(c.confidence for k, c in self.by_category.items()
                                 if k in NETWORK_CATEGORIES)


class DeadlockCycle(_Model):
    """A cycle of buffer dependencies: each switch waits on the next."""

    switches: list[str]
    channels: list[str] = Field(description="Directed links 'a->b' in cycle order")


class Deadlock(_Model):
    """PFC / credit deadlock risk from the buffer-dependency graph of ECMP shortest routes."""

    method: str
    routes: str
    exact: bool
    destinations_examined: int
    destinations: int
    dependencies: int | None = Field(description="Edges of the dependency graph when built")
    cycles: list[DeadlockCycle]
    risk: bool
    note: str


class FailureImpact(_Model):
    """What the failed elements cost the fabric (the ``failures`` object of the report)."""

    failures: list[str] = Field(description="The failures, e.g. 'link L7', 'rail 3'")
    links_down: list[str] = Field(description="Cables down (a failed device takes its own)")
    devices_down: list[str]
    hosts: int = Field(description="Connected GPU NICs of the healthy fabric")
    hosts_cut_off: int = Field(description="GPU NICs with no path to the largest part left")
    gpus_cut_off: int = Field(description="GPUs whose rail NIC is cut off")
    servers_cut_off: list[str] = Field(description="GPU servers none of whose NICs reaches "
                                                   "the largest part left")
    pairs: int = Field(description="Ordered GPU-NIC pairs on different servers (healthy)")
    unreachable_pairs: int = Field(description="Of those, pairs with no path left")
    bisection_gbps: float = Field(description="Bisection bandwidth with the failures")
    healthy_bisection_gbps: float
    ecmp_width: Stat | None = Field(description="Equal-cost next hops with the failures")
    healthy_ecmp_width: Stat | None
    ecmp_paths: Stat | None = Field(description="Equal-cost paths with the failures")
    healthy_ecmp_paths: Stat | None
    single_points_of_failure: list[str] = Field(
        description="Switches and single cables whose loss would now cut GPU servers off")
    new_single_points_of_failure: list[str] = Field(
        description="Of those, the ones that were not single points before the failures")


class AnalysisReport(_Model):
    """Everything :func:`fabricstudio.topology.analysis.analyze` finds."""

    design: str
    technology: str
    lossless: bool
    counts: Counts
    issues: list[Issue]
    oversubscription: Oversubscription
    bisection: Bisection
    paths: Paths
    bom: BillOfMaterials
    deadlock: Deadlock
    cost: Cost | None = Field(default=None, description="Capex, power and rack units "
                              "(docs/cost.md); None when no cost book was given")
    failures: FailureImpact | None = Field(
        default=None, description="With failed elements: what they cost (paths, bisection, "
        "issues and deadlock above are then those of the fabric without them); None when "
        "nothing is failed")

    def errors(self) -> list[Issue]:
        """Issues of severity 'error'."""
        return [i for i in self.issues if i.severity == "error"]

    def to_json(self, indent: int | None = 1) -> str:
        """The report as JSON text (stable keys)."""
        return json.dumps(self.model_dump(mode="json"), indent=indent)
