"""FabricStudio: design, analyse and simulate AI data-centre network fabrics."""

__version__ = "0.1.0"
