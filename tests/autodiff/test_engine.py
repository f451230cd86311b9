"""The autodiff engine and API: structures, known_grads, intermediate wrt values, the
disconnected policy, errors (a missing rule names the Op, only when a gradient needs
it; integer inputs get none), stop_gradient, custom_vjp, forward mode by transposing a
pullback, unknown dims, and the size of gradient graphs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph import Apply, Op
from hlograph.frontend.ops.autodiff import SumToLike
from hlograph.frontend.ops.basic import as_variable


def _eval(outputs, inputs, *values, compiled=False):
    graph = hg.Graph(inputs, outputs)
    out = hg.evaluate(graph, *values)
    if compiled:
        comp = hg.compile(graph)(*values)
        for a, e in zip(comp if isinstance(comp, tuple) else (comp,), out if isinstance(out, tuple) else (out,)):
            np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12)
    return out


class Cube(Op):
    """x ** 3 * scale, with no gradient rule."""

    __props__ = ("scale",)

    def __init__(self, scale):
        self.scale = scale

    def make_node(self, x):
        x = as_variable(x)
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0] ** 3 * self.scale]


class CubeWithPullback(Cube):
    """The same with only a reverse-mode rule: forward mode transposes it."""

    def pullback(self, node, cotangents):
        (x,) = node.inputs
        return [cotangents[0] * (3.0 * self.scale) * x * x]


# --- structure and API ---------------------------------------------------------------
def test_grad_structures_and_value_and_grad():
    x = hg.tensor("x", (3,), "float64")
    y = hg.tensor("y", (), "float64")
    cost = hg.sum(x * x) * y
    assert isinstance(hg.grad(cost, x), hg.Variable)
    gl = hg.grad(cost, [x, y])
    gt = hg.grad(cost, (x, y))
    assert isinstance(gl, list) and isinstance(gt, tuple)
    value, (gx, gy) = hg.value_and_grad(cost, (x, y))
    assert value is cost and gx.type == x.type and gy.type == y.type
    xv = np.array([1.0, 2.0, 3.0])
    out = _eval([value, gx, gy], [x, y], xv, 2.0, compiled=True)
    np.testing.assert_allclose(out[1], 2 * xv * 2.0)
    np.testing.assert_allclose(out[2], 14.0)


def test_vjp_jvp_and_known_grads(rng):
    x = hg.tensor("x", (2, 3), "float64")
    h = hg.exp(x)
    y1, y2 = hg.sum(h, axis=0), h * 2.0
    c1, c2 = rng.normal(size=(3,)), rng.normal(size=(2, 3))
    g = hg.vjp([y1, y2], x, [c1, c2])
    t1, t2 = hg.jvp([y1, y2], x, np.ones((2, 3)))
    # known_grads seeds the walk at an intermediate value, as PyTensor's
    g_known = hg.grad(None, x, known_grads={h: hg.constant(c1) + 2.0 * hg.constant(c2)})
    xv = rng.normal(size=(2, 3))
    out = _eval([g, t1, t2, g_known], [x], xv)
    np.testing.assert_allclose(out[0], np.exp(xv) * (c1 + 2 * c2))
    np.testing.assert_allclose(out[1], np.exp(xv).sum(0))
    np.testing.assert_allclose(out[2], 2 * np.exp(xv))
    np.testing.assert_allclose(out[3], out[0])


def test_intermediate_wrt_gets_the_partial_derivative():
    x = hg.tensor("x", (), "float64")
    h = hg.sin(x)
    cost = h * h + x
    gh, gx = hg.grad(cost, [h, x])
    out = _eval([gh, gx], [x], 0.3)
    np.testing.assert_allclose(out[0], 2 * np.sin(0.3))
    np.testing.assert_allclose(out[1], 2 * np.sin(0.3) * np.cos(0.3) + 1)


def test_disconnected_policy():
    x = hg.tensor("x", (3,), "float64")
    y = hg.tensor("y", (2,), "float64")
    cost = hg.sum(hg.exp(x))
    with pytest.raises(hg.GradientError, match=r"does not depend on wrt\[1\].*disconnected='zero'"):
        hg.grad(cost, [x, y])
    gx, gy = hg.grad(cost, [x, y], disconnected="zero")
    assert gy.type == y.type
    np.testing.assert_array_equal(_eval(gy, [y], np.ones(2)), np.zeros(2))
    # reached only through a zero derivative: zeros, not an error
    g = hg.grad(hg.sum(hg.floor(x) * 2.0) + hg.sum(hg.stop_gradient(x)), x)
    np.testing.assert_array_equal(_eval(g, [x], np.ones(3)), np.zeros(3))


def test_bad_costs_and_wrt():
    x = hg.tensor("x", (3,), "float64")
    i = hg.tensor("i", (3,), "int32")
    with pytest.raises(hg.GradientError, match="real float 0-d cost, got float64\\[3\\]"):
        hg.grad(x * 2.0, x)
    with pytest.raises(hg.GradientError, match="only float and complex values have gradients"):
        hg.grad(hg.sum(x * hg.astype(i, "float64")), i)
    with pytest.raises(hg.GradientError, match="grad needs a cost or known_grads"):
        hg.grad(None, x)


# --- errors ------------------------------------------------------------------------------
def test_missing_rule_names_the_op_and_how_to_define_it():
    x = hg.tensor("x", (3,), "float64")
    cost = hg.sum(Cube(2.0)(hg.sin(x)))
    with pytest.raises(hg.NotDifferentiableError) as err:
        hg.grad(cost, x)
    msg = str(err.value)
    assert "Cube{scale=2.0} has no gradient rule" in msg
    assert "def pullback(self, node, cotangents)" in msg and "adding_an_op.md" in msg
    assert "test_engine.py" in msg  # where the node was built
    with pytest.raises(hg.NotDifferentiableError, match="Cube"):
        hg.jvp(cost, x, np.ones(3))


def test_missing_rule_off_the_path_is_no_error():
    x = hg.tensor("x", (3,), "float64")
    y = hg.tensor("y", (3,), "float64")
    cube = Cube(1.0)
    # on y's path only; behind stop_gradient; behind a zero derivative (floor)
    cost = hg.sum(cube(y) * x) + hg.sum(cube(hg.stop_gradient(x))) + hg.sum(cube(hg.floor(x)))
    g = hg.grad(cost, x)
    xv, yv = np.array([0.5, 1.5, 2.5]), np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(_eval(g, [x, y], xv, yv), yv ** 3)


def test_integer_inputs_get_no_gradient():
    x = hg.tensor("x", (4,), "float64")
    i = hg.tensor("i", (4,), "int64")
    # an integer operand cast to float, a bool condition
    cost = hg.sum(x[1:] * hg.astype(i[:-1], "float64")) + hg.sum(hg.where(i > 1, x, 0.0))
    g = hg.grad(cost, x)
    out = _eval(g, [x, i], np.arange(4.0), np.array([1, 2, 3, 4]), compiled=True)
    np.testing.assert_array_equal(out, [0.0, 2.0, 3.0, 4.0])


# --- stop_gradient, custom_vjp, transposition -------------------------------------------
def test_stop_gradient():
    x = hg.tensor("x", (2,), "float64")
    y = hg.stop_gradient(x * x)
    g = hg.grad(hg.sum(y * x), x)
    t = hg.jvp(y * x, x, np.ones(2))
    xv = np.array([1.5, -2.0])
    out = _eval([y, g, t], [x], xv, compiled=True)
    np.testing.assert_allclose(out[0], xv * xv)
    np.testing.assert_allclose(out[1], xv * xv)
    np.testing.assert_allclose(out[2], xv * xv)


def test_custom_vjp_stable_gradient():
    def log1pexp(x):
        return hg.log1p(hg.exp(x))

    naive = log1pexp
    stable = hg.custom_vjp(log1pexp)
    stable.defvjp(lambda x: (log1pexp(x), x), lambda x, ct: (ct * hg.sigmoid(x),))
    x = hg.tensor("x", (3,), "float64")
    xv = np.array([0.0, 5.0, 800.0])
    with np.errstate(all="ignore"):
        g_naive = _eval(hg.grad(hg.sum(naive(x)), x), [x], xv)
    assert np.isnan(g_naive[2])  # exp overflows: inf / inf
    gs = hg.grad(hg.sum(stable(x)), x)
    ts = hg.jvp(stable(x), x, np.ones(3))  # forward mode transposes bwd
    out = _eval([gs, ts], [x], xv, compiled=True)
    np.testing.assert_allclose(out[0], 1 / (1 + np.exp(-xv)))
    np.testing.assert_allclose(out[1], out[0])


def test_custom_vjp_several_outputs_and_static_args(rng):
    def fwd(x, y, scale):
        return (x * y * scale, x + y), (x, y)

    def bwd(res, cts):
        x, y = res
        c1, c2 = cts
        return c1 * y * 3.0 + c2, c1 * x * 3.0 + c2, None

    f = hg.custom_vjp(lambda x, y, scale: (x * y * scale, x + y), fwd, bwd)
    x = hg.tensor("x", (2,), "float64")
    y = hg.tensor("y", (2,), "float64")
    p, s = f(x, y, 3.0)
    gx, gy = hg.grad(hg.sum(p) + hg.sum(s * 2.0), [x, y])
    xv, yv = rng.normal(size=2), rng.normal(size=2)
    out = _eval([p, gx, gy], [x, y], xv, yv, compiled=True)
    np.testing.assert_allclose(out[0], xv * yv * 3)
    np.testing.assert_allclose(out[1], yv * 3 + 2)
    np.testing.assert_allclose(out[2], xv * 3 + 2)
    bad = hg.custom_vjp(lambda v: v * 2.0, lambda v: (v * 2.0, None), lambda res, ct: ct)
    with pytest.raises(hg.GradientError, match="bwd must return a tuple"):
        hg.grad(hg.sum(bad(x)), x)


def test_forward_mode_transposes_a_pullback():
    x = hg.tensor("x", (3,), "float64")
    y = CubeWithPullback(2.0)(hg.sin(x))
    t = hg.jvp(y, x, np.array([1.0, 0.5, -1.0]))
    hvp = hg.jvp(hg.grad(hg.sum(y), x), x, np.ones(3))  # and through its own gradient
    xv = np.array([0.1, 0.7, -0.4])
    out = _eval([t, hvp], [x], xv)
    np.testing.assert_allclose(out[0], 6 * np.sin(xv) ** 2 * np.cos(xv) * [1.0, 0.5, -1.0])
    with jax.enable_x64(True):
        ref = jax.jvp(jax.grad(lambda v: jnp.sum(2 * jnp.sin(v) ** 3)), (xv,), (np.ones(3),))[1]
    np.testing.assert_allclose(out[1], ref)


class SinAndCube(Op):
    """Two outputs, sin(x) and x**3, whose forward rule has no tangent for the second."""

    def make_node(self, x):
        x = as_variable(x)
        return Apply(self, [x], [x.type, x.type])

    def perform(self, node, inputs):
        return [np.sin(inputs[0]), inputs[0] ** 3]

    def pushforward(self, node, tangents):
        (t,) = tangents
        return [None if t is None else hg.cos(node.inputs[0]) * t,
                hg.UndefinedGradient("no tangent for the cube, on purpose")]


def test_forward_mode_undefined_output_is_an_error_only_where_used():
    x = hg.tensor("x", (3,), "float64")
    s, c = SinAndCube()(x)
    xv = np.array([0.1, 0.7, -0.4])
    t = hg.jvp(s * 2.0, x, np.ones(3))
    np.testing.assert_allclose(_eval(t, [x], xv), 2 * np.cos(xv))
    with pytest.raises(hg.NotDifferentiableError, match="no derivative for output 1: no tangent for the cube"):
        hg.jvp(s + c, x, np.ones(3))


# --- shapes and dtypes ------------------------------------------------------------------------
def test_unknown_dims_broadcast_at_run_time(rng):
    x = hg.tensor("x", (None, None), "float64")
    b = hg.tensor("b", (None,), "float64")
    cost = hg.sum(hg.tanh(x + b) * x)
    gx, gb = hg.grad(cost, [x, b])
    assert any(isinstance(n.op, SumToLike) for n in hg.Graph([x, b], [gb]).nodes)
    fn = hg.compile(hg.Graph([x, b], [gx, gb]))
    for xs, bs in [((3, 4), (4,)), ((2, 1), (5,)), ((1, 3), (1,))]:
        xv, bv = rng.normal(size=xs), rng.normal(size=bs)
        with jax.enable_x64(True):
            ref = jax.grad(lambda p, q: jnp.sum(jnp.tanh(p + q) * p), (0, 1))(xv, bv)
        for got in (hg.evaluate(hg.Graph([x, b], [gx, gb]), xv, bv), fn(xv, bv)):
            for a, e in zip(got, ref):
                np.testing.assert_allclose(a, e, rtol=1e-10)


def test_gradients_keep_dtypes():
    for dt in ("float16", "float32", "complex64"):
        x = hg.tensor("x", (3,), dt)
        cost = hg.sum(hg.abs(x * x)) if dt == "complex64" else hg.sum(x * x)
        g = hg.grad(cost, x)
        assert g.type == x.type
        out = _eval(g, [x], np.array([1, 2, 3], dtype=dt), compiled=True)
        assert out.dtype == np.dtype(dt)


# --- graph size ----------------------------------------------------------------------------
def _ops(graph):
    return [type(n.op).__name__ for n in graph.nodes]


def test_gradient_graphs_share_work():
    x = hg.tensor("x", (3,), "float64")
    y = hg.tensor("y", (3,), "float64")
    e = hg.exp(x)
    cost = hg.sum(e * hg.sin(x)) + hg.sum(hg.sin(x) * e) + hg.sum(hg.log(y))
    g = hg.grad(cost, x)
    ops = _ops(hg.Graph([x, y], [cost, g]))
    # the forward exp is reused; cos(x) is built once although two rules ask for it;
    # nothing of y's path enters the gradient
    assert ops.count("Exp") == 1 and ops.count("Cos") == 1 and ops.count("Sin") == 2
    assert "Log" in ops and "Reciprocal" not in ops
    assert ops.count("BroadcastTo") <= 2


def test_disconnected_paths_build_nothing():
    x = hg.tensor("x", (3,), "float64")
    y = hg.tensor("y", (3,), "float64")
    cost = hg.sum(x * 2.0) + hg.sum(hg.exp(hg.cumsum(y)) * hg.sin(y))
    g = hg.grad(cost, x)
    ops = _ops(hg.Graph([x], g))
    assert ops == ["ExpandDims", "BroadcastTo", "Multiply"], ops
