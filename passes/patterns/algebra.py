"""Algebraic simplification that is exact under IEEE-754 and integer semantics.

Every rewrite here gives the same bits as the original for every input,
NaN (up to payload) and signed zeros included:

- ``x + (-0.0)`` is ``x`` but ``x + 0.0`` is not (``-0.0 + 0.0 = +0.0``);
- ``x - 0.0`` is ``x``; ``-0.0 - x`` is ``-x``;
- ``x * 1`` and ``x / 1`` are ``x``; ``x * -1`` and ``x / -1`` are ``-x``;
- ``x * 0`` is ``0`` for integers only (``inf * 0`` is NaN, ``-1.0 * 0`` is -0.0);
- ``x - x`` is ``0`` for integers only (``inf - inf`` is NaN).

The approximate ones (``x + 0.0``, ``x * 0``, ``x - x`` for floats, folding
constants across reassociated sums and products) are in ``FAST_MATH_PATTERNS``,
used only when asked for explicitly.
"""

from __future__ import annotations

import numpy as np

from ...xla.mlir import PatternRewriter, hlo, i64_array, ir
from .core import RewritePattern, building, rewrite_pattern
from .values import _BF16, defining_op, ints, make_splat, numpy_dtype, splat_value, static_type

__all__ = ["ALGEBRA_PATTERNS", "FAST_MATH_PATTERNS", "algebra_patterns", "lossless_conversion"]


# ---------------------------------------------------------------- constants


def _kind(dt: np.dtype) -> str:
    """'b', 'i', 'u', 'f' or 'c'."""
    return "f" if dt == _BF16 else dt.kind


def _is_zero(s: np.generic, negative: bool | None = None) -> bool:
    """``s == 0``; for floats (and both parts of complex numbers) also with the
    given sign: ``negative=True`` for -0.0, False for +0.0, None for either."""
    dt = np.asarray(s).dtype
    k = _kind(dt)
    if k == "c":
        return _is_zero(s.real, negative) and _is_zero(s.imag, negative)
    if k == "f":
        v = float(s)
        return v == 0 and (negative is None or bool(np.signbit(v)) == negative)
    return not bool(s)


def _is_additive_identity(s: np.generic) -> bool:
    # -0.0 is the float identity of +: x + -0.0 = x for every x, -0.0 included
    return _is_zero(s, negative=True)


def _is_one(s: np.generic) -> bool:
    k = _kind(np.asarray(s).dtype)
    if k == "c":
        return False
    if k == "b":
        return bool(s)
    return float(s) == 1


def _is_minus_one(s: np.generic) -> bool:
    k = _kind(np.asarray(s).dtype)
    if k in "bcu":
        return False
    return float(s) == -1


def _is_all_ones(s: np.generic) -> bool:
    k = _kind(np.asarray(s).dtype)
    if k == "b":
        return bool(s)
    if k in "iu":
        return int(np.asarray(s).view(f"uint{np.asarray(s).dtype.itemsize * 8}")) == \
            (1 << (8 * np.asarray(s).dtype.itemsize)) - 1
    return False


def _element_kind(v: ir.Value) -> str | None:
    t = static_type(v)
    dt = numpy_dtype(t.element_type) if t is not None else None
    return _kind(dt) if dt is not None else None


def _commuted(op: ir.OpView):
    """(x, c) pairs of a commutative binary op: (lhs, rhs) then (rhs, lhs)."""
    operands = op.operation.operands
    a, b = operands[0], operands[1]
    return ((a, b), (b, a))


def _splat_side(op: ir.OpView) -> tuple[ir.Value, np.generic] | None:
    """(x, s) when one operand of a commutative op is a splat constant s (rhs
    checked first), else None."""
    operands = op.operation.operands
    a, b = operands[0], operands[1]
    s = splat_value(b)
    if s is not None:
        return a, s
    s = splat_value(a)
    return (b, s) if s is not None else None


def _replace(rewriter: PatternRewriter, op: ir.OpView, value: ir.Value) -> bool:
    """Replaces ``op`` by ``value`` when the types agree."""
    if value.type != op.result.type:
        return False
    rewriter.replace_op(op, [value])
    return True


def _replace_with_splat(rewriter: PatternRewriter, op: ir.OpView, scalar) -> bool:
    t = static_type(op.result)
    if t is None or numpy_dtype(t.element_type) is None:
        return False
    with building(rewriter, op):
        new = make_splat(scalar, t)
    rewriter.replace_op(op, [new])
    return True


def _replace_with_negate(rewriter: PatternRewriter, op: ir.OpView, x: ir.Value) -> bool:
    if x.type != op.result.type:
        return False
    with building(rewriter, op):
        new = hlo.NegOp(x).result
    rewriter.replace_op(op, [new])
    return True


# ---------------------------------------------------------------- arithmetic


@rewrite_pattern(hlo.AddOp, requires="a constant operand")
def remove_add_zero(op: hlo.AddOp, rewriter: PatternRewriter) -> bool:
    """x + 0 -> x (integers); x + (-0.0) -> x (floats)."""
    side = _splat_side(op)
    if side is None or not _is_additive_identity(side[1]):
        return False
    return _replace(rewriter, op, side[0])


@rewrite_pattern(hlo.SubtractOp)
def simplify_subtract(op: hlo.SubtractOp, rewriter: PatternRewriter) -> bool:
    """x - 0 -> x, 0 - x -> -x, x - x -> 0 (integers); x - (+0.0) -> x and
    -0.0 - x -> -x (floats)."""
    operands = op.operation.operands
    x, y = operands[0], operands[1]
    if x == y:
        if _element_kind(x) not in ("i", "u"):
            return False  # inf - inf is NaN
        return _replace_with_splat(rewriter, op, 0)
    s = splat_value(y)
    if s is not None and _is_zero(s, negative=False):
        return _replace(rewriter, op, x)
    s = splat_value(x)
    if s is not None and _is_zero(s, negative=True):
        return _replace_with_negate(rewriter, op, y)
    return False


@rewrite_pattern(hlo.MulOp, requires="a constant operand")
def simplify_multiply(op: hlo.MulOp, rewriter: PatternRewriter) -> bool:
    """x * 1 -> x; x * -1 -> -x (signed integers, floats); x * 0 -> 0 (integers
    and booleans only). Not for complex numbers: (a+bi)(1+0i) turns an infinite
    b into NaN."""
    side = _splat_side(op)
    if side is None:
        return False
    x, s = side
    if _is_one(s):
        return _replace(rewriter, op, x)
    if _is_minus_one(s):
        return _replace_with_negate(rewriter, op, x)
    if _is_zero(s) and _element_kind(op.result) in ("i", "u", "b"):
        return _replace_with_splat(rewriter, op, s)
    return False


@rewrite_pattern(hlo.DivOp, requires="a constant operand")
def simplify_divide(op: hlo.DivOp, rewriter: PatternRewriter) -> bool:
    """x / 1 -> x (integers, floats); x / -1 -> -x (floats: for integers MIN / -1
    overflows)."""
    operands = op.operation.operands
    s = splat_value(operands[1])
    if s is None:
        return False
    if _is_one(s):
        return _replace(rewriter, op, operands[0])
    if _is_minus_one(s) and _element_kind(op.result) == "f":
        return _replace_with_negate(rewriter, op, operands[0])
    return False


@rewrite_pattern(hlo.NegOp)
def fold_double_negate(op: hlo.NegOp, rewriter: PatternRewriter) -> bool:
    """-(-x) -> x."""
    inner = defining_op(op.operand)
    if not isinstance(inner, hlo.NegOp):
        return False
    return _replace(rewriter, op, inner.operand)


@rewrite_pattern(hlo.NotOp)
def fold_double_not(op: hlo.NotOp, rewriter: PatternRewriter) -> bool:
    """not(not(x)) -> x."""
    inner = defining_op(op.operand)
    if not isinstance(inner, hlo.NotOp):
        return False
    return _replace(rewriter, op, inner.operand)


@rewrite_pattern(hlo.AbsOp)
def fold_abs_of_sign_change(op: hlo.AbsOp, rewriter: PatternRewriter) -> bool:
    """abs(abs(x)) -> abs(x); abs(-x) -> abs(x)."""
    inner = defining_op(op.operand)
    if isinstance(inner, hlo.AbsOp):
        return _replace(rewriter, op, inner.result)
    if isinstance(inner, hlo.NegOp) and inner.operand.type == op.operand.type:
        with building(rewriter, op):
            new = hlo.AbsOp(inner.operand).result
        return _replace(rewriter, op, new)
    return False


# ---------------------------------------------------------------- logic, min/max


@rewrite_pattern(hlo.AndOp)
def fold_and(op: hlo.AndOp, rewriter: PatternRewriter) -> bool:
    """x & x -> x; x & 0 -> 0; x & ~0 -> x."""
    if op.lhs == op.rhs:
        return _replace(rewriter, op, op.lhs)
    for x, c in _commuted(op):
        s = splat_value(c)
        if s is None:
            continue
        if _is_zero(s):
            return _replace(rewriter, op, c)
        if _is_all_ones(s):
            return _replace(rewriter, op, x)
    return False


@rewrite_pattern(hlo.OrOp)
def fold_or(op: hlo.OrOp, rewriter: PatternRewriter) -> bool:
    """x | x -> x; x | 0 -> x; x | ~0 -> ~0."""
    if op.lhs == op.rhs:
        return _replace(rewriter, op, op.lhs)
    for x, c in _commuted(op):
        s = splat_value(c)
        if s is None:
            continue
        if _is_zero(s):
            return _replace(rewriter, op, x)
        if _is_all_ones(s):
            return _replace(rewriter, op, c)
    return False


@rewrite_pattern(hlo.XorOp)
def fold_xor(op: hlo.XorOp, rewriter: PatternRewriter) -> bool:
    """x ^ 0 -> x; x ^ x -> 0."""
    if op.lhs == op.rhs:
        return _replace_with_splat(rewriter, op, 0)
    for x, c in _commuted(op):
        s = splat_value(c)
        if s is not None and _is_zero(s):
            return _replace(rewriter, op, x)
    return False


@rewrite_pattern(hlo.MaxOp)
def fold_max_self(op: hlo.MaxOp, rewriter: PatternRewriter) -> bool:
    """max(x, x) -> x."""
    return op.lhs == op.rhs and _replace(rewriter, op, op.lhs)


@rewrite_pattern(hlo.MinOp)
def fold_min_self(op: hlo.MinOp, rewriter: PatternRewriter) -> bool:
    """min(x, x) -> x."""
    return op.lhs == op.rhs and _replace(rewriter, op, op.lhs)


_SELF_COMPARE = {"EQ": True, "LE": True, "GE": True, "NE": False, "LT": False, "GT": False}


@rewrite_pattern(hlo.CompareOp)
def fold_compare_self(op: hlo.CompareOp, rewriter: PatternRewriter) -> bool:
    """compare(x, x) -> true/false for integers (no NaN to consider)."""
    if op.lhs != op.rhs or _element_kind(op.lhs) not in ("i", "u", "b"):
        return False
    direction = hlo.ComparisonDirectionAttr(op.comparison_direction).value
    return _replace_with_splat(rewriter, op, _SELF_COMPARE[direction])


# ---------------------------------------------------------------- select, concatenate


@rewrite_pattern(hlo.SelectOp)
def fold_select(op: hlo.SelectOp, rewriter: PatternRewriter) -> bool:
    """select(true, a, b) -> a; select(false, a, b) -> b; select(p, a, a) -> a."""
    if op.on_true == op.on_false:
        return _replace(rewriter, op, op.on_true)
    s = splat_value(op.pred)
    if s is None:
        return False
    return _replace(rewriter, op, op.on_true if bool(s) else op.on_false)


@rewrite_pattern(hlo.ConcatenateOp)
def simplify_concatenate(op: hlo.ConcatenateOp, rewriter: PatternRewriter) -> bool:
    """concatenate(x) -> x; operands with no elements are dropped."""
    operands = list(op.operands)
    if len(operands) == 1:
        return _replace(rewriter, op, operands[0])
    shapes = [static_type(v) for v in operands]
    if any(t is None for t in shapes):
        return False
    kept = [v for v, t in zip(operands, shapes) if 0 not in t.shape]
    if len(kept) == len(operands) or not kept:
        return False
    if len(kept) == 1:
        return _replace(rewriter, op, kept[0])
    with building(rewriter, op):
        new = hlo.ConcatenateOp(kept, op.dimension).result
    return _replace(rewriter, op, new)


# ---------------------------------------------------------------- conversions


_MANTISSA = {np.dtype(np.float16): 11, _BF16: 8, np.dtype(np.float32): 24, np.dtype(np.float64): 53}
_EXPONENT = {np.dtype(np.float16): 5, _BF16: 8, np.dtype(np.float32): 8, np.dtype(np.float64): 11}


def lossless_conversion(src: np.dtype, dst: np.dtype) -> bool:
    """Whether ``dst`` holds every value of ``src`` exactly (so converting back is the identity)."""
    ks, kd = _kind(src), _kind(dst)
    if src == dst:
        return True
    if ks == "b":
        return kd != "b"
    if kd == "c":
        comp = np.dtype(np.float32 if dst == np.complex64 else np.float64)
        return ks == "c" and src.itemsize <= dst.itemsize or ks != "c" and lossless_conversion(src, comp)
    if ks in "iu":
        bits = src.itemsize * 8
        if kd == "i":
            return dst.itemsize > src.itemsize or (ks == "i" and dst.itemsize == src.itemsize)
        if kd == "u":
            return ks == "u" and dst.itemsize >= src.itemsize
        if kd == "f":
            return _MANTISSA[dst] >= (bits - 1 if ks == "i" else bits)
        return False
    if ks == "f" and kd == "f":
        return _MANTISSA[dst] >= _MANTISSA[src] and _EXPONENT[dst] >= _EXPONENT[src]
    return False


@rewrite_pattern(hlo.ConvertOp)
def remove_identity_convert(op: hlo.ConvertOp, rewriter: PatternRewriter) -> bool:
    """convert(x) to x's own type -> x."""
    return _replace(rewriter, op, op.operand)


@rewrite_pattern(hlo.ConvertOp)
def fold_convert_chain(op: hlo.ConvertOp, rewriter: PatternRewriter) -> bool:
    """convert(convert(x, A->B), B->C) -> convert(x, A->C) when B holds every A value.

    Not when B is a float and C an integer: a float-to-int conversion of a
    value out of C's range is implementation-defined, an int-to-int one wraps.
    """
    inner = defining_op(op.operand)
    if not isinstance(inner, hlo.ConvertOp):
        return False
    x = inner.operand
    a, b, c = (numpy_dtype(static_type(v).element_type) if static_type(v) is not None else None
               for v in (x, op.operand, op.result))
    if a is None or b is None or c is None or not lossless_conversion(a, b):
        return False
    if _kind(b) in "fc" and _kind(c) in "iub" and _kind(a) not in "b":
        return False
    if _kind(b) == "c" and _kind(c) != "c":
        return False
    if x.type == op.result.type:
        return _replace(rewriter, op, x)
    with building(rewriter, op):
        new = hlo.ConvertOp(op.result.type, x).result
    return _replace(rewriter, op, new)


# ---------------------------------------------------------------- shapes


@rewrite_pattern(hlo.ReshapeOp)
def fold_reshape(op: hlo.ReshapeOp, rewriter: PatternRewriter) -> bool:
    """reshape(x) to x's type -> x; reshape(reshape(x)) -> reshape(x)."""
    if op.operand.type == op.result.type:
        return _replace(rewriter, op, op.operand)
    inner = defining_op(op.operand)
    if isinstance(inner, hlo.ReshapeOp) and static_type(op.result) is not None:
        with building(rewriter, op):
            new = hlo.ReshapeOp(op.result.type, inner.operand).result
        return _replace(rewriter, op, new)
    return False


@rewrite_pattern(hlo.TransposeOp)
def fold_transpose(op: hlo.TransposeOp, rewriter: PatternRewriter) -> bool:
    """Identity transposes go; transpose(transpose(x)) is one transpose; a
    transpose that moves only size-1 dimensions is a reshape."""
    x = op.operand
    inner = defining_op(x)
    if isinstance(inner, hlo.TransposeOp):
        perm, inner_perm = ints(op.permutation), ints(inner.permutation)
        composed = [inner_perm[p] for p in perm]
        if composed == list(range(len(composed))):
            return _replace(rewriter, op, inner.operand)
        with building(rewriter, op):
            new = hlo.TransposeOp(inner.operand, i64_array(composed)).result
        return _replace(rewriter, op, new)
    t = static_type(x)
    if t is None or static_type(op.result) is None:
        return False
    if x.type != op.result.type and 1 not in t.shape:
        return False  # neither an identity nor a move of size-1 dimensions
    perm = ints(op.permutation)
    if perm == list(range(len(perm))):
        return _replace(rewriter, op, x)
    moved = [p for p in perm if t.shape[p] != 1]
    if moved != sorted(moved):
        return False
    with building(rewriter, op):
        new = hlo.ReshapeOp(op.result.type, x).result
    return _replace(rewriter, op, new)


@rewrite_pattern(hlo.BroadcastInDimOp)
def fold_broadcast_in_dim(op: hlo.BroadcastInDimOp, rewriter: PatternRewriter) -> bool:
    """Identity broadcasts go; broadcast(broadcast(x)) is one broadcast; a
    broadcast that adds only size-1 dimensions in order is a reshape."""
    x = op.operand
    inner = defining_op(x)
    if isinstance(inner, hlo.BroadcastInDimOp):
        dims = ints(op.broadcast_dimensions)
        composed = [dims[d] for d in ints(inner.broadcast_dimensions)]
        with building(rewriter, op):
            new = hlo.BroadcastInDimOp(op.result.type, inner.operand, i64_array(composed)).result
        return _replace(rewriter, op, new)
    t_in, t_out = static_type(x), static_type(op.result)
    if t_in is None or t_out is None:
        return False
    if int(np.prod(t_in.shape)) != int(np.prod(t_out.shape)):
        return False  # a real broadcast
    dims = ints(op.broadcast_dimensions)
    if dims != sorted(dims) or any(t_in.shape[i] != t_out.shape[d] for i, d in enumerate(dims)):
        return False
    if x.type == op.result.type:
        return _replace(rewriter, op, x)
    with building(rewriter, op):
        new = hlo.ReshapeOp(op.result.type, x).result
    return _replace(rewriter, op, new)


@rewrite_pattern(hlo.SliceOp)
def fold_slice(op: hlo.SliceOp, rewriter: PatternRewriter) -> bool:
    """A slice of everything goes; slice(slice(x)) is one slice."""
    x = op.operand
    if x.type == op.result.type:
        if static_type(x) is None:
            return False
        return _replace(rewriter, op, x)  # same static shape: the slice takes everything
    inner = defining_op(x)
    if not isinstance(inner, hlo.SliceOp) or static_type(op.result) is None:
        return False
    starts, strides = ints(op.start_indices), ints(op.strides)
    s1, t1 = ints(inner.start_indices), ints(inner.strides)
    out = static_type(op.result).shape
    new_starts = [a + b * c for a, b, c in zip(s1, starts, t1)]
    new_strides = [a * b for a, b in zip(t1, strides)]
    new_limits = [s + (n - 1) * st + 1 if n > 0 else s for s, n, st in zip(new_starts, out, new_strides)]
    with building(rewriter, op):
        new = hlo.SliceOp(inner.operand, i64_array(new_starts), i64_array(new_limits),
                          i64_array(new_strides)).result
    return _replace(rewriter, op, new)


@rewrite_pattern(hlo.PadOp)
def remove_identity_pad(op: hlo.PadOp, rewriter: PatternRewriter) -> bool:
    """pad(x) with no padding -> x."""
    widths = ints(op.edge_padding_low) + ints(op.edge_padding_high) + ints(op.interior_padding)
    if any(widths):
        return False
    return _replace(rewriter, op, op.operand)


@rewrite_pattern(hlo.ReverseOp)
def fold_reverse(op: hlo.ReverseOp, rewriter: PatternRewriter) -> bool:
    """Reversing nothing (or size-1 dims) goes; reverse(reverse(x, d), d) -> x."""
    dims = ints(op.dimensions)
    t = static_type(op.operand)
    if t is not None and all(t.shape[d] <= 1 for d in dims):
        return _replace(rewriter, op, op.operand)
    inner = defining_op(op.operand)
    if isinstance(inner, hlo.ReverseOp) and sorted(ints(inner.dimensions)) == sorted(dims):
        return _replace(rewriter, op, inner.operand)
    return False


@rewrite_pattern(hlo.RealOp)
def fold_real_of_complex(op: hlo.RealOp, rewriter: PatternRewriter) -> bool:
    """real(complex(a, b)) -> a."""
    inner = defining_op(op.operand)
    return isinstance(inner, hlo.ComplexOp) and _replace(rewriter, op, inner.lhs)


@rewrite_pattern(hlo.ImagOp)
def fold_imag_of_complex(op: hlo.ImagOp, rewriter: PatternRewriter) -> bool:
    """imag(complex(a, b)) -> b."""
    inner = defining_op(op.operand)
    return isinstance(inner, hlo.ComplexOp) and _replace(rewriter, op, inner.rhs)


ALGEBRA_PATTERNS: list[RewritePattern] = [
    remove_add_zero, simplify_subtract, simplify_multiply, simplify_divide,
    fold_double_negate, fold_double_not,
    fold_abs_of_sign_change, fold_and, fold_or, fold_xor, fold_max_self, fold_min_self,
    fold_compare_self, fold_select, simplify_concatenate, remove_identity_convert,
    fold_convert_chain, fold_reshape, fold_transpose, fold_broadcast_in_dim, fold_slice,
    remove_identity_pad, fold_reverse, fold_real_of_complex, fold_imag_of_complex,
]


# ---------------------------------------------------------------- fast math


@rewrite_pattern(hlo.AddOp)
def remove_add_positive_zero(op: hlo.AddOp, rewriter: PatternRewriter) -> bool:
    """x + 0.0 -> x (wrong for x = -0.0)."""
    for x, c in _commuted(op):
        s = splat_value(c)
        if s is not None and _is_zero(s):
            return _replace(rewriter, op, x)
    return False


@rewrite_pattern(hlo.MulOp)
def fold_float_multiply_zero(op: hlo.MulOp, rewriter: PatternRewriter) -> bool:
    """x * 0.0 -> 0.0 (wrong for NaN, infinities and the sign of zero)."""
    if _element_kind(op.result) != "f":
        return False
    for _x, c in _commuted(op):
        s = splat_value(c)
        if s is not None and _is_zero(s):
            return _replace_with_splat(rewriter, op, s)
    return False


@rewrite_pattern(hlo.SubtractOp)
def fold_float_subtract_self(op: hlo.SubtractOp, rewriter: PatternRewriter) -> bool:
    """x - x -> 0.0 (wrong for NaN and infinities)."""
    if op.lhs != op.rhs or _element_kind(op.lhs) not in ("f", "c"):
        return False
    return _replace_with_splat(rewriter, op, 0)


def _reassociate(op_class):
    def reassociate_constants(op, rewriter: PatternRewriter) -> bool:
        """(x op c1) op c2 -> x op (c1 op c2) (rounds differently)."""
        for inner_v, c2 in _commuted(op):
            inner = defining_op(inner_v)
            if not isinstance(inner, op_class) or splat_value(c2) is None:
                continue
            for x, c1 in _commuted(inner):
                if splat_value(c1) is None or splat_value(x) is not None:
                    continue
                with building(rewriter, op):
                    folded = op_class(c1, c2).result
                    new = op_class(x, folded).result
                return _replace(rewriter, op, new)
        return False

    reassociate_constants.__name__ = f"reassociate_{op_class.__name__[:-2].lower()}_constants"
    return RewritePattern(op_class, reassociate_constants)


FAST_MATH_PATTERNS: list[RewritePattern] = [
    remove_add_positive_zero, fold_float_multiply_zero, fold_float_subtract_self,
    _reassociate(hlo.AddOp), _reassociate(hlo.MulOp),
]


def algebra_patterns(fast_math: bool = False) -> list[RewritePattern]:
    """The exact patterns, plus the approximate ones when ``fast_math``."""
    return ALGEBRA_PATTERNS + (FAST_MATH_PATTERNS if fast_math else [])
