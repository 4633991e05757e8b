"""Fabric builders: leaf-spine, k-ary fat tree and rail-optimised (DGX SuperPOD style), with
optional storage and management networks.

``build_fabric(spec)`` returns a :class:`FabricBuild` of plain model objects with stable ids
(``server1``, ``leaf1``, ``spine1``, ``core1``, ``storage1``, ``sleaf1``, ``mgmt1`` ...),
explicit ports and positions, ready for ``AddFragment`` / ``ReplaceContents`` or a file.
"""

from fabricstudio.topology.builders.build import FabricBuild, build_fabric
from fabricstudio.topology.builders.specs import (
    TOPOLOGIES,
    BuildError,
    FabricSpec,
    FatTreeSpec,
    LeafSpineSpec,
    RailOptimizedSpec,
    check_spec,
    parse_spec,
)

__all__ = [
    "TOPOLOGIES",
    "BuildError",
    "FabricBuild",
    "FabricSpec",
    "FatTreeSpec",
    "LeafSpineSpec",
    "RailOptimizedSpec",
    "build_fabric",
    "check_spec",
    "parse_spec",
]
