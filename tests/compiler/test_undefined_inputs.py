"""Inputs whose NumPy result is an error or undefined: what compiled code does
(README, "Undefined inputs"). Each rule is pinned here so it cannot change
silently; ``perform`` (the reference) keeps NumPy's behaviour."""

import math
import warnings

import numpy as np
import pytest

import hlograph as hg

INDEX_DTYPES = ["int32", "int64", "uint8", "int8"]


def compiled_and_perform(g, *args):
    out = hg.compile(g)(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            ref = hg.evaluate(g, *args)
        except Exception as e:  # noqa: BLE001 - the test inspects it
            ref = e
    return out, ref


def clamped(index, n):
    """The read rule: a negative index counts from the end once, then the index
    is clamped into [0, n - 1]."""
    index = np.asarray(index).astype(np.int64)
    index = np.where(index < 0, index + n, index)
    return np.clip(index, 0, n - 1)


def random_indices(rng, dtype, size, n):
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -3 * n), min(info.max, 3 * n)
    return rng.integers(lo, hi + 1, size=size).astype(dtype)


# --- reads: clamped -------------------------------------------------------------


@pytest.mark.parametrize("dtype", INDEX_DTYPES)
def test_scalar_index_out_of_bounds_clamps(dtype, rng):
    n = 5
    x = hg.tensor("x", (n, 3), "float32")
    i = hg.tensor("i", (), dtype)
    g = hg.Graph([x, i], x[i])
    data = rng.standard_normal((n, 3)).astype(np.float32)
    info = np.iinfo(dtype)
    for k in sorted({0, n - 1, n, 2 * n + 1, info.max, -1, -n, -n - 1, info.min}):
        if not info.min <= k <= info.max:
            continue
        out, ref = compiled_and_perform(g, data, np.array(k, dtype))
        np.testing.assert_array_equal(out, data[clamped(k, n)])
        if -n <= k < n:
            np.testing.assert_array_equal(ref, data[k])
        else:
            assert isinstance(ref, IndexError), (k, ref)


@pytest.mark.parametrize("dtype", INDEX_DTYPES)
def test_take_and_integer_array_index_clamp(dtype, rng):
    n = 6
    x = hg.tensor("x", (n,), "float64")
    idx = hg.tensor("idx", (9,), dtype)
    data = rng.standard_normal(n)
    indices = random_indices(rng, dtype, 9, n)
    indices[0] = n                                       # one past the end, always
    for g in (hg.Graph([x, idx], hg.take(x, idx)), hg.Graph([x, idx], x[idx])):
        out, ref = compiled_and_perform(g, data, indices)
        np.testing.assert_array_equal(out, data[clamped(indices, n)])
        assert isinstance(ref, IndexError)


def test_take_along_axis_clamps_per_axis(rng):
    m = hg.tensor("m", (3, 4), "float32")
    j = hg.tensor("j", (3, 2), "int64")
    g = hg.Graph([m, j], hg.take_along_axis(m, j, axis=-1))
    data = rng.standard_normal((3, 4)).astype(np.float32)
    idx = np.array([[1, 4], [-6, -1], [100, -100]])
    out, ref = compiled_and_perform(g, data, idx)
    np.testing.assert_array_equal(out, np.take_along_axis(data, clamped(idx, 4), axis=-1))
    assert isinstance(ref, IndexError)
    # in bounds: NumPy's result
    ok = np.array([[0, 3], [-4, -1], [2, 1]])
    out, ref = compiled_and_perform(g, data, ok)
    np.testing.assert_array_equal(out, np.take_along_axis(data, ok, axis=-1))
    np.testing.assert_array_equal(ref, out)


def test_empty_index_array_reads_nothing():
    x = hg.tensor("x", (4,), "float32")
    idx = hg.tensor("idx", (0,), "int64")
    out, ref = compiled_and_perform(hg.Graph([x, idx], x[idx]), np.ones(4, np.float32), np.zeros(0, np.int64))
    assert out.shape == ref.shape == (0,)


# --- writes: dropped ------------------------------------------------------------


@pytest.mark.parametrize("mode", ["set", "inc"])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_scatter_out_of_bounds_updates_are_dropped(mode, dtype, rng):
    n = 5
    x = hg.tensor("x", (n,), "float32")
    idx = hg.tensor("idx", (6,), dtype)
    build = hg.set_subtensor if mode == "set" else hg.inc_subtensor
    g = hg.Graph([x, idx], build(x[idx], 10.0))
    data = rng.standard_normal(n).astype(np.float32)
    indices = np.array([0, n, -n - 1, 2 * n, -1, -n], dtype)
    out, ref = compiled_and_perform(g, data, indices)
    expected = data.copy()
    for k in indices:
        if -n <= k < n:             # in bounds (negative from the end); the rest is dropped
            expected[k] = 10.0 if mode == "set" else expected[k] + 10.0
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert isinstance(ref, IndexError)


def test_scalar_index_write_out_of_bounds_is_dropped(rng):
    x = hg.tensor("x", (4, 2), "float64")
    i = hg.tensor("i", (), "int64")
    g = hg.Graph([x, i], hg.set_subtensor(x[i], -1.0))
    data = rng.standard_normal((4, 2))
    for k in (4, 9, -5):
        out, ref = compiled_and_perform(g, data, np.int64(k))
        np.testing.assert_array_equal(out, data)
        assert isinstance(ref, IndexError)
    out, _ = compiled_and_perform(g, data, np.int64(-4))
    expected = data.copy()
    expected[0] = -1.0
    np.testing.assert_array_equal(out, expected)


# --- integer powers with negative exponents ---------------------------------------


def int_power_rule(base, exp):
    """x ** n for n < 0 is 1 / x ** -n truncated toward zero: 1 for x = 1, +-1 for
    x = -1, else 0 (0 ** n too, with a run-time exponent)."""
    base = np.asarray(base)
    exp = np.broadcast_to(np.asarray(exp), base.shape)
    out = np.power(base, np.maximum(exp, 0))
    neg = np.where(base == 1, 1, np.where(base == -1, np.where(exp % 2 == 0, 1, -1), 0))
    return np.where(exp < 0, neg, out).astype(base.dtype)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_integer_power_negative_exponent(dtype, rng):
    a = hg.tensor("a", (40,), dtype)
    b = hg.tensor("b", (40,), dtype)
    g = hg.Graph([a, b], hg.power(a, b))
    base = rng.integers(-4, 5, size=40).astype(dtype)
    exp = rng.integers(-4, 4, size=40).astype(dtype)
    base[:4] = [0, 1, -1, -1]
    exp[:4] = [-1, -5, -3, -2]
    out, ref = compiled_and_perform(g, base, exp)
    np.testing.assert_array_equal(out, int_power_rule(base, exp))
    assert out.dtype == np.dtype(dtype)
    assert isinstance(ref, ValueError) and "negative integer powers" in str(ref)
    # non-negative exponents: NumPy's result
    exp = np.abs(exp)
    out, ref = compiled_and_perform(g, base, exp)
    np.testing.assert_array_equal(out, np.power(base, exp))
    np.testing.assert_array_equal(ref, out)


@pytest.mark.parametrize("k", [-2, -3])
def test_integer_power_constant_negative_exponent(k):
    a = hg.tensor("a", (7,), "int32")
    base = np.array([0, 1, -1, 2, -2, 7, -7], np.int32)
    out, ref = compiled_and_perform(hg.Graph([a], a ** k), base)
    np.testing.assert_array_equal(out, int_power_rule(base, k))
    assert isinstance(ref, ValueError)


def test_zero_to_the_constant_minus_one_is_minus_one():
    # XLA rewrites x ** -1 with a constant exponent into 1 / x, and an integer
    # division by zero gives -1: the one case where a constant exponent differs
    # from the same exponent given at run time (0 there)
    a = hg.tensor("a", (5,), "int32")
    e = hg.tensor("e", (), "int32")
    base = np.array([0, 1, -1, 2, -3], np.int32)
    out, _ = compiled_and_perform(hg.Graph([a], a ** -1), base)
    np.testing.assert_array_equal(out, [-1, 1, -1, 0, 0])
    out, _ = compiled_and_perform(hg.Graph([a, e], a ** e), base, np.int32(-1))
    np.testing.assert_array_equal(out, [0, 1, -1, 0, 0])


# --- float -> int casts out of range: saturated ----------------------------------


def saturated(values, dtype):
    """The cast rule: NaN -> 0, values truncated toward zero, then clamped into
    the integer type's range (infinities to its ends)."""
    info = np.iinfo(dtype)
    out = []
    for v in np.asarray(values, np.float64).ravel():
        if math.isnan(v):
            out.append(0)
        elif math.isinf(v):
            out.append(info.max if v > 0 else info.min)
        else:
            out.append(min(max(math.trunc(v), info.min), info.max))
    return np.array(out, dtype=dtype).reshape(np.shape(values))


@pytest.mark.parametrize("src", ["float16", "float32", "float64"])
@pytest.mark.parametrize("dst", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_float_to_int_cast_saturates(src, dst, rng):
    info = np.iinfo(dst)
    finfo = np.finfo(src)
    specials = [np.nan, np.inf, -np.inf, -0.0, -0.7, 0.9, -1.5, finfo.max, finfo.min,
                float(info.max) * 2, float(info.min) * 2 - 1, float(info.max) + 1, float(info.min) - 1]
    values = np.concatenate([np.array(specials, np.float64),
                             rng.uniform(-4, 4, 20) * float(info.max),
                             rng.uniform(max(float(info.min), float(finfo.min)),
                                         min(float(info.max), float(finfo.max)), 20)])
    with np.errstate(over="ignore"):
        data = values.astype(src)             # (float16 overflows to inf: still a case)
    x = hg.tensor("x", data.shape, src)
    g = hg.Graph([x], hg.astype(x, dst))
    out, ref = compiled_and_perform(g, data)
    assert out.dtype == np.dtype(dst)
    np.testing.assert_array_equal(out, saturated(data, dst))
    # in range, NumPy's result (perform wraps or gives an arbitrary value outside)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        numpy = data.astype(dst)
    np.testing.assert_array_equal(ref, numpy)
    inside = np.array([math.isfinite(v) and info.min <= math.trunc(v) <= info.max
                       for v in data.astype(np.float64)])
    assert inside.sum() >= 20
    np.testing.assert_array_equal(out[inside], numpy[inside])


def test_cast_of_scalar_and_empty():
    s = hg.tensor("s", (), "float32")
    out, _ = compiled_and_perform(hg.Graph([s], hg.astype(s, "int32")), np.float32(np.nan))
    assert out == 0
    out, _ = compiled_and_perform(hg.Graph([s], hg.astype(s, "uint8")), np.float32(-3.0))
    assert out == 0
    e = hg.tensor("e", (0, 2), "float64")
    out, _ = compiled_and_perform(hg.Graph([e], hg.astype(e, "int16")), np.zeros((0, 2)))
    assert out.shape == (0, 2) and out.dtype == np.int16
