"""The live simulation view: scenario panel, engine worker, animated canvas overlay, playback
controls, charts, results and the fabric comparison.  ``install_simulation_ui(window)`` is the
one hook the main window calls."""

from __future__ import annotations

from fabricstudio.ui.simview.install import SimulationUi, install_simulation_ui

__all__ = ["SimulationUi", "install_simulation_ui"]
