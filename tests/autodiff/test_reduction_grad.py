"""Gradients of the reductions, cumulative reductions and the softmax family against jax
and finite differences: axes (None, negative, tuples), keepdims, 0-d and empty inputs,
zeros in products, ties in maxima."""

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import hlograph as hg
from hlograph.tests.autodiff.helpers import check_grads

SETTINGS = settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def shape_and_axis(draw, min_size=0, tuples=True):
    shape = tuple(draw(st.lists(st.integers(min_size, 3), max_size=3)))
    choices = [st.none()]
    if shape:
        choices.append(st.integers(-len(shape), len(shape) - 1))
        if tuples:
            choices.append(st.lists(st.integers(0, len(shape) - 1), unique=True).map(tuple))
    return shape, draw(st.one_of(*choices)), draw(st.booleans())


REDUCTIONS = {
    "sum": (hg.sum, jnp.sum, 0),
    "prod": (hg.prod, jnp.prod, 0),
    "mean": (hg.mean, jnp.mean, 1),
    "max": (hg.max, jnp.max, 1),
    "min": (hg.min, jnp.min, 1),
    "logsumexp": (hg.logsumexp, jss.logsumexp, 1),
}


@pytest.mark.parametrize("name", list(REDUCTIONS))
@SETTINGS
@given(case=st.data())
def test_reductions(name, case, rng):
    fn, jfn, min_size = REDUCTIONS[name]
    shape, axis, keepdims = case.draw(shape_and_axis(min_size=min_size))
    check_grads(lambda x: fn(x, axis=axis, keepdims=keepdims), lambda x: jfn(x, axis=axis, keepdims=keepdims),
                [rng.normal(size=shape)], rng=rng)


@pytest.mark.parametrize("name", ["var", "std"])
@SETTINGS
@given(case=shape_and_axis(min_size=2), ddof=st.sampled_from([0, 1]))
def test_var_std(name, case, ddof, rng):
    shape, axis, keepdims = case
    axes = range(len(shape)) if axis is None else [axis] if isinstance(axis, int) else axis
    n = int(np.prod([shape[a] for a in axes]))
    assume(n > max(ddof, 1))  # std is 0 for one element: its derivative is NaN (as jax's)
    fn, jfn = getattr(hg, name), getattr(jnp, name)
    check_grads(lambda x: fn(x, axis=axis, keepdims=keepdims, ddof=ddof),
                lambda x: jfn(x, axis=axis, keepdims=keepdims, ddof=ddof), [rng.normal(size=shape)], rng=rng)


def test_var_std_complex(rng):
    z = rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))
    check_grads(lambda x: hg.var(x, axis=1), lambda x: jnp.var(x, axis=1), [z], rng=rng)
    check_grads(lambda x: hg.std(x, axis=0, ddof=1), lambda x: jnp.std(x, axis=0, ddof=1), [z], rng=rng)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@SETTINGS
@given(case=shape_and_axis(min_size=1))
def test_softmax_family(name, case, rng):
    shape, axis, _ = case
    axis = -1 if axis is None and shape else axis
    fn, jfn = getattr(hg, name), getattr(jax.nn, name)
    check_grads(lambda x: fn(x, axis=axis), lambda x: jfn(x, axis=axis), [rng.normal(size=shape)], rng=rng)


def test_log_softmax_pullback_reuses_the_forward_output():
    """ct - exp(out) * sum(ct): the pullback reads log_softmax's output (one exp of it; no
    second max, log or sum of exponentials), so the lowered value-and-grad module has one
    exponential for the forward and one for exp(out)."""
    x = hg.tensor("x", (4, 5), "float32")
    w = hg.tensor("w", (4, 5), "float32")
    out = hg.log_softmax(x, axis=-1)
    graph = hg.Graph([x, w], [out, hg.grad(hg.sum(out * w), x)])
    ops = [type(n.op).__name__ for n in graph.nodes]
    assert ops.count("LogSoftmax") == 1 and "LogSumExp" not in ops and "Log" not in ops
    exps = [n for n in graph.nodes if type(n.op).__name__ == "Exp"]
    assert len(exps) == 1 and exps[0].inputs[0] is out
    assert hg.compile(graph).lower().as_text().count("stablehlo.exponential") == 2


def _lax_cum(fn):
    def cum(x, axis):
        if axis is None:
            return fn(x.reshape(-1), axis=0)
        return fn(x, axis=axis % x.ndim)
    return cum


CUMULATIVE = {
    "cumsum": (hg.cumsum, jnp.cumsum),
    "cumprod": (hg.cumprod, jnp.cumprod),
    "cummax": (hg.cummax, _lax_cum(jax.lax.cummax)),
    "cummin": (hg.cummin, _lax_cum(jax.lax.cummin)),
}


@pytest.mark.parametrize("name", list(CUMULATIVE))
@SETTINGS
@given(case=shape_and_axis(tuples=False))
def test_cumulative(name, case, rng):
    shape, axis, _ = case
    fn, jfn = CUMULATIVE[name]
    check_grads(lambda x: fn(x, axis=axis), lambda x: jfn(x, axis=axis), [rng.normal(size=shape)], rng=rng)


def test_products_with_zeros_are_exact(rng):
    x = np.array([[2.0, 0.0, 3.0, 4.0], [0.0, 1.5, 0.0, 2.0], [1.0, 2.0, -1.0, 0.5]])
    check_grads(lambda v: hg.prod(v, axis=1), lambda v: jnp.prod(v, axis=1), [x], rng=rng)
    check_grads(lambda v: hg.prod(v, axis=0, keepdims=True), lambda v: jnp.prod(v, axis=0, keepdims=True), [x], rng=rng)
    check_grads(lambda v: hg.cumprod(v, axis=1), lambda v: jnp.cumprod(v, axis=1), [x], rng=rng)
    check_grads(lambda v: hg.cumprod(v), lambda v: jnp.cumprod(v), [x], rng=rng)
    xv = hg.tensor("x", (4,), "float64")
    g = hg.evaluate(hg.Graph([xv], hg.grad(hg.sum(hg.cumprod(xv)), xv)), np.array([2.0, 0.0, 3.0, 4.0]))
    np.testing.assert_array_equal(g, [1.0, 32.0, 0.0, 0.0])  # jax's values


def test_extremum_ties_share_equally(rng):
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    out = check_grads(lambda v: hg.max(v, axis=1), lambda v: jnp.max(v, axis=1), [x], rng=rng, fd=False)
    xv = hg.tensor("x", (2, 3), "float64")
    g = hg.evaluate(hg.Graph([xv], hg.grad(hg.sum(hg.max(xv, axis=1)), xv)), x)
    np.testing.assert_allclose(g, [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    assert out["grads"][0].shape == (2, 3)


def test_no_gradient_through_indices_and_booleans(rng):
    x = hg.tensor("x", (3, 4), "float64")
    i = hg.argmax(x, axis=1)
    cost = hg.sum(hg.astype(i, "float64") * hg.sum(x)) + hg.sum(hg.astype(hg.any(x > 0, axis=0), "float64"))
    g = hg.grad(cost, x)
    xv = rng.normal(size=(3, 4))
    np.testing.assert_allclose(hg.evaluate(hg.Graph([x], g), xv), np.full((3, 4), float(np.argmax(xv, 1).sum())))


def test_unknown_dims_sum_to_their_runtime_shapes(rng):
    # x's dim 0 is 1 at run time and broadcasts: the gradient sums over it
    x = hg.tensor("x", (None, 3), "float64")
    y = hg.tensor("y", (None, 3), "float64")
    gx, gy = hg.grad(hg.sum(hg.mean(x * y, axis=0) ** 2), [x, y])
    graph = hg.Graph([x, y], [gx, gy])
    xv, yv = rng.normal(size=(1, 3)), rng.normal(size=(4, 3))
    with jax.enable_x64(True):
        ref = jax.grad(lambda a, b: jnp.sum(jnp.mean(a * b, axis=0) ** 2), (0, 1))(xv, yv)
    for out in (hg.evaluate(graph, xv, yv), hg.compile(graph)(xv, yv)):
        for a, e in zip(out, ref):
            np.testing.assert_allclose(a, e, rtol=1e-10)
