"""``hg.jax_op``: a jax function as an Op of an hlograph graph. Its values (compiled,
and through ``perform``) are jax's; it mixes with hlograph ops; ``hg.grad`` /
``hg.jvp`` through it are ``jax.grad`` / ``jax.jvp``, to second order; pytrees go in
and out; a function jax cannot trace is a clear error."""

import functools
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.compiler.placement import placement
from hlograph.interop.jax import JaxOp, JaxOpError, jax_op


def _run(inputs, outputs, *args):
    """Compiled results and the reference (perform) results of a graph."""
    g = hg.Graph(inputs, outputs)
    compiled = hg.compile(g)(*args)
    reference = hg.evaluate(g, *args)
    return compiled, reference


def _close(a, b, rtol=1e-5, atol=1e-6):
    for x, y in zip(a if isinstance(a, (tuple, list)) else [a], b if isinstance(b, (tuple, list)) else [b]):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("shape", [(), (0,), (3, 4)])
def test_values_are_jax(dtype, shape, rng):
    f = lambda a, b: jnp.sin(a) * b + jnp.exp(-a)
    a = (rng.normal(size=shape) + (1j * rng.normal(size=shape) if "complex" in dtype else 0)).astype(dtype)
    b = rng.normal(size=shape).astype(dtype)
    x, y = hg.tensor("x", shape, dtype), hg.tensor("y", shape, dtype)
    out = jax_op(f)(x, y)
    assert out.type == hg.TensorType(dtype, shape)
    compiled, reference = _run([x, y], out, a, b)
    with jax.enable_x64(dtype == "float64"):
        expected = np.asarray(jax.jit(f)(a, b))
    assert compiled.dtype == np.dtype(dtype)
    _close(compiled, expected)
    _close(reference, expected)


def test_nan_inf_and_broadcasting_inside_the_function():
    f = lambda a, b: jnp.log(a) + b[:, None]
    a = np.array([[1.0, 0.0, -1.0], [np.inf, np.nan, 2.0]], np.float32)
    b = np.array([1.0, -np.inf], np.float32)
    x, y = hg.tensor("x", (2, 3), "float32"), hg.tensor("y", (2,), "float32")
    compiled, reference = _run([x, y], jax_op(f)(x, y), a, b)
    expected = np.asarray(jax.jit(f)(a, b))
    assert np.isnan(expected).any() and np.isinf(expected).any()
    _close(compiled, expected)
    _close(reference, expected)


def test_inside_a_compiled_graph_with_hlograph_ops(rng):
    @jax_op
    def gelu(v):
        return jax.nn.gelu(v, approximate=False)

    x = hg.tensor("x", (4, 3), "float32")
    w = hg.tensor("w", (3, 5), "float32")
    h = gelu(hg.matmul(x, w))
    out = hg.sum(hg.tanh(h), axis=-1)
    xv = rng.normal(size=(4, 3)).astype(np.float32)
    wv = rng.normal(size=(3, 5)).astype(np.float32)
    compiled, reference = _run([x, w], out, xv, wv)
    expected = np.sum(np.tanh(np.asarray(jax.nn.gelu(xv @ wv, approximate=False))), axis=-1)
    _close(compiled, expected, rtol=1e-4, atol=1e-5)
    _close(reference, expected, rtol=1e-4, atol=1e-5)
    # the node runs in the device module, through jax's lowering merged into it
    (node,) = [n for n in hg.Graph([x, w], out).toposort() if isinstance(n.op, JaxOp)]
    p = placement(node, "cpu")
    assert p.where == "device" and p.via == "jax bridge"
    text = hg.compile(hg.Graph([x, w], out), pipeline="O0").lower().as_text()
    assert "call @jax_jaxop" in text and "func.func private @jax_jaxop" in text


def test_grad_is_jax_grad(rng):
    f = lambda a, b: jnp.sum(jnp.tanh(a @ b) ** 2)
    av = rng.normal(size=(2, 3)).astype(np.float32)
    bv = rng.normal(size=(3,)).astype(np.float32)
    a, b = hg.tensor("a", (2, 3), "float32"), hg.tensor("b", (3,), "float32")
    cost = jax_op(f)(a, b) * 3.0
    ga, gb = hg.grad(cost, [a, b])
    compiled, reference = _run([a, b], [ga, gb], av, bv)
    expected = jax.grad(lambda a, b: 3.0 * f(a, b), argnums=(0, 1))(av, bv)
    _close(compiled, expected, rtol=1e-4, atol=1e-5)
    _close(reference, expected, rtol=1e-4, atol=1e-5)
    # the pullback is itself a JaxOp (of jax.vjp)
    assert any(isinstance(n.op, JaxOp) and n.op.name.startswith("vjp(")
               for n in hg.Graph([a, b], [ga, gb]).toposort())


def test_grad_of_grad_and_jvp(rng):
    f = lambda v: jnp.sum(jnp.sin(v) * v)
    xv = rng.normal(size=(5,)).astype(np.float32)
    tv = rng.normal(size=(5,)).astype(np.float32)
    x, t = hg.tensor("x", (5,), "float32"), hg.tensor("t", (5,), "float32")
    y = jax_op(f)(x)
    g1 = hg.grad(y, x)
    g2 = hg.grad(hg.sum(g1 * g1), x)
    fwd = hg.jvp(y, x, t)
    compiled, reference = _run([x, t], [g1, g2, fwd], xv, tv)
    jg = jax.grad(f)
    expected = [jg(xv), jax.grad(lambda v: jnp.sum(jg(v) ** 2))(xv), jax.jvp(f, (xv,), (tv,))[1]]
    _close(compiled, expected, rtol=1e-4, atol=1e-5)
    _close(reference, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_mode_several_outputs_and_integer_inputs(dtype, rng):
    # hg.jvp through the op is jax.jvp (x64 on for float64), to second order; the
    # graph goes back to jax through to_jax and jax.hessian of it is jax's
    @jax_op
    def f(v, k, w):
        return jnp.tanh(v @ w) * k.astype(v.dtype), jnp.argmax(v), jnp.sum(w ** 3)

    with jax.enable_x64(dtype == "float64"):
        x, k, w = hg.tensor("x", (3,), dtype), hg.tensor("k", (2,), "int32"), hg.tensor("w", (3, 2), dtype)
        tx, tw = hg.tensor("tx", (3,), dtype), hg.tensor("tw", (3, 2), dtype)
        y, _, s = f(x, k, w)
        cost = hg.sum(y ** 2) + s
        ty, ts = hg.jvp([y, s], [x, w], [tx, tw])
        second = hg.jvp(hg.jvp(cost, x, tx), x, tx)
        xv, kv = rng.normal(size=3).astype(dtype), np.array([2, -1], np.int32)
        wv, txv, twv = (rng.normal(size=sh).astype(dtype) for sh in ((3, 2), (3,), (3, 2)))
        compiled, reference = _run([x, k, w, tx, tw], [ty, ts, second], xv, kv, wv, txv, twv)
        ref = lambda v, w: (jnp.tanh(v @ w) * kv.astype(dtype), jnp.sum(w ** 3))
        ref_cost = lambda v: jnp.sum(ref(v, wv)[0] ** 2) + ref(v, wv)[1]
        expected = [*jax.jvp(ref, (xv, wv), (txv, twv))[1],
                    jax.jvp(lambda v: jax.jvp(ref_cost, (v,), (txv,))[1], (xv,), (txv,))[1]]
        tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
        for got in (compiled, reference):
            assert [np.asarray(g).dtype for g in got] == [np.dtype(dtype)] * 3
            _close(got, expected, **tol)
        hessian = hg.compile(hg.Graph([x, k, w], hg.hessian(cost, x)))(xv, kv, wv)
        _close(hessian, jax.hessian(ref_cost)(xv), **tol)
        back = hg.to_jax(hg.Graph([x, k, w], cost))
        _close(jax.jit(jax.hessian(back))(xv, kv, wv), jax.hessian(ref_cost)(xv), **tol)


def test_integer_inputs_and_outputs_carry_no_gradient(rng):
    @jax_op
    def f(v, k):
        return v * k.astype(v.dtype), jnp.argmax(v)

    x, k = hg.tensor("x", (4,), "float32"), hg.tensor("k", (4,), "int32")
    scaled, idx = f(x, k)
    assert idx.dtype == np.int32 and idx.shape == ()
    # the integer output ends its path: the cost through it adds nothing
    gx = hg.grad(hg.sum(scaled) + hg.astype(idx, "float32"), x)
    xv = rng.normal(size=4).astype(np.float32)
    kv = np.array([1, -2, 3, 0], np.int32)
    compiled, reference = _run([x, k], [gx, idx], xv, kv)
    for got in (compiled, reference):
        _close(got[0], kv.astype(np.float32))
        assert int(got[1]) == int(np.argmax(xv))
    # the vjp JaxOp takes one cotangent (the float output) and gives one (for x)
    (vjp_node,) = [n for n in hg.Graph([x, k], gx).toposort()
                   if isinstance(n.op, JaxOp) and n.op.name.startswith("vjp(")]
    assert len(vjp_node.inputs) == 3 and len(vjp_node.outputs) == 1


def test_pytrees_in_and_out(rng):
    def f(params, x, *, scale):
        h = jnp.tanh(x @ params["w"] + params["b"])
        return {"out": h * scale, "stats": (jnp.mean(h), jnp.max(h))}

    w = hg.tensor("w", (3, 2), "float32")
    b = hg.tensor("b", (2,), "float32")
    x = hg.tensor("x", (4, 3), "float32")
    res = jax_op(f)({"w": w, "b": b}, x, scale=np.float32(2.0))
    assert set(res) == {"out", "stats"} and isinstance(res["stats"], tuple)
    assert res["out"].type == hg.TensorType("float32", (4, 2))
    wv = rng.normal(size=(3, 2)).astype(np.float32)
    bv = rng.normal(size=2).astype(np.float32)
    xv = rng.normal(size=(4, 3)).astype(np.float32)
    compiled, reference = _run([w, b, x], [res["out"], *res["stats"]], wv, bv, xv)
    exp = f({"w": wv, "b": bv}, xv, scale=2.0)
    expected = [exp["out"], *exp["stats"]]
    _close(compiled, expected)
    _close(reference, expected)
    # gradient with respect to a leaf of the input pytree
    gw = hg.grad(hg.sum(res["out"]), w)
    compiled, _ = _run([w, b, x], gw, wv, bv, xv)
    _close(compiled, jax.grad(lambda w: jnp.sum(f({"w": w, "b": bv}, xv, scale=2.0)["out"]))(wv), rtol=1e-4)


def test_a_function_ignoring_an_input_and_static_arguments(rng):
    # the lowered function keeps every operand even where jax would prune one
    @jax_op
    def f(a, unused, n=3):
        return a * n

    x, u = hg.tensor("x", (3,), "float32"), hg.tensor("u", (2,), "float32")
    g = hg.grad(hg.sum(jax_op(functools.partial(lambda a, unused, n: a ** n, n=3))(x, u)), x)
    xv = rng.normal(size=3).astype(np.float32)
    compiled, reference = _run([x, u], [f(x, u), g], xv, np.zeros(2, np.float32))
    _close(compiled, [xv * 3, 3 * xv ** 2], rtol=1e-5)
    _close(reference, [xv * 3, 3 * xv ** 2], rtol=1e-5)


def test_the_same_function_on_the_same_values_is_one_node():
    f = jax_op(jnp.sin)
    x = hg.tensor("x", (3,), "float32")
    assert f(x).owner.op == f(x).owner.op
    assert f(x).owner.op != jax_op(jnp.cos)(x).owner.op


def test_errors():
    x = hg.tensor("x", (3,), "float32")
    y = hg.tensor("y", (4,), "float32")
    with pytest.raises(JaxOpError, match=r"jax_op\(.*\): jax cannot trace it for inputs float32\[3\], "
                                         r"float32\[4\]: TypeError"):
        jax_op(lambda a, b: a + b)(x, y)
    with pytest.raises(TypeError, match="expected a function"):
        jax_op(3)
    with pytest.raises(TypeError, match="static input shapes"):
        jax_op(jnp.sin)(hg.tensor("z", (None, 3), "float32"))
    # value-dependent Python control flow cannot be traced either
    with pytest.raises(JaxOpError, match="cannot trace"):
        jax_op(lambda a: a if a[0] > 0 else -a)(x)


def test_top_level_names_import_the_bridge_on_first_use():
    from hlograph.interop.jax import from_jax, to_jax
    assert hg.jax_op is jax_op and hg.to_jax is to_jax and hg.from_jax is from_jax
    code = ("import sys, hlograph as hg\n"
            "assert 'hlograph.interop.jax' not in sys.modules\n"
            "hg.to_jax\n"
            "assert 'hlograph.interop.jax' in sys.modules\n"
            "try:\n    hg.no_such_name\nexcept AttributeError as e:\n    assert 'no_such_name' in str(e)\n"
            "else:\n    raise SystemExit('no AttributeError')\n")
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
