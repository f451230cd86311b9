"""``hg.to_jax``: an hlograph graph as a jax function. Eagerly and under ``jax.jit``,
``jax.vmap``, ``jax.grad``, ``jit(grad)``, ``vmap(grad)`` and ``grad(grad)`` it gives
what hlograph gives directly and what the same computation written in jax gives;
it composes with jax ops around it; the graphs it cannot run are clear errors."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.interop.jax import ToJaxError, to_jax


def _close(a, b, rtol=1e-5, atol=1e-6):
    a = a if isinstance(a, (tuple, list)) else [a]
    b = b if isinstance(b, (tuple, list)) else [b]
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert np.shape(x) == np.shape(y)
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=atol, equal_nan=True)


def _layer(dtype="float32", n=3, m=2):
    """``sum(tanh(x @ w) ** 2, axis=0)`` as an hlograph graph and in jax."""
    x = hg.tensor("x", (n,), dtype)
    w = hg.tensor("w", (n, m), dtype)
    g = hg.Graph([x, w], hg.sum(hg.tanh(x @ w) ** 2, axis=0))
    return g, lambda x, w: jnp.sum(jnp.tanh(x @ w) ** 2, axis=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eager_jit_grad_and_compositions(dtype, rng):
    g, ref = _layer(dtype)
    f = to_jax(g)
    xv = rng.normal(size=3).astype(dtype)
    wv = rng.normal(size=(3, 2)).astype(dtype)
    with jax.enable_x64(dtype == "float64"):
        direct = hg.compile(g)(xv, wv)
        eager = f(xv, wv)
        assert eager.dtype == np.dtype(dtype)
        _close(eager, direct)
        _close(jax.jit(f)(xv, wv), ref(xv, wv))
        loss = lambda x, w: jnp.sum(f(x, w))
        loss_ref = lambda x, w: jnp.sum(ref(x, w))
        expected = jax.grad(loss_ref, argnums=(0, 1))(xv, wv)
        _close(jax.grad(loss, argnums=(0, 1))(xv, wv), expected, rtol=1e-4)
        _close(jax.jit(jax.grad(loss, argnums=(0, 1)))(xv, wv), expected, rtol=1e-4)
        # jax ops before and after it, all in one jitted function
        around = jax.jit(lambda x, w: jnp.cos(f(jnp.sin(x), w * 2.0)) * jnp.sum(x))
        around_ref = lambda x, w: jnp.cos(ref(jnp.sin(x), w * 2.0)) * jnp.sum(x)
        _close(around(xv, wv), around_ref(xv, wv), rtol=1e-4)
        _close(jax.grad(lambda x: around(x, wv))(xv), jax.grad(lambda x: around_ref(x, wv))(xv), rtol=1e-4)


def test_the_lowering_inlines_hlograph_module(rng):
    g, _ = _layer()
    f = to_jax(g)
    text = jax.jit(f).lower(np.zeros(3, np.float32), np.zeros((3, 2), np.float32)).as_text()
    assert "call @hlograph_graph" in text
    assert "func.func private @hlograph_graph" in text
    assert "stablehlo.tanh" in text  # hlograph's lowering, not a callback
    assert "callback" not in text


def test_vmap(rng):
    g, ref = _layer()
    f = to_jax(g)
    xb = rng.normal(size=(5, 3)).astype(np.float32)
    wv = rng.normal(size=(3, 2)).astype(np.float32)
    wb = rng.normal(size=(5, 3, 2)).astype(np.float32)
    _close(jax.vmap(f, in_axes=(0, None))(xb, wv), jax.vmap(ref, in_axes=(0, None))(xb, wv))
    _close(jax.vmap(f)(xb, wb), jax.vmap(ref)(xb, wb))
    # mapped axes that are not the first
    xt = np.ascontiguousarray(xb.T)
    wt = np.ascontiguousarray(np.moveaxis(wb, 0, 2))
    _close(jax.jit(jax.vmap(f, in_axes=(1, 2)))(xt, wt), jax.vmap(ref)(xb, wb))
    # every row is the direct hlograph result
    direct = hg.compile(g)
    _close(jax.vmap(f, in_axes=(0, None))(xb, wv), np.stack([direct(x, wv) for x in xb]))


def test_vmap_of_an_mlp_is_one_batched_computation(rng):
    # the vmapped graph is vectorized: batched dot_generals, no loop over the batch
    x = hg.tensor("x", (4,), "float32")
    w1, w2 = hg.tensor("w1", (4, 8), "float32"), hg.tensor("w2", (8, 3), "float32")
    g = hg.Graph([x, w1, w2], hg.softmax(hg.tanh(x @ w1) @ w2) + hg.max(x))
    f = to_jax(g)
    ref = lambda x, a, b: jax.nn.softmax(jnp.tanh(x @ a) @ b) + jnp.max(x)
    xb = rng.normal(size=(1000, 4)).astype(np.float32)
    a, b = rng.normal(size=(4, 8)).astype(np.float32), rng.normal(size=(8, 3)).astype(np.float32)
    mapped = jax.jit(jax.vmap(f, in_axes=(0, None, None)))
    text = mapped.lower(xb, a, b).as_text()
    assert "stablehlo.while" not in text
    assert "stablehlo.dot_general" in text and "tensor<1000x8xf32>" in text
    _close(mapped(xb, a, b), jax.vmap(ref, in_axes=(0, None, None))(xb, a, b), rtol=1e-5)
    # both operands mapped: a batch dimension of the dot_general
    ab = rng.normal(size=(5, 4, 8)).astype(np.float32)
    both = jax.jit(jax.vmap(f, in_axes=(0, 0, None)))
    assert "stablehlo.while" not in both.lower(xb[:5], ab, b).as_text()
    _close(both(xb[:5], ab, b), jax.vmap(ref, in_axes=(0, 0, None))(xb[:5], ab, b), rtol=1e-5)


def test_vmap_of_grad_and_grad_of_grad(rng):
    g, ref = _layer()
    f = to_jax(g)
    xb = rng.normal(size=(4, 3)).astype(np.float32)
    wv = rng.normal(size=(3, 2)).astype(np.float32)
    loss = lambda x, w: jnp.sum(f(x, w))
    loss_ref = lambda x, w: jnp.sum(ref(x, w))
    _close(jax.vmap(jax.grad(loss), in_axes=(0, None))(xb, wv),
           jax.vmap(jax.grad(loss_ref), in_axes=(0, None))(xb, wv), rtol=1e-4)
    _close(jax.jit(jax.vmap(jax.grad(loss, argnums=1), in_axes=(0, None)))(xb, wv),
           jax.vmap(jax.grad(loss_ref, argnums=1), in_axes=(0, None))(xb, wv), rtol=1e-4)
    hess = lambda l: jax.grad(lambda x: jnp.sum(jax.grad(l)(x, wv) ** 2))
    _close(hess(loss)(xb[0]), hess(loss_ref)(xb[0]), rtol=1e-4)


def test_several_outputs_and_output_shapes_no_input_has(rng):
    x = hg.tensor("x", (3,), "float32")
    both = hg.concatenate([x, hg.exp(x)])   # float32[6]: a size no input has
    g = hg.Graph([x], [both, hg.sum(x)])
    f = to_jax(g)
    ref = lambda x: (jnp.concatenate([x, jnp.exp(x)]), jnp.sum(x))
    xv = rng.normal(size=3).astype(np.float32)
    out = f(xv)
    assert isinstance(out, tuple) and len(out) == 2
    _close(out, ref(xv))
    xb = rng.normal(size=(2, 3)).astype(np.float32)
    _close(jax.jit(jax.vmap(f))(xb), jax.vmap(ref)(xb))
    _close(jax.grad(lambda x: jnp.sum(f(x)[0]) * f(x)[1])(xv),
           jax.grad(lambda x: jnp.sum(ref(x)[0]) * ref(x)[1])(xv), rtol=1e-5)


def test_scalars_empty_arrays_and_integer_inputs(rng):
    s = hg.tensor("s", (), "float32")
    e = hg.tensor("e", (0, 2), "float32")
    k = hg.tensor("k", (2,), "int32")
    out = hg.sin(s) * hg.astype(k, "float32") + hg.sum(e, axis=0)
    f = to_jax(hg.Graph([s, e, k], out))
    kv = np.array([2, -3], np.int32)
    ev = np.zeros((0, 2), np.float32)
    _close(f(np.float32(0.5), ev, kv), np.sin(np.float32(0.5)) * kv)
    _close(jax.jit(f)(0.5, ev, kv), np.sin(np.float32(0.5)) * kv)
    # the gradient of the float argument; the integer one has none (zeros)
    gs, gk = jax.grad(lambda s, k: jnp.sum(f(s, ev, k)), argnums=(0, 1), allow_int=True)(np.float32(0.5), kv)
    _close(gs, np.cos(np.float32(0.5)) * kv.sum(), rtol=1e-6)
    assert gk.dtype == jax.dtypes.float0


def test_a_compiled_function_and_nan_inf():
    x = hg.tensor("x", (4,), "float32")
    fn = hg.compile(hg.Graph([x], hg.log(x) * 2.0), pipeline="O1")
    f = to_jax(fn)
    xv = np.array([1.0, 0.0, -1.0, np.inf], np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.log(xv) * 2
    _close(jax.jit(f)(xv), expected)
    _close(f(xv), fn(xv))


def test_host_ops(monkeypatch):
    # on the CPU a host op with static output types runs inside the module (XLA FFI)
    x, t = hg.tensor("x", (5,), "int32"), hg.tensor("t", (3,), "int32")
    f = to_jax(hg.Graph([x, t], hg.isin(x, t)))
    xv, tv = np.array([1, 2, 3, 4, 5], np.int32), np.array([2, 4, 9], np.int32)
    expected = np.isin(xv, tv)
    np.testing.assert_array_equal(jax.jit(f)(xv, tv), expected)
    assert "stablehlo.custom_call @hlograph_host_isin" in jax.jit(f).lower(xv, tv).as_text()
    # a value-dependent output shape cannot be a jax value
    u = to_jax(hg.Graph([x], hg.unique(x)))
    np.testing.assert_array_equal(u(xv), np.unique(xv))  # eagerly: hlograph runs it
    with pytest.raises(ToJaxError, match=r"Unique .* needs a host segment on cpu"):
        jax.jit(u)(xv)
    # without in-module host calls the host op needs a host segment: refused
    monkeypatch.setenv("HLOGRAPH_HOST_FFI", "0")
    f2 = to_jax(hg.Graph([x, t], hg.isin(x, t)))
    with pytest.raises(ToJaxError, match=r"IsIn .* needs a host segment on cpu"):
        jax.jit(f2)(xv, tv)


def test_errors():
    g, _ = _layer()
    f = to_jax(g)
    with pytest.raises(TypeError, match="expected a hlograph Graph or compiled Function"):
        to_jax(lambda x: x)
    with pytest.raises(TypeError, match=r"expected 2 arguments, got 1"):
        f(np.zeros(3, np.float32))
    with pytest.raises(ToJaxError, match="does not take arguments of types float32\\[4\\], float32\\[3,2\\]"):
        jax.jit(f)(np.zeros(4, np.float32), np.zeros((3, 2), np.float32))
