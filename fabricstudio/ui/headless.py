"""Export without a window (the ``export`` command): a scene of the design rendered to files."""

from __future__ import annotations

from fabricstudio.model import Design
from fabricstudio.topology.layout import design_layout, needs_layout
from fabricstudio.ui.app import ensure_app
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.export import ExportOptions, preflight, save_png, save_svg
from fabricstudio.ui.theme import DARK, LIGHT


def export_design(design: Design, png: str | None = None, svg: str | None = None,
                  scale: float | None = None, background: str = "white", legend: bool = True,
                  colour_by: str = "speed", inputs: tuple[str, ...] = (),
                  force: bool = False, width: int | None = None) -> list[tuple[str, str]]:
    """Write the requested files; returns (path, description) pairs.  ValueError on failure.

    Without ``scale`` or ``width`` the PNG is sized from the design (longest side at most
    8,192 px, groups folded where names would be illegible)."""
    ensure_app()
    if needs_layout(design):
        design.move_devices(design_layout(design))
    preflight(design, png_scale=scale if png else None, svg=bool(svg))  # before any scene
    scene = FabricScene(design)
    scene.set_theme(DARK if background == "dark" else LIGHT)
    scene.set_colour_mode(colour_by)
    fill = "theme" if background in ("dark", "light") else background
    written = []
    try:
        if png:
            options = ExportOptions(scale=scale, width=width, background=fill, legend=legend)
            size = save_png(scene, png, options, inputs=inputs, force=force)
            note = ""
            if scale is None and width is None:
                note = (f", sized to at most {options.longest_side:,} px; --scale or --width "
                        "for another size")
            written.append((png, f"{size.width()} x {size.height()} px{note}"))
        if svg:
            save_svg(scene, svg, ExportOptions(scale=1.0, background=fill, legend=legend),
                     inputs=inputs, force=force)
            written.append((svg, "SVG"))
    finally:
        scene.detach()
        scene.deleteLater()
    return written
