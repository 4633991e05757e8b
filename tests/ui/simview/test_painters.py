"""The side-by-side pane header's bar: GPUs by state while the run goes on; once it is over
(every GPU idle) the bar is filled to the utilisation written beside it, not a full grey bar
that reads as 100 %."""

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from fabricstudio.ui.simview.gpu_rings import STATE_COLOURS
from fabricstudio.ui.simview.painters import GaugeData, paint_pane_header, pane_header_height

WIDTH = 400


def _bar_colours(data: GaugeData) -> list[QColor]:
    """Colours along the header's bar at 10 %, 30 %, ..., 90 % of its length."""
    height = round(pane_header_height())
    image = QImage(WIDTH, height, QImage.Format.Format_RGB32)
    image.fill(QColor("black"))
    painter = QPainter(image)
    paint_pane_header(painter, QRectF(0, 0, WIDTH, height), "InfiniBand", data)
    painter.end()
    pad, y = 10, height - 10  # the bar: 10 px in from each side, 14..6 px above the bottom
    return [image.pixelColor(round(pad + (WIDTH - 2 * pad) * f), y)
            for f in (0.1, 0.3, 0.5, 0.7, 0.9)]


def test_a_finished_run_fills_the_bar_to_its_utilisation(qapp):
    colours = _bar_colours(GaugeData(0.6, (0, 0, 0, 64)))
    green = STATE_COLOURS[0]
    assert [c == green for c in colours] == [True, True, True, False, False]


def test_while_running_the_bar_shows_the_gpus_by_state(qapp):
    colours = _bar_colours(GaugeData(0.6, (16, 0, 48, 0)))  # a quarter computing, rest waiting
    assert colours[0] == STATE_COLOURS[0]
    assert all(c == STATE_COLOURS[2] for c in colours[2:])
