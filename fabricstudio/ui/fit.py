"""Fitting the window to a small screen: 1366 x 768 at 150 % UI scale is 910 x 512 logical
pixels (QT_SCALE_FACTOR multiplies device pixels; layouts and fonts work in logical ones).

The window's minimum size is the sum of its parts' minimums, so each part keeps a small one:
docks whose content scrolls (:class:`FittedScrollArea`), combo boxes whose minimum does not
follow their longest item (:func:`narrow_combos`), one-line labels that elide instead of
insisting on their whole text (:class:`ElidedLabel`).  tests/ui/test_window_size.py holds the
window to :data:`SMALL_SCREEN`.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QComboBox, QFrame, QLabel, QScrollArea, QSizePolicy, QWidget

#: 1366 x 768 at 150 %, in logical pixels.
SMALL_SCREEN = QSize(910, 512)


class FittedScrollArea(QScrollArea):
    """A frameless scroll area, never narrower than its widget's minimum width: rows shown
    later (a workload's own fields, e.g. the Training step's "Compute per step") widen the
    dock instead of pushing the widget's right edge (the Compare fabrics button) out of view,
    since it scrolls only vertically.  Its own minimum height is small, so a short screen
    scrolls the widget instead of growing the window.  It may start empty (a panel built at
    first use)."""

    def __init__(self, widget: QWidget | None = None) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        if widget is not None:
            self.setWidget(widget)

    def setWidget(self, widget: QWidget) -> None:  # noqa: N802 - Qt's name
        """Show ``widget`` and follow its minimum width from now on."""
        super().setWidget(widget)
        widget.installEventFilter(self)
        self.fit_width()

    def fit_width(self) -> None:
        """Minimum width = the widget's minimum width plus the vertical scroll bar."""
        widget = self.widget()
        if widget is not None:
            self.setMinimumWidth(widget.minimumSizeHint().width()
                                 + self.verticalScrollBar().sizeHint().width())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.fit_width()
        return super().eventFilter(watched, event)


def narrow_combos(root: QWidget, chars: int = 12) -> None:
    """Every combo box under ``root`` asks for room for ``chars`` characters, not for its
    longest item (the Fusion style still opens its list as wide as the items)."""
    for combo in root.findChildren(QComboBox):
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(chars)


class ElidedLabel(QLabel):
    """A one-line label that shows as much of its text as fits ("…" at the end) and the whole
    text in its tooltip; its minimum width is small."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        """Show ``text`` (whole in the tooltip)."""
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self.fontMetrics().horizontalAdvance("…") * 4,
                     super().minimumSizeHint().height())

    def shown_text(self) -> str:
        """The text as it fits the label's width now."""
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                             self.contentsRect().width())

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(self.contentsRect(), int(self.alignment()), self.shown_text())
        painter.end()
