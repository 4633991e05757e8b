"""Flat attribute views of devices, links and the design (GraphML, DOT), and back."""

from __future__ import annotations

import json
from typing import Any

from fabricstudio.interop.naming import interface_name
from fabricstudio.model import Design, Device, Link

#: Graph-level markers so an import knows the file came from FabricStudio.
GENERATOR = "fabricstudio"
ATTR_VERSION = 1


def device_attributes(device: Device) -> dict[str, Any]:
    """Every field of ``device`` as a flat str/int/float/bool mapping (``planes`` joined
    with commas; unset optional fields left out)."""
    out: dict[str, Any] = {}
    for key, value in device.model_dump(mode="json").items():
        if value is None:
            continue
        if isinstance(value, list):
            value = ",".join(str(v) for v in value)
        out[key] = value
    out["label"] = device.label
    return out


def link_attributes(design: Design, link: Link, order: int | None = None) -> dict[str, Any]:
    """Every field of ``link`` plus the interface names of both ends (and its place in the
    design's link order, so an import keeps the order)."""
    out = {k: v for k, v in link.model_dump(mode="json").items() if v is not None}
    if order is not None:
        out["order"] = order
    if link.a_port is not None:
        out["a_interface"] = interface_name(design.devices[link.a], link.a_port)
    if link.b_port is not None:
        out["b_interface"] = interface_name(design.devices[link.b], link.b_port)
    return out


def design_attributes(design: Design) -> dict[str, Any]:
    """Design-level attributes: name, description, technology, and the fabric settings and
    groups as JSON text."""
    out = {
        "generator": GENERATOR,
        "generator_version": ATTR_VERSION,
        "name": design.name,
        "description": design.description,
        "technology": design.fabric.technology.value,
        "fabric": json.dumps(design.fabric.model_dump(mode="json"), sort_keys=True),
    }
    if design.groups:
        out["groups"] = groups_json(design)
    return out


def groups_json(design: Design) -> str:
    """The design's groups (racks, scalable units, pods) as JSON text."""
    return json.dumps([g.model_dump(mode="json") for g in design.groups.values()])
