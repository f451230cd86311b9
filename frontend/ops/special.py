"""Special functions (scipy.special semantics) as elementwise ops.

Most ``reference`` functions are written with NumPy and the ``math`` module
in float64 (series, recurrences and Newton steps where ``math`` has no
function), then rounded to the op's dtype; the incomplete gamma and beta
functions use ``scipy.special`` in float64. Integer inputs compute in NumPy's
float for them, as ``np.exp`` would.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..graph import Variable
from .basic import as_variable, result_type
from .elemwise import Binary, Elemwise, apply_elemwise, elemwise_builder
from . import elemwise as ew
from ..graph import UndefinedGradient

__all__ = [
    "erfc", "erfinv", "gammaln", "digamma", "psi", "polygamma", "trigamma", "softplus",
    "log1mexp", "xlogy", "xlog1py", "i0e", "i1e", "ndtr", "ndtri", "log_ndtr", "erfcx",
    "gammainc", "gammaincc", "betainc", "gammaincinv", "gammainccinv", "betaincinv", "ive", "kve",
]


def _vectorize(fn, *args: np.ndarray) -> np.ndarray:
    args = [np.asarray(a, dtype=np.float64) for a in args]
    return np.vectorize(fn, otypes=[np.float64])(*args)


# --- float64 references ---------------------------------------------------
def _erfinv_scalar(x: float) -> float:
    if math.isnan(x) or abs(x) > 1:
        return math.nan
    if abs(x) == 1:
        return math.copysign(math.inf, x)
    if x < 0:
        return -_erfinv_scalar(-x)
    # Newton on erf(y) = x, or on erfc(y) = 1 - x (exact for x >= 0.5) near 1
    y = 0.0
    for _ in range(100):
        if x < 0.5:
            f, df = math.erf(y) - x, 2 / math.sqrt(math.pi) * math.exp(-y * y)
        else:
            f, df = (1 - x) - math.erfc(y), 2 / math.sqrt(math.pi) * math.exp(-y * y)
        step = f / df
        y -= step
        if abs(step) <= 1e-17 * max(abs(y), 1e-300):
            break
    return y


def _gammaln_scalar(x: float) -> float:
    if math.isinf(x):
        return math.inf
    if x <= 0 and x == math.floor(x):
        return math.inf  # poles
    return math.lgamma(x)


# B_2k / (2k) for the asymptotic series of digamma, B_2k / (2k)! for Euler-Maclaurin
_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510]


def _digamma_scalar(x: float) -> float:
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return math.inf
    if x == 0:
        return -math.copysign(math.inf, x)
    if x < 0:
        if x == math.floor(x):
            return math.nan
        # reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
        return _digamma_scalar(1 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    while x < 10:
        acc -= 1 / x
        x += 1
    series = 0.0
    for k, b in enumerate(_BERNOULLI, start=1):
        series += b / (2 * k) / x ** (2 * k)
    return acc + math.log(x) - 0.5 / x - series


def _hurwitz_zeta(s: float, q: float) -> float:
    """zeta(s, q) for s > 1, q > 0 by Euler-Maclaurin summation."""
    n = max(0, int(math.ceil(20 - q)))
    total = sum((q + k) ** -s for k in range(n))
    a = q + n
    total += a ** (1 - s) / (s - 1) + 0.5 * a ** -s
    rising, fact = s, 2.0  # s (s+1) ... (s+2j-2), (2j)!
    for j, b in enumerate(_BERNOULLI, start=1):
        total += b / fact * rising * a ** (-s - 2 * j + 1)
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        fact *= (2 * j + 1) * (2 * j + 2)
    return total


def _polygamma_scalar(n: float, x: float) -> float:
    if math.isnan(n) or math.isnan(x) or math.isinf(n) or n < 0 or n != math.floor(n):
        return math.nan
    if x == -math.inf:
        return math.nan
    if n == 0:
        return _digamma_scalar(x)
    if x <= 0 and x == math.floor(x):
        return math.inf if n % 2 == 1 else math.nan
    if x == math.inf:
        return 0.0
    if x < 0:
        return math.nan  # reference covers x > 0 only (no reflection for n >= 1)
    n = int(n)
    return (-1) ** (n + 1) * math.factorial(n) * _hurwitz_zeta(n + 1, x)


def _bessel_ie_scalar(order: int, x: float) -> float:
    """exp(-|x|) I_order(x) for order 0 or 1."""
    if math.isnan(x):
        return math.nan
    ax = abs(x)
    if ax == math.inf:
        return 0.0
    if ax <= 30:
        term = (ax / 2) ** order / math.factorial(order)
        total, k = term, 0
        while term > 1e-18 * total:
            k += 1
            term *= (ax / 2) ** 2 / (k * (k + order))
            total += term
        out = total * math.exp(-ax)
    else:  # Hankel's asymptotic series
        mu, term, total = 4 * order * order, 1.0, 1.0
        for k in range(1, 20):
            term *= -(mu - (2 * k - 1) ** 2) / (k * 8 * ax)
            total += term
        out = total / math.sqrt(2 * math.pi * ax)
    return -out if (order == 1 and x < 0) else out


def _erfcx_scalar(x: float) -> float:
    if math.isnan(x):
        return math.nan
    if x < 25:
        try:
            return math.exp(x * x) * math.erfc(x)
        except OverflowError:
            return math.inf
    # asymptotic series 1/(x sqrt(pi)) sum (-1)^n (2n-1)!! / (2x^2)^n
    total, term = 1.0, 1.0
    for n in range(1, 30):
        term *= -(2 * n - 1) / (2 * x * x)
        total += term
    return total / (x * math.sqrt(math.pi))


def _ndtr_scalar(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _log_ndtr_scalar(x: float) -> float:
    if math.isnan(x):
        return math.nan
    if x > 0:
        return math.log1p(-0.5 * math.erfc(x / math.sqrt(2)))
    if x > -20:
        return math.log(_ndtr_scalar(x))
    # asymptotic series: Phi(x) ~ phi(x) / -x * sum (-1)^n (2n-1)!! / x^(2n)
    if x == -math.inf:
        return -math.inf
    total, term = 1.0, 1.0
    for n in range(1, 40):
        nxt = -term * (2 * n - 1) / (x * x)
        if abs(nxt) >= abs(term):
            break
        term = nxt
        total += term
    return -0.5 * x * x - math.log(-x) - 0.5 * math.log(2 * math.pi) + math.log(total)


def _ndtri_scalar(p: float) -> float:
    if math.isnan(p) or p < 0 or p > 1:
        return math.nan
    if p == 0:
        return -math.inf
    if p == 1:
        return math.inf
    if p == 0.5:
        return 0.0
    if p > 0.5:
        return -_ndtri_scalar(1 - p)  # 1 - p is exact here
    # Newton on log Phi(y) = log p (log Phi is concave: converges from any start)
    y, target = -math.sqrt(-2 * math.log(p)), math.log(p)
    for _ in range(100):
        log_cdf = _log_ndtr_scalar(y)
        log_pdf = -0.5 * y * y - 0.5 * math.log(2 * math.pi)
        step = (log_cdf - target) / math.exp(log_pdf - log_cdf)
        y -= step
        if abs(step) <= 1e-16 * max(abs(y), 1e-300):
            break
    return y


def _xlogy(x: np.ndarray, y: np.ndarray, log) -> np.ndarray:
    # scipy: 0 where x == 0 unless y is NaN
    out = x * log(y)
    return np.where((x == 0) & ~np.isnan(y), np.zeros_like(out), out)


def _log1mexp(x: np.ndarray) -> np.ndarray:
    # log(1 - exp(x)) for x <= 0, switching at log(1/2) for accuracy (Maechler 2012)
    return np.where(x < -math.log(2), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


# --- ops ------------------------------------------------------------------
class Special(Elemwise):
    """A real special function; ints compute in NumPy's float for them."""

    float_only = True


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)

# ``partials(*inputs, out)`` gives the derivative in each input (Elemwise.partials);
# parameters whose derivative needs a function hlograph lacks are UndefinedGradient.


class Erfc(Special):
    reference = staticmethod(lambda x: _vectorize(math.erfc, x))
    def partials(self, x, out): return [ew.multiply(ew.exp(ew.negative(ew.square(x))), -_TWO_OVER_SQRT_PI)]


class Erfcx(Special):
    reference = staticmethod(lambda x: _vectorize(_erfcx_scalar, x))
    def partials(self, x, out): return [ew.subtract(ew.multiply(ew.multiply(x, out), 2), _TWO_OVER_SQRT_PI)]


class Erfinv(Special):
    reference = staticmethod(lambda x: _vectorize(_erfinv_scalar, x))
    def partials(self, x, out): return [ew.multiply(ew.exp(ew.square(out)), math.sqrt(math.pi) / 2)]


class Gammaln(Special):
    reference = staticmethod(lambda x: _vectorize(_gammaln_scalar, x))
    def partials(self, x, out): return [digamma(x)]


class Digamma(Special):
    reference = staticmethod(lambda x: _vectorize(_digamma_scalar, x))
    def partials(self, x, out): return [polygamma(1, x)]


class Softplus(Special):
    # log(1 + exp(x)), as numpy.logaddexp(0, x)
    reference = staticmethod(lambda x: np.logaddexp(np.zeros_like(x), x))
    def partials(self, x, out): return [ew.sigmoid(x)]


class Log1mexp(Special):
    reference = staticmethod(_log1mexp)
    def partials(self, x, out): return [ew.negative(ew.reciprocal(ew.expm1(ew.negative(x))))]


class I0e(Special):
    reference = staticmethod(lambda x: _vectorize(lambda v: _bessel_ie_scalar(0, v), x))
    def partials(self, x, out): return [ew.subtract(i1e(x), ew.multiply(ew.sign(x), out))]


class I1e(Special):
    reference = staticmethod(lambda x: _vectorize(lambda v: _bessel_ie_scalar(1, v), x))

    def partials(self, x, out):
        # i0e(x) - out * (sign(x) + 1 / x), 1/2 near 0 (as jax)
        eps = float(np.finfo(x.dtype).eps)
        big = ew.greater(ew.abs(x), eps)
        safe = ew.where(big, x, eps)
        d = ew.subtract(i0e(safe), ew.multiply(out, ew.add(ew.sign(safe), ew.reciprocal(safe))))
        return [ew.where(big, d, 0.5)]


class Ndtr(Special):
    reference = staticmethod(lambda x: _vectorize(_ndtr_scalar, x))
    def partials(self, x, out): return [ew.exp(ew.subtract(ew.multiply(ew.square(x), -0.5), _LOG_SQRT_2PI))]


class Ndtri(Special):
    reference = staticmethod(lambda x: _vectorize(_ndtri_scalar, x))
    def partials(self, x, out): return [ew.exp(ew.add(ew.multiply(ew.square(out), 0.5), _LOG_SQRT_2PI))]


class LogNdtr(Special):
    reference = staticmethod(lambda x: _vectorize(_log_ndtr_scalar, x))

    def partials(self, x, out):  # pdf(x) / ndtr(x), in logs for the far left tail
        log_pdf = ew.subtract(ew.multiply(ew.square(x), -0.5), _LOG_SQRT_2PI)
        return [ew.exp(ew.subtract(log_pdf, out))]


class SpecialBinary(Binary):
    float_only = True


class Polygamma(SpecialBinary):
    """polygamma(n, x): the n-th derivative of digamma; n is a float holding an integer."""

    reference = staticmethod(lambda n, x: _vectorize(_polygamma_scalar, n, x))

    def partials(self, n, x, out):
        return [UndefinedGradient("polygamma is defined for integer orders n only (jax raises too)"),
                polygamma(ew.add(n, 1), x)]


def _log_beta(a: Variable, b: Variable) -> Variable:
    return ew.subtract(ew.add(gammaln(a), gammaln(b)), gammaln(ew.add(a, b)))


def _gamma_density(a: Variable, x: Variable) -> Variable:
    """d/dx P(a, x) = x**(a-1) exp(-x) / Gamma(a)."""
    return ew.exp(ew.subtract(ew.subtract(ew.multiply(ew.subtract(a, 1), ew.log(x)), x), gammaln(a)))


def _beta_log_density(a: Variable, b: Variable, x: Variable) -> Variable:
    """log d/dx I_x(a, b) = (a-1) log x + (b-1) log(1-x) - log B(a, b)."""
    terms = ew.add(ew.multiply(ew.subtract(a, 1), ew.log(x)), ew.multiply(ew.subtract(b, 1), ew.log1p(ew.negative(x))))
    return ew.subtract(terms, _log_beta(a, b))


def _no_parameter_derivative(name: str, param: str) -> UndefinedGradient:
    return UndefinedGradient(
        f"the derivative of {name} in its parameter {param} needs special functions hlograph "
        f"lacks (differentiate in the last argument, or wrap the parameter in stop_gradient)"
    )


def _scipy(name: str):
    """scipy.special.<name> in float64 (scipy's float32 loops are less accurate)."""
    def reference(*args: np.ndarray) -> np.ndarray:
        import scipy.special

        return getattr(scipy.special, name)(*(np.asarray(a, dtype=np.float64) for a in args))
    return staticmethod(reference)


class Gammainc(SpecialBinary):
    """Regularized lower incomplete gamma function P(a, x)."""

    reference = _scipy("gammainc")

    def partials(self, a, x, out):
        return [_no_parameter_derivative("gammainc", "a"), _gamma_density(a, x)]


class Gammaincc(SpecialBinary):
    """Regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""

    reference = _scipy("gammaincc")

    def partials(self, a, x, out):
        return [_no_parameter_derivative("gammaincc", "a"), ew.negative(_gamma_density(a, x))]


class Betainc(Special):
    """Regularized incomplete beta function I_x(a, b)."""

    nin = 3
    reference = _scipy("betainc")

    def partials(self, a, b, x, out):
        why = _no_parameter_derivative("betainc", "a or b")
        return [why, why, ew.exp(_beta_log_density(a, b, x))]


class Gammaincinv(SpecialBinary):
    """Inverse of P(a, x) in x: gammaincinv(a, gammainc(a, x)) == x."""

    reference = _scipy("gammaincinv")

    def partials(self, a, p, out):  # 1 / (d/dx P(a, x)) at x = out
        return [_no_parameter_derivative("gammaincinv", "a"), ew.reciprocal(_gamma_density(a, out))]


class Gammainccinv(SpecialBinary):
    """Inverse of Q(a, x) in x: gammainccinv(a, gammaincc(a, x)) == x."""

    reference = _scipy("gammainccinv")

    def partials(self, a, q, out):
        return [_no_parameter_derivative("gammainccinv", "a"),
                ew.negative(ew.reciprocal(_gamma_density(a, out)))]


class Betaincinv(Special):
    """Inverse of I_x(a, b) in x: betaincinv(a, b, betainc(a, b, x)) == x."""

    nin = 3
    reference = _scipy("betaincinv")

    def partials(self, a, b, y, out):
        why = _no_parameter_derivative("betaincinv", "a or b")
        return [why, why, ew.exp(ew.negative(_beta_log_density(a, b, out)))]


class Ive(SpecialBinary):
    """exp(-|x|) I_v(x): the exponentially scaled modified Bessel function of the first kind."""

    reference = _scipy("ive")

    def partials(self, v, x, out):  # (I_{v-1} + I_{v+1}) / 2 scaled, minus sign(x) out
        mid = ew.multiply(ew.add(ive(ew.subtract(v, 1), x), ive(ew.add(v, 1), x)), 0.5)
        return [_no_parameter_derivative("ive", "v"), ew.subtract(mid, ew.multiply(ew.sign(x), out))]


class Kve(SpecialBinary):
    """exp(x) K_v(x): the exponentially scaled modified Bessel function of the second kind."""

    reference = _scipy("kve")

    def partials(self, v, x, out):  # out - (K_{v-1} + K_{v+1}) / 2 scaled
        mid = ew.multiply(ew.add(kve(ew.subtract(v, 1), x), kve(ew.add(v, 1), x)), 0.5)
        return [_no_parameter_derivative("kve", "v"), ew.subtract(out, mid)]


class Xlogy(SpecialBinary):
    reference = staticmethod(lambda x, y: _xlogy(x, y, np.log))
    # as jax's: log(y) and x / y (so 0 in y where x == 0)
    def partials(self, x, y, out): return [ew.log(y), ew.divide(x, y)]


class Xlog1py(SpecialBinary):
    reference = staticmethod(lambda x, y: _xlogy(x, y, np.log1p))
    def partials(self, x, y, out): return [ew.log1p(y), ew.divide(x, ew.add(y, 1))]


# --- builders -------------------------------------------------------------
erfc = elemwise_builder(Erfc, "erfc", "Complementary error function 1 - erf(x), as scipy.special.erfc.")
erfcx = elemwise_builder(Erfcx, "erfcx", "Scaled complementary error function exp(x**2) erfc(x), as scipy.special.erfcx.")
erfinv = elemwise_builder(Erfinv, "erfinv", "Inverse error function, as scipy.special.erfinv.")
gammaln = elemwise_builder(Gammaln, "gammaln", "log|Gamma(x)| (inf at poles), as scipy.special.gammaln.")
digamma = psi = elemwise_builder(Digamma, "digamma", "Digamma psi(x) = d/dx log Gamma(x), as scipy.special.digamma.")
softplus = elemwise_builder(Softplus, "softplus", "log(1 + exp(x)) without overflow.")
log1mexp = elemwise_builder(Log1mexp, "log1mexp", "log(1 - exp(x)) for x <= 0, accurate near 0 and at -inf.")
i0e = elemwise_builder(I0e, "i0e", "exp(-|x|) I0(x), as scipy.special.i0e.")
i1e = elemwise_builder(I1e, "i1e", "exp(-|x|) I1(x), as scipy.special.i1e.")
ndtr = elemwise_builder(Ndtr, "ndtr", "Standard normal CDF, as scipy.special.ndtr.")
ndtri = elemwise_builder(Ndtri, "ndtri", "Inverse of the standard normal CDF, as scipy.special.ndtri.")
log_ndtr = elemwise_builder(LogNdtr, "log_ndtr", "log of the standard normal CDF, accurate in both tails, "
                  "as scipy.special.log_ndtr.")
xlogy = elemwise_builder(Xlogy, "xlogy", "x * log(y), 0 where x == 0, as scipy.special.xlogy.")
xlog1py = elemwise_builder(Xlog1py, "xlog1py", "x * log1p(y), 0 where x == 0, as scipy.special.xlog1py.")
gammainc = elemwise_builder(Gammainc, "gammainc", "Regularized lower incomplete gamma function P(a, x), "
                   "as scipy.special.gammainc.")
gammaincc = elemwise_builder(Gammaincc, "gammaincc", "Regularized upper incomplete gamma function Q(a, x), "
                    "as scipy.special.gammaincc.")
gammaincinv = elemwise_builder(Gammaincinv, "gammaincinv", "Inverse of the regularized lower incomplete "
                     "gamma function in x, as scipy.special.gammaincinv.")
gammainccinv = elemwise_builder(Gammainccinv, "gammainccinv", "Inverse of the regularized upper incomplete "
                      "gamma function in x, as scipy.special.gammainccinv.")
ive = elemwise_builder(Ive, "ive", "exp(-|x|) I_v(x) for real order v, as scipy.special.ive.")
kve = elemwise_builder(Kve, "kve", "exp(x) K_v(x) for real order v, as scipy.special.kve.")
_polygamma = Polygamma()
_betainc = Betainc()
_betaincinv = Betaincinv()


def betainc(a: Any, b: Any, x: Any) -> Variable:
    """Regularized incomplete beta function I_x(a, b), as scipy.special.betainc."""
    return apply_elemwise(_betainc, a, b, x)


def betaincinv(a: Any, b: Any, y: Any) -> Variable:
    """x with betainc(a, b, x) == y, as scipy.special.betaincinv."""
    return apply_elemwise(_betaincinv, a, b, y)


def polygamma(n: Any, x: Any) -> Variable:
    """n-th derivative of digamma at x (n a non-negative integer), as scipy.special.polygamma."""
    dt = Polygamma.loop_dtypes(result_type(n, x))[0]
    return _polygamma(as_variable(n, dt), as_variable(x, dt))


def trigamma(x: Any) -> Variable:
    """polygamma(1, x)."""
    return polygamma(1, x)
