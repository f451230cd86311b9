"""Gradients of sorting and selection against jax (jnp.sort, lax.top_k) and finite
differences: every axis, descending sorts, ties (cotangents follow jax's order), a
partition (a full sort), unknown dims and dynamic lengths; indices have none. Also the identity rules of
sharding constraints, compiled for a device mesh."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops.sharding import ShardingConstraint, with_sharding
from hlograph.runtime.mesh import P, make_mesh
from hlograph.tests.autodiff.helpers import check_grads


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("axis", [0, -1, None])
def test_sort(axis, descending, rng):
    def f(x):
        return hg.sort(x, axis=axis, descending=descending)

    def jf(x):
        return jnp.sort(x, axis=axis, descending=descending)

    check_grads(f, jf, [rng.normal(size=(3, 4))], rng=rng)
    # ties: tied elements take the cotangents in jax's order (finite differences do not
    # apply at a tie)
    x = rng.normal(size=(3, 4))
    x[0, 0] = x[0, 2] = x[1, 2] = x[2, 3]
    check_grads(f, jf, [x], rng=rng, fd=False)


def test_sort_float32_and_partition(rng):
    check_grads(lambda x: hg.sort(x, axis=0), lambda x: jnp.sort(x, axis=0),
                [rng.normal(size=(5, 2)).astype("float32")], rng=rng, fd_eps=1e-3, fd_tol=2e-3)
    check_grads(lambda x: hg.partition(x, 1, axis=0), lambda x: jnp.sort(x, axis=0),
                [rng.normal(size=(4, 3))], rng=rng)


def test_top_k(rng):
    def f(x):
        return hg.top_k(x, 3)[0]

    def jf(x):
        return jax.lax.top_k(x, 3)[0]

    check_grads(f, jf, [rng.normal(size=(2, 6))], rng=rng)
    x = rng.normal(size=(2, 6))
    x[1, 1] = x[1, 4] = 5.0  # a tie among the largest: equal values in index order
    check_grads(f, jf, [x], rng=rng, fd=False)


def test_sort_of_a_dynamic_length(rng):
    # x[x > 0] has a value-dependent length: a host op feeds the sort; the gradient
    # scatters back through the sort, then through the mask
    xv = rng.normal(size=8)
    # (compiled in test_dynamic_grad.py)
    check_grads(lambda x: hg.sum(hg.sort(x[x > 0]) * hg.cumsum(hg.ones_like(x[x > 0]))),
                lambda x: jnp.sum(jnp.sort(x[xv > 0]) * jnp.arange(1, 1 + (xv > 0).sum())), [xv], rng=rng,
                compiled=False)


@pytest.mark.parametrize("descending", [False, True])
def test_unknown_dims(descending, rng):
    # the positions along the unknown dims are counted at run time
    x = hg.tensor("x", (None, 3, None), "float64")
    w = np.arange(1.0, 4.0)[:, None]
    g = hg.grad(hg.sum(hg.sort(x, axis=1, descending=descending) ** 2 * w), x)
    gk = hg.grad(hg.sum(hg.top_k(x, 2)[0] ** 2), x)
    t = hg.jvp(hg.sort(x, axis=1, descending=descending), x, hg.ones_like(x) * x)
    graph = hg.Graph([x], [g, gk, t])
    xv = rng.normal(size=(2, 3, 4))
    with jax.enable_x64(True):
        ref = np.asarray(jax.grad(lambda x: jnp.sum(jnp.sort(x, axis=1, descending=descending) ** 2 * w))(xv))
        ref_k = np.asarray(jax.grad(lambda x: jnp.sum(jax.lax.top_k(x, 2)[0] ** 2))(xv))
    for out in (hg.evaluate(graph, xv), hg.compile(graph)(xv)):
        np.testing.assert_allclose(out[0], ref, rtol=1e-12)
        np.testing.assert_allclose(out[1], ref_k, rtol=1e-12)
        np.testing.assert_allclose(out[2], np.sort(xv, axis=1)[:, ::-1 if descending else 1], rtol=1e-12)


def test_indices_have_no_gradient(rng):
    x = hg.tensor("x", (5,), "float64")
    cost = hg.sum(hg.take(x, hg.argsort(x)) * hg.arange(5.0)) + hg.sum(hg.argpartition(x, 2).astype("float64"))
    g = hg.grad(cost, x)
    xv = rng.normal(size=5)
    ref = np.zeros(5)
    ref[np.argsort(xv)] = np.arange(5.0)
    np.testing.assert_allclose(hg.evaluate(hg.Graph([x], g), xv), ref)


# --- sharding ---------------------------------------------------------------------------
def test_sharding_constraint_is_the_identity_and_constrains_its_cotangent(rng):
    x = hg.tensor("x", (8, 4), "float64")
    w = hg.tensor("w", (4, 4), "float64")
    h = with_sharding(hg.tanh(x @ w), P("x", None))
    cost = hg.sum(h * h)
    gx, gw = hg.grad(cost, [x, w])
    t = hg.jvp(h, w, np.ones((4, 4)))
    graph = hg.Graph([x, w], [gx, gw, t])
    assert sum(isinstance(n.op, ShardingConstraint) for n in graph.nodes) == 3
    xv, wv = rng.normal(size=(8, 4)), rng.normal(size=(4, 4))
    with jax.enable_x64(True):
        jcost = lambda x, w: jnp.sum(jnp.tanh(x @ w) ** 2)
        ref = [np.asarray(r) for r in jax.grad(jcost, argnums=(0, 1))(xv, wv)]
        ref_t = np.asarray(jax.jvp(lambda w: jnp.tanh(xv @ w), (wv,), (np.ones((4, 4)),))[1])
    fn = hg.compile(graph, mesh=make_mesh((8,), ("x",)))
    assert fn.lower().as_text().count("sdy.sharding_constraint") >= 2
    for out in (hg.evaluate(graph, xv, wv), fn(xv, wv)):
        for a, r in zip(out, [*ref, ref_t]):
            np.testing.assert_allclose(np.asarray(a), r, rtol=1e-10, atol=1e-12)
