"""The fabric scene: mirrors a Design as items, following the design's change signals."""

from __future__ import annotations

from collections import defaultdict

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QGraphicsScene

from fabricstudio.model import Design
from fabricstudio.ui.canvas.items.device_item import DeviceItem
from fabricstudio.ui.canvas.items.link_item import LinkItem

FAN_SPACING = 6.0


class FabricScene(QGraphicsScene):
    """Scene showing one Design; items are created, updated and removed from its signals."""

    def __init__(self, design: Design, parent=None) -> None:
        super().__init__(parent)
        self.design = design
        self.device_items: dict[str, DeviceItem] = {}
        self.link_items: dict[str, LinkItem] = {}
        self._rebuild()
        design.device_added.connect(self._on_device_added)
        design.device_removed.connect(self._on_device_removed)
        design.device_changed.connect(self._on_device_changed)
        design.devices_moved.connect(self._on_devices_moved)
        design.link_added.connect(self._on_link_added)
        design.link_removed.connect(self._on_link_removed)
        design.link_changed.connect(self._on_link_changed)
        design.reset.connect(self._rebuild)

    def detach(self) -> None:
        """Stop following the design (before the scene is dropped)."""
        for signal in (self.design.device_added, self.design.device_removed,
                       self.design.device_changed, self.design.devices_moved,
                       self.design.link_added, self.design.link_removed,
                       self.design.link_changed, self.design.reset):
            signal.disconnect()

    def _rebuild(self) -> None:
        self.clear()
        self.device_items.clear()
        self.link_items.clear()
        for device_id in self.design.devices:
            self._on_device_added(device_id)
        for link_id in self.design.links:
            self._add_link_item(link_id)
        self._refan(None)

    def _on_device_added(self, device_id: str) -> None:
        item = DeviceItem(self.design.device(device_id))
        self.device_items[device_id] = item
        self.addItem(item)

    def _on_device_removed(self, device_id: str) -> None:
        item = self.device_items.pop(device_id)
        self.removeItem(item)

    def _on_device_changed(self, device_id: str) -> None:
        self.device_items[device_id].set_device(self.design.device(device_id))
        self._reroute_device(device_id)

    def _on_devices_moved(self, device_ids: tuple) -> None:
        for device_id in device_ids:
            self.device_items[device_id].set_device(self.design.device(device_id))
        for device_id in device_ids:
            self._reroute_device(device_id)

    def _add_link_item(self, link_id: str) -> None:
        item = LinkItem(self.design.link(link_id))
        self.link_items[link_id] = item
        self.addItem(item)

    def _on_link_added(self, link_id: str) -> None:
        self._add_link_item(link_id)
        link = self.design.link(link_id)
        self._refan((link.a, link.b))

    def _on_link_removed(self, link_id: str) -> None:
        item = self.link_items.pop(link_id)
        self.removeItem(item)
        self._refan((item.link.a, item.link.b))

    def _on_link_changed(self, link_id: str) -> None:
        self.link_items[link_id].set_link(self.design.link(link_id))

    def _reroute_device(self, device_id: str) -> None:
        for link in self.design.links_of(device_id):
            self._route(self.link_items[link.id])

    def _route(self, item: LinkItem) -> None:
        a = self.device_items[item.link.a].pos()
        b = self.device_items[item.link.b].pos()
        item.set_ends(QPointF(a), QPointF(b))

    def _refan(self, pair: tuple[str, str] | None) -> None:
        """Spread parallel links between the same two devices (all pairs when None)."""
        groups: dict[frozenset, list[LinkItem]] = defaultdict(list)
        for item in self.link_items.values():
            key = frozenset((item.link.a, item.link.b))
            if pair is None or key == frozenset(pair):
                groups[key].append(item)
        for items in groups.values():
            n = len(items)
            for i, item in enumerate(sorted(items, key=lambda it: it.link_id)):
                item.offset = (i - (n - 1) / 2) * FAN_SPACING
                self._route(item)
