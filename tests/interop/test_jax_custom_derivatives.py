"""Imported ``jax.custom_jvp`` / ``jax.custom_vjp`` functions keep jax's derivative
rules: ``hg.grad`` of the imported graph is ``jax.grad`` (also where the custom rule
is deliberately not the derivative of the primal), while the forward computation
stays hlograph ops."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.interop.jax import JaxOp, JaxPrimitiveOp, from_jax


def _grad_graph(f, *args, argnums=0):
    g = from_jax(f, *args)
    wrt = [g.inputs[i] for i in (argnums if isinstance(argnums, tuple) else (argnums,))]
    grads = hg.grad(g.outputs[0], wrt)
    return g, hg.Graph(g.inputs, grads)


def _check(f, *args, argnums=0, rtol=1e-5, atol=1e-6):
    g, gg = _grad_graph(f, *args, argnums=argnums)
    expected = jax.grad(f, argnums=argnums)(*args)
    expected = list(expected) if isinstance(expected, tuple) else [expected]
    for got in (hg.compile(gg)(*args), hg.evaluate(gg, *args)):
        got = list(got) if isinstance(got, tuple) else [got]
        for a, b in zip(got, expected):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)
    return g, gg, expected


def test_a_custom_vjp_with_a_deliberately_wrong_backward_is_jax_s():
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    f.defvjp(lambda x: (jnp.sin(x), x), lambda x, ct: (ct * 100.0 + x,))
    xv = np.array([-1.0, 0.0, 0.5, 2.0], np.float32)
    g, gg, (expected,) = _check(lambda x: jnp.sum(f(x) * 2.0), xv)
    np.testing.assert_allclose(expected, 200.0 + xv)
    # not the true derivative of the primal
    assert not np.allclose(expected, 2 * np.cos(xv))
    # the forward computation is hlograph's own ops; the backward is jax's rule
    assert not any(isinstance(n.op, (JaxOp, JaxPrimitiveOp)) for n in g.toposort())
    assert any(isinstance(n.op, JaxOp) for n in gg.toposort())
    np.testing.assert_allclose(hg.compile(g)(xv), np.sum(np.sin(xv) * 2.0), rtol=1e-6)


def test_a_custom_jvp_with_a_deliberately_wrong_rule_is_jax_s():
    @jax.custom_jvp
    def f(x, y):
        return x * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return x * y, 3.0 * tx - ty

    xv = np.array([1.0, -2.0, 0.5], np.float32)
    yv = np.array([4.0, 0.25, -1.0], np.float32)
    _, _, (gx, gy) = _check(lambda x, y: jnp.sum(f(x, y)), xv, yv, argnums=(0, 1))
    np.testing.assert_allclose(gx, 3.0 * np.ones(3))
    np.testing.assert_allclose(gy, -np.ones(3))


@pytest.mark.parametrize("name,fn", [
    ("relu", jax.nn.relu),
    ("softplus", jax.nn.softplus),
    ("silu", jax.nn.silu),
    ("logaddexp", lambda x: jnp.logaddexp(x, 0.5 * x)),
    ("logsumexp", lambda x: jax.nn.logsumexp(x) * jnp.ones_like(x)),
])
def test_library_functions_with_custom_rules(name, fn):
    # zeros and large values: where the custom rules differ from the naive derivative
    xv = np.array([-30.0, -1.0, 0.0, 0.0, 1.5, 40.0], np.float32)
    _check(lambda x: jnp.sum(fn(x) * jnp.arange(1.0, 7.0)), xv, rtol=1e-4, atol=1e-5)


def test_relu_at_zero_is_jax_s_subgradient():
    xv = np.zeros(3, np.float32)
    _, _, (expected,) = _check(lambda x: jnp.sum(jax.nn.relu(x)), xv)
    np.testing.assert_array_equal(expected, np.zeros(3))


def test_float64_and_second_order():
    f = lambda x: jnp.sum(jax.nn.softplus(x) ** 2)
    xv = np.array([-2.0, 0.0, 3.0], np.float64)
    with jax.enable_x64(True):
        g, gg, _ = _check(f, xv, rtol=1e-10, atol=1e-12)
        assert gg.outputs[0].dtype == np.float64
        x = g.inputs[0]
        hvp = hg.grad(hg.sum(hg.grad(g.outputs[0], x)), x)
        got = hg.compile(hg.Graph([x], hvp))(xv)
        expected = jax.grad(lambda x: jnp.sum(jax.grad(f)(x)))(xv)
    np.testing.assert_allclose(got, expected, rtol=1e-8)


def test_forward_mode_through_a_custom_jvp_function():
    f = lambda x: jax.nn.relu(x) * jnp.tanh(x)
    xv = np.array([-1.0, 0.0, 2.0], np.float32)
    tv = np.array([0.5, 1.0, -1.0], np.float32)
    g = from_jax(f, xv)
    x = g.inputs[0]
    t = hg.tensor("t", (3,), "float32")
    out = hg.compile(hg.Graph([x, t], hg.jvp(g.outputs[0], x, t)))(xv, tv)
    np.testing.assert_allclose(out, jax.jvp(f, (xv,), (tv,))[1], rtol=1e-5, atol=1e-6)


def test_custom_vjp_with_closed_over_arrays_and_integer_arguments():
    scale = jnp.array([1.0, 2.0, 3.0], jnp.float32)

    @jax.custom_vjp
    def f(x, k):
        return x * scale * k

    f.defvjp(lambda x, k: (f(x, k), (k,)), lambda res, ct: (-ct * res[0], None))
    xv = np.array([0.5, -1.0, 2.0], np.float32)
    kv = np.int32(3)
    fn = lambda x, k: jnp.sum(f(x, k.astype(jnp.float32)))
    _, _, (expected,) = _check(fn, xv, kv)
    np.testing.assert_allclose(expected, -3.0 * np.ones(3))
