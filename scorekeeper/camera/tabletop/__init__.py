"""Seeded pictures of dice thrown on a table, drawn with numpy and OpenCV: the built-in demo's
throws (:func:`render_throw`), and the drawing ``training/synth.py`` makes its scenes of."""

from scorekeeper.camera.tabletop.scene import render_throw

__all__ = ["render_throw"]
