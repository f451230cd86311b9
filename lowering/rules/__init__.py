"""Lowering rules, one module per op family (mirrors frontend/ops); importing
this package registers them all."""

from . import (assertion, autodiff, bitcast, blockwise, construct, control, conv, elemwise,  # noqa: F401
               fft, indexing, linalg, random, reduction, shape, sharding, sort, special)
from . import fast_math  # noqa: F401  (CPU rules beside elemwise's defaults)
