"""Array arrangement with NumPy names and semantics, composed from existing builders:
stacking (hstack, vstack, dstack, column_stack, block), rank padding (atleast_*d),
splitting (hsplit, vsplit, dsplit), axis moves (moveaxis, rollaxis, swapaxes,
permute_dims), ravel, rot90, fliplr/flipud, append/insert/delete, resize,
broadcast_arrays, index constants (indices, identity, diag_indices, tril_indices,
triu_indices), diagflat, vander, trace, unwrap, select, choose and put.

No new Ops: each builder is a composition of reshapes, transposes, slices,
gathers/scatters, concatenations and elementwise ops. Positions (insert/delete
indices, split points, new shapes) are static, and builders that rearrange a dim
need its size to be known; they raise ``ValueError`` naming the dim otherwise.
Graphs are functional: ``put`` returns the updated copy instead of writing into
its argument.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..graph import Constant, Variable
from ..types import as_dtype
from . import elemwise as ew
from . import shape as sh
from .basic import as_variable, broadcast_shapes, normalize_axes, normalize_axis, result_type
from .construct import _int, _static_shape, diag, diagonal, flip, split
from .indexing import at, getitem, take
from .reduction import cumprod, cumsum, sum as _sum

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack", "column_stack", "block",
    "hsplit", "vsplit", "dsplit", "moveaxis", "rollaxis", "swapaxes", "permute_dims", "ravel", "rot90",
    "fliplr", "flipud", "append", "insert", "delete", "resize", "broadcast_arrays", "indices",
    "identity", "diagflat", "vander", "diag_indices", "tril_indices", "triu_indices", "trace",
    "unwrap", "select", "choose", "put",
]


def _along(axis: int, ndim: int, sl: Any) -> tuple:
    return (slice(None),) * axis + (sl,) + (slice(None),) * (ndim - axis - 1)


def _one_or_tuple(out: list[Variable]) -> Variable | tuple[Variable, ...]:
    return out[0] if len(out) == 1 else tuple(out)


def _broadcast_values(values: Variable, shape: Sequence[int], op: str) -> Variable:
    try:
        return sh.broadcast_to(values, shape)
    except ValueError:
        raise ValueError(f"{op}: values of shape {tuple(values.shape)} do not broadcast to "
                         f"{tuple(shape)}") from None


# --- rank padding -------------------------------------------------------------------------
def _atleast(x: Any, ndim: int) -> Variable:
    x = as_variable(x)
    if x.ndim >= ndim:
        return x
    if ndim == 3 and x.ndim:
        # numpy.atleast_3d: (N,) -> (1, N, 1), (M, N) -> (M, N, 1)
        return sh.expand_dims(x, (0, 2) if x.ndim == 1 else (2,))
    return sh.expand_dims(x, tuple(range(ndim - x.ndim)))


def atleast_1d(*arys: Any) -> Variable | tuple[Variable, ...]:
    """numpy.atleast_1d: 0-d inputs become shape (1,); one input gives one array, several a tuple."""
    return _one_or_tuple([_atleast(a, 1) for a in arys])


def atleast_2d(*arys: Any) -> Variable | tuple[Variable, ...]:
    """numpy.atleast_2d: 0-d inputs become (1, 1), 1-d ones (1, N)."""
    return _one_or_tuple([_atleast(a, 2) for a in arys])


def atleast_3d(*arys: Any) -> Variable | tuple[Variable, ...]:
    """numpy.atleast_3d: 0-d inputs become (1, 1, 1), (N,) becomes (1, N, 1), (M, N) (M, N, 1)."""
    return _one_or_tuple([_atleast(a, 3) for a in arys])


# --- stacking ---------------------------------------------------------------------------------
def _arrays(tup: Any, op: str, dtype: Any, casting: str) -> list[Variable]:
    """The inputs of a stacking function as Variables of one dtype (``dtype`` or their result type),
    with NumPy's ``casting`` check."""
    if isinstance(tup, (Variable, np.ndarray)) or not isinstance(tup, Sequence):
        raise TypeError(f"{op}: expected a list or tuple of arrays, got {type(tup).__name__}")
    if not tup:
        raise ValueError(f"{op}: need at least one array to concatenate")
    tup = [a if isinstance(a, Variable) else np.asarray(a) for a in tup]
    if dtype is None:
        dt = result_type(*tup)
    else:
        dt = as_dtype(dtype)
        for i, a in enumerate(tup):
            src = a.dtype if isinstance(a, Variable) else np.asarray(a).dtype
            if not np.can_cast(src, dt, casting=casting):
                raise TypeError(f"{op}: cannot cast input {i} from {src} to {dt} according to the "
                                f"rule {casting!r}")
    return [as_variable(a, dt) for a in tup]


def vstack(tup: Sequence[Any], *, dtype: Any = None, casting: str = "same_kind") -> Variable:
    """numpy.vstack: the inputs (1-d ones as rows) concatenated along the first axis."""
    return sh.concatenate([_atleast(a, 2) for a in _arrays(tup, "vstack", dtype, casting)], 0)


def hstack(tup: Sequence[Any], *, dtype: Any = None, casting: str = "same_kind") -> Variable:
    """numpy.hstack: the inputs concatenated along the second axis (the first one for 1-d inputs)."""
    vs = [_atleast(a, 1) for a in _arrays(tup, "hstack", dtype, casting)]
    return sh.concatenate(vs, 0 if vs[0].ndim == 1 else 1)


def dstack(tup: Sequence[Any]) -> Variable:
    """numpy.dstack: the inputs (made at least 3-d as ``atleast_3d``) concatenated along the third axis."""
    return sh.concatenate([_atleast(a, 3) for a in _arrays(tup, "dstack", None, "same_kind")], 2)


def column_stack(tup: Sequence[Any]) -> Variable:
    """numpy.column_stack: 1-d (and 0-d) inputs become columns, 2-d ones are kept; concatenated
    along the second axis."""
    vs = []
    for a in _arrays(tup, "column_stack", None, "same_kind"):
        if a.ndim < 2:
            a = sh.expand_dims(_atleast(a, 1), 1)
        vs.append(a)
    return sh.concatenate(vs, 1)


def _block_depth(arrays: Any, where: str) -> tuple[int, int]:
    """(list nesting depth, largest leaf ndim) of a ``block`` argument; checks that every leaf
    sits at the same depth."""
    if isinstance(arrays, tuple):
        raise TypeError(f"block: {where} is a tuple; only lists can be used to arrange blocks")
    if not isinstance(arrays, list):
        return 0, as_variable(arrays).ndim
    if not arrays:
        raise ValueError(f"block: {where} is an empty list")
    depths = [_block_depth(a, f"{where}[{i}]") for i, a in enumerate(arrays)]
    if len({d for d, _ in depths}) != 1:
        raise ValueError(f"block: list depths are mismatched inside {where}")
    return depths[0][0] + 1, max(n for _, n in depths)


def _block_leaves(arrays: Any) -> list[Any]:
    if isinstance(arrays, list):
        return [leaf for a in arrays for leaf in _block_leaves(a)]
    return [arrays]


def block(arrays: Any) -> Variable:
    """numpy.block: an array assembled from nested lists of blocks; the innermost lists are
    concatenated along the last axis, the next ones along the second-to-last, and so on
    (blocks are given leading size-1 dims up to the result's rank)."""
    depth, leaf_ndim = _block_depth(arrays, "arrays")
    ndim = max(depth, leaf_ndim)
    dt = result_type(*(a if isinstance(a, Variable) else np.asarray(a) for a in _block_leaves(arrays)))

    def assemble(a: Any, level: int) -> Variable:
        if level == depth:
            v = as_variable(a, dt)
            return sh.expand_dims(v, tuple(range(ndim - v.ndim))) if v.ndim < ndim else v
        return sh.concatenate([assemble(b, level + 1) for b in a], ndim - depth + level)

    return assemble(arrays, 0)


# --- splitting --------------------------------------------------------------------------------
def hsplit(ary: Any, indices_or_sections: Any) -> list[Variable]:
    """numpy.hsplit: ``split`` along the second axis (the first one for 1-d inputs)."""
    ary = as_variable(ary)
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def vsplit(ary: Any, indices_or_sections: Any) -> list[Variable]:
    """numpy.vsplit: ``split`` along the first axis of an input of at least 2 dims."""
    ary = as_variable(ary)
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def dsplit(ary: Any, indices_or_sections: Any) -> list[Variable]:
    """numpy.dsplit: ``split`` along the third axis of an input of at least 3 dims."""
    ary = as_variable(ary)
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


# --- axis moves ------------------------------------------------------------------------------
def moveaxis(a: Any, source: int | Sequence[int], destination: int | Sequence[int]) -> Variable:
    """numpy.moveaxis: the axes ``source`` moved to the positions ``destination``, the others
    keeping their order."""
    a = as_variable(a)
    src = normalize_axes(source, a.ndim, "moveaxis")
    dst = normalize_axes(destination, a.ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError("moveaxis: `source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return sh.transpose(a, order)


def rollaxis(a: Any, axis: int, start: int = 0) -> Variable:
    """numpy.rollaxis: ``axis`` moved so that it lies before position ``start`` (0 <= start <= ndim
    after normalizing a negative ``start``)."""
    a = as_variable(a)
    n = a.ndim
    axis = normalize_axis(axis, n, "rollaxis")
    start = _int(start, "rollaxis", "start")
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise ValueError(f"rollaxis: 'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return sh.transpose(a, order)


def swapaxes(a: Any, axis1: int, axis2: int) -> Variable:
    """numpy.swapaxes: ``a`` with the two axes interchanged."""
    a = as_variable(a)
    i, j = normalize_axis(axis1, a.ndim, "swapaxes"), normalize_axis(axis2, a.ndim, "swapaxes")
    order = list(range(a.ndim))
    order[i], order[j] = j, i
    return sh.transpose(a, order)


def permute_dims(a: Any, axes: Sequence[int] | None = None) -> Variable:
    """numpy.permute_dims (the array API's transpose): ``axes=None`` reverses the dims."""
    return sh.transpose(a, axes)


def ravel(a: Any, order: str = "C") -> Variable:
    """numpy.ravel: the elements as a 1-d array in ``order`` 'C' (row-major) or 'F' (column-major);
    'A' and 'K' read in C order, the layout of every graph value."""
    a = as_variable(a)
    if order not in ("C", "F", "A", "K"):
        raise ValueError(f"ravel: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if order == "F" and a.ndim > 1:
        a = sh.transpose(a)
    return sh.reshape(a, -1)


def rot90(m: Any, k: int = 1, axes: Sequence[int] = (0, 1)) -> Variable:
    """numpy.rot90: ``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``, from the
    first axis towards the second."""
    m = as_variable(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("rot90: len(axes) must be 2.")
    if m.ndim < 2:
        raise ValueError(f"rot90: the input must have at least 2 dims, got {m.ndim}")
    a0, a1 = (normalize_axis(a, m.ndim, "rot90") for a in axes)
    if a0 == a1:
        raise ValueError("rot90: axes must be different.")
    k = _int(k, "rot90", "k") % 4
    if k == 0:
        return m
    if k == 2:
        return flip(m, (a0, a1))
    order = list(range(m.ndim))
    order[a0], order[a1] = order[a1], order[a0]
    if k == 1:
        return sh.transpose(flip(m, a1), order)
    return flip(sh.transpose(m, order), a1)


def fliplr(m: Any) -> Variable:
    """numpy.fliplr: ``m`` reversed along its second axis (at least 2 dims)."""
    m = as_variable(m)
    if m.ndim < 2:
        raise ValueError("fliplr: the input must be >= 2-d.")
    return flip(m, 1)


def flipud(m: Any) -> Variable:
    """numpy.flipud: ``m`` reversed along its first axis (at least 1 dim)."""
    m = as_variable(m)
    if m.ndim < 1:
        raise ValueError("flipud: the input must be >= 1-d.")
    return flip(m, 0)


# --- append, insert, delete, resize ------------------------------------------------------------
def append(arr: Any, values: Any, axis: int | None = None) -> Variable:
    """numpy.append: ``values`` concatenated after ``arr`` along ``axis`` (``None``: both flattened)."""
    arr, values = as_variable(arr), as_variable(values)
    if axis is None:
        arr = ravel(arr) if arr.ndim != 1 else arr
        values, axis = ravel(values), 0
    return sh.concatenate([arr, values], axis)


def _positions(obj: Any, n: int, op: str) -> np.ndarray:
    """Static positions (a slice, an int or a sequence of ints) as a NumPy array (0-d for an int)."""
    if isinstance(obj, Variable):
        raise NotImplementedError(f"{op}: graph-valued positions are not supported; pass static "
                                  f"ints, slices or sequences of ints")
    if isinstance(obj, slice):
        return np.arange(*obj.indices(n), dtype=np.int64)
    idx = np.asarray(obj)
    if idx.size == 0 and idx.dtype.kind not in "iub":
        idx = idx.astype(np.int64)
    if idx.dtype.kind not in "iu":
        raise IndexError(f"{op}: index arrays must be of integer type, got {idx.dtype}")
    if idx.ndim > 1:
        raise ValueError(f"{op}: index array argument obj to {op} must be one dimensional or scalar")
    return idx.astype(np.int64)


_MAX_RUNS = 16


def _take_static(xs: Sequence[Variable], source: np.ndarray, axis: int) -> Variable:
    """``take(concatenate(xs, axis), source, axis)`` for static ``source``: a concatenation of
    slices of the ``xs`` when ``source`` is a few contiguous runs (an input itself when a run
    covers it), a gather otherwise."""
    if len(source) == 0:
        return getitem(xs[0], _along(axis, xs[0].ndim, slice(0, 0)))
    sizes = [x.shape[axis] for x in xs]
    starts = np.cumsum([0] + sizes)
    which = np.searchsorted(starts, source, side="right") - 1
    breaks = np.flatnonzero((np.diff(source) != 1) | (np.diff(which) != 0)) + 1
    if len(breaks) >= _MAX_RUNS:
        return take(sh.concatenate(list(xs), axis) if len(xs) > 1 else xs[0], source, axis=axis)
    pieces = []
    for run in np.split(np.arange(len(source)), breaks):
        i = int(which[run[0]])
        lo = int(source[run[0]] - starts[i])
        x = xs[i]
        pieces.append(x if lo == 0 and len(run) == sizes[i] else
                      getitem(x, _along(axis, x.ndim, slice(lo, lo + len(run)))))
    return pieces[0] if len(pieces) == 1 else sh.concatenate(pieces, axis)


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Variable:
    """numpy.insert with static positions ``obj`` (an int, a slice or a sequence of ints):
    ``values`` (cast to ``arr``'s dtype, broadcast as NumPy does) inserted before those
    positions along ``axis`` (``None``: of the flattened ``arr``)."""
    arr = as_variable(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = normalize_axis(axis, arr.ndim, "insert")
    shape = list(_static_shape(arr, "insert"))
    n = shape[axis]
    idx = _positions(obj, n, "insert")
    values = as_variable(values, arr.dtype)
    if idx.size == 1:
        index = int(idx.reshape(()))
        if not -n <= index <= n:
            raise IndexError(f"insert: index {index} is out of bounds for axis {axis} with size {n}")
        if index < 0:
            index += n
        if values.ndim < arr.ndim:
            values = sh.expand_dims(values, tuple(range(arr.ndim - values.ndim)))
        if idx.ndim == 0:
            values = moveaxis(values, 0, axis)
        numnew = _static_shape(values, "insert")[axis]
        shape[axis] = numnew
        values = _broadcast_values(values, shape, "insert")
        head, tail = getitem(arr, _along(axis, arr.ndim, slice(None, index))), \
            getitem(arr, _along(axis, arr.ndim, slice(index, None)))
        return sh.concatenate([head, values, tail], axis)
    if ((idx < -n) | (idx > n)).any():
        bad = idx[(idx < -n) | (idx > n)][0]
        raise IndexError(f"insert: index {bad} is out of bounds for axis {axis} with size {n}")
    idx = np.where(idx < 0, idx + n, idx)
    numnew = len(idx)
    order = idx.argsort(kind="mergesort")
    idx[order] += np.arange(numnew)
    source = np.empty(n + numnew, dtype=np.int64)
    old = np.ones(n + numnew, dtype=bool)
    old[idx] = False
    source[old] = np.arange(n)
    source[idx] = n + np.arange(numnew)
    shape[axis] = numnew
    values = _broadcast_values(values, shape, "insert")
    return _take_static([arr, values], source, axis)


def delete(arr: Any, obj: Any, axis: int | None = None) -> Variable:
    """numpy.delete with static ``obj``: an int, a slice, a sequence of ints or a boolean mask
    of the axis' length; the remaining entries along ``axis`` (``None``: of the flattened ``arr``)."""
    arr = as_variable(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = normalize_axis(axis, arr.ndim, "delete")
    n = _static_shape(arr, "delete", [axis])[axis]
    if isinstance(obj, Variable):
        raise NotImplementedError("delete: graph-valued positions are not supported; pass static "
                                  "ints, slices, sequences of ints or a boolean mask")
    if not isinstance(obj, slice):
        o = np.asarray(obj)
        if o.dtype.kind not in "iub" and o.size:
            raise IndexError(f"delete: index arrays must be of integer or boolean type, got {o.dtype}")
        if o.size == 0:
            obj = o.astype(np.int64)
    try:
        keep = np.delete(np.arange(n, dtype=np.int64), obj)
    except (IndexError, ValueError) as e:
        raise type(e)(f"delete: {e}") from None
    return _take_static([arr], keep, axis)


def resize(a: Any, new_shape: int | Sequence[int]) -> Variable:
    """numpy.resize: an array of the static ``new_shape`` filled with ``a``'s flattened elements,
    repeated as often as needed (zeros when ``a`` is empty)."""
    a = as_variable(a)
    shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    shape = tuple(_int(d, "resize", "a dim of new_shape") for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError("resize: all elements of `new_shape` must be non-negative")
    size = math.prod(_static_shape(a, "resize"))
    new_size = math.prod(shape)
    if size == 0 or new_size == 0:
        return sh.zeros(shape, a.dtype)
    flat = ravel(a)
    if new_size != size:
        flat = take(flat, np.arange(new_size, dtype=np.int64) % size)
    return sh.reshape(flat, shape)


def broadcast_arrays(*args: Any) -> tuple[Variable, ...]:
    """numpy.broadcast_arrays: the inputs broadcast to their common (static) shape, each keeping
    its dtype."""
    vs = [as_variable(a) for a in args]
    for i, v in enumerate(vs):
        _static_shape(v, f"broadcast_arrays (input {i})")
    shape = broadcast_shapes(*(v.shape for v in vs), op="broadcast_arrays")
    return tuple(v if tuple(v.shape) == shape else sh.broadcast_to(v, shape) for v in vs)


# --- index and matrix constants -------------------------------------------------------------
def indices(dimensions: Sequence[int], dtype: Any = int, sparse: bool = False) -> Variable | tuple[Variable, ...]:
    """numpy.indices: a constant grid of indices (one array stacked per dim, or a tuple of
    broadcastable arrays when ``sparse``)."""
    dims = tuple(_int(d, "indices", "a dimension") for d in dimensions)
    out = np.indices(dims, dtype=as_dtype(dtype), sparse=sparse)
    return tuple(Constant(o) for o in out) if sparse else Constant(out)


def identity(n: int, dtype: Any = None) -> Variable:
    """numpy.identity: the constant (n, n) identity matrix (float64 by default)."""
    return Constant(np.identity(_int(n, "identity", "n"), dtype=None if dtype is None else as_dtype(dtype)))


def _index_tuple(arrays: tuple[np.ndarray, ...]) -> tuple[Variable, ...]:
    return tuple(Constant(np.asarray(a, dtype=np.int64)) for a in arrays)


def diag_indices(n: int, ndim: int = 2) -> tuple[Variable, ...]:
    """numpy.diag_indices: ``ndim`` constant int64 vectors indexing the main diagonal of an
    (n, ..., n) array."""
    return _index_tuple(np.diag_indices(_int(n, "diag_indices", "n"), _int(ndim, "diag_indices", "ndim")))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Variable, Variable]:
    """numpy.tril_indices: constant int64 row and column indices of the lower triangle (at and
    below the ``k``-th diagonal) of an (n, m) array."""
    m = None if m is None else _int(m, "tril_indices", "m")
    return _index_tuple(np.tril_indices(_int(n, "tril_indices", "n"), _int(k, "tril_indices", "k"), m))


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Variable, Variable]:
    """numpy.triu_indices: constant int64 row and column indices of the upper triangle (at and
    above the ``k``-th diagonal) of an (n, m) array."""
    m = None if m is None else _int(m, "triu_indices", "m")
    return _index_tuple(np.triu_indices(_int(n, "triu_indices", "n"), _int(k, "triu_indices", "k"), m))


def diagflat(v: Any, k: int = 0) -> Variable:
    """numpy.diagflat: a 2-d array with the flattened ``v`` on its ``k``-th diagonal."""
    return diag(ravel(v), k)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Variable:
    """numpy.vander: the Vandermonde matrix of the 1-d ``x`` (columns ``x**(N-1), ..., x**0``, or
    ascending powers when ``increasing``), computed as NumPy does by running products, in the
    dtype ``promote_types(x.dtype, int64)``."""
    x = as_variable(x)
    if x.ndim != 1:
        raise ValueError("vander: x must be a one-dimensional array or sequence.")
    n = _static_shape(x, "vander")[0]
    N = n if N is None else _int(N, "vander", "N")
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


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Variable:
    """numpy.trace: the sum along the ``offset`` diagonal of the (``axis1``, ``axis2``) planes
    (``sum``'s result dtype, or ``dtype``)."""
    a = as_variable(a)
    if a.ndim < 2:
        raise ValueError(f"trace: the input must have at least 2 dims, got {a.ndim}")
    d = diagonal(a, offset, axis1, axis2)
    if dtype is None:
        return _sum(d, -1)
    dt = as_dtype(dtype)
    return ew.astype(_sum(ew.astype(d, dt), -1), dt)


def _diff(p: Variable, axis: int) -> Variable:
    lo = getitem(p, _along(axis, p.ndim, slice(None, -1)))
    hi = getitem(p, _along(axis, p.ndim, slice(1, None)))
    return ew.subtract(hi, lo)


def unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: Any = 2 * np.pi) -> Variable:
    """numpy.unwrap: ``p`` with jumps between neighbours along ``axis`` larger than ``discont``
    (default ``period / 2``) shifted by multiples of ``period``, in the dtype of
    ``result_type(diff(p), period)``. ``discont`` and ``period`` are static numbers."""
    p = as_variable(p)
    if p.ndim == 0:
        raise ValueError("unwrap: diff requires input that is at least one dimensional")
    if p.dtype == np.bool_:
        raise TypeError("unwrap: boolean inputs are not supported (numpy.diff of booleans subtracts)")
    for name, v in (("discont", discont), ("period", period)):
        if isinstance(v, Variable):
            raise NotImplementedError(f"unwrap: {name} must be a static number")
    axis = normalize_axis(axis, p.ndim, "unwrap")
    dd = _diff(p, axis)
    if discont is None:
        discont = period / 2
    dt = result_type(dd, period)
    if dt.kind in "iu":
        interval_high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        interval_high = period / 2
        ambiguous = True
    interval_low = -interval_high
    ddmod = ew.add(ew.remainder(ew.subtract(dd, interval_low), period), interval_low)
    if ambiguous:
        ddmod = ew.where(ew.logical_and(ew.equal(ddmod, interval_low), ew.greater(dd, 0)),
                         as_variable(interval_high, ddmod.dtype), ddmod)
    correct = ew.subtract(ddmod, dd)
    correct = ew.where(ew.less(ew.abs(dd), discont), as_variable(0, correct.dtype), correct)
    rest = getitem(p, _along(axis, p.ndim, slice(1, None)))
    first = getitem(p, _along(axis, p.ndim, slice(None, 1)))
    rest = ew.add(rest, cumsum(correct, axis))
    return sh.concatenate([as_variable(first, dt), as_variable(rest, dt)], axis)


# --- select, choose, put ----------------------------------------------------------------------
def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Variable:
    """numpy.select: where the first true condition of ``condlist`` holds, the matching element
    of ``choicelist``, else ``default``; everything broadcast together, the dtype is the choices'
    and ``default``'s result type."""
    if len(condlist) != len(choicelist):
        raise ValueError("select: list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    conds = [as_variable(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise TypeError(f"select: invalid entry {i} in condlist: should be boolean ndarray")
    dt = result_type(*choicelist, default)
    out = as_variable(default, dt)
    for c, v in zip(reversed(conds), reversed(list(choicelist))):
        out = ew.where(c, as_variable(v, dt), out)
    shape = broadcast_shapes(*(v.shape for v in conds), *(as_variable(v).shape for v in choicelist),
                             as_variable(default).shape, op="select")
    if tuple(out.shape) != shape and None not in shape:
        out = sh.broadcast_to(out, shape)
    return out


def choose(a: Any, choices: Sequence[Any], mode: str = "raise") -> Variable:
    """numpy.choose: ``choices[a[i]][i]`` with ``a``, every choice and the result broadcast
    together. ``mode`` 'wrap' takes ``a`` modulo the number of choices, 'clip' clips it; 'raise'
    checks constant ``a`` and otherwise clips out-of-range entries on a device."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    if isinstance(choices, Variable):
        choices = [choices[i] for i in range(_static_shape(choices, "choose", [0])[0])]
    choices = list(choices)
    if not choices:
        raise ValueError("choose: choices must be a non-empty sequence")
    a = as_variable(a)
    if a.dtype.kind not in "iu":
        raise TypeError(f"choose: 'a' must have an integer dtype, got {a.dtype}")
    n = len(choices)
    if mode == "raise" and isinstance(a, Constant) and a.data.size and (a.data.min() < 0 or a.data.max() >= n):
        raise ValueError("choose: invalid entry in choice array")
    if mode == "wrap":
        a = ew.remainder(a, n)
    dt = result_type(*choices)
    out = as_variable(choices[-1], dt)
    # entries >= n - 1 keep the last choice and entries < 0 the first (clipping)
    for k in range(n - 2, -1, -1):
        cond = ew.less_equal(a, k) if k == 0 else ew.equal(a, k)
        out = ew.where(cond, as_variable(choices[k], dt), out)
    shape = broadcast_shapes(a.shape, *(as_variable(c).shape for c in choices), op="choose")
    if tuple(out.shape) != shape and None not in shape:
        out = sh.broadcast_to(out, shape)
    return out


def put(a: Any, ind: Any, v: Any, mode: str = "raise") -> Variable:
    """Functional numpy.put: a copy of ``a`` whose flat positions ``ind`` hold ``v`` (cast to
    ``a``'s dtype and repeated cyclically when shorter than ``ind``). ``mode`` 'wrap' or 'clip'
    bounds the indices; 'raise' checks constant indices (out-of-range graph-valued indices are
    dropped on a device). With repeated indices the value written last in NumPy is not
    guaranteed to win."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"put: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    a = as_variable(a)
    shape = _static_shape(a, "put")
    size = math.prod(shape)
    if not isinstance(ind, Variable) and np.size(ind) == 0:
        return a
    ind = as_variable(ind)
    if ind.dtype.kind not in "iu":
        raise TypeError(f"put: indices must have an integer dtype, got {ind.dtype}")
    if mode == "raise" and isinstance(ind, Constant) and ind.data.size and size and \
            (ind.data.min() < -size or ind.data.max() >= size):
        bad = ind.data.min() if ind.data.min() < -size else ind.data.max()
        raise IndexError(f"put: index {bad} is out of bounds for size {size}")
    ind = ravel(ind)
    m = _static_shape(ind, "put")[0]
    if m == 0:
        return a
    if size == 0:
        raise IndexError("put: cannot replace elements of an empty array")
    if mode == "wrap":
        ind = ew.remainder(ind, size)
    elif mode == "clip":
        ind = ew.clip(ind, 0, size - 1)
    v = ravel(as_variable(v, a.dtype))
    if _static_shape(v, "put")[0] == 0:
        return a
    v = resize(v, m)
    flat = at(ravel(a))[ind].set(v)
    return sh.reshape(flat, shape)
