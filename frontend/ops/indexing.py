"""Indexing (``x[idx]``) and updates at indices, with NumPy semantics.

``getitem`` (the target of ``Variable.__getitem__``) accepts what NumPy calls
basic indexing: Python ints (negative ones count from the end), slices with
any step (bounds clamped as Python clamps them), ``None`` / ``np.newaxis``,
``Ellipsis`` and tuples of these. The index is normalized once into a
``Subtensor`` Op: one entry per input dim (Ellipsis expanded, trailing dims
filled with ``:``) plus ``None`` for each new axis, so ``x[0]`` and
``x[0, ...]`` build equal Ops. Bounds that depend on a dim's size are resolved
from the input's type, again after the graph is specialized to concrete shapes.

Integer arrays (NumPy arrays, lists, graph Variables of an integer dtype) in the
index make it advanced: ``AdvancedSubtensor`` takes the index arrays as inputs
and keeps an ``"array"`` marker for each in its ``idx``; Python ints next to an
array count as 0-d index arrays, as in NumPy. The index arrays broadcast
together; their shape replaces the indexed dims in place when the array entries
are adjacent in the index (``None`` separates them), and goes first otherwise.
Negative indices wrap once. An index out of range raises ``IndexError`` in
``perform`` (and at build time for constant indices); on a device it is clamped
into range (``stablehlo.gather`` semantics). Boolean (mask) indices are not
indexing here: they make value-dependent shapes.

``at(x)[idx].set(v)`` (and ``.add``, ``.multiply``, ``.min``, ``.max``) returns
a copy of ``x`` updated at ``x[idx]``, with ``v`` broadcast to the shape of
``x[idx]`` and cast to ``x``'s dtype; ``set_subtensor(x[idx], v)`` and
``inc_subtensor(x[idx], v)`` are PyTensor's spellings.
``take``, ``take_along_axis``, ``put_along_axis``, ``one_hot``, ``unravel_index`` and
``ravel_multi_index`` are built from these and elementwise ops; ``searchsorted`` is
its own Op. Duplicate indices
accumulate (``np.add.at`` semantics); which of several writes to one element
``set`` keeps is unspecified. On a device, updates at indices out of range are
dropped (``stablehlo.scatter`` semantics); ``perform`` raises ``IndexError``.

Derivatives follow jax's: the cotangent of a gather is scatter-added back (repeated
indices accumulate); of an update, ``x`` gets the cotangent (zero where ``set``
wrote) and ``v`` the gathered cotangent summed over its broadcasting, for ``set``
only where its write is the one kept. ``multiply`` is exact with zero factors;
``min``/``max`` share a cotangent evenly among the values equal to the result. The
rules are built from these Ops, so they differentiate again; index arrays and
``searchsorted`` have no derivative.

``dynamic_slice(x, starts, sizes)`` and ``dynamic_update_slice(x, update, starts)``
(jax.lax's) take a window of static sizes at start indices known at run time,
each start clamped into [0, dim - size] as StableHLO clamps it; the cotangent of
a dynamic slice is written into zeros at the window, that of an update is the
window of the cotangent (and the cotangent with the window zeroed for ``x``).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import symbolic
from ..graph import Apply, Constant, Op, Variable
from ..symbolic import SymDim
from ..types import TensorType, is_complex
from ..types import is_inexact
from . import elemwise as ew
from . import shape as sh
from .basic import as_variable, broadcast_shapes, normalize_axis, result_type
from .dynamic import boolean_mask

__all__ = [
    "getitem", "at", "set_subtensor", "inc_subtensor", "take", "take_along_axis", "put_along_axis",
    "one_hot", "unravel_index", "ravel_multi_index", "SearchSorted", "searchsorted",
    "DynamicSlice", "DynamicUpdateSlice", "dynamic_slice", "dynamic_update_slice",
]

# A normalized index entry is an int, None (a new axis) or a slice as (start, stop, step):
# slice objects are unhashable before Python 3.12, and Op props must hash.
_FULL = (None, None, None)


def _is_slice(e) -> bool:
    return isinstance(e, tuple)


def _fmt_entry(e) -> str:
    if e is None:
        return "None"
    if not _is_slice(e):
        return str(e)
    start, stop, step = ("" if v is None else str(v) for v in e)
    return f"{start}:{stop}" + (f":{step}" if step else "")


def slice_length(entry: tuple, dim: int) -> int:
    """How many elements ``slice(*entry)`` selects from a dim of size ``dim``."""
    if type(dim) is SymDim:
        return symbolic.slice_length(entry, dim)
    return len(range(*slice(*entry).indices(dim)))


class Subtensor(Op):
    """``x[idx]`` for a normalized basic index (see the module docstring)."""

    __props__ = ("idx",)

    def __init__(self, idx: tuple):
        self.idx = tuple(idx)

    def __str__(self) -> str:
        return "Subtensor{idx=[" + ", ".join(_fmt_entry(e) for e in self.idx) + "]}"

    __repr__ = __str__

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        consumed = [e for e in self.idx if e is not None]
        if len(consumed) != x.ndim:
            raise ValueError(f"{self}: the index has {len(consumed)} entries for input 'x' of rank {x.ndim}")
        shape: list[int | None] = []
        dims = iter(enumerate(x.shape))
        for e in self.idx:
            if e is None:
                shape.append(1)
                continue
            axis, d = next(dims)
            if _is_slice(e):
                shape.append(None if d is None else slice_length(e, d))
            elif d is not None and not -d <= e < d:
                raise IndexError(f"{self}: index {e} is out of bounds for axis {axis} with size {d}")
        return Apply(self, [x], [TensorType(x.dtype, shape)])

    def perform(self, node, inputs):
        key = tuple(slice(*e) if _is_slice(e) else e for e in self.idx)
        return [np.asarray(inputs[0][key])]

    # derivatives: the cotangent placed back where the index took it from (zeros
    # elsewhere): new axes dropped, int-indexed dims restored, reversed and strided
    # slices undone, then one Pad; a scatter-add into zeros where the sizes this needs
    # are unknown
    def pullback(self, node, cotangents):
        (x,) = node.inputs
        if not is_inexact(x.dtype):
            return [None]
        return [_subtensor_cotangent(self.idx, cotangents[0], x)]

    def pushforward(self, node, tangents):
        t = tangents[0]
        return [None if t is None or not is_inexact(t.dtype) else self(t)]


def _flip_axis(v: Variable, axis: int) -> Variable:
    return Subtensor(tuple((None, None, -1) if a == axis else _FULL for a in range(v.ndim)))(v)


def _subtensor_cotangent(idx: tuple, ct: Variable, x: Variable) -> Variable:
    if not _pads_back(idx, x):
        return _scatter_back(idx, ct, x)
    from .construct import Pad
    new_axes, pos = [], 0
    for e in idx:
        if e is None:
            new_axes.append(pos)
        if e is None or _is_slice(e):
            pos += 1
    if new_axes:
        ct = sh.Squeeze(tuple(new_axes))(ct)
    consumed = [e for e in idx if e is not None]
    int_axes = tuple(a for a, e in enumerate(consumed) if not _is_slice(e))
    if int_axes:
        ct = sh.ExpandDims(int_axes)(ct)
    widths = []
    for a, e in enumerate(consumed):
        d = x.shape[a]
        if _is_slice(e) and e in _WHOLE:
            if e == (None, None, -1):
                ct = _flip_axis(ct, a)
            widths.append((0, 0))
            continue
        if not _is_slice(e):
            i = e % d
            widths.append((i, d - 1 - i))
            continue
        r = range(*slice(*e).indices(d))
        if not r:
            widths.append((0, d))
            continue
        if r.step < 0:
            ct = _flip_axis(ct, a)
            r = r[::-1]
        if r.step > 1:
            ct = _interleave_zeros(ct, a, r.step)
        widths.append((r.start, d - 1 - r[-1]))
    if any(b or c for b, c in widths):
        ct = Pad(widths)(ct, Constant(np.zeros((), ct.dtype)))
    return ct


#: slice entries that take a whole dim (reversed or not)
_WHOLE = (_FULL, (None, None, 1), (None, None, -1))


def _pads_back(idx: tuple, x: Variable) -> bool:
    """Whether the cotangent of ``x[idx]`` can be padded back: the dims the index cuts have
    known sizes, and a strided slice leaves at most one unknown dim (it reshapes)."""
    strided = False
    for e, d in zip((e for e in idx if e is not None), x.shape):
        if _is_slice(e) and e in _WHOLE:
            continue
        if d is None:
            return False
        if _is_slice(e):
            r = range(*slice(*e).indices(d))
            strided = strided or (bool(r) and abs(r.step) > 1)
    return not strided or x.shape.count(None) <= 1


def _scatter_back(idx: tuple, ct: Variable, x: Variable) -> Variable:
    """The cotangent of ``x[idx]`` added into zeros shaped like ``x`` where the index took
    it from (any dim unknown; its ints as 0-d index arrays)."""
    entries, arrays = [], []
    for e in idx:
        if e is None or _is_slice(e):
            entries.append(e)
        else:
            entries.append(ARRAY)
            arrays.append(Constant(np.int64(e)))
    return AdvancedIncSubtensor(tuple(entries), "add")(sh.zeros_like(x), ct, *arrays)


def _interleave_zeros(v: Variable, axis: int, step: int) -> Variable:
    """``v`` with ``step - 1`` zeros between consecutive elements along ``axis`` (of known
    size; at most one other dim unknown)."""
    from .construct import Pad
    shape = list(v.shape)
    k = shape[axis]
    w = sh.ExpandDims((axis + 1,))(v)
    w = Pad([(0, step - 1) if a == axis + 1 else (0, 0) for a in range(w.ndim)])(
        w, Constant(np.zeros((), v.dtype)))
    shape[axis] = k * step
    w = sh.Reshape(tuple(-1 if d is None else d for d in shape))(w)
    return Subtensor(tuple((None, (k - 1) * step + 1, None) if a == axis else _FULL
                           for a in range(w.ndim)))(w)


# --- advanced indexing ------------------------------------------------------------
#: the ``idx`` entry of an index array (the next index input of the node)
ARRAY = "array"


def _array_positions(idx: tuple) -> list[int]:
    return [i for i, e in enumerate(idx) if e == ARRAY]


def _advanced_offsets(idx: tuple) -> tuple[int, int]:
    """Where the broadcast index shape goes: (in the result, among the dims that are
    neither new axes nor indexed by slices before it; in the result without new axes).
    Adjacent array entries put it in place of the first one, separated ones first."""
    pos = _array_positions(idx)
    if not pos:
        return 0, 0
    if pos[-1] - pos[0] + 1 != len(pos):
        return 0, 0
    before = idx[:pos[0]]
    return len(before), sum(_is_slice(e) for e in before)


def advanced_shapes(idx: tuple, x_shape: tuple, index_shape: tuple) -> tuple[tuple, tuple, int]:
    """(result shape, result shape without new axes, where ``index_shape`` sits in the
    latter) of ``x[idx]`` for an advanced ``idx`` whose index arrays broadcast to
    ``index_shape``."""
    at, at_gathered = _advanced_offsets(idx)
    shape: list = []
    gathered: list = []
    dims = iter(x_shape)
    for e in idx:
        if e is None:
            shape.append(1)
            continue
        d = next(dims)
        if _is_slice(e):
            n = None if d is None else slice_length(e, d)
            shape.append(n)
            gathered.append(n)
    index_shape = tuple(index_shape)
    return (tuple(shape[:at]) + index_shape + tuple(shape[at:]),
            tuple(gathered[:at_gathered]) + index_shape + tuple(gathered[at_gathered:]), at_gathered)


def _fmt_advanced(idx: tuple) -> str:
    return "[" + ", ".join(_fmt_entry(e) for e in idx) + "]"


def _index_key(idx: tuple, arrays: list[np.ndarray]) -> tuple:
    it = iter(arrays)
    return tuple(next(it) if e == ARRAY else slice(*e) if _is_slice(e) else e for e in idx)


def _check_advanced(op: Op, x: Variable, indices: list[Variable]) -> tuple:
    """Validates ``x`` and the index arrays of ``op.idx``; returns their broadcast shape."""
    idx = op.idx
    consumed = [e for e in idx if e is not None]
    if len(consumed) != x.ndim:
        raise ValueError(f"{op}: the index has {len(consumed)} entries for input 'x' of rank {x.ndim}")
    n_arrays = len(_array_positions(idx))
    if len(indices) != n_arrays or (n_arrays == 0 and isinstance(op, AdvancedSubtensor)):
        raise ValueError(f"{op}: expected {n_arrays or 'at least 1'} index arrays, got {len(indices)}")
    axes = [a for a, e in enumerate(consumed) if e == ARRAY]
    for k, (axis, i) in enumerate(zip(axes, indices)):
        if i.dtype.kind not in "iu":
            raise TypeError(f"{op}: index array {k} (for axis {axis}) must have an integer dtype, "
                            f"got {i.dtype}")
        d = x.shape[axis]
        if isinstance(i, Constant) and d is not None and i.data.size:
            lo, hi = int(i.data.min()), int(i.data.max())
            bad = hi if hi >= d else lo if lo < -d else None
            if bad is not None:
                raise IndexError(f"{op}: index {bad} is out of bounds for axis {axis} with size {d}")
    try:
        return broadcast_shapes(*(i.shape for i in indices), op=str(op))
    except ValueError:
        raise IndexError(
            f"{op}: shape mismatch: index arrays could not be broadcast together with shapes "
            + " ".join(str(tuple(i.shape)) for i in indices)
        ) from None


class AdvancedSubtensor(Op):
    """``x[idx]`` where ``idx`` holds index arrays (``"array"`` entries, the inputs after ``x``),
    slices as (start, stop, step) and None (see the module docstring)."""

    __props__ = ("idx",)

    def __init__(self, idx: tuple):
        self.idx = tuple(idx)

    def __str__(self) -> str:
        return f"AdvancedSubtensor{{idx={_fmt_advanced(self.idx)}}}"

    __repr__ = __str__

    def make_node(self, x: Any, *indices: Any) -> Apply:
        x = as_variable(x)
        indices = [as_variable(i) for i in indices]
        index_shape = _check_advanced(self, x, indices)
        shape, _, _ = advanced_shapes(self.idx, x.shape, index_shape)
        return Apply(self, [x, *indices], [TensorType(x.dtype, shape)])

    def perform(self, node, inputs):
        x, *arrays = inputs
        return [np.asarray(x[_index_key(self.idx, arrays)])]

    # derivatives: the cotangent added back where each element was taken from (a
    # scatter-add into zeros: repeated indices accumulate); the index arrays have none
    def pullback(self, node, cotangents):
        x, *indices = node.inputs
        if not is_inexact(x.dtype):
            return [None] * len(node.inputs)
        ct = AdvancedIncSubtensor(self.idx, "add")(sh.zeros_like(x), cotangents[0], *indices)
        return [ct] + [None] * len(indices)

    def pushforward(self, node, tangents):
        t = tangents[0]
        return [None if t is None or not is_inexact(t.dtype) else self(t, *node.inputs[1:])]


_UFUNCS = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum}


class AdvancedIncSubtensor(Op):
    """A copy of ``x`` with ``x[idx]`` set to (``mode="set"``) or combined with ``v``
    (``"add"``, ``"mul"``, ``"min"``, ``"max"``; duplicate indices accumulate). ``idx`` is
    an advanced index (see AdvancedSubtensor); inputs are ``x``, ``v``, then the index arrays."""

    __props__ = ("idx", "mode")
    MODES = ("set", "add", "mul", "min", "max")

    def __init__(self, idx: tuple, mode: str = "set"):
        if mode not in self.MODES:
            raise ValueError(f"AdvancedIncSubtensor: mode must be one of {self.MODES}, got {mode!r}")
        self.idx = tuple(idx)
        self.mode = mode

    def __str__(self) -> str:
        return f"AdvancedIncSubtensor{{idx={_fmt_advanced(self.idx)}, mode={self.mode}}}"

    __repr__ = __str__

    def make_node(self, x: Any, v: Any, *indices: Any) -> Apply:
        x = as_variable(x)
        v = as_variable(v)
        indices = [as_variable(i) for i in indices]
        if v.dtype != x.dtype:
            raise TypeError(f"{self}: input 'v' must have the dtype of 'x' ({x.dtype}), got {v.dtype}")
        if self.mode in ("min", "max") and is_complex(x.dtype):
            raise TypeError(f"{self}: complex inputs have no {self.mode}imum, got 'x' of dtype {x.dtype}")
        index_shape = _check_advanced(self, x, indices)
        target, _, _ = advanced_shapes(self.idx, x.shape, index_shape)
        if v.ndim > len(target) or any(
            a is not None and b is not None and a != 1 and a != b
            for a, b in zip(v.shape[::-1], target[::-1])
        ):
            raise ValueError(f"{self}: input 'v' of shape {tuple(v.shape)} does not broadcast to the "
                             f"indexed shape {tuple(target)}")
        return Apply(self, [x, v, *indices], [x.type])

    def perform(self, node, inputs):
        x, v, *arrays = inputs
        out = np.array(x, copy=True)
        key = _index_key(self.idx, arrays)
        if self.mode == "set":
            out[key] = v
        else:
            target = np.broadcast_to(v, out[key].shape)
            with np.errstate(invalid="ignore"):
                _UFUNCS[self.mode].at(out, key, target)
        return [out]

    # derivatives (as jax's): "add" passes the cotangent to x and gathers it for v
    # (summed over v's broadcasting); "set" zeroes x's at the written elements and
    # gives each element of v the gathered cotangent only if its write is the one kept
    # (with repeated indices, found by writing distinct ids the same way); "mul" is
    # exact with zeros; "min"/"max" share each cotangent evenly among the values equal
    # to the result. The index arrays have none.
    def pullback(self, node, cotangents):
        x, v, *indices = node.inputs
        none = [None] * len(indices)
        if not is_inexact(x.dtype):
            return [None, None] + none
        from ..autodiff import sum_to
        ct, zero = cotangents[0], Constant(np.zeros((), x.dtype))
        if self.mode == "add":
            return [ct, sum_to(_gather(self.idx, ct, indices), v)] + none
        if self.mode == "set":
            g = _gather(self.idx, ct, indices)
            if _may_repeat(self.idx, x, indices):
                g = ew.where(_kept_writes(self.idx, x, indices, g), g, zero)
            return [AdvancedIncSubtensor(self.idx, "set")(ct, zero, *indices), sum_to(g, v)] + none
        if self.mode == "mul":
            return [*_mul_pullback(self.idx, x, v, indices, ct)] + none
        return [*_extremum_pullback(self.idx, x, v, node.outputs[0], indices, ct)] + none

    def pushforward(self, node, tangents):
        tx, tv, x = tangents[0], tangents[1], node.inputs[0]
        if (tx is None and tv is None) or not is_inexact(x.dtype):
            return [None]
        if self.mode not in ("set", "add"):
            return super().pushforward(node, tangents)  # by transposing the pullback
        tx = sh.zeros_like(x) if tx is None else tx
        tv = Constant(np.zeros((), x.dtype)) if tv is None else tv
        return [self(tx, tv, *node.inputs[2:])]


def _gather(idx: tuple, a: Variable, indices: list[Variable]) -> Variable:
    """``a[idx]`` for the index of an AdvancedIncSubtensor (which may hold no array)."""
    return AdvancedSubtensor(idx)(a, *indices) if indices else Subtensor(idx)(a)


def _may_repeat(idx: tuple, x: Variable, indices: list[Variable]) -> bool:
    """Whether two elements of ``x[idx]`` may be one element of ``x``: False only when the
    index arrays are constants whose index tuples (negative ones wrapped) are distinct."""
    if not indices:
        return False
    if not all(isinstance(i, Constant) for i in indices):
        return True
    axes = [a for a, e in enumerate(e for e in idx if e is not None) if e == ARRAY]
    columns = []
    for a, i in zip(axes, indices):
        data, d = i.data.astype(np.int64), x.shape[a]
        if d is not None:
            data = np.where(data < 0, data + d, data)
        elif data.size and data.min() < 0 <= data.max():
            return True  # -1 and d - 1 may be one element
        columns.append(data)
    columns = [c.reshape(-1) for c in np.broadcast_arrays(*columns)]
    rows = np.stack(columns, axis=-1)
    return len(np.unique(rows, axis=0)) != len(rows)


def _element_ids(like: Variable) -> Variable:
    """Distinct positive int64 values of ``like``'s shape (its elements' positions plus 1)."""
    if like.type.is_static:
        n = like.type.size
        return sh.Reshape(like.shape)(sh.Arange(1, n + 1, 1, "int64")())
    from .construct import shape_of
    from .reduction import CumOp
    ones = sh.full_like(like, 1, "int64")
    dims = shape_of(like)
    ids: Variable = ones
    stride: Variable | None = None
    for d in reversed(range(like.ndim)):
        pos = ew.subtract(CumOp(d, "add")(ones), 1)
        ids = ew.add(ids, pos if stride is None else ew.multiply(pos, stride))
        dim = getitem(dims, d)
        stride = dim if stride is None else ew.multiply(stride, dim)
    return ids


def _kept_writes(idx: tuple, x: Variable, indices: list[Variable], like: Variable) -> Variable:
    """Which elements of the update (of ``like``'s shape, that of ``x[idx]``) a "set" write
    keeps where indices repeat: distinct ids written the same way, read back."""
    ids = _element_ids(like)
    written = AdvancedIncSubtensor(idx, "set")(sh.zeros_like(x, "int64"), ids, *indices)
    return ew.equal(AdvancedSubtensor(idx)(written, *indices), ids)


def _mul_pullback(idx: tuple, x: Variable, v: Variable, indices: list[Variable],
                  ct: Variable) -> tuple[Variable, Variable]:
    """The cotangents of ``x`` and ``v`` for y = x with x[idx] multiplied by v: for x, ct times
    the product written at each element; for each element of v, ct * x times the product
    of the other factors written at its element (exact with zeros: they are counted)."""
    from ..autodiff import sum_to
    ct_x = ew.multiply(ct, AdvancedIncSubtensor(idx, "mul")(sh.ones_like(x), v, *indices))
    g = _gather(idx, ew.multiply(ct, x), indices)
    if not _may_repeat(idx, x, indices):
        return ct_x, sum_to(g, v)
    is_zero = ew.equal(v, Constant(np.zeros((), v.dtype)))
    nonzero = ew.where(is_zero, Constant(np.ones((), v.dtype)), v)
    zeros = ew.astype(is_zero, "int64")
    n_zeros = AdvancedIncSubtensor(idx, "add")(sh.zeros_like(x, "int64"), zeros, *indices)
    others_zero = ew.subtract(_gather(idx, n_zeros, indices), zeros)
    product = AdvancedIncSubtensor(idx, "mul")(sh.ones_like(x), nonzero, *indices)
    g = ew.divide(ew.multiply(g, _gather(idx, product, indices)), nonzero)
    g = ew.where(ew.equal(others_zero, 0), g, Constant(np.zeros((), v.dtype)))
    return ct_x, sum_to(g, v)


def _extremum_pullback(idx: tuple, x: Variable, v: Variable, y: Variable, indices: list[Variable],
                       ct: Variable) -> tuple[Variable, Variable]:
    """The cotangents of ``x`` and ``v`` for y = x with x[idx] replaced by its min (or max)
    with v: each element's cotangent shared evenly by the values equal to it (x's and
    the elements of v written there; a NaN equals a NaN), as jax shares it."""
    from ..autodiff import sum_to

    def same(a: Variable, b: Variable) -> Variable:
        return ew.logical_or(ew.equal(a, b), ew.logical_and(ew.isnan(a), ew.isnan(b)))

    zero = Constant(np.zeros((), x.dtype))
    kept = same(x, y)
    won = same(v, _gather(idx, y, indices))
    count = AdvancedIncSubtensor(idx, "add")(ew.astype(kept, x.dtype), ew.astype(won, x.dtype), *indices)
    share = ew.divide(ct, count)
    return (ew.where(kept, share, zero),
            sum_to(ew.where(won, _gather(idx, share, indices), zero), v))


# --- index normalization -----------------------------------------------------------
def _index_int(v: Any, what: str) -> int:
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"getitem: {what} must be integers or None, got {v!r}") from None


def _is_array_index(item: Any) -> bool:
    if isinstance(item, Variable):
        return True
    if isinstance(item, np.ndarray):
        return item.ndim > 0 or item.dtype.kind not in "iu"
    return isinstance(item, (list, tuple))


def _index_array(item: Any, what: str) -> Variable:
    """The index Variable of an array-like index entry."""
    if isinstance(item, Variable):
        v = item
    else:
        arr = np.asarray(item)
        if arr.size == 0 and arr.dtype.kind == "f":  # NumPy reads [] as an empty intp index
            arr = arr.astype(np.int64)
        v = Constant(arr)
    if v.dtype == np.bool_:
        raise NotImplementedError(
            f"{what}: boolean (mask) indices give value-dependent shapes and are not supported by "
            "indexing; use nonzero() on the mask"
        )
    if v.dtype.kind not in "iu":
        raise IndexError(f"{what}: arrays used as indices must be of integer type, got {v.dtype}")
    return v


def _normalize(idx: Any, ndim: int, advanced: bool | None = None) -> tuple[tuple, list[Variable]]:
    """The Subtensor entries for the NumPy index ``idx`` on an input of rank ``ndim``, and
    its index arrays. With any array in ``idx`` (or ``advanced=True``) ints become 0-d index
    arrays and each array entry is ``ARRAY``."""
    items = idx if isinstance(idx, tuple) else (idx,)
    if advanced is None:
        advanced = any(_is_array_index(item) for item in items)
    entries: list = []
    arrays: list[Variable] = []
    ellipsis_at = None
    for item in items:
        if item is Ellipsis:
            if ellipsis_at is not None:
                raise IndexError("getitem: an index can only have a single ellipsis ('...')")
            ellipsis_at = len(entries)
        elif item is None:
            entries.append(None)
        elif isinstance(item, slice):
            start, stop, step = (None if v is None else _index_int(v, "slice indices")
                                 for v in (item.start, item.stop, item.step))
            if step == 0:
                raise ValueError("getitem: slice step cannot be zero")
            entries.append((start, stop, step))
        elif isinstance(item, (bool, np.bool_)):
            raise NotImplementedError(
                "getitem: boolean indices give value-dependent shapes and are not supported by indexing"
            )
        elif isinstance(item, (int, np.integer, np.ndarray)) and not _is_array_index(item):
            if advanced:
                entries.append(ARRAY)
                arrays.append(Constant(np.int64(int(item))))
            else:
                entries.append(int(item))
        elif _is_array_index(item):
            entries.append(ARRAY)
            arrays.append(_index_array(item, "getitem"))
        else:
            raise IndexError(
                "getitem: only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                f"integer arrays are valid indices, got {item!r}"
            )
    consumed = sum(e is not None for e in entries)
    if consumed > ndim:
        raise IndexError(
            f"getitem: too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed"
        )
    fill = [_FULL] * (ndim - consumed)
    if ellipsis_at is None:
        return tuple(entries + fill), arrays
    return tuple(entries[:ellipsis_at] + fill + entries[ellipsis_at:]), arrays


def getitem(x: Any, idx: Any) -> Variable:
    """``x[idx]`` with NumPy's indexing: ints, slices, None, Ellipsis, integer arrays (NumPy
    arrays, lists, integer graph values) and tuples of them.

    Raises:
        IndexError: an int or constant index out of bounds, too many indices, two ellipses,
            index arrays that do not broadcast, an invalid index.
        NotImplementedError: boolean indices mixed with other indices.

    A single boolean array ``x[mask]`` selects on the host (``boolean_mask``): its
    length depends on the values.
    """
    x = as_variable(x)
    if _is_mask(idx):
        # the result's length depends on the mask's values: a host op
        return boolean_mask(x, idx)
    entries, arrays = _normalize(idx, x.ndim)
    if arrays:
        return AdvancedSubtensor(entries)(x, *arrays)
    return Subtensor(entries)(x)


def _is_mask(idx: Any) -> bool:
    """A single boolean array index (a graph value or a NumPy array)."""
    return (isinstance(idx, Variable) or isinstance(idx, np.ndarray)) and idx.dtype == np.bool_ \
        and idx.ndim > 0


# --- updates at indices ------------------------------------------------------------
def _update_entries(x: Variable, entries: tuple, arrays: list[Variable], v: Any, mode: str) -> Variable:
    return AdvancedIncSubtensor(entries, mode)(x, as_variable(v, x.dtype), *arrays)


def _update(x: Any, idx: Any, v: Any, mode: str) -> Variable:
    x = as_variable(x)
    entries, arrays = _normalize(idx, x.ndim, advanced=True)
    return _update_entries(x, entries, arrays, v, mode)


class _IndexUpdateRef:
    """``at(x)[idx]``: ``.set(v)``, ``.add(v)``, ``.multiply(v)``, ``.min(v)``, ``.max(v)``."""

    __slots__ = ("x", "idx")

    def __init__(self, x: Variable, idx: Any):
        self.x, self.idx = x, idx

    def set(self, v: Any) -> Variable:
        return _update(self.x, self.idx, v, "set")

    def add(self, v: Any) -> Variable:
        return _update(self.x, self.idx, v, "add")

    def multiply(self, v: Any) -> Variable:
        return _update(self.x, self.idx, v, "mul")

    def min(self, v: Any) -> Variable:
        return _update(self.x, self.idx, v, "min")

    def max(self, v: Any) -> Variable:
        return _update(self.x, self.idx, v, "max")


class _IndexUpdateHelper:
    __slots__ = ("x",)

    def __init__(self, x: Variable):
        self.x = x

    def __getitem__(self, idx: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.x, idx)


def at(x: Any) -> _IndexUpdateHelper:
    """Functional updates at indices, as jax's ``x.at``: ``at(x)[idx].set(v)`` (or ``.add``,
    ``.multiply``, ``.min``, ``.max``) is a copy of ``x`` updated at ``x[idx]``."""
    return _IndexUpdateHelper(as_variable(x))


def _source_index(y: Variable, what: str) -> tuple[Variable, tuple, list[Variable]]:
    """``x``, the index entries and the index arrays of ``y = x[idx]``."""
    node = y.owner
    if node is None or not isinstance(node.op, (Subtensor, AdvancedSubtensor)):
        raise TypeError(f"{what}: the first argument must be an indexing result x[idx], got {y!r}")
    x, *arrays = node.inputs
    if isinstance(node.op, AdvancedSubtensor):
        return x, node.op.idx, arrays
    entries = []
    for e in node.op.idx:
        if e is None or _is_slice(e):
            entries.append(e)
        else:
            entries.append(ARRAY)
            arrays.append(Constant(np.int64(e)))
    return x, tuple(entries), arrays


def set_subtensor(y: Variable, v: Any) -> Variable:
    """PyTensor's ``set_subtensor(x[idx], v)``: ``at(x)[idx].set(v)``."""
    x, entries, arrays = _source_index(y, "set_subtensor")
    return _update_entries(x, entries, arrays, v, "set")


def inc_subtensor(y: Variable, v: Any) -> Variable:
    """PyTensor's ``inc_subtensor(x[idx], v)``: ``at(x)[idx].add(v)``."""
    x, entries, arrays = _source_index(y, "inc_subtensor")
    return _update_entries(x, entries, arrays, v, "add")


# --- gather-like builders ----------------------------------------------------------
def _known_dim(x: Variable, axis: int, op: str) -> int:
    d = x.shape[axis]
    if d is None:
        raise ValueError(f"{op}: axis {axis} of 'x' must have a known size, got shape {tuple(x.shape)}")
    return d


def _bounded(i: Variable, n: int, mode: str | None, op: str) -> Variable:
    """Index ``i`` into a dim of size ``n`` under NumPy's ``mode``: 'raise' (or None) keeps it
    (indexing semantics), 'wrap' takes it modulo ``n``, 'clip' clips it into [0, n-1]."""
    if mode in (None, "raise"):
        return i
    if mode == "wrap":
        return ew.remainder(i, n) if n else i
    if mode == "clip":
        return ew.clip(i, 0, max(n - 1, 0))
    raise ValueError(f"{op}: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")


def _int_index(i: Any, op: str, what: str = "indices") -> Variable:
    i = _index_array(i, op) if not isinstance(i, (int, np.integer)) else Constant(np.int64(i))
    if i.dtype.kind not in "iu":
        raise TypeError(f"{op}: {what} must have an integer dtype, got {i.dtype}")
    return i


def take(x: Any, indices: Any, axis: int | None = None, mode: str | None = None) -> Variable:
    """numpy.take: ``x[..., indices, ...]`` along ``axis`` (``None``: of the flattened ``x``).
    ``mode``: 'raise' (default; out of range clamps on a device), 'wrap' or 'clip'."""
    x = as_variable(x)
    if axis is None or x.ndim == 0:  # NumPy takes a 0-d input as 1-d (axis 0 or -1)
        x = sh.reshape(x, -1)
        axis = 0 if axis is None else axis
    axis = normalize_axis(axis, x.ndim, "take")
    indices = _int_index(indices, "take")
    if mode not in (None, "raise"):
        indices = _bounded(indices, _known_dim(x, axis, "take"), mode, "take")
    return getitem(x, (slice(None),) * axis + (indices,))


def _along_axis_index(arr: Variable, indices: Variable, axis: int, op: str) -> tuple:
    if indices.ndim != arr.ndim:
        raise ValueError(f"{op}: 'indices' and 'arr' must have the same number of dimensions, "
                         f"got {indices.ndim} and {arr.ndim}")
    idx = []
    for d in range(arr.ndim):
        if d == axis:
            idx.append(indices)
            continue
        n = arr.shape[d]
        if n is None:
            # a run-time arange along d: cumulative sums of ones shaped like one line of arr
            from .reduction import cumsum

            line = getitem(arr, tuple(slice(None) if e == d else slice(0, 1) for e in range(arr.ndim)))
            idx.append(ew.subtract(cumsum(sh.full_like(line, 1, "int64"), axis=d), 1))
            continue
        shape = [1] * arr.ndim
        shape[d] = n
        idx.append(Constant(np.arange(n, dtype=np.int64).reshape(shape)))
    return tuple(idx)


def take_along_axis(arr: Any, indices: Any, axis: int | None) -> Variable:
    """numpy.take_along_axis: ``arr`` gathered at ``indices`` along ``axis`` (``None``: of the
    flattened ``arr``, with 1-d ``indices``); the other dims broadcast."""
    arr = as_variable(arr)
    indices = _int_index(indices, "take_along_axis")
    if axis is None:
        arr = sh.reshape(arr, -1)
        axis = 0
    axis = normalize_axis(axis, arr.ndim, "take_along_axis")
    return getitem(arr, _along_axis_index(arr, indices, axis, "take_along_axis"))


def put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None) -> Variable:
    """Functional numpy.put_along_axis: a copy of ``arr`` with ``values`` written at
    ``indices`` along ``axis`` (``None``: of the flattened ``arr``)."""
    arr = as_variable(arr)
    indices = _int_index(indices, "put_along_axis")
    flat = axis is None
    target = sh.reshape(arr, -1) if flat else arr
    axis = normalize_axis(0 if flat else axis, target.ndim, "put_along_axis")
    out = at(target)[_along_axis_index(target, indices, axis, "put_along_axis")].set(values)
    return sh.reshape(out, arr.shape) if flat else out


def one_hot(indices: Any, depth: int, dtype: Any = "float64", axis: int = -1) -> Variable:
    """One-hot encoding: 1 where ``indices == k`` along a new axis of size ``depth`` (placed at
    ``axis`` of the result), else 0; indices outside [0, depth) give all zeros."""
    indices = _int_index(indices, "one_hot")
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, (int, np.integer)) or depth < 0:
        raise ValueError(f"one_hot: depth must be a non-negative int, got {depth!r}")
    axis = normalize_axis(axis, indices.ndim + 1, "one_hot")
    shape = [1] * (indices.ndim + 1)
    shape[axis] = int(depth)
    classes = Constant(np.arange(int(depth), dtype=np.int64).reshape(shape))
    hot = ew.equal(sh.expand_dims(ew.astype(indices, "int64"), axis), classes)
    return ew.astype(hot, dtype)


def _check_constant_range(i: Variable, n: int, op: str, what: str) -> None:
    if isinstance(i, Constant) and i.data.size and (i.data.min() < 0 or i.data.max() >= n):
        bad = i.data.min() if i.data.min() < 0 else i.data.max()
        raise ValueError(f"{op}: {what} {bad} is out of bounds for a dim of size {n}")


def unravel_index(indices: Any, shape: Any) -> tuple[Variable, ...]:
    """numpy.unravel_index (C order): the int64 coordinates of flat ``indices`` in an array of
    the static ``shape``. Out-of-range indices raise for constants; graph values are not checked."""
    dims = tuple(int(operator.index(d)) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
    indices = _int_index(indices, "unravel_index")
    _check_constant_range(indices, int(np.prod(dims)), "unravel_index", "index")
    rest = ew.astype(indices, "int64")
    coords = []
    for n in reversed(dims):
        if n == 0:
            raise ValueError("unravel_index: cannot unravel into an empty shape")
        coords.append(ew.remainder(rest, n))
        rest = ew.floor_divide(rest, n)
    return tuple(reversed(coords))


def ravel_multi_index(multi_index: Any, dims: Any, mode: str = "raise") -> Variable:
    """numpy.ravel_multi_index (C order) of a tuple of integer index arrays into the static
    ``dims``; ``mode`` 'raise' (constants are checked), 'wrap' or 'clip'. Returns int64."""
    dims = tuple(int(operator.index(d)) for d in (dims if isinstance(dims, (tuple, list)) else (dims,)))
    if len(multi_index) != len(dims):
        raise ValueError(f"ravel_multi_index: {len(multi_index)} index arrays for {len(dims)} dims")
    flat = None
    stride = 1
    for i, n in zip(reversed(list(multi_index)), reversed(dims)):
        i = _int_index(i, "ravel_multi_index", "index arrays")
        if mode == "raise":
            _check_constant_range(i, n, "ravel_multi_index", "index")
        term = ew.multiply(ew.astype(_bounded(i, n, mode, "ravel_multi_index"), "int64"), stride)
        flat = term if flat is None else ew.add(flat, term)
        stride *= n
    return flat


# --- searchsorted ------------------------------------------------------------------
class SearchSorted(Op):
    """numpy.searchsorted of ``v`` in the sorted 1-d ``a`` (NaNs sort last): for each element
    of ``v`` the number of elements of ``a`` ordered before it (``side="left"``) or not after
    it (``"right"``). Result: int64 of ``v``'s shape."""

    __props__ = ("side",)

    def __init__(self, side: str = "left"):
        if side not in ("left", "right"):
            raise ValueError(f"SearchSorted: side must be 'left' or 'right', got {side!r}")
        self.side = side

    def make_node(self, a: Any, v: Any) -> Apply:
        a, v = as_variable(a), as_variable(v)
        if a.ndim != 1:
            raise ValueError(f"{self}: input 'a' must be 1-d, got shape {tuple(a.shape)}")
        if a.dtype != v.dtype:
            raise TypeError(f"{self}: inputs 'a' and 'v' must have one dtype, got {a.dtype} and {v.dtype}")
        if is_complex(a.dtype):
            raise TypeError(f"{self}: complex inputs are not supported, got {a.dtype}")
        return Apply(self, [a, v], [TensorType("int64", v.shape)])

    def perform(self, node, inputs):
        a, v = inputs
        return [np.asarray(np.searchsorted(a, v, side=self.side), dtype=np.int64)]

    # an integer output: no derivative (a piecewise-constant function of a and v)
    def pullback(self, node, cotangents):
        return [None, None]

    def pushforward(self, node, tangents):
        return [None]


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Variable:
    """numpy.searchsorted(a, v, side, sorter) for a 1-d ``a``, sorted or put in order by
    the indices ``sorter`` (dtypes promoted as NumPy does)."""
    dt = result_type(a, v)
    if sorter is not None:
        a = take(as_variable(a), sorter)
    return SearchSorted(side)(as_variable(a, dt), as_variable(v, dt))


# --- dynamic slices ----------------------------------------------------------------
def _clamped_starts(starts: Any, shape: tuple, sizes: tuple) -> tuple[int, ...]:
    """StableHLO's start indices: each clamped into [0, dim - size]."""
    return tuple(min(max(int(s), 0), d - n) for s, d, n in zip(starts, shape, sizes))


def _window(starts: tuple[int, ...], sizes: tuple) -> tuple[slice, ...]:
    return tuple(slice(s, s + n) for s, n in zip(starts, sizes))


def _check_starts(op: Op, x: Variable, starts: list[Variable]) -> None:
    """One 0-d integer start index per dim of ``x``, all of one dtype (as StableHLO wants)."""
    if len(starts) != x.ndim:
        raise ValueError(f"{op}: expected {x.ndim} start indices for input 'x' of rank {x.ndim}, "
                         f"got {len(starts)}")
    for d, s in enumerate(starts):
        if s.ndim != 0:
            raise ValueError(f"{op}: start index {d} must be 0-d, got shape {tuple(s.shape)}")
        if s.dtype.kind not in "iu":
            raise TypeError(f"{op}: start index {d} must have an integer dtype, got {s.dtype}")
    if len({s.dtype for s in starts}) > 1:
        raise TypeError(f"{op}: the start indices must have one dtype, got "
                        + ", ".join(str(s.dtype) for s in starts))


class DynamicSlice(Op):
    """``x[s0:s0+n0, s1:s1+n1, ...]`` for static ``sizes`` (n0, n1, ...) and start indices
    given at run time (the inputs after ``x``, 0-d integers of one dtype); each start is
    clamped into [0, dim - size] so the window fits (``stablehlo.dynamic_slice``)."""

    __props__ = ("sizes",)

    def __init__(self, sizes: Any):
        sizes = tuple(sizes)
        for n in sizes:
            if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
                raise ValueError(f"DynamicSlice: sizes must be non-negative ints, got {sizes!r}")
        self.sizes = tuple(int(n) for n in sizes)

    def __str__(self) -> str:
        return f"DynamicSlice{{sizes={list(self.sizes)}}}"

    __repr__ = __str__

    def make_node(self, x: Any, *starts: Any) -> Apply:
        x = as_variable(x)
        starts = [as_variable(s) for s in starts]
        if len(self.sizes) != x.ndim:
            raise ValueError(f"{self}: {len(self.sizes)} sizes for input 'x' of rank {x.ndim}")
        for d, (n, dim) in enumerate(zip(self.sizes, x.shape)):
            if dim is not None and n > dim:
                raise ValueError(f"{self}: size {n} is larger than dim {d} of 'x' (shape {tuple(x.shape)})")
        _check_starts(self, x, starts)
        return Apply(self, [x, *starts], [TensorType(x.dtype, self.sizes)])

    def perform(self, node, inputs):
        x, *starts = inputs
        if any(n > d for n, d in zip(self.sizes, x.shape)):
            raise ValueError(f"{self}: the sizes do not fit into 'x' of shape {x.shape}")
        key = _window(_clamped_starts(starts, x.shape, self.sizes), self.sizes)
        return [np.array(x[key], copy=True)]

    # derivatives: the cotangent written into zeros at the (clamped) window; the same
    # window of the tangent; the start indices have none
    def pullback(self, node, cotangents):
        x, *starts = node.inputs
        none = [None] * len(starts)
        if not is_inexact(x.dtype) or cotangents[0] is None:
            return [None] + none
        return [DynamicUpdateSlice()(sh.zeros_like(x), cotangents[0], *starts)] + none

    def pushforward(self, node, tangents):
        t = tangents[0]
        if t is None or not is_inexact(t.dtype):
            return [None]
        return [self(t, *node.inputs[1:])]


class DynamicUpdateSlice(Op):
    """A copy of ``x`` with the window of ``update``'s shape at run-time start indices (the
    inputs after ``update``, 0-d integers of one dtype, each clamped into
    [0, dim - size]) replaced by ``update`` (``stablehlo.dynamic_update_slice``)."""

    __props__ = ()

    def make_node(self, x: Any, update: Any, *starts: Any) -> Apply:
        x = as_variable(x)
        update = as_variable(update)
        starts = [as_variable(s) for s in starts]
        if update.ndim != x.ndim:
            raise ValueError(f"{self}: input 'update' must have the rank of 'x' ({x.ndim}), "
                             f"got shape {tuple(update.shape)}")
        if update.dtype != x.dtype:
            raise TypeError(f"{self}: input 'update' must have the dtype of 'x' ({x.dtype}), got {update.dtype}")
        for d, (n, dim) in enumerate(zip(update.shape, x.shape)):
            if n is not None and dim is not None and n > dim:
                raise ValueError(f"{self}: 'update' of shape {tuple(update.shape)} is larger than 'x' "
                                 f"of shape {tuple(x.shape)} in dim {d}")
        _check_starts(self, x, starts)
        return Apply(self, [x, update, *starts], [x.type])

    def perform(self, node, inputs):
        x, update, *starts = inputs
        if any(n > d for n, d in zip(update.shape, x.shape)):
            raise ValueError(f"{self}: 'update' of shape {update.shape} does not fit into 'x' of shape {x.shape}")
        out = np.array(x, copy=True)
        out[_window(_clamped_starts(starts, x.shape, update.shape), update.shape)] = update
        return [out]

    # derivatives: x gets the cotangent with the window zeroed, the update the window of
    # the cotangent (the window is clamped alike in both); the start indices have none
    def pullback(self, node, cotangents):
        x, update, *starts = node.inputs
        none = [None] * len(starts)
        ct = cotangents[0]
        if not is_inexact(x.dtype) or ct is None:
            return [None, None] + none
        ct_x = self(ct, sh.zeros_like(update), *starts)
        ct_update = DynamicSlice(update.shape)(ct, *starts)
        return [ct_x, ct_update] + none

    def pushforward(self, node, tangents):
        tx, tu = tangents[0], tangents[1]
        x, update, *starts = node.inputs
        if (tx is None and tu is None) or not is_inexact(x.dtype):
            return [None]
        tx = sh.zeros_like(x) if tx is None else tx
        tu = sh.zeros_like(update) if tu is None else tu
        return [self(tx, tu, *starts)]


def _start_indices(starts: Any, ndim: int, what: str) -> list[Variable]:
    """The start indices as 0-d integer Variables of one dtype: that of the graph values
    (and NumPy integers) when they agree, else int64; Python ints take it."""
    if isinstance(starts, (Variable, np.ndarray)) or not hasattr(starts, "__len__"):
        raise TypeError(f"{what}: start indices must be a sequence of ints or 0-d integer values "
                        f"(one per dim), got {starts!r}")
    starts = list(starts)
    if len(starts) != ndim:
        raise ValueError(f"{what}: expected {ndim} start indices for an input of rank {ndim}, got {len(starts)}")
    typed = []
    for d, s in enumerate(starts):
        if isinstance(s, (bool, np.bool_)):
            raise TypeError(f"{what}: start index {d} must be an integer, got {s!r}")
        if isinstance(s, (Variable, np.generic, np.ndarray)):
            s = as_variable(s)
            if s.dtype.kind not in "iu" or s.ndim != 0:
                raise TypeError(f"{what}: start index {d} must be a 0-d integer, got {s.type}")
            typed.append(s.dtype)
        elif not isinstance(s, int):
            raise TypeError(f"{what}: start index {d} must be an integer, got {s!r}")
    dtypes = set(typed)
    dtype = typed[0] if len(dtypes) == 1 else np.dtype(np.int64)
    if any(isinstance(s, int) and not isinstance(s, np.integer)
           and not np.iinfo(dtype).min <= s <= np.iinfo(dtype).max for s in starts):
        dtype = np.dtype(np.int64)
    out = []
    for s in starts:
        if not isinstance(s, Variable) and not isinstance(s, (np.generic, np.ndarray)):
            # a Python int: clamping makes any value beyond int64 the same as its bound
            s = Constant(np.asarray(min(max(s, -2**63), 2**63 - 1), dtype=dtype))
        s = as_variable(s)
        if s.dtype != dtype:
            if s.dtype == np.uint64:  # beyond int64 clamps like int64's maximum
                s = ew.minimum(s, Constant(np.uint64(2**63 - 1)))
            s = ew.astype(s, dtype)
        out.append(s)
    return out


def dynamic_slice(x: Any, starts: Any, sizes: Any) -> Variable:
    """``jax.lax.dynamic_slice``: the window of static ``sizes`` of ``x`` at ``starts`` (ints
    or 0-d integer values, one per dim), each start clamped into [0, dim - size].

    As in StableHLO, a negative start clamps to 0; jax.lax counts it from the end first
    unless given ``allow_negative_indices=False``."""
    x = as_variable(x)
    sizes = tuple(sizes)
    op = DynamicSlice(sizes)
    if len(sizes) != x.ndim:
        raise ValueError(f"{op}: {len(sizes)} sizes for input 'x' of rank {x.ndim}")
    return op(x, *_start_indices(starts, x.ndim, str(op)))


def dynamic_update_slice(x: Any, update: Any, starts: Any) -> Variable:
    """``jax.lax.dynamic_update_slice``: a copy of ``x`` with the window of ``update``'s shape
    at ``starts`` (ints or 0-d integer values, each clamped into [0, dim - size]) replaced by
    ``update`` (of ``x``'s rank and dtype). A negative start clamps to 0, as in
    ``dynamic_slice``."""
    x = as_variable(x)
    update = as_variable(update)
    return DynamicUpdateSlice()(x, update, *_start_indices(starts, x.ndim, "DynamicUpdateSlice"))
