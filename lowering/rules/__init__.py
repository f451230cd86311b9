"""Lowering rules, one module per op family (mirrors frontend/ops); importing
this package registers them all."""

from . import assertion, control, elemwise, indexing, linalg, random, reduction, shape, sort  # noqa: F401
