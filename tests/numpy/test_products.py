"""Matrix and vector products under NumPy's top-level names (frontend/numpy/products.py):
compiled results and perform against NumPy itself."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import products as m
from hlograph.tests.helpers import check_against_numpy, random_array


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "complex64"])
def test_inner_vdot(dtype, rng):
    for sa, sb in [((3,), (3,)), ((2, 3), (4, 3)), ((), (2, 3)), ((2, 0), (0,)), ((2, 1, 3), (3,))]:
        check_against_numpy(m.inner, [random_array(rng, sa, dtype), random_array(rng, sb, dtype)], atol=1e-5)
    for sa, sb in [((6,), (2, 3)), ((2, 2), (4,)), ((0,), (0,))]:
        if dtype != "bool":
            check_against_numpy(m.vdot, [random_array(rng, sa, dtype), random_array(rng, sb, dtype)], atol=1e-5)
    with pytest.raises(ValueError, match="vdot"):
        m.vdot(hg.tensor("a", (3,)), hg.tensor("b", (4,)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool", "complex128"])
def test_vecdot_matvec_vecmat(dtype, rng):
    for sa, sb, axis in [((3,), (3,), -1), ((2, 4), (4,), -1), ((4, 2), (4, 1), 0), ((2, 1, 3), (5, 3), -1),
                         ((0, 3), (3,), -1), ((3, 0), (3, 1), 0)]:
        a, b = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
        check_against_numpy(lambda x, y: m.vecdot(x, y, axis=axis), [a, b], lambda x, y: np.vecdot(x, y, axis=axis),
                            atol=1e-5)
    for sa, sb in [((2, 3), (3,)), ((4, 2, 3), (1, 3)), ((0, 2, 3), (3,))]:
        a, b = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
        check_against_numpy(m.matvec, [a, b], atol=1e-5)
        check_against_numpy(m.vecmat, [random_array(rng, sa[:-2] + sa[-1:], dtype), np.swapaxes(a, -1, -2)], atol=1e-5)


@pytest.mark.parametrize("sa,sb,dta,dtb", [((2, 2), (3, 2), "float32", "float32"), ((3,), (2, 2), "int8", "float64"),
                                           ((2, 1, 2), (2,), "int32", "int32")], ids=str)
def test_kron(sa, sb, dta, dtb, rng):
    va, vb = random_array(rng, sa, dta), random_array(rng, sb, dtb)
    check_against_numpy(m.kron, [va, vb])


@pytest.mark.parametrize("shape,offset,axis1,axis2", [
    ((3, 3), 0, 0, 1), ((3, 4), 1, 0, 1), ((3, 4), -2, 0, 1), ((2, 3, 4), 0, -1, 0), ((2, 3), 5, 0, 1),
    ((0, 3), 0, 0, 1),
], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int8", "bool"])
def test_trace(shape, offset, axis1, axis2, dtype, rng):
    v = random_array(rng, shape, dtype)
    check_against_numpy(lambda x: m.trace(x, offset, axis1, axis2), [v], lambda x: np.trace(x, offset, axis1, axis2))


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16"])
def test_trace_dtype(dtype, rng):
    v = random_array(rng, (3, 3), "int32", "full")
    check_against_numpy(lambda x: m.trace(x, dtype=dtype), [v], lambda x: np.trace(x, dtype=dtype), rtol=1e-6)


def test_errors():
    f = hg.tensor("f", (3,), "float32")
    with pytest.raises(ValueError, match="vecdot"):
        m.vecdot(hg.scalar("s"), f)
    with pytest.raises(ValueError, match="matvec"):
        m.matvec(f, f)
    with pytest.raises(ValueError, match="vecmat"):
        m.vecmat(f, f)


# --- the generalized ufuncs' keywords: axes, axis, keepdims ---------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int32", "complex64"])
def test_gufunc_axes_axis_keepdims(dtype, rng):
    v1, v2 = random_array(rng, (4, 2, 3), dtype), random_array(rng, (4, 1, 3), dtype)
    mat, vec = random_array(rng, (3, 2, 4), dtype), random_array(rng, (4, 2), dtype)
    cases = [
        (lambda a, b: np.vecdot(a, b, axis=0), [v1, v2]),
        (lambda a, b: np.vecdot(a, b, axis=-1, keepdims=True), [v1, v2]),
        (lambda a, b: np.vecdot(a, b, axis=-3, keepdims=True), [v1, v2]),
        (lambda a, b: np.vecdot(a, b, axes=[0, (-3,)]), [v1, v2]),
        (lambda a, b: np.vecdot(a, b, axes=[(0,), (0,), (1,)], keepdims=True), [v1, v2]),
        (lambda a, b: np.vecdot(a, b, axes=[(2,), (2,)], keepdims=True), [v1, v2]),
        (lambda a, b: np.matvec(a, b, axes=[(0, 2), (0,), (1,)]), [mat, vec]),
        (lambda a, b: np.matvec(a, b, axes=[(-1, 0), (0,), (-2,)]), [np.swapaxes(mat, 0, 2), vec]),
        (lambda a, b: np.vecmat(a, b, axes=[(0,), (0, 2), (0,)]),
         [random_array(rng, (2, 5), dtype), random_array(rng, (2, 5, 3), dtype)]),
        (lambda a, b: np.matmul(a, b, axes=[(0, 2), (0, 1), (-1, -3)]), [mat, vec]),
        (lambda a, b: np.matmul(a, b, axes=[(1, 0), (0, 1), (1, 0)]), [mat[:, 0].T, vec]),
        (lambda a, b: np.matmul(a, b, axes=[(0,), (0, 1), (0,)]), [vec[:, 0], mat[:, 0].T]),
        (lambda a, b: np.matmul(a, b, axes=[(0, -1), 0, (0,)]), [mat[:, 0], vec[:, 0]]),
    ]
    for fn, values in cases:
        check_against_numpy(fn, values, fn, atol=1e-4)


def test_gufunc_keywords_with_empty_and_through_the_builders(rng):
    a, b = random_array(rng, (0, 3), "float64"), random_array(rng, (0, 3), "float64")
    check_against_numpy(lambda x, y: m.vecdot(x, y, axis=0, keepdims=True), [a, b],
                        np.vecdot(a, b, axis=0, keepdims=True))
    check_against_numpy(lambda x, y: hg.matmul(x, y, axes=[(1, 0), (1, 0), (0, 1)]), [a.T, b],
                        np.matmul(a.T, b, axes=[(1, 0), (1, 0), (0, 1)]))


def test_gufunc_keyword_errors_are_numpys():
    x, y = hg.tensor("x", (2, 3)), hg.tensor("y", (3, 2))
    with pytest.raises(TypeError, match="axis can only be used with a single shared core dimension"):
        np.matmul(x, y, axis=0)
    with pytest.raises(TypeError, match="does not support keepdims"):
        np.matvec(x, y[:, 0], keepdims=True)
    with pytest.raises(TypeError, match="cannot specify both 'axis' and 'axes'"):
        np.vecdot(x, x, axis=0, axes=[0, 0])
    with pytest.raises(ValueError, match="2 core dimensions, but the axes item is a single integer"):
        np.matmul(x, y, axes=[0, (0, 1), (0, 1)])
    with pytest.raises(ValueError, match="entry for all 2 inputs"):
        np.matmul(x, y, axes=[(0, 1), (0, 1)])
    with pytest.raises(ValueError, match="out of bounds"):
        np.vecdot(x, x, axes=[2, 0])
