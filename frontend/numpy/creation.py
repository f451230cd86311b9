"""NumPy's array creation routines that compose other ops: from existing data
(asarray, array, copy), numerical ranges (linspace, logspace, geomspace,
meshgrid), building matrices (identity, diag, diagflat, tri, tril, triu, vander,
and scipy's block_diag) and the window functions (bartlett, blackman, hamming,
hanning, kaiser).

``zeros``, ``ones``, ``full``, the ``*_like`` variants, ``arange`` and ``eye``
build the construction Ops themselves (``frontend/ops/shape.py``). Static
arguments give constants; graph-valued bounds build the values from
elementwise ops, and graph-valued sizes run on the host (``dynamic_linspace``,
``dynamic_tri``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import Constant, Variable
from ..types import as_dtype, is_complex
from ..ops import elemwise as ew
from ..ops import shape as sh
from ..ops.basic import (as_int, as_variable, broadcast_shapes, constant, normalize_axis, result_type,
                         static_shape)
from ..ops.construct import pad
from ..ops.dynamic import dynamic_linspace, dynamic_tri
from ..ops.indexing import at
from ..ops.reduction import cumprod
from .indexing import diagonal, diagonal_positions
from .manipulation import flip, ravel

__all__ = [
    "asarray", "array", "copy", "linspace", "logspace", "geomspace", "meshgrid", "identity", "diag",
    "diagflat", "tri", "tril", "triu", "vander", "block_diag", "bartlett", "blackman", "hamming",
    "hanning", "kaiser",
]


# --- from existing data ----------------------------------------------------------------------
def copy(a: Any) -> Variable:
    """``a`` itself: graph values are immutable, so a copy is the same value."""
    return as_variable(a)


def _has_variable(a: Any) -> bool:
    return isinstance(a, Variable) or (type(a) in (list, tuple) and any(_has_variable(e) for e in a))


def _leaves(a: Any) -> list[Any]:
    return [x for e in a for x in _leaves(e)] if type(a) in (list, tuple) else [a]


def _nested(a: Any, dtype: np.dtype) -> Variable:
    """A nested list/tuple of graph values, arrays and numbers as one graph value: the
    levels stacked, innermost first (as jax.numpy.array)."""
    if type(a) not in (list, tuple):
        return as_variable(a, dtype)
    if not a:
        raise ValueError("array: a nested sequence holding graph values cannot have an empty level")
    try:
        return sh.stack([_nested(e, dtype) for e in a])
    except ValueError as e:
        raise ValueError(f"array: the nested sequence is ragged ({e})") from None


def _from_data(a: Any, dtype: Any) -> Variable:
    """``a`` as a graph value: a Variable as it is, a nested sequence holding graph values
    stacked, other data a constant; cast to ``dtype``."""
    if type(a) in (list, tuple) and _has_variable(a):
        dt = as_dtype(dtype) if dtype is not None else result_type(*_leaves(a))
        return _nested(a, dt)
    x = as_variable(a)
    return x if dtype is None or np.dtype(dtype) == x.dtype else ew.astype(x, dtype)


def asarray(a: Any, dtype: Any = None) -> Variable:
    """``a`` as a graph value (a Variable as it is; data as a constant; a nested list or
    tuple holding graph values stacked, as jax.numpy.asarray), cast to ``dtype``."""
    return _from_data(a, dtype)


def array(a: Any, dtype: Any = None, *, ndmin: int = 0, ndmax: int = 0) -> Variable:
    """numpy.array as a graph value: ``asarray(a, dtype)`` (nested lists and tuples of graph
    values, arrays and numbers are stacked, as jax.numpy.array) with at least ``ndmin`` dims
    (leading 1s added) and, for a nested sequence, at most ``ndmax`` dims (0: no limit; a
    deeper sequence is a ValueError, as in NumPy without ``dtype=object``; ``ndmin`` must
    not exceed a nonzero ``ndmax``)."""
    ndmin = as_int(ndmin, "array", "ndmin")
    ndmax = as_int(ndmax, "array", "ndmax")
    if not 0 <= ndmax <= 64:
        raise ValueError(f"array: ndmax must be in the range [0, 64], got {ndmax}")
    if ndmin > 64:
        raise ValueError(f"array: ndmin bigger than allowable number of dimensions 64, got {ndmin}")
    if ndmax and ndmin > ndmax:
        raise ValueError(f"array: ndmin must be <= ndmax ({ndmax}), got {ndmin}")
    x = _from_data(a, dtype)
    if ndmax and type(a) in (list, tuple) and x.ndim > ndmax:
        raise ValueError(f"array: setting an array element with a sequence: the nested sequence has "
                         f"{x.ndim} dims, more than ndmax={ndmax}")
    if x.ndim < ndmin:
        x = sh.expand_dims(x, tuple(range(ndmin - x.ndim)))
    return x


# --- numerical ranges ------------------------------------------------------------------------
def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0) -> Variable | tuple[Variable, Variable]:
    """numpy.linspace with a static ``num``: Python numbers and arrays give a constant; graph
    values compute ``start + arange(num) * step`` (ending exactly at ``stop`` when
    ``endpoint``), the samples along ``axis`` of the result when the bounds are arrays
    (broadcast together). Integer ``dtype`` rounds towards -inf, as NumPy. With
    ``retstep``, ``(samples, step)`` (``step`` has the bounds' shape; a 0-d NaN when ``num``
    is below 2 with ``endpoint``, or 0)."""
    if isinstance(num, Variable):
        if retstep or axis != 0:
            raise NotImplementedError("linspace: a graph-valued num takes neither retstep nor axis")
        return dynamic_linspace(start, stop, num, endpoint, dtype)
    num = as_int(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative, got {num}")
    axis = as_int(axis, "linspace", "axis")
    if not isinstance(start, Variable) and not isinstance(stop, Variable):
        out = np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep, dtype=dtype, axis=axis)
        return (Constant(out[0]), Constant(np.asarray(out[1]))) if retstep else Constant(out)
    start, stop = as_variable(start), as_variable(stop)
    dt = result_type(start, stop, 1.0)
    shape = broadcast_shapes(start.shape, stop.shape, op="linspace")
    axis = normalize_axis(axis, len(shape) + 1, "linspace")
    start, stop = as_variable(start, dt), as_variable(stop, dt)
    div = (num - 1) if endpoint else num
    delta = ew.subtract(stop, start)
    if div > 0:
        step = ew.divide(delta, div)
        if tuple(step.shape) != shape:
            step = sh.broadcast_to(step, shape)
    else:
        step = Constant(np.asarray(np.nan))  # NumPy's step is a plain NaN then
    ramp = Constant(np.arange(num).astype(dt).reshape((num,) + (1,) * len(shape)))
    y = ew.add(ew.multiply(ramp, step if div > 0 else delta), start)
    if tuple(y.shape[1:]) != shape:
        y = sh.broadcast_to(y, (num,) + shape)
    if endpoint and num > 1:
        y = at(y)[-1].set(stop)
    if axis:
        y = sh.transpose(y, list(range(1, axis + 1)) + [0] + list(range(axis + 1, y.ndim)))
    if dtype is not None:
        out_dt = as_dtype(dtype)
        if np.issubdtype(out_dt, np.integer) and not is_complex(dt):
            y = ew.floor(y)
        y = ew.astype(y, out_dt)
    return (y, step) if retstep else y


def _sequence_args(name: str, start: Any, stop: Any, axis: int) -> tuple[Variable, Variable, int]:
    start, stop = as_variable(start), as_variable(stop)
    shape = broadcast_shapes(start.shape, stop.shape, op=name)
    return start, stop, normalize_axis(axis, len(shape) + 1, name)


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0) -> Variable:
    """``base ** linspace(start, stop, num, endpoint, axis=axis)``, as numpy.logspace, with a
    static ``num``: Python/NumPy values give a constant; a graph-valued base must be 0-d."""
    if not any(isinstance(v, Variable) for v in (start, stop, base)):
        return Constant(np.logspace(start, stop, num, endpoint=endpoint, base=base, dtype=dtype,
                                    axis=axis))
    start, stop, axis = _sequence_args("logspace", start, stop, axis)
    base = as_variable(base) if isinstance(base, Variable) or not isinstance(base, (int, float)) else base
    if isinstance(base, Variable) and base.ndim:
        raise NotImplementedError(f"logspace: a graph-valued base must be 0-d, got {base.type}")
    y = ew.power(base, linspace(start, stop, num, endpoint=endpoint, axis=axis))
    return y if dtype is None else ew.astype(y, dtype)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Variable:
    """A geometric progression from ``start`` to ``stop``, as numpy.geomspace, with a static
    ``num``: Python/NumPy values give a constant; graph-valued bounds must be real (a zero
    bound gives NaN instead of NumPy's ValueError); array bounds broadcast and the samples
    run along ``axis``."""
    if not isinstance(start, Variable) and not isinstance(stop, Variable):
        return Constant(np.geomspace(start, stop, num, endpoint=endpoint, dtype=dtype, axis=axis))
    start, stop, axis = _sequence_args("geomspace", start, stop, axis)
    # as NumPy: a 0-d array of ``dtype`` (float64 by default) joins the promotion
    dt = result_type(start, stop, float(num), np.zeros((), None if dtype is None else as_dtype(dtype)))
    if is_complex(dt):
        raise NotImplementedError("geomspace: complex graph-valued bounds are not supported")
    start, stop = as_variable(start, dt), as_variable(stop, dt)
    sign = ew.sign(start)
    start, stop = ew.divide(start, sign), ew.divide(stop, sign)
    out = logspace(ew.log10(start), ew.log10(stop), num, endpoint=endpoint, base=10.0, dtype=dt)
    if num > 0:
        out = at(out)[0].set(start)
        if num > 1 and endpoint:
            out = at(out)[-1].set(stop)
    out = ew.multiply(out, sign)
    if axis:
        out = sh.transpose(out, list(range(1, axis + 1)) + [0] + list(range(axis + 1, out.ndim)))
    return out if dtype is None else ew.astype(out, dtype)


def meshgrid(*xs: Any, indexing: str = "xy", sparse: bool = False) -> list[Variable]:
    """numpy.meshgrid of 1-d inputs (others are flattened); ``indexing`` 'xy' (Cartesian: the
    first two dims swapped) or 'ij' (matrix)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [sh.reshape(as_variable(x), -1) for x in xs]
    sizes = [static_shape(x, "meshgrid")[0] for x in xs]
    ndim = len(xs)
    position = list(range(ndim))
    if indexing == "xy" and ndim > 1:
        position[0], position[1] = 1, 0
    full = [1] * ndim
    for i, n in enumerate(sizes):
        full[position[i]] = n
    out = []
    for i, x in enumerate(xs):
        shape = [1] * ndim
        shape[position[i]] = sizes[i]
        y = sh.reshape(x, shape)
        out.append(y if sparse else sh.broadcast_to(y, full))
    return out


# --- building matrices -----------------------------------------------------------------------
def identity(n: int, dtype: Any = None) -> Variable:
    """numpy.identity: the constant (n, n) identity matrix (float64 by default)."""
    return Constant(np.identity(as_int(n, "identity", "n"), dtype=None if dtype is None else as_dtype(dtype)))


def diag(v: Any, k: int = 0) -> Variable:
    """numpy.diag: the ``k``-th diagonal of a 2-d ``v``, or a 2-d array with the 1-d ``v`` on
    its ``k``-th diagonal."""
    v = as_variable(v)
    k = as_int(k, "diag", "k")
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError(f"diag: the input must be 1-d or 2-d, got {v.ndim} dims")
    n = static_shape(v, "diag")[0] + abs(k)
    rows, cols = diagonal_positions(n, n, k)
    return at(sh.zeros((n, n), v.dtype))[rows, cols].set(v)


def diagflat(v: Any, k: int = 0) -> Variable:
    """numpy.diagflat: a 2-d array with the flattened ``v`` on its ``k``-th diagonal."""
    return diag(ravel(v), k)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = "float64") -> Variable:
    """numpy.tri: ones at and below the ``k``-th diagonal of an (N, M) array (graph-valued
    sizes run on the host)."""
    if any(isinstance(b, Variable) for b in (N, M, k)):
        return dynamic_tri(N, M, k, dtype)
    N = as_int(N, "tri", "N")
    M = N if M is None else as_int(M, "tri", "M")
    return Constant(np.tri(N, M, as_int(k, "tri", "k"), dtype=as_dtype(dtype)))


def _triangle(x: Any, k: int, op: str, lower: bool) -> Variable:
    x = as_variable(x)
    if x.ndim < 1:
        raise ValueError(f"{op}: the input must have at least 1 dim, got {x.ndim}")
    if x.ndim == 1:  # NumPy masks the (n, n) broadcast of a 1-d input
        (n,) = static_shape(x, op)
        x = sh.broadcast_to(x, (n, n))
    n, m = static_shape(x, op, [x.ndim - 2, x.ndim - 1])[-2:]
    k = as_int(k, op, "k")
    mask = np.tri(n, m, k, dtype=bool) if lower else ~np.tri(n, m, k - 1, dtype=bool)
    return ew.where(Constant(mask), x, Constant(np.zeros((), x.dtype)))


def tril(x: Any, k: int = 0) -> Variable:
    """numpy.tril: ``x`` with the elements above the ``k``-th diagonal of its last two dims zeroed."""
    return _triangle(x, k, "tril", lower=True)


def triu(x: Any, k: int = 0) -> Variable:
    """numpy.triu: ``x`` with the elements below the ``k``-th diagonal of its last two dims zeroed."""
    return _triangle(x, k, "triu", lower=False)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Variable:
    """numpy.vander: the Vandermonde matrix of the 1-d ``x`` (columns ``x**(N-1), ..., x**0``, or
    ascending powers when ``increasing``), computed as NumPy does by running products, in the
    dtype ``promote_types(x.dtype, int64)``."""
    x = as_variable(x)
    if x.ndim != 1:
        raise ValueError("vander: x must be a one-dimensional array or sequence.")
    n = static_shape(x, "vander")[0]
    N = n if N is None else as_int(N, "vander", "N")
    if N < 0:
        raise ValueError(f"vander: N must be non-negative, got {N}")
    dt = np.promote_types(x.dtype, np.int64)
    x = as_variable(x, dt)
    if N == 0:
        return sh.zeros((n, 0), dt)
    cols = [sh.ones((n, 1), dt)]
    if N > 1:
        cols.append(cumprod(sh.broadcast_to(sh.expand_dims(x, 1), (n, N - 1)), axis=1))
    v = sh.concatenate(cols, 1) if len(cols) > 1 else cols[0]
    return v if increasing else flip(v, 1)


def block_diag(*arrs: Any) -> Variable:
    """scipy.linalg.block_diag: the inputs (0-d and 1-d ones as rows) along the diagonal of a
    2-d array, zeros elsewhere; the dtype is the inputs' result type."""
    if not arrs:
        return sh.zeros((1, 0), "float64")
    dt = result_type(*arrs)
    blocks = []
    for i, a in enumerate(arrs):
        a = as_variable(a, dt)
        if a.ndim > 2:
            raise ValueError(f"block_diag: input {i} has more than 2 dims ({a.ndim})")
        blocks.append(sh.reshape(a, (1, -1)) if a.ndim < 2 else a)
    shapes = [static_shape(b, "block_diag") for b in blocks]
    width = sum(s[1] for s in shapes)
    rows, left = [], 0
    for b, (_, c) in zip(blocks, shapes):
        rows.append(pad(b, ((0, 0), (left, width - left - c))))
        left += c
    return sh.concatenate(rows, 0)


# --- window functions ------------------------------------------------------------------------
def _window(fn, name: str):
    def window(M: int, *args) -> Variable:
        if isinstance(M, bool) or not isinstance(M, (int, np.integer)):
            raise TypeError(f"{name}: M must be a static integer, got {M!r}")
        return constant(fn(int(M), *args))
    window.__name__ = name
    window.__doc__ = f"numpy.{name}: the window as a constant (M is static)."
    return window


bartlett = _window(np.bartlett, "bartlett")


blackman = _window(np.blackman, "blackman")


hamming = _window(np.hamming, "hamming")


hanning = _window(np.hanning, "hanning")


kaiser = _window(np.kaiser, "kaiser")
