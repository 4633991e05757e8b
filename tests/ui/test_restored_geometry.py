"""A window size saved on a big monitor must not overflow a smaller screen (a laptop moved to a
1366 x 768 projector): the restored window is shrunk onto the screen it opens on."""

from fabricstudio.ui.main_window import MainWindow


def test_a_geometry_saved_on_a_bigger_screen_is_shrunk_onto_this_one(qtbot, settings, make_window):
    big = MainWindow(None, None, settings=settings)
    qtbot.addWidget(big)
    area = big.screen().availableGeometry()
    big.resize(area.width() * 2, area.height() * 2)
    settings.setValue("geometry", big.saveGeometry())
    window = make_window()
    frame, least = window.frameGeometry(), window.minimumSizeHint()
    # as small as the screen allows (the offscreen test screen, 800 x 600, is smaller than the
    # window's minimum; a real 1366 x 768 screen is not)
    assert window.width() <= max(area.width(), least.width()), (frame, least)
    assert window.height() <= max(area.height(), least.height()), (frame, least)
    assert area.contains(frame.topLeft()), (frame, area)
