"""Gradients of the shape and construction Ops against jax and finite differences:
reshape, transpose, broadcast_to, expand_dims, squeeze, concatenate and stack, full and
full_like of a graph fill value, pad in every mode, specify_shape, NumPy compositions
built from them; 0-d and empty inputs; unknown dims (concatenate with one or several
sizes unknown, FullLike, reshape back to one or several unknown dims, second order
through the Ops those gradients make); Ops without inputs or with integer outputs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.tests.autodiff.helpers import check_grads


def _either(hg_fn, jnp_fn):
    """One function for both: hlograph's on graph values, jax.numpy's on jax arrays."""
    return lambda *a: (hg_fn if isinstance(a[0], hg.Variable) else jnp_fn)(*a)


def _same(name, *args, **kwargs):
    return _either(lambda *a: getattr(hg, name)(*a, *args, **kwargs),
                   lambda *a: getattr(jnp, name)(*a, *args, **kwargs))


# fn(x) for x of shape (2, 3, 4)
ONE_INPUT = {
    "reshape": _same("reshape", (4, -1)),
    "transpose": _same("transpose", (2, 0, 1)),
    "broadcast_to": _either(lambda x: hg.broadcast_to(x[:, :1], (5, 2, 3, 4)),
                            lambda x: jnp.broadcast_to(x[:, :1], (5, 2, 3, 4))),
    "expand_squeeze": _either(lambda x: hg.squeeze(hg.expand_dims(x, (0, -1)), 0),
                              lambda x: jnp.squeeze(jnp.expand_dims(x, (0, -1)), 0)),
    "stack": _either(lambda x: hg.stack([x, x * 2.0, x[::-1]], axis=-2),
                     lambda x: jnp.stack([x, x * 2.0, x[::-1]], axis=-2)),
    "concatenate": _either(lambda x: hg.concatenate([x[:, :1], x, x[:, 1:] ** 2], axis=1),
                           lambda x: jnp.concatenate([x[:, :1], x, x[:, 1:] ** 2], axis=1)),
    "concatenate_flat": _either(lambda x: hg.concatenate([x, x[0]], axis=None),
                                lambda x: jnp.concatenate([x, x[0]], axis=None)),
    "full_of_a_value": _either(lambda x: hg.full((4,), x[1, 2, 3]) * hg.full_like(x, hg.sum(x)),
                               lambda x: jnp.full((4,), x[1, 2, 3]) * jnp.full_like(x, jnp.sum(x))),
    "full_of_a_row": _either(lambda x: hg.full((5, 4), x[0, 0]), lambda x: jnp.full((5, 4), x[0, 0])),
    "constants_times_x": _either(lambda x: x * hg.arange(4.0) + hg.eye(3, 4) + hg.ones((3, 4)),
                                 lambda x: x * jnp.arange(4.0) + jnp.eye(3, 4) + jnp.ones((3, 4))),
    "pad_constant": _same("pad", ((1, 0), (0, 2), (3, 1))),
    "pad_value_of_x": _either(lambda x: hg.pad(x, 1, constant_values=hg.sum(x[0])),
                              lambda x: jnp.pad(x, 1, constant_values=jnp.sum(x[0]))),
    "pad_reflect": _same("pad", ((1, 1), (2, 0), (0, 3)), mode="reflect"),
    "pad_edge": _same("pad", 2, mode="edge"),
    "pad_symmetric_wrap": _either(lambda x: hg.pad(hg.pad(x, 1, mode="symmetric"), 1, mode="wrap"),
                                  lambda x: jnp.pad(jnp.pad(x, 1, mode="symmetric"), 1, mode="wrap")),
    "pad_mean": _same("pad", 1, mode="mean"),
    "pad_linear_ramp": _same("pad", 2, mode="linear_ramp", end_values=1.0),
    "flip_roll": _either(lambda x: hg.roll(hg.flip(x, 1), 2, axis=2), lambda x: jnp.roll(jnp.flip(x, 1), 2, axis=2)),
    "tile_repeat": _either(lambda x: hg.repeat(hg.tile(x, (1, 2, 1)), 2, axis=0),
                           lambda x: jnp.repeat(jnp.tile(x, (1, 2, 1)), 2, axis=0)),
    "diagonal_tril": _either(lambda x: hg.diagonal(hg.tril(x[0])), lambda x: jnp.diagonal(jnp.tril(x[0]))),
    "split": _either(lambda x: hg.split(x, 2, axis=2)[1], lambda x: jnp.split(x, 2, axis=2)[1]),
}


@pytest.mark.parametrize("name", list(ONE_INPUT))
def test_shape_ops(name, rng):
    fn = ONE_INPUT[name]
    check_grads(fn, fn, [rng.normal(size=(2, 3, 4))], rng=rng)


def test_specify_shape(rng):
    check_grads(lambda x: hg.specify_shape(x, (None, 3)) * 2.0, lambda x: x * 2.0, [rng.normal(size=(2, 3))], rng=rng)


def test_zero_d_and_empty(rng):
    check_grads(lambda x: hg.reshape(hg.broadcast_to(x, (2, 3)), (3, 2)),
                lambda x: jnp.reshape(jnp.broadcast_to(x, (2, 3)), (3, 2)), [np.array(1.5)], rng=rng)
    check_grads(lambda x: hg.reshape(x, (1, 1)) + hg.pad(hg.expand_dims(x, 0), ((0, 0),)),
                lambda x: jnp.reshape(x, (1, 1)) + jnp.expand_dims(x, 0), [np.array(0.5)], rng=rng)
    check_grads(lambda x, e: hg.concatenate([e, x, e], axis=1), lambda x, e: jnp.concatenate([e, x, e], axis=1),
                [rng.normal(size=(2, 3)), np.zeros((2, 0))], rng=rng)
    check_grads(lambda e: hg.transpose(hg.reshape(e, (3, 0))), lambda e: jnp.transpose(jnp.reshape(e, (3, 0))),
                [np.zeros((0, 3))], rng=rng)


def test_complex(rng):
    z = rng.normal(size=(2, 3)) + 1j * rng.normal(size=(2, 3))
    fn = _either(lambda x: hg.pad(hg.concatenate([x, x.T.reshape(2, 3) * 1j], 0), 1),
                 lambda x: jnp.pad(jnp.concatenate([x, x.T.reshape(2, 3) * 1j], 0), 1))
    check_grads(fn, fn, [z], rng=rng)


# --- unknown dims -----------------------------------------------------------------------------
def _grads_with_types(fn, jfn, types, args):
    xs = [hg.tensor(f"x{i}", t, "float64") for i, t in enumerate(types)]
    graph = hg.Graph(xs, hg.grad(hg.sum(hg.sin(fn(*xs))), xs))
    with jax.enable_x64(True):
        ref = jax.jit(jax.grad(lambda *a: jnp.sum(jnp.sin(jfn(*a))), argnums=tuple(range(len(args)))))(*args)
    for out in (hg.evaluate(graph, *args), hg.compile(graph)(*args)):
        for o, r in zip(out, ref):
            np.testing.assert_allclose(o, r, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("types", [
    [(2, 3), (None, 3), (1, 3)],      # the unknown size in the middle: the rest from both ends
    [(None, 3), (4, None), (1, 3)],   # first, other dims unknown too
    [(2, 3), (4, 3), (None, None)],   # last
    [(2, None), (None, 3), (0, 3)],   # an empty piece after it
])
def test_concatenate_with_one_unknown_size(types, rng):
    args = [rng.normal(size=(2, 3)), rng.normal(size=(4, 3)), rng.normal(size=(1 if types[2][0] else 0, 3))]
    fn = _either(lambda a, b, c: hg.concatenate([a, b * 2.0, c * c]), lambda a, b, c: jnp.concatenate([a, b * 2.0, c * c]))
    _grads_with_types(fn, fn, types, args)


def test_unknown_dims(rng):
    """reshape with one unknown dim, broadcasting (FullLike, SumToLike), pad of unknown dims."""
    fn = _either(lambda x, y: hg.reshape(x, (-1, 2)) * hg.ones_like(y) + hg.pad(y, 1)[1:-1, 1:-1] + hg.full_like(y, x[0, 0]),
                 lambda x, y: jnp.reshape(x, (-1, 2)) * jnp.ones_like(y) + jnp.pad(y, 1)[1:-1, 1:-1] + jnp.full_like(y, x[0, 0]))
    _grads_with_types(fn, fn, [(None, 4), (6, None)], [rng.normal(size=(3, 4)), rng.normal(size=(6, 2))])


def _fd_check(fn, types, args, rng, eps=1e-6):
    """hlograph's gradient of sum(sin(fn(xs))) against central finite differences of the
    forward graph along a random direction."""
    xs = [hg.tensor(f"x{i}", t, "float64") for i, t in enumerate(types)]
    loss = hg.sum(hg.sin(fn(*xs)))
    grads = hg.compile(hg.Graph(xs, hg.grad(loss, xs)))(*args)
    forward = hg.Graph(xs, loss)
    ts = [rng.normal(size=a.shape) for a in args]
    moved = [hg.evaluate(forward, *(a + sign * eps * t for a, t in zip(args, ts))) for sign in (1, -1)]
    fd = (moved[0] - moved[1]) / (2 * eps)
    np.testing.assert_allclose(sum(np.vdot(g, t) for g, t in zip(grads, ts)), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("types", [
    [(None, None), (None, 3), (1, 3)],       # two unknown sizes, then a known one
    [(None, 3), (None, 3), (None, 3)],       # every size unknown
    [(2, None), (None, None), (None, 3)],    # an empty piece last
])
def test_concatenate_with_several_unknown_sizes(types, rng):
    """The pieces of the cotangent are cut once the sizes are known (SplitLike)."""
    args = [rng.normal(size=(2, 3)), rng.normal(size=(4, 3)),
            rng.normal(size=(0 if types[2] == (None, 3) and types[0] == (2, None) else 1, 3))]
    fn = _either(lambda a, b, c: hg.concatenate([a, b * 2.0, c * c]), lambda a, b, c: jnp.concatenate([a, b * 2.0, c * c]))
    _grads_with_types(fn, fn, types, args)
    _fd_check(fn, types, args, rng)


def test_concatenate_with_unknown_sizes_along_a_later_axis(rng):
    args = [rng.normal(size=(2, 3, 1)), rng.normal(size=(2, 3, 4))]
    fn = _either(lambda a, b: hg.concatenate([a ** 2, b], axis=-1), lambda a, b: jnp.concatenate([a ** 2, b], axis=-1))
    _grads_with_types(fn, fn, [(2, None, None), (None, 3, None)], args)
    _fd_check(fn, [(2, None, None), (None, 3, None)], args, rng)


@pytest.mark.parametrize("types, shape", [
    ([(None, None)], (-1,)),
    ([(None, None, 2)], (3, -1)),
    ([(None, 4, None)], (2, 2, -1)),
])
def test_reshape_back_to_several_unknown_dims(types, shape, rng):
    """The cotangent is reshaped back once the input's dims are known (ReshapeLike)."""
    arg = rng.normal(size=tuple(d if d is not None else n for d, n in zip(types[0], (3, 4, 2))))
    fn = _either(lambda x: hg.reshape(x, shape) ** 3, lambda x: jnp.reshape(x, shape) ** 3)
    _grads_with_types(fn, fn, types, [arg])
    _fd_check(fn, types, [arg], rng)


def test_second_order_through_reshape_like_and_split_like(rng):
    """Hessian-vector products (reverse over reverse, forward over reverse) through the
    Ops the first gradient made, against jax."""
    x = hg.tensor("x", (None, None), "float64")
    y = hg.tensor("y", (None, 3), "float64")
    v = hg.tensor("v", (None, None), "float64")

    def f(a, b, m):
        return m.sum(m.sin(m.concatenate([m.reshape(a, (-1, 3)), b * b])) ** 2)

    g = hg.grad(f(x, y, hg), x)
    hvp_rev = hg.grad(hg.sum(g * v), x)
    hvp_fwd = hg.jvp(g, [x], [v])
    graph = hg.Graph([x, y, v], [hvp_rev, hvp_fwd])
    assert {"ReshapeLike", "SplitLike"} <= {type(n.op).__name__ for n in graph.nodes}
    xv, yv, vv = rng.normal(size=(2, 6)), rng.normal(size=(2, 3)), rng.normal(size=(2, 6))
    with jax.enable_x64(True):
        grad = jax.grad(lambda a: f(a, yv, jnp))
        ref = np.asarray(jax.jvp(grad, (xv,), (vv,))[1])
    for out in (hg.evaluate(graph, xv, yv, vv), hg.compile(graph)(xv, yv, vv)):
        for o in out:
            np.testing.assert_allclose(o, ref, rtol=1e-10, atol=1e-12)


def test_reshape_like_and_split_like_check_their_sizes():
    from hlograph.frontend.ops.autodiff import ReshapeLike, SplitLike
    a, b = hg.tensor("a", (2, 3), "float64"), hg.tensor("b", (4,), "float64")
    with pytest.raises(ValueError, match="cannot be reshaped"):
        ReshapeLike()(a, b)
    with pytest.raises(ValueError, match="cannot be split"):
        SplitLike(0)(a, hg.tensor("c", (1, 3), "float64"), hg.tensor("d", (2, 3), "float64"))
    x, y = hg.tensor("x", (None, None), "float64"), hg.tensor("y", (None,), "float64")
    graph = hg.Graph([x, y], ReshapeLike()(x, y))
    with pytest.raises(ValueError, match="cannot be reshaped"):
        hg.evaluate(graph, np.zeros((2, 3)), np.zeros(5))
    parts = SplitLike(0)(x, x, x)
    with pytest.raises(ValueError, match="cannot be split"):
        hg.evaluate(hg.Graph([x], parts), np.zeros((3, 2)))
    # no gradient needed, no Op
    g = hg.grad(hg.sum(hg.reshape(hg.stop_gradient(x), -1)) + hg.sum(x), x)
    np.testing.assert_array_equal(hg.evaluate(hg.Graph([x], g), np.zeros((2, 3))), np.ones((2, 3)))


# --- no inputs, integer outputs ---------------------------------------------------------------
def test_construction_and_shape_have_nothing_to_differentiate():
    for y in (hg.full((2,), 3.0), hg.arange(3.0), hg.eye(2)):
        node = y.owner
        assert node.inputs == [] and node.op.pullback(node, [y]) == [] and node.op.pushforward(node, []) == [None]
    x = hg.tensor("x", (None, 3), "float64")
    node = hg.shape_of(x).owner
    assert node.op.pullback(node, [None]) == [None] and node.op.pushforward(node, [x]) == [None]
    # a cost that reads x only through its shape: zero
    g = hg.grad(hg.sum(hg.astype(hg.shape_of(x), "float64")) + hg.sum(x * 0.0), x)
    np.testing.assert_array_equal(hg.evaluate(hg.Graph([x], g), np.ones((2, 3))), np.zeros((2, 3)))
