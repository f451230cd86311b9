"""Lowering of shape manipulation and array construction ops."""

from __future__ import annotations

import math

import numpy as np

from ...frontend.ops import shape as sh
from ...frontend.types import DTYPES, TensorType, is_complex, is_float
from .. import emit
from ..context import LoweringContext
from ..emit import broadcast_to, compare, constant, convert
from ...xla.mlir import hlo, i64_array, ir, tensor_type
from ..registry import register

_F32, _F64, _I64 = DTYPES["float32"], DTYPES["float64"], DTYPES["int64"]


@register(sh.Reshape)
@register(sh.ExpandDims)
@register(sh.Squeeze)
def lower_reshape(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    if ctx.in_types[0].shape == ctx.out_type.shape:
        return [x]
    return [emit.reshape(x, ctx.out_type)]


@register(sh.Transpose)
def lower_transpose(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    if ctx.op.perm == tuple(range(len(ctx.op.perm))):
        return [x]
    return [hlo.transpose(x, i64_array(ctx.op.perm))]


@register(sh.BroadcastTo)
def lower_broadcast_to(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [broadcast_to(x, ctx.in_types[0], ctx.out_type.shape)]


@register(sh.FullLike)
def lower_full_like(ctx: LoweringContext, like: ir.Value, fill: ir.Value) -> list[ir.Value]:
    return [broadcast_to(fill, ctx.in_types[1], ctx.out_type.shape)]


@register(sh.Concatenate)
def lower_concatenate(ctx: LoweringContext, *xs: ir.Value) -> list[ir.Value]:
    if len(xs) == 1:
        return [xs[0]]
    return [hlo.concatenate(list(xs), ctx.op.axis)]


@register(sh.Full)
def lower_full(ctx: LoweringContext) -> list[ir.Value]:
    t = ctx.out_type
    return [constant(ctx.op.value, t.dtype, t.shape)]


@register(sh.Eye)
def lower_eye(ctx: LoweringContext) -> list[ir.Value]:
    op, t = ctx.op, ctx.out_type
    if not -op.n < op.k < op.m:  # the diagonal misses the matrix (or the matrix is empty)
        return [constant(0, t.dtype, t.shape)]
    it = tensor_type(TensorType(_I64, t.shape))
    rows, cols = hlo.iota(it, 0), hlo.iota(it, 1)
    if op.k:
        rows = hlo.add(rows, constant(op.k, _I64, t.shape))
    on_diagonal = compare(rows, cols, "EQ", _I64)
    return [convert(on_diagonal, t.with_dtype("bool"), t.dtype)]


# --- arange ---------------------------------------------------------------------------
# NumPy fills arange(start, stop, step) as x[i] = x0 + i * d with x0 = x[0], d = x[1] - x0,
# each operation rounded in the dtype (float16/bfloat16: in float32, rounded at the end).
# XLA:CPU contracts a multiply feeding an add into one fused multiply-add, which rounds
# once, and LLVM even narrows a float64 product of float32 values back to a float32
# multiply before contracting it. So the rules below compute i * d exactly (or correctly
# rounded, by a route no compiler rewrites into an FMA) and only then add x0.
def _compute_dtype(dtype: np.dtype) -> np.dtype:
    """The real dtype NumPy's fill loop computes in."""
    if is_complex(dtype):
        return _F32 if dtype == DTYPES["complex64"] else _F64
    return _F64 if dtype == _F64 else _F32


def _significand(d: float) -> tuple[int, int]:
    """(m, e) with d == m * 2**e and m odd (or 0)."""
    m, e = math.frexp(d)
    m, e = int(m * 2 ** 53), e - 53
    while m and m % 2 == 0:
        m, e = m // 2, e + 1
    return m, e


def _splat(value, t: TensorType) -> ir.Value:
    return constant(value, t.dtype, t.shape)


def _times_delta(n: int, delta: float, ct: np.dtype) -> ir.Value:
    """i * delta for i in [0, n), rounded once to ``ct`` (float32 or float64), in a form
    that stays correct when the compiler contracts it with a following add."""
    t = TensorType(ct, (n,))
    mantissa = 24 if ct == _F32 else 53
    if not math.isfinite(delta):
        return hlo.multiply(emit.iota(t, 0), _splat(delta, t))
    m, e = _significand(delta)
    if abs(m).bit_length() + max(n - 1, 1).bit_length() <= mantissa:
        # every product is exact: contracting it into an FMA changes nothing
        return hlo.multiply(emit.iota(t, 0), _splat(delta, t))
    if ct == _F32:
        # i * m as an exact integer, rounded once by the conversion, then scaled by a power
        # of two (exact); the index is first rounded to float32, as NumPy's `i * delta` does
        ti = TensorType(_I64, (n,))
        i = emit.iota(ti, 0)
        if n - 1 > 2 ** 24:
            i = hlo.convert(tensor_type(ti), emit.iota(t, 0))
        prod = hlo.convert(tensor_type(t), hlo.multiply(i, _splat(m, ti)))
        return hlo.multiply(prod, _splat(math.ldexp(1.0, e), t))
    # float64: split delta into hi + lo of at most 27 significant bits each (Veltkamp), so
    # i * hi and i * lo are exact for i < 2**26 and their sum is i * delta rounded once.
    shift = max(abs(m).bit_length() - 27, 0)
    m_hi = (abs(m) >> shift << shift) * (1 if m > 0 else -1)
    hi, lo = math.ldexp(m_hi, e), math.ldexp(m - m_hi, e)
    i = emit.iota(t, 0)
    return hlo.add(hlo.multiply(i, _splat(hi, t)), hlo.multiply(i, _splat(lo, t)))


def _fill_terms(x0, x1, ct: np.dtype) -> tuple[np.generic, np.generic, bool]:
    """(x0, d = x1 - x0, whether x0 must be added) as NumPy's fill loop sees them in ``ct``."""
    with np.errstate(all="ignore"):
        start = ct.type(x0)
        delta = ct.type(ct.type(x1) - start)
    return start, delta, not (start == 0 and not np.signbit(start))


def _fill_part(n: int, x0, x1, ct: np.dtype, out_dtype: np.dtype) -> ir.Value:
    """One real component of NumPy's fill: x0 + i * (x1 - x0) in ``ct``, then ``out_dtype``."""
    start, delta, add_start = _fill_terms(x0, x1, ct)
    t = TensorType(ct, (n,))
    out = _times_delta(n, float(delta), ct)
    if add_start:
        out = hlo.add(out, _splat(start, t))
    if out_dtype != ct:
        out = hlo.convert(tensor_type(t.with_dtype(out_dtype)), out)
    return out


def _second_value(x0, x1, ct: np.dtype, out_dtype: np.dtype) -> np.ndarray:
    """Element 1 as ``_fill_part`` computes it: 1 * d is exact on every route, so it is
    x0 + d (or d alone) rounded in ``ct``, then converted to ``out_dtype``."""
    start, delta, add_start = _fill_terms(x0, x1, ct)
    with np.errstate(all="ignore"):
        return np.asarray(start + delta if add_start else delta).astype(out_dtype)


def _first_needs_patch(x0, x1, ct: np.dtype) -> bool:
    """Whether the fill formula can miss element 0: 0 * d is a zero of either sign (NaN for
    an infinite d), which x0 + 0 * d hides unless x0 is itself a zero."""
    start, delta, _ = _fill_terms(x0, x1, ct)
    return bool(start == 0 or not np.isfinite(delta))


@register(sh.Arange)
def lower_arange(ctx: LoweringContext) -> list[ir.Value]:
    op, t = ctx.op, ctx.out_type
    n, dt = op.length, t.dtype
    if n <= 2:
        return [constant(np.array([op.first, op.second][:n], dtype=dt), dt, t.shape)]
    if not (is_float(dt) or is_complex(dt)):
        # integer arithmetic wraps around in the dtype, as NumPy's fill loop does
        delta = (np.array(op.second, dt) - np.array(op.first, dt))[()]
        out = emit.iota(t, 0)
        if delta != 1:
            out = hlo.multiply(out, _splat(delta, t))
        if op.first != 0:
            out = hlo.add(out, _splat(op.first, t))
        return [out]
    ct = _compute_dtype(dt)
    if is_complex(dt):
        parts = [(np.real(op.first), np.real(op.second)), (np.imag(op.first), np.imag(op.second))]
        out = hlo.complex(*(_fill_part(n, a, b, ct, ct) for a, b in parts))
        second = np.asarray(complex(*(_second_value(a, b, ct, ct) for a, b in parts)), dt)
    else:
        parts = [(op.first, op.second)]
        out = _fill_part(n, op.first, op.second, ct, dt)
        second = _second_value(op.first, op.second, ct, dt)
    # elements 0 and 1 are stored directly, not computed: patch them where the formula misses
    patches = []
    if any(_first_needs_patch(a, b, ct) for a, b in parts):
        patches.append((0, op.first))
    if second.tobytes() != np.asarray(op.second, dt).tobytes():
        patches.append((1, op.second))
    if patches:
        ti = TensorType(_I64, t.shape)
        iota = emit.iota(ti, 0)
        for i, value in patches:
            at_i = compare(iota, constant(i, _I64, t.shape), "EQ", _I64)
            out = hlo.select(at_i, constant(value, dt, t.shape), out)
    return [out]
