"""Random variables in the HLOGRAPH mode with ``rng="keys"`` (the default on GPU and
TPU): PyTensor's ``RandomVariable`` Ops on hlograph's random family, random generators
as keys, and their updates. The bits cannot match NumPy's generator: draws are checked
against the distribution (a Kolmogorov-Smirnov test, moments, frequencies) with fixed
seeds, and shapes and dtypes against PyTensor's own mode. (``rng="numpy"``, the CPU's
default: test_pytensor_random_numpy.py.)"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pytensor")
stats = pytest.importorskip("scipy.stats")

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pytensor.tensor.random.type import random_generator_type  # noqa: E402

import hlograph.interop.pytensor as hgpt  # noqa: E402
from hlograph.interop.pytensor.dispatch.random import generator_of, key_of  # noqa: E402
from hlograph.tests.interop.pytensor_helpers import compare_hlograph_and_py, fallbacks_of, py_mode  # noqa: E402,E501

#: the mode these tests compile with: random generators as hlograph keys
KEYS = hgpt.mode(rng="keys")

N = 4000

pytestmark = [pytest.mark.filterwarnings("ignore:RandomVariable Ops will stop hiding:DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Setting default_update is deprecated:DeprecationWarning")]


def _draw(make, seed=0, n_calls=1, allow_fallback=False):
    """Compiles ``make(rng)`` (a random variable) with the HLOGRAPH mode and a shared
    generator updated by each call; returns the draws of ``n_calls`` calls and the
    function."""
    rng = pytensor.shared(np.random.default_rng(seed))
    x = make(rng)
    fn = pytensor.function([], x, updates={rng: x.owner.outputs[0]}, mode=KEYS)
    draws = [fn() for _ in range(n_calls)]
    if not allow_fallback:
        assert not fallbacks_of(fn), fallbacks_of(fn)
    return draws, fn


def _reference(make, seed=0):
    rng = pytensor.shared(np.random.default_rng(seed))
    return pytensor.function([], make(rng), mode=py_mode)()


CONTINUOUS = [
    ("normal", lambda r: pt.random.normal(1.5, 2.0, size=(N,), rng=r), stats.norm(1.5, 2.0)),
    ("uniform", lambda r: pt.random.uniform(-1.0, 3.0, size=(N,), rng=r), stats.uniform(-1.0, 4.0)),
    ("halfnormal", lambda r: pt.random.halfnormal(0.5, 2.0, size=(N,), rng=r), stats.halfnorm(0.5, 2.0)),
    ("lognormal", lambda r: pt.random.lognormal(0.3, 0.5, size=(N,), rng=r), stats.lognorm(0.5, scale=np.exp(0.3))),
    ("exponential", lambda r: pt.random.exponential(2.5, size=(N,), rng=r), stats.expon(scale=2.5)),
    ("gamma", lambda r: pt.random.gamma(2.5, scale=1.5, size=(N,), rng=r), stats.gamma(2.5, scale=1.5)),
    ("gamma_small_shape", lambda r: pt.random.gamma(0.3, scale=1.0, size=(N,), rng=r), stats.gamma(0.3)),
    ("invgamma", lambda r: pt.random.invgamma(3.0, 2.0, size=(N,), rng=r), stats.invgamma(3.0, scale=2.0)),
    ("beta", lambda r: pt.random.beta(2.0, 5.0, size=(N,), rng=r), stats.beta(2.0, 5.0)),
    ("cauchy", lambda r: pt.random.cauchy(1.0, 0.5, size=(N,), rng=r), stats.cauchy(1.0, 0.5)),
    ("halfcauchy", lambda r: pt.random.halfcauchy(0.0, 2.0, size=(N,), rng=r), stats.halfcauchy(0.0, 2.0)),
    ("gumbel", lambda r: pt.random.gumbel(1.0, 2.0, size=(N,), rng=r), stats.gumbel_r(1.0, 2.0)),
    ("laplace", lambda r: pt.random.laplace(-1.0, 0.7, size=(N,), rng=r), stats.laplace(-1.0, 0.7)),
    ("logistic", lambda r: pt.random.logistic(0.5, 1.5, size=(N,), rng=r), stats.logistic(0.5, 1.5)),
    ("t", lambda r: pt.random.t(4.0, 1.0, 2.0, size=(N,), rng=r), stats.t(4.0, 1.0, 2.0)),
    ("t_fractional_df", lambda r: pt.random.t(np.e, 1.0, np.pi, size=(N,), rng=r), stats.t(np.e, 1.0, np.pi)),
    ("pareto", lambda r: pt.random.pareto(2.5, 1.5, size=(N,), rng=r), stats.pareto(2.5, scale=1.5)),
    ("weibull", lambda r: pt.random.weibull(1.7, size=(N,), rng=r), stats.weibull_min(1.7)),
    ("triangular", lambda r: pt.random.triangular(-5.0, 1.0, 5.0, size=(N,), rng=r),
     stats.triang(0.6, loc=-5.0, scale=10.0)),
    ("triangular_mode_at_left", lambda r: pt.random.triangular(0.0, 0.0, 2.0, size=(N,), rng=r),
     stats.triang(0.0, loc=0.0, scale=2.0)),
    ("wald", lambda r: pt.random.wald(1.5, 2.0, size=(N,), rng=r), stats.invgauss(0.75, scale=2.0)),
    ("wald_small_scale", lambda r: pt.random.wald(3.0, 0.2, size=(N,), rng=r), stats.invgauss(15.0, scale=0.2)),
]


@pytest.mark.parametrize("name,make,dist", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_distributions_pass_a_ks_test(name, make, dist):
    (x,), _ = _draw(make)
    ref = _reference(make)
    assert x.dtype == ref.dtype and x.shape == ref.shape
    assert np.isfinite(x).all()
    assert stats.kstest(x, dist.cdf).pvalue > 1e-3
    # PyTensor's own draws pass the same test (the reference distribution is right)
    assert stats.kstest(ref, dist.cdf).pvalue > 1e-3


def test_repeated_calls_with_updates_give_new_draws_and_a_new_generator():
    rng = pytensor.shared(np.random.default_rng(7))
    before = rng.get_value()
    x = pt.random.normal(size=(5,), rng=rng)
    fn = pytensor.function([], x, updates={rng: x.owner.outputs[0]}, mode=KEYS)
    a, b = fn(), fn()
    assert not np.allclose(a, b)
    after = rng.get_value()
    assert isinstance(after, np.random.Generator) and after is not before
    # the same seed gives the same sequence
    rng.set_value(np.random.default_rng(7))
    np.testing.assert_array_equal(fn(), a)
    np.testing.assert_array_equal(fn(), b)
    # the Generator the caller passed in did not advance
    assert before.bit_generator.state == np.random.default_rng(7).bit_generator.state


def test_without_updates_every_call_gives_the_same_draws_as_pytensor():
    rng = pytensor.shared(np.random.default_rng(3))
    x = pt.random.uniform(size=(4,), rng=rng)
    fn = pytensor.function([], x, mode=KEYS)
    ref = pytensor.function([], x)
    np.testing.assert_array_equal(fn(), fn())
    np.testing.assert_array_equal(ref(), ref())
    # a function updating the generator draws the same first, then from the next state
    upd = pytensor.function([], x, mode=KEYS, updates={rng: x.owner.outputs[0]})
    first = fn()
    np.testing.assert_array_equal(upd(), first)
    assert not np.allclose(upd(), first)
    assert not np.allclose(fn(), first)  # the shared generator moved on


def test_two_variables_from_one_generator_are_independent():
    rng = pytensor.shared(np.random.default_rng(11))
    nxt, x = pt.random.normal(size=(N,), rng=rng).owner.outputs
    y = pt.random.normal(size=(N,), rng=nxt)
    fn = pytensor.function([], [x, y], updates={rng: y.owner.outputs[0]}, mode=KEYS)
    a, b = fn()
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.06
    assert not np.allclose(a, b)


def test_shared_rng_of_random_stream():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        srng = pt.random.RandomStream(5)
    x = srng.normal(0.0, 1.0, size=(3,))
    fn = pytensor.function([], x, mode=KEYS)  # RandomStream sets the default updates
    a, b = fn(), fn()
    assert a.shape == (3,) and not np.allclose(a, b)


def test_explicit_generator_input_and_output():
    rng = random_generator_type("rng")
    nxt, x = pt.random.normal(0.0, 1.0, size=(2, 3), rng=rng).owner.outputs
    fn = pytensor.function([rng], [nxt, x], mode=KEYS)
    g = np.random.default_rng(0)
    g2, a = fn(g)
    assert isinstance(g2, np.random.Generator) and a.shape == (2, 3) and a.dtype == np.float64
    _, b = fn(g2)
    assert not np.allclose(a, b)
    np.testing.assert_array_equal(fn(g)[1], a)
    with pytest.raises(TypeError, match="Generator"):
        key_of(np.zeros(2))


def test_key_and_generator_pair():
    g = np.random.default_rng(1)
    k = key_of(g)
    assert k.dtype == np.uint32 and k.shape == (2,)
    np.testing.assert_array_equal(key_of(g), k)  # g did not advance
    assert isinstance(generator_of(k), np.random.Generator)
    assert not np.array_equal(key_of(generator_of(k)), k)
    g.random()  # another state, another key
    assert not np.array_equal(key_of(g), k)
    assert not np.array_equal(key_of(np.random.default_rng(2)), k)
    # other bit generators: drawn from a copy, which leaves them where they were
    p = np.random.Generator(np.random.Philox(5))
    kp = key_of(p)
    np.testing.assert_array_equal(key_of(p), kp)
    assert p.random() == np.random.Generator(np.random.Philox(5)).random()


@pytest.mark.parametrize("case", ["broadcast_params", "size_and_broadcast", "scalar", "empty", "float32"])
def test_shapes_and_dtypes_match_pytensor(case):
    mu = np.arange(3.0)
    sigma = np.array([[1.0], [2.0]])
    makes = {
        "broadcast_params": lambda r: pt.random.normal(mu, sigma, rng=r),
        "size_and_broadcast": lambda r: pt.random.normal(mu, 1.0, size=(4, 3), rng=r),
        "scalar": lambda r: pt.random.normal(0.0, 1.0, rng=r),
        "empty": lambda r: pt.random.uniform(size=(0, 2), rng=r),
        "float32": lambda r: pt.random.normal(np.float32(0.0), np.float32(1.0), size=(6,), dtype="float32",
                                             rng=r),
    }
    make = makes[case]
    (x,), _ = _draw(make)
    ref = _reference(make)
    assert x.dtype == ref.dtype and x.shape == ref.shape


def test_broadcast_params_follow_their_own_location_and_scale():
    mu = np.array([-5.0, 0.0, 5.0])
    sigma = np.array([[0.5], [3.0]])
    (x,), _ = _draw(lambda r: pt.random.normal(mu, sigma, size=(N, 2, 3), rng=r))
    np.testing.assert_allclose(x.mean(axis=0), np.broadcast_to(mu, (2, 3)), atol=0.2)
    np.testing.assert_allclose(x.std(axis=0), np.broadcast_to(sigma, (2, 3)), rtol=0.06)


def test_symbolic_parameters():
    loc, scale = pt.dscalar("loc"), pt.dvector("scale")
    rng = pytensor.shared(np.random.default_rng(2))
    x = pt.random.normal(loc, scale, size=(N, 2), rng=rng)
    fn = pytensor.function([loc, scale], x, updates={rng: x.owner.outputs[0]}, mode=KEYS)
    d = fn(3.0, np.array([0.1, 4.0]))
    np.testing.assert_allclose(d.mean(axis=0), [3.0, 3.0], atol=0.3)
    np.testing.assert_allclose(d.std(axis=0), [0.1, 4.0], rtol=0.06)


DISCRETE = [
    ("geometric", lambda r: pt.random.geometric(0.3, size=(N,), rng=r), stats.geom(0.3)),
    ("geometric_certain", lambda r: pt.random.geometric(1.0, size=(N,), rng=r), stats.geom(1.0)),
    ("poisson_small", lambda r: pt.random.poisson(3.5, size=(N,), rng=r), stats.poisson(3.5)),
    ("poisson_tiny", lambda r: pt.random.poisson(0.05, size=(N,), rng=r), stats.poisson(0.05)),
    ("poisson_ptrs", lambda r: pt.random.poisson(47.0, size=(N,), rng=r), stats.poisson(47.0)),
    ("poisson_large", lambda r: pt.random.poisson(5000.0, size=(N,), rng=r), stats.poisson(5000.0)),
    ("negative_binomial", lambda r: pt.random.negative_binomial(10, 0.3, size=(N,), rng=r), stats.nbinom(10, 0.3)),
    ("negative_binomial_real_n", lambda r: pt.random.negative_binomial(2.5, 0.8, size=(N,), rng=r),
     stats.nbinom(2.5, 0.8)),
    ("binomial_inversion", lambda r: pt.random.binomial(10, 0.3, size=(N,), rng=r), stats.binom(10, 0.3)),
    ("binomial_one_trial", lambda r: pt.random.binomial(1, 0.9, size=(N,), rng=r), stats.binom(1, 0.9)),
    ("binomial_btrs", lambda r: pt.random.binomial(1000, 0.3, size=(N,), rng=r), stats.binom(1000, 0.3)),
    ("binomial_btrs_flipped", lambda r: pt.random.binomial(1000, 0.97, size=(N,), rng=r),
     stats.binom(1000, 0.97)),
    ("binomial_certain", lambda r: pt.random.binomial(50, 1.0, size=(N,), rng=r), stats.binom(50, 1.0)),
]


@pytest.mark.parametrize("name,make,dist", DISCRETE, ids=[c[0] for c in DISCRETE])
def test_discrete_distributions_pass_a_chi_square_test(name, make, dist):
    (x,), _ = _draw(make)
    ref = _reference(make)
    assert x.dtype == ref.dtype == np.int64 and x.shape == ref.shape
    mean, var = (float(m) for m in dist.stats())
    assert abs(x.mean() - mean) < 5 * np.sqrt(var / N) + 1e-12
    # frequencies of the values (the tails pooled) against the probabilities
    lo, hi = int(dist.ppf(1e-3)), int(dist.ppf(1 - 1e-3))
    edges = np.arange(lo, hi + 2)
    obs = np.histogram(np.clip(x, lo, hi), edges)[0]
    probs = np.diff(np.concatenate([[0.0], dist.cdf(edges[1:-1] - 1), [1.0]]))
    if len(obs) > 1:
        assert stats.chisquare(obs, probs * N).pvalue > 1e-3
    else:
        assert obs[0] == N


def test_poisson_and_negative_binomial_broadcast_their_parameters():
    lam = np.array([[0.0], [2.0], [30.0], [300.0]])
    (x,), _ = _draw(lambda r: pt.random.poisson(lam, size=(4, N), rng=r))
    assert x.shape == (4, N) and x.dtype == np.int64
    assert (x[0] == 0).all()
    np.testing.assert_allclose(x[1:].mean(axis=1), lam[1:, 0], rtol=0.04)
    np.testing.assert_allclose(x[1:].var(axis=1), lam[1:, 0], rtol=0.1)
    n, p = np.array([1, 5, 20]), np.array([[0.2], [0.9]])
    (y,), _ = _draw(lambda r: pt.random.negative_binomial(n, p, size=(N, 2, 3), rng=r))
    want = n * (1 - p) / p
    np.testing.assert_allclose(y.mean(axis=0), want, rtol=0.08)
    assert y.min() >= 0


def test_binomial_broadcasts_its_parameters():
    n, p = np.array([0, 3, 40, 5000]), np.array([[0.1], [0.6]])
    (x,), _ = _draw(lambda r: pt.random.binomial(n, p, size=(N, 2, 4), rng=r))
    assert x.shape == (N, 2, 4) and x.dtype == np.int64
    assert (x >= 0).all() and (x <= n).all() and (x[..., 0] == 0).all()
    np.testing.assert_allclose(x[..., 1:].mean(axis=0), (n * p)[:, 1:], rtol=0.05)
    np.testing.assert_allclose(x[..., 1:].var(axis=0), (n * p * (1 - p))[:, 1:], rtol=0.12)


def test_multinomial():
    n, p = np.array([1, 10, 1000]), np.array([0.3, 0.7])
    (x,), _ = _draw(lambda r: pt.random.multinomial(n, p, size=(N, 3), rng=r))
    ref = _reference(lambda r: pt.random.multinomial(n, p, size=(N, 3), rng=r))
    assert x.shape == ref.shape == (N, 3, 2) and x.dtype == ref.dtype
    assert (x.sum(axis=-1) == n).all() and (x >= 0).all()
    np.testing.assert_allclose(x.mean(axis=0), n[:, None] * p, rtol=0.05)
    p4 = np.array([0.2, 0.5, 0.0, 0.3])
    (y,), _ = _draw(lambda r: pt.random.multinomial(50, p4, size=(N,), rng=r))
    assert (y[:, 2] == 0).all()
    np.testing.assert_allclose(y.mean(axis=0), 50 * p4, atol=0.3)
    np.testing.assert_allclose(np.cov(y.T), 50 * (np.diag(p4) - np.outer(p4, p4)), atol=0.8)


@pytest.mark.parametrize("mu,kappa", [(0.5, 2.0), (-3.0, 50.0), (3.0, 0.3), (1.0, 1e-9), (2.0, 1e7)])
def test_vonmises_against_numpy_draws(mu, kappa):
    """SciPy's von Mises is not wrapped into [-pi, pi] around ``mu``; NumPy's draws are."""
    (x,), _ = _draw(lambda r: pt.random.vonmises(mu, kappa, size=(N,), rng=r))
    ref = np.random.default_rng(5).vonmises(mu, kappa, size=N)
    assert x.dtype == np.float64 and np.abs(x).max() <= np.pi
    assert stats.ks_2samp(x, ref).pvalue > 1e-3
    assert abs(np.angle(np.exp(1j * (x - mu)).mean())) < 0.1


@pytest.mark.parametrize("make,bad,match", [
    (lambda v, r: pt.random.poisson(v, rng=r), [[-1.0, 2.0], [np.nan, 1.0], [np.inf, 1.0]], "poisson: lam"),
    (lambda v, r: pt.random.binomial(5, v, rng=r), [[0.5, 1.5], [np.nan, 0.2], [-0.1, 0.2]], "binomial: n"),
    (lambda v, r: pt.random.negative_binomial(3, v, rng=r), [[0.0, 0.5], [np.nan, 0.5]], "negative_binomial"),
    (lambda v, r: pt.random.vonmises(0.0, v, rng=r), [[-1.0, 1.0], [np.nan, 1.0]], "vonmises: kappa"),
    (lambda v, r: pt.random.geometric(v, rng=r), [[0.0, 0.5], [1.5, 0.5]], "geometric: p"),
], ids=["poisson", "binomial", "negative_binomial", "vonmises", "geometric"])
def test_invalid_parameters_raise_value_error_instead_of_looping(make, bad, match):
    v = pt.dvector("v")
    rng = pytensor.shared(np.random.default_rng(0))
    fn = pytensor.function([v], make(v, rng), mode=KEYS)
    assert not fallbacks_of(fn)
    assert fn(np.array([0.5, 0.5])).shape == (2,)
    for values in bad:
        with pytest.raises(ValueError, match=match):
            fn(np.array(values))


def test_a_parameter_shape_that_does_not_fit_the_size_is_an_error():
    alpha = pt.dmatrix("alpha")
    rng = pytensor.shared(np.random.default_rng(0))
    x = pt.random.dirichlet(alpha, size=(10, 4), rng=rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hgpt.FallbackWarning)
        fn = pytensor.function([alpha], x, mode=KEYS)
        with pytest.raises(ValueError, match=r"Vectorized input 0 has an incompatible shape in axis 1\."):
            fn(np.ones((3, 3)))
        assert fn(np.ones((4, 3))).shape == (10, 4, 3)
        assert fn(np.ones((1, 3))).shape == (10, 4, 3)


def test_bernoulli_categorical_integers():
    (b,), _ = _draw(lambda r: pt.random.bernoulli(0.3, size=(N,), rng=r))
    assert b.dtype == _reference(lambda r: pt.random.bernoulli(0.3, size=(N,), rng=r)).dtype
    assert set(np.unique(b)) <= {0, 1} and abs(b.mean() - 0.3) < 0.03
    p = np.array([0.1, 0.2, 0.7])
    (c,), _ = _draw(lambda r: pt.random.categorical(p, size=(N,), rng=r))
    counts = np.bincount(c, minlength=3)
    assert c.dtype == np.int64 and counts.sum() == N
    assert stats.chisquare(counts, p * N).pvalue > 1e-3
    (i,), _ = _draw(lambda r: pt.random.integers(-2, 5, size=(N,), rng=r))
    assert i.min() == -2 and i.max() == 4
    assert stats.chisquare(np.bincount(i + 2, minlength=7)).pvalue > 1e-3


def test_batched_categorical():
    p = np.array([[0.9, 0.1], [0.2, 0.8]])
    (c,), _ = _draw(lambda r: pt.random.categorical(p, size=(N, 2), rng=r))
    assert c.shape == (N, 2)
    np.testing.assert_allclose(c.mean(axis=0), [0.1, 0.8], atol=0.03)


def test_categorical_of_probabilities_known_at_run_time():
    p = pt.tensor3("p")
    rng = pytensor.shared(np.random.default_rng(0))
    x = pt.random.categorical(p, size=(5, 2, 3), rng=rng)
    fn = pytensor.function([p], x, updates={rng: x.owner.outputs[0]}, mode=KEYS)
    p_val = np.eye(4)[np.array([[0, 1, 2], [3, 3, 1]])]  # one-hot: the draws are certain
    res = fn(p_val)
    assert not fallbacks_of(fn)
    assert res.shape == (5, 2, 3) and res.dtype == np.int64
    np.testing.assert_array_equal(res, np.broadcast_to(p_val.argmax(-1), (5, 2, 3)))


def test_dirichlet_and_multivariate_normal():
    alpha = np.array([1.0, 2.0, 5.0])
    (d,), _ = _draw(lambda r: pt.random.dirichlet(alpha, size=(N,), rng=r))
    assert d.shape == (N, 3)
    np.testing.assert_allclose(d.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(d.mean(axis=0), alpha / alpha.sum(), atol=0.01)
    mean = np.array([1.0, -2.0])
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    (m,), _ = _draw(lambda r: pt.random.multivariate_normal(mean, cov, size=(N,), rng=r))
    assert m.shape == (N, 2)
    np.testing.assert_allclose(m.mean(axis=0), mean, atol=0.08)
    np.testing.assert_allclose(np.cov(m.T), cov, atol=0.12)


def test_permutation():
    (p,), _ = _draw(lambda r: pt.random.permutation(10, rng=r))
    np.testing.assert_array_equal(np.sort(p), np.arange(10))
    x = np.arange(12.0).reshape(6, 2)
    (q,), _ = _draw(lambda r: pt.random.permutation(x, rng=r))
    np.testing.assert_array_equal(q[np.argsort(q[:, 0])], x)


def test_choice_of_rows_with_a_size_tensor():
    """The graphs of ``choice`` of the rows of a square matrix have integer shape constants
    of equal entries (lowered as splats)."""
    a, p = pt.dmatrix("a"), pt.dvector("p")
    rng = pytensor.shared(np.random.default_rng(29402))
    x = pt.random.choice(a, p=p, size=pt.as_tensor([2, 3]), replace=True, rng=rng)

    def rows_of_identity(got, want):
        np.testing.assert_array_equal(got.sum(axis=-1), 1.0)
        assert set(np.unique(got)) == {0.0, 1.0}

    compare_hlograph_and_py([a, p], [x], [np.eye(3), np.array([0.25, 0.5, 0.25])], assert_fn=rows_of_identity, mode=KEYS)
    y = pt.random.choice(a, size=pt.as_tensor([2]), replace=True, rng=rng)  # uniform over the rows
    compare_hlograph_and_py([a], [y], [np.eye(5)], assert_fn=rows_of_identity, mode=KEYS)


def test_choice_of_rows_with_replacement():
    """Rows of a matrix drawn with probabilities ``p``: the frequencies are ``p``."""
    a, p = pt.dmatrix("a"), pt.dvector("p")
    rng = random_generator_type("rng")
    x = pt.random.choice(a, p=p, size=(3, 3), replace=True, rng=rng)
    fn = pytensor.function([a, p, rng], x, mode=KEYS)
    res = np.stack([fn(np.eye(3), np.array([0.25, 0.5, 0.25]), np.random.default_rng(i)) for i in range(300)])
    assert not fallbacks_of(fn)
    assert res.shape == (300, 3, 3, 3)
    np.testing.assert_array_equal(res.sum(axis=-1), 1.0)  # each draw is a row of the identity
    np.testing.assert_allclose(res.reshape(-1, 3).mean(axis=0), [0.25, 0.5, 0.25], atol=0.03)


def test_variables_without_a_sampler_run_pytensor_perform_with_the_key():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hgpt.FallbackWarning)
        draws, fn = _draw(lambda r: pt.random.hypergeometric(8, 12, 10, size=(N,), rng=r), n_calls=2,
                          allow_fallback=True)
    assert [name for name, _ in fallbacks_of(fn)] == ["HyperGeometricRV"]
    a, b = draws
    assert a.dtype == np.int64 and abs(a.mean() - 4.0) < 0.1 and abs(a.var() - 240 / 190) < 0.15
    assert not np.array_equal(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hgpt.FallbackWarning)
        draws, fn = _draw(lambda r: pt.random.choice(10, size=(4,), replace=False, rng=r), n_calls=200,
                          allow_fallback=True)
    assert [name for name, _ in fallbacks_of(fn)] == ["ChoiceWithoutReplacement"]
    assert all(len(set(c)) == 4 and set(c) <= set(range(10)) for c in draws)
    assert len(np.unique(np.concatenate(draws))) == 10


def test_size_known_only_at_run_time_runs_perform():
    n = pt.lscalar("n")
    rng = pytensor.shared(np.random.default_rng(0))
    x = pt.random.normal(0.0, 1.0, size=(n,), rng=rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hgpt.FallbackWarning)
        fn = pytensor.function([n], x, updates={rng: x.owner.outputs[0]}, mode=KEYS)
        a, b = fn(3), fn(5)
    assert a.shape == (3,) and b.shape == (5,)
    assert [name for name, _ in fallbacks_of(fn)] == ["NormalRV"]


def test_update_with_another_generator_passes_that_generator():
    rng = pytensor.shared(np.random.default_rng(1))
    other = pytensor.shared(np.random.default_rng(2))
    x = pt.random.normal(size=(4,), rng=rng)
    fn = pytensor.function([], x, updates={rng: other}, mode=KEYS)
    reads_other = pytensor.function([], pt.random.normal(size=(4,), rng=other), mode=KEYS)
    first = fn()
    assert rng.get_value() is not other.get_value()  # a copy of its value
    assert rng.get_value().bit_generator.state == other.get_value().bit_generator.state
    np.testing.assert_array_equal(fn(), reads_other())
    np.testing.assert_array_equal(fn(), reads_other())
    assert not np.allclose(first, reads_other())


@pytest.mark.parametrize("method", ["svd", "eigh"])
def test_multivariate_normal_factorizes_as_its_method_says(method):
    """``method="svd"``/``"eigh"`` take a singular (positive semi-definite) covariance,
    which the Cholesky factor cannot: finite draws with that covariance."""
    rng = pytensor.shared(np.random.default_rng(0))
    cov = np.array([[1.0, 1.0], [1.0, 1.0]])
    x = pt.random.multivariate_normal(np.zeros(2), cov, size=(20000,), rng=rng, method=method)
    draws = pytensor.function([], x, mode=KEYS)()
    assert draws.shape == (20000, 2) and np.isfinite(draws).all()
    np.testing.assert_allclose(np.cov(draws.T), cov, atol=0.05)


def test_a_batched_permutation_shuffles_each_member_along_its_own_axis():
    """A PermutationRV whose input has more dims than its core (a batch): each batch
    member is shuffled along its first core axis, not the members among themselves."""
    from pytensor.tensor.random.basic import PermutationRV
    rng = pytensor.shared(np.random.default_rng(0))
    rv_op = PermutationRV(ndim_supp=2, ndims_params=[2], dtype="int64")
    x = np.arange(5 * 3 * 2).reshape((5, 3, 2))
    draws = pytensor.function([], rv_op(x, rng=rng), mode=KEYS)()
    assert draws.shape == (5, 3, 2)
    for i in range(5):
        rows = sorted(map(tuple, draws[i]))
        assert rows == sorted(map(tuple, x[i]))  # the member's own rows, kept whole
