"""The Compare panel's bar charts: every value label lies whole inside its chart, any size."""

import pytest
from PySide6.QtCore import QRectF

from fabricstudio.ui.panels.compare_charts import MIN_LABEL_PX, Chart, chart_layout

NAMES = ("InfiniBand", "RoCE + DCQCN", "RoCE PFC only", "Lossy Ethernet")
#: The MoE demo's figures, as the table writes them.
DEMO = (Chart("gpu_utilisation", "GPU utilisation", [0.683, 0.68, 0.68, 0.155],
              ["68.3%", "68.0%", "68.0%", "15.5%"], 1.0),
        Chart("completion_time_s", "Completion time", [5.86e-3, 5.883e-3, 5.884e-3, 25.755e-3],
              ["5.860 ms", "5.883 ms", "5.884 ms", "25.755 ms"]),
        Chart("dropped", "Drops", [0, 0, 0, 3476], ["0", "0", "0", "3,476"]))


def _inside(inner: QRectF, outer: QRectF) -> bool:
    slack = 0.5
    return (inner.left() >= outer.left() - slack and inner.right() <= outer.right() + slack
            and inner.top() >= outer.top() - slack and inner.bottom() <= outer.bottom() + slack)


@pytest.mark.parametrize("size", [(512, 239), (330, 120), (1200, 420), (700, 150),
                                  (200, 90), (90, 40)])
def test_value_labels_lie_inside_their_chart_beside_their_bar(qapp, size):
    area = QRectF(0, 0, *size)
    found = chart_layout(area, NAMES, DEMO, 13)
    assert [c.key for c in found.charts] == ["gpu_utilisation", "completion_time_s", "dropped"]
    for chart in found.charts:
        assert _inside(chart.rect, area)
        assert len(chart.bars) == 4
        for bar in chart.bars:
            assert _inside(bar.rect, chart.rect), (size, chart.key, bar.text)
            assert _inside(bar.label_rect, chart.rect), (size, chart.key, bar.text)
            assert bar.label_rect.left() >= bar.rect.right()
            assert bar.label_px >= MIN_LABEL_PX


@pytest.mark.parametrize("size", [(512, 239), (330, 120), (1200, 420)])
def test_labels_are_whole_from_the_widgets_minimum_size_up(qapp, size):
    """The clipped "3,47" of the old charts: from the minimum size up the label is the
    table's whole text, and the longest bar is the largest value."""
    found = chart_layout(QRectF(0, 0, *size), NAMES, DEMO, 13)
    for chart, given in zip(found.charts, DEMO, strict=True):
        assert [b.text for b in chart.bars] == list(given.texts)
    drops = found.charts[2].bars
    assert drops[3].rect.width() > 0 and all(b.rect.width() == 0 for b in drops[:3])
    util = found.charts[0].bars
    assert util[0].rect.width() == pytest.approx(util[0].track.width() * 0.683)


def test_a_fabric_without_a_result_has_no_bar(qapp):
    chart = Chart("dropped", "Drops", [None, 2, None, 7], ["", "2", "", "7"])
    found = chart_layout(QRectF(0, 0, 400, 160), NAMES, [chart], 12)
    assert [b.row for b in found.charts[0].bars] == [1, 3]


@pytest.mark.parametrize("size", [(330, 150), (380, 200), (512, 239), (1200, 420)])
def test_chart_titles_are_whole_words_not_shortened(qapp, size):
    """At 1366 x 768 and 150 % the charts' columns are narrower than "GPU utilisation": the
    title takes two lines (every chart's title area then does) instead of "GPU util…"."""
    found = chart_layout(QRectF(0, 0, *size), NAMES, DEMO, 13)
    heights = {c.title_rect.height() for c in found.charts}
    assert len(heights) == 1
    for chart, given in zip(found.charts, DEMO, strict=True):
        assert "…" not in chart.title and chart.title.replace("\n", " ") == given.title
        assert chart.title.count("\n") <= 1
        for bar in chart.bars:
            assert bar.rect.top() >= chart.title_rect.bottom()
    assert any("\n" in c.title for c in found.charts) == (size[0] < 400)
    assert found.title_px >= MIN_LABEL_PX
