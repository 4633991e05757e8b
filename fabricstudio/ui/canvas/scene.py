"""The fabric scene: mirrors a Design as items, following the design's change signals.

Items never change the design.  A finished drag is turned into ONE ``MoveDevices`` command
handed to ``commit`` (the window's undo stack); the scene catches up through the signals.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

from fabricstudio.model import Design, Plane
from fabricstudio.model.commands import Command, MoveDevices
from fabricstudio.ui.canvas.items.device_item import DeviceItem
from fabricstudio.ui.canvas.items.link_batch import LinkBatchItem
from fabricstudio.ui.canvas.items.link_item import THIN_BELOW_LOD, LinkItem
from fabricstudio.ui.model_signals import ModelSignals
from fabricstudio.ui.theme import DARK, Theme

FAN_SPACING = 7.0
#: More parallel links than this between two devices (same network) are drawn as a bundle.
BUNDLE_ABOVE = 4
GRID = 15.0
#: With more bundles than this, their count labels only show on hover or selection.
MAX_BUNDLE_LABELS = 12


class FabricScene(QGraphicsScene):
    """Scene showing one Design; items are created, updated and removed from its signals.

    Public: ``device_items`` and ``link_items`` (id -> item), ``theme``, ``snap_to_grid``,
    ``port_badges`` (devices show their used/total port badge: editing chrome, off while
    presenting and in replays), ``commit`` (callable applying a model Command; defaults to
    applying it directly).
    """

    #: Emitted with the new Theme after :meth:`set_theme`.
    theme_changed = Signal(object)

    def __init__(self, design: Design, parent=None) -> None:
        super().__init__(parent)
        self.design = design
        self.device_items: dict[str, DeviceItem] = {}
        self.link_items: dict[str, LinkItem] = {}
        self.theme: Theme = DARK
        self.snap_to_grid = True
        self.port_badges = True
        self.colour_by = "speed"
        self.hidden_planes: set[Plane] = set()
        self.commit: Callable[[Command], None] = lambda command: command.do(self.design)
        self._rerouting_live = True
        #: True while the view is zoomed out far enough for batched link drawing.
        self.batching = False
        self._batch: LinkBatchItem | None = None
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self._rebuild()
        self.model_signals = ModelSignals(self)
        for signal, slot in ((design.device_added, self._on_device_added),
                             (design.device_removed, self._on_device_removed),
                             (design.device_changed, self._on_device_changed),
                             (design.devices_moved, self._on_devices_moved),
                             (design.link_added, self._on_link_added),
                             (design.link_removed, self._on_link_removed),
                             (design.link_changed, self._on_link_changed),
                             (design.reset, self._rebuild)):
            self.model_signals.connect(signal, slot)
        self.selectionChanged.connect(self._on_selection_changed)

    def detach(self) -> None:
        """Stop following the design (before the scene is dropped)."""
        self.model_signals.disconnect_all()

    # ------------------------------------------------------------ appearance
    def set_theme(self, theme: Theme) -> None:
        """Switch colours (items repaint from ``self.theme``); emits ``theme_changed``."""
        self.theme = theme
        self.setBackgroundBrush(theme.canvas)
        for item in self.items():
            item.update()
        self.update()
        self.theme_changed.emit(theme)

    def set_port_badges(self, shown: bool) -> None:
        """Show or hide the devices' port-usage badges."""
        if shown != self.port_badges:
            self.port_badges = shown
            for item in self.device_items.values():
                item.update()

    def set_colour_mode(self, mode: str) -> None:
        """Colour links by 'speed' or by 'plane'."""
        self.colour_by = mode
        for item in self.link_items.values():
            item.set_colour_mode(mode)
        self._invalidate_batch()

    def set_plane_visible(self, plane: Plane, visible: bool) -> None:
        """Show or hide one network (its links, and devices on no other visible network)."""
        if visible == (plane not in self.hidden_planes):
            return
        if visible:
            self.hidden_planes.discard(plane)
        else:
            self.hidden_planes.add(plane)
        for item in self.device_items.values():
            item.setVisible(self._device_visible(item))
        self._refan(None)

    def _device_visible(self, item: DeviceItem) -> bool:
        planes = item.device.planes
        return not planes or any(p not in self.hidden_planes for p in planes)

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802
        painter.fillRect(rect, self.theme.canvas)
        scale = painter.worldTransform().m11()
        step = GRID * 4
        if step * scale < 24:
            return
        pen = QPen(self.theme.grid, 2.2 / max(scale, 1e-6))
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        left = int(rect.left() // step) * step
        top = int(rect.top() // step) * step
        points = []
        y = top
        while y < rect.bottom():
            x = left
            while x < rect.right():
                points.append(QPointF(x, y))
                x += step
            y += step
        painter.drawPoints(points)

    # ------------------------------------------------------- batched drawing
    def set_view_scale(self, scale: float) -> None:
        """Called by the view after zooming: batch plain links when zoomed out."""
        self.set_batching(scale < THIN_BELOW_LOD)

    def set_batching(self, on: bool) -> None:
        """Draw plain links through one LinkBatchItem (on) or each by itself (off)."""
        if on == self.batching:
            return
        self.batching = on
        if on and self._batch is None:
            self._batch = LinkBatchItem(self)
            self.addItem(self._batch)
        if self._batch is not None:
            self._batch.setVisible(on)
        self._apply_batching(self.link_items.values())

    def _apply_batching(self, items) -> None:
        flag = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
        for item in items:
            batched = self.batching and item.bundle_size == 1 and not item.isSelected()
            if bool(item.flags() & flag) != batched:
                item.setFlag(flag, batched)
        self._invalidate_batch()

    def _invalidate_batch(self) -> None:
        if self.batching and self._batch is not None:
            self._batch.invalidate()

    def _on_selection_changed(self) -> None:
        if self.batching:
            self._apply_batching(self.link_items.values())

    # ---------------------------------------------------------- snapping/moves
    def snap_point(self, pos: QPointF) -> QPointF:
        """``pos`` rounded to the grid when snapping is on."""
        if not self.snap_to_grid:
            return pos
        return QPointF(round(pos.x() / GRID) * GRID, round(pos.y() / GRID) * GRID)

    def device_item_moved(self, item: DeviceItem) -> None:
        """Live re-routing of links while an item is dragged."""
        if self._rerouting_live and item.device_id in self.device_items:
            for link in self.design.links_of(item.device_id):
                link_item = self.link_items.get(link.id)
                if link_item is not None:
                    self._route(link_item)

    def pending_moves(self) -> tuple[dict, dict]:
        """(new, old) positions of items dragged away from their design position."""
        new, old = {}, {}
        for device_id, item in self.device_items.items():
            device = item.device
            pos = item.pos()
            if (pos.x(), pos.y()) != (device.x, device.y):
                new[device_id] = (pos.x(), pos.y())
                old[device_id] = (device.x, device.y)
        return new, old

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            self.commit_moves()

    def commit_moves(self) -> None:
        """Record dragged items as one MoveDevices step."""
        new, old = self.pending_moves()
        if new:
            self.commit(MoveDevices(new, old))

    # -------------------------------------------------------------- following
    def _rebuild(self) -> None:
        self.clear()
        self._batch = None
        batching, self.batching = self.batching, False
        self.device_items.clear()
        self.link_items.clear()
        for device_id in self.design.devices:
            self._on_device_added(device_id)
        for link_id in self.design.links:
            self._add_link_item(link_id)
        self._refan(None)
        self._update_usage(self.design.devices)
        self.set_batching(batching)

    def _on_device_added(self, device_id: str) -> None:
        item = DeviceItem(self.design.device(device_id))
        self.device_items[device_id] = item
        self.addItem(item)
        item.setVisible(self._device_visible(item))
        self._update_usage((device_id,))

    def _on_device_removed(self, device_id: str) -> None:
        item = self.device_items.pop(device_id)
        self.removeItem(item)

    def _on_device_changed(self, device_id: str) -> None:
        item = self.device_items[device_id]
        item.set_device(self.design.device(device_id))
        self._update_usage((device_id,))
        item.setVisible(self._device_visible(item))
        self._reroute_device(device_id)

    def _on_devices_moved(self, device_ids: tuple) -> None:
        self._rerouting_live = False
        try:
            for device_id in device_ids:
                self.device_items[device_id].set_device(self.design.device(device_id))
        finally:
            self._rerouting_live = True
        links = {lk.id for d in device_ids for lk in self.design.links_of(d)}
        for link_id in links:
            self._route(self.link_items[link_id])

    def _add_link_item(self, link_id: str) -> None:
        item = LinkItem(self.design.link(link_id))
        item.set_colour_mode(self.colour_by)
        self.link_items[link_id] = item
        self.addItem(item)

    def _on_link_added(self, link_id: str) -> None:
        self._add_link_item(link_id)
        link = self.design.link(link_id)
        self._refan((link.a, link.b))
        self._update_usage((link.a, link.b))

    def _on_link_removed(self, link_id: str) -> None:
        item = self.link_items.pop(link_id)
        self.removeItem(item)
        self._invalidate_batch()
        self._refan((item.link.a, item.link.b))
        self._update_usage((item.link.a, item.link.b))

    def _on_link_changed(self, link_id: str) -> None:
        link = self.design.link(link_id)
        self.link_items[link_id].set_link(link)
        self._refan((link.a, link.b))

    def _update_usage(self, device_ids: Iterable[str]) -> None:
        for device_id in device_ids:
            item = self.device_items.get(device_id)
            if item is not None:
                used = self.design.used_ports(device_id)
                item.set_port_usage(len(used), _spare_data_nic(item.device, used))

    def _reroute_device(self, device_id: str) -> None:
        for link in self.design.links_of(device_id):
            self._route(self.link_items[link.id])

    def _route(self, item: LinkItem) -> None:
        a = self.device_items[item.link.a].pos()
        b = self.device_items[item.link.b].pos()
        item.set_ends(QPointF(a), QPointF(b))
        self._invalidate_batch()

    def _refan(self, pair: tuple[str, str] | None) -> None:
        """Fan parallel links between two devices, or bundle them when there are many."""
        groups: dict[tuple, list[LinkItem]] = defaultdict(list)
        wanted = frozenset(pair) if pair else None
        for item in self.link_items.values():
            key = frozenset((item.link.a, item.link.b))
            if wanted is None or key == wanted:
                groups[(key, item.link.plane, item.link.speed_gbps)].append(item)
        by_pair: dict[frozenset, list[list[LinkItem]]] = defaultdict(list)
        for (key, _plane, _speed), items in groups.items():
            items.sort(key=lambda it: it.link_id)
            by_pair[key].append(items)
        for strands in by_pair.values():
            self._lay_out_pair(strands)
        self._update_bundle_labels()
        if self.batching:
            self._apply_batching(item for items in groups.values() for item in items)

    def _update_bundle_labels(self) -> None:
        """Bundle counts stay on while few; when many bundles would overlap, they show on
        hover and selection only (the tooltip always has the count)."""
        bundles = [i for i in self.link_items.values() if i.bundle_size > 1]
        show = len(bundles) <= MAX_BUNDLE_LABELS
        for item in bundles:
            if item.show_count != show:
                item.show_count = show
                item.update()

    def _lay_out_pair(self, strands: list[list[LinkItem]]) -> None:
        """Each strand (same network and speed) is one bundle or several fanned lines."""
        lanes: list[list[LinkItem]] = []
        for items in strands:
            plane_hidden = items[0].link.plane in self.hidden_planes
            if len(items) > BUNDLE_ABOVE:
                items[0].set_bundle_size(len(items))
                items[0].setVisible(not plane_hidden)
                for other in items[1:]:
                    other.set_bundle_size(1)
                    other.setVisible(False)
                lanes.append(items)
            else:
                for item in items:
                    item.set_bundle_size(1)
                    item.setVisible(not plane_hidden)
                    lanes.append([item])
        n = len(lanes)
        for i, lane in enumerate(lanes):
            for item in lane:
                item.offset = (i - (n - 1) / 2) * FAN_SPACING * (2 if len(lane) > 1 else 1)
                self._route(item)


def _spare_data_nic(device, used) -> bool:
    """True when a server has an unconnected compute or storage NIC on one of its networks."""
    if device.is_switch:
        return False
    for plane in (Plane.COMPUTE, Plane.STORAGE):
        if plane in device.planes and any(p not in used for p in device.ports_for_plane(plane)):
            return True
    return False
