"""Statistics builders: compiled results against perform (``compare_with_perform``) and
against NumPy itself, over dtypes, axes, 0-d and size-0 shapes, NaN/inf, and the errors."""

import warnings

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import statistics as m
from hlograph.tests.helpers import check_against_numpy, random_array, results_everywhere


def _numpy(fn, *args, **kw):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kw)


def with_nans(rng, shape, dtype, frac=0.3):
    x = random_array(rng, shape, dtype)
    if x.size:
        x[rng.random(shape) < frac] = np.nan
    return x


# --- nan reductions ---------------------------------------------------------------------
NAN_RED = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"]
SHAPES = [((), None, False), ((3, 4), None, False), ((3, 4), -1, True), ((2, 3, 4), (0, -1), False),
          ((0, 3), 1, False), ((4, 0), 0, True)]


@pytest.mark.parametrize("name", NAN_RED)
@pytest.mark.parametrize("shape,axis,keepdims", SHAPES)
def test_nan_reductions_float(rng, name, shape, axis, keepdims):
    x = with_nans(rng, shape, "float64")
    if x.size > 4:
        x.reshape(-1)[:shape[-1]] = np.nan  # an all-NaN slice along the last axis
        x.reshape(-1)[-1] = np.inf
    fn, ref = getattr(m, name), getattr(np, name)
    if name in ("nanmax", "nanmin") and 0 in shape:
        ax = (0, 1) if axis is None else (axis,) if isinstance(axis, int) else axis
        if any(shape[a] == 0 for a in ax):
            with pytest.raises(ValueError):
                fn(hg.tensor("x", shape, "float64"), axis=axis, keepdims=keepdims)
            return
    check_against_numpy(lambda v: fn(v, axis=axis, keepdims=keepdims), [x],
                        _numpy(ref, x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", NAN_RED)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_nan_reductions_dtypes(rng, name, dtype):
    if name in ("nanvar", "nanstd", "nanmean") and dtype == "bool":
        dtype = "int8"
    x = with_nans(rng, (3, 5), dtype) if dtype == "float32" else random_array(rng, (3, 5), dtype)
    fn, ref = getattr(m, name), getattr(np, name)
    check_against_numpy(lambda v: fn(v, axis=0), [x], _numpy(ref, x, axis=0))


def test_nan_reductions_dtype_ddof(rng):
    x = with_nans(rng, (4, 3), "float32")
    check_against_numpy(lambda v: m.nansum(v, axis=1, dtype="float64"), [x], np.nansum(x, axis=1, dtype="float64"))
    check_against_numpy(lambda v: m.nanvar(v, axis=0, ddof=2), [x], _numpy(np.nanvar, x, axis=0, ddof=2))
    check_against_numpy(lambda v: m.nanstd(v, ddof=1), [x], _numpy(np.nanstd, x, ddof=1))
    z = (random_array(rng, (3, 4), "complex64")).astype(np.complex64)
    z[0, 1] = np.nan
    check_against_numpy(lambda v: m.nanvar(v, axis=1), [z], _numpy(np.nanvar, z, axis=1))
    check_against_numpy(lambda v: m.nanmean(v, axis=-1), [z], _numpy(np.nanmean, z, axis=-1))


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
@pytest.mark.parametrize("dtype,axis", [("float32", None), ("float64", -1), ("int32", 0)])
def test_nanarg(rng, name, dtype, axis):
    x = with_nans(rng, (3, 4), dtype) if dtype != "int32" else random_array(rng, (3, 4), dtype)
    if dtype != "int32":
        x[:, 0] = np.nan
        x[1, 2] = -np.inf if name == "nanargmax" else np.inf
    check_against_numpy(lambda v: getattr(m, name)(v, axis=axis), [x], getattr(np, name)(x, axis=axis))


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
def test_nanarg_all_nan_raises(rng, name):
    x = random_array(rng, (2, 3), "float32")
    x[1] = np.nan
    v = hg.tensor("x", (2, 3), "float32")
    g = hg.Graph([v], getattr(m, name)(v, axis=1))
    with pytest.raises(ValueError, match="All-NaN"):
        getattr(np, name)(x, axis=1)
    with pytest.raises(ValueError, match="All-NaN"):
        hg.compile(g)(x)
    with pytest.raises(ValueError, match="All-NaN"):
        hg.evaluate(g, x)


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_nanarg_complex_orders_lexicographically(rng, name, dtype, axis):
    # NumPy fills NaNs (a NaN part) with -inf + 0j (+inf + 0j) and takes argmax (argmin)
    parts = [1.0, 2.0, -1.0, np.inf, -np.inf, np.nan]
    x = np.empty((3, 5), dtype)
    x.real, x.imag = rng.choice(parts, size=(3, 5)), rng.choice([0.0, 1.0, -1.0, np.nan, np.inf], size=(3, 5))
    x[:, 1] = [complex(2, 1), complex(2, -1), complex(-np.inf, 3)]
    x[:, 2] = [complex(2, 3), complex(np.nan, 9), complex(-np.inf, -3)]
    x[:, 3] = [complex(1, np.nan), complex(-1, 0), complex(5, np.nan)]
    _all_paths(lambda v: getattr(hg, name)(v, axis=axis), x, getattr(np, name)(x, axis=axis))


def test_nanmean_of_bfloat16_skips_nans_where_numpys_does_not():
    # NumPy's nan* functions replace NaNs only in numpy.inexact types, which ml_dtypes'
    # bfloat16 is not, so np.nanmean keeps them: hlograph skips them as for float16
    # (README, "NumPy semantics: the documented differences")
    import ml_dtypes

    bf = np.dtype(ml_dtypes.bfloat16)
    x = np.array([[1.5, np.nan, 2.5], [np.nan, np.nan, -0.5]], bf)
    with np.errstate(invalid="ignore"):
        assert np.isnan(np.nanmean(x))
        for fn, kw in (("nanmean", {}), ("nansum", {}), ("nanmean", {"axis": 1}), ("nanvar", {"axis": 0})):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = getattr(np, fn)(x.astype(np.float32), **kw).astype(bf)
            _all_paths(lambda v: getattr(hg, fn)(v, **kw), x, want)


@pytest.mark.parametrize("name", ["nancumsum", "nancumprod"])
@pytest.mark.parametrize("dtype,axis", [("float32", None), ("float64", -2), ("int32", 1), ("bool", 0)])
def test_nancum(rng, name, dtype, axis):
    x = with_nans(rng, (3, 4), dtype) if "float" in dtype else random_array(rng, (3, 4), dtype)
    check_against_numpy(lambda v: getattr(m, name)(v, axis=axis), [x], getattr(np, name)(x, axis=axis))


# --- quantiles --------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
@pytest.mark.parametrize("q", [0.3, [0.0, 0.25, 0.5, 1.0], 1])
def test_quantile_methods(rng, method, q):
    x = random_array(rng, (4, 7), "float32")
    x[2, 3] = np.nan
    check_against_numpy(lambda v: m.quantile(v, q, axis=-1, method=method), [x],
                        np.quantile(x, q, axis=-1, method=method))


@pytest.mark.parametrize("shape,axis,keepdims", [((), None, False), ((6,), None, True),
                                                 ((3, 4, 5), (0, 2), False), ((3, 4, 5), (0, -1), True),
                                                 ((3, 0), 0, False)])
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_quantile_shapes(rng, shape, axis, keepdims, dtype):
    x = random_array(rng, shape, dtype)
    q = np.array([0.1, 0.9])
    check_against_numpy(lambda v: m.quantile(v, q, axis=axis, keepdims=keepdims), [x],
                        np.quantile(x, q, axis=axis, keepdims=keepdims))
    check_against_numpy(lambda v: m.percentile(v, 42.0, axis=axis, keepdims=keepdims), [x],
                        np.percentile(x, 42.0, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("method", ["linear", "lower", "nearest", "midpoint"])
@pytest.mark.parametrize("q", [0.4, [0.0, 0.5, 1.0]])
def test_nanquantile(rng, method, q):
    x = with_nans(rng, (5, 6), "float32", frac=0.4)
    x[1] = np.nan
    x[2, :5] = np.nan
    x[0, 0] = 0.25  # NumPy takes the result dtype from the first slice, which must not be all-NaN
    check_against_numpy(lambda v: m.nanquantile(v, q, axis=1, method=method), [x],
                        _numpy(np.nanquantile, x, q, axis=1, method=method))
    check_against_numpy(lambda v: m.nanpercentile(v, np.asarray(q) * 100, axis=0, method=method, keepdims=True), [x],
                        _numpy(np.nanpercentile, x, np.asarray(q) * 100, axis=0, method=method, keepdims=True))


@pytest.mark.parametrize("fn", ["median", "nanmedian"])
@pytest.mark.parametrize("shape,axis,keepdims,dtype", [
    ((), None, False, "float64"), ((7,), None, False, "float32"), ((4, 6), -1, True, "float32"),
    ((4, 5), 0, False, "int32"), ((2, 3, 4), (0, 2), False, "float64"), ((2, 3, 4), None, True, "float64"),
    ((0, 3), 0, False, "float64"), ((3, 4), 1, False, "bool")])
def test_median(rng, fn, shape, axis, keepdims, dtype):
    x = random_array(rng, shape, dtype)
    if dtype.startswith("float") and x.size > 3:
        x.reshape(-1)[1] = np.nan
        if x.ndim == 2:
            x[0] = np.nan
    check_against_numpy(lambda v: getattr(m, fn)(v, axis=axis, keepdims=keepdims), [x],
                        _numpy(getattr(np, fn), x, axis=axis, keepdims=keepdims))


def _all_paths(build, x, want, shape=None):
    """hg.evaluate and the O0 and O2 compilations of ``build`` equal NumPy's ``want``."""
    from hlograph.testing.fuzz import compare

    v = hg.tensor("x", x.shape if shape is None else shape, x.dtype)
    g = hg.Graph([v], build(v))
    for where, got in results_everywhere(g, x):
        msg = compare(np.asarray(got), np.asarray(want))
        assert msg is None, f"{where}: {msg}"


@pytest.mark.parametrize("fn", ["median", "nanmedian"])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [1, -2, 0])
def test_median_of_empty_input_with_unknown_dims(fn, axis, keepdims):
    # an unknown dim beside a zero-size one: the result keeps the shapes NumPy gives
    x = np.zeros((0, 3, 2), np.uint32)
    _all_paths(lambda v: getattr(hg, fn)(v, axis=axis, keepdims=keepdims), x,
               _numpy(getattr(np, fn), x, axis=axis, keepdims=keepdims), shape=(0, 3, None))


def _complex_with_nans(rng, shape, dtype):
    x = (rng.normal(size=shape) + 1j * rng.normal(size=shape)).round(1).astype(dtype)
    flat = x.reshape(-1)
    for i, v in zip(rng.choice(flat.size, min(flat.size, 4), replace=False),
                    [complex(np.nan, 1), complex(2, np.nan), complex(np.inf, -1), complex(np.nan, np.nan)]):
        flat[i] = v
    return x


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("fn", ["nanmax", "nanmin", "median", "nanmedian"])
@pytest.mark.parametrize("shape,axis,keepdims", [((7,), None, False), ((3, 5), -1, True), ((3, 5), 0, False),
                                                 ((2, 3, 4), None, True), ((2, 3, 4), (0, 2), False)])
def test_complex_nan_extrema_and_medians(rng, dtype, fn, shape, axis, keepdims):
    # NumPy orders complex numbers lexicographically; nanmax/nanmin are fmax/fmin
    # reductions (an all-NaN slice keeps its first element), median gives the slice's last
    # sorted value where it holds a NaN part, nanmedian skips those
    x = _complex_with_nans(rng, shape, dtype)
    _all_paths(lambda v: getattr(hg, fn)(v, axis=axis, keepdims=keepdims), x,
               _numpy(getattr(np, fn), x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("fn", ["nanmax", "nanmin", "nanmedian"])
@pytest.mark.parametrize("axis", [None, 1])
def test_complex_all_nan_slices(fn, axis):
    # nanmedian's all-NaN slice is the slice's last element when NumPy reduces to one
    # dimension (axis=None), else nan + 0j; nanmax/nanmin keep the first element
    x = np.array([[complex(np.nan, 1), complex(2, np.nan), complex(np.nan, 3)],
                  [1 + 1j, complex(np.nan, 0), 3 - 1j]], np.complex128)
    if axis is None:
        x[1] = x[0]
    _all_paths(lambda v: getattr(hg, fn)(v, axis=axis), x, _numpy(getattr(np, fn), x, axis=axis))


def test_quantile_constant_q(rng):
    x = random_array(rng, (3, 8), "float64")
    q = np.array([0.2, 0.7])
    check_against_numpy(lambda v: m.quantile(v, hg.constant(q), axis=1), [x], np.quantile(x, q, axis=1))


def test_quantile_errors():
    x = hg.tensor("x", (3,), "float32")
    with pytest.raises(ValueError, match="nanquantile: the size of axis 0 must be known"):
        m.nanquantile(hg.tensor("u", (None, 3)), 0.5, axis=1)
    with pytest.raises(ValueError, match="quantile"):
        m.quantile(x, 1.5)
    with pytest.raises(ValueError, match="percentile"):
        m.percentile(x, -1.0)
    with pytest.raises(ValueError, match="method"):
        m.quantile(x, 0.5, method="hazen")
    with pytest.raises(NotImplementedError, match="q must be"):
        m.quantile(x, hg.tensor("q", (), "float64"))
    with pytest.raises(TypeError, match="quantile"):
        m.quantile(hg.tensor("z", (3,), "complex64"), 0.5)
    with pytest.raises(NotImplementedError, match="weights"):
        m.quantile(x, 0.5, weights=[1, 2, 3])


# --- averages and spreads ---------------------------------------------------------------
@pytest.mark.parametrize("dtype,wdtype,axis,returned", [
    ("float32", None, None, False), ("int32", None, 1, True), ("float32", "float32", None, True),
    ("float64", "float64", -1, False), ("int32", "float32", 0, True), ("float32", "int32", (0, 1), False)])
def test_average(rng, dtype, wdtype, axis, returned):
    x = random_array(rng, (3, 4), dtype)
    arrays = [x]
    if wdtype is None:
        check_against_numpy(lambda v: m.average(v, axis=axis, returned=returned), arrays,
                            np.average(x, axis=axis, returned=returned))
        return
    wshape = (3, 4) if axis is None or isinstance(axis, tuple) else (x.shape[axis],)
    w = random_array(rng, wshape, wdtype, "positive")
    check_against_numpy(lambda v, u: m.average(v, axis=axis, weights=u, returned=returned), [x, w],
                        np.average(x, axis=axis, weights=w, returned=returned))


def test_average_keepdims_and_errors(rng):
    x = random_array(rng, (3, 4), "float64")
    w = random_array(rng, (4,), "float64", "positive")
    check_against_numpy(lambda v, u: m.average(v, axis=1, weights=u, keepdims=True), [x, w],
                        np.average(x, axis=1, weights=w, keepdims=True))
    with pytest.raises(TypeError, match="average"):
        m.average(hg.tensor("x", (3, 4)), weights=hg.tensor("w", (4,)))
    with pytest.raises(ValueError, match="average"):
        m.average(hg.tensor("x", (3, 4)), axis=0, weights=hg.tensor("w", (4,)))


def _everywhere(build, arrays, shapes, want):
    """hg.evaluate and the O0 and O2 compilations of ``build`` on inputs of ``shapes`` (None:
    a dim known only at call time) equal NumPy's ``want`` (an array, or a tuple of them)."""
    from hlograph.testing.fuzz import compare

    vs = [hg.tensor(f"x{i}", s, a.dtype) for i, (a, s) in enumerate(zip(arrays, shapes))]
    out = build(*vs)
    g = hg.Graph(vs, list(out) if isinstance(out, tuple) else out)
    wants = want if isinstance(want, tuple) else (want,)
    for where, got in results_everywhere(g, *arrays):
        got = tuple(got) if isinstance(want, tuple) else (got,)
        assert len(got) == len(wants), where
        for i, (o, w) in enumerate(zip(got, wants)):
            msg = compare(np.asarray(o), np.asarray(w))
            assert msg is None, f"{where} output {i}: {msg}"


@pytest.mark.parametrize("shape,shapes,axis,wshape,returned,keepdims", [
    ((4, 3), [(None, 3), (3,)], 1, (3,), True, False),
    ((4, 3), [(None, 3), (None,)], 0, (4,), True, True),
    ((4, 3), [(None, None), (None, None)], None, (4, 3), True, False),
    ((2, 3, 4), [(None, 3, None), (None, 4)], (0, 2), (2, 4), False, False),
    ((4, 3), [(None, 3)], 0, None, True, False),
    ((4, 3), [(None, 3)], 1, None, True, True),
    ((2, 3, 4), [(None, 3, None)], None, None, True, False),
    ((2, 3, 4), [(None, 3, None)], (0, 2), None, True, False),
], ids=str)
def test_average_with_unknown_dims(rng, shape, shapes, axis, wshape, returned, keepdims):
    # weights along the axes broadcast to a's run-time shape; returned's count or sum of
    # weights takes the result's run-time shape
    x = random_array(rng, shape, "float64")
    arrays = [x] if wshape is None else [x, random_array(rng, wshape, "float64", "positive")]
    kw = dict(axis=axis, returned=returned, keepdims=keepdims)
    want = np.average(*arrays[:1], weights=arrays[1] if wshape else None, **kw)
    _everywhere(lambda v, *u: m.average(v, weights=u[0] if u else None, **kw), arrays, shapes, want)


@pytest.mark.parametrize("shapes", [[(2, 3, 4), (4, 2)], [(None, 3, None), (4, None)]], ids=str)
def test_average_weights_follow_the_order_of_axis(rng, shapes):
    # numpy.average: weights of shape (a.shape[2], a.shape[0]) for axis=(2, 0)
    x = random_array(rng, (2, 3, 4), "float64")
    w = random_array(rng, (4, 2), "float64", "positive")
    _everywhere(lambda v, u: m.average(v, axis=(2, 0), weights=u, returned=True), [x, w], shapes,
                np.average(x, axis=(2, 0), weights=w, returned=True))


@pytest.mark.parametrize("dtype", ["float32", "int16", "uint8"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (-1, True), ((0, 1), False)])
def test_ptp(rng, dtype, axis, keepdims):
    x = random_array(rng, (3, 4), dtype)
    check_against_numpy(lambda v: m.ptp(v, axis=axis, keepdims=keepdims), [x], np.ptp(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "complex64"])
@pytest.mark.parametrize("shape,axis,keepdims", [((), None, False), ((3, 4), None, False),
                                                 ((3, 4), -1, True), ((0, 2), 0, False)])
def test_count_nonzero(rng, dtype, shape, axis, keepdims):
    x = random_array(rng, shape, dtype, "small_int") if dtype == "int32" else random_array(rng, shape, dtype)
    if x.size and dtype != "bool":
        x.reshape(-1)[0] = 0
    ref = np.asarray(np.count_nonzero(x, axis=axis, keepdims=keepdims), dtype=np.int64)
    check_against_numpy(lambda v: m.count_nonzero(v, axis=axis, keepdims=keepdims), [x], ref)


@pytest.mark.parametrize("shape,yshape,rowvar,ddof,bias,dtype", [
    ((3, 6), None, True, None, False, "float64"), ((6, 3), None, False, None, True, "float32"),
    ((5,), (5,), True, 2, False, "int32"), ((5,), None, True, None, False, "float64"),
    ((2, 5), (1, 5), True, 0, False, "complex128")])
def test_cov_corrcoef(rng, shape, yshape, rowvar, ddof, bias, dtype):
    x = random_array(rng, shape, dtype)
    arrays = [x] if yshape is None else [x, random_array(rng, yshape, dtype)]
    y = arrays[1] if yshape else None
    if yshape is None:
        check_against_numpy(lambda v: m.cov(v, rowvar=rowvar, bias=bias, ddof=ddof), arrays,
                            np.cov(x, rowvar=rowvar, bias=bias, ddof=ddof))
        check_against_numpy(lambda v: m.corrcoef(v, rowvar=rowvar), arrays, np.corrcoef(x, rowvar=rowvar))
    else:
        check_against_numpy(lambda v, u: m.cov(v, u, rowvar=rowvar, bias=bias, ddof=ddof), arrays,
                            np.cov(x, y, rowvar=rowvar, bias=bias, ddof=ddof))
        check_against_numpy(lambda v, u: m.corrcoef(v, u, rowvar=rowvar), arrays, np.corrcoef(x, y, rowvar=rowvar))


@pytest.mark.parametrize("fn", ["cov", "corrcoef"])
@pytest.mark.parametrize("shape,rowvar,dtype", [((None, 3), True, "float64"), ((None, None), True, "float64"),
                                                ((None, None), False, "complex128"), ((4, None), False, "float32")])
def test_cov_corrcoef_with_unknown_dims(rng, fn, shape, rowvar, dtype):
    # the number of observations divides at run time; corrcoef gathers the diagonal of a
    # matrix whose size is known only at run time
    x = random_array(rng, (4, 3), dtype)
    _everywhere(lambda v: getattr(m, fn)(v, rowvar=rowvar), [x], [shape], _numpy(getattr(np, fn), x, rowvar=rowvar))
    if dtype != "complex128":  # (inf times a complex zero part is NaN: rounding in the parts decides)
        # ddof past the number of observations: NumPy scales by 1 / 0 = inf
        _everywhere(lambda v: m.cov(v, rowvar=rowvar, ddof=5), [x], [shape], _numpy(np.cov, x, rowvar=rowvar, ddof=5))


def test_cov_errors():
    with pytest.raises(NotImplementedError, match="cov"):
        m.cov(hg.tensor("x", (2, 3)), fweights=[1, 2, 3])
    with pytest.raises(ValueError, match="cov"):
        m.cov(hg.tensor("x", (2, 3, 4)))


@pytest.mark.parametrize("dtype", ["float32", "int32", "complex64"])
@pytest.mark.parametrize("mode", ["valid", "same", "full"])
def test_correlate(dtype, mode, rng):
    for n, k in [(7, 3), (3, 7), (4, 4), (5, 1), (4, 5)]:
        a, v = random_array(rng, (n,), dtype), random_array(rng, (k,), dtype)
        check_against_numpy(lambda x, y: m.correlate(x, y, mode), [a, v], lambda x, y: np.correlate(x, y, mode),
                            rtol=1e-5, atol=1e-5)
    check_against_numpy(m.correlate, [random_array(rng, (6,), dtype), random_array(rng, (2,), "float64")],
                        rtol=1e-5, atol=1e-5)


def test_correlate_errors():
    f = hg.tensor("f", (3,), "float32")
    with pytest.raises(ValueError, match="correlate"):
        m.correlate(f, f, "middle")
    with pytest.raises(ValueError, match="correlate"):
        m.correlate(hg.tensor("a", (2, 2)), f)


# --- differences, gradients, integrals ----------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "uint8"])
@pytest.mark.parametrize("shape,n,axis", [((5,), 1, -1), ((3, 5), 2, 0), ((3, 5), 3, -1), ((0, 4), 1, 1),
                                          ((4,), 0, 0), ((2, 3), 4, 1)])
def test_diff(rng, dtype, shape, n, axis):
    x = random_array(rng, shape, dtype)
    check_against_numpy(lambda v: m.diff(v, n=n, axis=axis), [x], np.diff(x, n=n, axis=axis))


def test_diff_unknown_dim(rng):
    x = random_array(rng, (5, 3), "float32")
    check_against_numpy(lambda v: m.diff(hg.specify_shape(v, (None, 3)), n=2, axis=0), [x], np.diff(x, n=2, axis=0))
    v = hg.tensor("x", (None, 3), "float32")
    assert m.diff(v, axis=0).shape == (None, 3)


def test_diff_prepend_append(rng):
    x = random_array(rng, (3, 4), "float32")
    p = random_array(rng, (3, 2), "float64")
    check_against_numpy(lambda v, u: m.diff(v, axis=1, prepend=u, append=1.5), [x, p],
                        np.diff(x, axis=1, prepend=p, append=1.5))
    check_against_numpy(lambda v: m.diff(v, axis=0, prepend=0), [x], np.diff(x, axis=0, prepend=0))
    with pytest.raises(ValueError, match="diff"):
        m.diff(hg.tensor("x", ()))
    with pytest.raises(ValueError, match="diff"):
        m.diff(hg.tensor("x", (3,)), n=-1)


@pytest.mark.parametrize("shape,xshape,axis", [((None, 3), (4, 3), 1), ((None, 3), (4, 3), 0),
                                           ((2, None, None), (2, 3, 4), -1), ((None, 0), (2, 0), 1),
                                           ((None, None), (2, 0), 1)], ids=str)
def test_diff_prepend_append_scalars_with_unknown_dims(rng, shape, xshape, axis):
    # a scalar prepend/append becomes one slice along axis, of the other dims' run-time sizes
    x = random_array(rng, xshape, "float32")
    _everywhere(lambda v: m.diff(v, axis=axis, prepend=0.5, append=2), [x], [shape],
                np.diff(x, axis=axis, prepend=0.5, append=2))


@pytest.mark.parametrize("dtype,shape,begin,end", [("float32", (5,), None, None), ("int32", (2, 3), [7, 8], 9),
                                                   ("float64", (1,), -1.0, [2.0]), ("float32", (0,), None, 3)])
def test_ediff1d(rng, dtype, shape, begin, end):
    x = random_array(rng, shape, dtype)
    check_against_numpy(lambda v: m.ediff1d(v, to_end=end, to_begin=begin), [x],
                        np.ediff1d(x, to_end=end, to_begin=begin))


def test_ediff1d_errors():
    with pytest.raises(TypeError, match="ediff1d"):
        m.ediff1d(hg.tensor("x", (3,), "int32"), to_end=1.5)


@pytest.mark.parametrize("dtype,shape,args,axis,edge_order", [
    ("float64", (6,), (), None, 1), ("float32", (4, 5), (0.5,), None, 1), ("int32", (4, 5), (2.0,), -1, 2),
    ("float64", (3, 4, 5), (1.0, 3.0), (0, 2), 2), ("float32", (2, 3), (), 0, 1)])
def test_gradient(rng, dtype, shape, args, axis, edge_order):
    x = random_array(rng, shape, dtype)
    ref = np.gradient(x, *args, axis=axis, edge_order=edge_order)
    check_against_numpy(lambda v: m.gradient(v, *args, axis=axis, edge_order=edge_order), [x], ref)


@pytest.mark.parametrize("dtype,shape,coords,axis,edge_order", [
    ("float64", (6,), ([0.0, 0.5, 1.5, 1.7, 3.0, 4.0],), None, 1),
    ("float64", (5,), ([0, 1, 3, 6, 10],), None, 2),                   # integer coordinates
    ("float32", (4, 5), ([0.0, 1.0, 3.0, 4.0], np.linspace(0, 1, 5)), None, 2),
    ("float64", (3, 4), (0.5, [0.0, 2.0, 4.0, 6.0]), None, 1),        # a scalar and uniform coords
    ("int32", (4, 3), ([1.0, 2.0, 4.0],), 1, 1)], ids=str)
def test_gradient_coordinates(rng, dtype, shape, coords, axis, edge_order):
    # numpy.gradient(f, x): the coordinates along each axis, second-order non-uniform differences
    x = random_array(rng, shape, dtype)
    coords = tuple(np.asarray(c) if np.ndim(c) else c for c in coords)
    ref = np.gradient(x, *coords, axis=axis, edge_order=edge_order)
    check_against_numpy(lambda v: m.gradient(v, *coords, axis=axis, edge_order=edge_order), [x], ref)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_graph_coordinates_and_spacing(rng, edge_order):
    # graph-valued coordinates (an input) and a 0-d graph spacing
    y, xs = random_array(rng, (3, 7), "float64"), np.cumsum(rng.uniform(0.1, 1.0, 7))
    check_against_numpy(lambda v, c: m.gradient(v, c, axis=1, edge_order=edge_order), [y, xs],
                        np.gradient(y, xs, axis=1, edge_order=edge_order))
    check_against_numpy(lambda v, d: m.gradient(v, d, axis=0, edge_order=edge_order), [y, np.float64(0.3)],
                        np.gradient(y, 0.3, axis=0, edge_order=edge_order))


def test_gradient_errors():
    with pytest.raises(ValueError, match="gradient"):
        m.gradient(hg.tensor("x", (2,)), edge_order=2)
    with pytest.raises(ValueError, match="must match the length"):
        m.gradient(hg.tensor("x", (3,)), [0.0, 1.0])
    with pytest.raises(ValueError, match="scalars or 1d"):
        m.gradient(hg.tensor("x", (2, 2)), np.ones((2, 2)), axis=0)


@pytest.mark.parametrize("dtype,shape,xkind,axis", [("float64", (6,), None, -1), ("float32", (3, 5), "dx", 0),
                                                    ("int32", (4, 5), "x1d", 1), ("float64", (4, 5), "xnd", -1),
                                                    ("float32", (0,), None, 0)])
def test_trapezoid(rng, dtype, shape, xkind, axis):
    y = random_array(rng, shape, dtype)
    if xkind == "x1d":
        xs = np.sort(random_array(rng, (shape[axis],), "float64"))
        check_against_numpy(lambda v, u: m.trapezoid(v, u, axis=axis), [y, xs], np.trapezoid(y, xs, axis=axis))
    elif xkind == "xnd":
        xs = np.sort(random_array(rng, shape, "float64"), axis=axis)
        check_against_numpy(lambda v, u: m.trapezoid(v, u, axis=axis), [y, xs], np.trapezoid(y, xs, axis=axis))
    elif xkind == "dx":
        check_against_numpy(lambda v: m.trapezoid(v, dx=0.25, axis=axis), [y], np.trapezoid(y, dx=0.25, axis=axis))
    else:
        check_against_numpy(lambda v: m.trapezoid(v, axis=axis), [y], np.trapezoid(y, axis=axis))


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("dtype,shape,axis,out_dtype,initial", [
    ("float32", (5,), None, None, False), ("int8", (3, 4), -1, None, True), ("bool", (3, 4), 0, None, True),
    ("float64", (), None, None, True), ("int32", (2, 0), 1, "float32", True), ("float16", (4,), 0, "float64", False)])
def test_cumulative(rng, name, dtype, shape, axis, out_dtype, initial):
    x = random_array(rng, shape, dtype)
    ref = getattr(np, name)(x, axis=axis, dtype=out_dtype, include_initial=initial)
    check_against_numpy(lambda v: getattr(m, name)(v, axis=axis, dtype=out_dtype, include_initial=initial), [x], ref)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumulative_include_initial_with_unknown_dims(rng, name, axis):
    # the initial slice takes its shape from the values when a dim is unknown
    x = hg.tensor("x", (3, None, 3), "complex128")
    g = hg.Graph([x], getattr(m, name)(x, axis=axis, include_initial=True))
    for n in (2, 0):
        a = random_array(rng, (3, n, 3), "complex128")
        ref = getattr(np, name)(a, axis=axis, include_initial=True)
        for got in (hg.evaluate(g, a), hg.compile(g)(a)):
            assert got.shape == ref.shape and got.dtype == ref.dtype
            np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_cumulative_errors():
    with pytest.raises(ValueError, match="cumulative_sum"):
        m.cumulative_sum(hg.tensor("x", (2, 3)))


# --- binning and interpolation ---------------------------------------------------------
@pytest.mark.parametrize("dtype,shape,bins,rng_,density,weighted", [
    ("float64", (50,), 10, None, None, False), ("float32", (7, 9), 5, (-1.0, 2.0), False, True),
    ("int32", (40,), 4, None, True, False), ("float32", (30,), [-3.0, -1.0, 0.0, 0.5, 4.0], None, True, True),
    ("int32", (20,), 6, (0, 4), False, False), ("float64", (0,), 3, None, False, False)])
def test_histogram(rng, dtype, shape, bins, rng_, density, weighted):
    x = random_array(rng, shape, dtype)
    if dtype == "float32" and x.size:
        x.reshape(-1)[0] = 0.5  # on an edge
    arrays = [x]
    w = None
    if weighted:
        w = random_array(rng, shape, "float32", "positive")
        arrays.append(w)
    ref = np.histogram(x, bins=bins, range=rng_, density=density, weights=w)
    if weighted:
        # float32 weights: NumPy sums them in another order
        check_against_numpy(lambda v, u: m.histogram(v, bins=bins, range=rng_, density=density, weights=u), arrays, ref,
                            rtol=1e-5, atol=1e-6)
    else:
        check_against_numpy(lambda v: m.histogram(v, bins=bins, range=rng_, density=density), arrays, ref)


def test_histogram_constant_data():
    x = np.full((5,), 3.0, np.float32)
    check_against_numpy(lambda v: m.histogram(v, bins=4), [x], np.histogram(x, bins=4))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_histogram_autodetected_range_not_finite(bad):
    x = np.array([1.0, bad, 2.0])
    with pytest.raises(ValueError, match="range"):
        np.histogram(x, bins=3)
    v = hg.tensor("x", (3,), "float64")
    g = hg.Graph([v], list(m.histogram(v, bins=3)))
    with pytest.raises(ValueError, match="histogram: autodetected range"):
        hg.compile(g)(x)
    with pytest.raises(ValueError, match="histogram: autodetected range"):
        hg.evaluate(g, x)
    ok = np.array([1.0, bad, 2.0])  # with a range, non-finite values are left out
    check_against_numpy(lambda u: m.histogram(u, bins=3, range=(0.0, 3.0)), [ok],
                        np.histogram(ok, bins=3, range=(0.0, 3.0)))


def test_histogram_errors():
    x = hg.tensor("x", (4,))
    with pytest.raises(ValueError, match="histogram"):
        m.histogram(x, bins=0)
    with pytest.raises(ValueError, match="histogram"):
        m.histogram(x, bins=[3.0, 1.0])
    with pytest.raises(ValueError, match="histogram"):
        m.histogram(x, bins=3, range=(2.0, 1.0))
    with pytest.raises(NotImplementedError, match="histogram"):
        m.histogram(x, bins="auto")


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("bins", [[-2.0, -0.5, 0.0, 1.0, 3.0], [3, 1, 0, -2], [0.0]])
@pytest.mark.parametrize("right", [False, True])
def test_digitize(rng, dtype, bins, right):
    x = random_array(rng, (3, 5), dtype)
    x[0, :2] = (bins[0], bins[-1])
    check_against_numpy(lambda v: m.digitize(v, bins, right=right), [x], np.digitize(x, bins, right=right))


@pytest.mark.parametrize("bins", [[-2.0, 0.0, 1.0, 3.0], [3.0, 1.0, 0.0, -2.0]])
def test_digitize_graph_bins(rng, bins):
    x = random_array(rng, (7,), "float64")
    b = np.asarray(bins)
    check_against_numpy(lambda v, u: m.digitize(v, u), [x, b], np.digitize(x, b))
    with pytest.raises(ValueError, match="digitize"):
        m.digitize(hg.tensor("x", (3,)), [1.0, 0.0, 2.0])


@pytest.mark.parametrize("xdtype,pdtype,left,right,n", [
    ("float64", "float64", None, None, 6), ("float32", "float32", -9.0, 9.0, 5), ("int32", "int32", None, 0.5, 4),
    ("float64", "float32", None, None, 1)])
def test_interp(rng, xdtype, pdtype, left, right, n):
    x = random_array(rng, (4, 6), xdtype) * (2 if xdtype != "int32" else 1)
    xp = np.sort(random_array(rng, (n,), pdtype))
    fp = random_array(rng, (n,), pdtype)
    if xdtype.startswith("float"):
        x[0, 0] = np.nan
        x[0, 1] = xp[0]
        x[0, 2] = xp[-1]
    check_against_numpy(lambda v, a, b: m.interp(v, a, b, left=left, right=right), [x, xp, fp],
                        np.interp(x, xp, fp, left=left, right=right))


def test_interp_inf_and_errors(rng):
    xp = np.array([0.0, 1.0, 2.0, 3.0])
    fp = np.array([0.0, np.inf, np.inf, 1.0])
    x = np.array([0.5, 1.0, 1.5, 2.5, 3.0, -1.0, 4.0])
    check_against_numpy(lambda v, a, b: m.interp(v, a, b), [x, xp, fp], np.interp(x, xp, fp))
    with pytest.raises(NotImplementedError, match="interp"):
        m.interp(hg.tensor("x", (3,)), [0.0, 1.0], [1.0, 2.0], period=1.0)
    with pytest.raises(ValueError, match="interp"):
        m.interp(hg.tensor("x", (3,)), [0.0, 1.0], [1.0, 2.0, 3.0])


def test_names_are_new():
    for name in m.__all__:
        assert getattr(hg, name, None) in (None, getattr(m, name)), name


@pytest.mark.parametrize("fn", ["median", "nanmedian"])
def test_median_infinities(fn):
    x = np.array([[-np.inf, 2.0, np.inf], [1.0, np.inf, np.nan], [np.inf, np.inf, 3.0],
                  [np.nan, np.nan, np.nan]], np.float32)
    check_against_numpy(lambda v: getattr(m, fn)(v, axis=1), [x], _numpy(getattr(np, fn), x, axis=1))


@pytest.mark.parametrize("shape,dtype,axis,keepdims", [((4, 3, 0), "uint8", None, False),
                                                        ((4, 3, 0), "float32", 2, True),
                                                        ((4, 3, 0), "float32", 0, False),
                                                        ((0,), "float16", None, False),
                                                        ((0,), "bool", 0, False)])
def test_nanquantile_of_an_empty_array_is_its_nanmean(shape, dtype, axis, keepdims):
    # NumPy's nanquantile/nanpercentile of an empty array return nanmean's NaN (quantile raises)
    x = np.zeros(shape, dtype)
    for fn, q in ((m.nanquantile, 0.25), (m.nanpercentile, 50.0)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(np, fn.__name__)(x, q, axis=axis, keepdims=keepdims)
        check_against_numpy(lambda v: fn(v, q, axis=axis, keepdims=keepdims), [x], want)


# --- axis 0 / -1 on 0-d inputs ------------------------------------------------------------
# NumPy's ufunc reductions accept an int axis 0 or -1 on a 0-d input and reduce nothing;
# cumsum/cumprod/argpartition ravel it first; mean, median, sort, flip and tuple axes raise.
ZERO_D_ACCEPTS = ["sum", "prod", "max", "min", "amax", "amin", "all", "any", "argmax", "argmin",
                  "count_nonzero", "ptp", "nansum", "nanprod", "nanmax", "nanmin", "nanmean",
                  "nanvar", "nanstd", "nanargmax", "nanargmin", "cumsum", "cumprod", "nancumsum",
                  "nancumprod", "squeeze"]


NO_KEEPDIMS = {"cumsum", "cumprod", "nancumsum", "nancumprod", "squeeze"}


@pytest.mark.parametrize("name,keepdims", [(n, False) for n in ZERO_D_ACCEPTS]
                         + [(n, True) for n in ZERO_D_ACCEPTS if n not in NO_KEEPDIMS])
@pytest.mark.parametrize("axis", [0, -1])
def test_axis_0_and_minus_1_on_0d_inputs(name, axis, keepdims):
    kw = {"axis": axis, **({"keepdims": True} if keepdims else {})}
    x = np.array(-2.5)
    expected = _numpy(getattr(np, name), x, **kw)
    check_against_numpy(lambda v: getattr(hg, name)(v, **kw), [x], expected)


@pytest.mark.parametrize("call", [lambda v: hg.argpartition(v, 0, axis=-1),
                                  lambda v: hg.argpartition(v, 0, axis=0)])
def test_argpartition_of_0d_input_ravels_as_numpy(call):
    check_against_numpy(call, [np.array(3.0)], np.argpartition(np.array(3.0), 0))


@pytest.mark.parametrize("call", [lambda v: hg.mean(v, axis=0), lambda v: hg.sum(v, axis=(0,)),
                                  lambda v: hg.sum(v, axis=1), lambda v: hg.squeeze(v, axis=(0,)),
                                  lambda v: hg.sort(v, axis=-1), lambda v: hg.median(v, axis=0),
                                  lambda v: hg.cumsum(v, axis=1), lambda v: hg.flip(v, axis=0)])
def test_axes_numpy_refuses_on_0d_inputs_are_errors(call):
    with pytest.raises(ValueError, match="out of bounds|0-d"):
        call(hg.tensor("x", (), "float64"))
