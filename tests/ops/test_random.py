"""Random samplers: shapes, dtypes, ranges, determinism, key independence and
distributions (moments, Kolmogorov-Smirnov) on the compiled and perform paths.
The two paths draw different bits, so results are compared statistically."""

import math

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops import random as rnd
import hlograph.lowering.rules.random  # noqa: F401

N = 4000
#: KS statistic bound: about the 0.1% level for N samples
KS_BOUND = 1.95 / math.sqrt(N)
PATHS = ["compiled", "perform"]


def run(path, outputs, inputs=(), values=()):
    g = hg.Graph(list(inputs), list(outputs))
    if path == "compiled":
        out = hg.compile(g)(*values)
    else:
        out = hg.evaluate(g, *values)
    return list(out)


def ks_statistic(samples, cdf):
    x = np.sort(np.asarray(samples, np.float64))
    n = x.size
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


def normal_cdf(x):
    return 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_uniform_distribution(path, dtype):
    (u,) = run(path, [rnd.uniform(rnd.key(3), (N,), dtype, -2.0, 3.0)])
    assert u.dtype == hg.frontend.types.as_dtype(dtype) and u.shape == (N,)
    u = u.astype(np.float64)
    assert np.all(u >= -2.0) and np.all(u <= 3.0)
    bound = KS_BOUND + (0.02 if dtype in ("float16", "bfloat16") else 0)  # coarse grids
    assert ks_statistic(u, lambda x: np.clip((x + 2) / 5, 0, 1)) < bound


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_normal_distribution(path, dtype):
    (z,) = run(path, [rnd.normal(rnd.key(11), (N,), dtype, 1.5, 2.0)])
    assert z.dtype == np.dtype(dtype) and z.shape == (N,)
    z = z.astype(np.float64)
    assert np.all(np.isfinite(z))
    assert abs(z.mean() - 1.5) < 5 * 2.0 / math.sqrt(N)
    assert abs(z.std() - 2.0) < 0.1
    assert ks_statistic((z - 1.5) / 2.0, normal_cdf) < KS_BOUND + (0.01 if dtype == "float16" else 0)


@pytest.mark.parametrize("path", PATHS)
def test_uniform_broadcasts_array_parameters(path):
    lo = hg.tensor("lo", (3, 1), "float32")
    (u,) = run(path, [rnd.uniform(rnd.key(5), (3, 2000), None, lo, lo + 1.0)], [lo],
               [np.array([[0.0], [10.0], [-5.0]], np.float32)])
    assert u.dtype == np.float32
    for row, low in zip(u, [0.0, 10.0, -5.0]):
        assert np.all((row >= low) & (row <= low + 1))
        assert abs(row.mean() - (low + 0.5)) < 0.03


@pytest.mark.parametrize("path", PATHS)
def test_bernoulli_frequency(path):
    p = np.array([0.0, 0.2, 0.7, 1.0])
    (b,) = run(path, [rnd.bernoulli(rnd.key(1), p, (N, 4))])
    assert b.dtype == np.bool_ and b.shape == (N, 4)
    freq = b.mean(axis=0)
    assert freq[0] == 0 and freq[3] == 1
    np.testing.assert_allclose(freq[1:3], p[1:3], atol=5 * math.sqrt(0.25 / N))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint64"])
def test_integers_range_and_frequency(path, dtype):
    low, high = (0, 10) if dtype.startswith("u") else (-4, 6)
    (r,) = run(path, [rnd.integers(rnd.key(9), low, high, (N,), dtype)])
    assert r.dtype == np.dtype(dtype) and r.shape == (N,)
    assert r.min() >= low and r.max() < high
    counts = np.bincount((r.astype(np.int64) - low), minlength=10)
    # chi-square with 9 degrees of freedom, 0.1% level
    chi2 = ((counts - N / 10) ** 2 / (N / 10)).sum()
    assert chi2 < 27.9


@pytest.mark.parametrize("path", PATHS)
def test_integers_full_int64_span(path):
    (r,) = run(path, [rnd.integers(rnd.key(2), -(2**62), 2**62, (N,), "int64")])
    assert r.min() >= -(2**62) and r.max() < 2**62
    assert abs(np.mean(r / 2.0**62)) < 5 / math.sqrt(3 * N)


@pytest.mark.parametrize("path", PATHS)
def test_categorical_frequency(path):
    probs = np.array([[0.1, 0.6, 0.3, 0.0], [0.25, 0.25, 0.25, 0.25]])
    with np.errstate(divide="ignore"):
        logits = np.log(probs)
    (c,) = run(path, [rnd.categorical(rnd.key(4), logits, axis=-1, shape=(N, 2))])
    assert c.dtype == np.int64 and c.shape == (N, 2)
    for j in range(2):
        freq = np.bincount(c[:, j], minlength=4) / N
        np.testing.assert_allclose(freq, probs[j], atol=5 * math.sqrt(0.25 / N))


def run_many(path, output, inputs, values, keys):
    """``output`` (of a graph with a key input first) for each of ``keys``."""
    g = hg.Graph(list(inputs), [output])
    fn = hg.compile(g) if path == "compiled" else (lambda *a: hg.evaluate(g, *a))
    return np.stack([np.asarray(fn(k, *values)[0]) for k in keys])


KEYS = [np.array([i, 77], np.uint32) for i in range(300)]


@pytest.mark.parametrize("path", PATHS)
def test_categorical_axis_0_default_shape(path):
    logits = np.log(np.array([[0.9, 0.5], [0.1, 0.5]], np.float32))  # categories along axis 0
    k, lg = hg.tensor("k", (2,), "uint32"), hg.tensor("lg", (2, 2), "float32")
    c = run_many(path, rnd.categorical(k, lg, axis=0), [k, lg], [logits], KEYS)
    assert c.shape == (300, 2) and c.dtype == np.int64
    assert abs(c[:, 0].mean() - 0.1) < 0.07 and abs(c[:, 1].mean() - 0.5) < 0.12


@pytest.mark.parametrize("path", PATHS)
def test_permutation_is_a_permutation(path):
    x = np.arange(12.0).reshape(6, 2)
    p, px = run(path, [rnd.permutation(rnd.key(6), 50), rnd.permutation(rnd.key(6), x)])
    assert p.dtype == np.int64
    np.testing.assert_array_equal(np.sort(p), np.arange(50))
    assert not np.array_equal(p, np.arange(50))
    assert px.shape == (6, 2)
    np.testing.assert_array_equal(px[:, 1] - px[:, 0], np.ones(6))  # rows stay whole
    np.testing.assert_array_equal(np.sort(px[:, 0]), x[:, 0])


@pytest.mark.parametrize("path", PATHS)
def test_permutation_positions_are_uniform(path):
    k = hg.tensor("k", (2,), "uint32")
    perms = run_many(path, rnd.permutation(k, 4), [k], [], KEYS)
    assert all(sorted(p) == [0, 1, 2, 3] for p in perms)
    first = np.bincount(perms[:, 0], minlength=4) / len(KEYS)
    np.testing.assert_allclose(first, 0.25, atol=0.11)


@pytest.mark.parametrize("path", PATHS)
def test_same_key_same_numbers_across_calls(path):
    s = hg.tensor("s", (), "int64")
    k = rnd.key(s)
    outs = [rnd.uniform(k, (5,)), rnd.normal(k, (2, 3), "float32"), rnd.integers(k, 100, shape=(4,))]
    a = run(path, outs, [s], [np.int64(7)])
    b = run(path, outs, [s], [np.int64(7)])
    c = run(path, outs, [s], [np.int64(8)])
    for x, y, z in zip(a, b, c):
        np.testing.assert_array_equal(x, y)
        assert not np.array_equal(x, z)


@pytest.mark.parametrize("path", PATHS)
def test_graph_key_equals_constant_key(path):
    s = hg.tensor("s", (), "int32")
    a, b, k = run(path, [rnd.uniform(rnd.key(s), (6,)), rnd.uniform(rnd.key(-5), (6,)), rnd.key(s)],
                  [s], [np.int32(-5)])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(k, np.array([2**32 - 1, 2**32 - 5], np.uint32))


@pytest.mark.parametrize("path", PATHS)
def test_split_keys_are_independent(path):
    keys = rnd.split(rnd.key(0), 3)
    k, u0, u1, u2, parent = run(path, [keys] + [rnd.uniform(keys[i], (N,)) for i in range(3)]
                                + [rnd.uniform(rnd.key(0), (N,))])
    assert k.dtype == np.uint32 and k.shape == (3, 2)
    assert len({tuple(r) for r in k}) == 3
    for a, b in [(u0, u1), (u0, u2), (u1, u2), (u0, parent)]:
        assert not np.array_equal(a, b)
        assert abs(np.corrcoef(a, b)[0, 1]) < 4 / math.sqrt(N)


@pytest.mark.parametrize("path", PATHS)
def test_samplers_with_empty_and_scalar_shapes(path):
    k = rnd.key(1)
    outs = run(path, [rnd.uniform(k, ()), rnd.normal(k, (0, 3)), rnd.integers(k, 5, shape=(0,)),
                      rnd.bernoulli(k, 0.5), rnd.permutation(k, 0), rnd.split(k, 0)])
    shapes = [o.shape for o in outs]
    assert shapes == [(), (0, 3), (0,), (), (0,), (0, 2)]
    assert 0 <= outs[0] < 1


def test_random_lowers_to_rng_bit_generator():
    text = hg.compile(hg.Graph([], [rnd.normal(rnd.key(0), (3,))])).lower().as_text()
    assert "stablehlo.rng_bit_generator" in text and "THREE_FRY" in text


def test_random_errors():
    k = rnd.key(0)
    with pytest.raises(TypeError, match=r"the key must be uint32\[2\]"):
        rnd.uniform(hg.tensor("k", (3,), "uint32"), (2,))
    with pytest.raises(TypeError, match="dtype must be a float dtype, got int32"):
        rnd.uniform(k, (2,), "int32")
    with pytest.raises(TypeError, match="dtype must be an integer dtype"):
        rnd.integers(k, 0, 5, (2,), "float32")
    with pytest.raises(ValueError, match=r"minval of shape \(3,\) does not broadcast to the sample shape \(2,\)"):
        rnd.uniform(k, (2,), None, np.zeros(3), 1.0)
    with pytest.raises(TypeError, match="shape must be a tuple of non-negative ints"):
        rnd.normal(k, (2, -1))
    with pytest.raises(ValueError, match="must end with the logits' batch shape"):
        rnd.categorical(k, np.zeros((3, 4)), shape=(5,))
    with pytest.raises(TypeError, match="seed must be an int"):
        rnd.key(1.5)
    with pytest.raises(ValueError, match="low must be smaller than high"):
        hg.evaluate(hg.Graph([], [rnd.integers(k, 5, 5, (2,))]))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_gamma_moments(path, dtype):
    a = np.array([0.3, 1.0, 2.5, 10.0])
    (g,) = run(path, [rnd.gamma(rnd.key(21), a.astype(dtype), (N, 4))])
    assert g.dtype == np.dtype(dtype) and g.shape == (N, 4)
    g = g.astype(np.float64)
    assert np.all(g >= 0) and np.all(np.isfinite(g))
    # mean a, variance a, third central moment 2a
    assert np.all(np.abs(g.mean(0) - a) < 6 * np.sqrt(a / N)), g.mean(0)
    np.testing.assert_allclose(g.var(0), a, rtol=0.15)
    skew = ((g - g.mean(0)) ** 3).mean(0) / g.var(0) ** 1.5
    np.testing.assert_allclose(skew, 2 / np.sqrt(a), rtol=0.35)


@pytest.mark.parametrize("path", PATHS)
def test_gamma_exponential_case_ks(path):
    # Gamma(1) is Exp(1), whose CDF is 1 - exp(-x)
    (g,) = run(path, [rnd.gamma(rnd.key(5), 1.0, (N,))])
    assert ks_statistic(g, lambda x: 1 - np.exp(-x)) < KS_BOUND


@pytest.mark.parametrize("path", PATHS)
def test_gamma_edge_parameters_and_shapes(path):
    k = rnd.key(3)
    zero, scalar, empty = run(path, [rnd.gamma(k, np.zeros(3)), rnd.gamma(k, 2.0),
                                     rnd.gamma(k, 2.0, (0, 2))])
    np.testing.assert_array_equal(zero, np.zeros(3))
    assert scalar.shape == () and scalar > 0
    assert empty.shape == (0, 2)


def test_gamma_nan_parameter_gives_nan_compiled():
    (g,) = hg.compile(hg.Graph([], [rnd.gamma(rnd.key(0), np.array([np.nan, -1.0, 2.0]))]))()
    assert np.isnan(g[0]) and np.isnan(g[1]) and g[2] > 0


@pytest.mark.parametrize("path", PATHS)
def test_beta_moments(path):
    a, b = 2.0, np.array([5.0, 0.5])
    (x,) = run(path, [rnd.beta(rnd.key(13), a, b, (N, 2), "float32")])
    assert x.dtype == np.float32 and x.shape == (N, 2)
    assert np.all((x >= 0) & (x <= 1))
    mean = a / (a + b)
    var = a * b / ((a + b) ** 2 * (a + b + 1))
    assert np.all(np.abs(x.mean(0) - mean) < 5 * np.sqrt(var / N)), x.mean(0)
    np.testing.assert_allclose(x.var(0), var, rtol=0.15)


@pytest.mark.parametrize("path", PATHS)
def test_dirichlet_moments(path):
    alpha = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])
    (d,) = run(path, [rnd.dirichlet(rnd.key(17), alpha, (N // 2, 2))])
    assert d.dtype == np.float64 and d.shape == (N // 2, 2, 3)
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-12)
    assert np.all(d >= 0)
    mean = alpha / alpha.sum(-1, keepdims=True)
    np.testing.assert_allclose(d.mean(0), mean, atol=0.03)


def test_gamma_family_errors():
    k = rnd.key(0)
    with pytest.raises(TypeError, match="Gamma: dtype must be a float dtype"):
        rnd.gamma(k, 1.0, (2,), "int32")
    with pytest.raises(ValueError, match=r"a of shape \(3,\) does not broadcast to the sample shape \(2,\)"):
        rnd.gamma(k, np.ones(3), (2,))
    with pytest.raises(ValueError, match="alpha must have a last axis"):
        rnd.dirichlet(k, 1.0)
    with pytest.raises(ValueError, match="do not broadcast"):
        rnd.beta(k, np.ones(2), np.ones(3))
