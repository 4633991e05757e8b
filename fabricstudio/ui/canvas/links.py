"""The links of a FabricScene: strands between shown nodes, their items, fan-out and batching.

A *node* is what the canvas shows: a device, or a collapsed group standing for its devices.
Links are gathered into strands by (node, node, network, speed) (see topology.folding).  A
strand of up to ``BUNDLE_ABOVE`` links between two devices is drawn link by link, fanned out;
a longer one, or one ending at a collapsed group, is one bundle item with a count.  Everything
here is incremental: only the strands of the links handed to :meth:`LinkLayer.update_links`
are rebuilt, and only the pairs they join are laid out again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QGraphicsItem

from fabricstudio.topology.folding import StrandKey
from fabricstudio.ui.canvas.items.link_batch import LinkBatchItem
from fabricstudio.ui.canvas.items.link_item import BundleItem, LinkItem

FAN_SPACING = 7.0
#: More parallel links than this between two devices (same network) are drawn as a bundle.
BUNDLE_ABOVE = 4
#: With more bundles than this, their count labels only show on hover or selection.
MAX_BUNDLE_LABELS = 12

Pair = tuple[str, str]


class LinkLayer:
    """Strands and link items of one scene (``scene.link_items`` is :attr:`items`)."""

    def __init__(self, scene) -> None:
        self.scene = scene
        #: Link id -> the item drawing it (a bundle item draws every link of its strand).
        self.items: dict[str, LinkItem] = {}
        self.strands: dict[StrandKey, dict[str, None]] = {}
        self.strand_items: dict[StrandKey, list[LinkItem]] = {}
        self.key_of: dict[str, StrandKey] = {}
        self.pair_keys: dict[Pair, set[StrandKey]] = defaultdict(set)
        self.node_pairs: dict[str, set[Pair]] = defaultdict(set)
        #: Zoomed out: every unselected link is drawn by the batch item (coarse).
        self.batching = False
        #: Zoomed in on a large design: plain unselected links are drawn by it (fine).
        self.fine = False
        self._batch: LinkBatchItem | None = None
        self._bundles = 0
        self._labels_on = True
        self._selected: set[LinkItem] = set()

    def clear(self) -> None:
        """Forget everything (the scene has just been cleared)."""
        self.items.clear()
        self.strands.clear()
        self.strand_items.clear()
        self.key_of.clear()
        self.pair_keys.clear()
        self.node_pairs.clear()
        self._batch = None
        self._bundles = 0
        self._labels_on = True
        self._selected = set()

    def all_items(self) -> Iterator[LinkItem]:
        """Every link item once."""
        for items in self.strand_items.values():
            yield from items

    # ---------------------------------------------------------------- strands
    def update_links(self, link_ids: Iterable[str]) -> set[str]:
        """Put these links into the strands they belong to now (after links were added,
        removed or changed, or after their ends were folded or unfolded); returns the nodes
        at the ends of the strands they left or joined."""
        design = self.scene.design
        folding = self.scene.folding
        touched: set[StrandKey] = set()
        for link_id in link_ids:
            old = self.key_of.pop(link_id, None)
            if old is not None:
                self.strands[old].pop(link_id, None)
                self.items.pop(link_id, None)
                touched.add(old)
            link = design.links.get(link_id)
            if link is None:
                continue
            key = folding.strand_key(link)
            if key is None:
                continue
            self.key_of[link_id] = key
            self.strands.setdefault(key, {})[link_id] = None
            touched.add(key)
        self._refresh(touched)
        return {node for key in touched for node in key[:2]}

    def rebuild(self) -> None:
        """Strand every link of the design (the fast path for a whole design)."""
        rep = self.scene.folding.rep
        strands = self.strands
        key_of = self.key_of
        for link in self.scene.design.links.values():
            a, b = rep.get(link.a, link.a), rep.get(link.b, link.b)
            if a == b:
                continue
            key = (a, b, link.plane, link.speed_gbps) if a < b else \
                (b, a, link.plane, link.speed_gbps)
            strand = strands.get(key)
            if strand is None:
                strand = strands[key] = {}
            strand[link.id] = None
            key_of[link.id] = key
        self._refresh(set(strands))

    def _refresh(self, touched: set[StrandKey]) -> None:
        if not touched:
            return
        changed: list[LinkItem] = []
        for key in touched:
            changed += self._refresh_strand(key)
        for pair in {key[:2] for key in touched}:
            self._lay_out_pair(pair)
        self._update_bundle_labels()
        if self.batching or self.fine:
            self._apply_batching(changed)

    def _is_group(self, node: str) -> bool:
        return node in self.scene.design.groups

    def _refresh_strand(self, key: StrandKey) -> list[LinkItem]:
        """Make the items of one strand match its links; returns the items now drawing it."""
        scene = self.scene
        links = list(self.strands.get(key, ()))
        old_items = self.strand_items.pop(key, [])
        pair = key[:2]
        if not links:
            self.strands.pop(key, None)
            for item in old_items:
                self._drop(item)
            self.pair_keys[pair].discard(key)
            if not self.pair_keys[pair]:
                del self.pair_keys[pair]
                for node in pair:
                    self.node_pairs[node].discard(pair)
            return []
        design = scene.design
        bundle = len(links) > BUNDLE_ABOVE or self._is_group(pair[0]) or self._is_group(pair[1])
        new_items: list[LinkItem] = []
        if bundle:
            keep = next((i for i in old_items if isinstance(i, BundleItem)), None)
            first = design.links[links[0]]
            item = keep or self._make(first, links)
            item.set_link(first)
            item.set_members(links, True)
            item.end_labels = self._end_labels(item)
            new_items.append(item)
            for link_id in links:
                self.items[link_id] = item
        else:
            reuse = {i.link_id: i for i in old_items if not isinstance(i, BundleItem)}
            for link_id in links:
                item = reuse.pop(link_id, None) or self._make(design.links[link_id])
                item.set_link(design.links[link_id])
                item.set_members([link_id], False)
                new_items.append(item)
                self.items[link_id] = item
        for item in old_items:
            if item not in new_items:
                self._drop(item)
        self.strand_items[key] = new_items
        self.pair_keys[pair].add(key)
        for node in pair:
            self.node_pairs[node].add(pair)
        visible = self.strand_visible(key)
        for item in new_items:
            item.set_colour(scene.link_colour(item.link))
            if item.isVisible() != visible:
                item.setVisible(visible)
        return new_items

    def _end_labels(self, item: LinkItem) -> tuple[str, str]:
        rep = self.scene.folding.rep
        groups = self.scene.design.groups
        ends = []
        for end in (item.link.a, item.link.b):
            node = rep.get(end, end)
            ends.append(groups[node].label if node in groups else node)
        return ends[0], ends[1]

    def _make(self, link, bundle_of: list[str] | None = None) -> LinkItem:
        colour = self.scene.link_colour(link)
        item = (BundleItem(link, bundle_of, colour) if bundle_of
                else LinkItem(link, colour=colour))
        if self.batched(item):
            item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
        self.scene.addItem(item)
        return item

    def _drop(self, item: LinkItem) -> None:
        self._selected.discard(item)
        if item.scene() is not None:
            self.scene.removeItem(item)
        self.invalidate_batch()

    # ----------------------------------------------------------------- layout
    def _lay_out_pair(self, pair: Pair) -> None:
        """Each strand (same network and speed) is one bundle or several fanned lines."""
        lanes: list[list[LinkItem]] = []
        for key in sorted(self.pair_keys.get(pair, ()), key=lambda k: (k[2].value, k[3])):
            items = self.strand_items[key]
            if items and items[0].bundle_size > 1:
                lanes.append(items)
            else:
                lanes += [[item] for item in items]
        n = len(lanes)
        rep = self.scene.folding.rep
        for i, lane in enumerate(lanes):
            offset = (i - (n - 1) / 2) * FAN_SPACING * (2 if lane[0].bundle_size > 1 else 1)
            for item in lane:
                forward = rep.get(item.link.a, item.link.a) == pair[0]
                item.offset = offset if forward else -offset
                self.route(item)

    def route(self, item: LinkItem) -> None:
        """Place an item's line between its ends' nodes."""
        rep = self.scene.folding.rep
        a = self.scene.anchor(rep.get(item.link.a, item.link.a))
        b = self.scene.anchor(rep.get(item.link.b, item.link.b))
        item.set_ends(QPointF(a), QPointF(b))
        self.invalidate_batch()

    def route_node(self, node: str) -> None:
        """Re-place every line ending at ``node`` (it moved)."""
        for pair in self.node_pairs.get(node, ()):
            for key in self.pair_keys.get(pair, ()):
                for item in self.strand_items[key]:
                    self.route(item)

    def route_all(self) -> None:
        """Re-place every line."""
        for items in self.strand_items.values():
            for item in items:
                self.route(item)

    # ------------------------------------------------------------- appearance
    def strand_visible(self, key: StrandKey) -> bool:
        """Shown unless its network is hidden or one of its ends is."""
        scene = self.scene
        return (key[2] not in scene.hidden_planes and scene.node_visible(key[0])
                and scene.node_visible(key[1]))

    def refresh_visibility(self) -> None:
        """After a filter changed."""
        for key, items in self.strand_items.items():
            visible = self.strand_visible(key)
            for item in items:
                if item.isVisible() != visible:
                    item.setVisible(visible)
        self.invalidate_batch()

    def recolour(self) -> None:
        """After the colouring mode changed."""
        colour = self.scene.link_colour
        for item in self.all_items():
            item.set_colour(colour(item.link))
        self.invalidate_batch()

    def _update_bundle_labels(self) -> None:
        """Bundle counts stay on while few; when many bundles would overlap, they show on
        hover and selection only (the tooltip always has the count)."""
        bundles = [items[0] for items in self.strand_items.values()
                   if items and items[0].bundle_size > 1]
        show = len(bundles) <= MAX_BUNDLE_LABELS
        if show == self._labels_on and len(bundles) == self._bundles:
            return
        self._labels_on, self._bundles = show, len(bundles)
        for item in bundles:
            if item.show_count != show:
                item.show_count = show
                item.update()
        if self.fine:
            self._apply_batching(bundles)

    # --------------------------------------------------------------- batching
    def set_batching(self, on: bool) -> None:
        """Draw links through one LinkBatchItem (on: coarse) or each by itself (off)."""
        if on == self.batching:
            return
        self.batching = on
        self._switch()

    def set_fine(self, on: bool) -> None:
        """Draw plain links through the batch item when not coarse (on) or not (off)."""
        if on == self.fine:
            return
        self.fine = on
        self._switch()

    def _switch(self) -> None:
        active = self.batching or self.fine
        if active and self._batch is None:
            self._batch = LinkBatchItem(self)
            self.scene.addItem(self._batch)
        if self._batch is not None:
            self._batch.setVisible(active)
        self._apply_batching(self.all_items())

    def batched(self, item: LinkItem) -> bool:
        """True when the batch item draws ``item`` (it has no contents of its own then):
        coarse, every link but the selected ones; fine, plain links and bundles without
        their count, unless selected or under the mouse."""
        if item.isSelected():
            return False
        if self.batching:
            return True
        return self.fine and not item.hovered and (item.bundle_size == 1
                                                   or not item.show_count)

    def hover_changed(self, item: LinkItem) -> None:
        """The mouse entered or left ``item``: a bundle under it draws itself (its count)."""
        if self.fine and not self.batching:
            self._apply_batching([item])

    def _apply_batching(self, items: Iterable[LinkItem]) -> None:
        flag = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
        for item in items:
            batched = self.batched(item)
            if bool(item.flags() & flag) != batched:
                item.setFlag(flag, batched)
                if not batched:
                    item.update()
        self.invalidate_batch()

    def invalidate_batch(self) -> None:
        """Links changed: the batch redraws them at its next paint."""
        if (self.batching or self.fine) and self._batch is not None:
            self._batch.invalidate()

    def selection_changed(self, selected: set[LinkItem]) -> None:
        """Selected links draw themselves (highlighted) instead of through the batch."""
        flipped = selected ^ self._selected
        self._selected = selected
        if (self.batching or self.fine) and flipped:
            self._apply_batching(i for i in flipped if i.scene() is not None)
