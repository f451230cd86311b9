"""Gradients of indexing against jax and finite differences: basic indexing (ints,
slices of any step, new axes), gathers (integer arrays, mixed with slices, negative and
repeated indices, take, take_along_axis), updates at indices in every mode (set with
repeated indices, add, multiply exact with zeros, min/max with ties), broadcast
values, 0-d and empty cases, index arrays as graph values, unknown dims, searchsorted,
and second derivatives of gathers, scatters and cummax/cummin."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops import indexing as ix
from hlograph.tests.autodiff.helpers import check_grads

# --- basic indexing and gathers: fn(x) for x of shape (3, 4, 5) ---------------------------
I2 = np.array([[0, 2], [-1, 0]])
GATHERS = {
    "int_and_slices": lambda x: x[1, ::2, -1],
    "reversed_strided_new_axis": lambda x: x[None, ::-2, 1:3, ..., None],
    "empty_slice": lambda x: x[:, 3:1],
    "repeated_negative": lambda x: x[np.array([0, 0, -1, 2])],
    "2d_index_with_slice": lambda x: x[:, I2, 1:],
    "separated_arrays": lambda x: x[np.array([0, -1, 0]), :, np.array([1, 1, 4])],
    "adjacent_broadcast_arrays": lambda x: x[:, np.array([[0], [3]]), np.array([1, 4, 4])],
    "new_axis_between": lambda x: x[np.array([1, 2]), None, ..., ::2],
    "empty_index": lambda x: x[np.array([], dtype=np.int64)],
    "int_next_to_array": lambda x: x[2, np.array([3, 3, 0])],
    "take_axis": lambda x: (hg.take if isinstance(x, hg.Variable) else jnp.take)(x, I2, axis=-1),
    "take_flat": lambda x: (hg.take if isinstance(x, hg.Variable) else jnp.take)(x, np.array([7, 7, 59, 0])),
    "take_wrap": lambda x: (hg.take if isinstance(x, hg.Variable) else jnp.take)(
        x, np.array([-7, 9, 4]), axis=2, mode="wrap"),
    "take_clip": lambda x: (hg.take if isinstance(x, hg.Variable) else jnp.take)(
        x, np.array([-7, 9, 1]), axis=1, mode="clip"),
    "take_along_axis": lambda x: (hg.take_along_axis if isinstance(x, hg.Variable) else jnp.take_along_axis)(
        x, np.array([[[0, 4]], [[4, 4]], [[1, 2]]]), axis=2),
}


@pytest.mark.parametrize("name", list(GATHERS))
def test_gathers(name, rng):
    fn = GATHERS[name]
    check_grads(fn, fn, [rng.normal(size=(3, 4, 5))], rng=rng)


def test_gather_complex_and_float32(rng):
    idx = np.array([2, 0, 2])
    z = rng.normal(size=(3, 2)) + 1j * rng.normal(size=(3, 2))
    check_grads(lambda x: x[idx] * x[idx], lambda x: x[idx] * x[idx], [z], rng=rng)
    check_grads(lambda x: x[idx], lambda x: x[idx], [rng.normal(size=(3, 2)).astype(np.float32)], rng=rng,
                fd=False)  # finite differences cannot see through float32


def test_index_arrays_as_graph_values(rng):
    """Integer graph values as indices (a 0-d one too): they get no gradient; x does."""
    x = rng.normal(size=(4, 3))
    i, j = np.array([3, -1, 3]), np.array(1)
    check_grads(lambda x, i, j: x[i, j] + x[j], lambda x, i, j: x[i, j] + x[j], [x, i, j], rng=rng)
    check_grads(lambda x, i: hg.take_along_axis(x, i, 0), lambda x, i: jnp.take_along_axis(x, i, 0),
                [x, np.array([[0, 3, 3], [-1, 0, 2]])], rng=rng)


# --- updates at indices: fn(x, v) -----------------------------------------------------------
def _at(x, idx):
    return hg.at(x)[idx] if isinstance(x, hg.Variable) else x.at[idx]


IDX = (np.array([1, -4, 1, 3]),)  # row 1 twice: repeated, with a negative index
SCATTERS = {
    # name: (index, shape of x, shape of v)
    "repeated_rows": (IDX, (4, 3), (4, 3)),
    "broadcast_row": (IDX, (4, 3), (3,)),
    "broadcast_scalar": (IDX, (4, 3), ()),
    "broadcast_column": ((slice(None), np.array([[2], [0], [2]])), (4, 3), (3, 1)),
    "slices_only": ((slice(1, None, 2), slice(None, None, -1)), (4, 3), (2, 1)),
    "mixed_separated": ((np.array([0, 0]), slice(1, 3), np.array([-1, 2])), (2, 4, 3), (2, 2)),
    "scalar_int": ((2, 1), (4, 3), ()),
    "zero_d": ((), (), ()),
    "empty": ((np.array([], dtype=np.int64),), (4, 3), (0, 3)),
}


@pytest.mark.parametrize("mode", ["set", "add"])
@pytest.mark.parametrize("name", list(SCATTERS))
def test_set_and_add(name, mode, rng):
    idx, xs, vs = SCATTERS[name]
    fn = lambda x, v: getattr(_at(x, idx), mode)(v)  # noqa: E731
    check_grads(fn, fn, [rng.normal(size=xs), rng.normal(size=vs)], rng=rng)


def test_set_keeps_the_last_write_of_repeated_indices(rng):
    """Only the write that is kept gets a gradient: the others do not reach the output."""
    x, v = hg.tensor("x", (3,), "float64"), hg.tensor("v", (4,), "float64")
    gx, gv = hg.grad(hg.sum(hg.at(x)[[1, 1, 2, 1]].set(v) * np.array([1.0, 2.0, 3.0])), [x, v])
    graph = hg.Graph([x, v], [gx, gv])
    for out in (hg.evaluate(graph, np.ones(3), np.ones(4)), hg.compile(graph)(np.ones(3), np.ones(4))):
        np.testing.assert_array_equal(out[0], [1.0, 0.0, 0.0])
        np.testing.assert_array_equal(out[1], [0.0, 0.0, 3.0, 2.0])


def test_set_with_graph_indices_and_unknown_dims(rng):
    """Repeated indices known only at run time, on inputs of unknown shape."""
    xv, vv, iv = rng.normal(size=(5, 2)), rng.normal(size=(4, 2)), np.array([1, 1, -2, 0])
    check_grads(lambda x, v, i: hg.at(x)[i].set(v), lambda x, v, i: x.at[i].set(v), [xv, vv, iv], rng=rng)
    x, v, i = hg.tensor("x", (None, None), "float64"), hg.tensor("v", (None, 2), "float64"), hg.tensor("i", (None,), "int64")
    y = hg.at(x)[i].set(v * v)
    graph = hg.Graph([x, v, i], hg.grad(hg.sum(y * hg.cos(y)), [x, v]))
    with jax.enable_x64(True):
        ref = jax.jit(jax.grad(lambda x, v: jnp.sum(x.at[iv].set(v * v) * jnp.cos(x.at[iv].set(v * v))),
                               argnums=(0, 1)))(xv, vv)
    for out in (hg.evaluate(graph, xv, vv, iv), hg.compile(graph)(xv, vv, iv)):
        for a, r in zip(out, ref):
            np.testing.assert_allclose(a, r, rtol=1e-10, atol=1e-12)


def _jax_multiply_one_by_one(idx, x, v):
    """x.at[idx].multiply(v) with each factor applied alone (jax differentiates multiply only
    for unique indices)."""
    for k, i in enumerate(idx):
        x = x.at[i].multiply(v[k], unique_indices=True)
    return x


@pytest.mark.parametrize("zeros", [(), (1,), (0, 1), (2,)])
def test_multiply_exact_with_zeros(zeros, rng):
    """Repeated indices with zero factors: at row 1, none, one or two factors are 0."""
    idx = np.array([1, 1, 3, 1])
    x, v = rng.normal(size=(5, 2)), rng.normal(size=(4, 2))
    v[list(zeros)] = 0.0
    check_grads(lambda x, v: hg.at(x)[idx].multiply(v), lambda x, v: _jax_multiply_one_by_one(idx, x, v),
                [x, v], rng=rng)


def test_multiply_unique_and_broadcast(rng):
    idx = (slice(None), np.array([2, 0]))
    fn = lambda x, v: _at(x, idx).multiply(v)  # noqa: E731
    check_grads(fn, lambda x, v: x.at[idx].multiply(v, unique_indices=True),
                [rng.normal(size=(3, 4)), rng.normal(size=(2,))], rng=rng)


@pytest.mark.parametrize("mode", ["min", "max"])
def test_min_max(mode, rng):
    x, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    fn = lambda x, v: getattr(_at(x, IDX), mode)(v)  # noqa: E731
    check_grads(fn, fn, [x, v], rng=rng)
    # ties between x and v and among repeated writes: the cotangent is shared (as jax's);
    # finite differences do not apply at ties
    x, v = np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([2.0, 2.0, 1.0, 5.0, 0.5])
    idx = (np.array([1, 1, 0, 4, 2]),)
    fn = lambda x, v: getattr(_at(x, idx), mode)(v)  # noqa: E731
    check_grads(fn, fn, [x, v], rng=rng, fd=False)


def test_pytensor_spellings_and_put_along_axis(rng):
    x, v = rng.normal(size=(4, 3)), rng.normal(size=(2, 3))
    check_grads(lambda x, v: hg.inc_subtensor(x[[3, 3]], v) + hg.set_subtensor(x[1:3], v * v),
                lambda x, v: x.at[np.array([3, 3])].add(v) + x.at[1:3].set(v * v), [x, v], rng=rng)
    i = np.array([[0, 2, 1]])
    check_grads(lambda x, v: hg.put_along_axis(x, i, v, 0),
                lambda x, v: jnp.put_along_axis(x, i, v, 0, inplace=False), [x, rng.normal(size=(1, 3))], rng=rng)


# --- no gradients -------------------------------------------------------------------------
def test_searchsorted_and_shape_carry_no_gradient(rng):
    a, v = hg.tensor("a", (5,), "float64"), hg.tensor("v", (3,), "float64")
    node = hg.searchsorted(a, v).owner
    assert node.op.pullback(node, [None]) == [None, None]
    assert node.op.pushforward(node, [v, v]) == [None]
    # a gather at searchsorted's positions: a gradient for the gathered values only
    cost = hg.sum(hg.take(a * a, hg.searchsorted(a, v), mode="clip"))
    ga, gv = hg.grad(cost, [a, v], disconnected="zero")
    av, vv = np.sort(rng.normal(size=5)), rng.normal(size=3)
    out = hg.evaluate(hg.Graph([a, v], [ga, gv]), av, vv)
    pos = np.minimum(np.searchsorted(av, vv), 4)
    np.testing.assert_allclose(out[0], np.bincount(pos, minlength=5) * 2 * av)
    np.testing.assert_array_equal(out[1], 0.0)


# --- unknown dims ---------------------------------------------------------------------------
def test_gathers_and_slices_with_unknown_dims(rng):
    """Strided slices and ints on unknown dims go back by a scatter-add, gathers too."""
    xv = rng.normal(size=(5, 4, 3))
    fns = [lambda x: x[1::2, ::-3, -1], lambda x: x[-2, 1:], lambda x: x[np.array([4, -1, 0]), :, ::2]]
    x = hg.tensor("x", (None, None, None), "float64")
    ys = [f(x) for f in fns]
    graph = hg.Graph([x], hg.grad(sum(hg.sum(hg.sin(y)) for y in ys), x))
    with jax.enable_x64(True):
        ref = jax.jit(jax.grad(lambda x: sum(jnp.sum(jnp.sin(f(x))) for f in fns)))(xv)
    np.testing.assert_allclose(hg.evaluate(graph, xv), ref, rtol=1e-12)
    np.testing.assert_allclose(hg.compile(graph)(xv), ref, rtol=1e-12)


# --- higher order ---------------------------------------------------------------------------
IDX6 = np.array([0, 2, 0, -1])
SECOND = {
    "gather": (lambda x: hg.sum(hg.sin(x[IDX6]) * x[IDX6]), lambda x: jnp.sum(jnp.sin(x[IDX6]) * x[IDX6])),
    "set": (lambda x: hg.sum(hg.at(x)[IDX6].set(x[1:5] ** 2) ** 3),
            lambda x: jnp.sum(x.at[IDX6].set(x[1:5] ** 2) ** 3)),
    "add": (lambda x: hg.sum(hg.at(x)[IDX6].add(hg.exp(x[:4])) ** 3),
            lambda x: jnp.sum(x.at[IDX6].add(jnp.exp(x[:4])) ** 3)),
    "max": (lambda x: hg.sum(hg.at(x)[IDX6].max(x[1:5] * 2.0) ** 2),
            lambda x: jnp.sum(x.at[IDX6].max(x[1:5] * 2.0) ** 2)),
    "take_along_axis": (lambda x: hg.sum(hg.take_along_axis(x, np.array([3, 1, 1]), 0) ** 3),
                        lambda x: jnp.sum(jnp.take_along_axis(x, jnp.array([3, 1, 1]), 0) ** 3)),
    "cummax": (lambda x: hg.sum(hg.cummax(x) ** 3), lambda x: jnp.sum(jax.lax.cummax(x) ** 3)),
    "cummin": (lambda x: hg.sum(hg.cummin(hg.sin(x)) * x), lambda x: jnp.sum(jax.lax.cummin(jnp.sin(x)) * x)),
}


@pytest.mark.parametrize("name", list(SECOND))
def test_hessians(name, rng):
    cost, jcost = SECOND[name]
    x = hg.tensor("x", (6,), "float64")
    xv = rng.normal(size=6)
    graph = hg.Graph([x], hg.hessian(cost(x), x))
    with jax.enable_x64(True):
        ref = jax.jit(jax.hessian(jcost))(xv)
    np.testing.assert_allclose(hg.evaluate(graph, xv), ref, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(hg.compile(graph)(xv), ref, rtol=1e-9, atol=1e-11)


def test_reverse_over_reverse_scatter(rng):
    """grad of <grad, w> through a scatter with repeated indices and a multiply."""
    x, w = hg.tensor("x", (4, 3), "float64"), hg.tensor("w", (4, 3), "float64")
    idx = np.array([2, 0, 2])
    y = hg.at(x)[idx].multiply(hg.tanh(x[idx[::-1]]))
    g = hg.grad(hg.sum(y * y), x)
    hvp = hg.grad(hg.sum(g * w), x)
    xv, wv = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))

    def jcost(x):
        y = _jax_multiply_one_by_one(idx, x, jnp.tanh(x[idx[::-1]]))
        return jnp.sum(y * y)

    with jax.enable_x64(True):
        ref = jax.jit(lambda x, w: jax.grad(lambda x: jnp.sum(jax.grad(jcost)(x) * w))(x))(xv, wv)
    graph = hg.Graph([x, w], hvp)
    np.testing.assert_allclose(hg.evaluate(graph, xv, wv), ref, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(hg.compile(graph)(xv, wv), ref, rtol=1e-9, atol=1e-11)


def test_duplicate_detection():
    """Constant indices are checked for repeats (negative ones wrapped); graph values may repeat."""
    x = hg.tensor("x", (4, None), "float64")
    a = ix.ARRAY
    c = hg.Constant
    assert not ix._may_repeat((a, (None, None, None)), x, [c(np.array([0, 1, -1]))])
    assert ix._may_repeat((a, (None, None, None)), x, [c(np.array([3, 1, -1]))])
    assert not ix._may_repeat((a, a), x, [c(np.array([[0], [1]])), c(np.array([0, 1]))])
    assert ix._may_repeat((a, a), x, [c(np.array([0, 0])), c(np.array([-1, 2]))])  # -1 may be 2
    assert ix._may_repeat((a,), x[:, 0], [hg.tensor("i", (3,), "int64")])
