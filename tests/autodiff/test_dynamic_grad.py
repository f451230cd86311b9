"""Gradients of the host ops (value-dependent shapes) against jax with the same
selection written as static indexing, and finite differences: boolean masks, mask
assignment, compress/extract, repeat, unique, bincount weights, arange and linspace
bounds, evaluated op by op. The gradients are host ops too: one graph gathering several
of them compiles (host and device segments; a host segment takes seconds to compile)
and matches. Results of a value-dependent length are reduced to a scalar
(check_grads needs a static output shape). Set operations say why they have no
gradient; run-time checks pass the cotangent through, still checked."""

import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.compiler.partition import partition
from hlograph.frontend.ops import assertion as asn
from hlograph.frontend.ops.dynamic import dynamic_repeat, mask_assign
from hlograph.tests.autodiff.helpers import check_grads


def check(fn, jax_fn, args, rng, **kw):
    """check_grads of ``sum(sin(1.7 * fn(...)))`` (a scalar of any ``fn``'s result),
    evaluated (test_gradient_graphs_compile compiles)."""
    return check_grads(lambda *a: hg.sum(hg.sin(fn(*a) * 1.7)),
                       None if jax_fn is None else (lambda *a: jnp.sum(jnp.sin(jax_fn(*a) * 1.7))),
                       args, rng=rng, compiled=False, **kw)


def test_boolean_mask(rng):
    xv = rng.normal(size=(3, 4))
    mask = rng.normal(size=(3, 4)) > 0
    # a mask from the graph's own values, a constant mask of leading dims
    check(lambda x: x[x > 0] ** 2, lambda x: x[xv > 0] ** 2, [xv], rng)
    check(lambda x: hg.exp(x)[hg.constant(mask[:, 0])] * 2.0, lambda x: jnp.exp(x)[mask[:, 0]] * 2.0, [xv], rng)


def test_mask_assign(rng):
    xv = rng.normal(size=(3, 4))
    mask = xv > 0
    check(lambda x, v: mask_assign(x, x > 0, v), lambda x, v: jnp.where(mask, v, x), [xv, np.float64(0.3)], rng)
    # values of the selected rows' shape, broadcast over the rows
    rows = np.array([True, False, True])
    check(lambda x, v: mask_assign(hg.exp(x), hg.constant(rows), v) * x,
          lambda x, v: jnp.where(rows[:, None], v, jnp.exp(x)) * x, [xv, rng.normal(size=4)], rng)


def test_compress_and_extract(rng):
    xv = rng.normal(size=(3, 4))
    check(lambda x: hg.compress(np.array([1, 0, 1]), x, axis=0) ** 2, lambda x: x[np.array([0, 2])] ** 2, [xv], rng)
    # a shorter condition (nothing selected past its end) along axis 1
    check(lambda x: hg.compress(np.array([0, 1, 0]), x, axis=1) ** 2, lambda x: x[:, np.array([1])] ** 2, [xv], rng)
    check(lambda x: hg.compress(np.array([0, 1, 1, 0, 1]), x) ** 3, lambda x: x.ravel()[np.array([1, 2, 4])] ** 3,
          [xv], rng)
    check(lambda x: hg.extract(x > 0, x) * x[0, 0], lambda x: x[xv > 0] * x[0, 0], [xv], rng)


def test_repeat(rng):
    xv = rng.normal(size=(3, 2))
    reps = np.array([1, 0, 3])
    check(lambda x: dynamic_repeat(x, hg.constant(reps), axis=0) ** 2, lambda x: jnp.repeat(x, reps, axis=0) ** 2,
          [xv], rng)
    check(lambda x: dynamic_repeat(x, hg.constant(np.int64(2))) ** 2, lambda x: jnp.repeat(x, 2) ** 2, [xv], rng)


def test_repeat_counts_from_the_graph(rng):
    # the counts are computed from the values: their derivative is zero
    xv = np.array([0.3, 1.7, 2.4, -1.2])
    check(lambda x: dynamic_repeat(x, hg.floor(hg.abs(x)).astype("int64")) * 2.0,
          lambda x: jnp.repeat(x, np.floor(np.abs(xv)).astype(int)) * 2.0, [xv], rng)


def test_unique(rng):
    # the cotangent of a repeated value goes to its first occurrence, as jax's
    # unique(size=...) (finite differences do not apply at ties)
    xv = np.array([3.0, 1.0, 3.0, 2.0, 1.5, 2.0])
    check(lambda x: hg.unique(x) ** 2, lambda x: jnp.unique(x, size=4) ** 2, [xv], rng, fd=False)
    check(lambda x: hg.unique(x, return_counts=True)[0] * 2.0, None, [rng.normal(size=(2, 3))], rng)


def test_bincount_weights(rng):
    xi = np.array([0, 2, 2, 5])
    check(lambda w: hg.bincount(hg.constant(xi), w) * 3.0, lambda w: jnp.bincount(xi, w, length=6) * 3.0,
          [rng.normal(size=4)], rng)
    # float32 weights: the counts are float64, the gradient float32
    check(lambda w: hg.bincount(hg.constant(xi), w, minlength=8),
          lambda w: jnp.bincount(xi, w.astype(jnp.float64), length=8),
          [rng.normal(size=4).astype("float32")], rng, fd_eps=1e-3, fd_tol=2e-3)


def test_arange_and_linspace_bounds(rng):
    check(lambda a, s: hg.dynamic_arange(a, 3.7, s) ** 2, lambda a, s: (a + jnp.arange(5) * s) ** 2,
          [np.float64(0.5), np.float64(0.7)], rng)
    num = hg.constant(np.int64(5))
    for endpoint in (True, False):
        check(lambda a, b: hg.dynamic_linspace(a, b, num, endpoint=endpoint) ** 2,
              lambda a, b: jnp.linspace(a, b, 5, endpoint=endpoint) ** 2, [np.float64(0.5), np.float64(2.8)], rng)
    check(lambda a, b: hg.dynamic_linspace(a, b, hg.constant(np.int64(1))) ** 2,
          lambda a, b: jnp.linspace(a, b, 1) ** 2, [np.float64(0.5), np.float64(2.8)], rng)



def test_gradient_graphs_compile(rng):
    x = hg.tensor("x", (3, 4), "float64")
    a = hg.tensor("a", (), "float64")
    n = hg.tensor("n", (), "int64")
    w = hg.tensor("w", (4,), "float64")
    checked = asn.check_and_raise(x, hg.all(hg.isfinite(x)), "x must be finite")
    parts = [  # a few: the compile time grows with the host ops
        hg.sort(checked[checked > 0]) * a,
        hg.compress(np.array([1, 0, 1]), x, axis=0),
        hg.unique(hg.round(x * 2.0) + x * 1e-3),
        hg.bincount(hg.constant(np.array([0, 3, 3, 1])), w),
        hg.dynamic_linspace(a, 2.0 * a, n),
    ]
    cost = sum(hg.sum(hg.sin(p * 1.3)) for p in parts)
    grads = hg.grad(cost, [x, a, w])
    tangent = hg.jvp(cost, [x, a, w], [np.ones((3, 4)), 1.0, np.ones(4)])
    graph = hg.Graph([x, a, n, w], [*grads, tangent])
    assert len(partition(graph)) > 2  # host and device segments
    args = [rng.normal(size=(3, 4)), np.float64(0.7), np.int64(4), rng.normal(size=4)]
    fn = hg.compile(graph)
    for c, e in zip(fn(*args), hg.evaluate(graph, *args)):
        np.testing.assert_allclose(c, e, rtol=1e-10, atol=1e-12)
    # the gradient depends on the check: it raises as the value would
    args[0][1, 2] = np.nan
    with pytest.raises(asn.CheckError, match="x must be finite"):
        fn(*args)


def test_set_operations_say_why_they_have_no_gradient():
    a = hg.tensor("a", (4,), "float64")
    with pytest.raises(hg.NotDifferentiableError, match="Union1d.*sorted unique values"):
        hg.grad(hg.sum(hg.union1d(a, np.array([1.0]))), a)
    # index results end paths: no error
    cost = hg.sum(a) * hg.sum(hg.flatnonzero(a > 0).astype("float64")) + hg.sum(hg.isin(a, [1.0]).astype("float64"))
    hg.grad(cost, a)


def test_check_passes_the_cotangent_through_the_same_check(rng):
    x = hg.tensor("x", (3,), "float64")
    y = asn.check_and_raise(x, hg.all(x > 0), "x must be positive")
    g = hg.grad(hg.sum(hg.log(y)), x)
    t = hg.jvp(hg.log(y), x, np.ones(3))
    graph = hg.Graph([x], [g, t])
    assert sum(isinstance(n.op, asn.Check) for n in graph.nodes) == 1
    xv = np.array([1.0, 2.0, 4.0])
    out = hg.evaluate(graph, xv)
    np.testing.assert_allclose(out[0], 1 / xv)
    np.testing.assert_allclose(out[1], 1 / xv)
    with pytest.raises(asn.CheckError, match="x must be positive"):
        hg.evaluate(graph, -xv)  # (compiled in test_gradient_graphs_compile)
    check_grads(lambda x: asn.check_and_raise(x * x, hg.constant(True)), lambda x: x * x, [rng.normal(size=3)],
                rng=rng, compiled=False)
