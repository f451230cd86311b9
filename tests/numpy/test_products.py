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
