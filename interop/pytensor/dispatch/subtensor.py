"""Indexing: Subtensor (basic indexing), AdvancedSubtensor(1) (integer arrays, boolean
masks), IncSubtensor / AdvancedIncSubtensor(1) (``set_subtensor``,
``inc_subtensor``).

Slice bounds computed from shapes are constants once the graph is specialized to
the shapes of its arguments; a slice whose bounds depend on values selects the
positions the host computes for it (a gather: its length depends on values).
Integer indices may be values (a gather). A boolean mask selects on the host
(hlograph's ``boolean_mask``, ``mask_assign``), as do masks among other indices
(through ``nonzero``).
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ....frontend import builders as hb
from ....frontend.graph import Constant, Variable
from ..convert import NotStatic, cast, hlograph_convert

pst = importlib.import_module("pytensor.tensor.subtensor")  # (pytensor.tensor.subtensor is also a function name)


def _bound(ctx, b: Any) -> int | None:
    if b is None:
        return None
    if isinstance(b, (int, np.integer)):
        return int(b)
    v = ctx.static_int(b)
    if v is None:
        raise NotStatic("a slice bound is known only at run time")
    return v


def _entries(ctx, idx: tuple) -> tuple:
    """hlograph index entries of a PyTensor index (slices, scalars, arrays, None)."""
    out = []
    for e in idx:
        if isinstance(e, slice):
            out.append(slice(_bound(ctx, e.start), _bound(ctx, e.stop), _bound(ctx, e.step)))
        elif e is None:
            out.append(None)
        elif isinstance(e, Variable):
            if e.ndim == 0 and e.dtype != np.bool_:
                v = ctx.static(e, needed=False)
                out.append(e if v is None else int(v))
            else:
                out.append(e)
        else:
            out.append(e)
    return tuple(out)


def _indices(op, node, index_values: list[Any]) -> tuple:
    """The index as a tuple of values: slices and index values (PyTensor 3 ``idx_list``
    positions, or the inputs themselves in earlier versions)."""
    idx_list = getattr(op, "idx_list", None)
    if idx_list is None:
        return tuple(index_values)
    return tuple(pst.indices_from_subtensor(index_values, idx_list))


def _masks_to_arrays(idx: tuple) -> tuple:
    """Boolean arrays in an index replaced by their ``nonzero`` index arrays (NumPy's rule)."""
    out = []
    for e in idx:
        if isinstance(e, Variable) and e.dtype == np.bool_ and e.ndim > 0:
            out.extend(_nonzero(e))
        else:
            out.append(e)
    return tuple(out)


def _nonzero(mask: Variable) -> tuple:
    if isinstance(mask, Constant):
        return tuple(Constant(a.astype(np.int64)) for a in np.nonzero(mask.data))
    return tuple(hb.nonzero(mask))


def _leading_mask(idx: tuple) -> Variable | None:
    """The mask of ``x[mask]`` / ``x[mask, :, ...]``: one boolean array first, full slices after."""
    if not idx:
        return None
    first, rest = idx[0], idx[1:]
    if not (isinstance(first, Variable) and first.dtype == np.bool_ and first.ndim > 0):
        return None
    full = all(isinstance(e, slice) and e.start is None and e.stop is None and e.step is None for e in rest)
    return first if full else None


def _is_dynamic(ctx, e: Any) -> bool:
    """A slice with a bound known only at run time."""
    return isinstance(e, slice) and any(
        isinstance(b, Variable) and ctx.static(b, needed=False) is None for b in (e.start, e.stop, e.step))


def _slice_positions(ctx, e: slice, n: int | None) -> Variable:
    """The positions a slice with run-time bounds selects from a dim of size ``n``
    (Python's ``slice.indices``), computed on the host (their count depends on values)."""
    step = 1 if e.step is None else _bound(ctx, e.step)
    if step == 0:
        raise NotStatic("a slice step of 0")
    if n is None:
        ctx.mark_shape_dependent()
        raise NotStatic("a slice with run-time bounds of a dim known only at run time")
    lo, hi = (0, n) if step > 0 else (-1, n - 1)

    def bound(b: Any, default: int) -> Variable:
        if b is None:
            return Constant(np.int64(default))
        if not isinstance(b, Variable):
            b = Constant(np.int64(b))
        b = cast(b, "int64")
        b = hb.where(hb.less(b, Constant(np.int64(0))), b + Constant(np.int64(n)), b)
        return hb.minimum(hb.maximum(b, Constant(np.int64(lo))), Constant(np.int64(hi)))

    start = bound(e.start, lo if step > 0 else hi)
    stop = bound(e.stop, hi if step > 0 else lo)
    return hb.dynamic_arange(start, stop, Constant(np.int64(step)), dtype="int64")


def getitem(ctx, x: Variable, idx: tuple) -> Variable:
    mask = _leading_mask(idx)
    if mask is not None:
        return hb.boolean_mask(x, mask)
    idx = _masks_to_arrays(idx)
    # slices with run-time bounds: gathers of their positions along their axis first
    if any(_is_dynamic(ctx, e) for e in idx):
        axis, rest = 0, []
        for e in idx:
            if _is_dynamic(ctx, e):
                x = hb.take(x, _slice_positions(ctx, e, x.shape[axis]), axis=axis)
                e = slice(None)
            rest.append(e)
            axis += e is not None
        idx = tuple(rest)
    return hb.getitem(x, _entries(ctx, idx))


@hlograph_convert.register(pst.Subtensor)
@hlograph_convert.register(pst.AdvancedSubtensor)
@hlograph_convert.register(pst.AdvancedSubtensor1)
def convert_subtensor(op, node, inputs, ctx):
    x, *index_values = inputs
    return getitem(ctx, x, _indices(op, node, index_values))


@hlograph_convert.register(pst.IncSubtensor)
@hlograph_convert.register(pst.AdvancedIncSubtensor)
@hlograph_convert.register(pst.AdvancedIncSubtensor1)
def convert_inc_subtensor(op, node, inputs, ctx):
    x, y, *index_values = inputs
    idx = _indices(op, node, index_values)
    y = cast(y, x.dtype)
    set_ = getattr(op, "set_instead_of_inc", False)
    mask = _leading_mask(idx)
    if mask is not None:
        rest = x.ndim - mask.ndim
        if y.ndim <= rest or (y.ndim == rest + 1 and y.shape[0] == 1):
            # the same y for every selected element: a select on the device
            if y.ndim == rest + 1:
                y = hb.squeeze(y, axis=0)
            where = hb.expand_dims(mask, tuple(range(mask.ndim, x.ndim))) if rest else mask
            return hb.where(where, y if set_ else x + y, x)
        if not set_:
            y = hb.boolean_mask(x, mask) + y
        return hb.mask_assign(x, mask, y)
    idx = _masks_to_arrays(idx)
    dynamic = [i for i, e in enumerate(idx) if _is_dynamic(ctx, e)]
    if dynamic:
        # one slice with run-time bounds among static slices: its positions index that axis
        if len(dynamic) > 1 or any(not isinstance(e, slice) for e in idx):
            raise NotStatic("slice bounds known only at run time next to other indices")
        (d,) = dynamic
        pos = _slice_positions(ctx, idx[d], x.shape[d])
        idx = idx[:d] + (pos,) + idx[d + 1:]
    entries = _entries(ctx, idx)
    ref = hb.at(x)[entries]
    if set_:
        return ref.set(y)
    if getattr(op, "ignore_duplicates", False):
        # x[idx] += y: each selected element once (for duplicate indices one write wins)
        return ref.set(hb.getitem(x, entries) + y)
    return ref.add(y)


def _register_make_slice():
    try:
        from pytensor.tensor.type_other import MakeSlice
    except ImportError:
        return

    @hlograph_convert.register(MakeSlice)
    def convert_make_slice(op, node, inputs, ctx):
        return slice(*inputs)


_register_make_slice()
