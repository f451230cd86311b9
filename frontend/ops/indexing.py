"""Basic indexing (``x[idx]``) with NumPy semantics.

``getitem`` (the target of ``Variable.__getitem__``) accepts what NumPy calls
basic indexing: Python ints (negative ones count from the end), slices with
any step (bounds clamped as Python clamps them), ``None`` / ``np.newaxis``,
``Ellipsis`` and tuples of these. The index is normalized once into a
``Subtensor`` Op: one entry per input dim (Ellipsis expanded, trailing dims
filled with ``:``) plus ``None`` for each new axis, so ``x[0]`` and
``x[0, ...]`` build equal Ops. Bounds that depend on a dim's size are resolved
from the input's type, again after the graph is specialized to concrete shapes.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..graph import Apply, Op, Variable
from ..types import TensorType
from .basic import as_variable

__all__ = ["getitem"]

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


def _index_int(v: Any, what: str) -> int:
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"getitem: {what} must be integers or None, got {v!r}") from None


def _normalize(idx: Any, ndim: int) -> tuple:
    """The Subtensor entries for the NumPy basic index ``idx`` on an input of rank ``ndim``."""
    items = idx if isinstance(idx, tuple) else (idx,)
    entries: list = []
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
                "getitem: boolean indices are advanced indexing, which is not supported yet"
            )
        elif isinstance(item, (int, np.integer)):
            entries.append(int(item))
        elif isinstance(item, (Variable, np.ndarray, list, tuple)):
            if isinstance(item, np.ndarray) and item.ndim == 0 and item.dtype.kind in "iu":
                entries.append(int(item))
                continue
            what = "a graph value" if isinstance(item, Variable) else f"a {type(item).__name__}"
            raise NotImplementedError(
                f"getitem: indexing with {what} is advanced indexing, which is not supported yet; "
                f"use ints, slices, None and Ellipsis"
            )
        else:
            raise IndexError(
                "getitem: only integers, slices (`:`), ellipsis (`...`) and numpy.newaxis (`None`) are valid "
                f"indices, got {item!r}"
            )
    consumed = sum(e is not None for e in entries)
    if consumed > ndim:
        raise IndexError(
            f"getitem: too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed"
        )
    fill = [_FULL] * (ndim - consumed)
    if ellipsis_at is None:
        return tuple(entries + fill)
    return tuple(entries[:ellipsis_at] + fill + entries[ellipsis_at:])


def getitem(x: Any, idx: Any) -> Variable:
    """``x[idx]`` with NumPy's basic indexing: ints, slices, None, Ellipsis and tuples of them.

    Raises:
        IndexError: an int out of bounds, too many indices, two ellipses, an invalid index.
        NotImplementedError: array, list, bool or graph-value indices (advanced indexing).
    """
    x = as_variable(x)
    return Subtensor(_normalize(idx, x.ndim))(x)
