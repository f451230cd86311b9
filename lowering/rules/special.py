"""Lowering of special functions: chlo where it has the op, otherwise a short
decomposition into StableHLO (each one says why and where it comes from)."""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from ...frontend.ops import special as sp
from ...frontend.types import DTYPES, TensorType
from ..bridge import lower_with_jax
from ..context import LoweringContext
from ..emit import compare, constant, convert, is_nan, signbit
from ...xla.jax_lowering import lax
from ...xla.mlir import chlo, hlo, ir, tensor_type
from ..registry import register
from .elemwise import lower_nary

_CHLO = {
    sp.Erfc: chlo.erfc,
    sp.Erfinv: chlo.erf_inv,
    sp.Polygamma: chlo.polygamma,
    sp.I1e: chlo.bessel_i1e,
}
for _op, _fn in _CHLO.items():
    register(_op)(partial(lower_nary, _fn))


def _const(value: float, t: TensorType) -> ir.Value:
    return constant(value, t.dtype, t.shape)


@register(sp.Gammaln)
def lower_gammaln(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    # chlo.lgamma's single-precision series is off by a few ULP (4.8e-7 at x = 1, where
    # scipy gives exactly 0): narrower floats compute in float64 and round once, as
    # scipy's loops for them do
    if ctx.out_type.dtype.itemsize >= 8:
        return [chlo.lgamma(x)]
    (w,) = _float64_operands(ctx, (x,))
    return [convert(chlo.lgamma(w.v), w.t, ctx.out_type.dtype)]


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
    return [convert(_ndtri(p, t), t, ctx.out_type.dtype)]


def _ndtri(p: ir.Value, t: TensorType) -> ir.Value:
    """The inverse of the normal CDF on float32/float64 values (NaN outside [0, 1])."""
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
    return hlo.select(bad, _const(np.nan, t), x)


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


# --- float expressions for the iterative functions below --------------------------------
def _binop(fn, reflected: bool = False):
    def method(self: "_V", other) -> "_V":
        a, b = self.v, self._o(other)
        return _V(fn(b, a) if reflected else fn(a, b), self.t)
    return method


def _cmp(direction: str):
    def method(self: "_V", other) -> ir.Value:
        return compare(self.v, self._o(other), direction, self.t.dtype)
    return method


class _V:
    """A float value of one TensorType with arithmetic operators; Python numbers
    become constants and comparisons give the i1 tensor of ``stablehlo.compare``."""

    __slots__ = ("v", "t")

    def __init__(self, v: ir.Value, t: TensorType):
        self.v, self.t = v, t

    def _o(self, other) -> ir.Value:
        return other.v if isinstance(other, _V) else _const(other, self.t)

    __add__, __radd__ = _binop(hlo.add), _binop(hlo.add, reflected=True)
    __sub__, __rsub__ = _binop(hlo.subtract), _binop(hlo.subtract, reflected=True)
    __mul__, __rmul__ = _binop(hlo.multiply), _binop(hlo.multiply, reflected=True)
    __truediv__, __rtruediv__ = _binop(hlo.divide), _binop(hlo.divide, reflected=True)
    __lt__, __le__, __gt__, __ge__ = _cmp("LT"), _cmp("LE"), _cmp("GT"), _cmp("GE")
    eq = _cmp("EQ")

    def __neg__(self) -> "_V":
        return _V(hlo.negate(self.v), self.t)


def _where(cond: ir.Value, x, y) -> _V:
    """select(cond, x, y); one of x, y is a _V, the other may be a Python number."""
    v = x if isinstance(x, _V) else y
    return _V(hlo.select(cond, v._o(x), v._o(y)), v.t)


def _map(fn, *xs: _V) -> _V:
    return _V(fn(*(x.v for x in xs)), xs[0].t)


_log, _exp = partial(_map, hlo.log), partial(_map, hlo.exponential)
_log1p, _sqrt = partial(_map, hlo.log_plus_one), partial(_map, hlo.sqrt)
_abs, _floor, _lgamma = partial(_map, hlo.abs), partial(_map, hlo.floor), partial(_map, chlo.lgamma)


def _max(x: _V, y) -> _V:
    return _V(hlo.maximum(x.v, x._o(y)), x.t)


def _min(x: _V, y) -> _V:
    return _V(hlo.minimum(x.v, x._o(y)), x.t)


def _isnan(x: _V) -> ir.Value:
    return is_nan(x.v, x.t.dtype)


def _any(*conds: ir.Value) -> ir.Value:
    out = conds[0]
    for c in conds[1:]:
        out = hlo.or_(out, c)
    return out


def _all(*conds: ir.Value) -> ir.Value:
    out = conds[0]
    for c in conds[1:]:
        out = hlo.and_(out, c)
    return out


def _float64_operands(ctx: LoweringContext, operands) -> list[_V]:
    """The broadcast operands in float64, where every float type computes (rounding the
    result once): jax's float32 igammac and betainc lose digits to cancellation (Q = 1 - P
    for x < 1) that the inverses would amplify, and the Bessel functions' coefficients
    and tolerances are float64's."""
    out = ctx.out_type
    t = out.with_dtype("float64")
    return [_V(convert(x, out, t.dtype), t) for x in ctx.broadcast_operands(operands)]


# --- inverses of the incomplete gamma and beta functions ------------------------------
# jax has none: an initial guess refined by a fixed number of Halley steps on the
# function itself, whose evaluations call jax's igamma/igammac/betainc (as above).
def _log_sigmoid(x: _V) -> _V:
    """log(1 / (1 + exp(-x))) without overflow."""
    return -(_log1p(_exp(-_abs(x))) + _max(-x, 0))


def _jax_fn(ctx: LoweringContext, fn, *xs: _V) -> _V:
    """``fn`` (a jax.lax function of same-typed arrays) through the bridge."""
    t = xs[0].t
    (res,) = lower_with_jax(ctx, fn, *(x.v for x in xs), in_types=[t] * len(xs), key=fn)
    return _V(res, t)


def _log_range(t: TensorType) -> tuple[float, float]:
    """log of the smallest positive and of the largest finite value of t's dtype."""
    info = np.finfo(t.dtype)
    return math.log(float(info.smallest_subnormal)), math.log(float(info.max))


_EULER = 0.5772156649015329


def _didonato_25(a: _V, y: _V) -> _V:
    """DiDonato & Morris (1986) eq. 25: the inverse of Q(a, x) = b for small b, y = -log b."""
    c1 = (a - 1) * _log(y)
    c1_2 = c1 * c1
    c1_3, c1_4 = c1_2 * c1, c1_2 * c1_2
    a2 = a * a
    a3 = a2 * a
    c2 = (a - 1) * (1 + c1)
    c3 = (a - 1) * (-0.5 * c1_2 + (a - 2) * c1 + (3 * a - 5) / 2)
    c4 = (a - 1) * (c1_3 / 3 - (3 * a - 5) * c1_2 / 2 + (a2 - 6 * a + 7) * c1 + (11 * a2 - 46 * a + 47) / 6)
    c5 = (a - 1) * (-0.25 * c1_4 + (11 * a - 17) * c1_3 / 6 + (-3 * a2 + 13 * a - 13) * c1_2
                    + (2 * a3 - 25 * a2 + 72 * a - 61) * c1 / 2 + (25 * a3 - 195 * a2 + 477 * a - 379) / 12)
    return y + c1 + (c2 + (c3 + (c4 + c5 / y) / y) / y) / y


def _gamma_inverse_guess(a: _V, p: _V, q: _V, lp: _V, lq: _V, lg: _V) -> _V:
    """log of DiDonato & Morris' first approximation to x with P(a, x) = p, Q(a, x) = q
    (Boost's ``find_inverse_gamma``, without its series refinement of eq. 36)."""
    t = a.t
    lb = lq + lg  # b = q Gamma(a)
    b = _exp(lb)
    # a < 1: eqs. 21-25, chosen by a and b
    lu = _where(_all(b * q > 1e-8, q > 1e-5), (lp + lg + _log(a)) / a, -q / a - _EULER)
    x21 = lu - _log1p(-_exp(lu) / (a + 1))
    e22 = _exp(-b - _EULER)
    x22 = -b - _EULER + e22 * _exp(e22)
    y = -lb
    u = y - (1 - a) * _log(y)
    base = y - (1 - a) * _log(u)
    x23 = _log(base - _log1p((1 - a) / (1 + u)))
    x24 = _log(base - _log((u * u + 2 * (3 - a) * u + (2 - a) * (3 - a)) / (u * u + (5 - a) * u + 2)))
    x25 = _log(_didonato_25(a, y))
    small_a = _where(_all(a < 0.3, b >= 0.35), x22, _where(_any(b > 0.15, a >= 0.3), x23, _where(b > 0.1, x24, x25)))
    small_a = _where(_any(b > 0.6, _all(b >= 0.45, a >= 0.3)), x21, small_a)
    # a >= 1: eq. 31 (a Cornish-Fisher expansion about the normal quantile s) ...
    s = _V(_ndtri(_min(p, q).v, t), t)
    s = _where(p < q, s, -s)
    ra = _sqrt(a)
    s2 = s * s
    w = (a + s * ra + (s2 - 1) / 3 + (s2 * s - 7 * s) / (36 * ra) - (3 * s2 * s2 + 7 * s2 - 16) / (810 * a)
         + (9 * s2 * s2 * s + 256 * s2 * s - 433 * s) / (38880 * a * ra))
    # ... the upper tail for p > 1/2 (eqs. 25 and 33) ...
    u33 = -lb + (a - 1) * _log(w) - _log1p((1 - a) / (1 + w))
    x33 = _log(-lb + (a - 1) * _log(u33) - _log1p((1 - a) / (1 + u33)))
    tail_25 = lb < -2.3 * _max((a - 1) * a, 2)
    upper = _where(w < 3 * a, _log(w), _where(tail_25, x25, x33))
    # ... and the lower tail for p <= 1/2 (eq. 35: three fixed-point steps on the series)
    v = lp + _lgamma(a + 1)
    z = _exp((v + w) / a)
    for k in range(3):
        series = z / (a + 1) * (1 + z / (a + 2) * (1 + z / (a + 3) if k == 2 else 1))
        lz = (v + z - _log1p(series)) / a
        z = _exp(lz)
    lower = _where(w < 0.15 * (a + 1), lz, _log(w))
    return _where(a < 1, small_a, _where(p > 0.5, upper, lower))


#: Halley steps after the first approximation (it has 1-2 correct digits; each step triples them)
_GAMMA_INV_STEPS = 4
_BETA_INV_STEPS = 10


def _gamma_inverse(ctx: LoweringContext, a: _V, p: _V, q: _V) -> _V:
    """x with P(a, x) = p and Q(a, x) = q (p + q = 1, a > 0, 0 < p < 1), by Halley's method
    on t = log x applied to log P - log p where p < q, else to log Q - log q; both are
    concave in t (the log-gamma distribution is log-concave)."""
    t0 = _gamma_inverse_guess(a, p, q, _log(p), _log(q), _lgamma(a))
    lo, hi = _log_range(a.t)

    def step(_: ir.Value, t: _V, a: _V, p: _V, q: _V) -> list[_V]:
        t = _min(_max(t, lo), hi)
        lp, lq, lg, la = _log(p), _log(q), _lgamma(a), _log(a)
        x = _exp(t)
        log_dens = a * t - x - lg  # log(x dP/dx) = d P / d t
        big_p, big_q = _jax_fn(ctx, lax.igamma, a, x), _jax_fn(ctx, lax.igammac, a, x)
        # where P or Q underflows: their leading asymptotic terms
        log_p = _where(big_p > 0, _log(big_p), log_dens - la + _log(a + 1) - _log(_max(a + 1 - x, 1e-30)))
        log_q = _where(big_q > 0, _log(big_q), log_dens - _log(_max(x - a + 1, 1)))
        use_p = p < q
        g = _where(use_p, log_p - lp, log_q - lq)
        dg = _where(use_p, _exp(log_dens - log_p), -_exp(log_dens - log_q))
        return [_halley(t, g, dg, (a - x) - dg), a, p, q]

    t = _fixed_loop(_GAMMA_INV_STEPS, [t0, a, p, q], step)[0]
    return _exp(t)


def _fixed_loop(n: int, state: list[_V], step) -> list[_V]:
    """``n`` iterations of ``step(i, *state) -> state`` as one stablehlo.while (its body
    is compiled once); ``i`` is the iteration number, an int64 scalar."""
    i64 = TensorType(DTYPES["int64"], ())
    types = [tensor_type(i64)] + [tensor_type(v.t) for v in state]
    loop = hlo.WhileOp(types, [constant(0, i64.dtype)] + [v.v for v in state])
    cond = loop.cond.blocks.append(*types)
    with ir.InsertionPoint(cond):
        hlo.return_([compare(cond.arguments[0], constant(n, i64.dtype), "LT", i64.dtype)])
    body = loop.body.blocks.append(*types)
    with ir.InsertionPoint(body):
        i, *args = body.arguments
        new = step(i, *(_V(v, s.t) for v, s in zip(args, state)))
        hlo.return_([hlo.add(i, constant(1, i64.dtype))] + [v.v for v in new])
    return [_V(v, s.t) for v, s in zip(list(loop.results)[1:], state)]


def _halley(t: _V, g: _V, dg: _V, d2g_over_dg: _V) -> _V:
    """One Halley step for g(t) = 0, a Newton step where the Halley correction is large;
    t stays where the step is not finite (g already 0, or a derivative underflowed)."""
    d = g / dg
    corr = 0.5 * d * d2g_over_dg
    h = _where(_abs(corr) < 0.5, d / (1 - corr), d)
    finite = _V(hlo.is_finite(h.v), h.t)
    return _where(finite.v, t - h, t)


@register(sp.Gammaincinv)
@register(sp.Gammainccinv)
def lower_gammaincinv(ctx: LoweringContext, a: ir.Value, y: ir.Value) -> list[ir.Value]:
    a, y = _float64_operands(ctx, (a, y))
    upper = isinstance(ctx.op, sp.Gammainccinv)
    p, q = (1 - y, y) if upper else (y, 1 - y)
    # lanes the iteration does not decide compute on harmless values
    bad = _any(_isnan(a), _isnan(y), a < 0, y < 0, y > 1)
    edge = _any(bad, a.eq(0), a.eq(np.inf), p.eq(0), q.eq(0))
    a_it, p_it = _where(edge, 1.0, a), _where(edge, 0.5, p)
    q_it = _where(edge, 0.5, q)
    res = _gamma_inverse(ctx, a_it, p_it, q_it)
    # a == 0 or inf: P is a step at 0 or at inf, no inverse inside (0, 1)
    res = _where(_any(a.eq(0), a.eq(np.inf)), np.nan, res)
    res = _where(p.eq(0), 0.0, res)
    res = _where(q.eq(0), np.inf, res)
    res = _where(bad, np.nan, res)
    return [convert(res.v, res.t, ctx.out_type.dtype)]


def _beta_inverse_guess(a: _V, b: _V, y: _V, yc: _V, lbeta: _V) -> _V:
    """logit of a first approximation to x with I_x(a, b) = y: the leading terms of the
    two tails, x^a / (a B) and (1 - x)^b / (b B), where they are small, else Cephes'
    (incbi) normal approximation for a, b > 1, else the logit of a / (a + b)."""
    t = a.t
    lx_lo = (_log(y) + _log(a) + lbeta) / a  # log x from the lower tail
    l1x_hi = (_log(yc) + _log(b) + lbeta) / b  # log(1 - x) from the upper tail
    eps = float(np.finfo(t.dtype).eps)
    t_lo = lx_lo - _log1p(-_exp(_min(lx_lo, -eps)))
    t_hi = _log1p(-_exp(_min(l1x_hi, -eps))) - l1x_hi
    yp = _V(_ndtri(_min(y, yc).v, t), t)
    yp = _where(y < yc, -yp, yp)
    lgm = (yp * yp - 3) / 6
    ia, ib = 1 / (2 * a - 1), 1 / (2 * b - 1)
    h = 2 / (ia + ib)
    d = yp * _sqrt(_max(h + lgm, 0)) / h - (ib - ia) * (lgm + 5.0 / 6 - 2 / (3 * h))
    t_normal = _log(a) - _log(b) - 2 * d
    normal = _all(a > 1, b > 1, h + lgm > 0)
    mean = _log(a) - _log(b)
    lo_ok, hi_ok = lx_lo < math.log(0.7), l1x_hi < math.log(0.7)
    t_tail = _where(y < yc, _where(lo_ok, t_lo, _where(hi_ok, t_hi, mean)),
                    _where(hi_ok, t_hi, _where(lo_ok, t_lo, mean)))
    tail_lo = _all(y < yc, lx_lo < _log(0.1 * a / (a + b)))
    tail_hi = _all(y >= yc, l1x_hi < _log(0.1 * b / (a + b)))
    return _where(tail_lo, t_lo, _where(tail_hi, t_hi, _where(normal, t_normal, t_tail)))


def _beta_inverse(ctx: LoweringContext, a: _V, b: _V, y: _V) -> _V:
    """x with I_x(a, b) = y (a, b > 0 finite, 0 < y < 1), by Halley's method on the logit
    t of x applied to log I - log y or log(1 - I) - log(1 - y), both concave in t (the
    logit of a beta variable has a log-concave density). The iterations take the side
    that is smaller at the current point, the last two the side that is smaller at the
    root (where its residual is accurate)."""
    yc = 1 - y
    lbeta = _lgamma(a) + _lgamma(b) - _lgamma(a + b)
    t0 = _beta_inverse_guess(a, b, y, yc, lbeta)
    lo = math.log(float(np.finfo(a.t.dtype).tiny))  # keeps x and 1 - x normal

    def step(k: ir.Value, t: _V, a: _V, b: _V, y: _V) -> list[_V]:
        t = _min(_max(t, lo), -lo)
        yc = 1 - y
        lbeta = _lgamma(a) + _lgamma(b) - _lgamma(a + b)
        lx, l1x = _log_sigmoid(t), _log_sigmoid(-t)
        x, xc = _exp(lx), _exp(l1x)
        i0, j0 = _jax_fn(ctx, lax.betainc, a, b, x), _jax_fn(ctx, lax.betainc, b, a, xc)
        # 1 - x rounded is a poor argument near 1: the other side is accurate there
        big_i, big_j = _where(xc < 1e-3, 1 - j0, i0), _where(x < 1e-3, 1 - i0, j0)
        log_dens = a * lx + b * l1x - lbeta  # d I / d t
        log_i = _where(big_i > 0, _log(big_i), log_dens - _log(a))
        log_j = _where(big_j > 0, _log(big_j), log_dens - _log(b))
        i64 = DTYPES["int64"]
        polish = compare(k, constant(_BETA_INV_STEPS - 2, i64), "GE", i64)
        use_i = hlo.select(polish, y < yc, big_i < big_j)
        g = _where(use_i, log_i - _log(y), log_j - _log(yc))
        dg = _where(use_i, _exp(log_dens - log_i), -_exp(log_dens - log_j))
        return [_halley(t, g, dg, (a - (a + b) * x) - dg), a, b, y]

    t = _fixed_loop(_BETA_INV_STEPS, [t0, a, b, y], step)[0]
    return _exp(_log_sigmoid(t))


@register(sp.Betaincinv)
def lower_betaincinv(ctx: LoweringContext, a: ir.Value, b: ir.Value, y: ir.Value) -> list[ir.Value]:
    a, b, y = _float64_operands(ctx, (a, b, y))
    bad = _any(_isnan(a), _isnan(b), _isnan(y), a <= 0, b <= 0, y < 0, y > 1)
    infinite = _any(a.eq(np.inf), b.eq(np.inf))
    edge = _any(bad, infinite, y.eq(0), y.eq(1))
    res = _beta_inverse(ctx, _where(edge, 1.0, a), _where(edge, 1.0, b), _where(edge, 0.5, y))
    # an infinite parameter puts all mass at 0 or 1: no inverse inside (0, 1)
    res = _where(infinite, np.nan, res)
    res = _where(y.eq(0), 0.0, res)
    res = _where(y.eq(1), 1.0, res)
    res = _where(bad, np.nan, res)
    return [convert(res.v, res.t, ctx.out_type.dtype)]


for _rule in (lower_gammaincinv, lower_betaincinv):
    _rule.jax_bridge = True  # their function evaluations call jax's lowering


# --- exponentially scaled modified Bessel functions of real order ------------------------
# For order v >= 0 and x > 0 (scipy's conventions for the rest are applied at the end):
# - v >= 50: Debye's uniform asymptotic expansions (DLMF 10.41.3-4), 13 terms;
# - I for v < 50, x^2 / 4 <= v + 1: its power series, 20 terms;
# - v < 50, x > max(50, v^2): Hankel's expansions for large x (DLMF 10.40.1-2), 20 terms;
# - otherwise Temme's method (Numerical Recipes' ``bessik``): with mu = v - round(v),
#   K_mu and K_mu+1 from Temme's series (x <= 2) or Steed's continued fraction CF2, K_v by
#   upward recurrence (stable for K), I'_v / I_v from the continued fraction CF1 and I_v
#   from the Wronskian I_v K'_v - I'_v K_v = -1/x. Every factor exp(+-x) is left out.
_BESSEL_DEBYE_ORDER = 50.0
#: iterations of CF1 (it needs about 270 on the region it serves, x <= 2500)
_BESSEL_CF1_STEPS = 320
_BESSEL_TEMME_STEPS = 30
_BESSEL_CF2_STEPS = 60
_BESSEL_HANKEL_TERMS = 20
_BESSEL_SERIES_TERMS = 20


def _debye_polynomials(n: int) -> list[list[float]]:
    """Coefficients (ascending) of Debye's U_0 .. U_n-1: U_k+1(p) = p^2 (1 - p^2) U_k'(p) / 2
    + 1/8 int_0^p (1 - 5 t^2) U_k(t) dt (DLMF 10.41.9), in exact rational arithmetic."""
    from fractions import Fraction

    polys = [[Fraction(1)]]
    for _ in range(n - 1):
        u = polys[-1]
        nxt = [Fraction(0)] * (len(u) + 3)
        for i, c in enumerate(u):
            if i:
                nxt[i + 1] += i * c / 2
                nxt[i + 3] -= i * c / 2
            nxt[i + 1] += c / (8 * (i + 1))
            nxt[i + 3] -= 5 * c / (8 * (i + 3))
        polys.append(nxt)
    return [[float(c) for c in p] for p in polys]


_DEBYE_U = _debye_polynomials(13)
# Chebyshev coefficients of gamma1(mu) = (1/Gamma(1 - mu) - 1/Gamma(1 + mu)) / (2 mu) and
# gamma2(mu) = (1/Gamma(1 - mu) + 1/Gamma(1 + mu)) / 2 in 8 mu^2 - 1 (Numerical Recipes' beschb)
_TEMME_G1 = [-1.142022680371168e0, 6.5165112670737e-3, 3.087090173086e-4, -3.4706269649e-6,
             6.9437664e-9, 3.67795e-11, -1.356e-13]
_TEMME_G2 = [1.843740587300905e0, -7.68528408447867e-2, 1.2719271366546e-3, -4.9717367042e-6,
             -3.31261198e-8, 2.423096e-10, -1.702e-13, -1.49e-15]


def _chebev(coeffs: list[float], x: _V) -> _V:
    """sum' c_k T_k(x) (the first coefficient halved) by Clenshaw's recurrence."""
    d, dd = x * 0.0, x * 0.0
    for c in reversed(coeffs[1:]):
        d, dd = 2 * x * d - dd + c, d
    return x * d - dd + 0.5 * coeffs[0]


def _bessel_debye(v: _V, x: _V) -> tuple[_V, _V]:
    """(ive, kve) for large v by the uniform expansions in z = x / v."""
    z = x / v
    inv_z = 1 / z
    sq = _where(z > 1, z * _sqrt(1 + inv_z * inv_z), _sqrt(1 + z * z))  # sqrt(1 + z^2)
    p = 1 / sq
    s_i, s_k, vk = p * 0.0, p * 0.0, p * 0.0 + 1.0
    for k, u in enumerate(_DEBYE_U):
        term = _polyval(u[::-1], p.v, p.t)
        term = _V(term, p.t) / vk
        s_i, s_k = s_i + term, (s_k + term) if k % 2 == 0 else (s_k - term)
        vk = vk * v
    # v eta - x, eta = sqrt(1 + z^2) + log(z / (1 + sqrt(1 + z^2))) = sq - asinh(1 / z)
    expo = v / (sq + z) - v * _map(chlo.asinh, inv_z)
    scale = 1 / _sqrt(sq)
    ive = _exp(expo) * scale / _sqrt(2 * math.pi * v) * s_i
    kve = _exp(-expo) * scale * _sqrt(math.pi / (2 * v)) * s_k
    return ive, kve


def _bessel_hankel(v: _V, x: _V) -> tuple[_V, _V]:
    """(ive, kve) for large x by Hankel's expansions."""
    mu = 4 * v * v
    term, s_i, s_k = x * 0.0 + 1.0, x * 0.0 + 1.0, x * 0.0 + 1.0
    for k in range(1, _BESSEL_HANKEL_TERMS + 1):
        term = term * (mu - (2 * k - 1) ** 2) / (8 * k * x)
        s_i, s_k = (s_i + term) if k % 2 == 0 else (s_i - term), s_k + term
    return s_i / _sqrt(2 * math.pi * x), s_k * _sqrt(math.pi / (2 * x))


def _counted_loop(n: int, state: list[_V], step) -> list[_V]:
    """``_fixed_loop`` whose step also gets the iteration number 1, 2, ... as a float _V."""
    counter = state[0] * 0.0

    def body(_: ir.Value, i: _V, *rest: _V) -> list[_V]:
        i = i + 1
        return [i] + step(i, *rest)

    return _fixed_loop(n, [counter] + state, body)[1:]


def _bessel_temme(v: _V, x: _V) -> tuple[_V, _V]:
    """(ive, kve) for 0 <= v < 50 and 0 < x <= max(50, v^2) by Temme's method."""
    nl = _floor(v + 0.5)
    mu = v - nl
    xi2 = 2 / x

    # CF1 for f = I'_v / I_v (modified Lentz); a lane stops changing once it converged
    def cf1(_: _V, h: _V, b: _V, d: _V, c: _V, done: _V, x: _V, v: _V) -> list[_V]:
        b = b + 2 / x
        d = 1 / (b + d)
        c = b + 1 / c
        delta = c * d
        h = _where(done > 0, h, h * delta)
        done = _where(_abs(delta - 1) < float(np.finfo(np.float64).eps), 1.0, done)
        return [h, b, d, c, done, x, v]

    h0 = _max(v / x, 1e-300)
    f = _counted_loop(_BESSEL_CF1_STEPS, [h0, xi2 * v, x * 0.0, h0, x * 0.0, x, v], cf1)[0]

    # Temme's series for K_mu, K_mu+1 (x <= 2), times exp(x)
    x2 = 0.5 * x
    pimu = math.pi * mu
    fact = _where(_abs(pimu) < 1e-15, 1.0, pimu / _map(hlo.sine, pimu))
    dl = -_log(x2)
    e = mu * dl
    fact2 = _where(_abs(e) < 1e-15, 1.0, _map(chlo.sinh, e) / e)
    cheb_x = 8 * mu * mu - 1
    gam1, gam2 = _chebev(_TEMME_G1, cheb_x), _chebev(_TEMME_G2, cheb_x)
    gampl, gammi = gam2 - mu * gam1, gam2 + mu * gam1  # 1/Gamma(1 + mu), 1/Gamma(1 - mu)
    ff = fact * (gam1 * _map(chlo.cosh, e) + gam2 * fact2 * dl)
    ee = _exp(e)
    p, q = 0.5 * ee / gampl, 0.5 / (ee * gammi)

    def series(i: _V, ff: _V, p: _V, q: _V, c: _V, s: _V, s1: _V, x2: _V, mu: _V) -> list[_V]:
        ff = (i * ff + p + q) / (i * i - mu * mu)
        c = c * (x2 * x2) / i
        p, q = p / (i - mu), q / (i + mu)
        return [ff, p, q, c, s + c * ff, s1 + c * (p - i * ff), x2, mu]

    *_, k_s, k1_s, _, _ = _counted_loop(_BESSEL_TEMME_STEPS, [ff, p, q, x * 0.0 + 1.0, ff, p, x2, mu], series)
    ex = _exp(_min(x, 2.0))
    k_s, k1_s = k_s * ex, k1_s * xi2 * ex

    # Steed's CF2 for K_mu, K_mu+1 (x > 2), times exp(x)
    a1 = 0.25 - mu * mu
    b0 = 2 * (1 + x)
    d0 = 1 / b0
    s0 = 1 + a1 * d0

    def cf2(i: _V, a: _V, c: _V, q1: _V, q2: _V, q: _V, b: _V, d: _V, delh: _V, h: _V, s: _V) -> list[_V]:
        i = i + 1  # Steed's index starts at 2
        a = a - 2 * (i - 1)
        c = -a * c / i
        qnew = (q1 - b * q2) / a
        q = q + c * qnew
        b = b + 2
        d = 1 / (b + a * d)
        delh = (b * d - 1) * delh
        return [a, c, q2, qnew, q, b, d, delh, h + delh, s + q * delh]

    res = _counted_loop(_BESSEL_CF2_STEPS, [-a1, a1, x * 0.0, x * 0.0 + 1.0, a1, b0, d0, d0, d0, s0], cf2)
    h, s = res[-2], res[-1]
    k_l = _sqrt(math.pi / (2 * x)) / s
    k1_l = k_l / x * (mu + x + 0.5 - a1 * h)
    small = x <= 2
    k, k1 = _where(small, k_s, k_l), _where(small, k1_s, k1_l)

    # upward recurrence K_mu+i+1 = 2 (mu + i) / x K_mu+i + K_mu+i-1 up to K_v, K_v+1
    def up(i: _V, k: _V, k1: _V, mu: _V, nl: _V, x: _V) -> list[_V]:
        nxt = (mu + i) * (2 / x) * k1 + k
        move = i <= nl
        return [_where(move, k1, k), _where(move, nxt, k1), mu, nl, x]

    k, k1 = _counted_loop(int(_BESSEL_DEBYE_ORDER) + 1, [k, k1, mu, nl, x], up)[:2]
    ive = 1 / (x * (f * k - (v / x * k - k1)))
    return ive, k


def _bessel_scaled(v: _V, x: _V) -> tuple[_V, _V]:
    """(ive, kve) for v >= 0 and x > 0 finite."""
    debye = v >= _BESSEL_DEBYE_ORDER
    hankel = hlo.and_(hlo.not_(debye), x > _max(v * v, 50.0))
    d_i, d_k = _bessel_debye(_max(v, _BESSEL_DEBYE_ORDER), x)
    h_i, h_k = _bessel_hankel(v, _max(x, 50.0))
    t_v = _where(debye, 1.0, v)
    t_x = _where(_any(debye, hankel), 1.0, x)
    t_i, t_k = _bessel_temme(t_v, t_x)
    # x^2 / 4 <= v + 1 (v < 50): I's power series (x/2)^v / Gamma(v + 1) sum_k (x^2/4)^k /
    # (k! (v + 1)_k), whose terms fall faster than 1/k!; the Wronskian would need K_v+1,
    # which overflows first for small x
    quarter_x2 = 0.25 * x * x
    term, total = x * 0.0 + 1.0, x * 0.0 + 1.0
    for k in range(1, _BESSEL_SERIES_TERMS + 1):
        term = term * quarter_x2 / (k * (v + k))
        total = total + term
    s_i = _exp(v * _log(0.5 * x) - _lgamma(v + 1) - x) * total
    series = hlo.and_(hlo.not_(debye), quarter_x2 <= v + 1)
    ive = _where(series, s_i, _where(debye, d_i, _where(hankel, h_i, t_i)))
    return ive, _where(debye, d_k, _where(hankel, h_k, t_k))


def _is_integer(v: _V) -> ir.Value:
    return v.eq(_floor(v))


@register(sp.Ive)
@register(sp.Kve)
def lower_ive(ctx: LoweringContext, v: ir.Value, x: ir.Value) -> list[ir.Value]:
    # computed in float64 (the expansions' coefficients and CF1's tolerance are float64's)
    v, x = _float64_operands(ctx, (v, x))
    av, ax = _abs(v), _abs(x)
    finite = _all(hlo.is_finite(v.v), hlo.is_finite(x.v))
    inside = _all(finite, ax > 0)
    ive, kve = _bessel_scaled(_where(inside, av, 1.0), _where(inside, ax, 1.0))
    if isinstance(ctx.op, sp.Kve):
        # K_-v = K_v; K is infinite at 0 (for any order, as scipy) and undefined for x < 0
        res = _where(_any(_isnan(x), x < 0, hlo.not_(finite)), np.nan, kve)
        res = _where(x.eq(0), np.inf, res)
        return [convert(res.v, res.t, ctx.out_type.dtype)]
    integer = _is_integer(v)
    # I_-v = I_v + 2/pi sin(pi v) K_v for v > 0 (the sine is 0 at integers)
    rem = _map(hlo.remainder, av, av * 0.0 + 2.0)
    r = _where(rem > 1, rem - 2, rem)  # sin(pi v) = sin(pi r), r in (-1, 1], reflected to |r| <= 1/2
    r = _where(r > 0.5, 1 - r, _where(r < -0.5, -1 - r, r))
    sin_v = _where(integer, 0.0, _map(hlo.sine, math.pi * r))
    negative = _all(v < 0, hlo.not_(integer))
    reflected = ive + (2 / math.pi) * sin_v * kve * _exp(-2 * ax)
    res = _where(negative, reflected, ive)
    # I_v(-x) = (-1)^v I_v(x) for integer v; undefined otherwise
    odd = hlo.not_(rem.eq(0))
    res = _where(_all(x < 0, odd), -res, res)
    res = _where(_all(x < 0, hlo.not_(integer)), np.nan, res)
    # x == 0: I_0 = 1, I_v = 0 for v > 0 and integer v < 0, undefined for other v < 0
    zero = _V(_const(0.0, v.t), v.t)
    at_zero = _where(v.eq(0), 1.0, _where(_any(v > 0, integer), zero, np.nan))
    res = _where(x.eq(0), at_zero, res)
    res = _where(hlo.is_finite(res.v), res, np.nan)  # an overflow (v < 0 only) is NaN, as scipy's
    res = _where(hlo.not_(finite), np.nan, res)
    return [convert(res.v, res.t, ctx.out_type.dtype)]
