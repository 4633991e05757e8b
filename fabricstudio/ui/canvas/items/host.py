"""The typed interface between canvas items and the scene that shows them.

Items read the scene's theme, badge setting and design, and hand it drags and clicks; the
scene (:class:`~fabricstudio.ui.canvas.scene.FabricScene`) imports the items, so the items
know it only through this base class.  :func:`item_scene` is the one way an item reaches it
(None while the item is on no scene), :func:`item_theme` the theme it paints with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

from fabricstudio.ui.theme import DARK, Theme

if TYPE_CHECKING:
    from fabricstudio.model import Design


class ItemScene(QGraphicsScene):
    """What the canvas items need of their scene; FabricScene implements every method."""

    #: Colours the items paint with.
    theme: Theme = DARK
    #: Devices show their used/total port badge (editing chrome; off while presenting).
    port_badges: bool = True
    #: The design the scene shows (a link's tooltip names its cable from it).
    design: Design | None = None

    def snap_point(self, pos: QPointF) -> QPointF:
        """Where a device dragged to ``pos`` lands (the grid, when snapping is on)."""
        raise NotImplementedError

    def snap_delta(self, home: QPointF, pos: QPointF) -> QPointF:
        """Where a tile dragged from ``home`` to ``pos`` lands (whole grid steps)."""
        raise NotImplementedError

    def device_item_moved(self, item: QGraphicsItem) -> None:
        """A device item moved (its links follow while it is dragged)."""
        raise NotImplementedError

    def node_moved(self, node: str) -> None:
        """A group tile moved (its links follow while it is dragged)."""
        raise NotImplementedError

    def toggle_group(self, group_id: str) -> None:
        """Expand a collapsed group in place, or collapse an expanded one."""
        raise NotImplementedError

    def select_group_items(self, group_id: str) -> None:
        """Select everything drawn for a group (its frame was clicked)."""
        raise NotImplementedError

    def link_hovered(self, item: QGraphicsItem) -> None:
        """The mouse entered or left a link item (a batched bundle then draws itself, with
        its count)."""
        raise NotImplementedError


def item_scene(item: QGraphicsItem) -> ItemScene | None:
    """The canvas scene ``item`` is on, or None."""
    scene = item.scene()
    return scene if isinstance(scene, ItemScene) else None


def item_theme(item: QGraphicsItem) -> Theme:
    """The theme ``item`` paints with: its scene's, or the default off any scene."""
    scene = item.scene()
    return scene.theme if isinstance(scene, ItemScene) else DARK
