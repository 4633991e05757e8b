"""Connect selection: wire the selected devices in one step (rail-wise, round-robin or fill
free ports), with a preview of what will be added before anything changes."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QRadioButton,
    QVBoxLayout,
)

from fabricstudio.model import Design
from fabricstudio.topology.bulk_wiring import STRATEGIES, WiringPlan, plan_wiring


class ConnectDialog(QDialog):
    """Choose a strategy; the preview counts the links; Connect applies ``plan``."""

    def __init__(self, design: Design, device_ids: list[str], parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Connect selection")
        self.design = design
        self.device_ids = list(device_ids)
        self.plan: WiringPlan = WiringPlan("rail")
        intro = QLabel(f"Wire the {len(self.device_ids):,} selected devices: each device of "
                       "the lowest tier to the selected switches one tier up, network by "
                       "network.")
        intro.setWordWrap(True)
        self.buttons_group = QButtonGroup(self)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        self.strategy_buttons: dict[str, QRadioButton] = {}
        for key, text in STRATEGIES.items():
            button = QRadioButton(text)
            self.buttons_group.addButton(button)
            self.strategy_buttons[key] = button
            layout.addWidget(button)
            button.toggled.connect(lambda on: on and self._update())
        self.preview = QLabel()
        self.preview.setObjectName("preview")
        self.preview.setWordWrap(True)
        self.preview.setStyleSheet("font-weight: 600;")
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        layout.addWidget(self.preview)
        layout.addWidget(self.notes)
        self.box = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.connect_button = self.box.addButton("Connect",
                                                 QDialogButtonBox.ButtonRole.AcceptRole)
        self.box.accepted.connect(self.accept)
        self.box.rejected.connect(self.reject)
        layout.addWidget(self.box)
        self.setMinimumWidth(420)
        self.strategy_buttons["rail"].setChecked(True)

    def strategy(self) -> str:
        """The chosen strategy's key."""
        return next(k for k, b in self.strategy_buttons.items() if b.isChecked())

    def _update(self) -> None:
        self.plan = plan_wiring(self.design, self.device_ids, self.strategy())
        self.preview.setText(self.plan.describe(self.design))
        self.notes.setText("\n".join(f"· {note}" for note in self.plan.notes))
        self.notes.setVisible(bool(self.plan.notes))
        self.connect_button.setEnabled(bool(self.plan.links))
