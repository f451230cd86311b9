"""Lowering rules, one module per op family (mirrors frontend/ops); importing
this package registers them all."""

from . import control, elemwise, indexing, linalg, reduction, shape  # noqa: F401
