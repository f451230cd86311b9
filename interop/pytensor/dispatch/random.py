"""Random variables (``pytensor.tensor.random``): PyTensor's ``RandomVariable`` Ops
on hlograph's counter-based random family (``frontend/ops/random.py``).

The design, end to end:

- A random generator is a NumPy ``Generator`` in PyTensor (the value of a shared
  ``RandomGeneratorType`` variable, or an explicit input). In the hlograph graph
  it is a ``uint32[2]`` key (``convert.input_type``). Before each call the linker
  derives the key from the Generator's state (``key_of``: a hash of it; the
  caller's Generator is never advanced: a function without
  ``updates`` gives the same draws on every call, as PyTensor's non-in-place
  random variables do).
- A ``RandomVariable`` node ``(rng, size, *params) -> (next_rng, draws)`` becomes
  ``split(key, 2)``: key 0 is ``next_rng``, key 1 draws through hlograph's samplers
  (``normal``, ``uniform``, ``gamma``, ``beta``, ``dirichlet``, ``bernoulli``,
  ``categorical``, ``integers``, ``permutation``), transformations of them
  (half-normal, log-normal, exponential, Cauchy, Gumbel, Laplace, logistic,
  inverse gamma, Student's t, Pareto, Weibull, triangular, Wald, geometric,
  multivariate normal through a Cholesky factor) and elementwise rejection loops
  (``_until_all``: Poisson, binomial, von Mises as NumPy and jax draw them; negative
  binomial as a Poisson-gamma mixture; multinomial as conditional binomials).
- An output of generator type (the ``next_rng`` of ``updates={rng: next_rng}``,
  what ``RandomStream`` sets up) comes back as a key; the linker turns it into a new
  Generator (``generator_of``: NumPy's default generator seeded by the key words),
  which PyTensor stores in the shared variable. The next call derives a new key
  from it: repeated calls give new draws, the same sequence for the same seed.
- A random variable with no hlograph sampler (hypergeometric, choice without
  replacement, ...) or whose sample shape is known only at run time (or whose
  parameters do not fit its ``size``: that error is raised there, at run time) runs
  PyTensor's own ``perform`` on the host (``RandomPerform``) with a NumPy Generator
  seeded by its key, still inside the compiled function (``FallbackWarning`` once
  per Op class).

The draws follow PyTensor's distributions; the bits differ from NumPy's (XLA's
Threefry generator on a device), so tests compare moments and distributions.

That is the ``rng="keys"`` setting of the mode (the default on GPU and TPU). With
``rng="numpy"`` (the default on the CPU) a Generator is its PCG64 state instead
(``STATE_TYPE``, ``state_of``/``generator_of_state``), and each random variable runs
its PyTensor ``perform`` on the host with that Generator (``NumpyDraw``): the same
numbers, and the same next state, as PyTensor's C, Python and NUMBA backends.
"""

from __future__ import annotations

import copy

import numpy as np
import pytensor.tensor.random.basic as ptr
from pytensor.tensor.random.op import RandomVariable

from ....frontend import builders as hb
from ....frontend.graph import Apply, Constant, Op, Variable
from ....frontend.ops import random as hr
from ....frontend.types import TensorType
from ....runtime.host import segment as _segment
from ..convert import NotConvertible, NotStatic, _static_python, cast, hlograph_convert, hlograph_type
from ..convert import run_pytensor_node

__all__ = ["key_of", "generator_of", "RandomPerform", "SAMPLERS", "STATE_TYPE", "state_of",
           "generator_of_state", "NumpyDraw"]


# --- Generator <-> key ---------------------------------------------------------------------
_MASK64 = (1 << 64) - 1


def _mix64(x: int) -> int:
    """SplitMix64's finalizer: a bijection of 64-bit words that spreads every input bit."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def key_of(generator: np.random.Generator) -> np.ndarray:
    """The ``uint32[2]`` key of a NumPy Generator, a function of its state (``generator``
    itself does not advance): for PCG64 (NumPy's default) a hash of the state words,
    otherwise two words drawn from a copy of it."""
    if not isinstance(generator, np.random.Generator):
        raise TypeError(f"expected a numpy.random.Generator for a random generator input, "
                        f"got {type(generator).__name__}")
    st = generator.bit_generator.state
    inner = st.get("state")
    if isinstance(inner, dict) and isinstance(inner.get("state"), int) and isinstance(inner.get("inc"), int):
        h = _mix64(int(st.get("uinteger", 0)) * 2 + int(st.get("has_uint32", 0)))
        for word in (inner["inc"] >> 64, inner["inc"], inner["state"] >> 64, inner["state"]):
            h = _mix64(h ^ (word & _MASK64))
        return np.array([h >> 32, h & 0xFFFFFFFF], dtype=np.uint32)
    return copy.deepcopy(generator).integers(0, 2**32, size=2, dtype=np.uint32)


def generator_of(key: np.ndarray) -> np.random.Generator:
    """A new NumPy Generator for a ``uint32[2]`` key (the next state of a generator)."""
    k = np.asarray(key, dtype=np.uint32).reshape(-1)
    return np.random.default_rng([int(k[0]), int(k[1])])


# --- Generator <-> state (rng="numpy") ------------------------------------------------------
#: the hlograph type of a NumPy PCG64 Generator's state: the 128-bit state and increment
#: (high word first), then ``has_uint32 << 32 | uinteger``
STATE_TYPE = TensorType(np.dtype(np.uint64), (5,))


def state_of(generator: np.random.Generator) -> np.ndarray:
    """The ``uint64[5]`` state of a NumPy Generator on PCG64 (NumPy's default), for the
    ``rng="numpy"`` setting (``generator`` itself does not advance)."""
    if not isinstance(generator, np.random.Generator):
        raise TypeError(f"expected a numpy.random.Generator for a random generator input, "
                        f"got {type(generator).__name__}")
    st = generator.bit_generator.state
    if st.get("bit_generator") != "PCG64":
        raise TypeError(f"the HLOGRAPH mode draws NumPy's numbers from a PCG64 Generator (NumPy's "
                        f"default), got a Generator on {st.get('bit_generator')}: use "
                        f"numpy.random.default_rng, or hlograph.interop.pytensor.mode(rng='keys')")
    s, inc = st["state"]["state"], st["state"]["inc"]
    return np.array([s >> 64, s & _MASK64, inc >> 64, inc & _MASK64,
                     (int(st["has_uint32"]) << 32) | int(st["uinteger"])], dtype=np.uint64)


def generator_of_state(state: np.ndarray) -> np.random.Generator:
    """The NumPy Generator (PCG64) in ``state`` (a ``state_of`` value)."""
    w = [int(x) for x in np.asarray(state, dtype=np.uint64).reshape(-1)]
    bits = copy.copy(_PCG64)
    bits.state = {"bit_generator": "PCG64", "state": {"state": (w[0] << 64) | w[1], "inc": (w[2] << 64) | w[3]},
                  "has_uint32": w[4] >> 32, "uinteger": w[4] & 0xFFFFFFFF}
    return np.random.Generator(bits)


_PCG64 = np.random.PCG64(0)  # copied (no entropy drawn) and given a state


# --- the samplers ----------------------------------------------------------------------------
def _uniform_open(k, shape, dtype):
    """Uniform floats in (0, 1)."""
    tiny = float(np.finfo(dtype).tiny)
    return hr.uniform(k, shape, dtype, tiny, 1.0)


def _std_normal(k, shape, dtype):
    return hr.normal(k, shape, dtype, 0.0, 1.0)


def _affine(loc, scale, z):
    return hb.add(loc, hb.multiply(scale, z))


def _normal(k, shape, dtype, loc, scale):
    return hr.normal(k, shape, dtype, loc, scale)


def _uniform(k, shape, dtype, low, high):
    return hr.uniform(k, shape, dtype, low, high)


def _halfnormal(k, shape, dtype, loc, scale):
    return _affine(loc, scale, hb.abs(_std_normal(k, shape, dtype)))


def _lognormal(k, shape, dtype, mean, sigma):
    return hb.exp(hr.normal(k, shape, dtype, mean, sigma))


def _exponential(k, shape, dtype, scale):
    u = hr.uniform(k, shape, dtype, 0.0, 1.0)
    return hb.multiply(scale, hb.negative(hb.log1p(hb.negative(u))))


def _gamma(k, shape, dtype, a, scale):
    return hb.multiply(hr.gamma(k, a, shape, dtype), scale)


def _invgamma(k, shape, dtype, a, scale):
    return hb.divide(scale, hr.gamma(k, a, shape, dtype))


def _beta(k, shape, dtype, a, b):
    return hr.beta(k, a, b, shape, dtype)


def _dirichlet(k, shape, dtype, alpha):
    if alpha.shape[-1] is None:
        raise NotStatic("the number of categories of a Dirichlet is known only at run time")
    return hr.dirichlet(k, alpha, shape, dtype)


def _cauchy(k, shape, dtype, loc, scale):
    u = _uniform_open(k, shape, dtype)
    return _affine(loc, scale, hb.tan(hb.multiply(np.pi, hb.subtract(u, 0.5))))


def _halfcauchy(k, shape, dtype, loc, scale):
    u = _uniform_open(k, shape, dtype)
    return _affine(loc, scale, hb.tan(hb.multiply(np.pi / 2, u)))


def _gumbel(k, shape, dtype, loc, scale):
    u = _uniform_open(k, shape, dtype)
    return hb.subtract(loc, hb.multiply(scale, hb.log(hb.negative(hb.log(u)))))


def _laplace(k, shape, dtype, loc, scale):
    u = hb.subtract(_uniform_open(k, shape, dtype), 0.5)
    return hb.subtract(loc, hb.multiply(hb.multiply(scale, hb.sign(u)),
                                        hb.log1p(hb.multiply(-2.0, hb.abs(u)))))


def _logistic(k, shape, dtype, loc, scale):
    u = _uniform_open(k, shape, dtype)
    return _affine(loc, scale, hb.subtract(hb.log(u), hb.log1p(hb.negative(u))))


def _student_t(k, shape, dtype, df, loc, scale):
    keys = hr.split(k, 2)
    z = _std_normal(hb.getitem(keys, 0), shape, dtype)
    chi2 = hb.multiply(2.0, hr.gamma(hb.getitem(keys, 1), hb.multiply(df, 0.5), shape, dtype))
    return _affine(loc, scale, hb.divide(z, hb.sqrt(hb.divide(chi2, df))))


def _bernoulli(k, shape, dtype, p):
    return hr.bernoulli(k, p, shape)


def _categorical(k, shape, dtype, p):
    if p.shape[-1] is None:
        raise NotStatic("the number of categories is known only at run time")
    logits = hb.broadcast_to(hb.log(p), tuple(shape) + (p.shape[-1],))  # size-1 batch dims of p
    return hr.categorical(k, logits, axis=-1, shape=shape)


def _integers(k, shape, dtype, low, high):
    return hr.integers(k, low, high, shape, dtype)


def _mvnormal(k, shape, dtype, mean, cov, method="cholesky"):
    """``mean + A z`` with ``A A^T = cov`` as PyTensor's ``method`` makes A: the lower
    Cholesky factor, or from the SVD (``u sqrt(s)``) or the eigendecomposition
    (``v sqrt(w)``), which also take positive semi-definite (singular) covariances."""
    n = cov.shape[-1]
    if n is None:
        raise NotStatic("the dimension of a multivariate normal is known only at run time")
    z = _std_normal(k, tuple(shape) + (n,), dtype)
    if method == "svd":
        u, s, _ = hb.svd(cov)
        factor = hb.multiply(u, hb.expand_dims(hb.sqrt(s), -2))
    elif method == "eigh":
        w, v = hb.eigh(cov)
        factor = hb.multiply(v, hb.expand_dims(hb.sqrt(hb.maximum(w, 0.0)), -2))
    else:
        factor = hb.cholesky(cov)  # lower
    return hb.add(mean, hb.matvec(factor, z))


def _geometric(k, shape, dtype, p):
    """Trials to the first success: ``ceil(log(u) / log1p(-p))``, at least 1."""
    u = _uniform_open(k, shape, "float64")
    n = hb.ceil(hb.divide(hb.log(u), hb.log1p(hb.negative(p))))
    return hb.astype(hb.maximum(n, 1.0), dtype)


def _pareto(k, shape, dtype, b, scale):
    """SciPy's Pareto (support ``x >= scale``): ``scale * u ** (-1 / b)``."""
    u = _uniform_open(k, shape, dtype)
    return hb.multiply(scale, hb.exp(hb.divide(hb.negative(hb.log(u)), b)))


def _weibull(k, shape, dtype, a):
    """NumPy's Weibull: ``(-log(u)) ** (1 / a)``."""
    u = _uniform_open(k, shape, dtype)
    return hb.power(hb.negative(hb.log(u)), hb.divide(1.0, a))


def _triangular(k, shape, dtype, left, mode, right):
    """The inverse of the triangular CDF at a uniform draw."""
    u = hr.uniform(k, shape, dtype, 0.0, 1.0)
    width = hb.subtract(right, left)
    fc = hb.divide(hb.subtract(mode, left), width)
    lo = hb.add(left, hb.sqrt(hb.multiply(hb.multiply(u, width), hb.subtract(mode, left))))
    hi = hb.subtract(right, hb.sqrt(hb.multiply(hb.multiply(hb.subtract(1.0, u), width),
                                                hb.subtract(right, mode))))
    return hb.where(hb.less(u, fc), lo, hi)


def _wald(k, shape, dtype, mean, scale):
    """The inverse Gaussian by Michael, Schucany and Haas's transformation (NumPy's)."""
    keys = hr.split(k, 2)
    y = hb.multiply(mean, hb.square(_std_normal(hb.getitem(keys, 0), shape, dtype)))
    x = hb.add(mean, hb.multiply(hb.divide(mean, hb.multiply(2.0, scale)),
                                 hb.subtract(y, hb.sqrt(hb.add(hb.multiply(hb.multiply(4.0, scale), y),
                                                               hb.square(y))))))
    u = hr.uniform(hb.getitem(keys, 1), shape, dtype, 0.0, 1.0)
    return hb.where(hb.less_equal(u, hb.divide(mean, hb.add(mean, x))), x,
                    hb.divide(hb.square(mean), x))


# --- parameter checks: NumPy raises ValueError for these, so does the compiled function ---
def _poisson_valid(lam):
    return hb.logical_and(hb.greater_equal(lam, 0.0), hb.less(lam, 1e18))


def _binomial_valid(n, p):
    return hb.logical_and(hb.greater_equal(n, 0), hb.logical_and(hb.greater_equal(p, 0.0), hb.less_equal(p, 1.0)))


def _negative_binomial_valid(n, p):
    return hb.logical_and(hb.greater(n, 0), hb.logical_and(hb.greater(p, 0.0), hb.less_equal(p, 1.0)))


def _vonmises_valid(mu, kappa):
    return hb.logical_and(hb.greater_equal(kappa, 0.0), hb.logical_not(hb.isnan(mu)))


def _multinomial_valid(n, p):
    return hb.logical_and(hb.greater_equal(n, 0),
                          hb.all(hb.logical_and(hb.greater_equal(p, 0.0), hb.less_equal(p, 1.0)), axis=-1))


def _geometric_valid(p):
    return hb.logical_and(hb.greater(p, 0.0), hb.less_equal(p, 1.0))


#: random variable class -> (the parameters are valid, the message of the ValueError)
_CHECKS = {
    ptr.PoissonRV: (_poisson_valid, "poisson: lam must be >= 0, finite and below 1e18 (not NaN)"),
    ptr.BinomialRV: (_binomial_valid, "binomial: n must be >= 0 and p in [0, 1] (not NaN)"),
    ptr.NegBinomialRV: (_negative_binomial_valid, "negative_binomial: n must be > 0 and p in (0, 1] (not NaN)"),
    ptr.VonMisesRV: (_vonmises_valid, "vonmises: kappa must be >= 0 and mu not NaN"),
    ptr.MultinomialRV: (_multinomial_valid, "multinomial: n must be >= 0 and each p in [0, 1] (not NaN)"),
    ptr.GeometricRV: (_geometric_valid, "geometric: p must be in (0, 1] (not NaN)"),
}


def _until_all(k, shape, vals, step):
    """Elementwise rejection sampling: ``step(key, vals) -> (new vals, accepted)`` runs
    on fresh keys until every element has accepted once; an element keeps the values of
    the round it accepted in."""
    shape = tuple(shape)
    vals = [hb.broadcast_to(v, shape) for v in vals]

    def cond(key, done, *vs):
        return hb.logical_not(hb.all(done))

    def body(key, done, *vs):
        keys = hr.split(key, 2)
        new, ok = step(hb.getitem(keys, 1), list(vs))
        out = [hb.where(done, v, hb.astype(hb.broadcast_to(n, shape), v.dtype)) for v, n in zip(vs, new)]
        return [hb.getitem(keys, 0), hb.logical_or(done, hb.broadcast_to(ok, shape)), *out]

    done0 = hb.full(shape, False, dtype="bool")
    return hb.while_loop(cond, body, [k, done0, *vals])[2:]


_PTRS_MIN = 10.0  # Poisson means from which the transformed rejection method is used


def _poisson(k, shape, dtype, lam):
    """NumPy's Poisson algorithms, elementwise: multiplying uniforms below ``exp(-lam)``
    for a small mean, Hörmann's transformed rejection (PTRS) from a mean of 10."""
    shape = tuple(shape)
    lam = hb.broadcast_to(hb.astype(lam, "float64"), shape)
    lam = hb.where(_poisson_valid(lam), lam, 0.0)  # invalid means (an error) stop the loops
    small = hb.less(lam, _PTRS_MIN)
    k1, k2 = (hb.getitem(hr.split(k, 2), i) for i in range(2))
    enlam = hb.exp(hb.negative(hb.where(small, lam, 0.0)))

    def mult_step(key, vs):  # one uniform factor per round
        x, prod = vs
        prod = hb.multiply(prod, hr.uniform(key, shape, "float64", 0.0, 1.0))
        stop = hb.less_equal(prod, enlam)
        return [hb.where(stop, x, hb.add(x, 1.0)), prod], stop

    x_small, _ = _until_all(k1, shape, [hb.zeros(shape, "float64"), hb.ones(shape, "float64")], mult_step)

    big = hb.maximum(lam, _PTRS_MIN)
    slam, loglam = hb.sqrt(big), hb.log(big)
    b = hb.add(0.931, hb.multiply(2.53, slam))
    a = hb.add(-0.059, hb.multiply(0.02483, b))
    invalpha = hb.add(1.1239, hb.divide(1.1328, hb.subtract(b, 3.4)))
    vr = hb.subtract(0.9277, hb.divide(3.6224, hb.subtract(b, 2.0)))

    def ptrs_step(key, vs):
        ka, kb = (hb.getitem(hr.split(key, 2), i) for i in range(2))
        u = hb.subtract(hr.uniform(ka, shape, "float64", 0.0, 1.0), 0.5)
        v = hr.uniform(kb, shape, "float64", 0.0, 1.0)
        us = hb.subtract(0.5, hb.abs(u))
        kk = hb.floor(hb.add(hb.multiply(hb.add(hb.divide(hb.multiply(2.0, a), us), b), u),
                             hb.add(big, 0.43)))
        quick = hb.logical_and(hb.greater_equal(us, 0.07), hb.less_equal(v, vr))
        reject = hb.logical_or(hb.less(kk, 0.0), hb.logical_and(hb.less(us, 0.013), hb.greater(v, us)))
        lhs = hb.subtract(hb.add(hb.log(v), hb.log(invalpha)),
                          hb.log(hb.add(hb.divide(a, hb.square(us)), b)))
        rhs = hb.subtract(hb.add(hb.negative(big), hb.multiply(kk, loglam)),
                          hb.gammaln(hb.add(hb.maximum(kk, 0.0), 1.0)))
        ok = hb.logical_or(quick, hb.logical_and(hb.logical_not(reject), hb.less_equal(lhs, rhs)))
        return [kk], ok

    (x_big,) = _until_all(k2, shape, [hb.zeros(shape, "float64")], ptrs_step)
    x = hb.where(small, x_small, x_big)
    return hb.astype(hb.where(hb.greater(lam, 0.0), x, 0.0), dtype)


_BTRS_MIN = 10.0  # binomial means from which the transformed rejection method is used


def _binomial(k, shape, dtype, n, p):
    """Binomial draws, elementwise as jax's: with ``q = min(p, 1 - p)`` (the draw of ``p > 0.5``
    is ``n`` minus that of ``1 - p``), counting geometric waiting times while
    ``n * q < 10``, else Hörmann's transformed rejection (BTRS), accepting on the exact
    log-ratio of probabilities."""
    shape = tuple(shape)
    n = hb.broadcast_to(hb.astype(n, "float64"), shape)
    p = hb.broadcast_to(hb.astype(p, "float64"), shape)
    valid = _binomial_valid(n, p)  # invalid parameters (an error) stop the loops
    n, p = hb.where(valid, n, 0.0), hb.where(valid, p, 0.0)
    flip = hb.greater(p, 0.5)
    q = hb.where(flip, hb.subtract(1.0, p), p)
    small = hb.less(hb.multiply(n, q), _BTRS_MIN)
    k1, k2 = (hb.getitem(hr.split(k, 2), i) for i in range(2))

    # inversion: the number of geometric waiting times (in trials) that fit in n
    log1mq = hb.log1p(hb.negative(hb.where(small, q, 0.5)))

    def wait_step(key, vs):
        count, total = vs
        u = _uniform_open(key, shape, "float64")
        total = hb.add(total, hb.add(hb.floor(hb.divide(hb.log(u), log1mq)), 1.0))
        stop = hb.greater(total, n)
        return [hb.where(stop, count, hb.add(count, 1.0)), total], stop

    x_small, _ = _until_all(k1, shape, [hb.zeros(shape, "float64"), hb.zeros(shape, "float64")], wait_step)

    nb = hb.where(small, hb.maximum(n, 40.0), n)  # parameters valid for BTRS where it is not used
    qb = hb.where(small, 0.5, q)
    sd = hb.sqrt(hb.multiply(hb.multiply(nb, qb), hb.subtract(1.0, qb)))
    b = hb.add(1.15, hb.multiply(2.53, sd))
    a = hb.add(hb.add(-0.0873, hb.multiply(0.0248, b)), hb.multiply(0.01, qb))
    c = hb.add(hb.multiply(nb, qb), 0.5)
    vr = hb.subtract(0.92, hb.divide(4.2, b))
    alpha = hb.multiply(hb.add(2.83, hb.divide(5.1, b)), sd)
    m = hb.floor(hb.multiply(hb.add(nb, 1.0), qb))
    logr = hb.subtract(hb.log(qb), hb.log1p(hb.negative(qb)))
    log_fm = hb.negative(hb.add(hb.gammaln(hb.add(m, 1.0)), hb.gammaln(hb.add(hb.subtract(nb, m), 1.0))))

    def btrs_step(key, vs):
        ka, kb = (hb.getitem(hr.split(key, 2), i) for i in range(2))
        u = hb.subtract(hr.uniform(ka, shape, "float64", 0.0, 1.0), 0.5)
        v = hr.uniform(kb, shape, "float64", 0.0, 1.0)
        us = hb.subtract(0.5, hb.abs(u))
        kk = hb.floor(hb.add(hb.multiply(hb.add(hb.divide(hb.multiply(2.0, a), us), b), u), c))
        quick = hb.logical_and(hb.greater_equal(us, 0.07), hb.less_equal(v, vr))
        reject = hb.logical_or(hb.less(kk, 0.0), hb.greater(kk, nb))
        ks = hb.clip(kk, 0.0, nb)
        lhs = hb.log(hb.divide(hb.multiply(v, alpha), hb.add(hb.divide(a, hb.square(us)), b)))
        log_fk = hb.negative(hb.add(hb.gammaln(hb.add(ks, 1.0)), hb.gammaln(hb.add(hb.subtract(nb, ks), 1.0))))
        rhs = hb.add(hb.subtract(log_fk, log_fm), hb.multiply(hb.subtract(ks, m), logr))
        ok = hb.logical_or(quick, hb.logical_and(hb.logical_not(reject), hb.less_equal(lhs, rhs)))
        return [kk], ok

    (x_big,) = _until_all(k2, shape, [hb.zeros(shape, "float64")], btrs_step)
    x = hb.where(small, x_small, x_big)
    x = hb.where(flip, hb.subtract(n, x), x)
    return hb.astype(x, dtype)


def _multinomial(k, shape, dtype, n, p):
    """NumPy's multinomial: category ``i`` draws ``Binomial(left, p_i / (p_i + ... + p_K))``
    of the ``left`` trials the categories before it did not take; the last takes the rest."""
    n_cat = p.shape[-1]
    if n_cat is None:
        raise NotStatic("the number of categories of a multinomial is known only at run time")
    shape = tuple(shape)
    p = hb.broadcast_to(p, shape + (n_cat,))
    left = hb.broadcast_to(hb.astype(n, "float64"), shape)
    mass = hb.ones(shape, "float64")
    keys = hr.split(k, max(n_cat - 1, 1))
    counts = []
    for i in range(n_cat - 1):
        pi = hb.getitem(p, (Ellipsis, i))
        ratio = hb.clip(hb.divide(pi, hb.maximum(mass, np.finfo(np.float64).tiny)), 0.0, 1.0)
        x = _binomial(hb.getitem(keys, i), shape, "float64", left, ratio)
        counts.append(x)
        left = hb.subtract(left, x)
        mass = hb.subtract(mass, pi)
    counts.append(left)
    return hb.astype(hb.stack(counts, axis=-1), dtype)


def _vonmises(k, shape, dtype, mu, kappa):
    """NumPy's von Mises sampler, elementwise: Best and Fisher's rejection method (a
    uniform angle for ``kappa < 1e-8``, a wrapped normal from ``kappa > 1e6``), the angle
    shifted by ``mu`` into ``[-pi, pi]``."""
    shape = tuple(shape)
    kappa = hb.broadcast_to(hb.astype(kappa, "float64"), shape)
    kappa = hb.where(_vonmises_valid(mu, kappa), kappa, 1.0)  # an invalid kappa (an error) stops the loop
    mu = hb.broadcast_to(hb.astype(mu, "float64"), shape)
    ka, kb, kc = (hb.getitem(hr.split(k, 3), i) for i in range(3))
    kap = hb.clip(kappa, 1e-8, 1e6)  # parameters valid where the rejection method is used
    r = hb.add(1.0, hb.sqrt(hb.add(1.0, hb.multiply(4.0, hb.square(kap)))))
    rho = hb.divide(hb.subtract(r, hb.sqrt(hb.multiply(2.0, r))), hb.multiply(2.0, kap))
    s = hb.where(hb.less(kappa, 1e-5), hb.add(hb.divide(1.0, kap), kap),
                 hb.divide(hb.add(1.0, hb.square(rho)), hb.multiply(2.0, rho)))

    def step(key, vs):
        k1, k2 = (hb.getitem(hr.split(key, 2), i) for i in range(2))
        z = hb.cos(hb.multiply(np.pi, hr.uniform(k1, shape, "float64", 0.0, 1.0)))
        w = hb.divide(hb.add(1.0, hb.multiply(s, z)), hb.add(s, z))
        y = hb.multiply(kap, hb.subtract(s, w))
        v = hr.uniform(k2, shape, "float64", 0.0, 1.0)
        ok = hb.logical_or(hb.greater_equal(hb.subtract(hb.multiply(y, hb.subtract(2.0, y)), v), 0.0),
                           hb.greater_equal(hb.add(hb.log(hb.divide(y, v)), hb.subtract(1.0, y)), 0.0))
        return [w], ok

    (w,) = _until_all(ka, shape, [hb.zeros(shape, "float64")], step)
    u = hr.uniform(kb, shape, "float64", 0.0, 1.0)
    angle = hb.arccos(hb.clip(w, -1.0, 1.0))
    angle = hb.where(hb.less(u, 0.5), hb.negative(angle), angle)
    angle = hb.where(hb.less(kappa, 1e-8), hb.multiply(np.pi, hb.subtract(hb.multiply(2.0, u), 1.0)), angle)
    wrapped = hb.multiply(hb.sqrt(hb.divide(1.0, hb.maximum(kappa, 1e6))), _std_normal(kc, shape, "float64"))
    angle = hb.where(hb.greater(kappa, 1e6), wrapped, angle)
    # shifted by mu and brought back into [-pi, pi] keeping the sign (NumPy's fmod)
    res = hb.add(angle, mu)
    mod = hb.subtract(hb.fmod(hb.add(hb.abs(res), np.pi), 2 * np.pi), np.pi)
    return hb.astype(hb.where(hb.less(res, 0.0), hb.negative(mod), mod), dtype)


def _negative_binomial(k, shape, dtype, n, p):
    """NumPy's negative binomial: Poisson draws with Gamma(n, (1 - p) / p) means."""
    keys = hr.split(k, 2)
    shape = tuple(shape)
    valid = _negative_binomial_valid(n, p)  # invalid parameters (an error) stop the loops
    n, p = hb.where(valid, n, 1.0), hb.where(valid, p, 1.0)
    rate = hb.multiply(hr.gamma(hb.getitem(keys, 0), hb.broadcast_to(n, shape), shape, "float64"),
                       hb.divide(hb.subtract(1.0, p), p))
    return _poisson(hb.getitem(keys, 1), shape, dtype, rate)


#: PyTensor RandomVariable class -> sampler(key, batch shape, dtype, *params)
SAMPLERS = {
    ptr.NormalRV: _normal,
    ptr.UniformRV: _uniform,
    ptr.HalfNormalRV: _halfnormal,
    ptr.LogNormalRV: _lognormal,
    ptr.ExponentialRV: _exponential,
    ptr.GammaRV: _gamma,
    ptr.InvGammaRV: _invgamma,
    ptr.BetaRV: _beta,
    ptr.DirichletRV: _dirichlet,
    ptr.CauchyRV: _cauchy,
    ptr.HalfCauchyRV: _halfcauchy,
    ptr.GumbelRV: _gumbel,
    ptr.LaplaceRV: _laplace,
    ptr.LogisticRV: _logistic,
    ptr.StudentTRV: _student_t,
    ptr.BernoulliRV: _bernoulli,
    ptr.CategoricalRV: _categorical,
    ptr.IntegersRV: _integers,
    ptr.MvNormalRV: _mvnormal,
    ptr.GeometricRV: _geometric,
    ptr.ParetoRV: _pareto,
    ptr.WeibullRV: _weibull,
    ptr.TriangularRV: _triangular,
    ptr.WaldRV: _wald,
    ptr.PoissonRV: _poisson,
    ptr.NegBinomialRV: _negative_binomial,
    ptr.BinomialRV: _binomial,
    ptr.MultinomialRV: _multinomial,
    ptr.VonMisesRV: _vonmises,
}

#: random variables whose parameters keep their integer dtypes (the parameters of the
#: others are cast to the draw's float dtype, or to float64 for probabilities)
_INT_PARAMS = (ptr.IntegersRV,)


def _batch_shape(op, node, size, params, ctx) -> tuple[int, ...]:
    """The static sample (batch) shape: ``size``, else the broadcast batch shapes of the
    parameters."""
    if size is not None:
        dims = ctx.static_ints(size)
        if dims is None:
            raise NotStatic("the size of the draw is known only at run time")
        return tuple(dims)
    out = node.outputs[1].type.shape
    batch_nd = len(out) - op.ndim_supp
    if None not in out[:batch_nd]:
        return tuple(out[:batch_nd])
    shapes = []
    for p, core in zip(params, op.ndims_params):
        s = p.shape[:p.ndim - core]
        if None in s:
            ctx.mark_shape_dependent()
            raise NotStatic("the shape of the draw is known only at run time")
        shapes.append(s)
    return tuple(np.broadcast_shapes(*shapes)) if shapes else ()


class ParameterShapeError(ValueError):
    """A parameter's batch shape does not broadcast to the ``size`` of the draw."""


def check_batch_shapes(shape: tuple[int, ...], params, ndims_params) -> None:
    """Raises ``ParameterShapeError`` naming the first parameter whose batch dims (all but
    its core dims) do not broadcast to the sample shape ``shape``."""
    for i, (p, core) in enumerate(zip(params, ndims_params)):
        batch = tuple(p.shape[:len(p.shape) - core])
        if len(batch) > len(shape):
            raise ParameterShapeError(f"Vectorized input {i} has {len(batch)} batch dimensions, more than "
                                      f"the {len(shape)} of the size {shape}.")
        for ax, (d, want) in enumerate(zip(batch, shape[len(shape) - len(batch):])):
            if d is not None and d != 1 and d != want:
                raise ParameterShapeError(f"Vectorized input {i} has an incompatible shape in axis "
                                          f"{ax + len(shape) - len(batch)}.")


def _draw(op, node, k, size, params, ctx) -> Variable:
    sampler = SAMPLERS.get(type(op))
    if isinstance(op, ptr.PermutationRV):
        (x,) = params
        if size is not None and ctx.static_ints(size) != ():
            raise NotConvertible("a batch of permutations")
        batch = x.ndim - op.ndims_params[0]
        if batch > 0:  # each batch member shuffled along its own (core) axis
            if any(d is None for d in x.shape[:batch + 1]):
                raise NotStatic("the shape of a batch of permutations is known only at run time")
            order = hb.argsort(hr.uniform(k, x.shape[:batch + 1], "float64"), axis=batch)
            order = hb.reshape(order, tuple(order.shape) + (1,) * (x.ndim - batch - 1))
            return hb.take_along_axis(x, hb.broadcast_to(order, x.shape), axis=batch)
        if x.ndim:
            return hr.permutation(k, x)  # x shuffled along its first axis
        n = ctx.static_int(x)
        if n is None:
            raise NotStatic("the length of the permutation is known only at run time")
        return hr.permutation(k, n)
    if sampler is None:
        raise NotConvertible(f"hlograph has no sampler for {type(op).__name__}")
    dtype = node.outputs[1].type.dtype
    shape = _batch_shape(op, node, size, params, ctx)
    check_batch_shapes(shape, params, op.ndims_params)
    if np.dtype(dtype).kind == "f":
        params = [cast(p, dtype) for p in params]
    elif not isinstance(op, _INT_PARAMS):  # bernoulli, categorical: float probabilities
        params = [p if np.dtype(p.dtype).kind == "f" else cast(p, "float64") for p in params]
    if isinstance(op, ptr.MvNormalRV):  # (its factorization: PyTensor's ``method``)
        value = _mvnormal(k, shape, dtype, *params, method=getattr(op, "method", "cholesky"))
    else:
        value = sampler(k, shape, dtype, *params)
    check = _CHECKS.get(type(op))
    if check is not None:
        valid, msg = check
        ctx.checks[msg] = ValueError
        value = hb.check_and_raise(value, hb.all(valid(*params)), msg)
    return value


@hlograph_convert.register(RandomVariable)
def convert_random_variable(op, node, inputs, ctx):
    """``split(key, 2)``: the next generator and the key of the draw (see the module
    docstring); without a sampler, PyTensor's perform draws with that key."""
    from ..fallback import _warn, op_name
    rng, size, *params = inputs
    if isinstance(rng, Variable) and rng.type == STATE_TYPE:  # rng="numpy": NumPy's own numbers
        params = [p if isinstance(p, Variable) else Constant(np.asarray(p)) for p in params]
        return NumpyDraw.apply(node, rng, size, params)
    if not isinstance(rng, Variable) or rng.type != hr.KEY_TYPE:
        raise NotConvertible("the random generator is not a graph input or a random variable's output")
    keys = hr.split(rng, 2)
    next_key, k = hb.getitem(keys, 0), hb.getitem(keys, 1)
    params = [p if isinstance(p, Variable) else Constant(np.asarray(p)) for p in params]
    try:
        value = _draw(op, node, k, size, params, ctx)
    except (NotConvertible, TypeError, ValueError) as e:
        if ctx.probe and isinstance(e, NotStatic):
            raise  # converted again once the argument shapes are known
        reason = str(e) if isinstance(e, NotConvertible) else f"{type(e).__name__}: {e}"
        name = op_name(op)
        ctx.fallbacks.append((name, reason))
        _warn(name, reason)
        value = RandomPerform.apply(node, k, size, params)
    return [next_key, value]


class _DrawnByPerform(Op):
    """Base of the random variables PyTensor's own ``perform`` draws on the host: the
    node's first input is where the Generator comes from, then the ``size`` (unless it
    is known now: ``fixed_size``) and the parameters."""

    def __init__(self, pt_node, fixed_size, has_size_input: bool):
        self.pt_node = pt_node
        self.fixed_size = fixed_size
        self.has_size_input = has_size_input
        self.name = type(pt_node.op).__name__

    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{self.pt_node.op}}}"

    __repr__ = __str__

    @classmethod
    def _apply(cls, pt_node, source: Variable, size, params: list[Variable]) -> Apply:
        has_size = isinstance(size, Variable)
        if not has_size and not _static_python(size):
            raise NotImplementedError(f"{type(pt_node.op).__name__}: its size {size!r} is not a tensor")
        op = cls(pt_node, None if has_size else size, has_size)
        return op.make_node(source, *([size] if has_size else []), *params)

    def _draws_type(self) -> TensorType:
        out = hlograph_type(self.pt_node.outputs[1].type)
        return TensorType(out.dtype, out.shape)

    def _size_and_params(self, rest: list) -> tuple:
        size, params = (rest[0], rest[1:]) if self.has_size_input else (self.fixed_size, rest)
        return (None if size is None else np.asarray(size, dtype=np.int64)), params


class RandomPerform(_DrawnByPerform):
    """A PyTensor random variable drawn by its own ``perform`` with a NumPy Generator
    seeded by a key (``rng="keys"``, a variable without an hlograph sampler): inputs
    ``[key, *tensor inputs]``, output the draws."""

    def __init__(self, pt_node, fixed_size, has_size_input: bool):
        super().__init__(pt_node, fixed_size, has_size_input)
        self.host_reason = f"runs PyTensor's {self.name}.perform"

    @classmethod
    def apply(cls, pt_node, k: Variable, size, params: list[Variable]) -> Variable:
        return cls._apply(pt_node, k, size, params).outputs[0]

    def make_node(self, k, *inputs) -> Apply:
        return Apply(self, [k, *inputs], [self._draws_type()])

    def perform(self, node, inputs):
        k, *rest = inputs
        size, params = self._size_and_params(rest)
        if size is not None:
            check_batch_shapes(tuple(int(d) for d in size), params, self.pt_node.op.ndims_params)
        gen = hr.numpy_generator(k)
        return [run_pytensor_node(self.pt_node, [gen, size, *params])[1]]


class NumpyDraw(_DrawnByPerform):
    """A PyTensor random variable drawn by its own ``perform`` from the NumPy Generator
    whose state is its first input (``rng="numpy"``): outputs the Generator's next state
    and the draws, the numbers PyTensor's C, Python and NUMBA backends give."""

    host_reason = "draws NumPy's numbers from the Generator's state"

    @classmethod
    def apply(cls, pt_node, state: Variable, size, params: list[Variable]) -> list[Variable]:
        return cls._apply(pt_node, state, size, params).outputs

    def make_node(self, state, *inputs) -> Apply:
        return Apply(self, [state, *inputs], [STATE_TYPE, self._draws_type()])

    def perform(self, node, inputs):
        state, *rest = inputs
        size, params = self._size_and_params(rest)
        next_gen, draws = run_pytensor_node(self.pt_node, [generator_of_state(state), size, *params])
        return [state_of(next_gen), draws]


# hlograph's own warning about Ops run by their perform: FallbackWarning names the
# PyTensor random variable instead
_segment.quiet_python_fallback(RandomPerform)
_segment.quiet_python_fallback(NumpyDraw)
