"""The arguments NumPy has: reductions with ``dtype=``/``initial=``/``where=``, the nan
reductions, cumulative sums and products with ``dtype=``, ``var``/``std`` with ``mean=``
and ``correction=``, one-argument ``where``, ``searchsorted(sorter=)``, ``shape``/
``ndim``/``size``, and the Python operators NumPy's arrays have; compiled and
performed results against NumPy."""

import operator

import numpy as np
import pytest

import hlograph as hg
from hlograph.tests.helpers import check_against_numpy


def same(f, *values, rtol=None, atol=None):
    check_against_numpy(f, values, f, rtol=rtol, atol=atol)


def both(hg_f, np_f, *values, rtol=None, atol=None):
    check_against_numpy(hg_f, values, np_f, rtol=rtol, atol=atol)


# --- reductions ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "float16", "float32", "complex64"])
def test_sum_prod_dtype_initial_where(dtype, rng):
    a = (rng.normal(size=(3, 5)) * 4).astype(dtype)
    m = rng.random((3, 5)) > 0.4
    for name in ("sum", "prod"):
        np_f, hg_f = getattr(np, name), getattr(hg, name)
        both(lambda x: hg_f(x, axis=-1, dtype=np.float64), lambda x: np_f(x, axis=-1, dtype=np.float64), a)
        both(lambda x: hg_f(x, axis=0, where=m, initial=1), lambda x: np_f(x, axis=0, where=m, initial=1), a,
             rtol=1e-2 if dtype == "float16" else None)
        both(lambda x: hg_f(x, keepdims=True, where=m[0]), lambda x: np_f(x, keepdims=True, where=m[0]), a,
             rtol=1e-2 if dtype == "float16" else None)
    if dtype in ("int8", "uint8"):  # the dtype wraps, as NumPy
        both(lambda x: hg.sum(x, dtype=dtype), lambda x: np.sum(x, dtype=dtype), a)


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64"])
def test_max_min_initial_where(dtype, rng):
    a = (rng.normal(size=(4, 3)) * 10).astype(dtype)
    if dtype != "int16":
        a[1, 1] = np.nan
    m = rng.random((4, 3)) > 0.5
    for name in ("max", "min", "amax", "amin"):
        np_f, hg_f = getattr(np, name), getattr(hg, name)
        both(lambda x: hg_f(x, axis=1, initial=3), lambda x: np_f(x, axis=1, initial=3), a)
        both(lambda x: hg_f(x, axis=-2, where=m, initial=-7, keepdims=True),
             lambda x: np_f(x, axis=-2, where=m, initial=-7, keepdims=True), a)
    empty = np.zeros((0, 3), dtype)
    both(lambda x: hg.max(x, axis=0, initial=2), lambda x: np.max(x, axis=0, initial=2), empty)
    with pytest.raises(ValueError, match="where= needs initial="):
        hg.max(hg.tensor("x", (4, 3), dtype), where=m)
    with pytest.raises(ValueError, match=r"mask of shape \(2, 4, 3\) does not broadcast"):
        hg.sum(hg.tensor("x", (4, 3), dtype), where=np.ones((2, 4, 3), bool))


def test_all_any_where(rng):
    a = rng.integers(0, 2, size=(3, 4)).astype(bool)
    m = rng.random((3, 4)) > 0.5
    for name in ("all", "any"):
        both(lambda x: getattr(hg, name)(x, axis=1, where=m), lambda x: getattr(np, name)(x, axis=1, where=m), a)
        both(lambda x: getattr(hg, name)(x, where=m[1]), lambda x: getattr(np, name)(x, where=m[1]), a)


@pytest.mark.parametrize("dtype", ["int32", "float16", "float64", "complex128"])
def test_mean_var_std_arguments(dtype, rng):
    a = (rng.normal(size=(4, 5)) * 3).astype(dtype)
    m = rng.random((4, 5)) > 0.3
    tol = dict(rtol=1e-2, atol=1e-2) if dtype == "float16" else {}
    both(lambda x: hg.mean(x, axis=1, where=m), lambda x: np.mean(x, axis=1, where=m), a, **tol)
    both(lambda x: hg.mean(x, axis=0, dtype=np.float32), lambda x: np.mean(x, axis=0, dtype=np.float32), a,
         rtol=1e-5, atol=1e-5)
    for name in ("var", "std"):
        np_f, hg_f = getattr(np, name), getattr(hg, name)
        both(lambda x: hg_f(x, axis=-1, where=m, ddof=1), lambda x: np_f(x, axis=-1, where=m, ddof=1), a, **tol)
        both(lambda x: hg_f(x, axis=0, correction=1, keepdims=True),
             lambda x: np_f(x, axis=0, correction=1, keepdims=True), a, **tol)
        mu = np.mean(a, axis=1, keepdims=True)
        both(lambda x: hg_f(x, axis=1, mean=mu), lambda x: np_f(x, axis=1, mean=mu), a, **tol)
        both(lambda x: hg_f(x, dtype=np.float64), lambda x: np_f(x, dtype=np.float64), a, **tol)
    with pytest.raises(ValueError, match="ddof and correction"):
        hg.var(hg.tensor("x", (3,)), ddof=1, correction=1)


def test_nan_reductions_initial_where(rng):
    a = rng.normal(size=(4, 5))
    a[0] = np.nan
    a[2, 3] = np.nan
    m = rng.random((4, 5)) > 0.3
    m[:, 0] = True
    with np.errstate(all="ignore"):
        import warnings
        warnings.simplefilter("ignore", RuntimeWarning)
        for name, kw in [("nansum", dict(axis=1, initial=2.0, where=m)), ("nanprod", dict(axis=0, where=m)),
                         ("nanmax", dict(axis=1, initial=-9.0)), ("nanmin", dict(axis=0, initial=9.0, where=m)),
                         ("nanmean", dict(axis=1, where=m)), ("nanvar", dict(axis=-1, where=m, correction=1)),
                         ("nanstd", dict(axis=0, where=m)),
                         ("nanvar", dict(axis=1, mean=np.nanmean(a, axis=1, keepdims=True)))]:
            both(lambda x: getattr(hg, name)(x, **kw), lambda x: getattr(np, name)(x, **kw), a)
    ints = rng.integers(-3, 4, size=(3, 4)).astype(np.int32)
    both(lambda x: hg.nanmax(x, axis=0, initial=2, where=m[:3, :4]),
         lambda x: np.nanmax(x, axis=0, initial=2, where=m[:3, :4]), ints)


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_cumsum_cumprod_dtype(dtype, rng):
    a = rng.integers(-3, 4, size=(3, 4)).astype(dtype)
    for name in ("cumsum", "cumprod"):
        for d in (np.int8, np.float64):
            both(lambda x: getattr(hg, name)(x, axis=-1, dtype=d), lambda x: getattr(np, name)(x, axis=-1, dtype=d), a)
        both(lambda x: getattr(hg, name)(x, dtype=np.int64), lambda x: getattr(np, name)(x, dtype=np.int64), a)


def test_variable_methods_take_numpy_arguments(rng):
    a = rng.normal(size=(3, 4)).astype(np.float32)
    m = rng.random((3, 4)) > 0.5
    both(lambda x: x.sum(axis=0, dtype=np.float64, where=m), lambda x: x.sum(axis=0, dtype=np.float64, where=m), a)
    both(lambda x: x.max(1, initial=0.5, keepdims=True), lambda x: x.max(1, initial=0.5, keepdims=True), a)
    both(lambda x: x.mean(where=m), lambda x: x.mean(where=m), a)


# --- where, searchsorted, shape ---------------------------------------------------------------
def test_one_argument_where(rng):
    a = rng.integers(-2, 3, size=(3, 4)).astype(np.int32)
    both(lambda x: list(hg.where(x > 0)), lambda x: list(np.where(x > 0)), a)
    both(lambda x: list(np.where(x)), lambda x: list(np.where(x)), a)
    both(lambda x: list(hg.where(x[0] > 10)), lambda x: list(np.where(x[0] > 10)), a)  # none
    with pytest.raises(ValueError, match="0-d"):  # as NumPy 2
        hg.where(hg.tensor("c", (), "bool"))
    with pytest.raises(ValueError, match="both or neither"):
        hg.where(hg.tensor("c", (3,), "bool"), 1)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_sorter(side, rng):
    a = rng.integers(0, 6, size=9).astype(np.float32)
    sorter = np.argsort(a, kind="stable")
    v = np.array([-1, 0, 2.5, 3, 9], np.float32)
    both(lambda x: hg.searchsorted(x, v, side=side, sorter=sorter),
         lambda x: np.searchsorted(x, v, side=side, sorter=sorter), a)
    both(lambda x, s: np.searchsorted(x, v, side, s), lambda x, s: np.searchsorted(x, v, side, s), a, sorter)


def test_shape_ndim_size():
    x = hg.tensor("x", (2, None, 4), "float32")
    d0, d1, d2 = hg.shape(x)
    assert (d0, d2) == (2, 4) and isinstance(d1, hg.Variable)
    assert hg.ndim(x) == 3 and hg.ndim(hg.tensor("s", ())) == 0
    assert hg.shape(hg.tensor("y", (3, 0))) == (3, 0)
    assert hg.shape(np.zeros((5, 1))) == (5, 1) and hg.ndim([[1, 2]]) == 2
    g = hg.Graph([x], [d1, hg.size(x), hg.size(x, axis=-1)])
    a = np.zeros((2, 7, 4), np.float32)
    for out in (hg.evaluate(g, a), hg.compile(g)(a)):
        assert [int(v) for v in out] == [7, 56, 4]


# --- Python operators --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16"])
def test_shift_operators(dtype, rng):
    a = rng.integers(0, 60, size=(3, 4)).astype(dtype)
    s = rng.integers(0, 5, size=(4,)).astype(dtype)
    same(lambda x: (x >> 2) + (x << 1), a)
    same(lambda x: (s << x % 3) - (s >> 1), a)  # reflected forms with an ndarray on the left
    same(lambda x: (3 << (x % 4)) + (100 >> (x % 4)), a)  # and with a Python int


@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_divmod(dtype, rng):
    a = (rng.normal(size=(5,)) * 10).astype(dtype)
    b = np.array([3, -4, 2, 7, -1], dtype)
    same(lambda x: divmod(x, b), a)
    same(lambda x: divmod(7, x + (x == 0)), a)
    same(lambda x: divmod(b, x + (x == 0)), a)


def test_in_place_operators_rebind(rng):
    a = rng.integers(1, 9, size=(3, 3)).astype(np.int32)

    def f(x):
        y = x + 0  # (on NumPy's arrays the augmented assignments below write into y)
        y += 1
        y *= 3
        y -= x
        y //= 2
        y **= 2
        y %= 50
        y <<= 1
        y >>= 1
        y |= 4
        y &= 61
        y ^= 2
        y @= x
        return y

    same(f, a)
    x = hg.tensor("x", (3,), "int32")
    before = x
    x += 1
    assert x is not before and before.owner is None  # a new value; the input is unchanged


def test_matmul_1d_unary_and_bitwise(rng):
    a = rng.normal(size=(4,)).astype(np.float32)
    m = rng.normal(size=(3, 4)).astype(np.float32)
    same(lambda x: x @ x, a, rtol=1e-5)
    same(lambda x: m @ x, a, rtol=1e-5)
    same(lambda x: x @ m.T, a, rtol=1e-5)
    same(lambda x: np.stack([x, x]) @ x, a, rtol=1e-5)
    same(lambda x: abs(x) + (+x) - (-x), a)
    b = rng.integers(0, 2, size=(4,)).astype(bool)
    same(lambda x: ~x, b)
    same(lambda x: ~x, rng.integers(-9, 9, size=(4,)).astype(np.int16))
    with pytest.raises(ValueError):
        hg.tensor("v", (3,)) @ hg.tensor("w", (4,))


def test_truth_values_and_conversions_are_clear_errors():
    a, b, c = (hg.tensor(n, (3,)) for n in "abc")
    with pytest.raises(TypeError, match="no truth value.*ambiguous.*hg.logical_and"):
        bool(a)
    with pytest.raises(TypeError, match="chained comparison"):
        a < b < c  # noqa: B015  (Python evaluates (a < b) and (b < c))
    with pytest.raises(TypeError, match="no truth value"):
        if a.sum() > 0:
            pass
    s = hg.tensor("s", (), "int64")
    for conv, what in [(int, "int()"), (float, "float()"), (complex, "complex()"),
                       (operator.index, "Python index")]:
        with pytest.raises(TypeError, match=rf"{what.replace('(', '.').replace(')', '.')}.*value is not known"):
            conv(s)
    with pytest.raises(TypeError, match="Python index"):
        [1, 2, 3][s]
    with pytest.raises(TypeError, match="np.asarray"):
        np.asarray(a)


def test_len_and_iteration(rng):
    a = rng.normal(size=(3, 2)).astype(np.float32)
    same(lambda x: [row * i for i, row in enumerate(x)], a)
    x = hg.tensor("x", (3, 2))
    assert len(x) == 3 and len(list(x)) == 3
    with pytest.raises(TypeError, match="not iterable"):
        iter(hg.tensor("y", (None, 2)))
    with pytest.raises(TypeError, match="len"):
        len(hg.tensor("z", ()))
