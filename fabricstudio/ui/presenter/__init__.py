"""Presenter mode (F5): the canvas full screen without editing chrome, edits locked, large
type, a storyboard stepped with the arrow keys, PageUp/PageDown or a clicker, a kiosk loop."""

from __future__ import annotations

from fabricstudio.ui.presenter.mode import PresenterMode
from fabricstudio.ui.presenter.player import StoryPlayer

__all__ = ["PresenterMode", "StoryPlayer"]
