"""Synthetic hand-scene renderer: artwork, layouts, 3-D tile rendering, dataset writer."""
