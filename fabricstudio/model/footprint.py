"""The device footprint on the canvas, in one place (scene units, Qt-free).

A device is drawn as a square tile centred on its position with its name in a rounded box
under it.  The canvas draws it from these numbers; the layout keeps devices, names and
cables clear of each other with them, and the simulation overlay starts its queue bars where
links leave the box.
"""

from __future__ import annotations

#: Side of the square tile.
TILE = 40.0
#: The name is elided to this width and drawn in a box this tall, this far under the tile.
LABEL_WIDTH = 84.0
LABEL_HEIGHT = 15.0
LABEL_GAP = 3.0
#: Half the tile; how far below the centre the name box reaches.
TILE_HALF = TILE / 2
NAME_BOTTOM = TILE_HALF + LABEL_GAP + LABEL_HEIGHT
