"""The inspector's rack row: which rack a device stands in and at which unit, with the unit
editable for devices in a rack group (one undo step; a unit outside the rack or on another
device's units is refused with the reason).  The cable plan reads the same placement
(:func:`fabricstudio.topology.racks.rack_plan`)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QWidget

from fabricstudio.model import Design, DesignError
from fabricstudio.model.commands import SetGroupProperties
from fabricstudio.model.groups import MAX_RACK_U, STANDARD_RACK_U, GroupKind
from fabricstudio.topology.racks import device_height, rack_plan
from fabricstudio.ui.undo import DesignUndoStack


class RackPlacement(QWidget):
    """Rack name and lowest unit (U, 1 = bottom) of one device."""

    def __init__(self, design: Design, stack: DesignUndoStack,
                 on_error: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.design, self.stack, self.on_error = design, stack, on_error
        self.device_id = ""
        self.rack_id: str | None = None
        self.rack = QLabel()
        self.unit = QSpinBox()
        self.unit.setPrefix("U")
        self.unit.setRange(1, MAX_RACK_U)
        self.unit.setKeyboardTracking(False)
        self.unit.setToolTip("Lowest rack unit the device occupies (1 = bottom); the cable "
                             "plan lists it")
        self.unit.editingFinished.connect(self.commit)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.rack, 1)
        row.addWidget(self.unit)

    def show_device(self, device_id: str) -> None:
        """Show where ``device_id`` stands."""
        self.device_id = device_id
        parent = self.design.group_of(device_id)
        group = self.design.group(parent) if parent is not None else None
        slot = rack_plan(self.design).slots.get(device_id)
        self.unit.blockSignals(True)
        if group is not None and group.kind is GroupKind.RACK:
            self.rack_id = group.id
            height = group.height_u or STANDARD_RACK_U
            self.unit.setRange(1, height)
            self.unit.setEnabled(True)
            self.rack.setText(f"{group.label} ({height}U)")
            self.rack.setToolTip("")
        else:
            self.rack_id = None
            self.unit.setEnabled(False)
            self.rack.setText(f"{slot.rack} (derived)" if slot else "-")
            self.rack.setToolTip("Not in a rack group: the cable plan derives the rack from "
                                 "the wiring. Group the devices as a rack to place them.")
        if slot is not None:
            self.unit.setValue(slot.position)
        self.unit.blockSignals(False)

    def commit(self) -> None:
        """Place the device at the spin box's unit (one undo step)."""
        if self.rack_id is None or not self.device_id:
            return
        group = self.design.group(self.rack_id)
        unit = self.unit.value()
        plan = rack_plan(self.design)
        current = plan.slots.get(self.device_id)
        if current is not None and current.position == unit:
            return
        height = device_height(self.design.device(self.device_id))
        mine = set(range(unit, unit + height))
        top = group.height_u or STANDARD_RACK_U
        try:
            if max(mine) > top:
                raise DesignError(f"{self.device_id} is {height}U tall: at U{unit} it would "
                                  f"stick out of the {top}U rack")
            for other in group.members:
                slot = plan.slots.get(other)
                if other == self.device_id or slot is None:
                    continue
                if mine & set(range(slot.position, slot.position + slot.height)):
                    raise DesignError(f"U{unit}-U{max(mine)} overlaps {other} "
                                      f"(U{slot.position}-U{slot.position + slot.height - 1})")
            positions = {**group.u_positions, self.device_id: unit}
            self.stack.run(SetGroupProperties([self.rack_id], {"u_positions": positions},
                                              label=f"Place {self.device_id} at U{unit}"))
        except DesignError as exc:
            self.on_error(str(exc))
            self.show_device(self.device_id)
