"""Fit's search for the room the fabric fits largest into, beside the overlays."""

from PySide6.QtCore import QRectF

from fabricstudio.ui.canvas.view import largest_free_area

VIEW = QRectF(0, 0, 1366, 768)
GAUGE = QRectF(0, 0, 260, 180)     # top left
LEGEND = QRectF(1050, 0, 316, 200)  # top right
CAPTION = QRectF(200, 690, 960, 78)  # bottom


def test_a_wide_fabric_goes_under_the_overlays_centred_in_the_full_width():
    area = largest_free_area(VIEW, [GAUGE, LEGEND, CAPTION], QRectF(0, 0, 1000, 400))
    assert (area.top(), area.bottom()) == (200, 690)
    assert (area.left(), area.right()) == (0, 1366)  # not just beside the legend


def test_a_few_per_cent_of_zoom_are_given_up_to_centre_the_fabric():
    """Beside the legend the room starts 20 px higher, under the gauge (4 % more zoom), but
    the fabric would sit 160 px left of the centre: it goes under both, centred."""
    legend = QRectF(1040, 0, 326, 200)
    area = largest_free_area(VIEW, [GAUGE, legend, CAPTION], QRectF(0, 0, 735, 400))
    assert (area.left(), area.right(), area.top()) == (0, 1366, 200)


def test_a_much_larger_zoom_beside_an_overlay_wins_over_centring():
    legend = QRectF(1040, 0, 326, 400)  # a tall legend: under it there is little room
    area = largest_free_area(VIEW, [GAUGE, legend], QRectF(0, 0, 735, 400))
    assert area.right() == 1040


def test_a_tall_fabric_goes_between_the_overlays():
    area = largest_free_area(VIEW, [GAUGE, LEGEND], QRectF(0, 0, 300, 1000))
    assert (area.left(), area.right(), area.top(), area.bottom()) == (260, 1050, 0, 768)


def test_without_obstacles_the_whole_view():
    assert largest_free_area(VIEW, [], QRectF(0, 0, 10, 10)) == VIEW
