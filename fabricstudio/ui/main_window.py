"""The main window: the canvas with the design, menus and a status bar."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QPainter
from PySide6.QtWidgets import QGraphicsView, QMainWindow

from fabricstudio.model import Design
from fabricstudio.topology.layout import auto_layout, needs_layout
from fabricstudio.ui.canvas.scene import FabricScene


class MainWindow(QMainWindow):
    """FabricStudio's main window."""

    def __init__(self, design: Design | None = None, path: str | None = None) -> None:
        super().__init__()
        self.design = design or Design()
        self.path = path
        if needs_layout(self.design):
            self.design.move_devices(auto_layout(list(self.design.devices.values())))
        self.scene = FabricScene(self.design, self)
        self.view = QGraphicsView(self.scene, self)
        self.view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.view.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setCentralWidget(self.view)
        self._build_menus()
        self.resize(1280, 800)
        self._update_title()
        self.statusBar().showMessage(
            f"{len(self.design.devices)} devices, {len(self.design.links)} links - "
            f"{self.design.fabric.technology.label}")

    def _build_menus(self) -> None:
        view_menu = self.menuBar().addMenu("&View")
        fit = QAction("&Fit to view", self, shortcut=QKeySequence("F"))
        fit.triggered.connect(self.fit_to_view)
        view_menu.addAction(fit)

    def fit_to_view(self) -> None:
        """Zoom to show the whole design."""
        rect = self.scene.itemsBoundingRect().adjusted(-40, -40, 40, 40)
        self.view.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self.fit_to_view()

    def _update_title(self) -> None:
        name = Path(self.path).name if self.path else self.design.name
        self.setWindowTitle(f"{name} - FabricStudio")
