"""Parameter models of the fabric families and their validation.

The models accept any numbers of the right type so that a wizard or a command line can hold
a half-edited value; :func:`check_spec` (called by ``build_fabric``) turns every impossible
request into one :class:`BuildError` sentence that names the offending option.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from fabricstudio.model import Technology


class BuildError(ValueError):
    """A fabric cannot be built from the parameters; ``str()`` is one sentence for the user."""


#: Largest fabric the generator builds: 131,072 GPUs and as many compute NICs (a 65,536-GPU
#: rail-optimised design file is 37 MiB, so the largest stays well inside the design-file
#: limit, and building it takes well under a minute).
MAX_GPUS = 131_072
MAX_HOST_NICS = 131_072
#: Storage servers of the generated storage network (each has two storage NICs).
MAX_STORAGE_SERVERS = 16_384
#: Slowest and fastest port the generator accepts (Gb/s), as the model's links.
MIN_SPEED_GBPS, MAX_SPEED_GBPS = 0.01, 100_000.0
#: Cable lengths the generator accepts (m), as the model's links.
MIN_CABLE_M, MAX_CABLE_M = 0.1, 100_000.0


class _FabricSpecBase(BaseModel):
    """Options shared by every family."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(default="", max_length=200, description="Design name ('' = derived)")
    technology: Technology = Technology.ROCE
    gpus: int | None = Field(
        default=None, description="Total GPUs (a whole number of servers); or give servers"
    )
    servers: int | None = Field(default=None, description="GPU servers; or give gpus")
    gpus_per_server: int = 8
    nics_per_server: int = Field(default=8, description="Compute NICs per GPU server")
    nic_speed_gbps: float = 400.0
    switch_radix: int = Field(default=64, description="Ports per switch (all tiers)")
    port_speed_gbps: float = 400.0
    oversubscription: float = Field(
        default=1.0, description="Leaf down:up bandwidth ratio o (o:1); 1 = non-blocking"
    )
    storage_servers: int = Field(default=0, description="0 = no storage network")
    storage_nic_speed_gbps: float = Field(
        default=200.0, description="Storage NIC speed (one per GPU server, two per storage server)"
    )
    management: bool = Field(default=False, description="Add the out-of-band management network")
    servers_per_rack: int = Field(default=4, description="Servers per management switch (rack)")
    server_cable_m: float | None = Field(
        default=None, description="Server-to-leaf cable length; None = family default"
    )
    uplink_cable_m: float = Field(default=30.0, description="Leaf-to-spine cable length (m)")
    core_cable_m: float = Field(default=100.0, description="Spine-to-core cable length (m)")


class LeafSpineSpec(_FabricSpecBase):
    """Two-tier leaf-spine: each server's NICs on one top-of-rack leaf; spines derived."""

    topology: Literal["leaf-spine"] = "leaf-spine"
    servers_per_leaf: int | None = Field(
        default=None, description="Servers on each leaf; None = as many as the down ports take"
    )
    spines: int | None = Field(
        default=None, description="Spine count (must divide the uplinks per leaf); None = derived"
    )


class FatTreeSpec(_FabricSpecBase):
    """Three-tier k-ary fat tree (pods of edge + aggregation switches under a core).

    Without gpus/servers the tree is full size: k^3/4 host NICs for radix k.
    """

    topology: Literal["fat-tree"] = "fat-tree"
    nics_per_server: int = 8
    leaves_per_pod: int | None = Field(
        default=None, description="Edge switches per pod; None = radix/2 (the k-ary tree)"
    )


class RailOptimizedSpec(_FabricSpecBase):
    """DGX SuperPOD-style rail-optimised fabric: scalable units (SUs) of servers whose NIC i
    goes to rail leaf i of the SU; spines above, and a core tier when two tiers cannot serve."""

    topology: Literal["rail-optimized"] = "rail-optimized"
    servers_per_su: int = Field(default=32, description="Servers per scalable unit (DGX: 32)")
    tiers: Literal["auto", 2, 3] = Field(
        default="auto", description="'auto' = 2 tiers when they suffice, else 3"
    )


#: Any of the topology specs (for annotations; :data:`FabricSpec` validates).
AnySpec = LeafSpineSpec | FatTreeSpec | RailOptimizedSpec
FabricSpec = Annotated[AnySpec, Field(discriminator="topology")]
_SPEC_ADAPTER: TypeAdapter[FabricSpec] = TypeAdapter(FabricSpec)
TOPOLOGIES = ("leaf-spine", "fat-tree", "rail-optimized")


def parse_spec(data: dict[str, Any]) -> FabricSpec:
    """Validate a plain mapping (with a ``topology`` key) into a spec; BuildError on failure."""
    topology = data.get("topology")
    if topology not in TOPOLOGIES:
        raise BuildError(f"unknown topology {topology!r}: choose one of {', '.join(TOPOLOGIES)}")
    try:
        return _SPEC_ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "spec"
        raise BuildError(f"{where}: {first['msg']}") from None


def fmt_int(value: int) -> str:
    """1,024-style thousands separators for messages."""
    return f"{value:,}"


def check_spec(spec: FabricSpec) -> None:
    """Raise BuildError for the first impossible option (units and numbers in the message)."""
    _at_least(spec.switch_radix, 2, "radix", "switch_radix")
    _at_least(spec.gpus_per_server, 1, "GPUs per server", "gpus_per_server")
    _at_least(spec.nics_per_server, 1, "NICs per server", "nics_per_server")
    _at_least(spec.storage_servers, 0, "storage servers", "storage_servers")
    _at_least(spec.servers_per_rack, 1, "servers per rack", "servers_per_rack")
    for label, value in (("NIC speed", spec.nic_speed_gbps), ("port speed", spec.port_speed_gbps),
                         ("storage NIC speed", spec.storage_nic_speed_gbps)):
        if not MIN_SPEED_GBPS <= value <= MAX_SPEED_GBPS:
            raise BuildError(f"{label} {value:g} Gb/s: must be between 0.01 (10 Mb/s, the "
                             "slowest Ethernet) and 100,000")
    for label, length in (("uplink cable", spec.uplink_cable_m), ("core cable", spec.core_cable_m),
                          ("server cable", spec.server_cable_m)):
        if length is not None and not MIN_CABLE_M <= length <= MAX_CABLE_M:
            raise BuildError(f"{label} length {length:g} m: must be between 0.1 and "
                             "100,000 m")
    if not spec.oversubscription >= 1 or spec.oversubscription > 64:
        raise BuildError(f"oversubscription {spec.oversubscription:g}: must be between 1 "
                         "(non-blocking) and 64")
    if spec.nics_per_server > 64:
        raise BuildError(f"NICs per server {spec.nics_per_server}: at most 64")
    if spec.gpus_per_server > 256:
        raise BuildError(f"GPUs per server {spec.gpus_per_server}: at most 256")
    if spec.switch_radix > 1024:
        raise BuildError(f"radix {spec.switch_radix}: at most 1,024")
    for option, label in (("servers_per_leaf", "servers per leaf"), ("spines", "spine count"),
                          ("leaves_per_pod", "leaves per pod"),
                          ("servers_per_su", "servers per scalable unit")):
        count = getattr(spec, option, None)
        if count is not None:
            _at_least(count, 1, label, option)
    if spec.gpus is not None:
        _at_least(spec.gpus, 1, "GPU count", "gpus")
        _at_most(spec.gpus, MAX_GPUS, "GPU count", "gpus")
    if spec.servers is not None:
        _at_least(spec.servers, 1, "server count", "servers")
        _at_most(spec.servers, MAX_GPUS, "server count", "servers")
    _at_most(spec.storage_servers, MAX_STORAGE_SERVERS, "storage servers", "storage_servers")
    if spec.management and spec.servers_per_rack > 47:
        raise BuildError(f"servers per rack {spec.servers_per_rack}: a 48-port management "
                         "switch serves at most 47 (one port is its uplink) (servers_per_rack)")
    for option, label in (("servers_per_leaf", "servers per leaf"), ("spines", "spine count"),
                          ("leaves_per_pod", "leaves per pod"),
                          ("servers_per_su", "servers per scalable unit")):
        chosen: int | None = getattr(spec, option, None)
        if chosen is not None:
            _at_most(chosen, spec.switch_radix, f"{label} (radix {spec.switch_radix})", option)


def _at_least(value: int, minimum: int, label: str, option: str) -> None:
    if value < minimum:
        raise BuildError(f"{label} {value}: must be at least {minimum} ({option})")


def _at_most(value: int, maximum: int, label: str, option: str) -> None:
    if value > maximum:
        raise BuildError(f"{label} {fmt_int(value)}: the generator builds at most "
                         f"{fmt_int(maximum)} ({option})")


def check_size(spec: FabricSpec, servers: int) -> None:
    """BuildError when ``servers`` GPU servers exceed what the generator builds (checked
    before any device is made)."""
    gpus, nics = servers * spec.gpus_per_server, servers * spec.nics_per_server
    if gpus > MAX_GPUS:
        raise BuildError(f"{fmt_int(gpus)} GPUs: the generator builds at most "
                         f"{fmt_int(MAX_GPUS)} (give fewer gpus or servers)")
    if nics > MAX_HOST_NICS:
        raise BuildError(f"{fmt_int(servers)} servers x {spec.nics_per_server} NICs = "
                         f"{fmt_int(nics)} compute NICs: the generator builds at most "
                         f"{fmt_int(MAX_HOST_NICS)} (give fewer servers or NICs per server)")


def server_count(spec: FabricSpec, full_size: int | None = None) -> int:
    """GPU servers requested by ``gpus`` or ``servers`` (``full_size`` when neither is given)."""
    if spec.gpus is not None:
        servers, rest = divmod(spec.gpus, spec.gpus_per_server)
        if rest:
            raise BuildError(f"{fmt_int(spec.gpus)} GPUs is not a whole number of "
                             f"{spec.gpus_per_server}-GPU servers")
        if spec.servers is not None and spec.servers != servers:
            raise BuildError(f"{fmt_int(spec.gpus)} GPUs and {fmt_int(spec.servers)} servers "
                             f"disagree ({spec.gpus_per_server} GPUs per server); give one")
        check_size(spec, servers)
        return servers
    if spec.servers is not None:
        check_size(spec, spec.servers)
        return spec.servers
    if full_size is not None:
        check_size(spec, full_size)
        return full_size
    raise BuildError("give the size: gpus or servers")
