"""The design model: pydantic values, the Design document and undoable commands (Qt-free)."""

from fabricstudio.model.design import Design, DesignData, format_validation_error, parse_device
from fabricstudio.model.devices import (
    DEVICE_CLASSES,
    Core,
    Device,
    GpuServer,
    Leaf,
    MgmtSwitch,
    Spine,
    StorageServer,
)
from fabricstudio.model.enums import DeviceKind, Plane, Technology
from fabricstudio.model.fabric import (
    DcqcnSettings,
    EcnSettings,
    FabricSettings,
    InfinibandSettings,
    PfcSettings,
    TcpSettings,
)
from fabricstudio.model.groups import Group, GroupKind, GroupTree
from fabricstudio.model.links import Link
from fabricstudio.model.snapshot import FrozenDesign, freeze
from fabricstudio.model.validation import DesignError

__all__ = [
    "DEVICE_CLASSES", "Core", "DcqcnSettings", "Design", "DesignData", "DesignError", "Device",
    "DeviceKind", "EcnSettings", "FabricSettings", "FrozenDesign", "GpuServer", "Group",
    "GroupKind", "GroupTree", "InfinibandSettings", "Leaf", "Link", "MgmtSwitch",
    "PfcSettings", "Plane", "Spine", "StorageServer", "TcpSettings", "Technology",
    "format_validation_error", "freeze", "parse_device",
]
