"""Zoomed in on a large design, plain links and bundles that show no count are drawn by one
batch item exactly as they draw themselves; a pan repaints the opaque minimap and legend over
the scene and leaves the canvas as a full repaint draws it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSceneHoverEvent

from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
from fabricstudio.ui.canvas import scene as scene_module

NO_CONTENTS = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents


@pytest.fixture
def zoomed_in(make_window, monkeypatch, qtbot):
    """A 64-GPU rail-optimised fabric at 100 %, its plain links batched (as large ones are)."""
    monkeypatch.setattr(scene_module, "FINE_BATCH_FROM", 1)
    window = make_window(build_fabric(RailOptimizedSpec(gpus=64)).to_design())
    window.resize(1100, 700)
    window.view.fit()
    window.view.set_zoom(1.0)
    qtbot.waitUntil(lambda: window.scene.links.fine, timeout=5_000)
    return window


def _render(scene, rect: QRectF) -> QImage:
    image = QImage(int(rect.width()), int(rect.height()), QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.black)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    scene.render(painter, QRectF(image.rect()), rect)
    painter.end()
    return image


def _differing(a: QImage, b: QImage, tolerance: int = 0) -> float:
    """Share of pixels (sampled) that differ between two images of one size by more than
    ``tolerance`` in a colour channel."""
    assert a.size() == b.size()
    a = a.convertToFormat(QImage.Format.Format_ARGB32)
    b = b.convertToFormat(QImage.Format.Format_ARGB32)
    pa, pb = bytes(a.constBits()), bytes(b.constBits())
    samples = range(0, len(pa) // 4, 7)
    differ = sum(max(abs(x - y) for x, y in zip(pa[i * 4:i * 4 + 4], pb[i * 4:i * 4 + 4],
                                                 strict=True)) > tolerance for i in samples)
    return differ / len(samples)


def test_the_batch_draws_what_the_links_would_draw_themselves(zoomed_in):
    scene = zoomed_in.scene
    shown = [item for item in scene.links.all_items() if item.isVisible()]
    plain = [item for item in shown if item.bundle_size == 1]
    bundles = [item for item in shown if item.bundle_size > 1]
    assert plain and bundles
    assert all(item.flags() & NO_CONTENTS for item in plain)
    assert all(bool(item.flags() & NO_CONTENTS) == (not item.show_count) for item in bundles)
    rect = zoomed_in.view.visible_scene_rect()
    batched = _render(scene, rect)
    scene.fine_batching(False)  # as exports do: every link draws itself
    assert not any(item.flags() & NO_CONTENTS for item in shown)
    own = _render(scene, rect)
    assert _differing(batched, own) < 0.002  # the same lines, in another order
    scene.fine_batching(True)
    assert all(item.flags() & NO_CONTENTS for item in plain)


def test_a_selected_or_hovered_link_draws_itself(zoomed_in):
    scene = zoomed_in.scene
    link = next(i for i in scene.links.all_items() if i.isVisible() and i.bundle_size == 1)
    link.setSelected(True)
    assert not link.flags() & NO_CONTENTS  # highlighted by its own paint
    link.setSelected(False)
    assert link.flags() & NO_CONTENTS
    bundle = next(i for i in scene.links.all_items()
                  if i.isVisible() and i.bundle_size > 1 and not i.show_count)
    assert bundle.flags() & NO_CONTENTS
    bundle.hoverEnterEvent(QGraphicsSceneHoverEvent(QEvent.Type.GraphicsSceneHoverEnter))
    assert bundle.hovered and not bundle.flags() & NO_CONTENTS  # its count shows on hover
    bundle.hoverLeaveEvent(QGraphicsSceneHoverEvent(QEvent.Type.GraphicsSceneHoverLeave))
    assert not bundle.hovered and bundle.flags() & NO_CONTENTS


def test_a_pan_leaves_the_canvas_as_a_full_repaint_draws_it(zoomed_in, qtbot, qapp):
    view = zoomed_in.view
    assert not view.minimap.rect().isEmpty() and not view.legend_rect().isEmpty()
    screen = QGuiApplication.primaryScreen()
    bar = view.horizontalScrollBar()
    for step in (12, 12, 12, -12, 30):
        bar.setValue(bar.value() + step)  # the blit, then the exposed parts are painted
        qapp.processEvents()
    origin = view.viewport().mapToGlobal(QPoint(0, 0))
    size = view.viewport().size()
    panned = screen.grabWindow(0, origin.x(), origin.y(), size.width(), size.height()).toImage()
    view.viewport().update()
    view.viewport().repaint()
    whole = screen.grabWindow(0, origin.x(), origin.y(), size.width(), size.height()).toImage()
    assert panned.size() == whole.size() and not panned.isNull()
    # antialiased lines drawn in strips differ from whole ones in a few shades only
    assert _differing(panned, whole, tolerance=48) < 0.001
