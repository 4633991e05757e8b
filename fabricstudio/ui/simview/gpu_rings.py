"""GPU state on the canvas: a thick arc around every GPU server, one segment per GPU, coloured
by what the GPU does in the shown frame (computing, communicating, waiting on the network,
idle; fabricstudio.sim.activity).  The arc is open at the bottom so the server's label stays
readable, and drawn above the device tiles so nothing hides it.  When servers are too small on
screen for segments, the whole arc takes the colour of most of its GPUs.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem

from fabricstudio.sim.activity import STATE_LABELS, GpuState, GpuTimeline

#: Colour of each GpuState (Okabe-Ito: readable with the common colour-vision deficiencies).
STATE_COLOURS = (QColor("#009E73"), QColor("#56B4E9"), QColor("#D55E00"), QColor("#8A8F98"))
INNER, OUTER = 30.0, 39.0  # arc radii around the 40-unit device tile (scene units)
SPAN = 240.0  # degrees of arc; the open part faces down, where the label is
GAP = 4.0  # degrees between two GPUs' segments
#: Below this on-screen arc width (px) segments merge into one arc of the majority state.
SEGMENTS_FROM_PX = 3.0


def state_colour(state: int) -> QColor:
    """The colour of a GpuState value."""
    return STATE_COLOURS[int(state)]


class GpuRings(QGraphicsItem):
    """Draws the GPU states of one frame of a :class:`GpuTimeline` around the GPU servers of
    ``scene`` (a FabricScene; positions come from its device items)."""

    def __init__(self, scene) -> None:
        super().__init__()
        self._scene = scene
        self.timeline: GpuTimeline | None = None
        self.states = np.zeros(0, dtype=np.int8)
        self._bounds = QRectF()
        self.setZValue(11)  # above the device tiles (z 10): the badge must not hide the state
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        scene.addItem(self)
        self.hide()

    def bind(self, timeline: GpuTimeline | None) -> None:
        """Show the GPUs of ``timeline`` (None hides the rings)."""
        self.timeline = timeline
        self.states = np.full(len(timeline.gpus) if timeline is not None else 0, GpuState.IDLE,
                              dtype=np.int8)
        self._update_bounds()
        self.setVisible(False)

    def show_frame(self, index: int, done: bool = False) -> None:
        """Show the states of frame ``index`` (no repaint when they did not change);
        ``done``: the run is over at the shown time, every GPU idle."""
        timeline = self.timeline
        if timeline is None or not len(timeline) or index < 0:
            self.setVisible(False)
            return
        states = timeline.states(index)
        if done:
            states[:] = GpuState.IDLE
        self.setVisible(True)
        if not np.array_equal(states, self.states):
            self.states = states
            self._update_bounds()
            self.update()

    def _centres(self) -> list[tuple[QPointF, np.ndarray]]:
        timeline = self.timeline
        if timeline is None:
            return []
        items = self._scene.device_items
        out = []
        for k, server in enumerate(timeline.servers):
            item = items.get(server)
            if item is None or not item.isVisible():
                continue
            out.append((item.pos(), self.states[timeline.server_index == k]))
        return out

    def _update_bounds(self) -> None:
        rect = QRectF()
        for centre, _states in self._centres():
            rect = rect.united(QRectF(centre.x() - OUTER, centre.y() - OUTER, 2 * OUTER,
                                      2 * OUTER))
        self.prepareGeometryChange()
        self._bounds = rect.adjusted(-2, -2, 2, 2)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: D102
        centres = self._centres()
        if not centres:
            return
        scale = option.levelOfDetailFromTransform(painter.worldTransform())
        width = OUTER - INNER
        merged = width * scale < SEGMENTS_FROM_PX
        paths = [QPainterPath() for _ in STATE_COLOURS]
        radius = (INNER + OUTER) / 2
        first = 270 - (180 - SPAN / 2)  # lower left; the arc runs clockwise over the top
        for centre, states in centres:
            if not len(states):
                continue
            if merged:
                majority = int(np.bincount(states.astype(np.intp),
                                           minlength=len(STATE_COLOURS)).argmax())
                _arc(paths[majority], centre, radius, first, -SPAN)
                continue
            step = SPAN / len(states)
            gap = min(GAP, step * 0.3)
            for k, state in enumerate(states.tolist()):
                _arc(paths[state], centre, radius, first - k * step - gap / 2, -(step - gap))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        outline = QPen(QColor(0, 0, 0, 110), width + 2.0)
        outline.setCapStyle(Qt.PenCapStyle.FlatCap)
        painter.setPen(outline)
        for path in paths:
            if not path.isEmpty():
                painter.drawPath(path)
        for colour, path in zip(STATE_COLOURS, paths, strict=True):
            if path.isEmpty():
                continue
            pen = QPen(colour, width)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            painter.setPen(pen)
            painter.drawPath(path)


def _arc(path: QPainterPath, centre: QPointF, radius: float, start: float, sweep: float) -> None:
    """Add an arc (degrees, Qt's counter-clockwise convention) to ``path``."""
    rect = QRectF(centre.x() - radius, centre.y() - radius, 2 * radius, 2 * radius)
    path.arcMoveTo(rect, start)
    path.arcTo(rect, start, sweep)


__all__ = ["STATE_COLOURS", "STATE_LABELS", "GpuRings", "state_colour"]
