"""The simulation overlay: one scene item drawing every directed link's live state.

Per directed link (each cable twice, once per direction, side by side): a line coloured and
widened by utilisation (viridis, batched per colour bin), a queue-fill bar at the sending port,
a pulsing PAUSE sign at the held sender (so back-pressure is seen moving upstream hop by hop),
ECN triangles at the marking queue, a fading flash where packets were dropped, and a blue
square for InfiniBand credit stalls.  Positions come from the scene's link and device items;
the overlay never edits them.  ``apply_frame`` is a no-op when nothing changed.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSceneHoverEvent

from fabricstudio.model import Design
from fabricstudio.sim.metrics import LINK_FIELDS, DirectedLink, Frame
from fabricstudio.ui.simview import style

SIDE_OFFSET = 2.6  # scene units between the two directions of a cable
BOX_HALF = (34.0, 20.0)  # half size of a device box plus a margin
DROP_FADE_S = 0.8  # wall seconds a drop flash lasts
PULSE_HZ = 1.6
_FIELDS = tuple(LINK_FIELDS)


class SimOverlay(QGraphicsItem):
    """Draws the state of one frame over the canvas of ``scene`` (a FabricScene)."""

    def __init__(self, scene, design: Design) -> None:
        super().__init__()
        self._scene = scene
        self._design = design
        self.links: tuple[DirectedLink, ...] = ()
        self.state: dict[str, np.ndarray] = {}
        self.frame_time: float | None = None
        self._revision = -1
        self._bounds = QRectF()
        self._phase = 0.0
        self._flash = np.zeros(0)
        self._bins_lines: dict[int, list[QLineF]] = {}
        self.setZValue(5)
        self.setAcceptHoverEvents(True)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        scene.addItem(self)

    # ------------------------------------------------------------------ binding
    def set_design(self, design: Design) -> None:
        """Follow another design object (the window opened a new file)."""
        if design is not self._design:
            self._design = design
            self._revision = -1
    def bind(self, links: tuple[DirectedLink, ...]) -> None:
        """Show the links of a new stream (clears the shown state)."""
        self.links = links
        n = len(links)
        self.state = {name: np.zeros(n, dtype=dtype) for name, (dtype, _) in LINK_FIELDS.items()}
        self._flash = np.zeros(n)
        self._queue_ref = np.array([self._queue_reference(d) for d in links] or [1.0])[:n]
        self.frame_time = None
        self._revision = -1
        self.refresh_geometry()

    def _queue_reference(self, d: DirectedLink) -> float:
        """Bytes that fill the queue bar: the ECN Kmax of the port's speed."""
        return max(self._design.fabric.ecn.thresholds(d.speed_gbps)[1], 64 * 1024.0)

    def refresh_geometry(self) -> None:
        """Re-read link positions from the scene when the design changed."""
        revision = getattr(self._design, "revision", 0)
        if revision == self._revision and len(self.links) == getattr(self, "_n_geom", -1):
            return
        self._revision = revision
        n = len(self.links)
        geom = np.full((n, 4), np.nan)
        for i, d in enumerate(self.links):
            item = self._scene.link_items.get(d.link_id)
            if item is None:
                continue
            line = item.line()
            p, q = (line.p1(), line.p2()) if item.link.a == d.src else (line.p2(), line.p1())
            geom[i] = (p.x(), p.y(), q.x(), q.y())
        d = geom[:, 2:] - geom[:, :2]
        length = np.hypot(d[:, 0], d[:, 1])
        with np.errstate(invalid="ignore", divide="ignore"):
            unit = d / length[:, None]
        normal = np.stack([-unit[:, 1], unit[:, 0]], axis=1)
        self._geom = geom + np.hstack([normal, normal]) * SIDE_OFFSET
        self._unit = unit
        with np.errstate(divide="ignore", invalid="ignore"):
            exit_t = np.minimum(BOX_HALF[0] / np.abs(unit[:, 0]), BOX_HALF[1] / np.abs(unit[:, 1]))
        self._port = self._geom[:, :2] + unit * np.minimum(exit_t, length / 3)[:, None]
        self._n_geom = n
        finite = self._geom[np.isfinite(self._geom).all(axis=1)]
        self.prepareGeometryChange()
        if len(finite):
            xs, ys = finite[:, 0::2], finite[:, 1::2]
            self._bounds = QRectF(QPointF(xs.min(), ys.min()),
                                  QPointF(xs.max(), ys.max())).adjusted(-30, -30, 30, 30)
        else:
            self._bounds = QRectF()
        self._rebuild_lines()

    # ------------------------------------------------------------------ state
    def apply_frame(self, frame: Frame | None) -> bool:
        """Show ``frame`` (None: idle).  Returns False (and repaints nothing) if unchanged."""
        if frame is None:
            if self.frame_time is None and not any(v.any() for v in self.state.values()):
                return False
            for values in self.state.values():
                values[:] = 0
            self.frame_time = None
        else:
            same = all(np.array_equal(self.state[name], frame.links[name]) for name in _FIELDS)
            self.frame_time = frame.t
            if same:
                return False
            for name in _FIELDS:
                self.state[name][:] = frame.links[name]
            self._flash[self.state["drops"] > 0] = 1.0
        self._rebuild_lines()
        self.update()
        return True

    def advance_animation(self, dt: float) -> None:
        """Move pulses and fade flashes by ``dt`` wall seconds; repaint only if something moves."""
        self._phase = (self._phase + dt * PULSE_HZ) % 1.0
        fading = self._flash > 0
        if fading.any():
            self._flash[fading] = np.maximum(0.0, self._flash[fading] - dt / DROP_FADE_S)
        if fading.any() or (self.state and self.state["paused"].any()):
            self.update()

    def busy_links(self, threshold: float = style.BUSY_THRESHOLD) -> list[DirectedLink]:
        """Directed links currently drawn as busy."""
        return [self.links[i] for i in np.flatnonzero(self.state["utilisation"] > threshold)]

    def colour_of(self, index: int) -> QColor | None:
        """Colour link ``index`` is drawn with, or None when idle (not drawn)."""
        util = float(self.state["utilisation"][index])
        if util <= style.BUSY_THRESHOLD:
            return None
        return style.RAMP[int(style.utilisation_bins(np.array([util]))[0])]

    def paused_ends(self) -> list[tuple[str, int]]:
        """(device, port) of every sender shown held by PAUSE."""
        return [(self.links[i].src, self.links[i].src_port)
                for i in np.flatnonzero(self.state["paused"] > 0)]

    def _rebuild_lines(self) -> None:
        if not self.state:
            return
        util = self.state["utilisation"]
        busy = np.flatnonzero((util > style.BUSY_THRESHOLD) & np.isfinite(self._geom[:, 0]))
        bins = style.utilisation_bins(util[busy])
        self._bins_lines = {}
        for i, b in zip(busy.tolist(), bins.tolist()):
            x1, y1, x2, y2 = self._geom[i]
            self._bins_lines.setdefault(b, []).append(QLineF(x1, y1, x2, y2))

    # ------------------------------------------------------------------ painting
    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: D102
        if not self.state:
            return
        for b, lines in sorted(self._bins_lines.items()):
            width = style.link_width((b + 0.5) / style.BINS)
            painter.setPen(_flat_pen(style.OUTLINE, width + 1.6))
            painter.drawLines(lines)
        for b, lines in sorted(self._bins_lines.items()):
            width = style.link_width((b + 0.5) / style.BINS)
            painter.setPen(_flat_pen(style.RAMP[b], width))
            painter.drawLines(lines)
        self._paint_queues(painter)
        self._paint_markers(painter)

    def _paint_queues(self, painter: QPainter) -> None:
        fill = np.clip(self.state["queue_bytes"] / self._queue_ref, 0, 1)
        painter.setPen(QPen(QColor("#202020"), 0.8))
        for i in np.flatnonzero(fill > 0.01):
            at = self._marker_point(i, 6.0)
            if at is None:
                continue
            height = 16.0
            frame_rect = QRectF(at.x() + 5, at.y() - height / 2, 5, height)
            painter.setBrush(QBrush(QColor("white")))
            painter.drawRect(frame_rect)
            level = height * float(fill[i])
            painter.fillRect(QRectF(frame_rect.left(), frame_rect.bottom() - level, 5, level),
                             QColor("#F0E442") if fill[i] < 0.75 else style.PAUSE_COLOUR)

    def _paint_markers(self, painter: QPainter) -> None:
        pulse = 1.0 + 0.28 * math.sin(2 * math.pi * self._phase)
        for i in np.flatnonzero(self.state["ecn_marks"] > 0):
            at = self._marker_point(i, 20.0)
            if at is not None:
                marks = float(self.state["ecn_marks"][i])
                style.draw_ecn(painter, at, 3.5 + min(4.0, math.log10(1 + marks) * 2))
        for i in np.flatnonzero(self.state["credit_stall"] > 0.01):
            at = self._marker_point(i, 12.0)
            if at is not None:
                style.draw_stall(painter, at, 5.0 + 4.0 * float(self.state["credit_stall"][i]))
        for i in np.flatnonzero(self._flash > 0):
            at = self._marker_point(i, 14.0)
            if at is not None:
                style.draw_drop(painter, at, 9.0 * (2.0 - self._flash[i]), float(self._flash[i]))
        for i in np.flatnonzero(self.state["paused"] > 0):
            at = self._marker_point(i, 12.0)
            if at is not None:
                held = float(self.state["paused"][i])
                style.draw_pause(painter, at, (5.0 + 3.0 * held) * pulse)

    def _marker_point(self, index: int, along: float) -> QPointF | None:
        x, y = self._port[index]
        if not math.isfinite(x):
            return None
        ux, uy = self._unit[index]
        return QPointF(x + ux * along, y + uy * along)

    # ------------------------------------------------------------------ hover
    def nearest_link(self, pos: QPointF, tolerance: float = 6.0) -> int | None:
        """Index of the directed link drawn nearest ``pos`` (within ``tolerance``), if any."""
        if not len(self.links):
            return None
        g = self._geom
        p = np.array([pos.x(), pos.y()])
        a, b = g[:, :2], g[:, 2:]
        ab = b - a
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.clip(((p - a) * ab).sum(axis=1) / (ab * ab).sum(axis=1), 0, 1)
        dist = np.hypot(*(a + ab * t[:, None] - p).T)
        dist[~np.isfinite(dist)] = np.inf
        i = int(np.argmin(dist))
        return i if dist[i] <= tolerance else None

    def describe(self, index: int) -> str:
        """Tooltip text with the numbers of one directed link in the shown frame."""
        d, s = self.links[index], self.state
        lines = [f"<b>{d.src}:{d.src_port} &rarr; {d.dst}:{d.dst_port}</b> ({d.link_id}, "
                 f"{d.speed_gbps:g} Gb/s)",
                 f"utilisation {100 * float(s['utilisation'][index]):.1f}% "
                 f"({float(s['utilisation'][index]) * d.speed_gbps:.1f} Gb/s)",
                 f"queue {float(s['queue_bytes'][index]) / 1024:.1f} KiB",
                 f"paused {100 * float(s['paused'][index]):.1f}% of the period; "
                 f"{int(s['pauses_sent'][index])} PAUSE frames sent by {d.dst}",
                 f"ECN marks {int(s['ecn_marks'][index])}, CNPs {int(s['cnps'][index])}, "
                 f"drops {int(s['drops'][index])}",
                 f"credit stall {100 * float(s['credit_stall'][index]):.1f}%"]
        if self.frame_time is not None:
            lines.append(f"at t = {self.frame_time * 1e6:.2f} &micro;s")
        return "<br>".join(lines)

    def hoverMoveEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        index = self.nearest_link(event.pos())
        tip = self.describe(index) if index is not None else ""
        if tip != self.toolTip():
            self.setToolTip(tip)


def _flat_pen(colour: QColor, width: float) -> QPen:
    pen = QPen(colour, width)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    return pen
