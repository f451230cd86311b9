"""Reductions, cumulative reductions and the softmax family: compiled results against
perform, over dtypes, axes (None, negative, tuples, keepdims), 0-d and size-0 shapes,
NaN/inf, ties, and the errors NumPy raises."""

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops import reduction as rd
from hlograph.frontend.types import is_complex, is_float
from hlograph.tests.helpers import compare_with_perform, random_array, results_everywhere

FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
SINTS = ["int8", "int16", "int32", "int64"]
UINTS = ["uint8", "uint16", "uint32", "uint64"]
INTS = SINTS + UINTS
ALL_DTYPES = ["bool"] + INTS + FLOATS + COMPLEX


@dataclass
class Rec:
    name: str
    fn: Callable
    dtypes: list
    #: False: reducing an empty axis is an error (max, min, argmax, argmin)
    empty_ok: bool = True
    #: False: axis is None or an int (argmax, argmin)
    tuple_axes: bool = True
    #: "sparse": values with many zeros (all, any)
    kind: str = "normal"
    #: False: only the dtype cases (the axes are another Rec's, same lowering)
    shape_cases: bool = True


REDUCTIONS = [
    Rec("sum", hg.sum, ALL_DTYPES),
    Rec("prod", hg.prod, ["bool", "int8", "uint8", "int32", "uint64", "int64"] + FLOATS + COMPLEX),
    Rec("max", hg.max, ["bool", "int8", "uint16", "int64", "uint64"] + FLOATS + COMPLEX, empty_ok=False),
    Rec("min", hg.min, ["bool", "int16", "uint8", "int32", "uint32"] + FLOATS + ["complex64"], empty_ok=False),
    Rec("mean", hg.mean, ["bool", "int8", "uint8", "int64"] + FLOATS + COMPLEX),
    Rec("all", hg.all, ["bool", "int8", "uint32", "float32", "float16", "complex64"], kind="sparse"),
    Rec("any", hg.any, ["bool", "int64", "uint8", "float64", "bfloat16", "complex128"], kind="sparse"),
    Rec("argmax", hg.argmax, ["bool", "int8", "uint8", "int64"] + FLOATS + ["complex64"],
        empty_ok=False, tuple_axes=False),
    Rec("argmin", hg.argmin, ["bool", "int32", "uint64"] + FLOATS + ["complex128"],
        empty_ok=False, tuple_axes=False),
    Rec("logsumexp", hg.logsumexp, ["bool", "int32"] + FLOATS),
    Rec("var", hg.var, ["bool", "uint16", "int64"] + FLOATS + COMPLEX),
    Rec("std", hg.std, ["int32", "float16", "float32", "complex64"], shape_cases=False),
]

#: (shape, axis, keepdims)
CASES = [
    ((), None, False),
    ((), None, True),
    ((), (), False),
    ((0,), None, False),
    ((0,), 0, True),
    ((3, 0), 1, False),
    ((3, 0), 0, False),
    ((3, 0), None, True),
    ((5,), -1, False),
    ((2, 3, 4), None, False),
    ((2, 3, 4), -1, False),
    ((2, 3, 4), 1, True),
    ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), (-1, 0), True),
    ((2, 3, 4), (), False),
]

# XLA and NumPy sum in different orders: a few ulps on top of the helpers' defaults
TOL = {
    "float16": (4e-3, 2e-3), "bfloat16": (3e-2, 2e-2), "float32": (2e-5, 1e-5),
    "complex64": (2e-5, 1e-5), "float64": (1e-12, 1e-12), "complex128": (1e-12, 1e-12),
}


def _tol(dtype: str) -> dict:
    rtol, atol = TOL.get(dtype, (None, None))
    return {"rtol": rtol, "atol": atol}


def _values(rng, shape, dtype, kind):
    if kind == "sparse":
        x = random_array(rng, shape, dtype)
        return np.where(rng.random(shape) < 0.25, np.zeros((), x.dtype), x).astype(x.dtype)
    return random_array(rng, shape, dtype)


def _reduced(shape, axis):
    axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
    return [shape[a] for a in axes]


def _valid(rec: Rec, shape, axis) -> bool:
    if not rec.tuple_axes and isinstance(axis, tuple):
        return False
    return rec.empty_ok or 0 not in _reduced(shape, axis)


def _case_id(shape, axis, keepdims):
    return f"{shape}-axis={axis}" + ("-keepdims" if keepdims else "")


def _shape_cases():
    return [pytest.param(rec, *case, id=f"{rec.name}-{_case_id(*case)}")
            for rec in REDUCTIONS if rec.shape_cases for case in CASES if _valid(rec, case[0], case[1])]


def _dtype_cases():
    return [pytest.param(rec, dt, id=f"{rec.name}-{dt}") for rec in REDUCTIONS for dt in rec.dtypes]


def _check(fn, shape, dtype, values, **kw):
    x = hg.tensor("x", shape, dtype)
    return compare_with_perform(hg.Graph([x], fn(x)), [values], **kw)


@pytest.mark.parametrize("rec,shape,axis,keepdims", _shape_cases())
def test_reduction_axes_match_perform(rec, shape, axis, keepdims, rng):
    dtype = "float32"
    _check(lambda x: rec.fn(x, axis=axis, keepdims=keepdims), shape, dtype,
           _values(rng, shape, dtype, rec.kind), **_tol(dtype))


@pytest.mark.parametrize("rec,dtype", _dtype_cases())
def test_reduction_dtypes_match_perform(rec, dtype, rng):
    for shape, axis, keepdims in [((2, 3, 4), -1 if not rec.tuple_axes else (0, 2), False),
                                  ((4, 5), 0, True), ((6,), None, False)]:
        _check(lambda x: rec.fn(x, axis=axis, keepdims=keepdims), shape, dtype,
               _values(rng, shape, dtype, rec.kind), **_tol(dtype))


EMPTY_CASES = [pytest.param(rec, dt, id=f"{rec.name}-{dt}") for rec in REDUCTIONS if rec.empty_ok
               for dt in ["bool", "int8", "uint32", "float16", "complex64"] if dt in rec.dtypes
               or rec.name != "logsumexp"]


@pytest.mark.parametrize("rec,dtype", EMPTY_CASES)
def test_reduction_empty_axis_matches_perform(rec, dtype):
    """sum 0, prod 1, all True, any False, mean NaN, logsumexp -inf, in the result dtype."""
    actual, _ = _check(lambda x: rec.fn(x, axis=1), (3, 0), dtype, np.zeros((3, 0), dtype))
    assert actual.shape == (3,)


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min", "all", "any", "argmax", "argmin",
                                  "cumsum", "cumprod", "var", "std"])
@pytest.mark.parametrize("dtype", ["bool"] + INTS + FLOATS + COMPLEX)
def test_reduction_dtype_rules_follow_numpy(name, dtype):
    """The declared result dtype is NumPy's (sum of int8 is int64, mean of ints float64, ...)."""
    x = hg.tensor("x", (2, 3), dtype)
    sample = np.ones((2, 3), dtype=x.dtype)
    assert getattr(hg, name)(x, axis=0).dtype == getattr(np, name)(sample, axis=0).dtype


# --- NaN, infinities, ties ---------------------------------------------------------------
NAN, INF = np.nan, np.inf
SPECIAL_ROWS = np.array([
    [1.0, NAN, 3.0, NAN, 2.0],
    [NAN, 1.0, NAN, 0.0, -1.0],
    [-INF, -INF, -INF, -INF, -INF],
    [INF, -INF, 1.0, INF, 0.0],
    [2.0, 5.0, 5.0, -1.0, 5.0],
    [-0.0, 0.0, -0.0, 0.0, -0.0],
    [NAN, NAN, NAN, NAN, NAN],
    [-INF, 2.0, -INF, 2.0, INF],
    [1000.0, 1001.0, 999.0, -1000.0, 1001.0],
    [1.0, 2.0, 3.0, 4.0, 5.0],
])


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin", "sum", "prod", "mean", "logsumexp",
                                  "softmax", "log_softmax", "cumsum", "cumprod", "cummax", "var"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("axis", [1, 0])
def test_reduction_special_float_values(name, dtype, axis):
    """NaN propagates (argmax/argmin give the first NaN), -inf/+inf rows, ties, signed zeros."""
    values = SPECIAL_ROWS.astype(dtype)
    if axis == 0:
        values = np.ascontiguousarray(values.T)
    actual, expected = _check(lambda x: getattr(hg, name)(x, axis=-1 if axis == 1 else 0),
                              values.shape, dtype, values, **_tol(dtype))
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    if name in ("max", "min", "cummax", "cummin"):  # exact
        np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
def test_reduction_special_float_values_flattened(name):
    values = SPECIAL_ROWS[2:6]
    _check(lambda x: getattr(hg, name)(x), values.shape, "float64", values)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float32"])
def test_argmax_argmin_first_of_many_ties(name, dtype, rng):
    """Long rows of few distinct values: XLA splits the work, the first index must win."""
    values = rng.integers(0, 2, size=(3, 3000)).astype(dtype)
    _check(lambda x: getattr(hg, name)(x, axis=1), values.shape, dtype, values)
    _check(lambda x: getattr(hg, name)(x), values.shape, dtype, values)


@pytest.mark.parametrize("name", ["argmax", "argmin", "max", "min", "softmax", "log_softmax", "logsumexp"])
def test_reduction_nan_in_long_rows(name, rng):
    """NaN propagates (argmax: the first NaN) whichever partial reduction holds it, and
    rows without NaN are unaffected (XLA:CPU's own maximum reduce gets both wrong)."""
    values = random_array(rng, (3, 4000), "float32")
    values[0, [1500, 2500, 3999]] = np.nan
    values[1, [3000, 10]] = [np.inf, np.nan]
    _check(lambda x: getattr(hg, name)(x, axis=1), values.shape, "float32", values)


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin", "cummax", "cummin"])
def test_complex_extrema_order_lexicographically(name):
    values = np.array([[1 + 2j, 1 + 3j, 1 - 1j, 0 + 9j],
                       [2 + 0j, 2 + 0j, -2 + 5j, 2 - 0j],
                       [1 + 1j, complex(NAN, 0), 3 + 0j, 2 + 0j],
                       [3 + 0j, complex(1, NAN), 2 + 0j, -5 + 0j]], np.complex128)
    _check(lambda x: getattr(hg, name)(x, axis=1), values.shape, "complex128", values)


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "uint64"])
@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin", "sum", "prod"])
def test_reduction_integer_extremes(name, dtype, rng):
    """Values at the type's limits (sums wrap around in 64 bits, as NumPy)."""
    info = np.iinfo(dtype)
    values = rng.choice(np.array([info.min, info.max, 0, 1, info.max - 1], dtype), size=(4, 7))
    _check(lambda x: getattr(hg, name)(x, axis=1), values.shape, dtype, values)


def test_sum_accumulates_half_floats_in_float32():
    """2048 + 1 + 1 + ... is 2048 in float16 arithmetic, not with a float32 accumulator."""
    values = np.concatenate([[2048.0], np.ones(64)]).astype(np.float16)
    actual, expected = _check(lambda x: hg.sum(x), values.shape, "float16", values)
    assert float(expected) == 2048.0 + 64.0


def test_mean_long_axis(rng):
    values = random_array(rng, (3, 1000), "float32")
    _check(lambda x: hg.mean(x, axis=1), values.shape, "float32", values, rtol=1e-5, atol=1e-6)
    _check(lambda x: hg.sum(x, axis=0), values.shape, "float32", values, rtol=1e-5, atol=1e-5)


# --- cumulative reductions -----------------------------------------------------------------
CUM_CASES = [((), None), ((0,), 0), ((0,), None), ((3, 0), 1), ((3, 0), 0), ((5,), -1), ((2, 3, 4), None),
             ((2, 3, 4), 1), ((2, 3, 4), -1)]


CUM_NAMES = ["cumsum", "cumprod", "cummax", "cummin"]
#: long axes take the loop (blocks of 8 and a tail; an inner axis moved to the front or not)
CUM_LONG_CASES = [((37, 5), 0), ((5, 37), 1), ((3, 20, 17), 1), ((3, 20, 2), -2), ((8, 3), 0),
                  ((16, 2), 0), ((13,), 0), ((4, 5), None)]


def _cum_values(rng, shape, dtype):
    values = random_array(rng, shape, dtype, "unit")
    if is_float(values.dtype) or is_complex(values.dtype):
        values = (1 + values / 8).astype(values.dtype)  # long products neither vanish nor blow up
    return values


def _check_cumulative(shape, dtype, values, axes, **kw):
    """Every cumulative op along each of ``axes``, as outputs of one graph."""
    x = hg.tensor("x", shape, dtype)
    outs = [getattr(hg, name)(x, axis=axis) for axis in axes for name in CUM_NAMES]
    return compare_with_perform(hg.Graph([x], outs), [values], **kw)


@pytest.mark.parametrize("shape,axis", CUM_CASES + CUM_LONG_CASES, ids=str)
def test_cumulative_axes_match_perform(shape, axis, rng):
    _check_cumulative(shape, "float32", _cum_values(rng, shape, "float32"), [axis], **_tol("float32"))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "uint64"] + FLOATS + COMPLEX)
def test_cumulative_dtypes_match_perform(dtype, rng):
    """Axis 0 of (21, 3) takes the loop, axis 1 the reduce_window, None the loop on 63."""
    _check_cumulative((21, 3), dtype, _cum_values(rng, (21, 3), dtype), [0, -1, None], **_tol(dtype))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "float16", "complex64"])
def test_cummax_cummin_keep_the_dtype(name, dtype):
    x = hg.tensor("x", (2, 3), dtype)
    ufunc = np.maximum if name == "cummax" else np.minimum
    assert getattr(hg, name)(x, axis=0).dtype == ufunc.accumulate(np.ones((2, 3), x.dtype), axis=0).dtype


@pytest.mark.parametrize("name", ["cumsum", "cummax"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cumulative_long_axis_is_sequential(name, dtype, rng):
    """The loop adds in NumPy's order, so float results are equal, not only close."""
    values = random_array(rng, (300, 7), dtype)
    actual, expected = _check(lambda x: getattr(hg, name)(x, axis=0), values.shape, dtype, values)
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("shape,axis", [((40, 3), 0), ((3, 40), 1)], ids=str)
def test_cumulative_nan_propagates_along_long_axes(shape, axis, rng):
    values = random_array(rng, shape, "float32")
    index = [slice(None)] * 2
    index[axis] = 17
    values[tuple(index)] = [np.nan, np.inf, -np.inf][: values[tuple(index)].size]
    actual, expected = _check_cumulative(shape, "float32", values, [axis])
    for a, e in zip(actual, expected):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(e))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_cumulative_integers_wrap_as_numpy(name, dtype, rng):
    info = np.iinfo(dtype)
    values = rng.choice(np.array([info.max, info.max // 3, 3, 1], dtype), size=(30, 2))
    _check(lambda x: getattr(hg, name)(x, axis=0), values.shape, dtype, values)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("n", [1, 2, 5, 8, 13, 20])
def test_complex_cumprod_starts_from_the_first_element(dtype, n, rng):
    # NumPy's running product starts from the first element: 1 * (inf + 2j) would be
    # inf + nan j, and its NaN would spread along the axis
    from hlograph.testing.fuzz import compare

    z = (rng.normal(size=(3, n)) + 1j * rng.normal(size=(3, n))).astype(dtype)
    z[0, 0], z[1, 0] = complex(np.inf, 1.5), complex(np.nan, -0.5)
    z[2, n - 1] = complex(2, np.inf)
    for axis in (0, 1, -1):
        x = hg.tensor("x", (None, None), dtype)
        g = hg.Graph([x], [hg.cumprod(x, axis=axis), hg.cumulative_prod(x, axis=axis, include_initial=True)])
        with np.errstate(all="ignore"):
            want = [np.cumprod(z, axis=axis), np.cumulative_prod(z, axis=axis, include_initial=True)]
        for where, got in results_everywhere(g, z):
            for gv, wv in zip(got, want):
                msg = compare(gv, wv)
                assert msg is None, f"{where}, axis {axis}: {msg}"


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape, axis", [((), None), ((), ()), ((2, 3), ()), ((1, 3), 0), ((3,), -1)])
def test_complex_prod_starts_from_the_identity(dtype, shape, axis):
    # NumPy's complex product is 1 * x0 * x1 ...: an infinite part makes the other NaN
    # (1 * (inf + 2j) = inf + nan j), over one element and over no axes too (a 0-d value)
    from hlograph.testing.fuzz import compare

    specials = [complex(np.inf, 2), complex(np.nan, np.inf), complex(-1.5, np.inf), complex(0.5, -2)]
    z = np.resize(np.array(specials, dtype), shape)
    x = hg.tensor("x", shape, dtype)
    g = hg.Graph([x], hg.prod(x, axis=axis))
    with np.errstate(all="ignore"):
        want = np.prod(z, axis=axis)
    for where, got in results_everywhere(g, z):
        msg = compare(got, want)
        assert msg is None, f"{where}: {msg}"


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape, axis", [((), None), ((1,), None), ((2, 1), -1), ((2, 3), ())])
def test_complex_mean_of_one_element_divides_by_one(dtype, shape, axis):
    # NumPy divides the sum by 1 + 0j part by part, where XLA takes x / 1 for x: an
    # infinite part makes the other NaN ((inf + 2j) / 1 = inf + nan j), and its sum
    # starting from 0 makes a -0.0 part 0.0
    from hlograph.testing.fuzz import compare

    specials = [complex(np.inf, 2), complex(np.nan, np.inf), complex(-0.0, np.inf), complex(2, -0.0)]
    z = np.resize(np.array(specials, dtype), shape)
    x = hg.tensor("x", shape, dtype)
    g = hg.Graph([x], hg.mean(x, axis=axis))
    with np.errstate(all="ignore"):
        want = np.mean(z, axis=axis)
    for where, got in results_everywhere(g, z):
        msg = compare(got, want)
        assert msg is None, f"{where}: {msg}"
        np.testing.assert_array_equal(np.signbit(np.asarray(got).imag), np.signbit(want.imag))


def test_cumsum_0d_flattens_to_1d():
    x = hg.scalar("x", "int16")
    y = hg.cumsum(x)
    assert y.type == hg.TensorType("int64", (1,))
    compare_with_perform(hg.Graph([x], y), [np.array(7, np.int16)])


def test_cumsum_long_axis(rng):
    values = random_array(rng, (2, 500), "float64")
    _check(lambda x: hg.cumsum(x, axis=1), values.shape, "float64", values, rtol=1e-12, atol=1e-12)


# --- variance ---------------------------------------------------------------------------------
DDOFS = [1, 2.5, 4, 7]


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dtype", ["float32", "complex128", "int16"])
def test_var_std_ddof_matches_perform(name, dtype, rng):
    """ddof beyond the axis length divides by 0 (inf, or NaN for 0 / 0), as NumPy."""
    values = random_array(rng, (3, 4), dtype)
    values[0] = values[0, 0]  # a constant row: 0 / 0 when n - ddof <= 0
    x = hg.tensor("x", (3, 4), dtype)
    outs = [getattr(hg, name)(x, axis=-1, ddof=ddof) for ddof in DDOFS]
    actual, expected = compare_with_perform(hg.Graph([x], outs), [values], **_tol(dtype))
    assert np.isnan(expected[-1][0]) and np.isinf(expected[-1][1])


def test_var_is_shift_invariant_in_float64(rng):
    """Two passes (mean first): a large offset does not cancel the variance away."""
    values = random_array(rng, (4, 50), "float64") + 1e8
    actual, expected = _check(lambda x: hg.var(x, axis=1), values.shape, "float64", values,
                              rtol=1e-6, atol=0)
    assert np.all(expected > 0.1)


# --- softmax family ---------------------------------------------------------------------------
SOFTMAX_CASES = [((5,), -1), ((2, 3, 4), -1), ((2, 3, 4), 0), ((2, 3, 4), (0, 2)), ((2, 3, 4), None),
                 ((3, 0), -1), ((0, 3), 0), ((), None)]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,axis", SOFTMAX_CASES, ids=str)
def test_softmax_axes_match_perform(name, shape, axis, rng):
    _check(lambda x: getattr(hg, name)(x, axis=axis), shape, "float32",
           random_array(rng, shape, "float32"), **_tol("float32"))


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", FLOATS + ["int32", "bool", "uint8"])
def test_softmax_dtypes_match_perform(name, dtype, rng):
    actual, _ = _check(lambda x: getattr(hg, name)(x), (4, 6), dtype,
                       random_array(rng, (4, 6), dtype), **_tol(dtype))
    assert actual.dtype == (np.float64 if dtype in ("int32", "bool", "uint8") else hg.TensorType(dtype).dtype)


def test_softmax_rows_sum_to_one(rng):
    x = hg.tensor("x", (4, 7), "float64")
    values = random_array(rng, (4, 7), "float64") * 50
    actual, _ = compare_with_perform(hg.Graph([x], hg.softmax(x, axis=1)), [values])
    np.testing.assert_allclose(actual.sum(axis=1), np.ones(4), rtol=1e-12)


def test_logsumexp_matches_shifted_formula_for_large_values(rng):
    """Values near 1e4 overflow a naive exp: the max shift keeps the result finite."""
    values = random_array(rng, (3, 5), "float32") + np.float32(1e4)
    actual, _ = _check(lambda x: hg.logsumexp(x, axis=1), values.shape, "float32", values)
    assert np.all(np.isfinite(actual))


# --- shape inference and node props ---------------------------------------------------------
def test_reduction_unknown_dims_infer_and_run(rng):
    x = hg.tensor("x", (None, 3), "int8")
    outs = [hg.sum(x, axis=1), hg.max(x, axis=-1, keepdims=True), hg.argmax(x), hg.cumsum(x),
            hg.mean(x, axis=0), hg.logsumexp(x, axis=0)]
    assert [o.shape for o in outs] == [(None,), (None, 1), (), (None,), (3,), (3,)]
    compare_with_perform(hg.Graph([x], outs), [random_array(rng, (4, 3), "int8")])


def test_reduction_node_props_are_normalized():
    x = hg.tensor("x", (2, 3, 4))
    assert hg.sum(x, axis=(-1, 0)).owner.op == rd.Sum((0, 2))
    assert hg.mean(x).owner.op == rd.Mean((0, 1, 2))
    assert hg.argmax(x, axis=-2).owner.op == rd.Argmax(1)
    assert hg.cumprod(x, axis=-1).owner.op == rd.CumOp(2, "mul")
    assert hg.cummax(x, axis=-2).owner.op == rd.CumOp(1, "max")
    assert hg.var(x, axis=(-1,), ddof=1.0).owner.op == rd.Var((2,), False, 1)
    assert hg.std(x, keepdims=True).owner.op == rd.Std((0, 1, 2), True, 0)
    assert x.max(axis=-1, keepdims=True).owner.op == rd.Max((2,), True)


def test_variable_methods_build_reductions(rng):
    x = hg.tensor("x", (3, 4), "float64")
    outs = [x.sum(axis=0), x.prod(axis=1), x.mean(), x.max(axis=-1), x.min(keepdims=True)]
    compare_with_perform(hg.Graph([x], outs), [random_array(rng, (3, 4), "float64")])


# --- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("build,match", [
    (lambda x: hg.sum(x, axis=3),
     r"Sum\{axis=3, keepdims=False\}: axis 3 is out of bounds for input 'x' of rank 3"),
    (lambda x: hg.mean(x, axis=(0, -4)), r"Mean.*axis -4 is out of bounds for input 'x' of rank 3"),
    (lambda x: hg.argmax(x, axis=-4), r"Argmax.*axis -4 is out of bounds"),
    (lambda x: hg.cumsum(x, axis=3), r"CumOp\{axis=3, mode='add'\}: axis 3 is out of bounds"),
    (lambda x: hg.cummin(x, axis=-4), r"CumOp\{axis=-4, mode='min'\}: axis -4 is out of bounds"),
    (lambda x: hg.std(x, axis=(0, 3)), r"Std\{axis=\(0, 3\).*axis 3 is out of bounds"),
    (lambda x: hg.softmax(x, axis=5), r"Softmax\{axis=5\}: axis 5 is out of bounds"),
    (lambda x: hg.logsumexp(x, axis=(1, -2)), r"LogSumExp.*repeated axis in \(1, -2\)"),
    (lambda x: hg.sum(x, axis=(0, 0)), r"repeated axis in \(0, 0\) for input 'x'"),
])
def test_reduction_bad_axis_raises(build, match):
    x = hg.tensor("x", (2, 3, 4))
    with pytest.raises(ValueError, match=match):
        build(x)


@pytest.mark.parametrize("build,match", [
    (lambda x: hg.sum(x, axis=1.0), r"Sum: axis must be None, an int or a tuple of ints, got 1.0"),
    (lambda x: hg.max(x, axis=True), r"Max: axis must be"),
    (lambda x: hg.argmax(x, axis=(0,)), r"Argmax: axis must be None or an int, got \(0,\)"),
    (lambda x: hg.cumsum(x, axis=(0, 1)), r"axis must be None or an int"),
    (lambda x: hg.var(x, ddof="1"), r"Var: ddof must be a real number, got '1'"),
    (lambda x: hg.std(x, ddof=True), r"Std: ddof must be a real number, got True"),
    (lambda x: hg.softmax(hg.astype(x, "complex64")),
     r"Softmax\{axis=-1\}: input .* must have a real float dtype, got complex64"),
])
def test_reduction_bad_axis_type_raises(build, match):
    x = hg.tensor("x", (2, 3))
    with pytest.raises(TypeError, match=match):
        build(x)


def test_cumop_bad_mode_raises():
    with pytest.raises(ValueError, match=r"CumOp: mode must be one of 'add', 'mul', 'max', 'min', got 'or'"):
        rd.CumOp(0, "or")


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("shape,axis", [((3, 0), 1), ((0,), None), ((0, 2), 0)], ids=str)
def test_extremum_of_empty_axis_raises(name, shape, axis):
    x = hg.tensor("x", shape)
    with pytest.raises(ValueError, match=r"of input 'x' has size 0, and an empty axis has no"):
        getattr(hg, name)(x, axis=axis)
    with pytest.raises(ValueError):  # the NumPy reference raises too
        getattr(np, name)(np.zeros(shape, np.float32), axis=axis)


def test_extremum_of_empty_axis_raises_when_specialized():
    """An unknown dim is checked again when the graph is specialized to real shapes."""
    x = hg.tensor("x", (None, 3))
    fn = hg.compile(hg.Graph([x], hg.max(x, axis=0)))
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(fn(values), np.max(values, axis=0))
    match = r"Max\{axis=\(0,\), keepdims=False\}: axis 0 of input 'x' has size 0"
    with pytest.raises(ValueError, match=match):
        fn(np.ones((0, 3), np.float32))


def test_max_over_kept_empty_dim_is_empty():
    """Only a reduced empty axis is an error: max over axis 0 of (3, 0) is just empty."""
    actual, _ = _check(lambda x: hg.max(x, axis=0), (3, 0), "float32", np.zeros((3, 0), np.float32))
    assert actual.shape == (0,)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_max_min_initial_over_a_dim_of_unknown_size(axis):
    # the reduced dim may be empty at run time: initial is NumPy's result then
    x = hg.tensor("x", (None, 3), "float32")
    g = hg.Graph([x], [hg.max(x, axis=axis, initial=-1.0), hg.min(x, axis=axis, initial=2)])
    for v in (np.zeros((0, 3), np.float32), np.arange(6, dtype=np.float32).reshape(2, 3) - 3):
        compiled, ref = compare_with_perform(g, [v])
        want = [np.max(v, axis=axis, initial=-1.0), np.min(v, axis=axis, initial=2)]
        for got, w in zip(ref, want):
            np.testing.assert_array_equal(got, w)
            assert np.asarray(got).dtype == w.dtype
