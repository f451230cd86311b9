"""Helpers for writing rewrite patterns (see docs/writing_a_pass.md).

``rewrite_pattern`` and ``apply_patterns`` wrap MLIR's greedy pattern driver;
``values`` reads types, constants and attributes and builds constants. The
pattern families used by hlograph's passes live in the sibling modules
(``folding``, ``algebra``, ``dot``, ``broadcast``).
"""

from ...xla.mlir import PatternRewriter
from .core import PatternFn, RewritePattern, apply_patterns, building, rewrite_pattern
from .values import (
    compare_type, comparison_direction, constant_array, defining_op, dtype_of, ints,
    is_bool_type, is_complex_type, is_float_type, is_int_type, is_unsigned_type,
    make_constant, make_splat, numpy_dtype, shape_of, splat_value, static_type,
)

__all__ = [
    "PatternRewriter", "PatternFn", "RewritePattern", "apply_patterns", "building", "rewrite_pattern",
    "compare_type", "comparison_direction", "constant_array", "defining_op", "dtype_of", "ints",
    "is_bool_type", "is_complex_type", "is_float_type", "is_int_type", "is_unsigned_type",
    "make_constant", "make_splat", "numpy_dtype", "shape_of", "splat_value", "static_type",
]
