"""The importer's rules, one module per primitive family; importing this package
registers them all (``registry.register``)."""

from . import control, dot, elementwise, fft, linalg, random, reductions, shape, slicing, sort

__all__ = ["control", "dot", "elementwise", "fft", "linalg", "random", "reductions", "shape", "slicing", "sort"]
