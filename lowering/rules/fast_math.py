"""CPU lowerings of transcendental functions written in StableHLO ops.

XLA:CPU computes sin, cos, tan, arctan, arcsin and arccos one element at a time
through library calls; a range reduction plus polynomials written as plain
StableHLO arithmetic fuses with its neighbours and vectorises. Each rule here
replaces XLA's op on the CPU (``register(..., platform="cpu")``) only where it is
both faster and at least as accurate as NumPy (bench/elementwise.py,
tests/lowering/test_fast_math.py); float64, complex and integer arguments keep
the default rule.

float32, float16 and bfloat16 compute in float64 and round once, to within 0.5
ULP plus ~2**-13 ULP:

- sin, cos, tan: a Cody-Waite reduction by pi/2 with a 25 + 53 bit pi/2 (exact
  products for quotients below 2**28) and the float64 minimax polynomials of the
  float kernels of FreeBSD's libm (``__sindf``, ``__cosdf``: errors below 2**-34
  on [-pi/4, pi/4]); tan is their quotient. Past ``_HUGE`` the reduction would
  need more bits of pi (Payne-Hanek): a real branch (``stablehlo.case`` on "any
  element huge") then runs XLA's own op on the whole tensor, so huge arguments
  lose no accuracy and cost the common case one reduction over the input.
- arctan, arcsin, arccos: FreeBSD's double ``atan`` (a reduction around four
  breakpoints and a degree-23 odd polynomial), arcsin and arccos through it.

Small tensors keep XLA's op: below ``min_elements()`` elements
(``HLOGRAPH_FAST_MATH_MIN_ELEMENTS``, default 4096) the vector speed-up is
worth less than the bigger program costs XLA to compile and the branch costs to
run, and long chains of small elementwise ops (the 10k-op graphs) would lower
and compile many times slower. For the same reason a module takes the fast path
for its first ``max_ops()`` such ops only (``HLOGRAPH_FAST_MATH_MAX_OPS``,
default 32): each expands to ~30 StableHLO ops, and a graph with hundreds of
them on big tensors (300 sin/cos on float32[64, 64]) took XLA:CPU 15 s to
compile against jax.jit's 0.9 s.

Where the result rounds to the argument (|x| < 2**-12 for the odd functions) the
rules return the argument itself: XLA:CPU reads subnormal operands of arithmetic
as zero, and this keeps them.

Both range tests compare x itself (``-b < x < b``), not |x|: XLA hoists an |x| that
the huge-argument test and the branch share out of the conditional and writes it to
memory, a whole extra pass (sin and tan ~1.4x slower on float32[4M]).

float32 arithmetic would not pay here: a float32 kernel (a Cody-Waite reduction with
exactly multiplied parts of pi/2 below 2**14, float32 polynomials, within 0.95 ULP)
runs at 1.0-1.05x the float64 one, as the pass is bound by memory traffic and the range
test rather than by arithmetic.
"""

from __future__ import annotations

import math
import os

import numpy as np

from ...frontend.ops import elemwise as ew
from ...frontend.types import DTYPES, TensorType
from ..context import LoweringContext
from ..emit import compare, constant, convert, reduce_region, signbit
from ...xla.mlir import hlo, i64_array, ir, tensor_type
from ..registry import register
from .elemwise import lower_complex_special, lower_inverse, lower_nary

__all__ = ["FAST_DTYPES", "ENV_MIN_ELEMENTS", "DEFAULT_MIN_ELEMENTS", "min_elements", "ENV_MAX_OPS",
           "DEFAULT_MAX_OPS", "max_ops"]

_F64 = np.dtype("float64")
_I32 = np.dtype("int32")
_BOOL = np.dtype("bool")

#: dtypes that take the fast path (computed in float64); others use the default rule
FAST_DTYPES = frozenset({"float32", "float16", "bfloat16"})

_FAST = frozenset(np.dtype(n) if n != "bfloat16" else DTYPES["bfloat16"] for n in FAST_DTYPES)

ENV_MIN_ELEMENTS = "HLOGRAPH_FAST_MATH_MIN_ELEMENTS"
DEFAULT_MIN_ELEMENTS = 4096


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    try:
        return int(value) if value else default
    except ValueError:
        return default


def min_elements() -> int:
    """The smallest tensor (in elements) that takes the fast path; read on every use."""
    return _env_int(ENV_MIN_ELEMENTS, DEFAULT_MIN_ELEMENTS)


ENV_MAX_OPS = "HLOGRAPH_FAST_MATH_MAX_OPS"
DEFAULT_MAX_OPS = 32


def max_ops() -> int:
    """How many ops of one module take the fast path at most (in graph order); read on every use."""
    return _env_int(ENV_MAX_OPS, DEFAULT_MAX_OPS)


def _fast(ctx: LoweringContext) -> bool:
    """Whether this node takes the fast path: a fast dtype, at least ``min_elements()``
    elements (a symbolic dim counts as its least size, 1), and fewer than ``max_ops()``
    fast ops before it in the module: each expands to ~30 ops, and XLA:CPU's compile
    time grows faster than linearly with a fused module's size."""
    t = ctx.in_types[0]
    if t.dtype not in _FAST:
        return False
    counters = ctx.module.counters
    if "fast_math_min" not in counters:  # the settings, read once per module
        counters["fast_math_min"], counters["fast_math_max"] = min_elements(), max_ops()
    if math.prod(d if type(d) is int else 1 for d in t.shape) < counters["fast_math_min"]:
        return False
    used = counters.get("fast_math", 0)
    if used >= counters["fast_math_max"]:
        return False
    counters["fast_math"] = used + 1
    return True


#: |x| above this takes XLA's own op (the reduction's products stay exact below 2**28 * pi/2)
_HUGE = 2.0 ** 27

# pi/2 as 25 + 53 bits: k * _PIO2_1 is exact for integers k < 2**28
_PIO2_1 = float.fromhex("0x1.921fb5p+0")
_PIO2_1T = 1.58932547735281966916e-08  # pi/2 - _PIO2_1, rounded
_INV_PIO2 = 2 / math.pi

# sin(x) ~ x + x**3 * (S1 + x**2 * (S2 + ...)) on [-pi/4, pi/4], |error| < 2**-37.5 * |x|
_S = (-0x15555554cbac77 * 2.0 ** -55, 0x111110896efbb2 * 2.0 ** -59,
      -0x1a00f9e2cae774 * 2.0 ** -65, 0x16cd878c3b46a7 * 2.0 ** -71)
# cos(x) ~ 1 + x**2 * (C0 + x**2 * (C1 + ...)) on [-pi/4, pi/4], |error| < 2**-34.1
_C = (-0x1ffffffd0c5e81 * 2.0 ** -54, 0x155553e1053a42 * 2.0 ** -57,
      -0x16c087e80f1e27 * 2.0 ** -62, 0x199342e0ee5069 * 2.0 ** -68)


class _Emitter:
    """Float64 arithmetic on tensors of one shape, with constants made on demand."""

    def __init__(self, shape):
        self.shape = tuple(shape)
        self.t = TensorType(_F64, self.shape)

    def c(self, value: float, dtype=_F64) -> ir.Value:
        return constant(value, dtype, self.shape)

    def poly(self, z: ir.Value, coeffs) -> ir.Value:
        """coeffs[0] + z * (coeffs[1] + z * (...)) by Horner's rule."""
        acc = self.c(coeffs[-1])
        for a in reversed(coeffs[:-1]):
            acc = hlo.add(self.c(a), hlo.multiply(z, acc))
        return acc


_F32 = np.dtype("float32")


def _reciprocal(e: _Emitter, d: ir.Value) -> ir.Value:
    """1 / ``d`` (float64, finite, nonzero, |d| within float32's normal range) to ~2**-46:
    float32's division (a float64 one costs XLA:CPU ten times more) and a Newton step."""
    t32 = TensorType(_F32, e.shape)
    q0 = convert(hlo.divide(e.c(1.0, _F32), convert(d, e.t, _F32)), t32, _F64)
    return hlo.add(q0, hlo.multiply(q0, hlo.subtract(e.c(1.0), hlo.multiply(d, q0))))


def _rsqrt(e: _Emitter, v: ir.Value) -> ir.Value:
    """1 / sqrt(``v``) (float64, 0 < v within float32's normal range, or NaN) to ~2**-44:
    float32's rsqrt and a Newton step."""
    t32 = TensorType(_F32, e.shape)
    r0 = convert(hlo.rsqrt(convert(v, e.t, _F32)), t32, _F64)
    half_v = hlo.multiply(e.c(0.5), v)
    return hlo.multiply(r0, hlo.subtract(e.c(1.5), hlo.multiply(half_v, hlo.multiply(r0, r0))))


def _sin_kernel(e: _Emitter, y: ir.Value, z: ir.Value) -> ir.Value:
    """sin(y) for |y| <= pi/4 (``z = y * y``)."""
    s = hlo.multiply(z, y)
    w = hlo.multiply(z, z)
    head = hlo.add(y, hlo.multiply(s, hlo.add(e.c(_S[0]), hlo.multiply(z, e.c(_S[1])))))
    tail = hlo.multiply(hlo.multiply(s, w), hlo.add(e.c(_S[2]), hlo.multiply(z, e.c(_S[3]))))
    return hlo.add(head, tail)


def _cos_kernel(e: _Emitter, z: ir.Value) -> ir.Value:
    """cos(y) for |y| <= pi/4 (``z = y * y``)."""
    w = hlo.multiply(z, z)
    head = hlo.add(hlo.add(e.c(1.0), hlo.multiply(z, e.c(_C[0]))), hlo.multiply(w, e.c(_C[1])))
    tail = hlo.multiply(hlo.multiply(w, z), hlo.add(e.c(_C[2]), hlo.multiply(z, e.c(_C[3]))))
    return hlo.add(head, tail)


def _reduce_pio2(e: _Emitter, ax: ir.Value) -> tuple[ir.Value, ir.Value]:
    """``ax`` (float64, 0 <= ax <= _HUGE) as ``k * pi/2 + y``, |y| <= ~pi/4: (y, k mod 4 as int32)."""
    # floor(q + 0.5), not round_nearest_even: XLA:CPU calls a library function for that one
    k = hlo.floor(hlo.add(hlo.multiply(ax, e.c(_INV_PIO2)), e.c(0.5)))
    y = hlo.subtract(hlo.subtract(ax, hlo.multiply(k, e.c(_PIO2_1))), hlo.multiply(k, e.c(_PIO2_1T)))
    n = hlo.and_(hlo.convert(tensor_type(TensorType(_I32, e.shape)), k), e.c(3, _I32))
    return y, n


def _bit(e: _Emitter, n: ir.Value, mask: int) -> ir.Value:
    """``n & mask != 0`` for int32 ``n``."""
    return compare(hlo.and_(n, e.c(mask, _I32)), e.c(0, _I32), "NE", _I32)


def _trig_f64(e: _Emitter, xd: ir.Value, which: str) -> ir.Value:
    """sin, cos or tan (``which``) of float64 ``xd`` (|xd| <= _HUGE, or inf/NaN: NaN)
    through the kernels."""
    ax = hlo.abs(xd)
    y, n = _reduce_pio2(e, ax)
    z = hlo.multiply(y, y)
    s, c = _sin_kernel(e, y, z), _cos_kernel(e, z)
    if which == "tan":
        # tan(k pi/2 + y) = tan(y) for even k, -1/tan(y) for odd k; tan(-x) = -tan(x)
        odd = _bit(e, n, 1)
        r = hlo.multiply(hlo.select(odd, c, s), _reciprocal(e, hlo.select(odd, s, c)))
        negate = hlo.xor(odd, signbit(xd, e.t))
    elif which == "sin":
        # sin(k pi/2 + y) by quadrant: sin, cos, -sin, -cos; sin(-x) = -sin(x)
        r = hlo.select(_bit(e, n, 1), c, s)
        negate = hlo.xor(_bit(e, n, 2), signbit(xd, e.t))
    else:
        # cos(k pi/2 + y) by quadrant: cos, -sin, -cos, sin; cos(-x) = cos(x)
        r = hlo.select(_bit(e, n, 1), s, c)
        negate = _bit(e, hlo.add(n, e.c(1, _I32)), 2)
    return hlo.select(negate, hlo.negate(r), r)


def _any_huge(x: ir.Value, t: TensorType) -> ir.Value:
    """Scalar i1: whether some element of float ``x`` has a magnitude above _HUGE (inf too)."""
    # x itself against +-_HUGE, not |x|: XLA hoists an |x| that both this test and the
    # branch compute out of the conditional and writes it to memory, one more pass
    big = hlo.or_(compare(x, constant(_HUGE, t.dtype, t.shape), "GT", t.dtype),
                  compare(x, constant(-_HUGE, t.dtype, t.shape), "LT", t.dtype))
    op = hlo.ReduceOp([tensor_type(TensorType(_BOOL, ()))], [big], [constant(False, _BOOL)],
                      i64_array(range(len(t.shape))))
    block = reduce_region(op, _BOOL)
    with ir.InsertionPoint(block):
        hlo.return_([hlo.or_(*block.arguments)])
    return op.result


def _tiny_is_identity(x: ir.Value, t: TensorType, r: ir.Value) -> ir.Value:
    """``x`` where |x| < 2**-12, else ``r``: sin, tan, arctan and arcsin round to x there
    (|f(x) - x| < |x|**3 / 3 is below half an ULP of a float32, and of narrower types).
    Keeps subnormal arguments, which XLA:CPU reads as zero (DAZ) in arithmetic."""
    # -2**-12 < x < 2**-12 rather than |x| < 2**-12, as in _any_huge
    small = hlo.and_(compare(x, constant(2.0 ** -12, t.dtype, t.shape), "LT", t.dtype),
                     compare(x, constant(-2.0 ** -12, t.dtype, t.shape), "GT", t.dtype))
    return hlo.select(small, x, r)


def _lower_trig(which: str, xla_op, ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    if not _fast(ctx):
        return lower_complex_special(ctx, x) or lower_nary(xla_op, ctx, x)
    e = _Emitter(t.shape)

    def fast() -> ir.Value:
        r = convert(_trig_f64(e, convert(x, t, _F64), which), e.t, t.dtype)
        return r if which == "cos" else _tiny_is_identity(x, t, r)

    if t.dtype.name == "float16":  # |x| <= 65504: no huge arguments
        return [fast()]
    # stablehlo.case on an int32 index, not stablehlo.if: XLA turns a two-way conditional
    # on a predicate with cheap branches into a select, which runs both
    index = hlo.convert(tensor_type(TensorType(_I32, ())), _any_huge(x, t))
    branch = hlo.CaseOp(ctx.ir_out_types(), index, 2)
    with ir.InsertionPoint(branch.branches[0].blocks.append()):
        hlo.return_([fast()])
    with ir.InsertionPoint(branch.branches[1].blocks.append()):
        hlo.return_([xla_op(x)])
    return list(branch.results)


def lower_sin_cpu(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    """sin on the CPU: the float64 kernel for float32/float16/bfloat16, XLA's for huge arguments."""
    return _lower_trig("sin", hlo.sine, ctx, x)


def lower_cos_cpu(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    """cos on the CPU: the float64 kernel for float32/float16/bfloat16, XLA's for huge arguments."""
    return _lower_trig("cos", hlo.cosine, ctx, x)


def lower_tan_cpu(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    """tan on the CPU: the float64 kernels for float32/float16/bfloat16, XLA's for huge arguments."""
    return _lower_trig("tan", hlo.tan, ctx, x)


# --- arctan, arcsin, arccos ----------------------------------------------------------
# FreeBSD's atan: |x| reduced to |t| <= 7/16 around one of four breakpoints, atan(t) by
# an odd polynomial of degree 23 (error below 2**-56), atan(c) as hi + lo
_ATAN_HI = (4.63647609000806093515e-01, 7.85398163397448278999e-01,
            9.82793723247329054082e-01, 1.57079632679489655800e+00)
_ATAN_LO = (2.26987774529616870924e-17, 3.06161699786838301793e-17,
            1.39033110312309984516e-17, 6.12323399573676603587e-17)
_AT = (3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
       -1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02,
       6.66107313738753120669e-02, -5.83357013379057348645e-02, 4.97687799461593236017e-02,
       -3.65315727442169155270e-02, 1.62858201153657823623e-02)


def _atan_f64(e: _Emitter, xd: ir.Value) -> ir.Value:
    """atan of float64 ``xd`` (any value: atan(+-inf) = +-pi/2, NaN stays NaN)."""
    ax = hlo.abs(xd)
    one = e.c(1.0)
    # breakpoints 7/16, 11/16, 19/16, 39/16: t = (ax - c) / (1 + c ax) for c = 1/2, 1, 3/2,
    # t = -1/ax past 39/16 (and for NaN); no reduction below 7/16
    below = [compare(ax, e.c(b), "LT", _F64) for b in (0.4375, 0.6875, 1.1875, 2.4375)]

    def pick(values):  # values[i] where below[i] first holds, values[4] where none does
        out = values[4]
        for cond, v in reversed(list(zip(below, values))):
            out = hlo.select(cond, v, out)
        return out

    num = pick([ax, hlo.subtract(hlo.multiply(e.c(2.0), ax), one), hlo.subtract(ax, one),
                hlo.subtract(ax, e.c(1.5)), e.c(-1.0)])
    den = pick([one, hlo.add(e.c(2.0), ax), hlo.add(ax, one),
                hlo.add(one, hlo.multiply(e.c(1.5), ax)), ax])
    # den >= 1; past 1e30 (inf: from arcsin at +-1) atan is pi/2 to float64 precision anyway
    huge = e.c(1e30)
    t = hlo.multiply(num, _reciprocal(e, hlo.select(compare(den, huge, "GT", _F64), huge, den)))
    z = hlo.multiply(t, t)
    w = hlo.multiply(z, z)
    s1 = hlo.multiply(z, e.poly(w, _AT[0::2]))
    s2 = hlo.multiply(w, e.poly(w, _AT[1::2]))
    hi = pick([e.c(0.0), *(e.c(v) for v in _ATAN_HI)])
    lo = pick([e.c(0.0), *(e.c(v) for v in _ATAN_LO)])
    # hi - ((t (s1 + s2) - lo) - t): t - t (s1 + s2) below 7/16
    r = hlo.subtract(hi, hlo.subtract(hlo.subtract(hlo.multiply(t, hlo.add(s1, s2)), lo), t))
    return hlo.select(signbit(xd, e.t), hlo.negate(r), r)


def _inverse_trig_f64(e: _Emitter, xd: ir.Value, which: str) -> ir.Value:
    if which == "arctan":
        return _atan_f64(e, xd)
    one = e.c(1.0)
    # arcsin(x) = atan(x / sqrt(1 - x**2)): 1 - x and 1 + x are exact for the narrow types,
    # their product (at least 2**-24 below 1) has at most 48 bits; +-1 -> +-inf -> +-pi/2,
    # |x| > 1 -> NaN
    v = hlo.multiply(hlo.subtract(one, xd), hlo.add(one, xd))
    inf = e.c(math.inf)
    r = hlo.select(compare(v, e.c(0.0), "EQ", _F64), inf, _rsqrt(e, v))
    asin = _atan_f64(e, hlo.multiply(xd, r))
    if which == "arcsin":
        return asin
    # arccos(x) = pi/2 - arcsin(x): the cancellation near x = 1 costs float64 ~12 bits
    return hlo.subtract(e.c(math.pi / 2), asin)


def _lower_inverse_trig(which: str, ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    if not _fast(ctx):
        return lower_inverse(ctx, x)  # the default rule (complex special values included)
    e = _Emitter(t.shape)
    r = convert(_inverse_trig_f64(e, convert(x, t, _F64), which), e.t, t.dtype)
    return [r if which == "arccos" else _tiny_is_identity(x, t, r)]


def lower_arctan_cpu(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    """arctan on the CPU: the float64 kernel for float32/float16/bfloat16."""
    return _lower_inverse_trig("arctan", ctx, x)


def lower_arcsin_cpu(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    """arcsin on the CPU: float64 atan(x / sqrt(1 - x**2)) for float32/float16/bfloat16."""
    return _lower_inverse_trig("arcsin", ctx, x)


def lower_arccos_cpu(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    """arccos on the CPU: float64 pi/2 - arcsin(x) for float32/float16/bfloat16."""
    return _lower_inverse_trig("arccos", ctx, x)


register(ew.Arctan, platform="cpu")(lower_arctan_cpu)
register(ew.Arcsin, platform="cpu")(lower_arcsin_cpu)
register(ew.Arccos, platform="cpu")(lower_arccos_cpu)
register(ew.Sin, platform="cpu")(lower_sin_cpu)
register(ew.Cos, platform="cpu")(lower_cos_cpu)
register(ew.Tan, platform="cpu")(lower_tan_cpu)
