"""Array manipulation with NumPy names and semantics (NumPy's "Array manipulation
routines"): the size as a graph value, ravel, axis moves (moveaxis, rollaxis,
swapaxes, permute_dims, matrix_transpose), rank padding (atleast_*d),
broadcast_arrays, joining (concat, hstack, vstack/row_stack, dstack,
column_stack, block), splitting (split, array_split, hsplit, vsplit, dsplit,
unstack), tiling (tile, repeat), adding and removing elements (append, insert,
delete, resize) and rearranging (flip, fliplr, flipud, roll, rot90).

No new Ops: each builder is a composition of reshapes, transposes, slices,
gathers, concatenations and elementwise ops. Positions (insert/delete
indices, split points, new shapes) are static, and builders that rearrange a dim
need its size to be known; they raise ``ValueError`` naming the dim otherwise.
Graph-valued ``repeats`` run on the host (``dynamic_repeat``).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..graph import Variable
from ..types import as_dtype
from ..ops import shape as sh
from ..ops.basic import (as_int, as_ints, as_variable, broadcast_shapes, normalize_axes, normalize_axis,
                         result_type, static_shape)
from ..ops.construct import shape_of
from ..ops.dynamic import dynamic_repeat
from ..ops.indexing import getitem, take
from ..ops.reduction import prod

__all__ = [
    "size", "shape", "ndim", "atleast_1d", "atleast_2d", "atleast_3d", "concat", "hstack", "vstack", "row_stack", "dstack",
    "column_stack", "block", "split", "array_split", "hsplit", "vsplit", "dsplit", "unstack", "moveaxis",
    "rollaxis", "swapaxes", "permute_dims", "matrix_transpose", "ravel", "tile", "repeat", "flip", "roll",
    "rot90", "fliplr", "flipud", "append", "insert", "delete", "resize", "broadcast_arrays",
    "sliding_window_view",
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


# --- the size as a graph value ----------------------------------------------------------
def size(x: Any, axis: int | None = None) -> Variable:
    """numpy.size as a graph value (0-d int64): the number of elements, or the size of ``axis``."""
    s = shape_of(x)
    if axis is None:
        return prod(s)
    return s[normalize_axis(axis, as_variable(x).ndim, "size")]


def shape(a: Any) -> tuple[int | Variable, ...]:
    """numpy.shape: a tuple with an int per static dimension and a 0-d int64 graph value
    per dimension only known at run time."""
    if not isinstance(a, Variable):
        return np.shape(a)
    if a.type.is_static:
        return tuple(a.shape)
    s = shape_of(a)
    return tuple(d if d is not None else s[i] for i, d in enumerate(a.shape))


def ndim(a: Any) -> int:
    """numpy.ndim: the rank (always static in a graph)."""
    return a.ndim if isinstance(a, Variable) else np.ndim(a)


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
#: numpy.concat, the array API's name of numpy.concatenate (dtype and casting included)
concat = sh.concatenate


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _arrays(tup: Any, op: str, dtype: Any, casting: str) -> list[Variable]:
    """The inputs of a stacking function as Variables of one dtype (``dtype`` or their result type),
    with NumPy's ``casting`` check."""
    if isinstance(tup, (Variable, np.ndarray)) or not isinstance(tup, Sequence):
        raise TypeError(f"{op}: expected a list or tuple of arrays, got {type(tup).__name__}")
    if not tup:
        raise ValueError(f"{op}: need at least one array to concatenate")
    if casting not in _CASTINGS:
        raise ValueError(f"{op}: casting must be one of {', '.join(map(repr, _CASTINGS))} (got {casting!r})")
    tup = [a if isinstance(a, Variable) else np.asarray(a) for a in tup]
    dt = result_type(*tup) if dtype is None else as_dtype(dtype)
    for i, a in enumerate(tup):
        if not np.can_cast(a.dtype, dt, casting=casting):
            raise TypeError(f"{op}: cannot cast input {i} from {a.dtype} to {dt} according to the "
                            f"rule {casting!r}")
    return [as_variable(a, dt) for a in tup]


def vstack(tup: Sequence[Any], *, dtype: Any = None, casting: str = "same_kind") -> Variable:
    """numpy.vstack: the inputs (1-d ones as rows) concatenated along the first axis."""
    return sh.concatenate([_atleast(a, 2) for a in _arrays(tup, "vstack", dtype, casting)], 0)


row_stack = vstack


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
def _split(x: Any, indices_or_sections: Any, axis: int, op: str, even: bool) -> list[Variable]:
    x = as_variable(x)
    axis = normalize_axis(axis, x.ndim, op)
    n = static_shape(x, op, [axis])[axis]
    if isinstance(indices_or_sections, (list, tuple, np.ndarray)):
        bounds = [0, *as_ints(indices_or_sections, op, "split indices"), n]
    else:
        sections = as_int(indices_or_sections, op, "the number of sections")
        if sections <= 0:
            raise ValueError(f"{op}: the number of sections must be larger than 0, got {sections}")
        if even and n % sections:
            raise ValueError(f"{op}: array split does not result in an equal division "
                             f"({n} elements into {sections} sections)")
        size_, extra = divmod(n, sections)
        sizes = [size_ + 1] * extra + [size_] * (sections - extra)
        bounds = [0, *np.cumsum(sizes).tolist()]
    lead = (slice(None),) * axis
    return [getitem(x, lead + (slice(lo, hi),)) for lo, hi in zip(bounds[:-1], bounds[1:])]


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Variable]:
    """numpy.split: equal sections (an int that divides the axis) or split points."""
    return _split(x, indices_or_sections, axis, "split", even=True)


def array_split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Variable]:
    """numpy.array_split: as ``split``, sections may differ by one (the first ones larger)."""
    return _split(x, indices_or_sections, axis, "array_split", even=False)


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


def unstack(x: Any, axis: int = 0) -> tuple[Variable, ...]:
    """The slices of ``x`` along ``axis``, as numpy.unstack (the axis needs a known size)."""
    x = as_variable(x)
    ax = normalize_axis(axis, x.ndim, "unstack")
    n = x.shape[ax]
    if n is None:
        raise ValueError(f"unstack: axis {axis} of {x.type} has an unknown size")
    index = (slice(None),) * ax
    return tuple(x[index + (i,)] for i in range(n))


# --- axis moves ------------------------------------------------------------------------------
def sliding_window_view(x: Any, window_shape: int | Sequence[int], axis: int | Sequence[int] | None = None, *,
                        subok: bool = False, writeable: bool = False) -> Variable:
    """numpy.lib.stride_tricks.sliding_window_view: every window of ``window_shape`` along
    ``axis`` (all axes when None; an axis may repeat), the window dims appended after
    ``x``'s trimmed ones. A copy (a gather) rather than a view: graph values are immutable,
    so ``writeable=True`` has nothing to write into."""
    if writeable:
        raise TypeError("sliding_window_view(..., writeable=True) on a graph value: graph values are "
                        "immutable, there is no view to write into")
    x = as_variable(x)
    window = tuple(as_ints(window_shape, "sliding_window_view", "window_shape")) if np.iterable(window_shape) \
        else (as_int(window_shape, "sliding_window_view", "window_shape"),)
    if any(w < 0 for w in window):
        raise ValueError("sliding_window_view: `window_shape` cannot contain negative values")
    if axis is None:
        axes = tuple(range(x.ndim))
        if len(window) != len(axes):
            raise ValueError(f"sliding_window_view: Since axis is `None`, must provide window_shape for all "
                             f"dimensions of `x`; got {len(window)} window_shape elements and `x.ndim` is {x.ndim}.")
    else:
        axes = tuple(normalize_axis(a, x.ndim, "sliding_window_view")
                     for a in (axis if np.iterable(axis) else (axis,)))
        if len(window) != len(axes):
            raise ValueError(f"sliding_window_view: Must provide matching length window_shape and axis; got "
                             f"{len(window)} window_shape elements and {len(axes)} axes elements.")
    out = x
    for ax, w in zip(axes, window):
        n = static_shape(out, "sliding_window_view", [ax])[ax]
        if n < w:
            raise ValueError("sliding_window_view: window shape cannot be larger than input array shape")
        idx = np.arange(n - w + 1, dtype=np.int64)[:, None] + np.arange(w, dtype=np.int64)[None, :]
        out = moveaxis(getitem(out, _along(ax, out.ndim, idx)), ax + 1, -1)
    return out


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
    start = as_int(start, "rollaxis", "start")
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


def matrix_transpose(x: Any, /) -> Variable:
    """Swaps the last two axes, as numpy.matrix_transpose and numpy.linalg.matrix_transpose."""
    x = as_variable(x)
    if x.ndim < 2:
        raise ValueError(f"linalg.matrix_transpose: input array must be at least 2-dimensional, "
                         f"got {x.type}")
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return sh.transpose(x, perm)


def ravel(a: Any, order: str = "C") -> Variable:
    """numpy.ravel: the elements as a 1-d array in ``order`` 'C' (row-major) or 'F' (column-major);
    'A' and 'K' read in C order, the layout of every graph value."""
    a = as_variable(a)
    if order not in ("C", "F", "A", "K"):
        raise ValueError(f"ravel: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if order == "F" and a.ndim > 1:
        a = sh.transpose(a)
    return sh.reshape(a, -1)


# --- tiling ---------------------------------------------------------------------------------
def _interleave(x: Variable, reps: Sequence[int], op: str, after: bool) -> Variable:
    """``x`` (of rank len(reps)) broadcast to (r0, s0, r1, s1, ...) (``after``: (s0, r0, ...))
    and merged into (r0*s0, r1*s1, ...)."""
    shape = static_shape(x, op)
    pairs = [(s, r) if after else (r, s) for s, r in zip(shape, reps)]
    spread = [d for s, r in zip(shape, reps) for d in ((s, 1) if after else (1, s))]
    y = sh.broadcast_to(sh.reshape(x, spread), [d for p in pairs for d in p])
    return sh.reshape(y, [s * r for s, r in zip(shape, reps)])


def tile(x: Any, reps: Any) -> Variable:
    """numpy.tile: ``x`` repeated ``reps`` times along each dim (ranks aligned on the right)."""
    x = as_variable(x)
    reps = as_ints(reps, "tile", "reps")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: reps must be non-negative, got {reps}")
    ndim = max(x.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    if x.ndim < ndim:
        x = sh.reshape(x, (1,) * (ndim - x.ndim) + static_shape(x, "tile"))
    return _interleave(x, reps, "tile", after=False)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Variable:
    """numpy.repeat with static ``repeats``: an int, or one count per element along ``axis``
    (``None``: of the flattened ``x``). Graph-valued ``repeats`` run on the host."""
    if isinstance(repeats, Variable):
        return dynamic_repeat(x, repeats, axis)
    x = as_variable(x)
    if axis is None or x.ndim == 0:  # NumPy takes a 0-d input as 1-d (axis 0 or -1)
        x = sh.reshape(x, -1)
        axis = 0 if axis is None else axis
    axis = normalize_axis(axis, x.ndim, "repeat")
    counts = as_ints(repeats, "repeat", "repeats")
    if any(c < 0 for c in counts):
        raise ValueError(f"repeat: repeats must be non-negative, got {counts}")
    n = static_shape(x, "repeat", [axis])[axis]
    if isinstance(repeats, (list, tuple, np.ndarray)) and len(counts) != 1:
        if len(counts) != n:
            raise ValueError(f"repeat: {len(counts)} repeats for an axis of size {n}")
        return take(x, np.repeat(np.arange(n, dtype=np.int64), counts), axis=axis)
    reps = [1] * x.ndim
    reps[axis] = counts[0]
    return _interleave(x, reps, "repeat", after=True)


# --- rearranging ----------------------------------------------------------------------------
def flip(x: Any, axis: int | Sequence[int] | None = None) -> Variable:
    """numpy.flip: ``x`` reversed along ``axis`` (``None``: every axis)."""
    x = as_variable(x)
    axes = normalize_axes(axis, x.ndim, "flip")
    return getitem(x, tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(x.ndim)))


def roll(x: Any, shift: Any, axis: int | Sequence[int] | None = None) -> Variable:
    """numpy.roll with static shifts: elements shifted along ``axis`` (``None``: of the flattened
    ``x``) and wrapped around."""
    x = as_variable(x)
    if axis is None:
        return sh.reshape(roll(sh.reshape(x, -1), shift, 0), static_shape(x, "roll"))
    shifts = as_ints(shift, "roll", "shift")
    axes = [normalize_axis(a, x.ndim, "roll") for a in as_ints(axis, "roll", "axis")]
    try:
        pairs = np.broadcast(np.asarray(shifts), np.asarray(axes))
    except ValueError:
        raise ValueError(f"roll: 'shift' and 'axis' must broadcast, got {shifts} and {tuple(axes)}") from None
    total: dict[int, int] = {}
    for s, a in pairs:
        total[int(a)] = total.get(int(a), 0) + int(s)
    for a, s in total.items():
        n = static_shape(x, "roll", [a])[a]
        s = s % n if n else 0
        if s:
            lead = (slice(None),) * a
            tail, head = getitem(x, lead + (slice(n - s, None),)), getitem(x, lead + (slice(0, n - s),))
            x = sh.concatenate([tail, head], a)
    return x


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
    k = as_int(k, "rot90", "k") % 4
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
    shape = list(static_shape(arr, "insert"))
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
        numnew = static_shape(values, "insert")[axis]
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
    n = static_shape(arr, "delete", [axis])[axis]
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
    shape = tuple(as_int(d, "resize", "a dim of new_shape") for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError("resize: all elements of `new_shape` must be non-negative")
    size = math.prod(static_shape(a, "resize"))
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
        static_shape(v, f"broadcast_arrays (input {i})")
    shape = broadcast_shapes(*(v.shape for v in vs), op="broadcast_arrays")
    return tuple(v if tuple(v.shape) == shape else sh.broadcast_to(v, shape) for v in vs)
