"""Reparameterized gradients of the samplers: a normal sample is loc + scale * z and a
uniform one low + (high - low) * u for the same key's standard sample, so their
derivatives are checked against jax with that sample, against finite differences of
``hg.evaluate`` (the same key gives the same numbers), and compiled through the
identities d sample / d loc = 1, d sample / d scale = (sample - loc) / scale (compiled
and evaluated bits differ). Gamma samples differentiate by implicit reparameterization,
checked against jax.lax.random_gamma_grad at the same sample; beta and Dirichlet samples
through their gammas; all three against the derivative of the mean by Monte Carlo. A
shuffle differentiates through its permutation; discrete samplers and keys carry none."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.tests.autodiff.helpers import check_grads

KEY = 1234


def _standard(op, shape, dtype="float64"):
    """The standard sample (parameters 0 and 1) of ``op`` for KEY, by ``hg.evaluate``."""
    return hg.evaluate(hg.Graph([], op(hg.random.key(KEY), shape, dtype)))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_normal(dtype, rng):
    k = hg.random.key(KEY)
    z = _standard(hg.random.normal, (2, 3), dtype)
    loc, scale = rng.normal(size=3).astype(dtype), (0.5 + rng.uniform(size=(2, 1))).astype(dtype)
    loose = dict(fd_eps=1e-3, fd_tol=2e-3) if dtype == "float32" else {}
    check_grads(lambda loc, scale: hg.random.normal(k, (2, 3), loc=loc, scale=scale),
                lambda loc, scale: loc + scale * z, [loc, scale], rng=rng, compiled=False, **loose)


def test_uniform(rng):
    k = hg.random.key(KEY)
    u = _standard(hg.random.uniform, (4,))
    lo, hi = rng.normal(size=4), 3.0 + rng.uniform(size=())
    check_grads(lambda lo, hi: hg.random.uniform(k, (4,), minval=lo, maxval=hi),
                lambda lo, hi: lo + (hi - lo) * u, [lo, hi], rng=rng, compiled=False)


def test_compiled_identities(rng):
    k = hg.random.key(KEY)
    loc, scale = hg.tensor("loc", (3,), "float64"), hg.tensor("scale", (), "float64")
    lo, hi = hg.tensor("lo", (), "float64"), hg.tensor("hi", (), "float64")
    s = hg.random.normal(k, (2, 3), loc=loc, scale=scale)
    u = hg.random.uniform(hg.random.split(k)[1], (5,), minval=lo, maxval=hi)
    g_loc, g_scale = hg.grad(hg.sum(s), [loc, scale])
    g_lo, g_hi = hg.grad(hg.sum(u), [lo, hi])
    t_scale = hg.jvp(s, scale, 1.0)
    graph = hg.Graph([loc, scale, lo, hi], [s, u, g_loc, g_scale, g_lo, g_hi, t_scale])
    lv, sv = rng.normal(size=3), 0.7
    sc, uc, glc, gsc, gloc, ghic, tsc = hg.compile(graph)(lv, sv, -1.0, 2.0)
    np.testing.assert_allclose(glc, [2.0, 2.0, 2.0])
    np.testing.assert_allclose(gsc, np.sum((sc - lv) / sv), rtol=1e-12)
    np.testing.assert_allclose(tsc, (sc - lv) / sv, rtol=1e-12)
    unit = (uc + 1.0) / 3.0
    np.testing.assert_allclose(gloc, np.sum(1 - unit), rtol=1e-12)
    np.testing.assert_allclose(ghic, np.sum(unit), rtol=1e-12)


def test_permutation_is_linear(rng):
    k = hg.random.key(KEY)
    weights = np.arange(1.0, 6.0)[:, None]
    x = hg.tensor("x", (5, 2), "float64")
    check_grads(lambda x: hg.random.permutation(k, x) * weights, None, [rng.normal(size=(5, 2))], rng=rng,
                compiled=False)
    # compiled: the gradient puts each row's weight where that row came from
    y = hg.random.permutation(k, x)
    g = hg.grad(hg.sum(y * weights), x)
    xv = np.arange(10.0).reshape(5, 2)
    yc, gc = hg.compile(hg.Graph([x], [y, g]))(xv)
    src = (yc[:, 0] // 2).astype(int)  # row i of y is row src[i] of x
    expected = np.zeros((5, 2))
    expected[src] = weights
    np.testing.assert_allclose(gc, expected)


def test_discrete_samplers_and_keys_have_no_gradient(rng):
    p = hg.tensor("p", (3,), "float64")
    seed = hg.tensor("seed", (), "int64")
    k = hg.random.key(seed)
    b = hg.random.bernoulli(k, p).astype("float64")
    c = hg.random.categorical(hg.random.split(k)[0], hg.log(p), shape=(4,)).astype("float64")
    cost = hg.sum(b * p) + hg.sum(c)
    g = hg.grad(cost, p)  # only the direct path: the samples are piecewise constant in p
    pv = np.array([0.2, 0.5, 0.9])
    bv, gv = hg.evaluate(hg.Graph([p, seed], [b, g]), pv, np.int64(3))
    np.testing.assert_allclose(gv, bv)
    node = hg.random.bernoulli(k, p).owner
    key_ct, p_ct = node.op.pullback(node, [None])
    assert key_ct is None and "discrete" in p_ct.reason


def _random_gamma_grad(a, x):
    with jax.enable_x64(True):
        return np.asarray(jax.jit(jax.lax.random_gamma_grad)(jnp.asarray(a), jnp.asarray(x)))


def test_gamma_against_jax(rng):
    a = hg.tensor("a", (5,), "float64")
    s = hg.random.gamma(hg.random.key(KEY), a, shape=(3, 5))
    ct = rng.normal(size=(3, 5))
    g = hg.grad(hg.sum(s * ct), a)
    t = hg.jvp(s, a, np.ones(5))
    graph = hg.Graph([a], [s, g, t])
    av = np.array([0.05, 0.7, 1.0, 4.5, 300.0])  # the series and the continued fraction
    for sv, gv, tv in (hg.evaluate(graph, av), hg.compile(graph)(av)):
        ref = _random_gamma_grad(np.broadcast_to(av, (3, 5)), sv)
        np.testing.assert_allclose(gv, np.sum(ct * ref, axis=0), rtol=1e-10)
        np.testing.assert_allclose(tv, ref, rtol=1e-10)


def test_beta_and_dirichlet_through_their_gammas(rng):
    a, b = hg.tensor("a", (4,), "float64"), hg.tensor("b", (), "float64")
    alpha = hg.tensor("alpha", (3,), "float64")
    k = hg.random.key(KEY)
    sb, sd = hg.random.beta(k, a, b, shape=(2, 4)), hg.random.dirichlet(k, alpha, shape=(2,))
    xb, xd = hg.random.gamma(k, a, shape=(2, 4)), hg.random.gamma(k, alpha, shape=(2, 3))  # the same gammas
    cb, cd = rng.normal(size=(2, 4)), rng.normal(size=(2, 3))
    ga, gb = hg.grad(hg.sum(sb * cb), [a, b])
    galpha = hg.grad(hg.sum(sd * cd), alpha)
    tb, td = hg.jvp(sb, [a, b], [np.ones(4), 1.0]), hg.jvp(sd, alpha, np.ones(3))
    graph = hg.Graph([a, b, alpha], [sb, sd, xb, xd, ga, gb, galpha, tb, td])
    av, bv, alv = np.array([0.3, 1.0, 2.0, 7.0]), 1.5, np.array([0.5, 2.0, 4.0])
    s_b, s_d, x_b, x_d, g_a, g_b, g_alpha, t_b, t_d = hg.evaluate(graph, av, bv, alv)
    # beta: s = X / (X + Y)
    y_b = x_b * (1 - s_b) / s_b
    ds_da = s_b * (1 - s_b) / x_b * _random_gamma_grad(np.broadcast_to(av, (2, 4)), x_b)
    ds_db = -s_b * s_b / x_b * _random_gamma_grad(np.full((2, 4), bv), y_b)
    np.testing.assert_allclose(g_a, np.sum(cb * ds_da, axis=0), rtol=1e-9)
    np.testing.assert_allclose(g_b, np.sum(cb * ds_db), rtol=1e-9)
    np.testing.assert_allclose(t_b, ds_da + ds_db, rtol=1e-9)
    # Dirichlet: s = g / sum(g)
    dg = _random_gamma_grad(np.broadcast_to(alv, (2, 3)), x_d)
    total = x_d.sum(-1, keepdims=True)
    jac = (np.eye(3) - s_d[:, :, None]) / total[:, :, None] * dg[:, None, :]  # d s_i / d alpha_j
    np.testing.assert_allclose(g_alpha, np.einsum("ni,nij->j", cd, jac), rtol=1e-9)
    np.testing.assert_allclose(t_d, jac.sum(-1), rtol=1e-9)


@pytest.mark.parametrize("sampler", ["gamma", "beta", "dirichlet"])
def test_gamma_family_mean_derivative_by_monte_carlo(sampler):
    # the mean of the pathwise derivatives is the derivative of the mean
    a = hg.tensor("a", (2,), "float64")
    k = hg.random.key(KEY)
    n = 4000
    s = {"gamma": lambda: hg.random.gamma(k, a, shape=(n, 2)),
         "beta": lambda: hg.random.beta(k, a, 2.0, shape=(n, 2)),
         "dirichlet": lambda: hg.random.dirichlet(k, a, shape=(n,))}[sampler]()
    g = hg.grad(hg.sum(s[:, 0]) / n, a)
    av = np.array([0.6, 2.5])
    expected = {"gamma": [1.0, 0.0],  # E[x] = a
                "beta": [2.0 / (av[0] + 2.0) ** 2, 0.0],  # E[s] = a / (a + b)
                "dirichlet": [av[1] / av.sum() ** 2, -av[0] / av.sum() ** 2]}[sampler]  # a_0 / sum(a)
    np.testing.assert_allclose(hg.evaluate(hg.Graph([a], g), av), expected, atol=0.02)
