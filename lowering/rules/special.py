"""Lowering of special functions: chlo where it has the op, otherwise a short
decomposition into StableHLO (each one says why and where it comes from)."""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from ...frontend.ops import special as sp
from ...frontend.types import TensorType
from ..bridge import lower_with_jax
from ..context import LoweringContext
from ..emit import compare, constant, convert, is_nan, signbit
from ..mlir import chlo, hlo, ir, lax
from ..registry import register
from .elemwise import lower_nary

_CHLO = {
    sp.Erfc: chlo.erfc,
    sp.Erfinv: chlo.erf_inv,
    sp.Gammaln: chlo.lgamma,
    sp.Polygamma: chlo.polygamma,
    sp.I1e: chlo.bessel_i1e,
}
for _op, _fn in _CHLO.items():
    register(_op)(partial(lower_nary, _fn))


def _const(value: float, t: TensorType) -> ir.Value:
    return constant(value, t.dtype, t.shape)


@register(sp.Digamma)
def lower_digamma(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    # chlo.digamma gives NaN at the pole at 0; scipy gives -inf at +0 and +inf at -0
    t = ctx.out_type
    pole = hlo.select(signbit(x, t), _const(np.inf, t), _const(-np.inf, t))
    return [hlo.select(compare(x, _const(0, t), "EQ", t.dtype), pole, chlo.digamma(x))]


@register(sp.Softplus)
def lower_softplus(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    # log1p(exp(-|x|)) + max(x, 0): exp never overflows; NaN propagates through max
    t = ctx.out_type
    tail = hlo.log_plus_one(hlo.exponential(hlo.negate(hlo.abs(x))))
    return [hlo.add(tail, hlo.maximum(x, _const(0, t)))]


@register(sp.Log1mexp)
def lower_log1mexp(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    # log1p(-exp(x)) below log(1/2), log(-expm1(x)) above: each is accurate on its side
    t = ctx.out_type
    low = hlo.log_plus_one(hlo.negate(hlo.exponential(x)))
    high = hlo.log(hlo.negate(hlo.exponential_minus_one(x)))
    return [hlo.select(compare(x, _const(-math.log(2), t), "LT", t.dtype), low, high)]


@register(sp.Xlogy)
@register(sp.Xlog1py)
def lower_xlogy(ctx: LoweringContext, x: ir.Value, y: ir.Value) -> list[ir.Value]:
    x, y = ctx.broadcast_operands((x, y))
    t = ctx.out_type
    log = hlo.log if isinstance(ctx.op, sp.Xlogy) else hlo.log_plus_one
    zero = _const(0, t)
    x_zero = hlo.and_(compare(x, zero, "EQ", t.dtype), hlo.not_(is_nan(y, t.dtype)))
    return [hlo.select(x_zero, zero, hlo.multiply(x, log(y)))]


# Cephes' Chebyshev coefficients for exp(-|x|) I0(x) on [0, 8] and 1/sqrt(x) (8, inf]
# (chlo has bessel_i1e but no i0e; jax evaluates the same series)
_I0E_A = [
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1,
]
_I0E_B = [
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1,
]
#: float32 needs only the tail of each series (Cephes' single-precision i0ef)
_I0E_F32 = (_I0E_A[-18:], _I0E_B[-7:])


def _chebyshev(x: ir.Value, coeffs: list[float], t: TensorType) -> ir.Value:
    """Clenshaw's recurrence for sum c_k T_k(x/2), in Cephes' ``chbevl`` form."""
    b0, b1, b2 = _const(0, t), _const(0, t), _const(0, t)
    for c in coeffs:
        b2, b1 = b1, b0
        b0 = hlo.add(hlo.subtract(hlo.multiply(x, b1), b2), _const(c, t))
    return hlo.multiply(_const(0.5, t), hlo.subtract(b0, b2))


@register(sp.I0e)
def lower_i0e(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    out = ctx.out_type
    # float16/bfloat16 compute in float32: the coefficients need its precision
    t = out if out.dtype in (np.float32, np.float64) else out.with_dtype("float32")
    x = convert(x, out, t.dtype)
    a, b = _I0E_F32 if t.dtype == np.float32 else (_I0E_A, _I0E_B)
    ax = hlo.abs(x)
    two = _const(2, t)
    small = _chebyshev(hlo.subtract(hlo.multiply(_const(0.5, t), ax), two), a, t)
    large = hlo.divide(_chebyshev(hlo.subtract(hlo.divide(_const(32, t), ax), two), b, t), hlo.sqrt(ax))
    res = hlo.select(compare(ax, _const(8, t), "LE", t.dtype), small, large)
    return [convert(res, t, out.dtype)]


def _upcast(ctx: LoweringContext, x: ir.Value) -> tuple[ir.Value, TensorType]:
    """float16/bfloat16 compute in float32: the coefficients need its precision."""
    out = ctx.out_type
    t = out if out.dtype in (np.float32, np.float64) else out.with_dtype("float32")
    return convert(x, out, t.dtype), t


def _ndtr(x: ir.Value, t: TensorType) -> ir.Value:
    # erf near 0, erfc in the tails, where 1 + erf would cancel (as jax and Cephes do)
    half_sqrt2 = _const(0.5 * math.sqrt(2), t)
    w = hlo.multiply(x, half_sqrt2)
    z = hlo.abs(w)
    erfc_z = chlo.erfc(z)
    tails = hlo.select(compare(w, _const(0, t), "GT", t.dtype), hlo.subtract(_const(2, t), erfc_z), erfc_z)
    y = hlo.select(compare(z, half_sqrt2, "LT", t.dtype), hlo.add(_const(1, t), chlo.erf(w)), tails)
    return hlo.multiply(_const(0.5, t), y)


@register(sp.Ndtr)
def lower_ndtr(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    x, t = _upcast(ctx, x)
    return [convert(_ndtr(x, t), t, ctx.out_type.dtype)]


@register(sp.LogNdtr)
def lower_log_ndtr(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    # x > 0: log1p(-Phi(-x)); middle: log(Phi(x)); far left tail, where Phi underflows:
    # log of the asymptotic series phi(x)/-x * sum (-1)^n (2n-1)!!/x^2n (8 terms)
    x, t = _upcast(ctx, x)
    lower = -20.0 if t.dtype == np.float64 else -10.0
    zero, lo = _const(0, t), _const(lower, t)
    positive = compare(x, zero, "GT", t.dtype)
    arg = hlo.select(positive, hlo.negate(x), hlo.maximum(x, lo))
    cdf = _ndtr(arg, t)
    middle = hlo.select(positive, hlo.log_plus_one(hlo.negate(cdf)), hlo.log(cdf))
    xt = hlo.minimum(x, lo)
    x2 = hlo.multiply(xt, xt)
    series, term = _const(1, t), _const(1, t)
    for n in range(1, 9):
        term = hlo.divide(hlo.multiply(term, _const(-(2 * n - 1), t)), x2)
        series = hlo.add(series, term)
    log_scale = hlo.subtract(hlo.multiply(_const(-0.5, t), x2), hlo.log(hlo.negate(xt)))
    tail = hlo.add(hlo.subtract(log_scale, _const(0.5 * math.log(2 * math.pi), t)), hlo.log(series))
    res = hlo.select(compare(x, lo, "GT", t.dtype), middle, tail)
    return [convert(res, t, ctx.out_type.dtype)]


# Cephes' ndtri: rational approximations in w = p - 1/2 for exp(-2) < p < 1 - exp(-2),
# and in 1/z, z = sqrt(-2 log p), in the tails (two sets, split at z = 8). Highest degree first.
_NDTRI_P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0]
_NDTRI_Q0 = [1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0]
_NDTRI_P1 = [4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4]
_NDTRI_Q1 = [1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4]
_NDTRI_P2 = [3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9]
_NDTRI_Q2 = [1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9]


def _polyval(coeffs: list[float], x: ir.Value, t: TensorType) -> ir.Value:
    acc = _const(coeffs[0], t)
    for c in coeffs[1:]:
        acc = hlo.add(hlo.multiply(acc, x), _const(c, t))
    return acc


def _ratio(p: list[float], q: list[float], x: ir.Value, t: TensorType) -> ir.Value:
    return hlo.divide(_polyval(p, x, t), _polyval(q, x, t))


@register(sp.Ndtri)
def lower_ndtri(ctx: LoweringContext, p: ir.Value) -> list[ir.Value]:
    p, t = _upcast(ctx, p)
    one, half = _const(1, t), _const(0.5, t)
    upper = compare(p, _const(-math.expm1(-2.0), t), "GT", t.dtype)
    q = hlo.select(upper, hlo.subtract(one, p), p)  # the tail probability, <= 1/2 mostly
    q = hlo.select(compare(q, _const(0, t), "EQ", t.dtype), half, q)  # keeps unused lanes finite
    w = hlo.subtract(q, half)
    ww = hlo.multiply(w, w)
    center = hlo.add(w, hlo.multiply(hlo.multiply(w, ww), _ratio(_NDTRI_P0, _NDTRI_Q0, ww, t)))
    center = hlo.multiply(center, _const(-math.sqrt(2 * math.pi), t))
    z = hlo.sqrt(hlo.multiply(_const(-2, t), hlo.log(q)))
    inv_z = hlo.divide(one, z)
    first = hlo.subtract(z, hlo.divide(hlo.log(z), z))
    far = hlo.subtract(first, hlo.multiply(_ratio(_NDTRI_P2, _NDTRI_Q2, inv_z, t), inv_z))
    near = hlo.subtract(first, hlo.multiply(_ratio(_NDTRI_P1, _NDTRI_Q1, inv_z, t), inv_z))
    tail = hlo.select(compare(z, _const(8, t), "GE", t.dtype), far, near)
    x = hlo.select(compare(q, _const(math.exp(-2.0), t), "GT", t.dtype), center, tail)
    x = hlo.select(compare(p, _const(1 - math.exp(-2.0), t), "GT", t.dtype), x, hlo.negate(x))
    x = hlo.select(compare(p, _const(0, t), "EQ", t.dtype), _const(-np.inf, t), x)
    x = hlo.select(compare(p, one, "EQ", t.dtype), _const(np.inf, t), x)
    # outside [0, 1] (and NaN): NaN
    bad = hlo.or_(compare(p, _const(0, t), "LT", t.dtype), compare(p, one, "GT", t.dtype))
    bad = hlo.or_(bad, is_nan(p, t.dtype))
    x = hlo.select(bad, _const(np.nan, t), x)
    return [convert(x, t, ctx.out_type.dtype)]


@register(sp.Erfcx)
def lower_erfcx(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    # exp(x^2) erfc(x) directly up to a switch point (its relative error grows like x^2 eps),
    # then the asymptotic series 1/(x sqrt(pi)) sum (-1)^n (2n-1)!!/(2x^2)^n (8 terms), where
    # erfc would underflow; exp(x^2) overflows to inf on the far left, as scipy's does.
    x, t = _upcast(ctx, x)
    switch = _const(10.0 if t.dtype == np.float64 else 4.0, t)
    direct = hlo.multiply(hlo.exponential(hlo.multiply(x, x)), chlo.erfc(x))
    xa = hlo.maximum(x, switch)
    two_x2 = hlo.multiply(_const(2, t), hlo.multiply(xa, xa))
    series, term = _const(1, t), _const(1, t)
    for n in range(1, 9):
        term = hlo.divide(hlo.multiply(term, _const(-(2 * n - 1), t)), two_x2)
        series = hlo.add(series, term)
    asym = hlo.divide(series, hlo.multiply(xa, _const(math.sqrt(math.pi), t)))
    res = hlo.select(compare(x, switch, "LT", t.dtype), direct, asym)
    return [convert(res, t, ctx.out_type.dtype)]


# --- incomplete gamma and beta: jax's series / continued fractions, through the bridge ------
#: Op class -> the jax.lax function (what jax.scipy.special calls after promoting)
JAX_SPECIAL = {
    sp.Gammainc: lax.igamma,
    sp.Gammaincc: lax.igammac,
    sp.Betainc: lax.betainc,
}


def lower_special_jax(ctx: LoweringContext, *operands: ir.Value) -> list[ir.Value]:
    """jax's lowering of the op's JAX_SPECIAL entry on the broadcast operands; float16 and
    bfloat16 compute in float32."""
    out = ctx.out_type
    t = out if out.dtype in (np.float32, np.float64) else out.with_dtype("float32")
    xs = [convert(x, out, t.dtype) for x in ctx.broadcast_operands(operands)]
    (res,) = lower_with_jax(ctx, JAX_SPECIAL[type(ctx.op)], *xs, in_types=[t] * len(xs))
    if not isinstance(ctx.op, sp.Betainc):
        res = _igamma_limits(ctx.op, res, *xs, t)
    return [convert(res, t, out.dtype)]


def _igamma_limits(op, res: ir.Value, a: ir.Value, x: ir.Value, t: TensorType) -> ir.Value:
    """The limits jax leaves NaN, as Cephes (scipy) defines them: a == 0 with x > 0 is
    the point mass at 0 (P = 1), a == inf with finite x >= 0 has all mass beyond x (P = 0),
    a == inf with x == inf is NaN."""
    lower = isinstance(op, sp.Gammainc)
    zero, inf = _const(0, t), _const(np.inf, t)
    point = hlo.and_(compare(a, zero, "EQ", t.dtype), compare(x, zero, "GT", t.dtype))
    res = hlo.select(point, _const(1.0 if lower else 0.0, t), res)
    a_inf = compare(a, inf, "EQ", t.dtype)
    finite = hlo.and_(compare(x, zero, "GE", t.dtype), compare(x, inf, "LT", t.dtype))
    res = hlo.select(hlo.and_(a_inf, finite), _const(0.0 if lower else 1.0, t), res)
    return hlo.select(hlo.and_(a_inf, compare(x, inf, "EQ", t.dtype)), _const(np.nan, t), res)


lower_special_jax.jax_bridge = True  # listed as "jax bridge" in the coverage table
for _cls in JAX_SPECIAL:
    register(_cls)(lower_special_jax)
