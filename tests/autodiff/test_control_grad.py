"""Gradients through control flow against jax (lax.cond, lax.switch, lax.scan,
lax.fori_loop/while_loop) and finite differences: the taken branch of ifelse/switch,
free variables routed back to the enclosing graph, scans with several states, taps,
updates, non-sequences, longer sequences, integer counters and no steps, while loops
(forward mode; reverse mode when a counter from a constant gives a static trip count,
else an error naming the op), composites, and second derivatives through a scan."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops.control import Composite, IfElse, Scan, WhileLoop
from hlograph.tests.autodiff.helpers import check_grads


def _nodes(graph, cls):
    return [n for n in graph.nodes if isinstance(n.op, cls)]


# --- ifelse / switch ---------------------------------------------------------------------
@pytest.mark.parametrize("taken", [True, False])
def test_ifelse_differentiates_the_taken_branch(taken, rng):
    def f(x, y):
        return hg.ifelse(hg.sum(x) > 0, lambda: hg.sin(x) * y, lambda: x * x + hg.exp(y))

    def jf(x, y):
        return jax.lax.cond(jnp.sum(x) > 0, lambda: jnp.sin(x) * y, lambda: x * x + jnp.exp(y))

    x = np.abs(rng.normal(size=(2, 3))) * (1 if taken else -1)
    out = check_grads(f, jf, [x, rng.normal(size=(2, 3))], rng=rng)
    # the gradient is one conditional on the same condition (no branch runs twice)
    assert len(_nodes(out["graph"], IfElse)) == 3  # forward, pullback, pushforward


def test_ifelse_free_variables_and_several_outputs(rng):
    # w is read by one branch only, b by both (a free variable computed outside)
    def f(c, x, w):
        b = hg.exp(x)
        u, v = hg.ifelse(c > 0, lambda: (b * w, hg.sum(b)), lambda: (b, hg.sum(x * w)))
        return u * v

    def jf(c, x, w):
        b = jnp.exp(x)
        u, v = jax.lax.cond(c > 0, lambda: (b * w, jnp.sum(b)), lambda: (b, jnp.sum(x * w)))
        return u * v

    for c in (1.0, -1.0):
        check_grads(f, jf, [np.float64(c), rng.normal(size=3), rng.normal(size=3)], argnums=[1, 2], rng=rng)


def test_ifelse_branch_without_the_input_and_int_outputs(rng):
    # the else branch does not read x: its gradient there is zero
    def f(x, y):
        out, n = hg.ifelse(hg.sum(y) > 0, lambda: (hg.tanh(x) + y, hg.constant(np.int64(1))),
                           lambda: (y * 2.0, hg.constant(np.int64(2))))
        return out * n.astype("float64")

    def jf(x, y):
        out, n = jax.lax.cond(jnp.sum(y) > 0, lambda: (jnp.tanh(x) + y, 1), lambda: (y * 2.0, 2))
        return out * n

    for s in (1, -1):
        check_grads(f, jf, [rng.normal(size=4), s * np.abs(rng.normal(size=4))], rng=rng)


@pytest.mark.parametrize("index", [-1, 0, 1, 2, 5])
def test_switch(index, rng):
    def f(i, x, y):
        return hg.switch(i, [lambda: hg.exp(x) * y, lambda: x * 3.0, lambda: hg.cos(x) * y * y])

    def jf(i, x, y):
        return jax.lax.switch(i, [lambda: jnp.exp(x) * y, lambda: x * 3.0, lambda: jnp.cos(x) * y * y])

    check_grads(f, jf, [np.int32(index), rng.normal(size=(2, 3)), rng.normal(size=(2, 3))], rng=rng)


def test_nested_conditionals(rng):
    def f(x):
        inner = lambda: hg.ifelse(x[0] > 0, lambda: hg.sin(x), lambda: hg.cos(x))
        return hg.ifelse(hg.sum(x) > 0, inner, lambda: x ** 3)

    def jf(x):
        inner = lambda: jax.lax.cond(x[0] > 0, lambda: jnp.sin(x), lambda: jnp.cos(x))
        return jax.lax.cond(jnp.sum(x) > 0, inner, lambda: x ** 3)

    for xv in ([1.0, 2.0], [-1.0, 3.0], [-1.0, -2.0]):
        check_grads(f, jf, [np.array(xv)], rng=rng)


# --- scan ------------------------------------------------------------------------------
def test_scan_recurrence_with_non_sequence(rng):
    def f(xs, h0, w):
        return hg.scan(lambda x, h, w: hg.tanh(h * w + x), sequences=xs, outputs_info=h0, non_sequences=w)

    def jf(xs, h0, w):
        def step(h, x):
            h = jnp.tanh(h * w + x)
            return h, h
        return jax.lax.scan(step, h0, xs)[1]

    check_grads(f, jf, [rng.normal(size=(5, 3)), rng.normal(size=3), rng.normal(size=3)], rng=rng)


def test_scan_several_states_free_variables_and_stacked_outputs(rng):
    # two states, an output that is not fed back, a value closed over (w), an integer counter
    def f(xs, a0, b0, w):
        def step(x, a, b, i):
            a2 = a * hg.cos(b) + x * w
            b2 = hg.sin(a) + b * i.astype("float64")
            return a2, b2, hg.sum(a2 * b2), i + 1
        a, b, s, _ = hg.scan(step, sequences=xs, outputs_info=[a0, b0, None, hg.constant(np.int64(1))])
        return hg.sum(a, axis=0) + b[-1] + s[:, None]

    def jf(xs, a0, b0, w):
        def step(c, x):
            a, b, i = c
            a2 = a * jnp.cos(b) + x * w
            b2 = jnp.sin(a) + b * i
            return (a2, b2, i + 1), (a2, b2, jnp.sum(a2 * b2))
        _, (a, b, s) = jax.lax.scan(step, (a0, b0, 1.0), xs)
        return jnp.sum(a, axis=0) + b[-1] + s[:, None]

    args = [rng.normal(size=(4, 2)), rng.normal(size=2), rng.normal(size=2), rng.normal(size=2)]
    check_grads(f, jf, args, rng=rng)


def test_scan_taps_and_longer_sequences(rng):
    # a sequence with taps [-1, 0] (one shifted slice each), an output read two steps back
    # (a window state kept unstacked), a sequence longer than n_steps
    def f(xs, ys, init):
        def step(x_prev, x, y, h2, h1):
            return h1 * 0.5 + hg.sin(h2) * x + x_prev * y
        return hg.scan(step, sequences=[dict(input=xs, taps=[-1, 0]), ys],
                       outputs_info=dict(initial=init, taps=[-2, -1]), n_steps=4)

    def jf(xs, ys, init):
        def step(c, inp):
            h2, h1 = c
            x_prev, x, y = inp
            h = h1 * 0.5 + jnp.sin(h2) * x + x_prev * y
            return (h1, h), h
        return jax.lax.scan(step, (init[0], init[1]), (xs[:4], xs[1:5], ys[:4]))[1]

    check_grads(f, jf, [rng.normal(size=(6, 3)), rng.normal(size=(7, 3)), rng.normal(size=(2, 3))], rng=rng)


def test_scan_updates_keep_only_final_states(rng):
    # an updated variable is a state whose final value is an output (not stacked)
    def f(xs, acc0):
        acc = acc0 * 1.0
        _, upd = hg.scan(lambda x: ([], {acc: acc * hg.cos(x) + x}), sequences=xs)
        return upd[acc]

    def jf(xs, acc0):
        return jax.lax.scan(lambda a, x: (a * jnp.cos(x) + x, None), acc0, xs)[0]

    out = check_grads(f, jf, [rng.normal(size=(5, 2)), rng.normal(size=2)], rng=rng)
    assert any(not all(n.op.stacked) for n in _nodes(out["graph"], Scan))


def test_scan_without_steps(rng):
    def f(xs, h0):
        h = hg.scan(lambda x, h: h * x, sequences=xs, outputs_info=h0, n_steps=0)
        _, upd = hg.scan(lambda x: ([], {h0: h0 * 2.0}), sequences=xs, n_steps=0)
        return hg.sum(h) + upd[h0]

    check_grads(f, lambda xs, h0: jnp.sum(jnp.zeros((0, 3))) + h0, [rng.normal(size=(3, 3)), rng.normal(size=3)],
                rng=rng)


def test_fori_loop_as_scan(rng):
    def f(x, w):
        return hg.scan(lambda h, w: hg.sin(h @ w) + h, outputs_info=x, non_sequences=w, n_steps=3)[-1]

    def jf(x, w):
        return jax.lax.fori_loop(0, 3, lambda i, h: jnp.sin(h @ w) + h, x)

    check_grads(f, jf, [rng.normal(size=(2, 3)), rng.normal(size=(3, 3)) * 0.5], rng=rng)


def test_scan_float32(rng):
    def f(xs, h0):
        return hg.scan(lambda x, h: h * hg.cos(x) + x, sequences=xs, outputs_info=h0)

    def jf(xs, h0):
        return jax.lax.scan(lambda h, x: (h * jnp.cos(x) + x,) * 2, h0, xs)[1]

    args = [rng.normal(size=(4, 3)).astype("float32"), rng.normal(size=3).astype("float32")]
    check_grads(f, jf, args, rng=rng, fd_eps=1e-2, fd_tol=5e-3)


def test_scan_with_ifelse_step_and_nested_scan(rng):
    def f(xs, h0):
        def step(x, h):
            inner = hg.scan(lambda r, s: s * hg.cos(r) + r, sequences=x, outputs_info=h[0])
            return hg.ifelse(hg.sum(x) > 0, lambda: h * inner[-1], lambda: h + hg.sin(x))
        return hg.scan(step, sequences=xs, outputs_info=h0)

    def jf(xs, h0):
        def step(h, x):
            inner = jax.lax.scan(lambda s, r: (s * jnp.cos(r) + r,) * 2, h[0], x)[1]
            h = jax.lax.cond(jnp.sum(x) > 0, lambda: h * inner[-1], lambda: h + jnp.sin(x))
            return h, h
        return jax.lax.scan(step, h0, xs)[1]

    check_grads(f, jf, [rng.normal(size=(4, 3)), rng.normal(size=3)], rng=rng)


def test_scan_second_derivatives(rng):
    x = hg.tensor("x", (3,), "float64")
    w = hg.tensor("w", (3,), "float64")

    def cost(x, w):
        hs = hg.scan(lambda h, w: hg.tanh(h * w) + h * 0.5, outputs_info=x, non_sequences=w, n_steps=3)
        return hg.sum(hs[-1] ** 2)

    def jcost(x, w):
        return jnp.sum(jax.lax.fori_loop(0, 3, lambda i, h: jnp.tanh(h * w) + h * 0.5, x) ** 2)

    c = cost(x, w)
    hess = hg.hessian(c, x)
    g = hg.grad(c, x)
    v = rng.normal(size=3)
    hvp_rev = hg.grad(hg.sum(g * v), x)  # reverse over reverse
    graph = hg.Graph([x, w], [hess, hvp_rev])
    xv, wv = rng.normal(size=3), rng.normal(size=3)
    out = hg.evaluate(graph, xv, wv)
    comp = hg.compile(graph)(xv, wv)
    with jax.enable_x64(True):
        ref = np.asarray(jax.jit(jax.hessian(jcost))(xv, wv))
    for a in (out, comp):
        np.testing.assert_allclose(a[0], ref, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(a[1], ref @ v, rtol=1e-8, atol=1e-10)


# --- while_loop ------------------------------------------------------------------------
def test_while_loop_forward_mode(rng):
    x = hg.tensor("x", (3,), "float64")
    a = hg.tensor("a", (), "float64")
    i, y = hg.while_loop(lambda i, v: (i < 4) & (hg.sum(v * v) < 1e6),
                         lambda i, v: (i + 1, hg.sin(v) * a + v), [hg.constant(np.int64(0)), x])
    tx, ta = rng.normal(size=3), rng.normal()
    t = hg.jvp(y, [x, a], [tx, np.float64(ta)])
    graph = hg.Graph([x, a], [y, t])
    xv, av = rng.normal(size=3), 1.3
    out = hg.evaluate(graph, xv, av)
    comp = hg.compile(graph)(xv, av)

    def jf(x, a):
        return jax.lax.while_loop(lambda c: (c[0] < 4) & (jnp.sum(c[1] ** 2) < 1e6),
                                  lambda c: (c[0] + 1, jnp.sin(c[1]) * a + c[1]), (0, x))[1]

    with jax.enable_x64(True):
        y_ref, t_ref = jax.jit(lambda x, a: jax.jvp(jf, (x, a), (tx, ta)))(xv, av)
    for r in (out, comp):
        np.testing.assert_allclose(r[0], y_ref, rtol=1e-10)
        np.testing.assert_allclose(r[1], t_ref, rtol=1e-9, atol=1e-12)
    assert len(_nodes(graph, WhileLoop)) == 2


@pytest.mark.parametrize("start,stop,step,trips", [(0, 4, 1, 4), (-1, 5, 2, 3), (3, 0, 1, 0)])
def test_while_loop_with_a_static_trip_count(start, stop, step, trips, rng):
    # a counter from a constant, read alone by the condition: a fori_loop, differentiated
    # as a scan of the body
    def f(x, w):
        return hg.while_loop(lambda i, v: i < stop, lambda i, v: (i + step, hg.sin(v * w) + v),
                             [hg.constant(np.int64(start)), x])[1]

    def jf(x, w):
        return jax.lax.fori_loop(0, trips, lambda i, v: jnp.sin(v * w) + v, x)

    check_grads(f, jf, [rng.normal(size=3), rng.normal(size=3)], rng=rng)


def test_while_loop_reverse_mode_is_an_error_naming_the_op():
    x = hg.tensor("x", (3,), "float64")
    y = hg.while_loop(lambda v: hg.sum(v) < 10.0, lambda v: v * 2.0, x)
    with pytest.raises(hg.NotDifferentiableError, match=r"WhileLoop.*number of iterations is not static.*scan"):
        hg.grad(hg.sum(y), x)
    # an integer-only loop on the path is no error, nor is a loop cut by stop_gradient
    z = hg.stop_gradient(y) * x
    hg.grad(hg.sum(z), x)


# --- composite ---------------------------------------------------------------------------
def test_composite(rng):
    a = hg.tensor("a", (None,), "float64")
    b = hg.tensor("b", (None,), "float64")
    fma = hg.composite([a, b], [hg.exp(a) * b + a, hg.sum(b * b)], name="fma")

    def f(x, y):
        u, s = fma(x, y)
        v, _ = fma(u, x)
        return v * s

    def jf(x, y):
        def fma_j(a, b):
            return jnp.exp(a) * b + a, jnp.sum(b * b)
        u, s = fma_j(x, y)
        v, _ = fma_j(u, x)
        return v * s

    out = check_grads(f, jf, [rng.normal(size=3), rng.normal(size=3)], rng=rng)
    names = {n.op.name for n in _nodes(out["graph"], Composite)}
    assert names == {"fma", "fma_vjp", "fma_jvp"}
