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
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSceneHoverEvent

from fabricstudio.model import Design, FabricSettings, footprint
from fabricstudio.model.units import format_time
from fabricstudio.sim.metrics import LINK_FIELDS, LINK_METRICS, DirectedLink, Frame, format_value
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.simview import style

SIDE_OFFSET = 2.6  # scene units between the two directions of a cable
#: Where links leave a device on the canvas: half the name's width (less its rounded ends),
#: half the tile's height (model.footprint); downwards, the bottom of the name box.
BOX_HALF = (footprint.LABEL_WIDTH / 2 - 8.0, footprint.TILE_HALF)
DROP_FADE_S = 0.8  # wall seconds a drop flash lasts
PULSE_HZ = 1.6
QUEUE_BAR = 16.0  # scene height of a full queue bar
OUTLINE_FROM_BIN = 12  # light (yellow-green) colours get a dark outline on white
_FIELDS = tuple(LINK_FIELDS)
#: Markers are drawn at least this big on screen (px of a unit-size marker), so a PAUSE sign
#: stays visible when a large fabric is zoomed out, and at most MARKER_GROWTH x their size.
MARKER_MIN_PX = 1.6
MARKER_GROWTH = 4.0


def queue_reference(fabric: FabricSettings, speed_gbps: float) -> float:
    """Bytes that fill a port's queue bar: the ECN Kmax at its speed (at least 64 KiB)."""
    return max(fabric.ecn.thresholds(speed_gbps)[1], 64 * 1024.0)


class SimOverlay(QGraphicsItem):
    """Draws the state of one frame over the canvas of ``scene`` (a FabricScene)."""

    def __init__(self, scene: FabricScene, design: Design) -> None:
        super().__init__()
        self._scene = scene
        self._n_geom = -1
        self._design = design
        self.links: tuple[DirectedLink, ...] = ()
        self.state: dict[str, np.ndarray] = {}
        self.frame_time: float | None = None
        self._revision = -1
        self._bounds = QRectF()
        self._phase = 0.0
        self._flash = np.zeros(0)
        self._bins_lines: dict[int, list[QLineF]] = {}
        self._paths: dict[str, QPainterPath | None] = {}
        self._drop_paths: list[tuple[float, QPainterPath]] = []
        self._drop_levels = np.zeros(0, dtype=np.int8)
        self._queue_frames: list[QRectF] = []
        self._queue_low: list[QRectF] = []
        self._queue_high: list[QRectF] = []
        self._covers: dict[int, list[QLineF]] = {}
        self._marker_scale = 1.0
        self.setZValue(5)
        self.setAcceptHoverEvents(True)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        scene.addItem(self)
        #: PAUSE / ECN / drop / credit markers and queue bars, above the device tiles and
        #: their labels (the link lines stay below the devices).
        self.markers = MarkerLayer(self)
        scene.addItem(self.markers)

    # ------------------------------------------------------------------ binding
    def set_design(self, design: Design) -> None:
        """Follow another design object (the window opened a new file)."""
        if design is not self._design:
            self._design = design
            self._revision = -1
    def bind(self, links: tuple[DirectedLink, ...], fabric: FabricSettings) -> None:
        """Show the links of a new stream (clears the shown state); queue bars are scaled by
        ``fabric``, the settings the run used (``MetricStream.fabric``)."""
        self.links = links
        n = len(links)
        self.state = {name: np.zeros(n, dtype=dtype) for name, (dtype, _) in LINK_FIELDS.items()}
        self._flash = np.zeros(n)
        self._queue_ref = np.array([queue_reference(fabric, d.speed_gbps) for d in links]
                                   or [1.0])[:n]
        self.frame_time = None
        self._revision = -1
        self.refresh_geometry()

    def refresh_geometry(self) -> None:
        """Re-read link positions from the scene when the design changed."""
        revision = self._design.revision
        if revision == self._revision and len(self.links) == self._n_geom:
            return
        self._revision = revision
        n = len(self.links)
        geom = np.full((n, 4), np.nan)
        hidden_planes = self._scene.hidden_planes
        covers: dict[int, dict[str, QLineF]] = {}
        for i, d in enumerate(self.links):
            item = self._scene.link_items.get(d.link_id)
            if item is None or item.link.plane in hidden_planes:
                continue
            line = item.line()
            p, q = (line.p1(), line.p2()) if item.link.a == d.src else (line.p2(), line.p1())
            geom[i] = (p.x(), p.y(), q.x(), q.y())
            width = int(math.ceil(item.pen().widthF())) + 2
            covers.setdefault(width, {})[d.link_id] = QLineF(line)
        self._covers = {width: list(lines.values()) for width, lines in covers.items()}
        d = geom[:, 2:] - geom[:, :2]
        length = np.hypot(d[:, 0], d[:, 1])
        with np.errstate(invalid="ignore", divide="ignore"):
            unit = d / length[:, None]
        normal = np.stack([-unit[:, 1], unit[:, 0]], axis=1)
        self._geom = geom + np.hstack([normal, normal]) * SIDE_OFFSET
        self._unit = unit
        # downwards a link leaves under the name box, not the tile: markers and queue bars
        # must not cover the device's name (su1-rail1's, which the demo's captions quote)
        below = np.where(unit[:, 1] > 0, footprint.NAME_BOTTOM + QUEUE_BAR / 2 + 2.0,
                         BOX_HALF[1])
        with np.errstate(divide="ignore", invalid="ignore"):
            exit_t = np.minimum(BOX_HALF[0] / np.abs(unit[:, 0]), below / np.abs(unit[:, 1]))
        self._port = self._geom[:, :2] + unit * np.minimum(exit_t, length / 3)[:, None]
        self._n_geom = n
        finite = self._geom[np.isfinite(self._geom).all(axis=1)]
        self.prepareGeometryChange()
        self.markers.prepareGeometryChange()
        if len(finite):
            xs, ys = finite[:, 0::2], finite[:, 1::2]
            self._bounds = QRectF(QPointF(xs.min(), ys.min()),
                                  QPointF(xs.max(), ys.max())).adjusted(-30, -30, 30, 30)
        else:
            self._bounds = QRectF()
        self._rebuild()

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
        self._rebuild()
        self.update()
        self.markers.update()
        return True

    def advance_animation(self, dt: float) -> None:
        """Move pulses and fade flashes by ``dt`` wall seconds; repaint only if something moves."""
        self._phase = (self._phase + dt * PULSE_HZ) % 1.0
        fading = self._flash > 0
        if fading.any():
            self._flash[fading] = np.maximum(0.0, self._flash[fading] - dt / DROP_FADE_S)
            self._build_drops(force=False)
        if fading.any() or self._paths.get("pause") is not None:
            self.markers.update()

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

    # ------------------------------------------------------------------ batching
    def _rebuild(self) -> None:
        """Turn the shown state into a few batched primitives (lines per colour, paths)."""
        if not self.state:
            return
        placed = np.isfinite(self._geom[:, 0])
        util = self.state["utilisation"]
        busy = np.flatnonzero((util > style.BUSY_THRESHOLD) & placed)
        self._bins_lines = {}
        for i, b in zip(busy.tolist(), style.utilisation_bins(util[busy]).tolist(), strict=True):
            self._bins_lines.setdefault(b, []).append(QLineF(*self._geom[i]))
        self._build_markers(placed)

    def _build_markers(self, placed: np.ndarray | None = None) -> None:
        """The marker paths at the current marker scale (sized for the zoom level)."""
        if placed is None:
            placed = np.isfinite(self._geom[:, 0])
        self._build_queues(placed)
        s = self.state
        k = self._marker_scale
        self._paths = {
            "ecn": self._marker_path(np.flatnonzero((s["ecn_marks"] > 0) & placed), 20.0,
                                     lambda at, i: _triangle(at, k * (3.5 + min(
                                         4.0, math.log10(1 + float(s["ecn_marks"][i])) * 2))),
                                     s["ecn_marks"], 2 * 7.5 * k),
            "stall": self._marker_path(np.flatnonzero((s["credit_stall"] > 0.01) & placed), 12.0,
                                       lambda at, i: _square(at, k * (5.0 + 4.0 * float(
                                           s["credit_stall"][i]))),
                                       s["credit_stall"], 3 * 9.0 * k),
            "pause": self._marker_path(np.flatnonzero((s["paused"] > 0) & placed), 18.0,
                                       lambda at, i: _octagon(at, k * (5.0 + 3.0 * float(
                                           s["paused"][i]))),
                                       s["paused"], 2 * 8.0 * k),
        }
        self._build_drops()

    def set_marker_scale(self, lod: float) -> None:
        """Size the markers for a view scale ``lod`` (screen px per scene unit): unit size
        on screen at least MARKER_MIN_PX, growing up to MARKER_GROWTH x when zoomed out."""
        wanted = min(max(1.0, MARKER_MIN_PX / max(lod, 1e-6)), MARKER_GROWTH)
        if abs(wanted - self._marker_scale) > 0.05 * self._marker_scale:
            self._marker_scale = wanted
            if self.state:
                self._build_markers()

    def _build_queues(self, placed: np.ndarray) -> None:
        fill = np.clip(self.state["queue_bytes"] / self._queue_ref, 0, 1)
        chosen = np.flatnonzero((fill > 0.01) & placed)
        k = self._marker_scale
        full, width = QUEUE_BAR * k, 5.0 * k
        at = self._port[chosen] + self._unit[chosen] * 6.0
        left, top = at[:, 0] + 5.0, at[:, 1] - full / 2  # beside the port
        level = full * fill[chosen]
        high = fill[chosen] >= 0.75
        self._queue_frames = [QRectF(x, y, width, full)
                              for x, y in zip(left.tolist(), top.tolist(), strict=True)]
        bars = [(QRectF(x, y + full - h, width, h), hi) for x, y, h, hi in
                zip(left.tolist(), top.tolist(), level.tolist(), high.tolist(), strict=True)]
        self._queue_low = [r for r, hi in bars if not hi]
        self._queue_high = [r for r, hi in bars if hi]

    def _build_drops(self, force: bool = True) -> None:
        """Drop flashes grouped in four fading strengths (rebuilt when a group changes)."""
        levels = np.ceil(self._flash * 4).astype(np.int8)
        if not force and np.array_equal(levels, self._drop_levels):
            return
        self._drop_levels = levels
        self._drop_paths = []
        for step in (4, 3, 2, 1):
            level = step / 4
            chosen = np.flatnonzero((levels == step) & np.isfinite(self._geom[:, 0]))
            if len(chosen):
                size = 9.0 * (2.0 - level) * self._marker_scale
                self._drop_paths.append((level, self._marker_path(
                    chosen, 14.0, lambda at, i, size=size: _star(at, size))))

    def _marker_path(self, indices, along: float, shape, values=None,
                     spacing: float = 0.0) -> QPainterPath | None:
        """The markers of ``indices`` ``along`` their links.  With ``values`` and a
        ``spacing`` (scene units, the largest marker's width): where markers would overlap,
        only the one of the largest value is drawn (an InfiniBand incast stalls every link
        toward the hot port, and sixty overlapping rings hid the devices and their names)."""
        along *= max(1.0, self._marker_scale ** 0.5)  # bigger markers sit a bit further out
        if not len(indices):
            return None
        points = {i: self._marker_point(i, along) for i in indices.tolist()}
        if values is not None and spacing > 0:
            points = _declutter(points, values, spacing)
        path = QPainterPath()
        for i, at in points.items():
            path.addPath(shape(at, i))
        return path

    def marker_count(self, kind: str) -> int:
        """How many markers of ``kind`` ("ecn", "stall", "pause") are drawn now."""
        path = self._paths.get(kind)
        if path is None:
            return 0
        per = 2 if kind == "stall" else 1  # a stall is a square and its ring
        return len(path.toSubpathPolygons()) // per

    # ------------------------------------------------------------------ painting
    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: D102
        if not self.state:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for width, lines in self._covers.items():  # idle links: neutral, over the design colours
            painter.setPen(_flat_pen(self._idle_colour(), width))
            painter.drawLines(lines)
        for b, lines in sorted(self._bins_lines.items()):
            if b >= OUTLINE_FROM_BIN:
                painter.setPen(_flat_pen(style.OUTLINE, style.link_width((b + 0.5) / style.BINS)
                                         + 2.0))
                painter.drawLines(lines)
        for b, lines in sorted(self._bins_lines.items()):
            painter.setPen(_flat_pen(style.RAMP[b], style.link_width((b + 0.5) / style.BINS)))
            painter.drawLines(lines)

    def paint_markers(self, painter: QPainter, lod: float) -> None:
        """Queue bars and event markers (called by the marker layer, above the devices)."""
        if not self.state:
            return
        self.set_marker_scale(lod)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        if self._queue_frames:
            painter.setPen(QPen(QColor("#202020"), 0.8))
            painter.setBrush(QBrush(QColor("white")))
            painter.drawRects(self._queue_frames)
            painter.setPen(Qt.PenStyle.NoPen)
            for rects, colour in ((self._queue_low, QColor("#F0E442")),
                                  (self._queue_high, style.PAUSE_COLOUR)):
                if rects:
                    painter.setBrush(QBrush(colour))
                    painter.drawRects(rects)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self._paint_markers(painter)

    def _idle_colour(self) -> QColor:
        return style.IDLE_DARK if self._scene.theme.dark else style.IDLE_LIGHT

    def _paint_markers(self, painter: QPainter) -> None:
        paths = self._paths
        if paths.get("ecn") is not None:
            painter.setPen(QPen(QColor(60, 40, 0), 0.8))
            painter.setBrush(QBrush(style.ECN_COLOUR))
            painter.drawPath(paths["ecn"])
        if paths.get("stall") is not None:
            pen = QPen(style.STALL_COLOUR, 2.0)
            painter.setPen(pen)
            painter.setBrush(QBrush(QColor("white")))
            painter.drawPath(paths["stall"])
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for level, path in self._drop_paths:
            colour = QColor(style.DROP_COLOUR)
            colour.setAlphaF(level)
            painter.setPen(QPen(colour, 2.2 * self._marker_scale ** 0.5))
            painter.drawPath(path)
        if paths.get("pause") is not None:
            halo = QColor(style.PAUSE_COLOUR)
            pulse = 0.5 + 0.5 * math.sin(2 * math.pi * self._phase)
            halo.setAlphaF(0.15 + 0.55 * pulse)
            painter.setPen(QPen(halo, (2.0 + 3.0 * pulse) * self._marker_scale ** 0.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(paths["pause"])
            painter.setPen(QPen(QColor("white"), 1.0))
            painter.setBrush(QBrush(style.PAUSE_COLOUR))
            painter.drawPath(paths["pause"])
            painter.setPen(QPen(QColor("white"), 1.6 * self._marker_scale))
            painter.drawLines(self._pause_bars())

    def _pause_bars(self) -> list[QLineF]:
        k = self._marker_scale
        bars = []
        along = 18.0 * max(1.0, k ** 0.5)
        for i in np.flatnonzero((self.state["paused"] > 0)
                                & np.isfinite(self._geom[:, 0])).tolist():
            at = self._marker_point(i, along)
            for dx in (-1.6 * k, 1.6 * k):
                bars.append(QLineF(at.x() + dx, at.y() - 2.6 * k, at.x() + dx, at.y() + 2.6 * k))
        return bars

    def _marker_point(self, index: int, along: float) -> QPointF:
        x, y = self._port[index]
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

    def queue_scale(self) -> np.ndarray:
        """Bytes that fill each directed link's queue bar (from the run's fabric settings)."""
        return self._queue_ref.copy()

    def describe(self, index: int) -> str:
        """Tooltip text with the numbers of one directed link in the shown frame."""
        d, s = self.links[index], self.state
        lines = [f"<b>{d.src}:{d.src_port} &rarr; {d.dst}:{d.dst_port}</b> ({d.link_id}, "
                 f"{d.speed_gbps:g} Gb/s)"]
        for field in LINK_METRICS:  # every field of the frame, as the metric spec words it
            value = float(s[field.name][index])
            line = f"{field.label} {format_value(field, value)}"
            if field.name == "utilisation":
                line += f" ({value * d.speed_gbps:.1f} Gb/s)"
            lines.append(line)
        if self.frame_time is not None:
            lines.append(f"at t = {format_time(self.frame_time)}")
        return "<br>".join(lines)

    def hoverMoveEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        index = self.nearest_link(event.pos())
        tip = self.describe(index) if index is not None else ""
        if tip != self.toolTip():
            self.setToolTip(tip)


class MarkerLayer(QGraphicsItem):
    """The overlay's markers and queue bars, stacked above the device tiles and labels."""

    def __init__(self, overlay: SimOverlay) -> None:
        super().__init__()
        self._overlay = overlay
        self.setZValue(12)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        # markers grow when zoomed out: leave room for the largest
        return self._overlay.boundingRect().adjusted(-60, -60, 60, 60)

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: D102
        self._overlay.paint_markers(
            painter, option.levelOfDetailFromTransform(painter.worldTransform()))


def _flat_pen(colour: QColor, width: float) -> QPen:
    """A cosmetic pen (``width`` in screen pixels, so links stay visible when zoomed out)."""
    pen = QPen(colour, width)
    pen.setCosmetic(True)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    return pen


def _declutter(points: dict[int, QPointF], values: np.ndarray,
               spacing: float) -> dict[int, QPointF]:
    """Of markers closer than ``spacing`` to each other, the one of the largest value (then
    the lowest index); the others are left out."""
    kept: dict[int, QPointF] = {}
    for i in sorted(points, key=lambda j: (-float(values[j]), j)):
        at = points[i]
        if all((at.x() - p.x()) ** 2 + (at.y() - p.y()) ** 2 >= spacing ** 2
               for p in kept.values()):
            kept[i] = at
    return dict(sorted(kept.items()))


def _octagon(at: QPointF, radius: float) -> QPainterPath:
    path = QPainterPath()
    path.addPolygon(QPolygonF([at + QPointF(radius * c, radius * s) for c, s in _OCTAGON]))
    path.closeSubpath()
    return path


def _triangle(at: QPointF, size: float) -> QPainterPath:
    path = QPainterPath()
    path.addPolygon(QPolygonF([at + QPointF(0, -size), at + QPointF(size * 0.9, size * 0.6),
                               at + QPointF(-size * 0.9, size * 0.6)]))
    path.closeSubpath()
    return path


def _square(at: QPointF, size: float) -> QPainterPath:
    path = QPainterPath()
    path.addRect(QRectF(at.x() - size / 2, at.y() - size / 2, size, size))
    path.addEllipse(at, size, size)
    return path


def _star(at: QPointF, size: float) -> QPainterPath:
    path = QPainterPath()
    for c, s in _STAR:
        path.moveTo(at.x() - size * c, at.y() - size * s)
        path.lineTo(at.x() + size * c, at.y() + size * s)
    return path


_OCTAGON = [(math.cos(a), math.sin(a)) for a in
            (math.pi / 8 + k * math.pi / 4 for k in range(8))]
_STAR = [(math.cos(a), math.sin(a)) for a in (0, math.pi / 4, math.pi / 2, 3 * math.pi / 4)]
