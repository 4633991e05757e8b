"""THE cable-class function: what a link is made of, end to end.

:func:`cable_class` decides, for one link, the media (passive copper, active copper, active
optical cable, multimode or single-mode fibre with transceivers, or RJ45 twisted pair), the
module plugged in at each end, the cable assembly, and whether the cable breaks one port out
into several.  The inspector, the bill of materials, the cost book and the cable plan all call
it, so they always agree.

Rules (sources in docs/cost.md):

* Management links at 10 Gb/s or less up to 100 m are RJ45 copper (1000BASE-T / 10GBASE-T).
* Up to ``DAC_MAX_M`` (3 m): passive direct-attach copper (DAC), ends built in, ~0.1 W.
* Up to ``ACC_MAX_M`` (5 m): active copper (ACC), ends built in.
* Up to ``AOC_MAX_M`` (30 m) between two single-port cages of at most 400G: an active optical
  cable (AOC).  Twin-port 800G cages have no AOC (NVIDIA offers none), so they go on:
* Beyond: a transceiver at each end plus fibre: multimode SR (50 m at 400G/800G, 100 m at
  100/200G) or single-mode DR (100 m), DR 500 m, FR (2 km), LR (10 km).
* A twin-port 800G OSFP cage carries two 400G ports (one module serves both); its cable to a
  single-port end is a breakout (800G -> 2 x 400G); a port running slower than its cage port
  rate is split with a 1:2 cable (400G -> 2 x 200G).

Model layer: stdlib only (plus the model).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from fabricstudio.model.devices import Device
from fabricstudio.model.enums import Plane, Technology
from fabricstudio.model.hardware import RJ45_MAX_GBPS, Cage, port_cage
from fabricstudio.model.links import Link

if TYPE_CHECKING:
    from fabricstudio.model.design import Design

Media = Literal["DAC", "ACC", "AOC", "MMF", "SMF", "RJ45"]

#: Reach limits (m, inclusive).
DAC_MAX_M = 3.0
ACC_MAX_M = 5.0
AOC_MAX_M = 30.0
RJ45_MAX_M = 100.0
#: Fastest single-port cage that still takes an AOC (Gb/s).
AOC_MAX_GBPS = 400.0

#: Cable classes (the BOM's ``cables_by_class`` keys): optics = transceivers + fibre.
CABLE_CLASSES = ("DAC", "ACC", "AOC", "optics", "copper")
CLASS_OF_MEDIA: dict[str, str] = {"DAC": "DAC", "ACC": "ACC", "AOC": "AOC", "MMF": "optics",
                                  "SMF": "optics", "RJ45": "copper"}
MEDIA_LABELS: dict[str, str] = {
    "DAC": "passive copper (DAC)", "ACC": "active copper (ACC)",
    "AOC": "active optical cable (AOC)", "MMF": "multimode fibre + transceivers",
    "SMF": "single-mode fibre + transceivers", "RJ45": "twisted-pair copper (RJ45)"}


@dataclass(frozen=True)
class Reach:
    """One rung of a transceiver reach ladder."""

    tier: str
    max_m: float
    media: Media
    name: str


#: Transceiver reach ladders by the fastest port rate of the link (Gb/s): 400G/800G per
#: port (NVIDIA 100G-PAM4 optics overview), 200G (HDR), 100G, 25G, 10G and below.
_LADDERS: tuple[tuple[float, tuple[Reach, ...]], ...] = (
    (800.0, (Reach("dr", 100.0, "SMF", "DR4"), Reach("dr500", 500.0, "SMF", "DR4 500 m"),
             Reach("fr", 2000.0, "SMF", "FR4"), Reach("lr", 10000.0, "SMF", "LR4"))),
    (400.0, (Reach("sr", 50.0, "MMF", "SR4"), Reach("dr", 100.0, "SMF", "DR4"),
             Reach("dr500", 500.0, "SMF", "DR4 500 m"), Reach("fr", 2000.0, "SMF", "FR4"),
             Reach("lr", 10000.0, "SMF", "LR4"))),
    (200.0, (Reach("sr", 100.0, "MMF", "SR4"), Reach("fr", 2000.0, "SMF", "FR4"),
             Reach("lr", 10000.0, "SMF", "LR4"))),
    (100.0, (Reach("sr", 100.0, "MMF", "SR4"), Reach("fr", 2000.0, "SMF", "CWDM4"),
             Reach("lr", 10000.0, "SMF", "LR4"))),
    (25.0, (Reach("sr", 100.0, "MMF", "SR"), Reach("lr", 10000.0, "SMF", "LR"))),
    (0.0, (Reach("sr", 300.0, "MMF", "SR"), Reach("lr", 10000.0, "SMF", "LR"))),
)


@dataclass(frozen=True)
class CableChoice:
    """What one link is made of.

    ``module_a`` / ``module_b`` are cost-book classes of the transceiver plugged in at each
    end (None when the cable has its ends built in); a twin-port module serves every link of
    its cage.  ``assembly`` is the cost-book class of the cable itself (DAC/ACC/AOC assembly,
    fibre patch cord or RJ45 cord).
    """

    media: Media
    cable_class: str
    reach_m: float
    within_reach: bool
    module_a: str | None
    module_b: str | None
    assembly: str
    breakout: str
    cage_a: Cage
    cage_b: Cage
    optic: str = ""

    @property
    def modules(self) -> tuple[str | None, str | None]:
        """(module at end a, module at end b)."""
        return self.module_a, self.module_b

    @property
    def short_label(self) -> str:
        """A compact line for narrow panels: 'MMF optics: 400G SR4 <-> 800G twin 2xSR4'."""
        return self.describe(compact=True)

    @property
    def label(self) -> str:
        """One line for people: 'optics: 800G OSFP twin-port 2xSR4 <-> 400G OSFP SR4 (MMF),
        breakout 800G->2x400G'."""
        return self.describe(compact=False)

    def describe(self, compact: bool) -> str:
        """The label (catalogue names) or, ``compact``, the short label."""
        if self.media == "RJ45":
            text = "RJ45 copper" if compact else "copper: RJ45 (Cat6A)"
        elif self.media in ("DAC", "ACC", "AOC"):
            text = (f"{self.media} {max(self.cage_a.gbps, self.cage_b.gbps):g}G" if compact
                    else f"{self.media}: {_cage_pair(self)}")
        else:
            name = module_short if compact else module_label
            ends = f"{name(self.module_a or '')} <-> {name(self.module_b or '')}"
            text = f"{self.media} optics: {ends}" if compact else f"optics: {ends} ({self.media})"
        if self.breakout:
            text += f", breakout {self.breakout}"
        if not self.within_reach:
            text += " - too long" if compact else f" - beyond the {self.reach_m:g} m reach"
        return text


def _module_parts(key: str) -> tuple[str, float, Reach] | None:
    """(form, cage rate, reach rung) of a transceiver class, or None."""
    parts = key.split("-")
    if len(parts) < 4 or parts[0] != "xcvr":
        return None
    form, tier = parts[1].upper(), "-".join(parts[3:])
    try:
        gbps = float(parts[2].rstrip("g"))
    except ValueError:
        return None
    port_gbps = gbps / 2 if form == "OSFP" and gbps >= 800 else gbps
    rung = next((r for r in _ladder(port_gbps) if r.tier == tier), None)
    return None if rung is None else (form, gbps, rung)


def _rate(gbps: float) -> str:
    return f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps:g}G"


@lru_cache(maxsize=512)
def module_short(key: str) -> str:
    """'xcvr-osfp-800g-sr' -> '800G twin 2xSR4'; '' for no module."""
    found = _module_parts(key) if key else None
    if found is None:
        return key
    form, gbps, rung = found
    twin = form == "OSFP" and gbps >= 800
    return f"{_rate(gbps)}{' twin 2x' if twin else ' '}{rung.name}"


def _cage_pair(choice: CableChoice) -> str:
    a, b = choice.cage_a.label, choice.cage_b.label
    return a if a == b else f"{a} <-> {b}"


def _ladder(rate_gbps: float) -> tuple[Reach, ...]:
    for above, ladder in _LADDERS:
        if rate_gbps >= above:
            return ladder
    return _LADDERS[-1][1]


def _pick(ladder: tuple[Reach, ...], length_m: float) -> tuple[Reach, bool]:
    for rung in ladder:
        if length_m <= rung.max_m:
            return rung, True
    return ladder[-1], False


def module_key(cage: Cage, tier: str) -> str:
    """Cost-book class of the transceiver for ``cage`` at reach ``tier``."""
    return f"xcvr-{cage.form.lower()}-{cage.gbps:g}g-{tier}"


@lru_cache(maxsize=512)
def module_label(key: str) -> str:
    """'xcvr-osfp-800g-sr' -> '800G OSFP twin-port 2xSR4 (MMF, 50 m)'."""
    found = _module_parts(key)
    if found is None:
        return key
    form, gbps, rung = found
    twin = form == "OSFP" and gbps >= 800
    name = f"2x{rung.name}" if twin else rung.name
    return (f"{_rate(gbps)} {form}{' twin-port' if twin else ''} {name} "
            f"({rung.media}, {rung.max_m:g} m)")


def _breakout(speed: float, head: Cage, tail: Cage) -> str:
    """'' or 'HG->NxLG': a port faster than the link is split; a multi-port cage whose far
    end is a smaller cage fans out to several devices."""
    port_rate = head.port_gbps
    if speed < port_rate and port_rate / speed >= 2:
        return f"{port_rate:g}G->{port_rate / speed:g}x{speed:g}G"
    if head.ports > 1 and tail.gbps < head.gbps:
        return f"{head.gbps:g}G->{head.ports}x{port_rate:g}G"
    return ""


def cable_class(link: Link, device_a: Device, device_b: Device,
                technology: Technology | str) -> CableChoice:
    """What ``link`` between ``device_a`` (its end ``a``) and ``device_b`` is made of."""
    return _choose(port_cage(device_a, link.a_port, technology),
                   port_cage(device_b, link.b_port, technology), float(link.speed_gbps),
                   float(link.length_m), link.plane is Plane.MANAGEMENT)


@lru_cache(maxsize=8192)
def _choose(cage_a: Cage, cage_b: Cage, speed: float, length: float,
            management: bool) -> CableChoice:
    """The decision itself: it depends on the two cages, the speed, the length and the
    network only (cached: a fabric has few distinct combinations)."""
    head, tail = (cage_a, cage_b) if cage_a.gbps >= cage_b.gbps else (cage_b, cage_a)
    breakout = _breakout(speed, head, tail)
    rj45_ends = cage_a.form == "RJ45" or cage_b.form == "RJ45"
    if rj45_ends or (management and speed <= RJ45_MAX_GBPS and length <= RJ45_MAX_M):
        return CableChoice("RJ45", "copper", RJ45_MAX_M, length <= RJ45_MAX_M, None, None,
                           "cable-rj45-cat6a", "", cage_a, cage_b)
    rate = f"{head.gbps:g}g"
    suffix = "-breakout" if breakout else ""
    copper: tuple[tuple[Media, float], ...] = (("DAC", DAC_MAX_M), ("ACC", ACC_MAX_M))
    for media, limit in copper:
        if length <= limit:
            return CableChoice(media, media, limit, True, None, None,
                               f"{media.lower()}-{rate}{suffix}", breakout, cage_a, cage_b)
    if (cage_a.ports == 1 and cage_b.ports == 1 and head.gbps <= AOC_MAX_GBPS
            and length <= AOC_MAX_M):
        return CableChoice("AOC", "AOC", AOC_MAX_M, True, None, None, f"aoc-{rate}{suffix}",
                           breakout, cage_a, cage_b)
    rung, ok = _pick(_ladder(max(cage_a.port_gbps, cage_b.port_gbps)), length)
    tier_a, tier_b = (_end_tier(cage, rung, length) for cage in (cage_a, cage_b))
    parallel = rung.tier in ("sr", "dr", "dr500") and head.gbps >= 100
    fibre = f"fibre-{rung.media.lower()}-{'mpo12' if parallel else 'lc'}"
    return CableChoice(rung.media, "optics", rung.max_m, ok, module_key(cage_a, tier_a),
                       module_key(cage_b, tier_b), fibre, breakout, cage_a, cage_b,
                       optic=rung.name)


@lru_cache(maxsize=4096)
def _end_tier(cage: Cage, rung: Reach, length_m: float) -> str:
    """The module tier at one end: the link's tier when this end's optics offer it, else the
    shortest of this end's tiers on the same media that reaches (slower ends have fewer)."""
    ladder = _ladder(cage.port_gbps)
    if any(r.tier == rung.tier for r in ladder):
        return rung.tier
    same = [r for r in ladder if r.media == rung.media and r.max_m >= length_m]
    return (same or [r for r in ladder if r.max_m >= length_m] or [ladder[-1]])[0].tier


def cable_for(design: Design, link: Link | str) -> CableChoice:
    """:func:`cable_class` of a link of ``design`` (a Link or its id)."""
    if isinstance(link, str):
        link = design.link(link)
    return cable_class(link, design.device(link.a), design.device(link.b),
                       design.fabric.technology)


@lru_cache(maxsize=512)
def assembly_label(key: str) -> str:
    """'dac-800g-breakout' -> 'DAC 800G breakout (splitter)'; fibres and RJ45 in words."""
    labels = {"cable-rj45-cat6a": "RJ45 patch cord (Cat6A)",
              "fibre-mmf-mpo12": "Multimode fibre, MPO-12 (OM4)",
              "fibre-smf-mpo12": "Single-mode fibre, MPO-12/APC",
              "fibre-mmf-lc": "Multimode fibre, LC duplex (OM4)",
              "fibre-smf-lc": "Single-mode fibre, LC duplex"}
    if key in labels:
        return labels[key]
    parts = key.split("-")
    if len(parts) >= 2 and parts[0] in ("dac", "acc", "aoc"):
        gbps = float(parts[1].rstrip("g"))
        rate = f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps:g}G"
        kind = {"dac": "passive copper DAC", "acc": "active copper ACC",
                "aoc": "active optical cable AOC"}[parts[0]]
        return f"{rate} {kind}" + (" breakout (splitter)" if "breakout" in parts else "")
    return key
