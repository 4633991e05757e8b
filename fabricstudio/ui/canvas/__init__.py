"""The design canvas: scene, view and graphics items."""
