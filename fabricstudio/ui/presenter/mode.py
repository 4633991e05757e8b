"""Presenter mode (F5): full screen, no editing chrome, edits locked, UI scale, high contrast.

Entering hides the menu bar, toolbars, docks and status bar, disables every action that could
change the design, makes the canvas read-only, scales the story's overlays (100-200 %, also a
preference) and optionally switches to the high-contrast theme; leaving (Esc or F5) puts all
of it back as it was.  While presenting, the keys a presentation clicker sends step the story:
Right / Down / PageDown / Space / Return forward, Left / Up / PageUp / Backspace back,
Home / End, P plays or pauses, K starts or stops the kiosk loop.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFontMetrics, QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QTabBar,
    QToolBar,
    QWidget,
)

from fabricstudio.ui.presenter.player import StoryPlayer
from fabricstudio.ui.theme import HIGH_CONTRAST, apply_theme

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.ui.main_window import MainWindow
    from fabricstudio.ui.simview.install import SimulationUi

#: UI scales offered (the preference and the View > Presenter menu).
UI_SCALES = (1.0, 1.25, 1.5, 1.75, 2.0)
FORWARD = {Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_PageDown, Qt.Key.Key_Space,
           Qt.Key.Key_Return, Qt.Key.Key_Enter}
BACK = {Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_PageUp, Qt.Key.Key_Backspace}
SETTING_SCALE = "presenter/ui_scale"
#: After leaving, the canvas view is put back again on every resize for this long (s): the
#: window settles back to its size in a few steps.
VIEW_SETTLE_S = 1.0
SETTING_CONTRAST = "presenter/high_contrast"


def ui_scale_setting(settings: QSettings) -> float | None:
    """The presenter UI scale chosen in the settings (1.0-2.0), or None: automatic."""
    value = settings.value(SETTING_SCALE)
    if value is None:
        return None
    try:
        return min(max(float(value), 1.0), 2.0)
    except (TypeError, ValueError):
        return None


def auto_scale(window: QWidget) -> float:
    """The UI scale that suits the (full-screen) window: 100 % up to 720 logical pixels of
    height, more when taller (150 % on 1080), in 25 % steps.  A screen already scaled by Qt
    (QT_SCALE_FACTOR) has fewer logical pixels, so the two do not multiply."""
    return min(max(round(window.height() / 720 * 4) / 4, 1.0), 2.0)


#: The badge's distance from the stage's lower right corner (px).
BADGE_MARGIN = 14


class Badge(QLabel):
    """Step counter and notices in the lower right corner of the stage."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setStyleSheet("QLabel { background: rgba(20, 22, 27, 200); color: #F2F4F7; "
                           "border-radius: 8px; padding: 5px 10px; }")
        self.hide()

    def show_text(self, text: str, scale: float) -> None:
        """Show ``text`` (empty hides the badge), elided to a quarter of the stage's width
        (at least 220 px at the UI scale): the caption and the banner keep the middle."""
        font = self.font()
        font.setPixelSize(round(13 * scale))
        self.setFont(font)
        parent = self.parentWidget()
        room = max(220 * scale, parent.width() / 4) - 20  # less the style's padding
        self.setText(QFontMetrics(font).elidedText(text, Qt.TextElideMode.ElideRight,
                                                   int(room)))
        self.setToolTip(text)
        self.adjustSize()
        self.move(parent.width() - self.width() - BADGE_MARGIN,
                  parent.height() - self.height() - BADGE_MARGIN)
        self.setVisible(bool(text))
        self.raise_()


class PresenterMode(QObject):
    """Presenter mode of one main window and its simulation view."""

    toggled = Signal(bool)
    #: The UI scale or high contrast changed (View > Presenter or Edit > Preferences).
    look_changed = Signal()

    def __init__(self, window: MainWindow, simulation_ui: SimulationUi,
                 settings: QSettings) -> None:
        super().__init__(window)
        self.window = window
        self.ui = simulation_ui
        self.settings = settings
        #: The presenter's own menu entries by name (View > Presenter, Help > Demos; set by
        #: ``build_presenter_menus``): usable while presenting.
        self.menu_actions: dict[str, QAction] = {}
        self.player = StoryPlayer(simulation_ui)
        self.active = False
        #: The chosen UI scale (None: automatic for the screen, see auto_scale).
        self.chosen_scale = ui_scale_setting(settings)
        self.high_contrast = str(settings.value(SETTING_CONTRAST, "false")).lower() == "true"
        self._saved: dict = {}
        #: Set when presenting opened its own design (a demo): leaving fits that fabric.
        self.fit_on_leave = False
        self._fit_view = False
        self._settle_until = 0.0
        self.badge = Badge(simulation_ui.stage)
        self._notice = ""
        self._badge_timer = QTimer(self)
        self._badge_timer.setSingleShot(True)
        self._badge_timer.timeout.connect(self._refresh_badge)
        self.player.step_changed.connect(lambda _i, _n: self._refresh_badge())
        self.player.notice.connect(self._on_notice)

    # ------------------------------------------------------------------ switching
    def toggle(self) -> None:
        """Enter or leave presenter mode."""
        if self.active:
            self.leave()
        else:
            self.enter()

    def enter(self) -> None:
        """Full screen, no chrome, edits locked, overlays scaled; the story (if any) starts."""
        if self.active:
            return
        window = self.window
        self._saved = {
            "full_screen": window.isFullScreen(), "maximized": window.isMaximized(),
            "geometry": window.saveGeometry(), "state": window.saveState(),
            "menu": window.menuBar().isVisible(), "status": window.statusBar().isVisible(),
            "docks": [d for d in window.findChildren(QDockWidget) if d.isVisible()],
            "bars": [b for b in window.findChildren(QToolBar) if b.isVisible()],
            "actions": self._lock_actions(),
            "theme": window.scene.theme,
            "context": window.view.contextMenuPolicy(),
            "scroll_bars": (window.view.horizontalScrollBarPolicy(),
                            window.view.verticalScrollBarPolicy()),
            "view": (window.view.zoom(),
                     window.view.mapToScene(window.view.viewport().rect().center())),
        }
        self.active = True
        for dock in self._saved["docks"]:
            dock.hide()
        for bar in self._saved["bars"]:
            bar.hide()
        window.menuBar().hide()
        window.statusBar().hide()
        window.view.setInteractive(False)
        window.view.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
        for set_policy in (window.view.setHorizontalScrollBarPolicy,
                           window.view.setVerticalScrollBarPolicy):  # no editing chrome
            set_policy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        window.view.legend_suppressed = True
        window.scene.set_port_badges(False)  # editing chrome
        self.ui.stage.side_by_side.controls.hide()
        window.showFullScreen()
        screen = window.screen()
        if screen is not None:  # also where no window manager acts on full screen (Xvfb)
            window.setGeometry(screen.geometry())
        self._saved["tabs"] = [bar for bar in window.findChildren(QTabBar)
                               if bar.parent() is window and bar.isVisible()]
        for bar in self._saved["tabs"]:  # tabbed docks leave their tab bars behind
            bar.hide()
        self._apply_look()
        QApplication.instance().installEventFilter(self)
        self.toggled.emit(True)
        QTimer.singleShot(0, self._start)

    def _start(self) -> None:
        if not self.active:
            return
        self.window.view.fit()
        if self.player.story is not None:
            self.player.show(max(0, self.player.index))
        self._refresh_badge()

    def leave(self) -> None:
        """Back to the designer exactly as it was."""
        if not self.active:
            return
        self.active = False
        self.player.stop_kiosk()
        QApplication.instance().removeEventFilter(self)
        window = self.window
        saved = self._saved
        for action, enabled in saved["actions"]:
            action.setEnabled(enabled)
        window.view.setInteractive(True)
        window.view.setContextMenuPolicy(saved["context"])
        window.view.setHorizontalScrollBarPolicy(saved["scroll_bars"][0])
        window.view.setVerticalScrollBarPolicy(saved["scroll_bars"][1])
        QTimer.singleShot(0, self._restore_view)  # once the window has its size back
        if saved["theme"] is not window.scene.theme:
            window.scene.set_theme(saved["theme"])
            apply_theme(QApplication.instance(), saved["theme"])
        if not saved["full_screen"]:
            window.showNormal()
            window.restoreGeometry(saved["geometry"])
            if saved["maximized"]:
                window.showMaximized()
        window.menuBar().setVisible(saved["menu"])
        window.statusBar().setVisible(saved["status"])
        window.restoreState(saved["state"])  # docks, toolbars and dock tab bars as they were
        window.view.legend_suppressed = self.ui.overlays.active
        window.scene.set_port_badges(True)
        self.ui.stage.side_by_side.controls.show()
        self.ui.overlays.caption.side_margin = 0.0
        self.ui.stage.side_by_side.banner.setContentsMargins(0, 0, 0, 0)
        self.ui.overlays.set_scale(1.0)
        self.ui.overlays.set_story_caption(None)
        self.ui.refresh_caption()  # the run's own caption again (none without a run)
        self.ui.stage.side_by_side.set_ui_scale(1.0)
        self.badge.hide()
        self.toggled.emit(False)

    def _restore_view(self) -> None:
        """The canvas as it was before presenting (zoom and centre), or the whole fabric
        when presenting opened another design (a demo); again whenever the canvas is
        resized in the next second, while the window settles back to its size."""
        self._fit_view = self.fit_on_leave
        self.fit_on_leave = False
        self._settle_until = time.monotonic() + VIEW_SETTLE_S
        self.window.view.viewport().installEventFilter(self)
        self._apply_view()

    def _apply_view(self) -> None:
        view = self.window.view
        if self.active:
            return
        if time.monotonic() > self._settle_until:
            view.viewport().removeEventFilter(self)
        if self._fit_view:
            view.fit()
            return
        zoom, centre = self._saved["view"]
        view.set_zoom(zoom)
        view.centerOn(centre)

    def _lock_actions(self) -> list[tuple[QAction, bool]]:
        """Disable every action except the presenter's own and the view-only ones; returns
        (action, was enabled) to put back."""
        allowed = set(self.allowed_actions())
        saved = []
        for action in self.window.findChildren(QAction):
            if action in allowed or action.menu() is not None:
                continue
            saved.append((action, action.isEnabled()))
            action.setEnabled(False)
        return saved

    def allowed_actions(self) -> list[QAction]:
        """Actions that stay usable while presenting (they change no design)."""
        act = self.window.act
        allowed = [act.fit, act.zoom_in, act.zoom_out, act.zoom_100, act.quit]
        allowed += [self.ui.actions[name] for name in (
            "Play / pause", "Step forward", "Step back", "Jump to first PAUSE",
            "Jump to peak queue", "Jump to first drop")]
        allowed += list(self.menu_actions.values())
        return allowed

    # ------------------------------------------------------------------ look
    @property
    def scale(self) -> float:
        """The UI scale in effect (the chosen one, or automatic for the screen)."""
        return self.chosen_scale if self.chosen_scale is not None else auto_scale(self.window)

    def set_scale(self, scale: float | None) -> None:
        """UI scale of the presenter (1.0-2.0, remembered; None: automatic)."""
        self.chosen_scale = None if scale is None else min(max(float(scale), 1.0), 2.0)
        if self.chosen_scale is None:
            self.settings.remove(SETTING_SCALE)
        else:
            self.settings.setValue(SETTING_SCALE, self.chosen_scale)
        if self.active:
            self._apply_look()
        self.look_changed.emit()

    def set_high_contrast(self, on: bool) -> None:
        """Black canvas, white type (remembered)."""
        self.high_contrast = bool(on)
        self.settings.setValue(SETTING_CONTRAST, "true" if on else "false")
        if self.active:
            self._apply_look()
        self.look_changed.emit()

    def _apply_look(self) -> None:
        window = self.window
        theme = HIGH_CONTRAST if self.high_contrast else self._saved.get("theme",
                                                                        window.scene.theme)
        if window.scene.theme is not theme:
            window.scene.set_theme(theme)
            apply_theme(QApplication.instance(), theme)
        self.ui.overlays.set_scale(self.scale)
        self.ui.stage.side_by_side.set_ui_scale(self.scale)
        self._refresh_badge()  # and the caption's and the banner's room beside it

    # ------------------------------------------------------------------ badge
    def _on_notice(self, text: str) -> None:
        self._notice = text
        self._refresh_badge()

    def _refresh_badge(self) -> None:
        if not self.active:
            return
        player = self.player
        parts = []
        if self._notice:
            parts.append(self._notice)
        elif player.story is not None and player.index >= 0:
            parts.append(f"{player.index + 1} / {player.count}")
            if note := player.cache_note():
                parts.append(note)
        if player.kiosk_on:
            parts.append("kiosk")
        self.badge.show_text("  ·  ".join(parts), self.scale)
        self._clear_of_badge()

    def _clear_of_badge(self) -> None:
        """Keep the caption and the side-by-side banner clear of the badge in the lower right
        corner: both stay centred with as much room on each side as the badge takes (at least
        90 px at the UI scale); a longer badge ("3 / 10  ·  cached runs  ·  kiosk") used to cover
        the end of their last line."""
        room = 90 * self.scale
        if self.badge.isVisible():
            room = max(room, self.badge.width() + BADGE_MARGIN + 8 * self.scale)
        caption = self.ui.overlays.caption
        if caption.side_margin != room:
            caption.side_margin = room
            self.ui.overlays.place()
        margin = round(room)
        self.ui.stage.side_by_side.banner.setContentsMargins(margin, 0, margin, 0)

    # ------------------------------------------------------------------ keys
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if not self.active:
            if (watched is self.window.view.viewport() and event.type() == QEvent.Type.Resize
                    and time.monotonic() <= self._settle_until):
                QTimer.singleShot(0, self, self._apply_view)
            return False
        if watched is self.window and event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self, self._apply_look)  # the automatic scale follows
            return False
        if event.type() != QEvent.Type.KeyPress:
            return False
        if not isinstance(event, QKeyEvent) or not self.window.isActiveWindow():
            return False
        return self.handle_key(event.key(), event.modifiers())

    def handle_key(self, key: int, modifiers=Qt.KeyboardModifier.NoModifier) -> bool:
        """Act on a presenter key; True when it was one."""
        if modifiers & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
            return False
        player = self.player
        if key in (Qt.Key.Key_Escape, Qt.Key.Key_F5):
            self.leave()
        elif key in FORWARD:
            player.next()
        elif key in BACK:
            player.previous()
        elif key == Qt.Key.Key_Home:
            player.first()
        elif key == Qt.Key.Key_End:
            player.last()
        elif key == Qt.Key.Key_P:
            self._play_pause()
        elif key == Qt.Key.Key_K:
            if player.kiosk_on:
                player.stop_kiosk()
            else:
                player.start_kiosk()
            self._refresh_badge()
        else:
            return False
        return True

    def _play_pause(self) -> None:
        stage = self.ui.stage
        if stage.showing_side_by_side:
            stage.side_by_side.toggle_play()
        else:
            self.ui.controls.play_button.click()
