"""The presenter's rows of Edit > Preferences (its "Presenter" page): UI scale and high
contrast (the same settings as View > Presenter > UI scale / High contrast, remembered in the
window's QSettings).  Importing this module registers them with the Preferences registry."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QWidget

from fabricstudio.ui import preferences as prefs
from fabricstudio.ui.presenter.mode import UI_SCALES, PresenterMode

UI_SCALE_TIP = ("Size of the captions, gauge, legend and step counter in presenter mode (F5); "
                "Automatic: 100 % on a 1366 x 768 projector, 150 % on 1920 x 1080")
CONTRAST_TIP = "Presenter mode on a black canvas with white type (washed-out projectors)"


class UiScaleField(QComboBox):
    """Automatic or 100-200 %; ``apply()`` hands the choice to the presenter."""

    def __init__(self, presenter: PresenterMode, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.presenter = presenter
        self.setToolTip(UI_SCALE_TIP)
        self.addItem("Automatic (by screen size)", None)
        for scale in UI_SCALES:
            self.addItem(f"{scale * 100:.0f} %", scale)
        chosen = presenter.chosen_scale
        index = 0 if chosen is None else next(
            (i for i in range(1, self.count()) if abs(self.itemData(i) - chosen) < 1e-6), 0)
        self.setCurrentIndex(index)

    def apply(self) -> str:
        """Use the shown scale (never refused: every entry is valid)."""
        scale = self.currentData()
        if scale != self.presenter.chosen_scale:
            self.presenter.set_scale(scale)
        return ""


class HighContrastField(QCheckBox):
    """High contrast on or off; ``apply()`` hands it to the presenter."""

    def __init__(self, presenter: PresenterMode, parent: QWidget | None = None) -> None:
        super().__init__("Black canvas, white type", parent)
        self.presenter = presenter
        self.setToolTip(CONTRAST_TIP)
        self.setChecked(presenter.high_contrast)

    def apply(self) -> str:
        """Use the shown choice."""
        if self.isChecked() != self.presenter.high_contrast:
            self.presenter.set_high_contrast(self.isChecked())
        return ""


prefs.register(prefs.Setting(
    "presenterUiScale", "Presenter UI scale", default=None, kind="custom", page="Presenter",
    tip=UI_SCALE_TIP, widget=lambda window: UiScaleField(window.simulation.presenter)))
prefs.register(prefs.Setting(
    "presenterHighContrast", "Presenter high contrast", default=False, kind="custom",
    page="Presenter", tip=CONTRAST_TIP,
    widget=lambda window: HighContrastField(window.simulation.presenter)))
