"""Lowering of elementwise ops. Plain ops are one table bound to one helper;
ops whose NumPy semantics differ from the StableHLO op get their own rule."""

from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from ...frontend.ops import elemwise as ew
from ...frontend.types import TensorType, is_complex, is_float
from ..context import LoweringContext
from ..emit import broadcast_to, compare, constant, convert, is_nan, ordered_compare
from ..mlir import chlo, hlo, ir, tensor_type
from ..registry import register


def _operands(ctx: LoweringContext, operands) -> list[ir.Value]:
    """Operands broadcast to the output shape (NumPy broadcasting)."""
    shape = ctx.out_type.shape
    return [broadcast_to(x, t, shape) for x, t in zip(operands, ctx.in_types)]


def _nary(fn: Callable, ctx: LoweringContext, *operands: ir.Value) -> list[ir.Value]:
    return [fn(*_operands(ctx, operands))]


_PLAIN = {
    ew.Negative: hlo.negate,
    ew.Exp: hlo.exponential,
    ew.Log: hlo.log,
    ew.Log1p: hlo.log_plus_one,
    ew.Expm1: hlo.exponential_minus_one,
    ew.Sqrt: hlo.sqrt,
    ew.Rsqrt: hlo.rsqrt,
    ew.Sin: hlo.sine,
    ew.Cos: hlo.cosine,
    ew.Tan: hlo.tan,
    ew.Tanh: hlo.tanh,
    ew.Sigmoid: hlo.logistic,
    ew.Erf: chlo.erf,
    ew.BitwiseNot: hlo.not_,
    ew.LogicalNot: hlo.not_,
    ew.Add: hlo.add,
    ew.Subtract: hlo.subtract,
    ew.Multiply: hlo.multiply,
    ew.Divide: hlo.divide,
    ew.BitwiseAnd: hlo.and_,
    ew.BitwiseOr: hlo.or_,
    ew.BitwiseXor: hlo.xor,
    ew.LogicalAnd: hlo.and_,
    ew.LogicalOr: hlo.or_,
    ew.LogicalXor: hlo.xor,
    ew.Select: hlo.select,
}
for _op, _fn in _PLAIN.items():
    register(_op)(partial(_nary, _fn))


def _is_int(ctx: LoweringContext) -> bool:
    return not (is_float(ctx.in_types[0].dtype) or is_complex(ctx.in_types[0].dtype))


def _is_bool(ctx: LoweringContext) -> bool:
    return ctx.in_types[0].dtype == np.bool_


# --- ops whose integer or bool forms need more than one StableHLO op ---------
def _float_or_identity(fn: Callable, ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    # floor/ceil/rint of integers are the identity in NumPy
    return [x] if _is_int(ctx) else [fn(x)]


register(ew.Floor)(partial(_float_or_identity, hlo.floor))
register(ew.Ceil)(partial(_float_or_identity, hlo.ceil))
register(ew.Round)(partial(_float_or_identity, hlo.round_nearest_even))


@register(ew.Sign)
def lower_sign(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    if t.dtype.kind == "u":  # stablehlo.sign is for signed types: 0 or 1
        zero = constant(0, t.dtype, t.shape)
        return [convert(compare(x, zero, "NE", t.dtype), t.with_dtype("bool"), t.dtype)]
    return [hlo.sign(x)]


@register(ew.Abs)
def lower_abs(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [x] if ctx.in_types[0].dtype.kind in "ub" else [hlo.abs(x)]


@register(ew.IsNan)
def lower_isnan(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    if _is_int(ctx):
        return [constant(False, np.dtype(bool), t.shape)]
    return [is_nan(x, t.dtype)]


@register(ew.IsFinite)
def lower_isfinite(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    if _is_int(ctx):
        return [constant(True, np.dtype(bool), t.shape)]
    if is_complex(t.dtype):
        return [hlo.and_(hlo.is_finite(hlo.real(x)), hlo.is_finite(hlo.imag(x)))]
    return [hlo.is_finite(x)]


@register(ew.IsInf)
def lower_isinf(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    if _is_int(ctx):
        return [constant(False, np.dtype(bool), t.shape)]
    if is_complex(t.dtype):
        return [hlo.or_(chlo.is_inf(hlo.real(x)), chlo.is_inf(hlo.imag(x)))]
    return [chlo.is_inf(x)]


@register(ew.Square)
def lower_square(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [hlo.and_(x, x) if _is_bool(ctx) else hlo.multiply(x, x)]


@register(ew.Reciprocal)
def lower_reciprocal(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    one = constant(1, t.dtype, t.shape)
    if not _is_int(ctx):
        return [hlo.divide(one, x)]
    # integer 1 // x truncates; NumPy gives 0 for x == 0 (with a warning)
    zero = constant(0, t.dtype, t.shape)
    safe = hlo.select(compare(x, zero, "EQ", t.dtype), one, x)
    q = hlo.divide(one, safe)
    return [hlo.select(compare(x, zero, "EQ", t.dtype), zero, q)]


@register(ew.Maximum)
@register(ew.Minimum)
def lower_max_min(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = _operands(ctx, (x, y))
    is_max = isinstance(ctx.op, ew.Maximum)
    dt = ctx.in_types[0].dtype
    if is_complex(dt):
        # NumPy orders complex numbers lexicographically and propagates NaN
        pick_x = ordered_compare(x, y, "GE" if is_max else "LE", dt)
        return [hlo.select(hlo.or_(pick_x, is_nan(x, dt)), x, y)]
    return [(hlo.maximum if is_max else hlo.minimum)(x, y)]


@register(ew.Power)
def lower_power(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = _operands(ctx, (x, y))
    return [hlo.power(x, y)]


@register(ew.Equal)
@register(ew.NotEqual)
@register(ew.Less)
@register(ew.LessEqual)
@register(ew.Greater)
@register(ew.GreaterEqual)
def lower_compare(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = _operands(ctx, (x, y))
    return [ordered_compare(x, y, _DIRECTIONS[type(ctx.op)], ctx.in_types[0].dtype)]


_DIRECTIONS = {
    ew.Equal: "EQ", ew.NotEqual: "NE", ew.Less: "LT", ew.LessEqual: "LE",
    ew.Greater: "GT", ew.GreaterEqual: "GE",
}


@register(ew.Cast)
def lower_cast(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [convert(x, ctx.in_types[0], ctx.out_type.dtype)]


def _int_floor_divmod(ctx: LoweringContext, x: ir.Value, y: ir.Value):
    """NumPy's integer floor division and remainder; both are 0 where y == 0."""
    t = ctx.out_type
    zero = constant(0, t.dtype, t.shape)
    one = constant(1, t.dtype, t.shape)
    y_zero = compare(y, zero, "EQ", t.dtype)
    safe_y = hlo.select(y_zero, one, y)
    q = hlo.divide(x, safe_y)   # truncates toward zero
    r = hlo.remainder(x, safe_y)  # sign of x
    if t.dtype.kind == "i":
        # round toward -inf: adjust where r != 0 and sign(r) != sign(y)
        adjust = hlo.and_(compare(r, zero, "NE", t.dtype),
                          hlo.xor(compare(r, zero, "LT", t.dtype), compare(safe_y, zero, "LT", t.dtype)))
        q = hlo.select(adjust, hlo.subtract(q, one), q)
        r = hlo.select(adjust, hlo.add(r, safe_y), r)
    return hlo.select(y_zero, zero, q), hlo.select(y_zero, zero, r)


def _float_floor_divmod(ctx: LoweringContext, x: ir.Value, y: ir.Value):
    """NumPy's npy_divmod for floats, step by step (signed zeros and inf/NaN included)."""
    t = ctx.out_type
    zero = constant(0, t.dtype, t.shape)
    one = constant(1, t.dtype, t.shape)
    half = constant(0.5, t.dtype, t.shape)
    mod = hlo.remainder(x, y)  # fmod
    div = hlo.divide(hlo.subtract(x, mod), y)
    mod_nz = compare(mod, zero, "NE", t.dtype)
    fix = hlo.and_(mod_nz, hlo.xor(compare(y, zero, "LT", t.dtype), compare(mod, zero, "LT", t.dtype)))
    mod = hlo.select(fix, hlo.add(mod, y), mod)
    div = hlo.select(fix, hlo.subtract(div, one), div)
    # a zero remainder takes the sign of y
    abs_zero_signed_y = _copysign(zero, y, t)
    mod = hlo.select(mod_nz, mod, abs_zero_signed_y)
    floordiv = hlo.floor(div)
    floordiv = hlo.select(compare(hlo.subtract(div, floordiv), half, "GT", t.dtype),
                          hlo.add(floordiv, one), floordiv)
    x_div_y = hlo.divide(x, y)
    floordiv = hlo.select(compare(div, zero, "NE", t.dtype), floordiv, _copysign(zero, x_div_y, t))
    y_zero = compare(y, zero, "EQ", t.dtype)
    # y == 0: NumPy returns x / y for the quotient and fmod(x, 0) (NaN) for the remainder
    return hlo.select(y_zero, x_div_y, floordiv), hlo.select(y_zero, hlo.remainder(x, y), mod)


def _copysign(mag: ir.Value, sign: ir.Value, t) -> ir.Value:
    """|mag| with the sign bit of ``sign`` (for float types)."""
    neg = _signbit(sign, t)
    a = hlo.abs(mag)
    return hlo.select(neg, hlo.negate(a), a)


def _signbit(x: ir.Value, t: TensorType) -> ir.Value:
    it = TensorType(f"int{8 * t.dtype.itemsize}", t.shape)
    as_int = hlo.bitcast_convert(tensor_type(it), x)
    return compare(as_int, constant(0, it.dtype, t.shape), "LT", it.dtype)


@register(ew.FloorDivide)
def lower_floor_divide(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = _operands(ctx, (x, y))
    if _is_int(ctx):
        return [_int_floor_divmod(ctx, x, y)[0]]
    return [_float_floor_divmod(ctx, x, y)[0]]


@register(ew.Remainder)
def lower_remainder(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = _operands(ctx, (x, y))
    if _is_int(ctx):
        return [_int_floor_divmod(ctx, x, y)[1]]
    return [_float_floor_divmod(ctx, x, y)[1]]
