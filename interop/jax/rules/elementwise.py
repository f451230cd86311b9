"""Elementwise primitives: arithmetic, transcendental and special functions,
comparisons, bitwise and logical ops, ``select_n``, ``clamp`` and
``convert_element_type``.

Operands of a jaxpr's elementwise equation already share one dtype (jax
promoted them while tracing), so hlograph's builders give jax's result dtype
except where the two libraries mean different things by one name; those rules
spell jax's meaning out: integer ``div`` truncates (NumPy's floors), ``rem``
takes the dividend's sign, ``round`` rounds half away from zero unless asked
for half to even, ``integer_pow`` multiplies as jax does, ``mulhi`` is the high
half of the double-width product.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ....frontend.ops.autodiff import stop_gradient
from ....frontend.ops.elemwise import make_complex
from ....frontend.types import is_complex, is_float, is_integer
from ..registry import Unsupported, register
from .common import const, hg


def _unary(name: str, builder) -> None:
    register(name)(lambda x, **params: builder(x))


for _name, _builder in {
    "exp": hg.exp, "exp2": hg.exp2, "log": hg.log, "log1p": hg.log1p, "expm1": hg.expm1,
    "tanh": hg.tanh, "logistic": hg.sigmoid, "sin": hg.sin, "cos": hg.cos, "tan": hg.tan,
    "asin": hg.arcsin, "acos": hg.arccos, "atan": hg.arctan, "sinh": hg.sinh, "cosh": hg.cosh,
    "asinh": hg.arcsinh, "acosh": hg.arccosh, "atanh": hg.arctanh, "sqrt": hg.sqrt,
    "rsqrt": hg.rsqrt, "cbrt": hg.cbrt, "floor": hg.floor, "ceil": hg.ceil,
    "is_finite": hg.isfinite, "abs": hg.abs, "sign": hg.sign, "neg": hg.negative,
    "square": hg.square, "erf": hg.erf, "erfc": hg.erfc, "erf_inv": hg.erfinv,
    "lgamma": hg.gammaln, "digamma": hg.digamma, "bessel_i0e": hg.i0e, "bessel_i1e": hg.i1e,
    "real": hg.real, "imag": hg.imag,
}.items():
    _unary(_name, _builder)


def _unsigned(x):
    """The bits of an integer ``x`` as the unsigned integer of its width."""
    return x if x.dtype.kind == "u" else hg.bitcast(x, np.dtype(f"uint{x.dtype.itemsize * 8}"))


@register("population_count")
def population_count(x):
    # jax counts the bits of the two's complement (NumPy's bitwise_count those of |x|)
    return hg.astype(hg.popcount(_unsigned(x)), x.dtype)


@register("clz")
def clz(x):
    # the leading zeros: the width minus the 1 bits once every bit below the highest
    # set one is set too
    u = _unsigned(x)
    bits = u.dtype.itemsize * 8
    shift = 1
    while shift < bits:
        u = hg.bitwise_or(u, hg.right_shift(u, const(shift, u.dtype)))
        shift *= 2
    count = hg.subtract(const(bits, u.dtype), hg.astype(hg.popcount(u), u.dtype))
    return hg.astype(count, x.dtype)


_FLOAT_BITS = {np.dtype(np.float16): (5, 10), np.dtype(ml_dtypes.bfloat16): (8, 7), np.dtype(np.float32): (8, 23),
               np.dtype(np.float64): (11, 52)}


@register("reduce_precision")
def reduce_precision(x, *, exponent_bits, mantissa_bits):
    """``lax.reduce_precision`` as XLA computes it on the bits: the mantissa rounded to
    ``mantissa_bits`` (to nearest, ties to even), exponents beyond ``exponent_bits``'
    range to infinity (overflow) or a signed zero (underflow), NaNs kept."""
    dtype = x.dtype
    if dtype not in _FLOAT_BITS:
        raise Unsupported(f"reduce_precision of {dtype}")
    src_exp, src_man = _FLOAT_BITS[dtype]
    exp_bits, man_bits = int(exponent_bits), int(mantissa_bits)
    nbits = dtype.itemsize * 8
    u = np.dtype(f"uint{nbits}")
    c = lambda v: const(v, u)  # noqa: E731
    bits = hg.bitcast(x, u)
    if man_bits < src_man:
        drop = src_man - man_bits
        last = 1 << drop
        last_bit = hg.right_shift(hg.bitwise_and(bits, c(last)), c(drop))
        bias = hg.add(last_bit, c((last >> 1) - 1))
        mask = ((1 << nbits) - 1) & ~(last - 1)
        bits = hg.bitwise_and(hg.add(bits, bias), c(mask))
    if exp_bits < src_exp:
        sign_mask = 1 << (nbits - 1)
        exp_mask = ((1 << src_exp) - 1) << src_man
        exp_bias = (1 << (src_exp - 1)) - 1
        reduced_bias = (1 << (exp_bits - 1)) - 1
        exponent = hg.bitwise_and(bits, c(exp_mask))
        overflows = hg.greater(exponent, c((exp_bias + reduced_bias) << src_man))
        underflows = hg.less_equal(exponent, c((exp_bias - reduced_bias) << src_man))
        signed_zero = hg.bitwise_and(bits, c(sign_mask))
        signed_inf = hg.bitwise_or(signed_zero, c(exp_mask))
        bits = hg.where(overflows, signed_inf, hg.where(underflows, signed_zero, bits))
    return hg.where(hg.isnan(x), x, hg.bitcast(bits, dtype))


@register("conj")
def conj(x, *, input_dtype=None):
    # a real operand gives its complex type (the interpreter casts to it)
    return hg.conj(x) if is_complex(x.dtype) else x


@register("not")
def not_(x):
    return hg.logical_not(x) if x.dtype == np.bool_ else hg.bitwise_not(x)


@register("copy", "copy_p")
def copy(x):
    return x


@register("device_put")
def device_put(*xs, **params):
    return list(xs)


@register("stop_gradient")
def stop_gradient_(x):
    return stop_gradient(x)


@register("optimization_barrier")
def optimization_barrier(*xs):
    return list(xs)


@register("round")
def round_(x, *, rounding_method=0):
    if int(rounding_method) == 1:  # TO_NEAREST_EVEN
        return hg.round(x)
    # AWAY_FROM_ZERO: trunc(x), one further from zero where the dropped part is >= 1/2
    t = hg.trunc(x)
    half = hg.greater_equal(hg.abs(hg.subtract(x, t)), const(0.5, x.dtype))
    return hg.where(half, hg.add(t, hg.sign(x)), t)


def _binary(name: str, builder) -> None:
    register(name)(lambda x, y, **params: builder(x, y))


for _name, _builder in {
    "add": hg.add, "add_any": hg.add, "sub": hg.subtract, "mul": hg.multiply, "max": hg.maximum,
    "min": hg.minimum,
    "atan2": hg.arctan2, "nextafter": hg.nextafter, "and": hg.bitwise_and, "or": hg.bitwise_or,
    "xor": hg.bitwise_xor, "shift_left": hg.left_shift, "eq": hg.equal, "ne": hg.not_equal,
    "lt": hg.less, "le": hg.less_equal, "gt": hg.greater, "ge": hg.greater_equal,
    "igamma": hg.gammainc, "igammac": hg.gammaincc,
}.items():
    _binary(_name, _builder)


@register("div")
def div(x, y):
    if not is_integer(x.dtype):
        return hg.divide(x, y)
    # C division rounds toward zero: NumPy's floor, one up where the signs differ and
    # the division is not exact
    q = hg.floor_divide(x, y)
    if x.dtype.kind == "u":
        return q
    zero = const(0, x.dtype)
    inexact = hg.not_equal(hg.remainder(x, y), zero)
    signs_differ = hg.not_equal(hg.less(x, zero), hg.less(y, zero))
    return hg.where(hg.logical_and(inexact, signs_differ), hg.add(q, const(1, x.dtype)), q)


@register("rem")
def rem(x, y):
    return hg.fmod(x, y)  # the sign of the dividend, for floats and integers


@register("pow")
def pow_(x, y):
    # jax computes in the base's dtype (an integer exponent is converted)
    return hg.power(x, y if y.dtype == x.dtype else hg.astype(y, x.dtype))


@register("integer_pow")
def integer_pow(x, *, y):
    # binary exponentiation, the multiplications jax's lowering makes
    if y == 0:
        return hg.ones_like(x)
    n, acc = abs(int(y)), None
    while n > 0:
        if n & 1:
            acc = x if acc is None else hg.multiply(acc, x)
        n >>= 1
        if n > 0:
            x = hg.multiply(x, x)
    return hg.divide(const(1, acc.dtype), acc) if y < 0 else acc


@register("mulhi")
def mulhi(x, y):
    """The high half of the double-width product, as jax computes it: below 64 bits the
    product in the double-width integer, shifted right; 64-bit operands as four
    32x32-bit products in uint64 (and for signed operands the unsigned high word
    corrected by ``-(x < 0) * y - (y < 0) * x``). Exact integer arithmetic."""
    dtype = x.dtype
    if not is_integer(dtype) or y.dtype != dtype:
        raise Unsupported(f"mulhi of {x.dtype} and {y.dtype}")
    bits = dtype.itemsize * 8
    signed = dtype.kind == "i"
    if bits < 64:
        wide = np.dtype(f"{'i' if signed else 'u'}{2 * dtype.itemsize}")
        prod = hg.multiply(hg.astype(x, wide), hg.astype(y, wide))
        return hg.astype(hg.right_shift(prod, const(bits, wide)), dtype)
    u64 = np.dtype(np.uint64)
    c = lambda v: const(v, u64)  # noqa: E731
    xu, yu = _unsigned(x), _unsigned(y)
    lo = lambda v: hg.bitwise_and(v, c(0xFFFFFFFF))  # noqa: E731
    hi = lambda v: hg.right_shift(v, c(32))  # noqa: E731
    x_lo, x_hi, y_lo, y_hi = lo(xu), hi(xu), lo(yu), hi(yu)
    lo_lo, lo_hi = hg.multiply(x_lo, y_lo), hg.multiply(x_lo, y_hi)
    hi_lo, hi_hi = hg.multiply(x_hi, y_lo), hg.multiply(x_hi, y_hi)
    cross = hg.add(hg.add(lo(lo_hi), lo(hi_lo)), hi(lo_lo))
    high = hg.add(hi_hi, hg.add(hi(lo_hi), hg.add(hi(hi_lo), hi(cross))))
    if not signed:
        return high
    high = hg.bitcast(high, dtype)
    x_sign = hg.right_shift(x, const(63, dtype))  # -1 where negative, else 0
    y_sign = hg.right_shift(y, const(63, dtype))
    return hg.add(high, hg.add(hg.multiply(x_sign, y), hg.multiply(y_sign, x)))


@register("shift_right_arithmetic")
def shift_right_arithmetic(x, y):
    if x.dtype.kind != "i":
        raise Unsupported(f"arithmetic shift of {x.dtype}")
    return hg.right_shift(x, y)


@register("shift_right_logical")
def shift_right_logical(x, y):
    if x.dtype.kind == "u":
        return hg.right_shift(x, y)
    unsigned = np.dtype(f"uint{x.dtype.itemsize * 8}")
    return hg.astype(hg.right_shift(hg.astype(x, unsigned), hg.astype(y, unsigned)), x.dtype)


@register("complex")
def complex_(x, y):
    dtype = np.complex64 if x.dtype == np.float32 else np.complex128
    return make_complex(x, y, np.dtype(dtype))


@register("polygamma")
def polygamma(m, x):
    return hg.polygamma(m, x)


@register("regularized_incomplete_beta")
def betainc(a, b, x):
    return hg.betainc(a, b, x)


# comparisons in IEEE total order (-NaN < -inf < ... < -0 < +0 < ... < inf < +NaN), which
# jax's sorts and searches use; integers and bools compare as usual
def _total_order_parts(x, y):
    return hg.isnan(x), hg.isnan(y), hg.signbit(x), hg.signbit(y)


@register("eq_to")
def eq_to(x, y):
    if not is_float(x.dtype):
        return hg.equal(x, y)
    xn, yn, xs, ys = _total_order_parts(x, y)
    same_sign = hg.equal(xs, ys)
    return hg.logical_and(same_sign, hg.logical_or(hg.equal(x, y), hg.logical_and(xn, yn)))


@register("lt_to")
def lt_to(x, y):
    if not is_float(x.dtype):
        return hg.less(x, y)
    xn, yn, xs, ys = _total_order_parts(x, y)
    zeros = hg.logical_and(hg.equal(x, y), hg.logical_and(xs, hg.logical_not(ys)))
    numbers = hg.logical_or(hg.less(x, y), zeros)
    x_nan = hg.where(yn, hg.logical_and(xs, hg.logical_not(ys)), xs)  # -NaN first, +NaN last
    return hg.where(xn, x_nan, hg.where(yn, hg.logical_not(ys), numbers))


@register("le_to")
def le_to(x, y):
    return hg.logical_or(lt_to(x, y), eq_to(x, y))


@register("select_n")
def select_n(which, *cases):
    if len(cases) == 1:
        return cases[0]
    if which.dtype == np.bool_:
        return hg.where(which, cases[1], cases[0])
    out = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        out = hg.where(hg.equal(which, const(i, which.dtype)), cases[i], out)
    return out


@register("clamp")
def clamp(lo, x, hi):
    return hg.minimum(hg.maximum(x, lo), hi)


@register("convert_element_type")
def convert_element_type(x, *, new_dtype, weak_type=False, sharding=None):
    try:
        dtype = np.dtype(new_dtype)
    except TypeError:
        dtype = None
    if dtype is None or not (is_float(dtype) or dtype.kind in "biuc"):
        raise Unsupported(f"conversion to {new_dtype}")
    return hg.astype(x, dtype)
