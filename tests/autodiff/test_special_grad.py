"""Gradients of the special functions against jax.scipy.special (where jax has the
function) and finite differences; parameters without a derivative raise, naming
the Op, only when they need one."""

import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import pytest

import hlograph as hg
from hlograph.tests.autodiff.helpers import check_grads


def _softplus(x):
    return jnp.logaddexp(0.0, x)


UNARY = [
    ("erfc", hg.erfc, jss.erfc, (-2, 2)),
    ("erfcx", hg.erfcx, jss.erfcx, (-1, 3)),
    ("erfinv", hg.erfinv, jss.erfinv, (-0.9, 0.9)),
    ("gammaln", hg.gammaln, jss.gammaln, (0.3, 4)),
    ("digamma", hg.digamma, jss.digamma, (0.3, 4)),
    ("softplus", hg.softplus, _softplus, (-3, 3)),
    ("log1mexp", hg.log1mexp, lambda x: jnp.log(-jnp.expm1(x)), (-3, -0.1)),
    ("i0e", hg.i0e, jss.i0e, (-3, 3)),
    ("i1e", hg.i1e, jss.i1e, (-3, 3)),
    ("ndtr", hg.ndtr, jss.ndtr, (-3, 3)),
    ("ndtri", hg.ndtri, jss.ndtri, (0.05, 0.95)),
    ("log_ndtr", hg.log_ndtr, jss.log_ndtr, (-6, 3)),
]


@pytest.mark.parametrize("name,fn,jfn,bounds", UNARY, ids=[r[0] for r in UNARY])
def test_unary(name, fn, jfn, bounds, rng):
    x = rng.uniform(*bounds, size=(5,))
    check_grads(fn, jfn, [x], rng=rng, tol=(1e-7, 1e-9))


def test_log_ndtr_far_tail():
    x = hg.tensor("x", (2,), "float64")
    g = hg.evaluate(hg.Graph([x], hg.grad(hg.sum(hg.log_ndtr(x)), x)), np.array([-30.0, -50.0]))
    np.testing.assert_allclose(g, [30.0, 50.0], rtol=1e-2)  # ~ -x, no overflow


def test_xlogy_xlog1py(rng):
    x, y = rng.uniform(0.2, 2, size=(3,)), rng.uniform(0.2, 2, size=(2, 3))
    check_grads(hg.xlogy, jss.xlogy, [x, y], rng=rng)
    check_grads(hg.xlog1py, jss.xlog1py, [x, y], rng=rng)
    # at x == 0: d/dx = log(y), d/dy = 0, as jax
    out = check_grads(hg.xlogy, jss.xlogy, [np.zeros(2), np.array([2.0, 0.5])], rng=rng, fd=False)
    assert not np.any(out["grads"][1])


def test_polygamma_in_x_but_not_n(rng):
    x = rng.uniform(0.5, 3, size=(4,))
    check_grads(lambda v: hg.polygamma(2, v) + hg.trigamma(v), lambda v: jss.polygamma(2, v) + jss.polygamma(1, v),
                [x], rng=rng, tol=(1e-7, 1e-9))
    n = hg.tensor("n", (), "float64")
    v = hg.tensor("v", (), "float64")
    with pytest.raises(hg.NotDifferentiableError, match="Polygamma.*input 0.*integer orders"):
        hg.grad(hg.polygamma(n, v), n)


def test_incomplete_gamma_and_beta_in_x(rng):
    a, b = rng.uniform(0.5, 3, size=(3,)), rng.uniform(0.5, 3, size=(3,))
    x = rng.uniform(0.2, 0.8, size=(3,))
    check_grads(hg.gammainc, jss.gammainc, [a, x * 3], argnums=[1], rng=rng, tol=(1e-7, 1e-9))
    check_grads(hg.gammaincc, jss.gammaincc, [a, x * 3], argnums=[1], rng=rng, tol=(1e-7, 1e-9))
    check_grads(hg.betainc, jss.betainc, [a, b, x], argnums=[2], rng=rng, tol=(1e-7, 1e-9))
    # no jax functions: finite differences only, through perform (their compiled forms
    # are slow to build, and tests/ops covers them)
    check_grads(hg.gammaincinv, None, [a, x], argnums=[1], rng=rng, compiled=False)
    check_grads(hg.gammainccinv, None, [a, x], argnums=[1], rng=rng, compiled=False)
    check_grads(hg.betaincinv, None, [a, b, x], argnums=[2], rng=rng, compiled=False)
    check_grads(hg.ive, None, [a, x * 4], argnums=[1], rng=rng, compiled=False)
    check_grads(hg.kve, None, [a, x * 4], argnums=[1], rng=rng, compiled=False)


@pytest.mark.parametrize("name", ["gammainc", "betainc", "kve"])
def test_parameter_derivative_missing(name):
    a = hg.tensor("a", (), "float64")
    x = hg.tensor("x", (), "float64")
    fn = getattr(hg, name)
    out = fn(a, a, x) if name == "betainc" else fn(a, x)
    with pytest.raises(hg.NotDifferentiableError, match=f"{name.capitalize()}.*input 0.*stop_gradient"):
        hg.grad(out, a)
    # only x needs one: fine; and a stop_gradient on the parameter cuts the path
    hg.grad(out, x)
    out2 = fn(hg.stop_gradient(a), hg.stop_gradient(a), x) if name == "betainc" else fn(hg.stop_gradient(a), x)
    hg.grad(out2 * a, a)
