"""Statistics with NumPy 2 names and semantics (NumPy's "Statistics" routines and
the NaN-aware sums, products and differences), composed from the Op families.

The ``nan*`` reductions ignore NaNs (``nanmax``/``nanmin`` of an all-NaN slice
give NaN, ``nanargmax``/``nanargmin`` raise ``CheckError``, a ValueError, at run
time as NumPy raises); integer and bool inputs behave as the plain reductions.
``median``/``quantile``/``percentile`` sort along the reduced axes and
interpolate (methods ``linear``, ``lower``, ``higher``, ``nearest``,
``midpoint``; ``q`` a static scalar or 1-d constant); their ``nan*`` versions
count the non-NaN values of each slice at run time. ``histogram`` has a static
output shape: ``bins`` is an int (edges from ``range`` or from the data's
min/max at run time) or a constant array of edges. ``digitize`` and ``interp``
use ``searchsorted``; ``correlate`` is a convolution. Result dtypes are NumPy's.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ..graph import Constant, Variable
from ..types import DTYPES, as_dtype, is_complex, is_float
from ..ops import assertion as asrt
from ..ops import elemwise as ew
from ..ops import indexing as ix
from ..ops import reduction as rd
from ..ops import shape as sh
from ..ops import sort as srt
from ..ops.basic import as_variable, normalize_axes, normalize_axis, result_type, scalar_reduction_axis
from ..ops.conv import ConvGeneralDilated, sequence_operands
from ..ops.linalg import matmul
from .creation import linspace
from .manipulation import flip

__all__ = [
    "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanargmax",
    "nanargmin", "nancumsum", "nancumprod", "median", "nanmedian", "percentile",
    "nanpercentile", "quantile", "nanquantile", "average", "ptp", "count_nonzero", "cov",
    "corrcoef", "correlate", "diff", "ediff1d", "gradient", "trapezoid", "cumulative_sum",
    "cumulative_prod", "histogram", "digitize", "interp",
]

_F64 = DTYPES["float64"]
_I64 = DTYPES["int64"]
_BOOL = DTYPES["bool"]


# --- helpers ---------------------------------------------------------------------------
def _inexact(dt: np.dtype) -> bool:
    return is_float(dt) or is_complex(dt)


def _real_dtype(dt: np.dtype) -> np.dtype:
    return np.finfo(dt).dtype if is_complex(dt) else dt


def _axes(axis: Any, ndim: int, name: str) -> tuple[int, ...]:
    if axis is not None and not isinstance(axis, (int, np.integer, tuple, list)) or isinstance(axis, bool):
        raise TypeError(f"{name}: axis must be None, an int or a tuple of ints, got {axis!r}")
    return tuple(sorted(normalize_axes(axis, ndim, name)))


def _squeeze(x: Variable, axes: tuple[int, ...], keepdims: bool) -> Variable:
    return x if keepdims or not axes else sh.squeeze(x, axes)


def _index(ndim: int, axis: int, entry: Any) -> tuple:
    return (slice(None),) * axis + (entry,) + (slice(None),) * (ndim - axis - 1)


def _static_dim(x: Variable, axis: int, name: str) -> int:
    d = x.shape[axis]
    if d is None:
        raise ValueError(f"{name}: the size of axis {axis} must be known, got shape {tuple(x.shape)}")
    return d


def _nan_to(a: Variable, value: float) -> Variable:
    return ew.where(ew.isnan(a), value, a) if _inexact(a.dtype) else a


def _check_dtype_arg(a: Variable, dtype: Any) -> Variable:
    return a if dtype is None else ew.astype(a, dtype)


# --- nan reductions ------------------------------------------------------------------
def nansum(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, *,
           initial: Any = None, where: Any = True) -> Variable:
    """Sum over ``axis`` treating NaNs as zero, as numpy.nansum (``initial`` and ``where``
    as numpy.sum)."""
    a = _check_dtype_arg(as_variable(a), dtype)
    out = rd.sum(_nan_to(a, 0), axis=axis, keepdims=keepdims, initial=initial, where=where)
    return out if dtype is None else ew.astype(out, dtype)


def nanprod(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, *,
            initial: Any = None, where: Any = True) -> Variable:
    """Product over ``axis`` treating NaNs as one, as numpy.nanprod (``initial`` and
    ``where`` as numpy.prod)."""
    a = _check_dtype_arg(as_variable(a), dtype)
    out = rd.prod(_nan_to(a, 1), axis=axis, keepdims=keepdims, initial=initial, where=where)
    return out if dtype is None else ew.astype(out, dtype)


def _nan_count(a: Variable, axes: tuple[int, ...]) -> Variable:
    """Number of non-NaN elements over ``axes`` (int64, keepdims)."""
    return rd.sum(ew.logical_not(ew.isnan(a)), axis=axes, keepdims=True)


def nanmean(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, *,
            where: Any = True) -> Variable:
    """Mean over ``axis`` of the non-NaN elements, as numpy.nanmean (all-NaN slices: NaN;
    only elements where ``where`` is True count)."""
    a = _check_dtype_arg(as_variable(a), dtype)
    axis = scalar_reduction_axis(axis, a.ndim)
    if not _inexact(a.dtype):
        return rd.mean(a, axis=axis, keepdims=keepdims, where=where)
    axes = _axes(axis, a.ndim, "nanmean")
    tot = rd.sum(_nan_to(a, 0), axis=axes, keepdims=True, where=where)
    cnt = ew.astype(rd.sum(ew.logical_not(ew.isnan(a)), axis=axes, keepdims=True, where=where),
                    _real_dtype(tot.dtype))
    return _squeeze(ew.astype(ew.divide(tot, cnt), a.dtype), axes, keepdims)


def nanvar(a: Any, axis: Any = None, dtype: Any = None, ddof: int | float = 0,
           keepdims: bool = False, *, where: Any = True, mean: Any = None,
           correction: Any = None) -> Variable:
    """Variance over ``axis`` of the non-NaN elements with divisor ``n - ddof``, as
    numpy.nanvar (a divisor <= 0 gives NaN; ints and bool behave as numpy.var;
    ``where``, ``mean`` (the precomputed keepdims mean) and ``correction`` as numpy.nanvar)."""
    if correction is not None:
        if ddof != 0:
            raise ValueError("nanvar: ddof and correction can't be provided simultaneously (as numpy.nanvar)")
        ddof = correction
    a = _check_dtype_arg(as_variable(a), dtype)
    axis = scalar_reduction_axis(axis, a.ndim)
    if not _inexact(a.dtype):
        return rd.var(a, axis=axis, keepdims=keepdims, ddof=ddof, where=where, mean=mean)
    if isinstance(ddof, bool) or not isinstance(ddof, (int, float, np.integer, np.floating)):
        raise TypeError(f"nanvar: ddof must be a real number, got {ddof!r}")
    axes = _axes(axis, a.ndim, "nanvar")
    real = _real_dtype(a.dtype)
    mask = ew.isnan(a) if where is True else ew.logical_or(ew.isnan(a), ew.logical_not(where))
    cnt = rd.sum(ew.logical_not(mask), axis=axes, keepdims=True)
    avg = ew.divide(rd.sum(ew.where(mask, 0, a), axis=axes, keepdims=True), ew.astype(cnt, real))
    if mean is not None:
        avg = as_variable(mean)
    d = ew.where(mask, 0, ew.subtract(a, ew.astype(avg, a.dtype)))
    sq = ew.real(ew.multiply(d, ew.conj(d))) if is_complex(a.dtype) else ew.multiply(d, d)
    dof = ew.subtract(ew.astype(cnt, real), float(ddof))
    var = ew.divide(rd.sum(sq, axis=axes, keepdims=True), dof)
    var = ew.astype(ew.where(ew.less_equal(dof, 0), np.nan, var), real)
    return _squeeze(var, axes, keepdims)


def nanstd(a: Any, axis: Any = None, dtype: Any = None, ddof: int | float = 0,
           keepdims: bool = False, *, where: Any = True, mean: Any = None,
           correction: Any = None) -> Variable:
    """Standard deviation over ``axis`` of the non-NaN elements, as numpy.nanstd
    (``where``, ``mean`` and ``correction`` as numpy.nanstd)."""
    a = _check_dtype_arg(as_variable(a), dtype)
    axis = scalar_reduction_axis(axis, a.ndim)
    if not _inexact(a.dtype):
        return rd.std(a, axis=axis, keepdims=keepdims, ddof=ddof, where=where, mean=mean,
                      correction=correction)
    return ew.sqrt(nanvar(a, axis=axis, ddof=ddof, keepdims=keepdims, where=where, mean=mean,
                          correction=correction))


def _nan_extremum(a: Any, axis: Any, keepdims: bool, name: str, fill: float, fn,
                  initial: Any = None, where: Any = True) -> Variable:
    a = as_variable(a)
    axis = scalar_reduction_axis(axis, a.ndim)
    if not _inexact(a.dtype):
        return fn(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    axes = _axes(axis, a.ndim, name)
    mask = ew.isnan(a)
    if is_complex(a.dtype):  # NumPy's fmax/fmin order complex numbers lexicographically
        fill = complex(fill, fill)
    m = fn(ew.where(mask, fill, a), axis=axes, keepdims=keepdims, initial=initial, where=where)
    if initial is not None:  # NumPy's fmax/fmin with a start value: all-NaN slices give it
        return m
    all_nan: Any = np.nan
    if is_complex(a.dtype):
        # fmax.reduce keeps the slice's first element when every element has a NaN part
        first = tuple(slice(0, 1) if i in axes else slice(None) for i in range(a.ndim))
        all_nan = ix.getitem(a, first)
        if not keepdims:
            all_nan = sh.squeeze(all_nan, axes)
    return ew.where(rd.all(mask, axis=axes, keepdims=keepdims), all_nan, m)


def nanmax(a: Any, axis: Any = None, keepdims: bool = False, *, initial: Any = None,
           where: Any = True) -> Variable:
    """Maximum over ``axis`` ignoring NaNs, as numpy.nanmax (an all-NaN slice gives NaN;
    ``initial`` and ``where`` as numpy.max)."""
    return _nan_extremum(a, axis, keepdims, "nanmax", -np.inf, rd.max, initial, where)


def nanmin(a: Any, axis: Any = None, keepdims: bool = False, *, initial: Any = None,
           where: Any = True) -> Variable:
    """Minimum over ``axis`` ignoring NaNs, as numpy.nanmin (an all-NaN slice gives NaN;
    ``initial`` and ``where`` as numpy.min)."""
    return _nan_extremum(a, axis, keepdims, "nanmin", np.inf, rd.min, initial, where)


def _nan_arg(a: Any, axis: Any, keepdims: bool, name: str, fill: float, fn) -> Variable:
    a = as_variable(a)
    axis = scalar_reduction_axis(axis, a.ndim)
    if not (is_float(a.dtype) or is_complex(a.dtype)):
        return fn(a, axis=axis, keepdims=keepdims)
    # NaNs (complex: a NaN part) become -inf (+inf), complex ones -inf + 0j, as NumPy's
    # fill; complex numbers then compare lexicographically
    mask = ew.isnan(a)
    out = fn(ew.where(mask, fill, a), axis=axis, keepdims=keepdims)
    some = ew.logical_not(rd.all(mask, axis=axis))
    return asrt.check_and_raise(out, some, f"{name}: All-NaN slice encountered")


def nanargmax(a: Any, axis: int | None = None, keepdims: bool = False) -> Variable:
    """Index (int64) of the maximum ignoring NaNs, as numpy.nanargmax (an all-NaN slice
    raises CheckError, a ValueError, at run time)."""
    return _nan_arg(a, axis, keepdims, "nanargmax", -np.inf, rd.argmax)


def nanargmin(a: Any, axis: int | None = None, keepdims: bool = False) -> Variable:
    """Index (int64) of the minimum ignoring NaNs, as numpy.nanargmin (an all-NaN slice
    raises CheckError, a ValueError, at run time)."""
    return _nan_arg(a, axis, keepdims, "nanargmin", np.inf, rd.argmin)


def nancumsum(a: Any, axis: int | None = None, dtype: Any = None) -> Variable:
    """Cumulative sum treating NaNs as zero, as numpy.nancumsum."""
    a = _check_dtype_arg(as_variable(a), dtype)
    out = rd.cumsum(_nan_to(a, 0), axis=axis)
    return out if dtype is None else ew.astype(out, dtype)


def nancumprod(a: Any, axis: int | None = None, dtype: Any = None) -> Variable:
    """Cumulative product treating NaNs as one, as numpy.nancumprod."""
    a = _check_dtype_arg(as_variable(a), dtype)
    out = rd.cumprod(_nan_to(a, 1), axis=axis)
    return out if dtype is None else ew.astype(out, dtype)


# --- quantiles --------------------------------------------------------------------------
_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _to_last(a: Variable, axes: tuple[int, ...], name: str) -> tuple[Variable, tuple]:
    """``a`` with ``axes`` moved last and merged into one; also the keepdims shape."""
    for ax in axes:
        _static_dim(a, ax, name)
    kept = [i for i in range(a.ndim) if i not in axes]
    n = math.prod(a.shape[i] for i in axes)
    y = sh.transpose(a, kept + list(axes)) if kept + list(axes) != list(range(a.ndim)) else a
    y = sh.reshape(y, tuple(-1 if d is None else d for d in (a.shape[i] for i in kept)) + (n,)) \
        if len(axes) != 1 else y
    keep_shape = tuple(1 if i in axes else a.shape[i] for i in range(a.ndim))
    return y, keep_shape


def _quantile_core(a: Any, q: Any, axis: Any, method: str, keepdims: bool, name: str,
                   ignore_nan: bool, scale: float = 1.0) -> Variable:
    a = as_variable(a)
    if is_complex(a.dtype):
        raise TypeError(f"{name}: a must be an array of real numbers, got {a.dtype}")
    if method not in _METHODS:
        raise ValueError(f"{name}: method must be one of {', '.join(map(repr, _METHODS))}, got {method!r}")
    if isinstance(q, Variable):
        if not isinstance(q, Constant):
            raise NotImplementedError(f"{name}: q must be a static scalar or 1-d constant")
        q = q.data
    weak_q = type(q) in (int, float)
    qa = np.asarray(q)
    if qa.dtype.kind not in "iuf" or qa.ndim > 1:
        raise ValueError(f"{name}: q must be a real scalar or 1-d array, got {q!r}")
    qa = qa / scale if scale != 1.0 else qa
    if np.any((qa < 0) | (qa > 1)) or np.any(np.isnan(qa)):
        bound = "[0, 100]" if scale != 1.0 else "[0, 1]"
        raise ValueError(f"{name}: quantiles must be in the range {bound}, got {q!r}")
    axes = _axes(axis, a.ndim, name)
    for i in range(a.ndim):
        _static_dim(a, i, name)
    if ignore_nan and 0 in a.shape:
        # NumPy's nanquantile of an empty array is its nanmean: NaN, without a q dim
        return nanmean(a, axis=axis, keepdims=keepdims)
    if a.dtype == _BOOL:
        raise TypeError(f"{name}: numpy boolean subtract is not supported; cast bool inputs first")
    y, keep_shape = _to_last(a, axes, name)
    n = y.shape[-1]
    nan_ok = is_float(a.dtype)
    s = srt.sort(y, axis=-1)
    rshape = y.shape[:-1]
    nq = qa.size
    qflat = qa.reshape(-1)
    # number of values per slice (int64, shape rshape + (1,))
    if ignore_nan and nan_ok:
        cnt = rd.sum(ew.logical_not(ew.isnan(y)), axis=-1, keepdims=True)
    else:
        cnt = None
    int_q = qa.dtype.kind in "iu"
    linear_like = method in ("linear", "midpoint") and not (method == "linear" and int_q)
    # virtual indexes in float64, shape rshape + (nq,)
    qc = Constant(qflat.astype(_F64))
    if cnt is None:
        nm1 = Constant(np.full((1,) * (len(rshape) + 1), builtins.max(n - 1, 0), _F64))
    else:
        nm1 = ew.astype(ew.subtract(cnt, 1), _F64)
    v = ew.multiply(nm1, qc)
    top = ew.maximum(nm1, 0)
    if method == "lower":
        idx = ew.floor(v)
    elif method == "higher":
        idx = ew.ceil(v)
    elif method == "nearest":
        idx = ew.round(v)
    elif method == "midpoint":
        v = ew.multiply(0.5, ew.add(ew.floor(v), ew.ceil(v)))
        idx = ew.floor(v)
    else:
        idx = ew.floor(v)
    lo = ew.astype(ew.clip(idx, 0, top), _I64)
    if n == 0:
        raise IndexError(f"{name}: cannot take a quantile over an empty axis")
    lo_v = ix.take_along_axis(s, lo, axis=-1)
    if linear_like:
        hi = ew.astype(ew.clip(ew.add(idx, 1), 0, top), _I64)
        hi_v = ix.take_along_axis(s, hi, axis=-1)
        g = ew.subtract(v, idx)
        if method == "midpoint":
            g = ew.where(ew.equal(ew.remainder(v, 1.0), 0), 0.0, 0.5)
        # NumPy sets both neighbours to the last value at the top of the range
        g = ew.where(ew.greater_equal(v, nm1), 0.0, g)
        work = result_type(a, 0.5) if weak_q else result_type(a, qc)
        if weak_q:
            g = ew.astype(g, work)
        diff = ew.subtract(hi_v, lo_v)
        lerp_lo = ew.add(lo_v, ew.multiply(diff, g))
        lerp_hi = ew.subtract(hi_v, ew.multiply(diff, ew.subtract(1, g)))
        res = ew.where(ew.greater_equal(g, 0.5), lerp_hi, lerp_lo)
        res = ew.astype(res, work)
    else:
        res = lo_v
    if nan_ok:
        last = ix.getitem(s, (Ellipsis, slice(n - 1, n)))
        if cnt is None:
            res = ew.where(ew.isnan(last), last, res)
        else:
            res = ew.where(ew.equal(cnt, 0), np.nan, res)
    # res: rshape + (nq,) -> (nq,) + keep/reduced shape
    res = sh.transpose(res, [res.ndim - 1] + list(range(res.ndim - 1))) if res.ndim > 1 else res
    target = keep_shape if keepdims else tuple(rshape)
    target = tuple(-1 if d is None else d for d in target)
    res = sh.reshape(res, ((nq,) if qa.ndim else ()) + target)
    return res


def quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Variable:
    """The ``q``-th quantiles over ``axis``, as numpy.quantile (``q`` static, in [0, 1])."""
    _no_out_weights("quantile", out, weights)
    return _quantile_core(a, q, axis, method, keepdims, "quantile", False)


def nanquantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Variable:
    """The ``q``-th quantiles over ``axis`` ignoring NaNs, as numpy.nanquantile."""
    _no_out_weights("nanquantile", out, weights)
    return _quantile_core(a, q, axis, method, keepdims, "nanquantile", True)


def percentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Variable:
    """The ``q``-th percentiles over ``axis``, as numpy.percentile (``q`` static, in [0, 100])."""
    _no_out_weights("percentile", out, weights)
    return _quantile_core(a, q, axis, method, keepdims, "percentile", False, 100.0)


def nanpercentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                  method: str = "linear", keepdims: bool = False, *, weights: Any = None) -> Variable:
    """The ``q``-th percentiles over ``axis`` ignoring NaNs, as numpy.nanpercentile."""
    _no_out_weights("nanpercentile", out, weights)
    return _quantile_core(a, q, axis, method, keepdims, "nanpercentile", True, 100.0)


def _no_out_weights(name: str, out: Any, weights: Any) -> None:
    if out is not None:
        raise TypeError(f"{name}: out= is not supported (graph values are immutable)")
    if weights is not None:
        raise NotImplementedError(f"{name}: weights are not supported")


def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Variable:
    """Median over ``axis``, as numpy.median (NaN in a slice gives NaN; ints give float64)."""
    _no_out_weights("median", out, None)
    return _median(a, axis, keepdims, "median", False)


def nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Variable:
    """Median over ``axis`` ignoring NaNs, as numpy.nanmedian (all-NaN slices: NaN)."""
    _no_out_weights("nanmedian", out, None)
    return _median(a, axis, keepdims, "nanmedian", True)


def _nan_middle(s: Variable, all_nan: Any = np.nan) -> Variable:
    """The mean of the middle non-NaN values of each row of ``s`` (sorted along its last
    axis, NaNs last); ``all_nan`` for an all-NaN row."""
    cnt = rd.sum(ew.logical_not(ew.isnan(s)), axis=-1, keepdims=True)
    lo = ix.take_along_axis(s, ew.maximum(ew.floor_divide(ew.subtract(cnt, 1), 2), 0), axis=-1)
    hi = ix.take_along_axis(s, ew.floor_divide(cnt, 2), axis=-1) if s.shape[-1] > 1 else lo
    acc = rd.accumulation_dtype(s.dtype)
    lo, hi = ew.astype(lo, acc), ew.astype(hi, acc)
    odd = ew.equal(ew.remainder(cnt, 2), 1)
    if is_complex(s.dtype):
        # NumPy divides the sum of the middle values (one twice) as complex numbers: an
        # infinite part makes the other NaN, as in numpy.mean
        mid = ew.divide(ew.add(lo, ew.where(odd, lo, hi)), complex(2, 0))
    else:
        mid = ew.where(odd, lo, ew.divide(ew.add(lo, hi), 2))
    mid = ew.where(ew.equal(cnt, 0), all_nan, mid)
    return sh.squeeze(ew.astype(mid, s.dtype), -1)


def _complex_nan_last(y: Variable) -> Variable:
    """The element of each row of complex ``y`` (along its last axis) that NumPy's sort puts
    last among those with a NaN part (``x+nanj`` < ``nan+yj`` < ``nan+nanj``, each by its
    other part); only meaningful for rows holding such an element."""
    re, im = ew.real(y), ew.imag(y)
    nan_re, nan_im = ew.isnan(re), ew.isnan(im)
    both = rd.any(ew.logical_and(nan_re, nan_im), axis=-1)
    re_only = ew.logical_and(nan_re, ew.logical_not(nan_im))
    top_im = rd.max(ew.where(re_only, im, -np.inf), axis=-1)
    top_re = rd.max(ew.where(ew.logical_and(nan_im, ew.logical_not(nan_re)), re, -np.inf), axis=-1)
    nan = ew.astype(np.nan, re.dtype)
    last = ew.where(rd.any(re_only, axis=-1), ew.make_complex(nan, top_im, y.dtype),
                    ew.add(ew.astype(top_re, y.dtype), complex(0, np.nan)))
    return ew.where(both, complex(np.nan, np.nan), last)


def _median(a: Any, axis: Any, keepdims: bool, name: str, ignore_nan: bool) -> Variable:
    a = as_variable(a)
    out_dt = rd.float_dtype(a.dtype)
    axes = _axes(axis, a.ndim, name)
    empty = builtins.any(a.shape[i] == 0 for i in axes)
    y, _ = _to_last(a, axes, name)
    n = y.shape[-1]
    cplx = is_complex(a.dtype)
    # NumPy sorts complex numbers with a NaN part after all others: as one NaN they sort last
    key = ew.where(ew.isnan(y), complex(np.nan, np.nan), y) if cplx else y
    if ignore_nan and _inexact(a.dtype) and not empty:
        all_nan: Any = np.nan
        if cplx:
            # an all-NaN slice: NumPy's nanmedian gives the slice's last element when
            # the reduction leaves a 1-d array (or slices of 600 and more), else nan+0j
            flat = len(axes) == a.ndim or (n is not None and n >= 600)
            all_nan = ix.getitem(y, (Ellipsis, slice(-1, None))) if flat else complex(np.nan, 0.0)
        res = ew.astype(_nan_middle(srt.sort(key, axis=-1), all_nan), out_dt)
    elif n == 0:
        res = ew.astype(rd.mean(y, axis=-1), out_dt)
    else:
        s = srt.sort(key, axis=-1)
        k = n // 2
        mid = ix.getitem(s, (Ellipsis, slice(k - 1 if n % 2 == 0 else k, k + 1)))
        res = rd.mean(mid, axis=-1)
        if _inexact(a.dtype):
            # a NaN in the slice: NumPy gives the last of its sorted values
            last = _complex_nan_last(y) if cplx else ix.getitem(s, (Ellipsis, n - 1))
            res = ew.where(rd.any(ew.isnan(y), axis=-1) if cplx else ew.isnan(last),
                           ew.astype(last, res.dtype), res)
        res = ew.astype(res, out_dt)
    # the kept dims lead ``res`` in order: keepdims puts the reduced axes back as ones
    return sh.expand_dims(res, axes) if keepdims else res


# --- averages and spreads -----------------------------------------------------------
def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
            keepdims: bool = False):
    """Weighted average over ``axis``, as numpy.average; ``returned`` also gives the sum of
    the weights (broadcast to the result's shape). A zero sum of weights gives inf/NaN."""
    a = as_variable(a)
    axes = _axes(axis, a.ndim, "average")
    if weights is None:
        avg = rd.mean(a, axis=axes, keepdims=keepdims)
        if not returned:
            return avg
        if all(a.shape[i] is not None for i in axes):
            n = math.prod(a.shape[i] for i in axes)
            if avg.type.is_static:
                return avg, sh.full(avg.shape, n, avg.dtype) if avg.ndim else ew.astype(Constant(n), avg.dtype)
            return avg, sh.full_like(avg, n)
        # unknown dims: a.size / avg.size counted at run time (int64 ones, exact), avg's shape
        n = rd.sum(sh.full_like(a, 1, _I64), axis=axes, keepdims=keepdims)
        return avg, ew.astype(n, avg.dtype)
    w = as_variable(weights)
    if a.dtype.kind in "iub":
        dt = result_type(a, w, Constant(np.float64(0)))
    else:
        dt = result_type(a, w)
    if not _same_shape(w.shape, a.shape):
        if axis is None:
            raise TypeError("average: axis must be given when the shapes of a and weights differ")
        # weights' dims follow the order of ``axis`` as given (numpy transposes them)
        given = normalize_axes(axis, a.ndim, "average")
        if w.ndim != len(given) or not _same_shape(w.shape, tuple(a.shape[i] for i in given)):
            raise ValueError("average: shape of weights must be consistent with the shape of a "
                             "along the given axis")
        order = tuple(int(i) for i in np.argsort(given))
        if order != tuple(range(len(order))):
            w = sh.transpose(w, order)
        kept = tuple(i for i in range(a.ndim) if i not in given)
        if kept:
            w = sh.expand_dims(w, kept)
        w = sh.full_like(a, w, dtype=dt)  # broadcast to a's shape, known or not
    w = ew.astype(w, dt)
    scl = rd.sum(w, axis=axes, keepdims=keepdims)
    avg = ew.divide(rd.sum(ew.multiply(ew.astype(a, dt), w), axis=axes, keepdims=keepdims), scl)
    avg = ew.astype(avg, dt)
    if returned:
        return avg, ew.astype(scl, dt)
    return avg


def _same_shape(s: tuple, t: tuple) -> bool:
    """Whether shapes ``s`` and ``t`` may be equal: same rank, and equal where both dims
    are known."""
    return len(s) == len(t) and all(a is None or b is None or a == b for a, b in zip(s, t))


def ptp(a: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """Range (maximum minus minimum) over ``axis``, as numpy.ptp."""
    a = as_variable(a)
    if a.dtype == _BOOL:
        raise TypeError("ptp: numpy boolean subtract is not supported; cast bool inputs first")
    return ew.subtract(rd.max(a, axis=axis, keepdims=keepdims), rd.min(a, axis=axis, keepdims=keepdims))


def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> Variable:
    """Number (int64) of nonzero elements over ``axis``, as numpy.count_nonzero."""
    a = as_variable(a)
    return rd.sum(ew.not_equal(a, 0) if a.dtype != _BOOL else a, axis=axis, keepdims=keepdims)


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> Variable:
    """Covariance matrix of the variables in the rows (``rowvar``) or columns of ``m``
    (and ``y``), as numpy.cov; 1-d input gives a 0-d result."""
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov: fweights and aweights are not supported")
    if ddof is not None and (isinstance(ddof, bool) or not isinstance(ddof, (int, np.integer))):
        raise ValueError(f"cov: ddof must be an integer, got {ddof!r}")
    m = as_variable(m)
    if m.ndim > 2:
        raise ValueError(f"cov: m has more than 2 dimensions, got shape {tuple(m.shape)}")
    if dtype is None:
        dtype = result_type(m, Constant(np.float64(0))) if y is None else \
            result_type(m, as_variable(y), Constant(np.float64(0)))
    X = sh.reshape(m, (1, -1)) if m.ndim < 2 else m
    if not rowvar and m.ndim == 2:
        X = sh.transpose(X)
    X = ew.astype(X, dtype)
    if y is not None:
        y = as_variable(y)
        if y.ndim > 2:
            raise ValueError(f"cov: y has more than 2 dimensions, got shape {tuple(y.shape)}")
        Y = sh.reshape(y, (1, -1)) if y.ndim < 2 else y
        if not rowvar and y.ndim == 2:
            Y = sh.transpose(Y)
        X = sh.concatenate([X, ew.astype(Y, dtype)], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    # NumPy scales by the float64 1 / fact (inf when fact <= 0), computing in float64
    if X.shape[1] is not None:
        fact = builtins.max(X.shape[1] - ddof, 0)
        scale = Constant(np.float64(1.0 / fact if fact else np.inf))
    else:  # the number of observations, counted per variable at run time
        n = rd.sum(sh.full_like(X, 1, _I64), axis=1, keepdims=True)
        scale = ew.divide(Constant(np.float64(1.0)), ew.astype(ew.maximum(ew.subtract(n, ddof), 0), _F64))
    X = ew.subtract(X, rd.mean(X, axis=1, keepdims=True))
    c = matmul(X, sh.transpose(ew.conj(X) if is_complex(X.dtype) else X))
    wide = DTYPES["complex128"] if is_complex(c.dtype) else _F64
    c = ew.astype(ew.multiply(ew.astype(c, wide), ew.astype(scale, wide)), dtype)
    return sh.squeeze(c) if X.shape[0] == 1 else c


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> Variable:
    """Pearson correlation coefficients, as numpy.corrcoef (real parts clipped to [-1, 1])."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return ew.divide(c, c)
    if c.shape[0] is not None:
        d = ix.getitem(sh.reshape(c, (-1,)), slice(None, None, c.shape[0] + 1))
    else:  # an unknown number of variables: the diagonal gathered along the rows
        rows = ix.getitem(c, (slice(None), slice(0, 1)))
        d = sh.reshape(ix.take_along_axis(c, ew.subtract(rd.cumsum(sh.full_like(rows, 1, _I64), axis=0), 1),
                                          axis=1), (-1,))
    std = ew.sqrt(ew.real(d) if is_complex(d.dtype) else d)
    c = ew.divide(c, ew.astype(sh.reshape(std, (-1, 1)), c.dtype))
    c = ew.divide(c, ew.astype(sh.reshape(std, (1, -1)), c.dtype))
    if is_complex(c.dtype):
        re = ew.clip(ew.real(c), -1, 1)
        im = ew.clip(ew.imag(c), -1, 1)
        return ew.add(ew.astype(re, c.dtype), ew.multiply(ew.astype(im, c.dtype), 1j))
    return ew.clip(c, -1, 1)


def _conj(x: Variable) -> Variable:
    """The complex conjugate; other dtypes pass through unchanged (numpy.conj of bool is int8)."""
    return ew.conj(x) if is_complex(x.dtype) else x


def correlate(a: Any, v: Any, mode: str = "valid") -> Variable:
    """Cross-correlation of two 1-D sequences, ``c[k] = sum_n a[n + k] * conj(v[n])``, as
    numpy.correlate: 'valid' (the default), 'same' or 'full'."""
    a, v = sequence_operands(a, v, mode, "correlate", ("valid", "same", "full"))
    n, k = a.shape[0], v.shape[0]
    if k > n:
        # NumPy swaps the operands and reverses (and conjugates) the result
        return _conj(flip(correlate(v, a, mode)))
    pad = {"full": (k - 1, k - 1), "same": (k // 2, k - 1 - k // 2), "valid": (0, 0)}[mode]
    # a convolution in StableHLO's sense slides the kernel unflipped: a correlation
    op = ConvGeneralDilated((1,), (pad,), (1,), (1,), ((0, 1, 2),) * 3)
    out = op(sh.reshape(a, (1, 1, n)), sh.reshape(_conj(v), (1, 1, k)))
    return sh.reshape(out, (out.shape[-1],))


# --- differences, gradients, integrals ---------------------------------------------------
def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Variable:
    """The ``n``-th discrete difference along ``axis``, as numpy.diff (bool: not_equal)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"diff: n must be an int, got {n!r}")
    if n < 0:
        raise ValueError(f"diff: order must be non-negative but got {n}")
    a = as_variable(a)
    if a.ndim == 0:
        raise ValueError("diff: requires input that is at least one dimensional")
    axis = normalize_axis(axis, a.ndim, "diff")
    if n == 0:
        return a
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        e = as_variable(extra)
        if e.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            if all(d is not None for d in shape):
                e = sh.broadcast_to(e, tuple(shape))
            else:  # unknown dims: shaped like a keepdims reduction of ``a`` along ``axis``
                e = sh.full_like(rd.sum(a, axis=axis, keepdims=True), e, dtype=e.dtype)
        parts.append(e)
    if parts[0] is not None or parts[1] is not None:
        seq = [p for p in (parts[0], a, parts[1]) if p is not None]
        dt = result_type(*seq)
        a = sh.concatenate([as_variable(p, dt) for p in seq], axis=axis)
    for _ in range(n):
        hi = ix.getitem(a, _index(a.ndim, axis, slice(1, None)))
        lo = ix.getitem(a, _index(a.ndim, axis, slice(None, -1)))
        a = ew.not_equal(hi, lo) if a.dtype == _BOOL else ew.subtract(hi, lo)
    return a


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Variable:
    """Differences between consecutive elements of the flattened ``ary``, with optional
    values before and after, as numpy.ediff1d (keeps ``ary``'s dtype)."""
    a = sh.reshape(as_variable(ary), (-1,))
    if a.dtype == _BOOL:
        raise TypeError("ediff1d: numpy boolean subtract is not supported")
    d = ew.subtract(ix.getitem(a, slice(1, None)), ix.getitem(a, slice(None, -1)))
    parts = [d]
    for extra, front in ((to_begin, True), (to_end, False)):
        if extra is None:
            continue
        e = as_variable(extra)
        if not np.can_cast(e.dtype, a.dtype, casting="same_kind"):
            raise TypeError(f"ediff1d: dtype of {'to_begin' if front else 'to_end'} ({e.dtype}) "
                            f"must be compatible with the dtype of the input ({a.dtype})")
        e = sh.reshape(ew.astype(e, a.dtype), (-1,))
        parts = [e] + parts if front else parts + [e]
    return sh.concatenate(parts, axis=0) if len(parts) > 1 else d


def _gradient_spacing(d: Any, n: int) -> Any:
    """One axis' spacing for ``gradient``: ``(True, h)`` for a uniform spacing ``h`` (a
    number or a 0-d Variable), ``(False, dx)`` for the 1-d float Variable ``dx`` of the
    ``n - 1`` differences between the coordinates ``d`` (an array of ``n``). Coordinates
    known while tracing with equal differences are uniform, as in NumPy; graph-valued
    coordinates always take the non-uniform formulas."""
    if not isinstance(d, Variable):
        arr = np.asarray(d)
        if arr.ndim == 0:
            return True, arr.item()
        if arr.ndim != 1:
            raise ValueError("gradient: distances must be either scalars or 1d")
        if len(arr) != n:
            raise ValueError("gradient: when 1d, distances must match the length of the corresponding dimension")
        if arr.dtype.kind in "iub":
            arr = arr.astype(np.float64)
        dx = np.diff(arr)
        if (dx == dx[0]).all():
            return True, dx[0].item()
        return False, as_variable(dx)
    if d.ndim == 0:
        return True, d
    if d.ndim != 1:
        raise ValueError("gradient: distances must be either scalars or 1d")
    if d.shape[0] is not None and d.shape[0] != n:
        raise ValueError("gradient: when 1d, distances must match the length of the corresponding dimension")
    if d.dtype.kind in "iub":
        d = ew.astype(d, _F64)
    return False, diff(d)


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1):
    """Gradient by central differences in the interior and one-sided differences at the
    boundaries, as numpy.gradient: ``varargs`` one spacing for all axes or one per axis,
    each a scalar (uniform) or the 1-d coordinates along that axis (second-order
    accurate non-uniform differences), ``edge_order`` 1 or 2; a tuple of arrays when
    several axes are differentiated."""
    f = as_variable(f)
    if f.dtype == _BOOL:
        raise TypeError("gradient: numpy boolean subtract is not supported")
    axes = normalize_axes(axis, f.ndim, "gradient")
    if len(varargs) == 0:
        dxs = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        dxs = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        dxs = list(varargs)
    else:
        raise TypeError("gradient: invalid number of arguments")
    if edge_order not in (1, 2):
        raise ValueError("gradient: 'edge_order' greater than 2 not supported")
    if f.dtype.kind in "iu":
        f = ew.astype(f, _F64)
    outs = []
    for ax, dx in zip(axes, dxs):
        n = _static_dim(f, ax, "gradient")
        if n < edge_order + 1:
            raise ValueError("gradient: Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        uniform, dx = _gradient_spacing(dx, n)

        def at(sl):
            return ix.getitem(f, _index(f.ndim, ax, sl))

        def combine(a, b, c, sa, sb, sc):  # a * f[sa] + b * f[sb] + c * f[sc]
            return ew.add(ew.add(ew.multiply(a, at(sa)), ew.multiply(b, at(sb))), ew.multiply(c, at(sc)))

        if uniform:  # dx a Python number (weakly typed, as NumPy's scalar) or a 0-d Variable
            def q(num):
                return ew.divide(num, dx) if isinstance(dx, Variable) else num / dx

            inner = ew.divide(ew.subtract(at(slice(2, None)), at(slice(None, -2))),
                              ew.multiply(2.0, dx) if isinstance(dx, Variable) else 2.0 * dx)
            if edge_order == 1:
                first = ew.divide(ew.subtract(at(slice(1, 2)), at(slice(0, 1))), dx)
                last = ew.divide(ew.subtract(at(slice(-1, None)), at(slice(-2, -1))), dx)
            else:
                first = combine(q(-1.5), q(2.0), q(-0.5), slice(0, 1), slice(1, 2), slice(2, 3))
                last = combine(q(0.5), q(-2.0), q(1.5), slice(-3, -2), slice(-2, -1), slice(-1, None))
        else:  # numpy's non-uniform formulas, the differences broadcast along ax
            shape = [1] * f.ndim
            shape[ax] = -1

            def h(sl):
                return sh.reshape(ix.getitem(dx, sl), tuple(shape))

            dx1, dx2 = h(slice(None, -1)), h(slice(1, None))
            s12 = ew.add(dx1, dx2)
            inner = combine(ew.negative(ew.divide(dx2, ew.multiply(dx1, s12))),
                            ew.divide(ew.subtract(dx2, dx1), ew.multiply(dx1, dx2)),
                            ew.divide(dx1, ew.multiply(dx2, s12)),
                            slice(None, -2), slice(1, -1), slice(2, None))
            if edge_order == 1:
                first = ew.divide(ew.subtract(at(slice(1, 2)), at(slice(0, 1))), h(slice(0, 1)))
                last = ew.divide(ew.subtract(at(slice(-1, None)), at(slice(-2, -1))), h(slice(-1, None)))
            else:
                dx1, dx2 = h(slice(0, 1)), h(slice(1, 2))
                s12 = ew.add(dx1, dx2)
                first = combine(ew.negative(ew.divide(ew.add(ew.multiply(2.0, dx1), dx2), ew.multiply(dx1, s12))),
                                ew.divide(s12, ew.multiply(dx1, dx2)),
                                ew.negative(ew.divide(dx1, ew.multiply(dx2, s12))),
                                slice(0, 1), slice(1, 2), slice(2, 3))
                dx1, dx2 = h(slice(-2, -1)), h(slice(-1, None))
                s12 = ew.add(dx1, dx2)
                last = combine(ew.divide(dx2, ew.multiply(dx1, s12)),
                               ew.negative(ew.divide(s12, ew.multiply(dx1, dx2))),
                               ew.divide(ew.add(ew.multiply(2.0, dx2), dx1), ew.multiply(dx2, s12)),
                               slice(-3, -2), slice(-2, -1), slice(-1, None))
        outs.append(ew.astype(sh.concatenate([first, inner, last], axis=ax), f.dtype))
    return outs[0] if len(outs) == 1 else tuple(outs)


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Variable:
    """Integral along ``axis`` by the trapezoidal rule, as numpy.trapezoid (samples at
    ``x`` or spaced ``dx`` apart)."""
    y = as_variable(y)
    if y.ndim == 0:
        raise ValueError("trapezoid: y must be at least one dimensional")
    axis = normalize_axis(axis, y.ndim, "trapezoid")
    if x is None:
        d = dx
    else:
        x = as_variable(x)
        if x.ndim == 1:
            d = diff(x)
            shape = [1] * y.ndim
            shape[axis] = -1 if d.shape[0] is None else d.shape[0]
            d = sh.reshape(d, tuple(shape))
        else:
            d = diff(x, axis=axis)
    hi = ix.getitem(y, _index(y.ndim, axis, slice(1, None)))
    lo = ix.getitem(y, _index(y.ndim, axis, slice(None, -1)))
    return rd.sum(ew.divide(ew.multiply(d, ew.add(hi, lo)), 2.0), axis=axis)


def _cumulative(x: Any, axis: int | None, dtype: Any, include_initial: bool, name: str,
                fn, initial: int) -> Variable:
    x = as_variable(x)
    if x.ndim == 0:
        x = sh.reshape(x, (1,))
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name}: axis must be specified for multi-dimensional arrays")
        axis = 0
    axis = normalize_axis(axis, x.ndim, name)
    x = _check_dtype_arg(x, dtype)
    out = fn(x, axis=axis)
    if dtype is not None:
        out = ew.astype(out, dtype)
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        if all(d is not None for d in shape):
            init = sh.full(tuple(shape), initial, out.dtype)
        else:  # unknown dims: shaped like a keepdims reduction of ``out`` along ``axis``
            init = sh.full_like(rd.sum(out, axis=axis, keepdims=True), initial, out.dtype)
        out = sh.concatenate([init, out], axis=axis)
    return out


def cumulative_sum(x: Any, /, *, axis: int | None = None, dtype: Any = None,
                   include_initial: bool = False) -> Variable:
    """Cumulative sum along ``axis``, as numpy.cumulative_sum (``include_initial``
    prepends a zero)."""
    return _cumulative(x, axis, dtype, include_initial, "cumulative_sum", rd.cumsum, 0)


def cumulative_prod(x: Any, /, *, axis: int | None = None, dtype: Any = None,
                    include_initial: bool = False) -> Variable:
    """Cumulative product along ``axis``, as numpy.cumulative_prod (``include_initial``
    prepends a one)."""
    return _cumulative(x, axis, dtype, include_initial, "cumulative_prod", rd.cumprod, 1)


# --- binning and interpolation ---------------------------------------------------------
def _bin_counts(idx: Variable, keep: Variable, nbins: int, w: Variable | None) -> Variable:
    """Counts (or summed weights) of ``idx`` values in range(nbins) where ``keep``."""
    onehot = ew.equal(sh.reshape(idx, (-1, 1)), Constant(np.arange(nbins, dtype=np.int64)).reshape(1, -1))
    onehot = ew.logical_and(onehot, sh.reshape(keep, (-1, 1)))
    if w is None:
        return rd.sum(onehot, axis=0)
    ww = ew.where(onehot, sh.reshape(w, (-1, 1)), 0)
    return rd.sum(ww, axis=0)


def histogram(a: Any, bins: Any = 10, range: Any = None, density: bool | None = None,
              weights: Any = None):
    """Histogram of the flattened ``a``, as numpy.histogram: ``(hist, bin_edges)``. ``bins``
    is an int (equal-width bins over ``range``, or over the data's min..max at run time) or a
    constant 1-d array of increasing edges; the last bin includes its right edge."""
    a = sh.reshape(as_variable(a), (-1,))
    if is_complex(a.dtype):
        raise NotImplementedError("histogram: complex inputs are not supported")
    w = None
    if weights is not None:
        w = as_variable(weights)
        if tuple(w.shape) != tuple(as_variable(a).shape) and w.type.size != a.type.size:
            raise ValueError("histogram: weights should have the same shape as a.")
        w = sh.reshape(w, (-1,))
    if isinstance(bins, Variable) and not isinstance(bins, Constant):
        raise NotImplementedError("histogram: bins must be an int or a constant array")
    if isinstance(bins, Constant):
        bins = bins.data
    if isinstance(bins, str):
        raise NotImplementedError("histogram: string bin estimators are not supported")
    if np.ndim(bins) == 0:
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
            raise TypeError("histogram: `bins` must be an integer, a string, or an array")
        nbins = int(bins)
        if nbins < 1:
            raise ValueError("histogram: `bins` must be positive, when an integer")
        if range is not None:
            lo, hi = range
            if lo > hi:
                raise ValueError("histogram: max must be larger than min in range parameter.")
            if not (np.isfinite(lo) and np.isfinite(hi)):
                raise ValueError(f"histogram: supplied range of [{lo}, {hi}] is not finite")
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            edt = result_type(lo, hi, a)
            edt = _F64 if edt.kind in "iub" else edt
            edges = Constant(np.linspace(lo, hi, nbins + 1, endpoint=True, dtype=edt))
            first, last = lo, hi
        else:
            if a.shape[0] == 0:
                edt = _F64 if a.dtype.kind in "iub" else a.dtype
                edges = Constant(np.linspace(0, 1, nbins + 1, dtype=edt))
                first, last = 0, 1
            else:
                mn, mx = rd.min(a), rd.max(a)
                edt = _F64 if a.dtype.kind in "iub" else a.dtype
                mn, mx = ew.astype(mn, edt), ew.astype(mx, edt)
                finite = ew.logical_and(ew.isfinite(mn), ew.isfinite(mx))
                mn = asrt.check_and_raise(mn, finite, "histogram: autodetected range is not finite")
                same = ew.equal(mn, mx)
                first = ew.where(same, ew.subtract(mn, 0.5), mn)
                last = ew.where(same, ew.add(mx, 0.5), mx)
                edges = linspace(first, last, nbins + 1)
    else:
        edges_np = np.asarray(bins)
        if edges_np.ndim != 1:
            raise ValueError("histogram: bins must be 1d when an array")
        if np.any(edges_np[:-1] > edges_np[1:]):
            raise ValueError("histogram: bins must increase monotonically, when an array")
        edges = Constant(edges_np)
        nbins = edges_np.size - 1
        first, last = edges_np[0], edges_np[-1]
    if isinstance(first, Variable):
        a = ew.astype(a, edges.dtype)
    keep = ew.logical_and(ew.greater_equal(a, first), ew.less_equal(a, last))
    idx = ew.subtract(ix.searchsorted(edges, a, side="right"), 1)
    idx = ew.where(ew.greater_equal(idx, nbins), nbins - 1, idx)
    hist = _bin_counts(idx, keep, nbins, w)
    if density:
        db = ew.astype(diff(edges), _F64)
        hist = ew.divide(ew.divide(hist, db), rd.sum(hist))
    return hist, edges


def digitize(x: Any, bins: Any, right: bool = False) -> Variable:
    """Indices (int64) of the bins each value of ``x`` falls in, as numpy.digitize
    (increasing or decreasing 1-d ``bins``)."""
    x = as_variable(x)
    if is_complex(x.dtype):
        raise TypeError("digitize: x may not be complex")
    side = "left" if right else "right"
    if isinstance(bins, Variable) and not isinstance(bins, Constant):
        b = bins
        if b.ndim != 1:
            raise ValueError("digitize: bins must be a 1-d array")
        n = _static_dim(b, 0, "digitize")
        inc = ix.searchsorted(b, x, side=side)
        if n < 2:
            return inc
        dec = ew.subtract(n, ix.searchsorted(ix.getitem(b, slice(None, None, -1)), x, side=side))
        return ew.where(ew.less(ix.getitem(b, -1), ix.getitem(b, 0)), dec, inc)
    bnp = np.asarray(bins.data if isinstance(bins, Constant) else bins)
    if bnp.ndim != 1:
        raise ValueError("digitize: bins must be a 1-d array")
    d = np.diff(bnp)
    if np.all(d >= 0):
        return ix.searchsorted(Constant(bnp), x, side=side)
    if np.all(d <= 0):
        return ew.subtract(bnp.size, ix.searchsorted(Constant(bnp[::-1].copy()), x, side=side))
    raise ValueError("digitize: bins must be monotonically increasing or decreasing")


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> Variable:
    """One-dimensional piecewise linear interpolation, as numpy.interp (float64 result;
    ``xp`` increasing; ``left``/``right`` default to ``fp[0]``/``fp[-1]``)."""
    if period is not None:
        raise NotImplementedError("interp: period is not supported")
    x, xp, fp = as_variable(x), as_variable(xp), as_variable(fp)
    for v, nm in ((x, "x"), (xp, "xp"), (fp, "fp")):
        if is_complex(v.dtype):
            raise NotImplementedError(f"interp: complex {nm} is not supported")
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("interp: xp and fp must be 1-d sequences")
    n = _static_dim(xp, 0, "interp")
    if fp.shape[0] is not None and fp.shape[0] != n:
        raise ValueError("interp: fp and xp are not of the same length.")
    if n == 0:
        raise ValueError("interp: array of sample points is empty")
    x, xp, fp = (ew.astype(v, _F64) for v in (x, xp, fp))
    f0, fl = ix.getitem(fp, 0), ix.getitem(fp, -1)
    lv = f0 if left is None else as_variable(left, _F64)
    rv = fl if right is None else as_variable(right, _F64)
    if n == 1:
        return ew.where(ew.less(x, ix.getitem(xp, 0)), lv,
                        ew.where(ew.greater(x, ix.getitem(xp, 0)), rv, f0))
    j = ew.subtract(ix.searchsorted(xp, x, side="right"), 1)
    j = ew.clip(j, 0, n - 2)
    xj, xj1 = ix.take(xp, j), ix.take(xp, ew.add(j, 1))
    fj, fj1 = ix.take(fp, j), ix.take(fp, ew.add(j, 1))
    slope = ew.divide(ew.subtract(fj1, fj), ew.subtract(xj1, xj))
    res = ew.add(ew.multiply(slope, ew.subtract(x, xj)), fj)
    alt = ew.add(ew.multiply(slope, ew.subtract(x, xj1)), fj1)
    alt = ew.where(ew.logical_and(ew.isnan(alt), ew.equal(fj, fj1)), fj, alt)
    res = ew.where(ew.isnan(res), alt, res)
    res = ew.where(ew.equal(x, xj), fj, res)
    x0, xl = ix.getitem(xp, 0), ix.getitem(xp, -1)
    res = ew.where(ew.equal(x, xl), fl, res)
    res = ew.where(ew.less(x, x0), lv, ew.where(ew.greater(x, xl), rv, res))
    return ew.where(ew.isnan(x), x, res)
