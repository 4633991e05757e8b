"""Tools for reading and editing large fabrics, as one collaborator of the main window: group
and ungroup, expand and collapse, colour by rail or tier, tier filters, focus on the N hops
around the selection, semantic zoom and the minimap, and bulk wiring (Connect selection).

``CanvasTools(window)`` adds its actions to the window's Edit and View menus and to the
canvas context menu; it needs the window's ``design``, ``scene``, ``view``, ``editor``,
``_commit``, ``show_message``, ``edit_menu``, ``view_menu``, ``colour_group`` and
``statusBar()``.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QInputDialog, QLabel, QMenu

from fabricstudio.model import Group, GroupKind
from fabricstudio.model.commands import AddFragment, GroupObjects, Ungroup
from fabricstudio.model.groups import lift_selection
from fabricstudio.topology.neighbourhood import neighbourhood
from fabricstudio.ui import preferences as prefs

#: Tiers of the tier filter: (tier, menu text).
TIERS = ((0, "&Servers (GPU and storage)"), (1, "&Leaves and management switches"),
         (2, "S&pines"), (3, "&Cores"))
MAX_HOPS = 12


class CanvasTools:
    """Actions for large fabrics (see the module docstring)."""

    def __init__(self, window) -> None:
        self.window = window
        w = window
        #: What the focus filter shows ("Focus: N devices within H hops of ...").
        self._focus_text = "Focus"
        self.act_group = self._action("&Group", self.group_selection, "Ctrl+G",
                                      "Make a group of the selected devices and groups")
        self.act_ungroup = self._action("U&ngroup", self.ungroup_selection, "Ctrl+Shift+U",
                                        "Dissolve the selected groups (their devices stay)")
        self.act_expand = self._action("E&xpand groups", self.expand_selection, None,
                                       "Open the selected collapsed groups in place")
        self.act_collapse = self._action("C&ollapse groups", self.collapse_selection, None,
                                         "Draw the selected groups as one tile each")
        self.act_connect = self._action("Connect se&lection…", self.connect_selection, "Ctrl+K",
                                        "Wire the selected devices in one step (rail-wise, "
                                        "round-robin or fill free ports)")
        self.act_colour_rail = self._checkable("Colour links by &rail", "Ctrl+Shift+3",
                                               lambda on: on and w.colour_links_by("rail"))
        self.act_colour_tier = self._checkable("Colour links by &tier", "Ctrl+Shift+4",
                                               lambda on: on and w.colour_links_by("tier"))
        w.act.colour_group.addAction(self.act_colour_rail)
        w.act.colour_group.addAction(self.act_colour_tier)
        self.tier_actions: dict[int, QAction] = {}
        for tier, text in TIERS:
            action = self._checkable(text, f"Ctrl+Alt+{tier + 1}",
                                     lambda on, t=tier: self.set_tier_visible(t, on),
                                     checked=True)
            self.tier_actions[tier] = action
        self.act_focus = self._action("&Focus on neighbourhood…", self.focus_dialog,
                                      "Ctrl+Alt+F", "Show only the devices within N hops of "
                                      "the selection")
        self.act_show_all = self._action("Show &everything", self.show_everything,
                                         "Ctrl+Alt+A", "Clear the focus and the tier filters")
        semantic = prefs.get(w.settings, "semanticZoom")
        self.act_semantic = self._checkable("&Semantic zoom", None, self.set_semantic_zoom,
                                            "Fold racks, units and pods into tiles when they "
                                            "are small on screen", checked=semantic)
        if not semantic:
            w.scene.set_semantic_zoom(False)
        minimap = prefs.get(w.settings, "minimap")
        self.act_minimap = self._checkable("&Minimap", "Ctrl+M", self.set_minimap_visible,
                                           "Overview of the whole design (when zoomed in)",
                                           checked=minimap)
        w.view.set_minimap_visible(minimap)
        self.focus_label = QLabel()
        self.focus_label.hide()
        w.statusBar().addWidget(self.focus_label)
        self._install_menus()

    # ------------------------------------------------------------- building
    def _action(self, text: str, slot, shortcut, tip: str) -> QAction:
        action = QAction(text, self.window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            tip += f"  ({action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)})"
        action.setToolTip(tip)
        action.triggered.connect(lambda _=False: slot())
        self.window.addAction(action)
        return action

    def _checkable(self, text: str, shortcut, slot, tip: str = "",
                   checked: bool = False) -> QAction:
        action = QAction(text, self.window)
        action.setCheckable(True)
        action.setChecked(checked)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(tip or text.replace("&", ""))
        action.toggled.connect(slot)
        self.window.addAction(action)
        return action

    def _install_menus(self) -> None:
        w = self.window
        edit: QMenu = w.act.edit_menu
        edit.insertAction(w.act.link_tool, self.act_connect)
        edit.addSeparator()
        edit.addActions([self.act_group, self.act_ungroup, self.act_expand, self.act_collapse])
        view: QMenu = w.act.view_menu
        actions = view.actions()
        after_colours = actions[actions.index(w.act.colour_plane) + 1]
        view.insertActions(after_colours, [self.act_colour_rail, self.act_colour_tier])
        anchor = w.act.legend
        tiers = QMenu("&Tiers", view)
        tiers.addActions(list(self.tier_actions.values()))
        view.insertMenu(anchor, tiers)
        view.insertActions(anchor, [self.act_focus, self.act_show_all])
        view.insertSeparator(anchor)
        view.insertActions(anchor, [self.act_semantic, self.act_minimap])
        self.tiers_menu = tiers

    def extend_context_menu(self, menu: QMenu) -> None:
        """Entries for the canvas context menu (selection-dependent)."""
        scene = self.window.scene
        menu.addSeparator()
        groups = scene.selected_group_ids()
        if any(scene.is_collapsed(g) for g in groups):
            menu.addAction(self.act_expand)
        if any(not scene.is_collapsed(g) for g in groups):
            menu.addAction(self.act_collapse)
        if self.window.editor.selected_device_ids():
            menu.addAction(self.act_connect)
            menu.addAction(self.act_group)
            if groups:
                menu.addAction(self.act_ungroup)
            menu.addAction(self.act_focus)
        if scene.focus is not None:
            menu.addAction(self.act_show_all)

    # ----------------------------------------------------------- bulk wiring
    def connect_selection(self) -> int:
        """Ask how to wire the selection, show the count, add the links as one step;
        returns the number of links added."""
        from fabricstudio.ui.dialogs.connect_dialog import ConnectDialog

        w = self.window
        ids = w.editor.selected_device_ids()
        if len(ids) < 2:
            w.show_message("Select servers and the switches to connect them to (or switches "
                           "of two tiers)")
            return 0
        dialog = ConnectDialog(w.design, ids, w)
        if not dialog.exec() or not dialog.plan.links:
            return 0
        links = dialog.plan.links
        before = len(w.design.links)
        w._commit(AddFragment([], links, label=f"Connect {len(links):,} links "
                                               f"({dialog.strategy()})"))
        added = len(w.design.links) - before
        if added:
            w.show_message(f"Connected: {dialog.plan.describe(w.design)}")
        return added

    # --------------------------------------------------------------- groups
    def group_selection(self) -> str | None:
        """Group the selected devices (whole groups stand for their devices); returns the
        new group's id.  One undo step."""
        w = self.window
        design = w.design
        devices = w.editor.selected_device_ids()
        members = lift_selection(design.group_tree(), devices)
        if not members:
            w.show_message("Select the devices (or groups) to group")
            return None
        if len(members) == 1 and members[0] in design.groups:
            w.show_message(f"{design.group(members[0]).label} is already a group")
            return None
        group_id = design.unique_id("group")
        number = group_id.removeprefix("group")
        group = Group(id=group_id, kind=GroupKind.GROUP, name=f"Group {number}",
                      members=tuple(members))
        w._commit(GroupObjects(group))
        if group_id not in design.groups:
            return None  # refused (the status bar says why)
        w.editor.select_ids([group_id])
        w.show_message(f"Grouped {len(members)} items as {group.label} (rename it in the "
                       "Inspector)")
        return group_id

    def ungroup_selection(self) -> None:
        """Dissolve the selected groups, or the group directly holding the selected devices."""
        w = self.window
        groups = w.scene.selected_group_ids()
        if not groups:
            parents = {w.design.group_of(d) for d in w.editor.selected_device_ids()}
            groups = [g for g in parents if g is not None]
        if not groups:
            w.show_message("Select a group (its tile, or its frame's name) to ungroup")
            return
        w._commit(Ungroup(groups))
        w.show_message("Ungrouped " + ", ".join(groups))

    def expand_selection(self) -> None:
        """Open the selected collapsed groups in place."""
        scene = self.window.scene
        for group_id in [g for g in scene.selected_group_ids() if scene.is_collapsed(g)]:
            scene.expand_group(group_id)

    def collapse_selection(self) -> None:
        """Fold the selected groups, or the groups directly holding the selected devices."""
        w = self.window
        scene = w.scene
        groups = [g for g in scene.selected_group_ids() if not scene.is_collapsed(g)]
        if not groups:
            parents = {w.design.group_of(d) for d in w.editor.selected_device_ids()}
            groups = [g for g in parents if g is not None and not scene.is_collapsed(g)]
        if not groups:
            w.show_message("Select expanded groups (or devices in them) to collapse")
        for group_id in groups:
            scene.collapse_group(group_id)

    # -------------------------------------------------------------- filters
    def set_tier_visible(self, tier: int, visible: bool) -> None:
        """Show or hide one tier of devices."""
        w = self.window
        w.scene.set_tier_visible(tier, visible)
        if self.tier_actions[tier].isChecked() != visible:
            self.tier_actions[tier].setChecked(visible)
        w.view.refresh_legend()
        self._update_focus_label()

    def focus_dialog(self) -> None:
        """Ask for N and show only the N-hop neighbourhood of the selection."""
        w = self.window
        if not w.editor.selected_device_ids():
            w.show_message("Select the devices to focus on first")
            return
        hops, ok = QInputDialog.getInt(w, "Focus on neighbourhood",
                                       "Show the devices within this many hops (links) of the "
                                       "selection:", 1, 0, MAX_HOPS)
        if ok:
            self.focus(hops)

    def focus(self, hops: int) -> set[str]:
        """Show only the devices within ``hops`` links of the selection; returns them."""
        w = self.window
        start = w.editor.selected_device_ids()
        shown = neighbourhood(w.design, start, hops, w.scene.hidden_planes)
        w.scene.set_focus(shown)
        self._focus_text = (f"Focus: {len(shown):,} devices within {hops} hop"
                            f"{'s' * (hops != 1)} of {len(start):,} selected")
        self._update_focus_label()
        w.view.refresh_legend()
        w.view.fit()
        w.show_message(self._focus_text + " — View > Show everything to see the rest")
        return shown

    def show_everything(self) -> None:
        """Clear the focus and show every tier."""
        w = self.window
        w.scene.set_focus(None)
        for tier, action in self.tier_actions.items():
            action.setChecked(True)
            w.scene.set_tier_visible(tier, True)
        self._update_focus_label()
        w.view.refresh_legend()
        w.view.fit()

    def _update_focus_label(self) -> None:
        scene = self.window.scene
        parts = []
        if scene.focus is not None:
            parts.append(self._focus_text)
        if scene.hidden_tiers:
            names = [text.replace("&", "").split(" (")[0] for t, text in TIERS
                     if t in scene.hidden_tiers]
            parts.append("hidden: " + ", ".join(names))
        self.focus_label.setText(" · ".join(parts))
        self.focus_label.setVisible(bool(parts))

    def set_minimap_visible(self, on: bool) -> None:
        """Show or hide the minimap (remembered)."""
        self.window.view.set_minimap_visible(on)
        prefs.put(self.window.settings, "minimap", on)

    def set_semantic_zoom(self, on: bool) -> None:
        """Fold small groups automatically (on) or draw every device (off); remembered."""
        w = self.window
        w.scene.set_semantic_zoom(on)
        prefs.put(w.settings, "semanticZoom", on)
        w.show_message("Semantic zoom " + ("on: racks, units and pods fold into tiles when "
                                          "small" if on else "off: every device is drawn"))

