"""Gradients of dynamic slices and their updates against jax and finite differences:
starts in range, clamped (negative, past the end), as graph values of several
integer dtypes, float and complex operands, 0-d and empty windows, gradients with
respect to the operand and/or the update, and second derivatives."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops.indexing import DynamicSlice, DynamicUpdateSlice
from hlograph.tests.autodiff.helpers import check_grads, random_like


def _slice(sizes):
    def fn(x, *s):
        if isinstance(x, hg.Variable):
            return hg.dynamic_slice(x, s, sizes) * 1.5
        return jax.lax.dynamic_slice(x, s, sizes, allow_negative_indices=False) * 1.5
    return fn


def _update(x, u, *s):
    if isinstance(x, hg.Variable):
        return hg.sin(hg.dynamic_update_slice(x, u, s))
    return jnp.sin(jax.lax.dynamic_update_slice(x, u, s, allow_negative_indices=False))


STARTS = [(1, 2), (0, 0), (-3, 9), (5, -1)]


@pytest.mark.parametrize("starts", STARTS, ids=str)
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_dynamic_slice(starts, dtype, rng):
    x = random_like(rng, (4, 5), dtype)
    s = [np.int32(v) for v in starts]
    check_grads(_slice((2, 3)), _slice((2, 3)), [x, *s], rng=rng)


@pytest.mark.parametrize("starts", STARTS, ids=str)
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_dynamic_update_slice(starts, dtype, rng):
    x, u = random_like(rng, (4, 5), dtype), random_like(rng, (2, 3), dtype)
    s = [np.int64(v) for v in starts]
    check_grads(_update, _update, [x, u, *s], rng=rng)


@pytest.mark.parametrize("argnums", [[0], [1]])
def test_dynamic_update_slice_one_input(argnums, rng):
    x, u = random_like(rng, (4, 5), "float64"), random_like(rng, (3, 1), "float64")
    check_grads(_update, _update, [x, u, np.uint32(2), np.uint32(7)], argnums=argnums, rng=rng)


def test_float32(rng):
    x = random_like(rng, (3, 6), "float32")
    check_grads(_slice((3, 2)), _slice((3, 2)), [x, np.int8(1), np.int8(5)], rng=rng, fd_eps=1e-3,
                fd_tol=2e-2)


@pytest.mark.parametrize("shape, sizes", [((), ()), ((3, 0), (2, 0)), ((4,), (0,))], ids=str)
def test_0d_and_empty(shape, sizes, rng):
    x = random_like(rng, shape, "float64")
    s = [np.int32(1)] * len(shape)
    check_grads(_slice(sizes), _slice(sizes), [x, *s], rng=rng)
    u = random_like(rng, sizes, "float64")
    check_grads(_update, _update, [x, u, *s], rng=rng)


def test_rules_build_the_dynamic_ops():
    x = hg.tensor("x", (4, 5), "float64")
    u = hg.tensor("u", (2, 2), "float64")
    i = hg.tensor("i", (), "int32")
    y = hg.dynamic_update_slice(x, u, [i, 1])
    gx, gu = hg.grad(hg.sum(hg.dynamic_slice(y, [1, i], (3, 3)) ** 2), [x, u])
    ops = {type(n.op) for n in hg.Graph([x, u, i], [gx, gu]).nodes}
    assert {DynamicSlice, DynamicUpdateSlice} <= ops


def test_start_indices_have_no_gradient():
    x = hg.tensor("x", (4, 5), "float64")
    i = hg.tensor("i", (), "int32")
    node = hg.dynamic_slice(x, [i, 1], (2, 2)).owner
    ct = hg.tensor("ct", (2, 2), "float64")
    out = node.op.pullback(node, [ct])
    assert out[0].type == x.type and out[1:] == [None, None]
    assert node.op.pushforward(node, [None, None, None]) == [None]
    up = hg.dynamic_update_slice(x, hg.tensor("u", (1, 5), "float64"), [i, 0]).owner
    ct_x, ct_u, *rest = up.op.pullback(up, [hg.tensor("c", (4, 5), "float64")])
    assert ct_x.type == x.type and ct_u.type == up.inputs[1].type and rest == [None, None]


def test_integer_operands_have_no_gradient():
    x = hg.tensor("x", (4, 5), "int32")
    node = hg.dynamic_slice(x, [1, 1], (2, 2)).owner
    assert node.op.pullback(node, [hg.tensor("ct", (2, 2), "int32")]) == [None, None, None]


def test_second_derivatives(rng):
    x = random_like(rng, (5,), "float64")
    i = np.int32(3)
    xv = hg.tensor("x", (5,), "float64")
    iv = hg.tensor("i", (), "int32")
    cost = hg.sum(hg.dynamic_slice(xv, [iv], (3,)) ** 3)
    hess = hg.hessian(cost, xv)
    got = hg.compile(hg.Graph([xv, iv], hess))(x, i)
    with jax.enable_x64(True):
        ref = jax.hessian(lambda v: jnp.sum(jax.lax.dynamic_slice(v, (i,), (3,)) ** 3))(x)
    np.testing.assert_allclose(got, np.asarray(ref), rtol=1e-12, atol=1e-12)
    assert np.count_nonzero(got) == 3  # the clamped window is x[2:5]
