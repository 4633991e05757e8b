"""The fabric scene: mirrors a Design as items, following the design's change signals.

What is drawn: every device, except those inside a collapsed group, which is drawn as one
tile (:class:`GroupTile`); expanded groups get a faint frame.  A group is collapsed when the
design says so, or (semantic zoom) when it is small on screen; the user can open either kind
in place.  Items exist only for what is drawn, so a 32,768-GPU fabric opened zoomed out costs
a few hundred items.  Links are handled by :class:`~fabricstudio.ui.canvas.links.LinkLayer`.

Items never change the design.  A finished drag is turned into ONE ``MoveDevices`` command
handed to ``commit`` (the window's undo stack); the scene catches up through the signals.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from contextlib import contextmanager

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

from fabricstudio.model import Design, DeviceKind, Link, Plane
from fabricstudio.model.bulk import bulk_build
from fabricstudio.model.commands import Command, MoveDevices, SetGroupProperties
from fabricstudio.topology.folding import (
    Folding,
    Headroom,
    auto_collapse,
    fold_metrics,
    group_boxes,
    group_counts,
)
from fabricstudio.topology.rails import link_rails, link_tier
from fabricstudio.ui.canvas.items.device_item import DeviceItem
from fabricstudio.ui.canvas.items.group_item import GroupFrame, GroupTile
from fabricstudio.ui.canvas.items.host import ItemScene
from fabricstudio.ui.canvas.items.link_item import THIN_BELOW_LOD, LinkItem
from fabricstudio.ui.canvas.links import BUNDLE_ABOVE, FAN_SPACING, LinkLayer
from fabricstudio.ui.model_signals import ModelSignals
from fabricstudio.ui.theme import (
    DARK,
    OTHER_TIER,
    PLANE_COLOURS,
    TIER_COLOURS,
    Theme,
    rail_colour,
    speed_colour,
)

__all__ = ["BUNDLE_ABOVE", "FAN_SPACING", "GRID", "FabricScene"]

GRID = 15.0
#: Colouring modes of links.
COLOUR_MODES = ("speed", "plane", "rail", "tier")
#: The view size a design is assumed to be fitted into before a view says otherwise.
ASSUMED_VIEW = (1280.0, 800.0)
#: Designs with this many links draw their plain links zoomed in through one batch item (a
#: Python paint call per link cost ~30 us: 300 of them for each pan step at 100 % at 32k).
#: At 2,048 GPUs (4,096 links) the batch measured 2-5 ms slower at fit than painting each.
FINE_BATCH_FROM = 10_000


class FabricScene(ItemScene):
    """Scene showing one Design; items are created, updated and removed from its signals.

    Public: ``device_items`` (shown devices), ``group_items`` (collapsed groups' tiles),
    ``frame_items`` (expanded groups' frames) and ``link_items`` (link id -> the item drawing
    it) by id; ``theme``, ``snap_to_grid``, ``colour_by``, the filters ``hidden_planes``,
    ``hidden_tiers`` and ``focus``; ``semantic_zoom``; ``port_badges`` (devices show their
    used/total port badge: editing chrome, off while presenting and in replays); ``commit``
    (callable applying a model Command; defaults to applying it directly).
    """

    #: Emitted when devices were added, removed or moved (the view's scroll range follows).
    extent_changed = Signal()
    #: Emitted with the new Theme after :meth:`set_theme`.
    theme_changed = Signal(object)

    def __init__(self, design: Design, parent=None, scale: float | None = None,
                 populate: bool = True) -> None:
        """``populate=False``: no items yet, and the design's changes are not followed, until
        :meth:`populate` (a window on a large design fills its canvas when it is first shown,
        at the scale its view will have, instead of folding it twice)."""
        super().__init__(parent)
        self.design = design
        self.device_items: dict[str, DeviceItem] = {}
        self.group_items: dict[str, GroupTile] = {}
        self.frame_items: dict[str, GroupFrame] = {}
        self.links = LinkLayer(self)
        self.folding = Folding(design)
        self.theme: Theme = DARK
        self.snap_to_grid = True
        self.port_badges = True
        self.colour_by = "speed"
        self.hidden_planes: set[Plane] = set()
        self.hidden_tiers: set[int] = set()
        self.focus: set[str] | None = None
        self.semantic_zoom = True
        self.view_scale = scale if scale is not None else estimate_fit_scale(design)
        #: Groups semantic zoom folds now; groups the user opened although folded.
        self.auto_folded: set[str] = set()
        self.user_open: set[str] = set()
        self.commit: Callable[[Command], None] = lambda command: command.do(self.design)
        self._rerouting_live = True
        self._boxes: dict[str, tuple[float, float, float, float]] | None = None
        self._metrics: dict[str, tuple[float, float]] | None = None
        self._headroom: Headroom | None = None
        self._member_px: float | None = None
        #: The scene area a view shows (None: no view, everything counts as on screen).
        self.view_rect: QRectF | None = None
        self._group_visible: dict[str, bool] = {}
        self._node_refs: Counter[str] = Counter()
        self._rails: dict[str, int | None] | None = None
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.model_signals = ModelSignals(self)
        #: While set (FabricView.fitting_after_reset): the zoom a rebuild folds for.
        self.rebuild_scale: Callable[[], float] | None = None
        #: False until the scene has items for the design (see ``populate``).
        self.populated = False
        self._built = False
        if populate:
            self.populate()
        self.selectionChanged.connect(self._on_selection_changed)

    def populate(self, scale: float | None = None) -> None:
        """Make the items (folded for ``scale``, when given) and follow the design from now
        on; nothing when already populated."""
        if self.populated:
            return
        self.populated = True
        if scale is not None:
            self.view_scale = scale
        self._rebuild()
        design = self.design
        for signal, slot in ((design.device_added, self._on_device_added),
                             (design.device_removed, self._on_device_removed),
                             (design.device_changed, self._on_device_changed),
                             (design.devices_moved, self._on_devices_moved),
                             (design.link_added, self._on_link_changed),
                             (design.link_removed, self._on_link_changed),
                             (design.link_changed, self._on_link_changed),
                             (design.groups_changed, self._on_groups_changed),
                             (design.reset, self._rebuild)):
            self.model_signals.connect(signal, slot)

    def detach(self) -> None:
        """Stop following the design (before the scene is dropped)."""
        self.model_signals.disconnect_all()

    @property
    def link_items(self) -> dict[str, LinkItem]:
        """Link id -> the item drawing it (links inside collapsed groups have none)."""
        return self.links.items

    @property
    def batching(self) -> bool:
        """True while plain links are drawn through one batch item (zoomed out)."""
        return self.links.batching

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
        """Colour links by 'speed', 'plane' (network), 'rail' or 'tier'."""
        if mode not in COLOUR_MODES:
            raise ValueError(f"unknown colouring {mode!r}: choose one of {', '.join(COLOUR_MODES)}")
        self.colour_by = mode
        self._rails = None
        self.links.recolour()

    def link_colour(self, link: Link) -> QColor:
        """The colour of ``link`` in the current mode."""
        mode = self.colour_by
        if mode == "plane":
            return PLANE_COLOURS[link.plane]
        if mode == "rail":
            if self._rails is None:
                self._rails = link_rails(self.design)
            return rail_colour(self._rails.get(link.id))
        if mode == "tier":
            return TIER_COLOURS.get(link_tier(self.design, link), OTHER_TIER)
        return speed_colour(link.speed_gbps)

    def rails(self) -> dict[str, int | None]:
        """Rail of every link (for the legend)."""
        if self._rails is None:
            self._rails = link_rails(self.design)
        return self._rails

    # --------------------------------------------------------------- filters
    def set_plane_visible(self, plane: Plane, visible: bool) -> None:
        """Show or hide one network (its links, and devices on no other visible network)."""
        if visible == (plane not in self.hidden_planes):
            return
        (self.hidden_planes.discard if visible else self.hidden_planes.add)(plane)
        self._apply_filters()

    def set_tier_visible(self, tier: int, visible: bool) -> None:
        """Show or hide the devices of one tier (0 servers, 1 leaves, 2 spines, 3 cores)."""
        if visible == (tier not in self.hidden_tiers):
            return
        (self.hidden_tiers.discard if visible else self.hidden_tiers.add)(tier)
        self._apply_filters()

    def set_focus(self, device_ids: Iterable[str] | None) -> None:
        """Show only these devices (None: all)."""
        self.focus = None if device_ids is None else set(device_ids)
        self._apply_filters()

    def device_passes(self, device_id: str) -> bool:
        """True when the filters let a device show."""
        device = self.design.devices[device_id]
        if device.planes and all(p in self.hidden_planes for p in device.planes):
            return False
        if self.hidden_tiers and DeviceKind(device.kind).tier in self.hidden_tiers:
            return False
        return self.focus is None or device_id in self.focus

    def node_visible(self, node: str) -> bool:
        """A device passing the filters, or a group with such a device."""
        if node in self.design.devices:
            return self.device_passes(node)
        if node not in self._group_visible:
            self._group_visible[node] = any(
                self.device_passes(d) for d in self.folding.tree.devices(node))
        return self._group_visible[node]

    def _apply_filters(self) -> None:
        self._group_visible.clear()
        for device_id, item in self.device_items.items():
            item.setVisible(self.device_passes(device_id))
        for group_id, tile in self.group_items.items():
            tile.setVisible(self.node_visible(group_id))
        for group_id, frame in self.frame_items.items():
            frame.setVisible(self.node_visible(group_id))
        self.links.refresh_visibility()

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

    # -------------------------------------------------------- zoom & folding
    def set_view_scale(self, scale: float) -> None:
        """Called after zooming: batch plain links and fold small groups."""
        self.set_view(scale, self.view_rect)

    def set_view(self, scale: float, rect: QRectF | None) -> None:
        """What a view shows: its scale (plain links are batched when zoomed out, small
        groups fold) and the scene area on screen (groups far off screen stay folded)."""
        self.view_rect = None if rect is None else QRectF(rect)
        if scale != self.view_scale:
            self.view_scale = scale
            for frame in self.frame_items.values():
                frame.set_lod(scale)
            for tile in self.group_items.values():
                tile.set_lod(scale)
        self.links.set_batching(scale < THIN_BELOW_LOD)
        self.links.set_fine(len(self.design.links) >= FINE_BATCH_FROM)
        if self.semantic_zoom and self.design.groups:
            self._refold()

    @contextmanager
    def folded_for(self, scale: float | None, member_px: float | None = None):
        """Fold groups as a picture at ``scale`` needs (an export: the whole design counts as
        on screen; ``member_px`` sets how small members may get before their group folds);
        the view's folding comes back after.  No-op for None or without semantic zoom."""
        if scale is None or not self.semantic_zoom or not self.design.groups:
            yield
            return
        saved = (self.view_scale, self.view_rect, set(self.auto_folded))
        self.view_scale, self.view_rect, self._member_px = scale, None, member_px
        self.auto_folded = set()
        self._refold()
        try:
            yield
        finally:
            self.view_scale, self.view_rect, self.auto_folded = saved
            self._member_px = None
            self._refold()

    def set_batching(self, on: bool) -> None:
        """Draw plain links through one batch item (on) or each by itself (off: zoomed in on
        a large design, plain links are still drawn by it, exactly as they would draw
        themselves; see ``fine_batching``)."""
        self.links.set_batching(on)

    def link_hovered(self, item: QGraphicsItem) -> None:
        if isinstance(item, LinkItem) and item.scene() is self:
            self.links.hover_changed(item)

    def fine_batching(self, on: bool) -> bool:
        """Let the batch item draw plain links when zoomed in (on: the default for designs
        of FINE_BATCH_FROM links or more) or not (off: exports); returns the state before."""
        before = self.links.fine
        self.links.set_fine(on and len(self.design.links) >= FINE_BATCH_FROM)
        return before

    def set_semantic_zoom(self, on: bool) -> None:
        """Fold small groups automatically while zoomed out (on) or never (off)."""
        self.semantic_zoom = on
        self._refold()

    def boxes(self) -> dict[str, tuple[float, float, float, float]]:
        """Each group's box (scene coordinates), cached until devices move or groups change."""
        if self._boxes is None:
            self._boxes = group_boxes(self.design, self.folding.tree)
            self._metrics = None
            self._headroom = None
        return self._boxes

    def room_above(self, group_id: str) -> float:
        """Free height above a group's box (scene units): where its frame's name tab may go
        without covering what lies above (else the tab goes inside the frame)."""
        boxes = self.boxes()
        if self._headroom is None:
            self._headroom = Headroom(self.design, boxes)
        return self._headroom.above(group_id)

    def _place_frame(self, group_id: str, frame: GroupFrame) -> None:
        frame.set_geometry(self.group_rect(group_id), self.room_above(group_id))

    def group_rect(self, group_id: str) -> QRectF:
        """The box of a group as a QRectF."""
        x0, y0, x1, y1 = self.boxes().get(group_id, (0.0, 0.0, 0.0, 0.0))
        return QRectF(x0, y0, x1 - x0, y1 - y0)

    def collapsed_groups(self) -> set[str]:
        """Groups drawn collapsed now (by the design, or by semantic zoom)."""
        return set(self.folding.collapsed)

    def is_collapsed(self, group_id: str) -> bool:
        """True when a group is drawn as a tile now."""
        return group_id in self.folding.collapsed

    def _wanted_folds(self) -> set[str]:
        groups = self.design.groups
        chosen = {g for g, group in groups.items() if group.collapsed}
        auto: set[str] = set()
        if self.semantic_zoom and groups:
            boxes = self.boxes()
            if self._metrics is None:
                self._metrics = fold_metrics(self.folding.tree, boxes)
            view = self.view_rect
            auto = auto_collapse(self._metrics, self.view_scale, self.auto_folded, boxes,
                                 None if view is None else
                                 (view.left(), view.top(), view.right(), view.bottom()),
                                 self._member_px)
        auto |= self._selected_tiles()  # a selected tile keeps its shape
        auto -= self._selected_groups_open()  # so does what holds a selected item
        self.auto_folded = auto
        self.user_open &= chosen | auto
        return (chosen | auto) - self.user_open

    def _selected_tiles(self) -> set[str]:
        return {g for g, tile in self.group_items.items() if tile.isSelected()}

    def _selected_groups_open(self) -> set[str]:
        """Expanded groups holding a selected device or frame: folding them would drop the
        selection (and change what Delete or a drag acts on)."""
        tree = self.folding.tree
        keep: set[str] = set()
        for item in self.selectedItems():
            if isinstance(item, DeviceItem):
                keep.update(tree.ancestors(item.device_id))
            elif isinstance(item, GroupFrame):
                keep.add(item.group_id)
                keep.update(tree.ancestors(item.group_id))
        return keep

    def _refold(self) -> None:
        wanted = self._wanted_folds()
        if wanted == self.folding.collapsed:  # e.g. a scroll at one zoom: nothing to redo
            return
        before = dict(self.folding.rep)
        self.folding.set_collapsed(wanted)
        self._apply_reps(before)

    def _apply_reps(self, before: Mapping[str, str]) -> None:
        """Show and hide nodes and re-strand links after representatives changed."""
        rep = self.folding.rep
        changed = [d for d, r in rep.items() if before.get(d) != r]
        changed += [d for d in before if d not in rep]
        if not changed:
            self._sync_frames()
            return
        refs = self._node_refs
        gone: set[str] = set()
        for device_id in changed:
            old, new = before.get(device_id), rep.get(device_id)
            if old is not None:
                refs[old] -= 1
                if refs[old] <= 0:
                    del refs[old]
                    gone.add(old)
            if new is not None:
                if new not in refs:
                    self._show_node(new)
                    gone.discard(new)
                refs[new] += 1
        for node in gone:
            self._hide_node(node)
        ports = self.design.used_ports
        self.links.update_links({lk for d in changed if d in rep for lk in ports(d).values()})
        self._sync_frames()

    def _show_node(self, node: str) -> None:
        if node in self.design.devices:
            item = DeviceItem(self.design.devices[node])
            self.device_items[node] = item
            self.addItem(item)
            if not self.device_passes(node):
                item.setVisible(False)
            self._update_usage((node,))
        else:
            tile = GroupTile(self.design.groups[node], self.group_rect(node),
                             group_counts(self.design, node, self.folding.tree))
            tile.set_lod(self.view_scale)
            self.group_items[node] = tile
            self.addItem(tile)
            if not self.node_visible(node):
                tile.setVisible(False)

    def _hide_node(self, node: str) -> None:
        item = self.device_items.pop(node, None) or self.group_items.pop(node, None)
        if item is not None and item.scene() is self:
            self.removeItem(item)

    def _sync_frames(self) -> None:
        """Frames for the expanded groups not inside a collapsed one."""
        wanted = self.folding.visible_groups()
        keep = set(wanted)
        for group_id in [g for g in self.frame_items if g not in keep]:
            self.removeItem(self.frame_items.pop(group_id))
        tree = self.folding.tree
        for group_id in wanted:
            frame = self.frame_items.get(group_id)
            if frame is None:
                frame = GroupFrame(self.design.groups[group_id], self.group_rect(group_id),
                                   len(tree.ancestors(group_id)), self.room_above(group_id))
                frame.set_lod(self.view_scale)
                self.frame_items[group_id] = frame
                self.addItem(frame)
                if not self.node_visible(group_id):
                    frame.setVisible(False)

    def anchor(self, node: str) -> QPointF:
        """Where lines to a node end: a device's centre, a tile's centre."""
        item = self.device_items.get(node) or self.group_items.get(node)
        if item is not None:
            return item.pos()
        device = self.design.devices.get(node)
        if device is not None:
            return QPointF(device.x, device.y)
        return self.group_rect(node).center()

    def toggle_group(self, group_id: str) -> None:
        """Fold an expanded group or open a folded one, in place."""
        if group_id in self.folding.collapsed:
            self.expand_group(group_id)
        else:
            self.collapse_group(group_id)

    def expand_group(self, group_id: str) -> None:
        """Open a collapsed group in place (one undo step if the design had it collapsed)."""
        group = self.design.groups[group_id]
        if group.collapsed:
            self.commit(SetGroupProperties([group_id], {"collapsed": False},
                                           label=f"Expand {group.label}"))
        if group_id in self.folding.collapsed:
            self.user_open.add(group_id)
            self._refold()

    def collapse_group(self, group_id: str) -> None:
        """Draw a group as one tile (one undo step: the design remembers it)."""
        group = self.design.groups[group_id]
        self.user_open.discard(group_id)
        if not group.collapsed:
            self.commit(SetGroupProperties([group_id], {"collapsed": True},
                                           label=f"Collapse {group.label}"))
        self._refold()

    def reveal(self, ids: Iterable[str]) -> None:
        """Open the collapsed groups holding these devices, these links' ends or these
        groups, so that they are drawn (a group itself may stay folded, as its tile)."""
        tree = self.folding.tree
        inside = set()
        for ident in ids:
            link = self.design.links.get(ident)
            if link is not None:
                inside.update((link.a, link.b))
            elif ident in self.design.devices or ident in self.design.groups:
                inside.add(ident)
        opened = {g for d in inside for g in tree.ancestors(d) if g in self.folding.collapsed}
        if opened:
            self.user_open |= opened
            self._refold()

    # ------------------------------------------------------------- selection
    def select_items(self, items: Iterable[QGraphicsItem], clear: bool = True) -> None:
        """Select items with one selection-changed notification (not one per item)."""
        blocked = self.signalsBlocked()
        self.blockSignals(True)
        try:
            if clear:
                for item in self.selectedItems():
                    item.setSelected(False)
            for item in items:
                item.setSelected(True)
        finally:
            self.blockSignals(blocked)
        if not blocked:
            self.selectionChanged.emit()

    def select_group_items(self, group_id: str) -> None:
        """Select the drawn items of a group (its frame stays selected), so that dragging
        the frame moves them all."""
        tree = self.folding.tree
        members = set(tree.devices(group_id)) | set(tree.subgroups(group_id))
        items: list[QGraphicsItem] = [i for d, i in self.device_items.items() if d in members]
        items += [t for g, t in self.group_items.items() if g in members]
        self.select_items(items, clear=False)

    def selected_device_ids(self) -> list[str]:
        """Devices selected directly or through a selected tile or frame, in design order."""
        chosen: set[str] = set()
        tree = self.folding.tree
        for item in self.selectedItems():
            if isinstance(item, DeviceItem):
                chosen.add(item.device_id)
            elif isinstance(item, (GroupTile, GroupFrame)) and item.group_id in self.design.groups:
                chosen.update(tree.devices(item.group_id))
        if len(chosen) == len(self.design.devices):
            return list(self.design.devices)
        return [d for d in self.design.devices if d in chosen]

    def selected_group_ids(self) -> list[str]:
        """Groups selected through their tile or frame, in design order."""
        chosen = {i.group_id for i in self.selectedItems()
                  if isinstance(i, (GroupTile, GroupFrame))}
        return [g for g in self.design.groups if g in chosen]

    def selected_link_ids(self) -> list[str]:
        """Links selected directly (a selected bundle selects all its links), design order."""
        chosen: set[str] = set()
        for item in self.selectedItems():
            if isinstance(item, LinkItem):
                chosen.update(item.members)
        return [lk for lk in self.design.links if lk in chosen]

    def _on_selection_changed(self) -> None:
        try:
            selected = {i for i in self.selectedItems() if isinstance(i, LinkItem)}
        except RuntimeError:
            return
        self.links.selection_changed(selected)

    # ---------------------------------------------------------- snapping/moves
    def snap_point(self, pos: QPointF) -> QPointF:
        """``pos`` rounded to the grid when snapping is on."""
        if not self.snap_to_grid:
            return pos
        return QPointF(round(pos.x() / GRID) * GRID, round(pos.y() / GRID) * GRID)

    def snap_delta(self, home: QPointF, pos: QPointF) -> QPointF:
        """``pos`` moved so that its distance from ``home`` is whole grid steps (a group's
        devices stay on the grid)."""
        if not self.snap_to_grid:
            return pos
        delta = self.snap_point(pos - home)
        return home + delta

    def device_item_moved(self, item: DeviceItem) -> None:
        """Live re-routing of links while an item is dragged."""
        if self._rerouting_live and item.device_id in self.device_items:
            self.links.route_node(item.device_id)

    def node_moved(self, node: str) -> None:
        """Live re-routing of the lines of a dragged tile."""
        if self._rerouting_live:
            self.links.route_node(node)

    def pending_moves(self) -> tuple[dict, dict]:
        """(new, old) positions of devices dragged away from their design position (a dragged
        tile moves every device of its group)."""
        new, old = {}, {}
        devices = self.design.devices
        for device_id, item in self.device_items.items():
            device = devices[device_id]
            pos = item.pos()
            if (pos.x(), pos.y()) != (device.x, device.y):
                new[device_id] = (pos.x(), pos.y())
                old[device_id] = (device.x, device.y)
        for group_id, tile in self.group_items.items():
            delta = tile.pos() - tile.home
            if delta.isNull():
                continue
            for device_id in self.folding.tree.devices(group_id):
                device = devices[device_id]
                new[device_id] = (device.x + delta.x(), device.y + delta.y())
                old[device_id] = (device.x, device.y)
        return new, old

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            self.commit_moves()

    def commit_moves(self) -> None:
        """Record dragged items as one MoveDevices step."""
        new, old = self.pending_moves()
        moved_groups = [g for g, t in self.group_items.items() if not (t.pos() - t.home).isNull()]
        if new:
            command = MoveDevices(new, old)
            if len(moved_groups) == 1 and not any(
                    d in self.device_items for d in new):
                command.label = f"Move {self.design.groups[moved_groups[0]].label}"
            self.commit(command)
        self._reset_frames()

    def _reset_frames(self) -> None:
        for group_id, frame in self.frame_items.items():
            self._place_frame(group_id, frame)

    # -------------------------------------------------------------- following
    def _rebuild(self) -> None:
        if self.rebuild_scale is not None:  # a fit follows: fold for its zoom at once
            self.view_scale = self.rebuild_scale()
        with bulk_build(freeze=True):
            self._build_all()

    def _build_all(self) -> None:
        if self._built:  # a rebuild: every item goes (overlays make themselves again)
            self.clear()
        self._built = True  # the first fill keeps what others added (overlay layers)
        batching, fine = self.links.batching, self.links.fine
        self.links.clear()
        self.links.batching = self.links.fine = False
        self.device_items.clear()
        self.group_items.clear()
        self.frame_items.clear()
        self._node_refs.clear()
        self._boxes = None
        self._rails = None
        self._group_visible.clear()
        self.user_open.clear()
        self.auto_folded.clear()
        self.folding.collapsed = frozenset()
        self.folding.reset()
        self.folding.set_collapsed(self._wanted_folds())
        for node in dict.fromkeys(self.folding.rep.values()):
            self._show_node(node)
        self._node_refs.update(self.folding.rep.values())
        self.links.rebuild()
        self._sync_frames()
        self.links.set_batching(batching)
        self.links.set_fine(fine)
        self.extent_changed.emit()

    def _on_device_added(self, device_id: str) -> None:
        self.extent_changed.emit()
        self._boxes = None
        before = dict(self.folding.rep)
        self.folding.add_device(device_id)
        self._apply_reps(before)

    def _on_device_removed(self, device_id: str) -> None:
        self.extent_changed.emit()
        self._boxes = None
        before = dict(self.folding.rep)
        self.folding.remove_device(device_id)
        self._apply_reps(before)

    def _on_device_changed(self, device_id: str) -> None:
        self._group_visible.clear()
        item = self.device_items.get(device_id)
        if item is not None:
            item.set_device(self.design.device(device_id))
            self._update_usage((device_id,))
            item.setVisible(self.device_passes(device_id))
            self.links.route_node(device_id)
        for group_id in self.folding.tree.ancestors(device_id):
            tile = self.group_items.get(group_id)
            if tile is not None:
                tile.set_group(self.design.groups[group_id],
                               group_counts(self.design, group_id, self.folding.tree))

    def _on_devices_moved(self, device_ids: tuple) -> None:
        self.extent_changed.emit()
        self._boxes = None
        self._rerouting_live = False
        nodes = set()
        try:
            for device_id in device_ids:
                item = self.device_items.get(device_id)
                if item is not None:
                    item.set_device(self.design.device(device_id))
                    nodes.add(device_id)
        finally:
            self._rerouting_live = True
        tree = self.folding.tree
        groups = {g for d in device_ids for g in tree.ancestors(d)}
        for group_id in groups:
            tile = self.group_items.get(group_id)
            if tile is not None:
                tile.set_geometry(self.group_rect(group_id))
                nodes.add(group_id)
        for group_id, frame in self.frame_items.items():  # a neighbour's tab may move too
            self._place_frame(group_id, frame)
        if len(nodes) > len(self.device_items) // 2:
            self.links.route_all()
        else:
            for node in nodes:
                self.links.route_node(node)

    def _on_link_changed(self, link_id: str) -> None:
        self._rails = None
        link = self.design.links.get(link_id)
        ends = self.links.update_links([link_id])
        if link is not None:
            ends |= {link.a, link.b}
        self._update_usage(ends)

    def _on_groups_changed(self, group_ids: tuple) -> None:
        self._boxes = None
        self._group_visible.clear()
        before = dict(self.folding.rep)
        self.folding.reset()
        self.folding.set_collapsed(self._wanted_folds())
        self._apply_reps(before)
        tree = self.folding.tree
        for group_id in group_ids:
            if group_id not in self.design.groups:
                continue
            tile = self.group_items.get(group_id)
            if tile is not None:
                tile.set_group(self.design.groups[group_id],
                               group_counts(self.design, group_id, tree))
                tile.set_geometry(self.group_rect(group_id))
            frame = self.frame_items.get(group_id)
            if frame is not None:
                frame.set_group(self.design.groups[group_id])
                self._place_frame(group_id, frame)

    def _update_usage(self, device_ids: Iterable[str]) -> None:
        for device_id in device_ids:
            item = self.device_items.get(device_id)
            if item is not None:
                used = self.design.used_ports(device_id)
                item.set_port_usage(len(used), _spare_data_nic(item.device, used))

    # --------------------------------------------------------------- extents
    def content_rect(self, selection_only: bool = False) -> QRectF:
        """Scene area of what is drawn (or of the selected devices), visible items only."""
        rect = QRectF()
        items: list[QGraphicsItem] = [*self.device_items.values(), *self.group_items.values()]
        for item in items:
            if item.isVisible() and (not selection_only or item.isSelected()):
                rect = rect.united(item.sceneBoundingRect())
        return rect


#: Room a device's item takes around its position (scene units; a tile's group box has
#: about as much around its members).
ITEM_ROOM = 80.0


def design_extent(design: Design) -> QRectF:
    """The scene area a design's items cover, from the devices' positions alone."""
    if not design.devices:
        return QRectF()
    xs = [d.x for d in design.devices.values()]
    ys = [d.y for d in design.devices.values()]
    return QRectF(QPointF(min(xs) - ITEM_ROOM, min(ys) - ITEM_ROOM),
                  QPointF(max(xs) + ITEM_ROOM, max(ys) + ITEM_ROOM))


def estimate_fit_scale(design: Design) -> float:
    """The scale at which a view of ``ASSUMED_VIEW`` would show the whole design."""
    if not design.devices:
        return 1.0
    xs = [d.x for d in design.devices.values()]
    ys = [d.y for d in design.devices.values()]
    width = max(xs) - min(xs) + 160
    height = max(ys) - min(ys) + 160
    return min(ASSUMED_VIEW[0] / width, ASSUMED_VIEW[1] / height, 1.5)


def _spare_data_nic(device, used) -> bool:
    """True when a server has an unconnected compute or storage NIC on one of its networks."""
    if device.is_switch:
        return False
    for plane in (Plane.COMPUTE, Plane.STORAGE):
        if plane in device.planes and any(p not in used for p in device.ports_for_plane(plane)):
            return True
    return False
