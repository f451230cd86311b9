"""``hg.to_jax`` under every jax derivative: ``jax.jvp``, ``jax.linearize``, ``jax.vjp``,
``jax.jacfwd``, ``jax.jacrev``, ``jax.hessian`` and ``grad(grad)``, eagerly and under
``jax.jit``, composed with ``jax.vmap``, give what the same computation written in jax
gives (float64 with x64 on, float32 with x64 off); integer inputs and outputs get
float0 tangents, unused inputs zeros; symbolic zero tangents stay symbolic; a graph
op without a derivative is a clear error."""

import importlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.interop.jax import ToJaxError, to_jax

to_jax_module = importlib.import_module("hlograph.interop.jax.to_jax")

TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-10, atol=1e-12)}


def _close(a, b, dtype):
    a = a if isinstance(a, (tuple, list)) else [a]
    b = b if isinstance(b, (tuple, list)) else [b]
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, (tuple, list)):
            _close(x, y, dtype)
            continue
        assert np.shape(x) == np.shape(y)
        y = np.asarray(y)
        if y.dtype == jax.dtypes.float0:
            assert np.asarray(x).dtype == jax.dtypes.float0
            continue
        assert np.asarray(x).dtype == y.dtype
        np.testing.assert_allclose(np.asarray(x), y, equal_nan=True, **TOL[dtype])


def _float0(shape):
    return np.zeros(shape, jax.dtypes.float0)


def _model(dtype):
    """Three outputs (one of them integer) of a float vector, a float matrix, an integer
    vector and an unused float input, as an hlograph graph and in jax."""
    x = hg.tensor("x", (3,), dtype)
    w = hg.tensor("w", (3, 2), dtype)
    k = hg.tensor("k", (2,), "int32")
    u = hg.tensor("u", (4,), dtype)
    y = hg.tanh(x @ w) * hg.astype(k, dtype)
    g = hg.Graph([x, w, k, u], [y, hg.sum(hg.exp(x) * x), k * 2])

    def ref(x, w, k, u):
        return jnp.tanh(x @ w) * k.astype(dtype), jnp.sum(jnp.exp(x) * x), k * 2
    return g, ref


def _values(rng, dtype):
    return (rng.normal(size=3).astype(dtype), rng.normal(size=(3, 2)).astype(dtype),
            np.array([2, -3], np.int32), rng.normal(size=4).astype(dtype))


@pytest.fixture(params=["float32", "float64"])
def dtype(request):
    with jax.enable_x64(request.param == "float64"):
        yield request.param


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_jvp_linearize_vjp(dtype, jit, rng):
    g, ref = _model(dtype)
    f = to_jax(g)
    wrap = jax.jit if jit else (lambda fn: fn)
    xv, wv, kv, uv = _values(rng, dtype)
    tx, tw, tu = (rng.normal(size=v.shape).astype(dtype) for v in (xv, wv, uv))
    # jax.jvp: the integer input takes a float0 tangent, the integer output gets one
    jvp = wrap(lambda *a: jax.jvp(f, a[:4], a[4:]))
    jvp_ref = lambda *a: jax.jvp(ref, a[:4], a[4:])
    args = (xv, wv, kv, uv, tx, tw, _float0(2), tu)
    out, tan = jvp(*args)
    _close(out, jvp_ref(*args)[0], dtype)
    _close(tan, jvp_ref(*args)[1], dtype)
    assert tan[2].dtype == jax.dtypes.float0
    # jax.linearize, the linear function applied to two tangents
    floats = lambda x, w, u: f(x, w, kv, u)[:2]
    floats_ref = lambda x, w, u: ref(x, w, kv, u)[:2]
    out, lin = jax.linearize(floats, xv, wv, uv)
    out_ref, lin_ref = jax.linearize(floats_ref, xv, wv, uv)
    _close(out, out_ref, dtype)
    _close(wrap(lin)(tx, tw, tu), lin_ref(tx, tw, tu), dtype)
    _close(wrap(lin)(tx * 2, tw * 0, tu), lin_ref(tx * 2, tw * 0, tu), dtype)
    # jax.vjp; the unused input gets zeros, the integer one float0
    cy, cs = rng.normal(size=2).astype(dtype), np.asarray(rng.normal(), dtype)
    vjp = wrap(lambda *a: jax.vjp(f, *a[:4])[1]((a[4], a[5], _float0(2))))
    vjp_ref = lambda *a: jax.vjp(ref, *a[:4])[1]((a[4], a[5], _float0(2)))
    cts = vjp(xv, wv, kv, uv, cy, cs)
    _close(cts, vjp_ref(xv, wv, kv, uv, cy, cs), dtype)
    assert not np.any(np.asarray(cts[3]))
    # jacobians of the float outputs with respect to every float input (eagerly, every
    # primitive application is one hlograph compile: the jitted forms test the rest)
    jacs = (jax.jacfwd, jax.jacrev) if jit else (jax.jacrev,)
    for jac in jacs:
        _close(wrap(jac(floats, argnums=(0, 1, 2)))(xv, wv, uv),
               jac(floats_ref, argnums=(0, 1, 2))(xv, wv, uv), dtype)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_second_and_third_order(dtype, jit, rng):
    wrap = jax.jit if jit else (lambda fn: fn)
    # a scalar function of a scalar: grad of grad of grad
    s = hg.tensor("s", (), dtype)
    f = to_jax(hg.Graph([s], hg.sin(s) * hg.exp(s / 2)))
    ref = lambda s: jnp.sin(s) * jnp.exp(s / 2)
    sv = np.asarray(rng.normal(), dtype)
    orders = (jax.grad, lambda h: jax.grad(jax.grad(h)), lambda h: jax.grad(jax.grad(jax.grad(h))))
    for order in orders if jit else orders[1:2]:
        _close(wrap(order(f))(sv), order(ref)(sv), dtype)
    # a scalar function of a vector and a matrix: hessians in every mode
    x = hg.tensor("x", (3,), dtype)
    w = hg.tensor("w", (3, 2), dtype)
    loss = to_jax(hg.Graph([x, w], hg.sum(hg.tanh(x @ w) ** 2)))
    loss_ref = lambda x, w: jnp.sum(jnp.tanh(x @ w) ** 2)
    xv, wv = rng.normal(size=3).astype(dtype), rng.normal(size=(3, 2)).astype(dtype)
    _close(wrap(jax.hessian(loss, argnums=(0, 1)))(xv, wv),
           jax.hessian(loss_ref, argnums=(0, 1))(xv, wv), dtype)
    if not jit:
        return
    for second in (lambda h: jax.jacfwd(jax.jacfwd(h)), lambda h: jax.jacrev(jax.jacrev(h)),
                   lambda h: jax.jacrev(jax.jacfwd(h)),
                   lambda h: jax.grad(lambda x, w: jnp.sum(jax.grad(h)(x, w) ** 2))):
        _close(wrap(second(loss))(xv, wv), second(loss_ref)(xv, wv), dtype)


def test_scalars_empty_arrays_nan_inf(dtype, rng):
    s = hg.tensor("s", (), dtype)
    e = hg.tensor("e", (0, 2), dtype)
    x = hg.tensor("x", (4,), dtype)
    g = hg.Graph([s, e, x], [hg.log(x) * s, hg.sum(e, axis=0) + s, e * 2.0])
    f = to_jax(g)
    ref = lambda s, e, x: (jnp.log(x) * s, jnp.sum(e, axis=0) + s, e * 2.0)
    sv, ev = np.asarray(1.5, dtype), np.zeros((0, 2), dtype)
    xv = np.array([1.0, 0.0, -1.0, np.inf], dtype)
    ts, te, tx = np.asarray(0.5, dtype), np.zeros((0, 2), dtype), np.array([1.0, 2.0, 0.5, 1.0], dtype)
    for fn in (f, jax.jit(f)):
        with np.errstate(divide="ignore", invalid="ignore"):
            _close(jax.jvp(fn, (sv, ev, xv), (ts, te, tx)), jax.jvp(ref, (sv, ev, xv), (ts, te, tx)), dtype)
        cts = (np.ones(4, dtype), np.ones(2, dtype), np.zeros((0, 2), dtype))
        _close(jax.vjp(fn, sv, ev, xv)[1](cts), jax.vjp(ref, sv, ev, xv)[1](cts), dtype)


def test_complex_jvp_and_vjp(rng):
    z = hg.tensor("z", (3,), "complex64")
    f = to_jax(hg.Graph([z], hg.sin(z) * hg.conj(z)))
    ref = lambda z: jnp.sin(z) * jnp.conj(z)
    zv = (rng.normal(size=3) + 1j * rng.normal(size=3)).astype(np.complex64)
    tv = (rng.normal(size=3) + 1j * rng.normal(size=3)).astype(np.complex64)
    _close(jax.jvp(f, (zv,), (tv,)), jax.jvp(ref, (zv,), (tv,)), "float32")
    _close(jax.vjp(f, zv)[1](tv), jax.vjp(ref, zv)[1](tv), "float32")
    _close(jax.grad(lambda z: jnp.sum(jnp.abs(f(z)) ** 2))(zv),
           jax.grad(lambda z: jnp.sum(jnp.abs(ref(z)) ** 2))(zv), "float32")


def test_vmap_and_derivatives_compose(dtype, rng):
    x = hg.tensor("x", (3,), dtype)
    w = hg.tensor("w", (3, 2), dtype)
    f = to_jax(hg.Graph([x, w], hg.tanh(x @ w) * hg.sum(x)))
    ref = lambda x, w: jnp.tanh(x @ w) * jnp.sum(x)
    xb, tb = rng.normal(size=(4, 3)).astype(dtype), rng.normal(size=(4, 3)).astype(dtype)
    wv = rng.normal(size=(3, 2)).astype(dtype)
    jvp = lambda h: (lambda x, t: jax.jvp(lambda x: h(x, wv), (x,), (t,)))
    # vmap of jvp (both primitives batched), jvp of vmap (the batched graph differentiated)
    _close(jax.vmap(jvp(f))(xb, tb), jax.vmap(jvp(ref))(xb, tb), dtype)
    _close(jax.jit(jax.vmap(jvp(f), in_axes=(0, None)))(xb, tb[0]),
           jax.vmap(jvp(ref), in_axes=(0, None))(xb, tb[0]), dtype)
    vf, vref = jax.vmap(f, in_axes=(0, None)), jax.vmap(ref, in_axes=(0, None))
    _close(jax.jvp(vf, (xb, wv), (tb, wv)), jax.jvp(vref, (xb, wv), (tb, wv)), dtype)
    # grad of vmap: the batched linear call transposed; per-example jacobians
    _close(jax.grad(lambda x, w: jnp.sum(vf(x, w) ** 2), argnums=(0, 1))(xb, wv),
           jax.grad(lambda x, w: jnp.sum(vref(x, w) ** 2), argnums=(0, 1))(xb, wv), dtype)
    _close(jax.vmap(jax.jacfwd(f), in_axes=(0, None))(xb, wv),
           jax.vmap(jax.jacfwd(ref), in_axes=(0, None))(xb, wv), dtype)


def test_symbolic_zero_tangents_stay_symbolic(rng):
    x = hg.tensor("x", (3,), "float32")
    w = hg.tensor("w", (3,), "float32")
    k = hg.tensor("k", (3,), "int32")
    f = to_jax(hg.Graph([x, w, k], [x * 2.0, hg.sin(w), k + 1, x * w]))
    xv, wv, kv = np.ones(3, np.float32), np.ones(3, np.float32), np.arange(3, dtype=np.int32)

    def linear_eqns(fn, *args):
        jaxpr = jax.make_jaxpr(fn)(*args)
        return [e for e in jaxpr.eqns if e.primitive.name == "hlograph_linear_call"]

    # only x moves: the linear call takes the primals and x's tangent, and computes the
    # tangents of x * 2.0 and x * w only (sin(w)'s is a symbolic zero)
    only_x = lambda x, t: jax.jvp(lambda x: f(x, wv, kv), (x,), (t,))[1]
    (eqn,) = linear_eqns(only_x, xv, xv)
    assert len(eqn.invars) == 4 and eqn.params["n_primals"] == 3
    assert len(eqn.outvars) == 2
    tangents = only_x(xv, np.full(3, 0.5, np.float32))
    np.testing.assert_array_equal(tangents[1], np.zeros(3, np.float32))
    np.testing.assert_allclose(tangents[3], 0.5 * wv)
    assert tangents[2].dtype == jax.dtypes.float0
    # no output depends on x: no linear call at all
    g = to_jax(hg.Graph([x, w], [hg.sin(w), w * 2.0]))
    assert linear_eqns(lambda x, t: jax.jvp(lambda x: g(x, wv), (x,), (t,))[1], xv, xv) == []
    np.testing.assert_array_equal(jax.jvp(lambda x: g(x, wv), (xv,), (xv,))[1][1], np.zeros(3, np.float32))
    # reverse mode: the zero cotangent of x * w is not passed on, the transpose reads
    # only what it needs (w and the cotangent of sin(w))
    grad_w = jax.grad(lambda w: jnp.sum(f(xv, w, kv)[1]))
    np.testing.assert_allclose(grad_w(wv), np.cos(wv), rtol=1e-6)
    jaxpr = jax.make_jaxpr(grad_w)(wv)
    calls = [e for e in jaxpr.eqns if e.primitive.name == "hlograph_call"]
    assert len(calls) == 2  # the function and the transpose of its tangent graph
    assert len(calls[1].invars) == 2 and len(calls[1].outvars) == 1


def test_each_derived_graph_compiles_once(monkeypatch, rng):
    compiled = []
    real = to_jax_module.hg_compile

    def counting(graph, **kwargs):
        compiled.append(graph)
        return real(graph, **kwargs)

    monkeypatch.setattr(to_jax_module, "hg_compile", counting)
    x = hg.tensor("x", (3,), "float32")
    f = to_jax(hg.Graph([x], hg.sum(hg.sin(x) * x)))
    xv = rng.normal(size=3).astype(np.float32)
    expected = np.cos(xv) * xv + np.sin(xv)
    for _ in range(3):
        np.testing.assert_allclose(jax.jvp(f, (xv,), (np.ones(3, np.float32),))[1], expected.sum(), rtol=1e-5)
        np.testing.assert_allclose(jax.grad(f)(xv), expected, rtol=1e-5)
    # the function, its tangent graph, and that graph's transpose
    assert len(compiled) == 3
    # under jit only the transpose is lowered (the primal call's value is unused, the
    # linear call is transposed away), once for the platform; a new jit cache entry
    # (another argument value dtype-wise equal) finds it again
    for fn in (jax.jit(jax.grad(f)), jax.jit(lambda x: jax.grad(f)(x))):
        np.testing.assert_allclose(fn(xv + 1), np.cos(xv + 1) * (xv + 1) + np.sin(xv + 1), rtol=1e-5)
        assert len(compiled) == 4


def test_an_op_without_a_derivative_is_named():
    x = hg.tensor("x", (3,), "float32")
    y = hg.tensor("y", (3,), "float32")
    f = to_jax(hg.Graph([x, y], hg.nextafter(x, x + 1.0) + y * 2.0))
    xv = np.ones(3, np.float32)
    # the path through y has a derivative
    np.testing.assert_allclose(jax.grad(lambda y: jnp.sum(f(xv, y)))(xv), np.full(3, 2.0))
    np.testing.assert_allclose(jax.jvp(lambda y: f(xv, y), (xv,), (xv,))[1], np.full(3, 2.0))
    for derivative in (lambda: jax.jvp(f, (xv, xv), (xv, xv)),
                       lambda: jax.grad(lambda x: jnp.sum(f(x, xv)))(xv),
                       lambda: jax.jit(jax.hessian(lambda x: jnp.sum(f(x, xv))))(xv)):
        with pytest.raises(ToJaxError, match=r"cannot differentiate the graph: Nextafter has no derivative"):
            derivative()


def test_linear_transpose_checkpoint_and_scan(rng):
    x = hg.tensor("x", (3,), "float32")
    y = hg.tensor("y", (2,), "float32")
    lin = to_jax(hg.Graph([x, y], [x * 3.0 + hg.sum(y), y[::-1]]))
    lin_ref = lambda x, y: (x * 3.0 + jnp.sum(y), y[::-1])
    xv, yv = rng.normal(size=3).astype(np.float32), rng.normal(size=2).astype(np.float32)
    cx, cy = rng.normal(size=3).astype(np.float32), rng.normal(size=2).astype(np.float32)
    _close(jax.linear_transpose(lin, xv, yv)((cx, cy)), jax.linear_transpose(lin_ref, xv, yv)((cx, cy)),
           "float32")
    f = to_jax(hg.Graph([x], hg.sin(x) * x))
    ref = lambda x: jnp.sin(x) * x
    with pytest.raises(ToJaxError, match=r"not linear in its input 0 \(float32\[3\]\)"):
        jax.linear_transpose(f, xv)(cx)
    # rematerialized, and inside a scan body (jvp and transpose under the loop)
    for h in (lambda f: jax.checkpoint(f), lambda f: lambda x: jax.lax.scan(
            lambda c, _: (f(c), None), x, None, length=3)[0]):
        _close(jax.jit(jax.grad(lambda x: jnp.sum(h(f)(x))))(xv), jax.grad(lambda x: jnp.sum(h(ref)(x)))(xv),
               "float32")


def test_the_derivatives_lower_to_inlined_hlograph_modules():
    w = hg.tensor("w", (3,), "float32")
    t = to_jax(hg.Graph([w], hg.tanh(w) * 2.0))
    spec = jax.ShapeDtypeStruct((3,), jnp.float32)
    text = jax.jit(lambda v, dv: jax.jvp(t, (v,), (dv,))).lower(spec, spec).as_text()
    assert "call @hlograph_graph" in text and "call @hlograph_jvp_graph" in text
    assert "func.func private @hlograph_jvp_graph" in text
    # reverse mode: the tangent graph is transposed away; the primal value is unused
    text = jax.jit(jax.grad(lambda v: jnp.sum(t(v)))).lower(spec).as_text()
    assert "call @hlograph_transpose_jvp_graph" in text
    assert "@hlograph_graph" not in text and "@hlograph_jvp_graph" not in text
    assert "stablehlo.tanh" in text and "callback" not in text
