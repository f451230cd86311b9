"""Lowering of elementwise ops. Plain ops are one table bound to one helper;
ops whose NumPy semantics differ from the StableHLO op get their own rule."""

from __future__ import annotations

import math
from functools import partial
from typing import Callable

import numpy as np

from ...frontend.graph import Constant
from ...frontend.ops import elemwise as ew
from ...frontend.types import TensorType, is_complex, is_float
from ..context import LoweringContext
from ..emit import compare, constant, convert, is_nan, ordered_compare, real_dtype, signbit
from ...xla.mlir import chlo, hlo, ir
from ..registry import register


def lower_nary(fn: Callable, ctx: LoweringContext, *operands: ir.Value) -> list[ir.Value]:
    """The rule of an op that is one StableHLO/CHLO op on broadcast operands."""
    return [fn(*ctx.broadcast_operands(operands))]


_PLAIN = {
    ew.Negative: hlo.negate,
    ew.Expm1: hlo.exponential_minus_one,
    ew.Rsqrt: hlo.rsqrt,
    ew.Sigmoid: hlo.logistic,
    ew.Erf: chlo.erf,
    ew.BitwiseNot: hlo.not_,
    ew.LogicalNot: hlo.not_,
    ew.Add: hlo.add,
    ew.Subtract: hlo.subtract,
    ew.BitwiseAnd: hlo.and_,
    ew.BitwiseOr: hlo.or_,
    ew.BitwiseXor: hlo.xor,
    ew.LogicalAnd: hlo.and_,
    ew.LogicalOr: hlo.or_,
    ew.LogicalXor: hlo.xor,
    ew.Select: hlo.select,
    ew.Cbrt: hlo.cbrt,
    ew.Arctan2: hlo.atan2,
    ew.Nextafter: chlo.next_after,
}


def _all_nan(data: np.ndarray) -> bool:
    return is_float(data.dtype) and data.size > 0 and bool(np.isnan(data).all())


def nan_absorbing(rule: Callable) -> Callable:
    """``rule`` for an op whose real result is NaN wherever an operand is (add,
    subtract, multiply, divide, maximum, minimum): with an operand that is a graph
    constant NaN everywhere, the result is that constant. XLA:CPU would otherwise compute
    e.g. ``exp(x + nan)`` in float32 with an argument LLVM knows to be NaN, and its exp
    then returns whatever was in memory (jax.jit does the same)."""
    def lower(ctx: LoweringContext, *operands: ir.Value) -> list[ir.Value]:
        for v in ctx[1].inputs:  # (ctx.node; most nodes have no constant input)
            if type(v) is Constant and _all_nan(v.data):
                t = ctx.out_type
                if is_float(t.dtype):
                    return [constant(np.nan, t.dtype, t.shape)]
        return rule(ctx, *operands)
    lower.__name__ = lower.__qualname__ = getattr(rule, "__name__", "lower_nary")
    lower.__doc__ = rule.__doc__
    return lower


_NAN_ABSORBING = (ew.Add, ew.Subtract)
for _op, _fn in _PLAIN.items():
    _rule = partial(lower_nary, _fn)
    register(_op)(nan_absorbing(_rule) if _op in _NAN_ABSORBING else _rule)


# --- XLA rewrites that are not IEEE-exact ------------------------------------
# XLA's algebraic simplifier (at every optimization level) rewrites some
# compositions assuming finite, positive values: log(exp(a)) -> a,
# log(pow(a, b)) -> b*log|a|, sqrt(a*a) -> |a|, pow(exp(a), b) -> exp(a*b),
# exp(a)*exp(b) -> exp(a+b). NumPy computes each op on its own (log(pow(-4, 0.5))
# is nan, log(exp(800)) is inf), so an operand made by the op a rewrite looks
# for goes through an optimization barrier, which the simplifier does not see
# through. The barrier only stands between these pairs.
REWRITTEN_PRODUCERS = {
    "log": ("stablehlo.exponential", "stablehlo.power"),
    "sqrt": ("stablehlo.multiply", "stablehlo.power"),
    "power": ("stablehlo.exponential", "stablehlo.multiply", "stablehlo.power"),
    "multiply": ("stablehlo.exponential",),
}


def producer_name(v: ir.Value) -> str | None:
    """The name of the op that defines ``v`` (None for a block argument)."""
    owner = v.owner
    return owner.name if isinstance(owner, (ir.Operation, ir.OpView)) else None


def shielded(v: ir.Value, consumer: str) -> ir.Value:
    """``v``, through an optimization barrier when XLA would rewrite ``consumer(v)``
    against IEEE semantics (see ``REWRITTEN_PRODUCERS``; a multiply only as a
    square ``a * a``, so that other products keep fusing)."""
    name = producer_name(v)
    if name not in REWRITTEN_PRODUCERS[consumer]:
        return v
    if name == "stablehlo.multiply":
        lhs, rhs = v.owner.operands
        if lhs != rhs:
            return v
    return hlo.optimization_barrier([v])


def _log(x: ir.Value, t: TensorType) -> ir.Value:
    """The natural log; of a complex number with an infinite part, C's clog:
    the real part is +inf (XLA gives nan for ``nan + inf*j``)."""
    ln = hlo.log(shielded(x, "log"))
    if not is_complex(t.dtype):
        return ln
    rt = np.zeros((), t.dtype).real.dtype
    inf_part = hlo.or_(chlo.is_inf(hlo.real(x)), chlo.is_inf(hlo.imag(x)))
    re = hlo.select(inf_part, constant(np.inf, rt, t.shape), hlo.real(ln))
    return hlo.complex(re, hlo.imag(ln))


@register(ew.Log)
def lower_log(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [_log(x, ctx.in_types[0])]


@register(ew.Sqrt)
def lower_sqrt(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    if is_complex(ctx.in_types[0].dtype):
        return [_csqrt(x, ctx.in_types[0])]
    return [hlo.sqrt(shielded(x, "sqrt"))]


def _complex_multiply(x: ir.Value, y: ir.Value) -> ir.Value:
    """NumPy's complex product, part by part: (ac - bd) + (ad + bc) j. XLA's simplifier
    takes a complex x * 1 for x, which NumPy's product is not where a part of x is
    infinite (1 * (inf + 2j) = inf + nan j); the real products it keeps exact."""
    a, b, c, d = hlo.real(x), hlo.imag(x), hlo.real(y), hlo.imag(y)
    return hlo.complex(hlo.subtract(hlo.multiply(a, c), hlo.multiply(b, d)),
                       hlo.add(hlo.multiply(a, d), hlo.multiply(b, c)))


@register(ew.Multiply)
@nan_absorbing
def lower_multiply(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = ctx.broadcast_operands((x, y))
    if is_complex(ctx.out_type.dtype):
        return [_complex_multiply(x, y)]
    if producer_name(x) == "stablehlo.exponential":
        y = shielded(y, "multiply")
    return [hlo.multiply(x, y)]


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
    if is_complex(t.dtype):
        return [_complex_sign(x, t)]
    if t.dtype.kind == "u":  # stablehlo.sign is for signed types: 0 or 1
        zero = constant(0, t.dtype, t.shape)
        return [convert(compare(x, zero, "NE", t.dtype), t.with_dtype("bool"), t.dtype)]
    return [hlo.sign(x)]


@register(ew.Abs)
def lower_abs(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    if t.dtype.kind in "ub":
        return [x]
    r = hlo.abs(x)
    if not is_complex(t.dtype):
        return [r]
    # |z| is inf when a part is inf, even if the other is nan (C99 Annex G, as NumPy);
    # XLA's complex abs gives nan there
    out = ctx.out_types[0]
    inf = constant(np.inf, out.dtype, out.shape)
    part_inf = hlo.or_(compare(hlo.abs(hlo.real(x)), inf, "EQ", out.dtype),
                       compare(hlo.abs(hlo.imag(x)), inf, "EQ", out.dtype))
    return [hlo.select(part_inf, inf, r)]


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
    if is_complex(t.dtype):
        return [_complex_reciprocal(x, t)]
    if not _is_int(ctx):
        return [hlo.divide(one, x)]
    # integer 1 / x truncates; for x == 0 NumPy converts 1.0 / 0 = inf to the integer
    # type (with a warning), which gives the least int32/int64 and 0 for narrower types
    zero = constant(0, t.dtype, t.shape)
    at_zero = np.iinfo(t.dtype).min if t.dtype in (np.dtype(np.int32), np.dtype(np.int64)) else 0
    safe = hlo.select(compare(x, zero, "EQ", t.dtype), one, x)
    q = hlo.divide(one, safe)
    return [hlo.select(compare(x, zero, "EQ", t.dtype), constant(at_zero, t.dtype, t.shape), q)]


@register(ew.Maximum)
@register(ew.Minimum)
@nan_absorbing
def lower_max_min(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = ctx.broadcast_operands((x, y))
    is_max = isinstance(ctx.op, ew.Maximum)
    dt = ctx.in_types[0].dtype
    if is_complex(dt):
        # NumPy orders complex numbers lexicographically and propagates NaN
        pick_x = ordered_compare(x, y, "GE" if is_max else "LE", dt)
        return [hlo.select(hlo.or_(pick_x, is_nan(x, dt)), x, y)]
    return [(hlo.maximum if is_max else hlo.minimum)(x, y)]


@register(ew.Power)
def lower_power(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = ctx.broadcast_operands((x, y))
    if is_complex(ctx.out_type.dtype):
        return [_complex_power(x, y, ctx.out_type)]
    exponent = ctx.node.inputs[1]
    if (is_float(ctx.out_type.dtype) and isinstance(exponent, Constant) and exponent.ndim == 0
            and float(exponent.data) == 0.5):
        # NumPy's power loop takes sqrt for a scalar exponent of 0.5 (sqrt(-inf) is nan,
        # sqrt(-0.0) is -0.0, where pow gives inf and 0.0)
        return [hlo.sqrt(shielded(x, "sqrt"))]
    if _is_int(ctx) and not _is_bool(ctx) and not _small_exponent(exponent):
        return [_integer_power(x, y, ctx.out_type)]
    return [hlo.power(shielded(x, "power"), y)]


def _small_exponent(exponent) -> bool:
    """A constant exponent in [0, 64), where XLA's integer power (six squarings) is exact."""
    if not isinstance(exponent, Constant):
        return False
    data = np.asarray(exponent.data)
    return bool(data.size and np.all((data >= 0) & (data < 64)))


def _integer_power(x: ir.Value, y: ir.Value, t: TensorType) -> ir.Value:
    """x ** y of integers by squaring over every bit of ``y``, wrapping as NumPy's loop
    does (XLA's integer power squares six times, so exponents from 64 on come out
    wrong: int16 (-3) ** 200 is 6561 there, -20319 in NumPy). Negative exponents keep
    XLA's value (NumPy refuses them)."""
    bits = np.iinfo(t.dtype).bits - (1 if t.dtype.kind == "i" else 0)
    zero, one = constant(0, t.dtype, t.shape), constant(1, t.dtype, t.shape)
    acc, p, e = one, x, y
    for k in range(bits):
        odd = compare(hlo.and_(e, one), zero, "NE", t.dtype)
        acc = hlo.select(odd, hlo.multiply(acc, p), acc)
        if k + 1 < bits:
            p = hlo.multiply(p, p)
            e = hlo.shift_right_logical(e, one)
    if t.dtype.kind == "u":
        return acc
    return hlo.select(compare(y, zero, "LT", t.dtype), hlo.power(x, y), acc)


@register(ew.Equal)
@register(ew.NotEqual)
@register(ew.Less)
@register(ew.LessEqual)
@register(ew.Greater)
@register(ew.GreaterEqual)
def lower_compare(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = ctx.broadcast_operands((x, y))
    return [ordered_compare(x, y, _DIRECTIONS[type(ctx.op)], ctx.in_types[0].dtype)]


_DIRECTIONS = {
    ew.Equal: "EQ", ew.NotEqual: "NE", ew.Less: "LT", ew.LessEqual: "LE",
    ew.Greater: "GT", ew.GreaterEqual: "GE",
}


@register(ew.Cast)
def lower_cast(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    src, dtype = ctx.in_types[0], ctx.out_type.dtype
    if src.dtype == np.bool_ and (is_float(dtype) or is_complex(dtype)):
        # XLA's algebraic simplifier rewrites ``convert(pred) * y`` (and ``/ c``,
        # a multiply by 1/c) into ``select(pred, y, 0)``, which loses NumPy's
        # ``False * nan == nan`` and ``False / 0.0 == nan``; a select of 1 and 0
        # keeps the product an IEEE multiply (a uint8 step would be folded away
        # by StableHLO's convert folding).
        shape = ctx.out_type.shape
        return [hlo.select(x, constant(1, dtype, shape), constant(0, dtype, shape))]
    return [convert(x, src, dtype)]


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
    neg = signbit(sign, t)
    a = hlo.abs(mag)
    return hlo.select(neg, hlo.negate(a), a)


@register(ew.FloorDivide)
def lower_floor_divide(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = ctx.broadcast_operands((x, y))
    if _is_int(ctx):
        return [_int_floor_divmod(ctx, x, y)[0]]
    return [_float_floor_divmod(ctx, x, y)[0]]


@register(ew.Remainder)
def lower_remainder(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = ctx.broadcast_operands((x, y))
    if _is_int(ctx):
        return [_int_floor_divmod(ctx, x, y)[1]]
    return [_float_floor_divmod(ctx, x, y)[1]]


# --- trigonometric, hyperbolic, exponential and logarithmic ---------------


def _scaled(ctx: LoweringContext, x: ir.Value, factor: float) -> ir.Value:
    t = ctx.in_types[0]
    return hlo.multiply(x, constant(factor, t.dtype, t.shape))


# StableHLO has exp and log only: 2**x is exp(x ln 2), log2(x) is log(x) / ln 2 (as jax does);
# degrees and radians multiply by the same constant NumPy's loops use.
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _exact_pow2(k: ir.Value, t: TensorType) -> ir.Value:
    """2**k for integer-valued ``k`` (a float tensor of ``t``) in the normal exponent
    range, built from its bits: (k + bias) << mantissa bits."""
    info = np.finfo(t.dtype)
    it = t.with_dtype(np.dtype(f"int{info.bits}"))
    bits = hlo.shift_left(hlo.add(convert(k, t, it.dtype), constant(info.maxexp - 1, it.dtype, t.shape)),
                          constant(info.nmant, it.dtype, t.shape))
    return hlo.bitcast_convert(ir.RankedTensorType(k.type), bits)


@register(ew.Exp2)
def lower_exp2(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    """2**x as NumPy computes it: exact for integer x. x = n + f with n = round(x), so
    2**x = exp(f ln 2) * 2**n, the power of two made from its bits (in two halves, which
    keeps them normal while the product reaches the subnormal and overflow ranges);
    infinities and NaN take exp(x ln 2). Half precision computes in float32."""
    t = ctx.in_types[0]
    if is_complex(t.dtype):
        # each part times the real ln 2, as NumPy's loop (a complex product with ln 2 + 0j
        # would make inf + 3j nan + nan j), then cexp's special values
        rt = _rtype(t)
        c = constant(math.log(2.0), rt.dtype, t.shape)
        return [_exp(hlo.complex(hlo.multiply(hlo.real(x), c), hlo.multiply(hlo.imag(x), c)), t)]
    ct = t if t.dtype in (_F32, _F64) else t.with_dtype(_F32)
    xc = convert(x, t, ct.dtype)
    info = np.finfo(ct.dtype)
    lo = constant(float(info.minexp - info.nmant - 2), ct.dtype, t.shape)
    hi = constant(float(info.maxexp + 1), ct.dtype, t.shape)
    n = hlo.clamp(lo, hlo.round_nearest_even(xc), hi)
    f = hlo.subtract(xc, n)
    r = hlo.exponential(hlo.multiply(f, constant(math.log(2.0), ct.dtype, t.shape)))
    a = hlo.floor(hlo.multiply(n, constant(0.5, ct.dtype, t.shape)))
    b = hlo.subtract(n, a)
    exact = hlo.multiply(hlo.multiply(r, _exact_pow2(a, ct)), _exact_pow2(b, ct))
    fallback = hlo.exponential(hlo.multiply(xc, constant(math.log(2.0), ct.dtype, t.shape)))
    finite = hlo.is_finite(xc)
    return [convert(hlo.select(finite, exact, fallback), ct, t.dtype)]


@register(ew.Log2)
@register(ew.Log10)
def lower_log_base(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    base = 2.0 if isinstance(ctx.op, ew.Log2) else 10.0
    ln = _log(x, t)
    if is_complex(t.dtype):
        # each part over the real ln(base): a complex division would make inf + nan*j nan + nan*j
        rt = t.with_dtype(np.zeros((), t.dtype).real.dtype)
        c = constant(math.log(base), rt.dtype, t.shape)
        return [hlo.complex(hlo.divide(hlo.real(ln), c), hlo.divide(hlo.imag(ln), c))]
    return [hlo.divide(ln, constant(math.log(base), t.dtype, t.shape))]


@register(ew.Deg2rad)
def lower_deg2rad(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [_scaled(ctx, x, math.pi / 180.0)]


@register(ew.Rad2deg)
def lower_rad2deg(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [_scaled(ctx, x, 180.0 / math.pi)]


@register(ew.Trunc)
def lower_trunc(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    if _is_int(ctx):
        return [x]
    t = ctx.in_types[0]
    negative = compare(x, constant(0, t.dtype, t.shape), "LT", t.dtype)
    return [hlo.select(negative, hlo.ceil(x), hlo.floor(x))]  # ceil keeps -0.0 for (-1, 0)


@register(ew.Signbit)
def lower_signbit(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [signbit(x, ctx.in_types[0])]


@register(ew.Positive)
def lower_positive(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [x]


# --- complex parts ---------------------------------------------------------
@register(ew.Conj)
def lower_conj(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    if not is_complex(ctx.in_types[0].dtype):
        return [x]
    return [hlo.complex(hlo.real(x), hlo.negate(hlo.imag(x)))]


@register(ew.Real)
def lower_real(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [hlo.real(x)] if is_complex(ctx.in_types[0].dtype) else [x]


@register(ew.Imag)
def lower_imag(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    if is_complex(ctx.in_types[0].dtype):
        return [hlo.imag(x)]
    return [constant(0, ctx.out_type.dtype, ctx.out_type.shape)]


@register(ew.Angle)
def lower_angle(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    if is_complex(ctx.in_types[0].dtype):
        return [hlo.atan2(hlo.imag(x), hlo.real(x))]
    t = ctx.out_type
    return [hlo.atan2(constant(0, t.dtype, t.shape), x)]  # NumPy: arctan2(0, x)


# --- bits ------------------------------------------------------------------
@register(ew.Popcount)
def lower_popcount(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    if t.dtype.kind == "i":  # NumPy counts the bits of |x| (|min| wraps to min: one bit, as NumPy)
        x = hlo.abs(x)
    return [convert(hlo.popcnt(x), t, ctx.out_type.dtype)]


def _shift_in_range(ctx: LoweringContext, s: ir.Value) -> ir.Value:
    """0 <= s < bit width: NumPy's shifts are defined there; XLA's differ outside."""
    t = ctx.out_type
    bits = constant(8 * t.dtype.itemsize, t.dtype, t.shape)
    ok = compare(s, bits, "LT", t.dtype)
    if t.dtype.kind == "i":
        ok = hlo.and_(ok, compare(s, constant(0, t.dtype, t.shape), "GE", t.dtype))
    return ok


@register(ew.LeftShift)
def lower_left_shift(ctx: LoweringContext, x: ir.Value, s: ir.Value) -> list[ir.Value]:
    x, s = ctx.broadcast_operands((x, s))
    t = ctx.out_type
    return [hlo.select(_shift_in_range(ctx, s), hlo.shift_left(x, s), constant(0, t.dtype, t.shape))]


@register(ew.RightShift)
def lower_right_shift(ctx: LoweringContext, x: ir.Value, s: ir.Value) -> list[ir.Value]:
    x, s = ctx.broadcast_operands((x, s))
    t = ctx.out_type
    zero = constant(0, t.dtype, t.shape)
    if t.dtype.kind == "i":
        shifted = hlo.shift_right_arithmetic(x, s)
        fill = hlo.select(compare(x, zero, "LT", t.dtype), constant(-1, t.dtype, t.shape), zero)
    else:
        shifted, fill = hlo.shift_right_logical(x, s), zero
    return [hlo.select(_shift_in_range(ctx, s), shifted, fill)]


# --- binary float functions ---------------------------------------------------
@register(ew.Hypot)
def lower_hypot(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    # max * sqrt(1 + (min/max)**2) cannot overflow; an infinity wins over NaN (C99)
    x, y = ctx.broadcast_operands((x, y))
    t = ctx.out_type
    a, b = hlo.abs(x), hlo.abs(y)
    big, small = hlo.maximum(a, b), hlo.minimum(a, b)
    zero, one = constant(0, t.dtype, t.shape), constant(1, t.dtype, t.shape)
    safe = hlo.select(compare(big, zero, "EQ", t.dtype), one, big)
    r = hlo.divide(small, safe)
    h = hlo.multiply(big, hlo.sqrt(hlo.add(one, hlo.multiply(r, r))))
    inf = hlo.or_(chlo.is_inf(a), chlo.is_inf(b))
    return [hlo.select(inf, constant(np.inf, t.dtype, t.shape), h)]


@register(ew.Copysign)
def lower_copysign(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = ctx.broadcast_operands((x, y))
    return [_copysign(x, y, ctx.out_type)]


@register(ew.Logaddexp)
@register(ew.Logaddexp2)
def lower_logaddexp(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    # NumPy's npy_logaddexp: max + log1p(exp(-|x - y|)), and x + log(2) where x == y
    # (equal infinities); NaN propagates through max.
    x, y = ctx.broadcast_operands((x, y))
    t = ctx.out_type
    base2 = isinstance(ctx.op, ew.Logaddexp2)
    d = hlo.subtract(x, y)
    # NaN kept away from the exponential: XLA:CPU's exp of a NaN computed from a NaN
    # constant (logaddexp(nan, x) in float32, bfloat16) returns garbage; where d is NaN
    # (a NaN operand, or equal infinities, which x == y takes) the result is d
    d_nan = compare(d, d, "NE", t.dtype)
    neg_abs_d = hlo.select(d_nan, constant(0.0, t.dtype, t.shape), hlo.negate(hlo.abs(d)))
    if base2:
        e = hlo.exponential(hlo.multiply(neg_abs_d, constant(math.log(2.0), t.dtype, t.shape)))
        tail = hlo.multiply(hlo.log_plus_one(e), constant(1 / math.log(2.0), t.dtype, t.shape))
    else:
        tail = hlo.log_plus_one(hlo.exponential(neg_abs_d))
    out = hlo.add(hlo.maximum(x, y), tail)
    same = hlo.add(x, constant(1.0 if base2 else math.log(2.0), t.dtype, t.shape))
    return [hlo.select(compare(x, y, "EQ", t.dtype), same, hlo.select(d_nan, d, out))]


@register(ew.Fmod)
def lower_fmod(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = ctx.broadcast_operands((x, y))
    if not _is_int(ctx):
        return [hlo.remainder(x, y)]  # C fmod, NaN for y == 0
    t = ctx.out_type
    zero = constant(0, t.dtype, t.shape)
    y_zero = compare(y, zero, "EQ", t.dtype)
    r = hlo.remainder(x, hlo.select(y_zero, constant(1, t.dtype, t.shape), y))
    return [hlo.select(y_zero, zero, r)]


@register(ew.Fmax)
@register(ew.Fmin)
def lower_fmax_fmin(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = ctx.broadcast_operands((x, y))
    is_max = isinstance(ctx.op, ew.Fmax)
    dt = ctx.in_types[0].dtype
    if is_complex(dt):
        pick_x = hlo.or_(ordered_compare(x, y, "GE" if is_max else "LE", dt), is_nan(y, dt))
        return [hlo.select(pick_x, x, y)]
    out = (hlo.maximum if is_max else hlo.minimum)(x, y)
    if is_float(dt):  # a NaN operand yields the other one
        out = hlo.select(is_nan(x, dt), y, out)
        out = hlo.select(is_nan(y, dt), x, out)
    return [out]


# --- complex functions at their special values -----------------------------
# NumPy computes complex functions with C99's (Annex G) special values: an
# infinite part wins over NaN (clog(nan + inf j) = inf + nan j), signed zeros pick
# the side of a branch cut (arcsin(2 - 0j) = conj(arcsin(2 + 0j))). XLA's
# expansions give NaN there and ignore the sign of a zero part, so these rules
# compute on one quadrant (the functions' symmetries give the others) and select
# C99's value where an input part is NaN or infinite.


def _rtype(t: TensorType) -> TensorType:
    return t.with_dtype(real_dtype(t.dtype))


def _negate_where(cond: ir.Value, v: ir.Value) -> ir.Value:
    return hlo.select(cond, hlo.negate(v), v)


def _eq(a: ir.Value, value: float, rt: TensorType) -> ir.Value:
    return compare(a, constant(value, rt.dtype, rt.shape), "EQ", rt.dtype)


def _odd_symmetric(q1: Callable, x: ir.Value, t: TensorType) -> ir.Value:
    """f(x) of an odd function with f(conj z) = conj f(z) (asinh, asin, atanh, atan),
    from ``q1(a, b)``, its (re, im) parts at ``a + b j`` with a, b >= 0 (or NaN)."""
    rt = _rtype(t)
    re, im = hlo.real(x), hlo.imag(x)
    wr, wi = q1(hlo.abs(re), hlo.abs(im), rt)
    return hlo.complex(_negate_where(signbit(re, rt), wr), _negate_where(signbit(im, rt), wi))


def _conj_symmetric(q2: Callable, x: ir.Value, t: TensorType) -> ir.Value:
    """f(x) of a function with f(conj z) = conj f(z) (acos, acosh), from ``q2(re, b)``,
    its (re, im) parts at ``re + b j`` with b >= 0 (or NaN)."""
    rt = _rtype(t)
    re, im = hlo.real(x), hlo.imag(x)
    wr, wi = q2(re, hlo.abs(im), rt)
    return hlo.complex(wr, _negate_where(signbit(im, rt), wi))


def _nan_with_finite(a: ir.Value, b: ir.Value, rt: TensorType) -> ir.Value:
    """One part NaN and the other finite and nonzero: C99 gives nan + nan j (XLA's
    expansions for large arguments keep a part)."""
    return hlo.and_(is_nan(a, rt.dtype), hlo.and_(hlo.is_finite(b), hlo.not_(_eq(b, 0, rt))))


def _both_nan(rt: TensorType) -> tuple[ir.Value, ir.Value]:
    nan = constant(np.nan, rt.dtype, rt.shape)
    return nan, nan


def _select_parts(cond: ir.Value, parts: tuple, other: tuple) -> tuple[ir.Value, ir.Value]:
    return hlo.select(cond, parts[0], other[0]), hlo.select(cond, parts[1], other[1])


def _asinh_q1(a: ir.Value, b: ir.Value, rt: TensorType) -> tuple[ir.Value, ir.Value]:
    w = chlo.asinh(hlo.complex(a, b))
    # casinh(nan + 0j) = nan + 0j
    im = hlo.select(hlo.and_(is_nan(a, rt.dtype), _eq(b, 0, rt)), b, hlo.imag(w))
    nan = hlo.or_(_nan_with_finite(a, b, rt), hlo.and_(is_nan(b, rt.dtype), hlo.is_finite(a)))
    return _select_parts(nan, _both_nan(rt), (hlo.real(w), im))


def _atanh_q1(a: ir.Value, b: ir.Value, rt: TensorType) -> tuple[ir.Value, ir.Value]:
    w = chlo.atanh(hlo.complex(a, b))
    nan, zero = constant(np.nan, rt.dtype, rt.shape), constant(0, rt.dtype, rt.shape)
    a_nan, b_nan = is_nan(a, rt.dtype), is_nan(b, rt.dtype)
    # catanh(x + nan j) is 0 + nan j for x = 0 or inf, else nan + nan j; catanh(nan + yj)
    # is nan + nan j for finite y
    nan_finite = hlo.and_(a_nan, hlo.is_finite(b))
    re = hlo.select(b_nan, hlo.select(hlo.or_(_eq(a, 0, rt), _eq(a, np.inf, rt)), zero, nan), hlo.real(w))
    re = hlo.select(nan_finite, nan, re)
    im = hlo.select(hlo.or_(b_nan, nan_finite), nan, hlo.imag(w))
    return re, im


def _swapped(q1: Callable) -> Callable:
    """asin(z) = -i asinh(iz), atan(z) = -i atanh(iz): on the first quadrant, the parts
    of the hyperbolic function at the swapped point, swapped."""
    def q(a, b, rt):
        wr, wi = q1(b, a, rt)
        return wi, wr
    return q


def _acos_q2(re: ir.Value, b: ir.Value, rt: TensorType) -> tuple[ir.Value, ir.Value]:
    w = chlo.acos(hlo.complex(re, b))
    at = hlo.and_(_eq(re, 0, rt), is_nan(b, rt.dtype))  # cacos(0 + nan j) = pi/2 + nan j
    w = hlo.select(at, constant(math.pi / 2, rt.dtype, rt.shape), hlo.real(w)), hlo.imag(w)
    return _select_parts(_nan_parts(re, b, rt), _both_nan(rt), w)


def _nan_parts(re: ir.Value, b: ir.Value, rt: TensorType) -> ir.Value:
    """cacos and cacosh are nan + nan j where a part is NaN and the other finite (zero
    excepted for a NaN imaginary part)."""
    return hlo.or_(_nan_with_finite(b, re, rt), hlo.and_(is_nan(re, rt.dtype), hlo.is_finite(b)))


def _acosh_q2(re: ir.Value, b: ir.Value, rt: TensorType) -> tuple[ir.Value, ir.Value]:
    w = chlo.acosh(hlo.complex(re, b))
    at = hlo.and_(_eq(re, 0, rt), is_nan(b, rt.dtype))  # cacosh(0 + nan j) = nan + pi/2 j
    w = hlo.real(w), hlo.select(at, constant(math.pi / 2, rt.dtype, rt.shape), hlo.imag(w))
    return _select_parts(_nan_parts(re, b, rt), _both_nan(rt), w)


_INVERSE = {
    ew.Arcsinh: (chlo.asinh, lambda x, t: _odd_symmetric(_asinh_q1, x, t)),
    ew.Arcsin: (chlo.asin, lambda x, t: _odd_symmetric(_swapped(_asinh_q1), x, t)),
    ew.Arctanh: (chlo.atanh, lambda x, t: _odd_symmetric(_atanh_q1, x, t)),
    ew.Arctan: (chlo.atan, lambda x, t: _odd_symmetric(_swapped(_atanh_q1), x, t)),
    ew.Arccos: (chlo.acos, lambda x, t: _conj_symmetric(_acos_q2, x, t)),
    ew.Arccosh: (chlo.acosh, lambda x, t: _conj_symmetric(_acosh_q2, x, t)),
}


def lower_inverse(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    real_fn, complex_fn = _INVERSE[type(ctx.op)]
    t = ctx.in_types[0]
    return [complex_fn(x, t) if is_complex(t.dtype) else real_fn(x)]


for _op in _INVERSE:
    register(_op)(lower_inverse)


def _exp(x: ir.Value, t: TensorType) -> ir.Value:
    """e**x; of a complex x with an infinite real part and a non-finite imaginary part,
    C's cexp: inf + nan j for +inf, 0 for -inf (XLA gives nan + nan j)."""
    e = hlo.exponential(x)
    if not is_complex(t.dtype):
        return e
    rt = _rtype(t)
    re, im = hlo.real(x), hlo.imag(x)
    odd = hlo.not_(hlo.is_finite(im))
    inf = constant(np.inf, rt.dtype, rt.shape)
    zero = constant(0, rt.dtype, rt.shape)
    e = hlo.select(hlo.and_(odd, _eq(re, np.inf, rt)), hlo.complex(inf, constant(np.nan, rt.dtype, rt.shape)), e)
    return hlo.select(hlo.and_(odd, _eq(re, -np.inf, rt)), hlo.complex(zero, zero), e)


def _classes(x: ir.Value, rt: TensorType):
    """(re, im, re finite, im finite, re NaN, im NaN) of complex ``x``."""
    re, im = hlo.real(x), hlo.imag(x)
    return re, im, hlo.is_finite(re), hlo.is_finite(im), is_nan(re, rt.dtype), is_nan(im, rt.dtype)


def _csinh(x: ir.Value, t: TensorType) -> ir.Value:
    """C's csinh (as glibc's, which NumPy calls) where a part is not finite; XLA's
    expansion gives nan + nan j there."""
    rt = _rtype(t)
    re, im, re_fin, im_fin, re_nan, im_nan = _classes(x, rt)
    w = chlo.sinh(x)
    wr, wi = hlo.real(w), hlo.imag(w)
    nan, inf = constant(np.nan, rt.dtype, rt.shape), constant(np.inf, rt.dtype, rt.shape)
    im_zero = _eq(im, 0, rt)
    # finite re, non-finite im: copysign(0, re) + nan j at re = 0, else nan + nan j
    a = hlo.and_(re_fin, hlo.not_(im_fin))
    wr = hlo.select(a, hlo.select(_eq(re, 0, rt), re, nan), wr)
    wi = hlo.select(a, nan, wi)
    # infinite re, non-finite im: inf + nan j
    b = hlo.and_(chlo.is_inf(re), hlo.not_(im_fin))
    wr, wi = hlo.select(b, inf, wr), hlo.select(b, nan, wi)
    # infinite re, zero im: re + im j
    c = hlo.and_(chlo.is_inf(re), im_zero)
    wr, wi = hlo.select(c, re, wr), hlo.select(c, im, wi)
    # NaN re: nan + (im if im == 0 else nan) j
    wr = hlo.select(re_nan, nan, wr)
    wi = hlo.select(re_nan, hlo.select(im_zero, im, nan), wi)
    return hlo.complex(wr, wi)


def _ccosh(x: ir.Value, t: TensorType) -> ir.Value:
    """C's ccosh (glibc's) where a part is not finite."""
    rt = _rtype(t)
    re, im, re_fin, im_fin, re_nan, im_nan = _classes(x, rt)
    w = chlo.cosh(x)
    wr, wi = hlo.real(w), hlo.imag(w)
    nan, inf = constant(np.nan, rt.dtype, rt.shape), constant(np.inf, rt.dtype, rt.shape)
    zero = constant(0, rt.dtype, rt.shape)
    im_zero = _eq(im, 0, rt)
    # finite re, non-finite im: nan + (0 if re == 0 else nan) j
    a = hlo.and_(re_fin, hlo.not_(im_fin))
    wr = hlo.select(a, nan, wr)
    wi = hlo.select(a, hlo.select(_eq(re, 0, rt), zero, nan), wi)
    # infinite re: inf + im * copysign(1, re) j at im = 0, inf + nan j for a non-finite im
    re_inf = chlo.is_inf(re)
    b = hlo.and_(re_inf, hlo.not_(im_fin))
    wr, wi = hlo.select(b, inf, wr), hlo.select(b, nan, wi)
    c = hlo.and_(re_inf, im_zero)
    wr = hlo.select(c, inf, wr)
    wi = hlo.select(c, _negate_where(signbit(re, rt), im), wi)
    wr = hlo.select(re_nan, nan, wr)
    wi = hlo.select(re_nan, hlo.select(im_zero, im, nan), wi)
    return hlo.complex(wr, wi)


def _ctanh(x: ir.Value, t: TensorType) -> ir.Value:
    """C's ctanh (glibc's) where a part is not finite."""
    rt = _rtype(t)
    re, im, re_fin, im_fin, re_nan, im_nan = _classes(x, rt)
    w = hlo.tanh(x)
    wr, wi = hlo.real(w), hlo.imag(w)
    nan = constant(np.nan, rt.dtype, rt.shape)
    one, zero = constant(1, rt.dtype, rt.shape), constant(0, rt.dtype, rt.shape)
    odd = hlo.not_(hlo.and_(re_fin, im_fin))
    # anything else not finite: (re if re == 0 else nan) + nan j; re + 0j at im = 0
    other_r = hlo.select(_eq(re, 0, rt), re, nan)
    im_zero = _eq(im, 0, rt)
    other_r, other_i = hlo.select(im_zero, re, other_r), hlo.select(im_zero, im, nan)
    # infinite re: copysign(1, re) + copysign(0, sin(2 im) for |im| > 1, else im) j
    big = hlo.and_(im_fin, compare(hlo.abs(im), one, "GT", rt.dtype))
    sin2 = hlo.multiply(hlo.sine(im), hlo.cosine(im))
    inf_r = _copysign(one, re, rt)
    inf_i = _copysign(zero, hlo.select(big, sin2, im), rt)
    re_inf = chlo.is_inf(re)
    wr = hlo.select(odd, hlo.select(re_inf, inf_r, other_r), wr)
    wi = hlo.select(odd, hlo.select(re_inf, inf_i, other_i), wi)
    return hlo.complex(wr, wi)


def _times_i(x: ir.Value) -> ir.Value:
    return hlo.complex(hlo.negate(hlo.imag(x)), hlo.real(x))


def _times_minus_i(x: ir.Value) -> ir.Value:
    return hlo.complex(hlo.imag(x), hlo.negate(hlo.real(x)))


def _csqrt(x: ir.Value, t: TensorType) -> ir.Value:
    """C's csqrt (glibc's): the imaginary part takes the sign of the input's (XLA's
    ignores a -0.0 there), and the special values of non-finite parts."""
    rt = _rtype(t)
    re, im, re_fin, im_fin, re_nan, im_nan = _classes(x, rt)
    w = hlo.sqrt(hlo.complex(re, hlo.abs(im)))
    wr, wi = hlo.real(w), _negate_where(signbit(im, rt), hlo.imag(w))
    nan, inf = constant(np.nan, rt.dtype, rt.shape), constant(np.inf, rt.dtype, rt.shape)
    zero = constant(0, rt.dtype, rt.shape)
    # any NaN part: nan + nan j, unless one of the cases below
    any_nan = hlo.or_(re_nan, im_nan)
    wr, wi = hlo.select(any_nan, nan, wr), hlo.select(any_nan, nan, wi)
    # re = +inf: inf + (nan if im is NaN else copysign(0, im)) j
    pos = _eq(re, np.inf, rt)
    wr = hlo.select(pos, inf, wr)
    wi = hlo.select(pos, hlo.select(im_nan, nan, _copysign(zero, im, rt)), wi)
    # re = -inf: (nan if im is NaN else 0) + copysign(inf, im) j
    neg = _eq(re, -np.inf, rt)
    wr = hlo.select(neg, hlo.select(im_nan, nan, zero), wr)
    wi = hlo.select(neg, _copysign(inf, im, rt), wi)
    # an infinite im: inf + im j whatever re is
    im_inf = chlo.is_inf(im)
    return hlo.complex(hlo.select(im_inf, inf, wr), hlo.select(im_inf, im, wi))


def _complex_reciprocal(x: ir.Value, t: TensorType) -> ir.Value:
    """NumPy's complex reciprocal loop (one Smith step, 1 / (0 + 0j) and infinities
    giving nan + nan j)."""
    rt = _rtype(t)
    re, im = hlo.real(x), hlo.imag(x)
    one = constant(1, rt.dtype, rt.shape)
    # |im| <= |re|: r = im / re, d = re + im * r -> 1 / d - r / d j
    r1 = hlo.divide(im, re)
    d1 = hlo.add(re, hlo.multiply(im, r1))
    # else: r = re / im, d = re * r + im -> r / d - 1 / d j
    r2 = hlo.divide(re, im)
    d2 = hlo.add(hlo.multiply(re, r2), im)
    # XLA folds (a / b) / c into a / (b * c), which overflows where NumPy's does not
    r1, r2 = hlo.optimization_barrier([r1]), hlo.optimization_barrier([r2])
    first = compare(hlo.abs(im), hlo.abs(re), "LE", rt.dtype)
    out_r = hlo.select(first, hlo.divide(one, d1), hlo.divide(r2, d2))
    out_i = hlo.select(first, hlo.negate(hlo.divide(r1, d1)), hlo.negate(hlo.divide(one, d2)))
    return hlo.complex(out_r, out_i)


def _complex_sign(x: ir.Value, t: TensorType) -> ir.Value:
    """NumPy's complex sign, z / |z|: nan where |z| is; for an infinite |z|, +-1 along
    the infinite part (nan + nan j when both are)."""
    rt = _rtype(t)
    re, im = hlo.real(x), hlo.imag(x)
    w = hlo.sign(x)
    nan, zero, one = (constant(v, rt.dtype, rt.shape) for v in (np.nan, 0, 1))
    re_inf, im_inf = chlo.is_inf(re), chlo.is_inf(im)

    def unit(v):
        return hlo.select(compare(v, zero, "GT", rt.dtype), one, hlo.negate(one))

    wr = hlo.select(re_inf, hlo.select(im_inf, nan, unit(re)), hlo.select(im_inf, zero, hlo.real(w)))
    wi = hlo.select(re_inf, hlo.select(im_inf, nan, zero), hlo.select(im_inf, unit(im), hlo.imag(w)))
    return hlo.complex(wr, wi)


_COMPLEX_SPECIAL = {
    ew.Sinh: _csinh,
    ew.Cosh: _ccosh,
    ew.Tanh: _ctanh,
    # sin z = -i sinh(i z), cos z = cosh(i z), tan z = -i tanh(i z), as NumPy's fallbacks
    ew.Sin: lambda x, t: _times_minus_i(_csinh(_times_i(x), t)),
    ew.Cos: lambda x, t: _ccosh(_times_i(x), t),
    ew.Tan: lambda x, t: _times_minus_i(_ctanh(_times_i(x), t)),
    ew.Reciprocal: _complex_reciprocal,
    ew.Sign: _complex_sign,
}


def lower_complex_special(ctx: LoweringContext, x: ir.Value) -> list[ir.Value] | None:
    """The rule's result for a complex input of a function in ``_COMPLEX_SPECIAL``
    (NumPy's values where a part is infinite, NaN or a signed zero), None otherwise."""
    t = ctx.in_types[0]
    fn = _COMPLEX_SPECIAL.get(type(ctx.op))
    if fn is None or not is_complex(t.dtype):
        return None
    return [fn(x, t)]


def _lower_hyperbolic(fallback: Callable, ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return lower_complex_special(ctx, x) or [fallback(x)]


for _op, _fn in ((ew.Sinh, chlo.sinh), (ew.Cosh, chlo.cosh), (ew.Tanh, hlo.tanh),
                 (ew.Sin, hlo.sine), (ew.Cos, hlo.cosine), (ew.Tan, hlo.tan)):
    register(_op)(partial(_lower_hyperbolic, _fn))


@register(ew.Exp)
def lower_exp(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [_exp(x, ctx.in_types[0])]


@register(ew.Log1p)
def lower_log1p(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    r = hlo.log_plus_one(x)
    if not is_complex(t.dtype):
        return [r]
    # an infinite part makes the real part +inf, as in clog
    rt = _rtype(t)
    inf_part = hlo.or_(chlo.is_inf(hlo.real(x)), chlo.is_inf(hlo.imag(x)))
    return [hlo.complex(hlo.select(inf_part, constant(np.inf, rt.dtype, rt.shape), hlo.real(r)), hlo.imag(r))]


def _complex_divide(x: ir.Value, y: ir.Value, t: TensorType) -> ir.Value:
    """NumPy's complex division (Smith's algorithm, as its loops run it step by step):
    XLA's gives other infinities and NaNs."""
    rt = _rtype(t)
    ar, ai, br, bi = hlo.real(x), hlo.imag(x), hlo.real(y), hlo.imag(y)
    abr, abi = hlo.abs(br), hlo.abs(bi)
    one = constant(1, rt.dtype, rt.shape)
    # |br| >= |bi|
    rat = hlo.divide(bi, br)
    scl = hlo.divide(one, hlo.add(br, hlo.multiply(bi, rat)))
    r1 = hlo.multiply(hlo.add(ar, hlo.multiply(ai, rat)), scl)
    i1 = hlo.multiply(hlo.subtract(ai, hlo.multiply(ar, rat)), scl)
    # both zero: a complex inf or nan
    both_zero = hlo.and_(_eq(abr, 0, rt), _eq(abi, 0, rt))
    r1 = hlo.select(both_zero, hlo.divide(ar, abr), r1)
    i1 = hlo.select(both_zero, hlo.divide(ai, abr), i1)
    # otherwise (NaN parts too)
    rat2 = hlo.divide(br, bi)
    scl2 = hlo.divide(one, hlo.add(bi, hlo.multiply(br, rat2)))
    r2 = hlo.multiply(hlo.add(hlo.multiply(ar, rat2), ai), scl2)
    i2 = hlo.multiply(hlo.subtract(hlo.multiply(ai, rat2), ar), scl2)
    first = compare(abr, abi, "GE", rt.dtype)
    return hlo.complex(hlo.select(first, r1, r2), hlo.select(first, i1, i2))


@register(ew.Divide)
@nan_absorbing
def lower_divide(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = ctx.broadcast_operands((x, y))
    if is_complex(ctx.out_type.dtype):
        return [_complex_divide(x, y, ctx.out_type)]
    return [hlo.divide(x, y)]


def _annex_g_multiply(x: ir.Value, y: ir.Value, t: TensorType) -> ir.Value:
    """C's complex product (C99 Annex G, GCC's ``__muldc3``): where the plain product is
    nan + nan j but an operand is infinite, its infinities are recovered."""
    rt = _rtype(t)
    a, b, c, d = hlo.real(x), hlo.imag(x), hlo.real(y), hlo.imag(y)
    ac, bd, ad, bc = hlo.multiply(a, c), hlo.multiply(b, d), hlo.multiply(a, d), hlo.multiply(b, c)
    re, im = hlo.subtract(ac, bd), hlo.add(ad, bc)
    zero, one = constant(0, rt.dtype, rt.shape), constant(1, rt.dtype, rt.shape)

    def box(v):  # copysign(isinf(v) ? 1 : 0, v)
        return _copysign(hlo.select(chlo.is_inf(v), one, zero), v, rt)

    def unnan(v):  # NaN -> copysign(0, v)
        return hlo.select(is_nan(v, rt.dtype), _copysign(zero, v, rt), v)

    x_inf = hlo.or_(chlo.is_inf(a), chlo.is_inf(b))
    a, b = hlo.select(x_inf, box(a), a), hlo.select(x_inf, box(b), b)
    c, d = hlo.select(x_inf, unnan(c), c), hlo.select(x_inf, unnan(d), d)
    y_inf = hlo.or_(chlo.is_inf(c), chlo.is_inf(d))
    c, d = hlo.select(y_inf, box(c), c), hlo.select(y_inf, box(d), d)
    a, b = hlo.select(y_inf, unnan(a), a), hlo.select(y_inf, unnan(b), b)
    big = hlo.or_(hlo.or_(chlo.is_inf(ac), chlo.is_inf(bd)), hlo.or_(chlo.is_inf(ad), chlo.is_inf(bc)))
    overflow = hlo.and_(hlo.not_(hlo.or_(x_inf, y_inf)), big)
    a, b, c, d = (hlo.select(overflow, unnan(v), v) for v in (a, b, c, d))
    inf = constant(np.inf, rt.dtype, rt.shape)
    re2 = hlo.multiply(inf, hlo.subtract(hlo.multiply(a, c), hlo.multiply(b, d)))
    im2 = hlo.multiply(inf, hlo.add(hlo.multiply(a, d), hlo.multiply(b, c)))
    recover = hlo.and_(hlo.and_(is_nan(re, rt.dtype), is_nan(im, rt.dtype)),
                       hlo.or_(hlo.or_(x_inf, y_inf), big))
    return hlo.complex(hlo.select(recover, re2, re), hlo.select(recover, im2, im))


def _plain_multiply(x: ir.Value, y: ir.Value) -> ir.Value:
    """The complex product part by part, as NumPy multiplies (XLA folds a product with
    the constant 1 away, where NumPy's 1 * (inf + 0j) is inf + nan j)."""
    a, b, c, d = hlo.real(x), hlo.imag(x), hlo.real(y), hlo.imag(y)
    return hlo.complex(hlo.subtract(hlo.multiply(a, c), hlo.multiply(b, d)),
                       hlo.add(hlo.multiply(a, d), hlo.multiply(b, c)))


def _complex_power(a: ir.Value, b: ir.Value, t: TensorType) -> ir.Value:
    """NumPy's complex power (npy_cpow): 1 for b = 0; for a = 0, 0 when Re b > 0, else
    nan; integer b in (-100, 100) by repeated multiplication (and one division for
    negative b); else C's cpow, cexp(b * clog(a))."""
    rt = _rtype(t)
    ar, ai, br, bi = hlo.real(a), hlo.imag(a), hlo.real(b), hlo.imag(b)
    one = constant(1, t.dtype, t.shape)
    out = _exp(_annex_g_multiply(b, _log(a, t), t), t)
    # integer exponents: the unrolled squares of n = 2, 3, or binary powering of |n|
    integral = hlo.and_(hlo.and_(_eq(bi, 0, rt), compare(hlo.floor(br), br, "EQ", rt.dtype)),
                        compare(hlo.abs(br), constant(100, rt.dtype, rt.shape), "LT", rt.dtype))
    it = rt.with_dtype(np.dtype(np.int32))
    n = convert(hlo.select(integral, hlo.abs(br), constant(0, rt.dtype, rt.shape)), rt, it.dtype)
    acc, p = one, a
    for k in range(7):  # |n| < 100 < 2**7
        bit = compare(hlo.and_(hlo.shift_right_logical(n, constant(k, it.dtype, it.shape)),
                               constant(1, it.dtype, it.shape)), constant(0, it.dtype, it.shape), "NE", it.dtype)
        acc = hlo.select(bit, _plain_multiply(acc, p), acc)
        p = hlo.multiply(p, p)
    acc = hlo.select(compare(br, constant(0, rt.dtype, rt.shape), "LT", rt.dtype), _complex_divide(one, acc, t), acc)
    square = hlo.multiply(a, a)
    acc = hlo.select(_eq(br, 2, rt), square, acc)
    acc = hlo.select(_eq(br, 3, rt), hlo.multiply(a, square), acc)
    acc = hlo.select(_eq(br, 1, rt), a, acc)
    out = hlo.select(integral, acc, out)
    zero_base = hlo.and_(_eq(ar, 0, rt), _eq(ai, 0, rt))
    nan = constant(np.nan, rt.dtype, rt.shape)
    at_zero = hlo.select(compare(br, constant(0, rt.dtype, rt.shape), "GT", rt.dtype),
                         constant(0, t.dtype, t.shape), hlo.complex(nan, nan))
    out = hlo.select(zero_base, at_zero, out)
    return hlo.select(hlo.and_(_eq(br, 0, rt), _eq(bi, 0, rt)), one, out)
