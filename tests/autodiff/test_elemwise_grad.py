"""Gradients of the elementwise ops: reverse and forward mode against jax and finite
differences, evaluated with perform and compiled; broadcasting, 0-d and empty shapes,
complex numbers and the edge cases where jax picks a convention."""

import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlograph as hg
from hlograph.tests.autodiff.helpers import check_grads


def _domain(rng, shape, kind):
    if kind == "positive":
        return rng.uniform(0.3, 2.5, size=shape)
    if kind == "unit":
        return rng.uniform(-0.9, 0.9, size=shape)
    if kind == "ge1":
        return rng.uniform(1.2, 3.0, size=shape)
    if kind == "nonzero":
        v = rng.normal(size=shape)
        return np.where(np.abs(v) < 0.3, 0.7, v)
    if kind == "negative":
        return rng.uniform(-3.0, -0.2, size=shape)
    return rng.normal(size=shape)


UNARY = [
    ("negative", hg.negative, jnp.negative, "normal"),
    ("positive", hg.positive, jnp.positive, "normal"),
    ("abs", hg.abs, jnp.abs, "nonzero"),
    ("exp", hg.exp, jnp.exp, "normal"),
    ("log", hg.log, jnp.log, "positive"),
    ("log1p", hg.log1p, jnp.log1p, "positive"),
    ("expm1", hg.expm1, jnp.expm1, "normal"),
    ("sqrt", hg.sqrt, jnp.sqrt, "positive"),
    ("rsqrt", hg.rsqrt, lambda x: 1 / jnp.sqrt(x), "positive"),
    ("sin", hg.sin, jnp.sin, "normal"),
    ("cos", hg.cos, jnp.cos, "normal"),
    ("tan", hg.tan, jnp.tan, "unit"),
    ("tanh", hg.tanh, jnp.tanh, "normal"),
    ("sigmoid", hg.sigmoid, lambda x: 1 / (1 + jnp.exp(-x)), "normal"),
    ("erf", hg.erf, jss.erf, "normal"),
    ("square", hg.square, jnp.square, "normal"),
    ("reciprocal", hg.reciprocal, jnp.reciprocal, "nonzero"),
    ("arcsin", hg.arcsin, jnp.arcsin, "unit"),
    ("arccos", hg.arccos, jnp.arccos, "unit"),
    ("arctan", hg.arctan, jnp.arctan, "normal"),
    ("sinh", hg.sinh, jnp.sinh, "normal"),
    ("cosh", hg.cosh, jnp.cosh, "normal"),
    ("arcsinh", hg.arcsinh, jnp.arcsinh, "normal"),
    ("arccosh", hg.arccosh, jnp.arccosh, "ge1"),
    ("arctanh", hg.arctanh, jnp.arctanh, "unit"),
    ("exp2", hg.exp2, jnp.exp2, "normal"),
    ("log2", hg.log2, jnp.log2, "positive"),
    ("log10", hg.log10, jnp.log10, "positive"),
    ("cbrt", hg.cbrt, jnp.cbrt, "nonzero"),
    ("deg2rad", hg.deg2rad, jnp.deg2rad, "normal"),
    ("rad2deg", hg.rad2deg, jnp.rad2deg, "normal"),
    ("conj", hg.conj, jnp.conj, "normal"),
    ("real", hg.real, jnp.real, "normal"),
]

# piecewise constant: zero derivatives (jax agrees), away from the jumps
ZERO = [
    ("sign", hg.sign, jnp.sign), ("floor", hg.floor, jnp.floor), ("ceil", hg.ceil, jnp.ceil),
    ("round", hg.round, jnp.round), ("trunc", hg.trunc, jnp.trunc),
    ("imag", hg.imag, jnp.imag), ("angle", hg.angle, jnp.angle),
]


@pytest.mark.parametrize("name,fn,jfn,kind", UNARY, ids=[r[0] for r in UNARY])
def test_unary(name, fn, jfn, kind, rng):
    check_grads(fn, jfn, [_domain(rng, (2, 3), kind)], rng=rng)


@pytest.mark.parametrize("name,fn,jfn", ZERO, ids=[r[0] for r in ZERO])
def test_zero_derivative(name, fn, jfn, rng):
    x = rng.uniform(0.1, 0.4, size=(4,)) + np.arange(4)  # no jumps within finite differences
    out = check_grads(fn, jfn, [x], rng=rng)
    assert not np.any(out["grads"][0])


BINARY = [
    ("add", hg.add, jnp.add, "normal", "normal"),
    ("subtract", hg.subtract, jnp.subtract, "normal", "normal"),
    ("multiply", hg.multiply, jnp.multiply, "normal", "normal"),
    ("divide", hg.divide, jnp.divide, "normal", "nonzero"),
    ("power", hg.power, jnp.power, "positive", "normal"),
    ("maximum", hg.maximum, jnp.maximum, "normal", "normal"),
    ("minimum", hg.minimum, jnp.minimum, "normal", "normal"),
    ("fmax", hg.fmax, jnp.fmax, "normal", "normal"),
    ("fmin", hg.fmin, jnp.fmin, "normal", "normal"),
    ("arctan2", hg.arctan2, jnp.arctan2, "nonzero", "nonzero"),
    ("hypot", hg.hypot, jnp.hypot, "nonzero", "nonzero"),
    ("copysign", hg.copysign, jnp.copysign, "nonzero", "nonzero"),
    ("logaddexp", hg.logaddexp, jnp.logaddexp, "normal", "normal"),
    ("logaddexp2", hg.logaddexp2, jnp.logaddexp2, "normal", "normal"),
    ("remainder", hg.remainder, jnp.remainder, "positive", "positive"),
    ("fmod", hg.fmod, jnp.fmod, "nonzero", "positive"),
]


@pytest.mark.parametrize("name,fn,jfn,kx,ky", BINARY, ids=[r[0] for r in BINARY])
def test_binary_broadcasting(name, fn, jfn, kx, ky, rng):
    # (2, 1, 3) with (4, 1): both operands broadcast, so both cotangents are summed
    x, y = _domain(rng, (2, 1, 3), kx), _domain(rng, (4, 1), ky)
    if name in ("remainder", "fmod"):
        x = np.round(x, 1) + 0.05  # away from the jumps of x // y
        y = np.full((4, 1), 0.7)
    check_grads(fn, jfn, [x, y], rng=rng)


def test_floor_divide_has_zero_gradient(rng):
    out = check_grads(hg.floor_divide, jnp.floor_divide, [np.array([1.25, 3.5]), np.array([0.7, 0.9])], rng=rng)
    assert not np.any(out["grads"][0]) and not np.any(out["grads"][1])


@st.composite
def broadcast_pair(draw):
    """Two shapes that broadcast: a base shape with dims dropped or set to 1 per operand."""
    base = draw(st.lists(st.integers(0, 3), min_size=0, max_size=3))

    def variant():
        dims = [draw(st.sampled_from([d, 1])) for d in base]
        return tuple(dims[draw(st.integers(0, len(dims))):])

    return variant(), variant()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shapes=broadcast_pair(), op=st.sampled_from([0, 2, 3, 4, 5]))
def test_binary_broadcast_shapes(shapes, op, rng):
    name, fn, jfn, kx, ky = BINARY[op]
    check_grads(fn, jfn, [_domain(rng, shapes[0], kx), _domain(rng, shapes[1], ky)], rng=rng)


def test_where_select(rng):
    cond = rng.normal(size=(3, 1)) > 0
    check_grads(lambda c, x, y: hg.where(c, x, y), jnp.where,
                [cond, rng.normal(size=(3, 4)), rng.normal(size=(4,))], rng=rng)


def test_cast_between_floats_and_to_complex(rng):
    x = rng.normal(size=(3,))
    check_grads(lambda v: hg.astype(hg.astype(v, "float32"), "float64") * v, lambda v: v.astype(jnp.float32).astype(jnp.float64) * v,
                [x], rng=rng, fd=False)  # finite differences cannot see through float32
    check_grads(lambda v: hg.abs(hg.astype(v, "complex128") * (1 + 2j)),
                lambda v: jnp.abs(v.astype(jnp.complex128) * (1 + 2j)), [x], rng=rng)


def test_float32(rng):
    x = rng.uniform(0.5, 2.0, size=(5,)).astype(np.float32)
    check_grads(lambda v: hg.log(v) * hg.tanh(v) / v, lambda v: jnp.log(v) * jnp.tanh(v) / v, [x],
                rng=rng, fd=False)


COMPLEX = [
    ("exp", hg.exp, jnp.exp), ("log", hg.log, jnp.log), ("sin", hg.sin, jnp.sin),
    ("tanh", hg.tanh, jnp.tanh), ("sqrt", hg.sqrt, jnp.sqrt), ("reciprocal", hg.reciprocal, jnp.reciprocal),
    ("square", hg.square, jnp.square), ("arctan", hg.arctan, jnp.arctan),
    ("arccosh", hg.arccosh, jnp.arccosh),
    ("abs", hg.abs, jnp.abs), ("real", hg.real, jnp.real), ("imag", hg.imag, jnp.imag),
    ("angle", hg.angle, jnp.angle), ("conj", hg.conj, jnp.conj),
]


@pytest.mark.parametrize("name,fn,jfn", COMPLEX, ids=[r[0] for r in COMPLEX])
def test_complex(name, fn, jfn, rng):
    z = (rng.normal(size=(3,)) + 1j * rng.normal(size=(3,))).astype(np.complex128)
    check_grads(fn, jfn, [z], rng=rng)


def test_complex_binary_and_real_cost(rng):
    z = (rng.normal(size=(3,)) + 1j * rng.normal(size=(3,)))
    w = (rng.normal(size=(3,)) + 1j * rng.normal(size=(3,)))
    check_grads(lambda a, b: a * b / (a + 2.0) - b ** 2, lambda a, b: a * b / (a + 2.0) - b ** 2, [z, w], rng=rng)
    # a real cost of a complex input: jax's convention gives 2 * conj(z) for |z|**2
    x = hg.tensor("z", (3,), "complex128")
    g = hg.grad(hg.sum(hg.abs(x) ** 2), x)
    np.testing.assert_allclose(hg.evaluate(hg.Graph([x], g), z), 2 * np.conj(z), rtol=1e-12)


def test_edge_values_follow_jax(rng):
    # 0 ** p, maxima ties (half each), |x| at 0 (1, as jax), xlogy at x == 0
    x = np.array([0.0, 0.0, 0.0, 2.0, 1.0])
    p = np.array([0.0, 1.0, 2.0, 0.0, 3.0])
    out = check_grads(hg.power, jnp.power, [x, p], rng=rng, fd=False)
    assert np.isnan(out["grads"][0][0])  # 0 * 0 ** -1, as jax
    a = np.array([1.0, 2.0, 3.0])
    check_grads(hg.maximum, jnp.maximum, [a, np.array([1.0, 0.0, 3.0])], rng=rng, fd=False)
    check_grads(hg.minimum, jnp.minimum, [a, np.array([1.0, 5.0, 3.0])], rng=rng, fd=False)
    check_grads(hg.abs, jnp.abs, [np.array([0.0, -1.0, 2.0])], rng=rng, fd=False)
    xs = hg.tensor("x", (2,), "float64")
    g = hg.grad(hg.sum(hg.maximum(xs, 1.0)), xs)
    np.testing.assert_array_equal(hg.evaluate(hg.Graph([xs], g), np.array([1.0, 2.0])), [0.5, 1.0])


def test_nextafter_is_not_differentiable():
    x = hg.tensor("x", (3,), "float64")
    with pytest.raises(hg.NotDifferentiableError, match="Nextafter.*input 0.*step function"):
        hg.grad(hg.sum(hg.nextafter(x, 1.0)), x)


def test_comparisons_logical_bitwise_carry_no_gradient():
    x = hg.tensor("x", (3,), "float64")
    i = hg.tensor("i", (3,), "int32")
    cost = hg.sum(hg.where(x > 0, x, 0.0) * hg.astype(hg.bitwise_and(i, 3), "float64")
                  + hg.astype(hg.isnan(x) | hg.signbit(x), "float64"))
    gx = hg.grad(cost, x)
    xv, iv = np.array([1.0, -1.0, 2.0]), np.array([1, 2, 7], np.int32)
    np.testing.assert_array_equal(hg.evaluate(hg.Graph([x, i], gx), xv, iv), [1.0, 0.0, 3.0])
