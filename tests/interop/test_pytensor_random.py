"""Random variables in the HLOGRAPH mode: PyTensor's ``RandomVariable`` Ops on
hlograph's random family, random generators as keys, and their updates. The bits
cannot match NumPy's generator: draws are checked against the distribution (a
Kolmogorov-Smirnov test, moments, frequencies) with fixed seeds, and shapes and
dtypes against PyTensor's own mode."""

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
from hlograph.tests.interop.pytensor_helpers import fallbacks_of, py_mode  # noqa: E402

N = 4000

pytestmark = [pytest.mark.filterwarnings("ignore:RandomVariable Ops will stop hiding:DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Setting default_update is deprecated:DeprecationWarning")]


def _draw(make, seed=0, n_calls=1, allow_fallback=False):
    """Compiles ``make(rng)`` (a random variable) with the HLOGRAPH mode and a shared
    generator updated by each call; returns the draws of ``n_calls`` calls and the
    function."""
    rng = pytensor.shared(np.random.default_rng(seed))
    x = make(rng)
    fn = pytensor.function([], x, updates={rng: x.owner.outputs[0]}, mode="HLOGRAPH")
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
    fn = pytensor.function([], x, updates={rng: x.owner.outputs[0]}, mode="HLOGRAPH")
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
    fn = pytensor.function([], x, mode="HLOGRAPH")
    ref = pytensor.function([], x)
    np.testing.assert_array_equal(fn(), fn())
    np.testing.assert_array_equal(ref(), ref())
    # a function updating the generator draws the same first, then from the next state
    upd = pytensor.function([], x, mode="HLOGRAPH", updates={rng: x.owner.outputs[0]})
    first = fn()
    np.testing.assert_array_equal(upd(), first)
    assert not np.allclose(upd(), first)
    assert not np.allclose(fn(), first)  # the shared generator moved on


def test_two_variables_from_one_generator_are_independent():
    rng = pytensor.shared(np.random.default_rng(11))
    nxt, x = pt.random.normal(size=(N,), rng=rng).owner.outputs
    y = pt.random.normal(size=(N,), rng=nxt)
    fn = pytensor.function([], [x, y], updates={rng: y.owner.outputs[0]}, mode="HLOGRAPH")
    a, b = fn()
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.06
    assert not np.allclose(a, b)


def test_shared_rng_of_random_stream():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        srng = pt.random.RandomStream(5)
    x = srng.normal(0.0, 1.0, size=(3,))
    fn = pytensor.function([], x, mode="HLOGRAPH")  # RandomStream sets the default updates
    a, b = fn(), fn()
    assert a.shape == (3,) and not np.allclose(a, b)


def test_explicit_generator_input_and_output():
    rng = random_generator_type("rng")
    nxt, x = pt.random.normal(0.0, 1.0, size=(2, 3), rng=rng).owner.outputs
    fn = pytensor.function([rng], [nxt, x], mode="HLOGRAPH")
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
    fn = pytensor.function([loc, scale], x, updates={rng: x.owner.outputs[0]}, mode="HLOGRAPH")
    d = fn(3.0, np.array([0.1, 4.0]))
    np.testing.assert_allclose(d.mean(axis=0), [3.0, 3.0], atol=0.3)
    np.testing.assert_allclose(d.std(axis=0), [0.1, 4.0], rtol=0.06)


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


def test_variables_without_a_sampler_run_pytensor_perform_with_the_key():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hgpt.FallbackWarning)
        draws, fn = _draw(lambda r: pt.random.poisson(4.0, size=(N,), rng=r), n_calls=2, allow_fallback=True)
    assert [name for name, _ in fallbacks_of(fn)] == ["PoissonRV"]
    a, b = draws
    assert a.dtype == np.int64 and abs(a.mean() - 4.0) < 0.15 and abs(a.var() - 4.0) < 0.4
    assert not np.array_equal(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hgpt.FallbackWarning)
        (c,), fn = _draw(lambda r: pt.random.binomial(10, 0.3, size=(N,), rng=r), allow_fallback=True)
    assert abs(c.mean() - 3.0) < 0.1 and c.max() <= 10


def test_size_known_only_at_run_time_runs_perform():
    n = pt.lscalar("n")
    rng = pytensor.shared(np.random.default_rng(0))
    x = pt.random.normal(0.0, 1.0, size=(n,), rng=rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hgpt.FallbackWarning)
        fn = pytensor.function([n], x, updates={rng: x.owner.outputs[0]}, mode="HLOGRAPH")
        a, b = fn(3), fn(5)
    assert a.shape == (3,) and b.shape == (5,)
    assert [name for name, _ in fallbacks_of(fn)] == ["NormalRV"]


def test_update_with_another_generator_passes_that_generator():
    rng = pytensor.shared(np.random.default_rng(1))
    other = pytensor.shared(np.random.default_rng(2))
    x = pt.random.normal(size=(4,), rng=rng)
    fn = pytensor.function([], x, updates={rng: other}, mode="HLOGRAPH")
    reads_other = pytensor.function([], pt.random.normal(size=(4,), rng=other), mode="HLOGRAPH")
    first = fn()
    assert rng.get_value() is not other.get_value()  # a copy of its value
    assert rng.get_value().bit_generator.state == other.get_value().bit_generator.state
    np.testing.assert_array_equal(fn(), reads_other())
    np.testing.assert_array_equal(fn(), reads_other())
    assert not np.allclose(first, reads_other())
