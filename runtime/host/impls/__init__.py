"""Numba implementations of host ops, one module per op family (mirrors
frontend/ops and lowering/rules); importing this package registers them all."""

from . import assertion, dynamic  # noqa: F401
