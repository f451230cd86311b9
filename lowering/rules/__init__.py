"""Lowering rules, one module per op family (mirrors frontend/ops); importing
this package registers them all."""

from . import (assertion, construct, control, conv, elemwise, indexing, linalg,  # noqa: F401
               random, reduction, shape, sort, special)
