"""Topology: the design as a networkx graph, fabric builders, layout and analysis (Qt-free)."""
