"""The presenter's menu entries (View > Presenter, Help > Demos) and opening demos and story
files: the demo's design replaces the window's (after the unsaved-changes question), its
scenario goes to the scenario panel, its story to the player, and presenter mode starts."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from fabricstudio.formats.design_file import DesignFileError, atomic_write_text
from fabricstudio.formats.story import Story, dump_story
from fabricstudio.sim.demos import Demo, DemoError, demo_names, load_demo, load_story_file
from fabricstudio.sim.scenario import dump_scenario
from fabricstudio.topology.layout import design_layout, needs_layout
from fabricstudio.ui.presenter.mode import UI_SCALES, PresenterMode

STORY_FILTER = "FabricStudio stories (*.story.json);;All files (*)"


def _top_menu(window, title: str) -> QMenu:
    for action in window.menuBar().actions():
        if action.text().replace("&", "") == title and action.menu() is not None:
            return action.menu()
    return window.menuBar().addMenu(title)


def build_presenter_menus(window, ui, presenter: PresenterMode) -> dict[str, QAction]:
    """Add View > Presenter and Help > Demos; returns the presenter's actions by name."""
    menu = _top_menu(window, "View").addMenu("P&resenter")
    actions: dict[str, QAction] = {}

    def add(name: str, slot, key: str | None = None, checkable: bool = False,
            tip: str = "") -> QAction:
        action = QAction(name, window)
        action.setCheckable(checkable)
        if key:
            action.setShortcut(QKeySequence(key))
        if tip or key:
            action.setToolTip(f"{tip or name.rstrip('…')}" + (f"  ({key})" if key else ""))
        if checkable:
            action.toggled.connect(slot)
        else:
            action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        actions[name.replace("&", "").rstrip("…")] = action
        return action

    add("&Presenter mode", presenter.toggle, "F5",
        tip="Full screen, no editing chrome, story steps with the arrow keys or a clicker")
    add("Present a &story…", lambda: open_story_dialog(window, ui, presenter))
    add("&Add this view as a story step", lambda: add_step(ui, presenter), "Ctrl+Shift+A",
        tip="Append the shown fabric, camera, time and caption to the story")
    add("Sa&ve story…", lambda: save_story_dialog(window, ui, presenter))
    menu.addSeparator()
    kiosk = add("&Kiosk loop", lambda on: presenter.player.start_kiosk() if on
                else presenter.player.stop_kiosk(), checkable=True,
                tip="Step through the story by itself, again and again (trade shows)")
    presenter.player.kiosk.timeout.connect(
        lambda: kiosk.setChecked(presenter.player.kiosk_on))
    contrast = add("&High contrast", presenter.set_high_contrast, checkable=True,
                   tip="Black canvas and white type for washed-out projectors")
    contrast.setChecked(presenter.high_contrast)
    scales = menu.addMenu("&UI scale")
    group = QActionGroup(window)
    automatic = QAction("Automatic (by screen size)", window, checkable=True)
    automatic.setChecked(presenter.chosen_scale is None)
    automatic.triggered.connect(lambda _c=False: presenter.set_scale(None))
    group.addAction(automatic)
    scales.addAction(automatic)
    actions["UI scale automatic"] = automatic
    for scale in UI_SCALES:
        action = QAction(f"{scale * 100:.0f} %", window, checkable=True)
        action.setChecked(presenter.chosen_scale is not None
                          and abs(scale - presenter.chosen_scale) < 1e-6)
        action.triggered.connect(lambda _c=False, s=scale: presenter.set_scale(s))
        group.addAction(action)
        scales.addAction(action)
        actions[f"UI scale {scale * 100:.0f} %"] = action

    def show_look() -> None:  # Edit > Preferences changes the same settings
        contrast.setChecked(presenter.high_contrast)
        chosen = presenter.chosen_scale
        automatic.setChecked(chosen is None)
        for scale in UI_SCALES:
            if chosen is not None and abs(scale - chosen) < 1e-6:
                actions[f"UI scale {scale * 100:.0f} %"].setChecked(True)

    presenter.look_changed.connect(show_look)
    demos = _top_menu(window, "Help").addMenu("&Demos")
    for name in demo_names():
        try:
            title = load_demo(name).title
        except DemoError:
            continue
        action = demos.addAction(title)
        action.setToolTip(f"Open the bundled demo {name} in presenter mode")
        action.triggered.connect(lambda _c=False, n=name: open_demo(window, ui, presenter, n))
        actions[f"Demo {name}"] = action
    return actions


def present(window, ui, presenter: PresenterMode, demo: Demo) -> bool:
    """Open ``demo``'s design, scenario and story and start presenting it."""
    if not window.files.maybe_save():
        return False
    presenter.leave()
    design = demo.design
    if needs_layout(design):
        design.move_devices(design_layout(design))
    window.files.replace(design.to_data(), None)
    if demo.scenario is not None:
        ui.scenario.use_scenario(demo.scenario, demo.story.scenario or demo.name)
    presenter.player.load(demo.story)
    presenter.enter()
    presenter.fit_on_leave = True  # the demo's fabric was never shown outside the presenter
    return True


def open_demo(window, ui, presenter: PresenterMode, name: str | None = None) -> bool:
    """Open a bundled demo (Help > Demos) straight into presenter mode."""
    try:
        demo = load_demo(name)
    except DemoError as exc:
        QMessageBox.critical(window, "Cannot open the demo", str(exc))
        return False
    return present(window, ui, presenter, demo)


def open_story_dialog(window, ui, presenter: PresenterMode) -> bool:
    """Ask for a story file and present it."""
    path, _ = QFileDialog.getOpenFileName(window, "Present a story", "", STORY_FILTER)
    if not path:
        return False
    try:
        demo = load_story_file(path)
    except DemoError as exc:
        QMessageBox.critical(window, "Cannot open the story", str(exc))
        return False
    return present(window, ui, presenter, demo)


def add_step(ui, presenter: PresenterMode) -> None:
    """Append the view as it is now to the story (a new story when there is none)."""
    player = presenter.player
    step = player.current_step()
    story = player.story
    steps = [*story.steps, step] if story is not None else [step]
    base = story.model_dump() if story is not None else {"name": ui.window.design.name}
    player.story = Story.model_validate({**base, "steps": [s.model_dump() for s in steps]})
    player.index = len(steps) - 1
    ui.window.statusBar().showMessage(
        f"Added step {len(steps)} to the story (View > Presenter > Save story…)", 6000)


def save_story_dialog(window, ui, presenter: PresenterMode) -> bool:
    """Save the story with the design and scenario next to it (three files)."""
    story = presenter.player.story
    if story is None:
        QMessageBox.information(window, "No story yet",
                                "Add the views you want to show with View > Presenter > "
                                "Add this view as a story step, then save.")
        return False
    path, _ = QFileDialog.getSaveFileName(window, "Save story", "demo.story.json", STORY_FILTER)
    if not path:
        return False
    return save_story(window, ui, story, Path(path))


def save_story(window, ui, story: Story, path: Path) -> bool:
    """Write ``story`` to ``path`` with ``<stem>.design.json`` (and the scenario, when one is
    loaded) beside it; the story names them."""
    from fabricstudio.formats import dump_design

    stem = path.name.removesuffix(".json").removesuffix(".story")
    design_name = f"{stem}.design.json"
    updates = {"design": design_name}
    files = {path.with_name(design_name): dump_design(window.design)}
    loaded = ui.scenario.loaded
    if loaded is not None:
        scenario_name = f"{stem}.scenario.json"
        updates["scenario"] = scenario_name
        files[path.with_name(scenario_name)] = dump_scenario(loaded[1])
    story = story.model_copy(update=updates)
    files[path if path.name.endswith(".json") else path.with_name(path.name + ".json")] = \
        dump_story(story)
    try:
        for target, text in files.items():
            atomic_write_text(target, text)
    except DesignFileError as exc:
        QMessageBox.critical(window, "Cannot save the story", str(exc))
        return False
    window.statusBar().showMessage(f"Saved the story to {path}", 6000)
    return True
