"""Higher order: gradient graphs are ordinary graphs, so they differentiate again (grad of
grad, Hessians forward-over-reverse and reverse-over-reverse, Hessian-vector products,
Jacobians in both modes), checked against jax, evaluated and compiled."""

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.graph import _ancestors_toposort
from hlograph.tests.autodiff.helpers import GRAD_TOL

TOL = GRAD_TOL[np.dtype("float64")]


def _run(graph, *args):
    ref = hg.evaluate(graph, *args)
    comp = hg.compile(graph)(*args)
    for r, c in zip(ref if isinstance(ref, tuple) else (ref,), comp if isinstance(comp, tuple) else (comp,)):
        np.testing.assert_allclose(c, r, rtol=1e-9, atol=1e-11)
    return ref


def _jax(fn, *args):
    with jax.enable_x64(True):
        return jax.jit(fn)(*args)


# cost(x) for x of shape (2, 3), in hlograph and jax.numpy
COSTS = [
    ("elementwise", lambda x: hg.sum(hg.exp(hg.sin(x)) * hg.tanh(x) + hg.log1p(x * x) / (2.0 + hg.cos(x))),
     lambda x: jnp.sum(jnp.exp(jnp.sin(x)) * jnp.tanh(x) + jnp.log1p(x * x) / (2.0 + jnp.cos(x)))),
    ("power_maximum", lambda x: hg.sum(hg.maximum(x, 0.1) ** 3 + hg.sqrt(hg.abs(x) + 1.0)),
     lambda x: jnp.sum(jnp.maximum(x, 0.1) ** 3 + jnp.sqrt(jnp.abs(x) + 1.0))),
    ("matmul", lambda x: hg.sum(hg.tanh(x @ x.T) @ x),
     lambda x: jnp.sum(jnp.tanh(x @ x.T) @ x)),
    ("reductions", lambda x: hg.prod(x, axis=0).sum() + hg.max(x * x, axis=1).sum() + hg.var(x, axis=0).sum()
     + hg.std(x) + hg.mean(hg.exp(x)),
     lambda x: jnp.prod(x, axis=0).sum() + jnp.max(x * x, axis=1).sum() + jnp.var(x, axis=0).sum()
     + jnp.std(x) + jnp.mean(jnp.exp(x))),
    ("softmax_family", lambda x: hg.sum(hg.softmax(x, axis=1) * x) + hg.logsumexp(x) + hg.sum(hg.log_softmax(x, axis=0) ** 2),
     lambda x: jnp.sum(jax.nn.softmax(x, axis=1) * x) + jss.logsumexp(x) + jnp.sum(jax.nn.log_softmax(x, axis=0) ** 2)),
    ("cumulative", lambda x: hg.sum(hg.cumsum(x, axis=1) ** 2) + hg.sum(hg.cumprod(x, axis=0)),
     lambda x: jnp.sum(jnp.cumsum(x, axis=1) ** 2) + jnp.sum(jnp.cumprod(x, axis=0))),
    ("special", lambda x: hg.sum(hg.gammaln(x * x + 1.0) + hg.erf(x) * hg.softplus(x)),
     lambda x: jnp.sum(jss.gammaln(x * x + 1.0) + jss.erf(x) * jnp.logaddexp(0.0, x))),
]


@pytest.mark.parametrize("name,cost,jcost", COSTS, ids=[c[0] for c in COSTS])
def test_hessian(name, cost, jcost, rng):
    x = hg.tensor("x", (2, 3), "float64")
    xv = rng.uniform(0.3, 1.2, size=(2, 3)) * np.sign(rng.normal(size=(2, 3)))
    h = hg.hessian(cost(x), x)
    assert h.type == hg.TensorType("float64", (2, 3, 2, 3))
    ref = _jax(jax.hessian(jcost), xv)
    np.testing.assert_allclose(_run(hg.Graph([x], h), xv), ref, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name,cost,jcost", COSTS[:4], ids=[c[0] for c in COSTS[:4]])
def test_grad_of_grad_and_reverse_over_reverse(name, cost, jcost, rng):
    x = hg.tensor("x", (2, 3), "float64")
    v = hg.tensor("v", (2, 3), "float64")
    xv = rng.uniform(0.3, 1.2, size=(2, 3))
    vv = rng.normal(size=(2, 3))
    g = hg.grad(cost(x), x)
    # the gradient of <grad, v> is the Hessian-vector product, as is jvp(grad, v)
    hvp_rev = hg.grad(hg.sum(g * v), x)
    hvp_fwd = hg.jvp(g, x, v)
    h_rev = hg.jacobian(g, x, mode="rev")
    out = _run(hg.Graph([x, v], [hvp_rev, hvp_fwd, h_rev]), xv, vv)
    ref_h = _jax(jax.hessian(jcost), xv)
    ref_hvp = np.tensordot(ref_h, vv, axes=2)
    np.testing.assert_allclose(out[0], ref_hvp, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(out[1], ref_hvp, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(out[2], ref_h, rtol=1e-8, atol=1e-10)


def test_third_order_elementwise(rng):
    x = hg.tensor("x", (), "float64")
    y = hg.sin(x) * hg.exp(x)
    d3 = hg.grad(hg.grad(hg.grad(y, x), x), x)
    xv = 0.7
    ref = _jax(jax.grad(jax.grad(jax.grad(lambda t: jnp.sin(t) * jnp.exp(t)))), xv)
    np.testing.assert_allclose(_run(hg.Graph([x], d3), xv), ref, rtol=1e-10)


def test_jacobian_modes_agree(rng):
    x = hg.tensor("x", (3,), "float64")
    w = hg.tensor("w", (3, 2), "float64")
    y = hg.tanh(x @ w) * hg.sum(x)
    jr = hg.jacobian(y, [x, w], mode="rev")
    jf = hg.jacobian(y, [x, w], mode="fwd")
    assert [j.shape for j in jr] == [(2, 3), (2, 3, 2)] == [j.shape for j in jf]
    xv, wv = rng.normal(size=3), rng.normal(size=(3, 2))
    out = _run(hg.Graph([x, w], [*jr, *jf]), xv, wv)
    ref = _jax(jax.jacrev(lambda a, b: jnp.tanh(a @ b) * jnp.sum(a), (0, 1)), xv, wv)
    for got, r in zip(out, list(ref) * 2):
        np.testing.assert_allclose(got, r, rtol=1e-10, atol=1e-12)


def test_hessian_of_several_inputs(rng):
    a = hg.tensor("a", (2,), "float64")
    b = hg.tensor("b", (), "float64")
    cost = hg.sum(a * a * b) + hg.exp(b) * a[0]
    h = hg.hessian(cost, [a, b])
    assert [[blk.shape for blk in row] for row in h] == [[(2, 2), (2,)], [(2,), ()]]
    av, bv = np.array([0.5, -1.0]), 0.3
    out = _run(hg.Graph([a, b], [blk for row in h for blk in row]), av, bv)
    ref = _jax(jax.hessian(lambda p, q: jnp.sum(p * p * q) + jnp.exp(q) * p[0], (0, 1)), av, bv)
    for got, r in zip(out, [r for row in ref for r in row]):
        np.testing.assert_allclose(got, r, rtol=1e-10, atol=1e-12)


def _node_count(outputs):
    return len(_ancestors_toposort(list(outputs)))


def _mlp(x, w):
    """A small network of one input vector: its Jacobians and Hessian need gathers,
    reductions, contractions and elementwise ops batched."""
    h = hg.tanh(x[:, None] * w)
    return hg.softmax(hg.sum(h, axis=0)) * hg.logsumexp(x) + hg.cumsum(x)[-1]


def _jmlp(x, w):
    h = jnp.tanh(x[:, None] * w)
    return jax.nn.softmax(jnp.sum(h, axis=0)) * jss.logsumexp(x) + jnp.cumsum(x)[-1]


@pytest.mark.parametrize("kind", ["rev", "fwd", "hessian"])
def test_graph_size_does_not_grow_with_the_size(kind):
    counts = []
    for n in (10, 200):
        x = hg.tensor("x", (n,), "float64")
        w = hg.tensor("w", (n, 3), "float64")
        if kind == "hessian":
            out = hg.hessian(hg.sum(_mlp(x, w)), x)
        else:
            out = hg.jacobian(_mlp(x, w), x, mode=kind)
        counts.append(_node_count([out]))
    assert counts[0] == counts[1], counts
    # and no loop: every node of the seed's vectorization has a batching rule
    kinds = {type(nd.op).__name__ for nd in _ancestors_toposort([out])}
    assert "Blockwise" not in kinds, kinds


def test_jacobians_and_hessian_of_a_larger_input(rng):
    n = 40
    x = hg.tensor("x", (n,), "float64")
    w = hg.tensor("w", (n, 3), "float64")
    y = _mlp(x, w)
    jr, jf = hg.jacobian(y, [x, w], mode="rev"), hg.jacobian(y, [x, w], mode="fwd")
    h = hg.hessian(hg.sum(y), x)
    xv, wv = rng.normal(size=n) * 0.3, rng.normal(size=(n, 3))
    out = _run(hg.Graph([x, w], [*jr, *jf, h]), xv, wv)
    ref_j = _jax(jax.jacrev(_jmlp, (0, 1)), xv, wv)
    ref_jf = _jax(jax.jacfwd(_jmlp, (0, 1)), xv, wv)
    ref_h = _jax(jax.hessian(lambda a, b: jnp.sum(_jmlp(a, b))), xv, wv)
    for got, r in zip(out, [*ref_j, *ref_jf, ref_h]):
        np.testing.assert_allclose(got, r, rtol=1e-9, atol=1e-11)
