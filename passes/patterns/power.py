"""``power(x, c)`` with a constant exponent as cheaper ops, where the result is bit for bit the same.

StableHLO's ``power`` is C's ``pow`` for floats and exponentiation by
squaring (wrapping like a chain of multiplies) for integers. With a splat
exponent ``c``:

- ``c == 1``: ``x`` (integers and floats: ``pow(x, 1)`` is ``x`` for every x,
  NaN and -0.0 included);
- ``c == 0``: ``1`` (``pow(x, 0)`` is 1 for every x, NaN and 0 included, as in
  NumPy: ``0**0 == nan**0 == 1``);
- ``c == 2``: ``x * x`` (one rounding, as a correctly rounded ``pow``);
- ``c == -1``: ``1 / x`` (floats: one rounding; ``1 / -0.0`` is -inf as
  ``pow(-0.0, -1)``). Not for integers: an integer ``pow`` with a negative
  exponent is not a division;
- ``c == 3``: ``x * x * x`` for integers only (wrapping arithmetic is exact;
  two float roundings are not ``pow``'s one);
- ``c == 0.5``: ``sqrt(x)`` for float16, bfloat16 and float32 when ``x`` is an
  ``abs`` (``pow(x, 0.5)`` and ``sqrt(x)`` differ only at -0.0 and -inf, which
  an absolute value never is; float64's ``pow`` is not always correctly
  rounded, so there it stays).

Complex exponentiation goes through ``exp``/``log`` and is left alone. XLA's
algebraic simplifier does the same rewrites when it compiles a module (its
``pow`` by a constant); doing them on the module lets the cheaper ops meet
CSE and the other folds (``x * x`` of a ``power`` and of a ``square`` become
one value) and keeps the module small.
"""

from __future__ import annotations

import numpy as np

from ...xla.mlir import PatternRewriter, hlo
from .core import RewritePattern, building, rewrite_pattern
from .values import _BF16, defining_op, make_splat, numpy_dtype, splat_value, static_type

__all__ = ["POWER_PATTERNS", "simplify_power"]

_SQRT_EXACT = (np.dtype(np.float16), _BF16, np.dtype(np.float32))


@rewrite_pattern(hlo.PowOp)
def simplify_power(op: hlo.PowOp, rewriter: PatternRewriter) -> bool:
    """power(x, c) for c in {1, 0, 2, -1, 3, 0.5} -> x, 1, x*x, 1/x, x*x*x, sqrt(x) (see the module)."""
    x, y = op.lhs, op.rhs
    c = splat_value(y)
    t = static_type(op.result)
    if c is None or t is None or x.type != op.result.type:
        return False
    dt = numpy_dtype(t.element_type)
    if dt is None:
        return False
    kind = "f" if dt == _BF16 else dt.kind
    if kind not in "iuf":
        return False
    c = float(c) if kind == "f" else int(c)
    if c == 1:
        rewriter.replace_op(op, [x])
        return True
    with building(rewriter, op):
        if c == 0:
            new = make_splat(1, t)
        elif c == 2:
            new = hlo.MulOp(x, x).result
        elif c == 3 and kind in "iu":
            new = hlo.MulOp(hlo.MulOp(x, x).result, x).result
        elif c == -1 and kind == "f":
            new = hlo.DivOp(make_splat(1, t), x).result
        elif c == 0.5 and dt in _SQRT_EXACT and isinstance(defining_op(x), hlo.AbsOp):
            new = hlo.SqrtOp(x).result
        else:
            return False
    rewriter.replace_op(op, [new])
    return True


POWER_PATTERNS: list[RewritePattern] = [simplify_power]
