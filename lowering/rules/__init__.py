"""Lowering rules, one module per op family (mirrors frontend/ops); importing
this package registers them all."""

from . import (assertion, blockwise, construct, control, conv, elemwise, indexing,  # noqa: F401
               linalg, random, reduction, shape, sharding, sort, special)
