"""NumPy's own functions on graph values (frontend/numpy/protocols.py): ufuncs and their
methods through ``__array_ufunc__``, every other NumPy function through
``__array_function__``; compiled and performed results against NumPy on the same call."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.tests.helpers import check_against_numpy


def same(f, *values, rtol=None, atol=None):
    """``f`` (a function of NumPy calls) on graph values, compiled and performed, against
    ``f`` on the arrays themselves."""
    check_against_numpy(f, values, f, rtol=rtol, atol=atol)


# --- ufuncs -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_unary_ufuncs(dtype, rng):
    a = (rng.normal(size=(3, 4)) + (1j * rng.normal(size=(3, 4)) if "complex" in dtype else 0)).astype(dtype)
    same(lambda x: np.sin(x) + np.exp(x) * np.sqrt(x) - np.log1p(np.abs(x)), a)


def test_ufuncs_on_nan_inf_zero_d_and_empty(rng):
    a = np.array([np.nan, np.inf, -np.inf, 0.0, -1.5], np.float32)
    same(lambda x: np.maximum(np.tanh(x), np.float32(0.25)), a)
    same(lambda x: np.isnan(x) | np.isinf(x), a)
    same(lambda x: np.exp(x) + 1, np.float64(0.5))
    same(lambda x: np.multiply(x, 2), np.zeros((0, 3), np.int32))


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "float32"])
def test_binary_ufuncs_with_mixed_operands(dtype, rng):
    a = rng.integers(1, 50, size=(4, 3)).astype(dtype)
    b = rng.integers(1, 9, size=(3,)).astype(dtype)
    same(lambda x: np.add(x, b) * np.floor_divide(x, b) - np.remainder(b, x), a)
    same(lambda x: b + x - (b * x), a)  # ndarray (left) op graph value


def test_ndarray_operators_give_graph_values():
    x = hg.tensor("x", (2, 3), "float32")
    a = np.ones((2, 3), np.float32)
    for r in (a + x, a - x, a * x, a / x, a ** x, a > x, a @ x.T, a == x):
        assert isinstance(r, hg.Variable)


def test_ufunc_dtype_keyword(rng):
    a = rng.integers(-100, 100, size=(5,)).astype(np.int8)
    same(lambda x: np.add(x, x, dtype=np.int16), a)
    same(lambda x: np.sqrt(x, dtype=np.float32), np.abs(a))
    same(lambda x: np.less(x, 3, dtype=bool), a)
    same(lambda x: np.divmod(x, 7, dtype=np.int32), a)
    with pytest.raises(TypeError, match="No loop matching"):
        np.less(hg.tensor("x", (5,), "int8"), 3, dtype=np.int16)


def test_matmul_and_mixed_calls(rng):
    a = rng.normal(size=(3, 4)).astype(np.float32)
    w = rng.normal(size=(4, 2)).astype(np.float32)
    v = rng.normal(size=(4,)).astype(np.float32)
    same(lambda x: np.exp(x) @ w, a, rtol=1e-5)
    same(lambda x: x @ v, a, rtol=1e-5)
    same(lambda x: v @ x.T, a, rtol=1e-5)
    same(lambda x: np.matmul(v, v) + np.sum(x), a, rtol=1e-5)
    same(lambda x: np.where(x > 0, x, 0), a)
    same(lambda x: np.concatenate([x, np.ones((1, 4), np.float32)], axis=0), a)
    same(lambda x: np.mean(x, axis=-1, keepdims=True), a)
    same(lambda x: np.sum(x, axis=0), a)


def test_linalg_and_fft_namespaces(rng):
    a = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    b = rng.normal(size=(3, 2))
    same(lambda x: np.linalg.solve(x, b), a, rtol=1e-9, atol=1e-9)
    same(lambda x: np.linalg.inv(x) @ x, a, rtol=1e-9, atol=1e-9)
    same(lambda x: np.linalg.norm(x, axis=0), a)
    if getattr(getattr(hg, "fft", None), "rfft", None) is not None:
        same(lambda x: np.fft.rfft(x, axis=-1), b.T.copy(), rtol=1e-9, atol=1e-9)


# --- ufunc methods ------------------------------------------------------------------------
@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum, np.fmax, np.fmin])
def test_reduce(ufunc, rng):
    a = rng.normal(size=(4, 5))
    a[1, 2] = np.nan
    same(lambda x: ufunc.reduce(x), a)
    same(lambda x: ufunc.reduce(x, axis=-1, keepdims=True), a)
    same(lambda x: ufunc.reduce(x, axis=(0, 1)), a)


def test_reduce_arguments(rng):
    a = rng.integers(-5, 6, size=(3, 4)).astype(np.int16)
    m = rng.random((3, 4)) > 0.4
    same(lambda x: np.add.reduce(x, axis=1, dtype=np.int8, initial=3, where=m), a)
    same(lambda x: np.maximum.reduce(x, axis=0, initial=-2, where=m), a)
    same(lambda x: np.multiply.reduce(x, axis=None, dtype=np.float64), a)
    same(lambda x: np.logical_and.reduce(x > 0, axis=0), a)
    same(lambda x: np.logical_or.reduce(x > 0, axis=-1, keepdims=True), a)
    same(lambda x: np.add.reduce(x), np.zeros((0, 3), np.float32))
    same(lambda x: np.maximum.reduce(x, axis=0, initial=1.5), np.zeros((0, 3), np.float32))


def test_accumulate_and_outer(rng):
    a = rng.normal(size=(3, 4)).astype(np.float32)
    for uf in (np.add, np.multiply, np.maximum, np.minimum):
        same(lambda x: uf.accumulate(x), a, rtol=1e-5)
        same(lambda x: uf.accumulate(x, axis=-1), a, rtol=1e-5)
    same(lambda x: np.add.accumulate(x, axis=1, dtype=np.float64), a)
    same(lambda x: np.multiply.outer(x, np.arange(3.0, dtype=np.float32)), a)
    same(lambda x: np.subtract.outer(np.arange(2), x[0]), a)
    same(lambda x: np.less.outer(x[:, 0], x[0]), a)


def test_unsupported_methods_and_arguments_name_the_alternative():
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(TypeError, match=r"numpy.add.at\(a, indices, b\) .*a = hg.at\(a\)\[indices\].add\(b\).*bincount"):
        np.add.at(x, [0, 1], 1.0)
    with pytest.raises(TypeError, match=r"numpy.maximum.at.*hg.at\(a\)\[indices\].max\(b\)"):
        np.maximum.at(np.zeros(3, np.float32), [0, 1], x[:2])  # into a NumPy array, graph values
    with pytest.raises(TypeError, match=r"numpy.subtract.at.*\.add\(-b\)"):
        np.subtract.at(x, [0, 1], 1.0)
    with pytest.raises(TypeError, match="reduceat"):
        np.add.reduceat(x, [0, 2])
    with pytest.raises(TypeError, match="out=.*immutable"):
        np.add(x, 1, out=np.zeros(3, np.float32))
    arr = np.zeros(3, np.float32)
    with pytest.raises(TypeError, match="out=.*immutable"):
        arr += x  # in place into a NumPy array: NumPy passes out=
    with pytest.raises(TypeError, match="where=.*uninitialized.*hg.where"):
        np.sin(x, where=np.array([True, False, True]))
    with pytest.raises(TypeError, match="numpy.bitwise_and.reduce has no hlograph"):
        np.bitwise_and.reduce(x)


def test_functions_hlograph_lacks_raise_naming_them():
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(TypeError, match=r"numpy.putmask has no hlograph implementation.*hg.where"):
        np.putmask(x, x > 0, 0.0)
    with pytest.raises(TypeError, match=r"numpy.spacing .*hg.nextafter"):
        np.spacing(x)
    with pytest.raises(TypeError, match=r"numpy.histogram2d has no hlograph implementation"):
        np.histogram2d(x, x)


def test_numpy_keyword_spellings_reach_hlograph(rng):
    a = rng.normal(size=(3, 4))
    same(lambda x: np.sum(a=x, axis=1), a)
    x = hg.tensor("x", (3, 4), "float64")
    g = hg.Graph([x], np.cumsum(a=x, axis=0))
    np.testing.assert_allclose(hg.evaluate(g, a), np.cumsum(a, axis=0))
    g = hg.Graph([x], np.sum(x, 1, np.float32, None, True))  # NumPy's positional order
    got = hg.compile(g)(a)
    np.testing.assert_allclose(got, np.sum(a, 1, np.float32, None, True), rtol=1e-6)
    assert got.dtype == np.float32 and got.shape == (3, 1)


def test_shape_ndim_size_through_numpy():
    x = hg.tensor("x", (None, 3), "float32")
    n, three = np.shape(x)
    assert three == 3 and isinstance(n, hg.Variable)
    assert np.ndim(x) == 2
    g = hg.Graph([x], [n, np.size(x)])
    a = np.zeros((5, 3), np.float32)
    assert [int(v) for v in hg.evaluate(g, a)] == [5, 15]
    assert [int(v) for v in hg.compile(g)(a)] == [5, 15]
    assert np.shape(hg.tensor("y", (2, 4))) == (2, 4)
