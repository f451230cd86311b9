"""Matrix and vector products under NumPy's top-level names (frontend/numpy/products.py):
compiled results and perform against NumPy itself."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import products as m
from hlograph.tests.helpers import assert_same, compare_with_perform, random_array


def run(fn, values, numpy_fn=None, *, rtol=None, atol=None, dtypes=None):
    """Builds ``fn`` on graph inputs shaped like ``values``, compiles and evaluates it
    (compare_with_perform), and compares both with ``numpy_fn(*values)`` (default: the NumPy
    function of the same name)."""
    values = [np.asarray(v) for v in values]
    xs = [hg.tensor(f"x{i}", v.shape, v.dtype) for i, v in enumerate(values)]
    out = fn(*xs)
    outs = list(out) if isinstance(out, tuple) else [out]
    graph = hg.Graph(xs, outs)
    _, expected = compare_with_perform(graph, values, rtol=rtol, atol=atol)
    expected = expected if isinstance(expected, (list, tuple)) else [expected]
    numpy_fn = numpy_fn or getattr(np, fn.__name__)
    with np.errstate(all="ignore"):
        ref = numpy_fn(*values)
    ref = list(ref) if isinstance(ref, tuple) else [ref]
    assert len(ref) == len(expected)
    for i, (e, r) in enumerate(zip(expected, ref)):
        assert_same(e, np.asarray(r), rtol=rtol, atol=atol, what=f"{fn.__name__} output {i} vs NumPy")
    return expected


def _check(fn, ref, values, rtol=None, atol=None):
    """Builds ``fn`` on inputs shaped like ``values``, checks compiled == perform and
    perform == ``ref(*values)`` (dtype, shape and values)."""
    xs = [hg.tensor(f"x{i}", v.shape, v.dtype) for i, v in enumerate(values)]
    out = fn(*xs)
    many = isinstance(out, (list, tuple))
    _, got = compare_with_perform(hg.Graph(xs, list(out) if many else out), values, rtol=rtol, atol=atol)
    expected = ref(*values)
    got, expected = (list(got), list(expected)) if many else ([got], [expected])
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_same(g, np.asarray(e), rtol=rtol, atol=atol)


def _run(inputs, values, outs, expected):
    """Compiled == perform for ``outs``, and perform == NumPy's ``expected``."""
    _, ref = compare_with_perform(hg.Graph(inputs, outs), values)
    ref = ref if isinstance(outs, (list, tuple)) else [ref]
    expected = expected if isinstance(outs, (list, tuple)) else [expected]
    assert len(ref) == len(expected)
    for r, e in zip(ref, expected):
        assert_same(r, np.asarray(e))


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "complex64"])
def test_inner_vdot(dtype, rng):
    for sa, sb in [((3,), (3,)), ((2, 3), (4, 3)), ((), (2, 3)), ((2, 0), (0,)), ((2, 1, 3), (3,))]:
        run(m.inner, [random_array(rng, sa, dtype), random_array(rng, sb, dtype)], atol=1e-5)
    for sa, sb in [((6,), (2, 3)), ((2, 2), (4,)), ((0,), (0,))]:
        if dtype != "bool":
            run(m.vdot, [random_array(rng, sa, dtype), random_array(rng, sb, dtype)], atol=1e-5)
    with pytest.raises(ValueError, match="vdot"):
        m.vdot(hg.tensor("a", (3,)), hg.tensor("b", (4,)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool", "complex128"])
def test_vecdot_matvec_vecmat(dtype, rng):
    for sa, sb, axis in [((3,), (3,), -1), ((2, 4), (4,), -1), ((4, 2), (4, 1), 0), ((2, 1, 3), (5, 3), -1),
                         ((0, 3), (3,), -1), ((3, 0), (3, 1), 0)]:
        a, b = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
        run(lambda x, y: m.vecdot(x, y, axis=axis), [a, b], lambda x, y: np.vecdot(x, y, axis=axis),
            atol=1e-5)
    for sa, sb in [((2, 3), (3,)), ((4, 2, 3), (1, 3)), ((0, 2, 3), (3,))]:
        a, b = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
        run(m.matvec, [a, b], atol=1e-5)
        run(m.vecmat, [random_array(rng, sa[:-2] + sa[-1:], dtype), np.swapaxes(a, -1, -2)], atol=1e-5)


@pytest.mark.parametrize("sa,sb,dta,dtb", [((2, 2), (3, 2), "float32", "float32"), ((3,), (2, 2), "int8", "float64"),
                                           ((2, 1, 2), (2,), "int32", "int32")], ids=str)
def test_kron(sa, sb, dta, dtb, rng):
    a, b = hg.tensor("a", sa, dta), hg.tensor("b", sb, dtb)
    va, vb = random_array(rng, sa, dta), random_array(rng, sb, dtb)
    _run([a, b], [va, vb], m.kron(a, b), np.kron(va, vb))


@pytest.mark.parametrize("shape,offset,axis1,axis2", [
    ((3, 3), 0, 0, 1), ((3, 4), 1, 0, 1), ((3, 4), -2, 0, 1), ((2, 3, 4), 0, -1, 0), ((2, 3), 5, 0, 1),
    ((0, 3), 0, 0, 1),
], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int8", "bool"])
def test_trace(shape, offset, axis1, axis2, dtype, rng):
    v = random_array(rng, shape, dtype)
    _check(lambda x: m.trace(x, offset, axis1, axis2), lambda x: np.trace(x, offset, axis1, axis2), [v])


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16"])
def test_trace_dtype(dtype, rng):
    v = random_array(rng, (3, 3), "int32", "full")
    _check(lambda x: m.trace(x, dtype=dtype), lambda x: np.trace(x, dtype=dtype), [v], rtol=1e-6)


def test_errors():
    f = hg.tensor("f", (3,), "float32")
    with pytest.raises(ValueError, match="vecdot"):
        m.vecdot(hg.scalar("s"), f)
    with pytest.raises(ValueError, match="matvec"):
        m.matvec(f, f)
    with pytest.raises(ValueError, match="vecmat"):
        m.vecmat(f, f)
