"""The full window (designer and simulation docks) fits a laptop or projector screen."""

from fabricstudio.formats import load_design


def test_minimum_size_fits_1366_by_768(make_window, examples_dir):
    window = make_window(load_design(examples_dir / "scenarios" / "demo-rail64.design.json"))
    window.show()
    hint = window.minimumSizeHint()
    assert hint.width() <= 1366 and hint.height() <= 720, hint
