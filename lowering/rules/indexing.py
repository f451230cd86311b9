"""Lowering of indexing. Basic indexing: ``stablehlo.slice``, then ``reverse`` for
negative steps and ``reshape`` to drop integer-indexed dims and add new axes.
Advanced indexing: the slices first (as for basic indexing), then one
``stablehlo.gather`` of the array-indexed dims (start indices clamped into range),
then a ``reshape`` for new axes. Updates at indices: one ``stablehlo.scatter``
whose update windows are the slices of step 1 (or -1, updates reversed), with an
index per element of the other dims of ``x[idx]`` (updates out of range are dropped).
Dynamic slices and their updates: ``stablehlo.dynamic_slice`` and
``stablehlo.dynamic_update_slice``, whose clamping of the starts is the Ops'."""

from __future__ import annotations

from typing import Union

import numpy as np

from ...frontend.graph import Constant
from ...frontend.ops import indexing as ix
from ...frontend.ops.basic import broadcast_shapes
from ...frontend.ops.indexing import slice_length
from ...frontend.types import DTYPES, TensorType
from .. import emit
from ..context import LoweringContext
from ..emit import (broadcast_to, compare, constant, convert, is_nan, reduce_region, reshape, scalar_type,
                    slice_static)
from ...frontend.symbolic import SymDim, slice_indices
from ...xla.mlir import hlo, i64_array, ir, tensor_type
from ..registry import register


def _slice_bounds(entry, dim: int) -> tuple[int, int, int, int, bool]:
    """(start, limit, stride, count, reversed) of a StableHLO slice selecting the same
    elements as ``entry`` (an int or a (start, stop, step) slice) from a dim of size ``dim``;
    a negative step selects them in ascending order, to be reversed afterwards."""
    if not isinstance(entry, tuple):
        i = entry % dim if type(dim) is not SymDim else (entry if entry >= 0 else dim + entry)
        return i, i + 1, 1, 1, False
    start, stop, step = slice_indices(entry, dim)
    symbolic = type(dim) is SymDim
    n = len(range(start, stop, step)) if not symbolic else slice_length(entry, dim)
    if n == 0:
        return 0, 0, 1, 0, False
    last = start + (n - 1) * step
    if step > 0:
        return start, last + 1, step, n, False
    return last, start + 1, -step, n, symbolic or n > 1


def _apply_bounds(x: ir.Value, bounds: list[tuple], in_type: TensorType) -> tuple[ir.Value, tuple]:
    """``x`` sliced by per-dim ``_slice_bounds`` (a slice only where it cuts or steps, a
    reverse for negative steps); returns the value and the per-dim counts."""
    in_shape = in_type.shape
    starts, limits, strides, counts, flips = zip(*bounds) if bounds else ((),) * 5
    if list(starts) != [0] * len(in_shape) or list(limits) != list(in_shape) or any(s != 1 for s in strides):
        x = slice_static(x, in_type, starts, limits, strides)
    reverse = [a for a, flip in enumerate(flips) if flip]
    if reverse:
        x = hlo.reverse(x, i64_array(reverse))
    return x, tuple(counts)


@register(ix.Subtensor)
def lower_subtensor(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    in_shape = ctx.in_types[0].shape
    entries = [e for e in ctx.op.idx if e is not None]
    x, counts = _apply_bounds(x, [_slice_bounds(e, d) for e, d in zip(entries, in_shape)], ctx.in_types[0])
    if counts != ctx.out_type.shape:
        x = reshape(x, ctx.out_type)
    return [x]


_INDEX = DTYPES["int64"]


#: an index column: known values, or computed in the module
Column = Union[np.ndarray, ir.Value]


def _wrapped_indices(indices, variables, dims, index_shape) -> list[Column]:
    """The index arrays as int64, negative ones wrapped once, broadcast to ``index_shape``:
    NumPy arrays for constant index arrays, values for the others."""
    out: list[Column] = []
    for i, var, d in zip(indices, variables, dims):
        t = TensorType(_INDEX, var.type.shape)
        if isinstance(var, Constant):
            data = var.data.astype(_INDEX)
            out.append(np.broadcast_to(np.where(data < 0, data + d, data), index_shape))
            continue
        i = convert(i, var.type, _INDEX)
        if var.dtype.kind == "i":
            wrapped = hlo.add(i, constant(d, _INDEX, t.shape))
            i = hlo.select(compare(i, constant(0, _INDEX, t.shape), "LT", _INDEX), wrapped, i)
        out.append(broadcast_to(i, t, index_shape))
    return out


def _stack_last(columns: list[Column], shape: tuple) -> ir.Value:
    """``columns`` (each of ``shape``) stacked along a new last dim; one constant when
    every column is known."""
    if all(isinstance(c, np.ndarray) for c in columns):
        return constant(np.stack(columns, axis=-1), _INDEX, (*shape, len(columns)))
    t = TensorType(_INDEX, [*shape, 1])
    cols = [reshape(constant(c, _INDEX, shape) if isinstance(c, np.ndarray) else c, t)
            for c in columns]
    return cols[0] if len(cols) == 1 else hlo.concatenate(cols, len(shape))


def _expand(shape: tuple, dims: list[int], ndim: int) -> tuple:
    """``shape`` placed at ``dims`` of a rank-``ndim`` shape of ones (for NumPy broadcasting)."""
    out = [1] * ndim
    for d, n in zip(dims, shape):
        out[d] = n
    return tuple(out)


def _apply_slices(x: ir.Value, idx: tuple, in_type: TensorType) -> tuple[ir.Value, tuple]:
    """``x`` with every slice entry of ``idx`` applied (array-indexed dims kept whole)."""
    in_shape = in_type.shape
    entries = [e for e in idx if e is not None]
    bounds = [_slice_bounds(e, d) if ix._is_slice(e) else (0, d, 1, d, False)
              for e, d in zip(entries, in_shape)]
    return _apply_bounds(x, bounds, in_type)


def _index_shape(ctx: LoweringContext, first_index: int) -> tuple:
    return tuple(broadcast_shapes(*(t.shape for t in ctx.in_types[first_index:])))


@register(ix.AdvancedSubtensor)
def lower_advanced_subtensor(ctx: LoweringContext, x: ir.Value, *indices: ir.Value) -> list[ir.Value]:
    idx = ctx.op.idx
    x_type, out_type = ctx.in_types[0], ctx.out_type
    index_shape = _index_shape(ctx, 1)
    _, gathered_shape, at = ix.advanced_shapes(idx, x_type.shape, index_shape)
    entries = [e for e in idx if e is not None]
    axes = [a for a, e in enumerate(entries) if e == ix.ARRAY]
    y, y_shape = _apply_slices(x, idx, x_type)
    if out_type.size == 0 or any(y_shape[a] == 0 for a in axes):
        # nothing to gather (an index into an empty dim has no valid value: perform raises)
        return [constant(0, out_type.dtype, out_type.shape)]
    dims = [x_type.shape[a] for a in axes]
    starts = _stack_last(_wrapped_indices(indices, ctx.node.inputs[1:], dims, index_shape), index_shape)
    n_index = len(index_shape)
    offset_dims = [i for i in range(len(gathered_shape)) if not at <= i < at + n_index]
    dnums = hlo.GatherDimensionNumbers.get(
        offset_dims=offset_dims, collapsed_slice_dims=axes, operand_batching_dims=[],
        start_indices_batching_dims=[], start_index_map=axes, index_vector_dim=n_index,
    )
    slice_sizes = [1 if a in axes else n for a, n in enumerate(y_shape)]
    gathered_type = tensor_type(TensorType(out_type.dtype, gathered_shape))
    out = hlo.gather(y, starts, dnums, i64_array(slice_sizes), indices_are_sorted=False,
                     results=[gathered_type])
    if gathered_shape != out_type.shape:
        out = emit.reshape(out, out_type)
    return [out]


def _update_region(mode: str, dtype: np.dtype):
    if mode == "set":
        return lambda old, new: new
    if dtype == np.bool_:
        return {"add": hlo.or_, "mul": hlo.and_, "max": hlo.or_, "min": hlo.and_}[mode]
    return {"add": hlo.add, "mul": hlo.multiply, "max": hlo.maximum, "min": hlo.minimum}[mode]


@register(ix.AdvancedIncSubtensor)
def lower_advanced_inc_subtensor(ctx: LoweringContext, x: ir.Value, v: ir.Value,
                                 *indices: ir.Value) -> list[ir.Value]:
    idx, mode = ctx.op.idx, ctx.op.mode
    x_type, v_type = ctx.in_types[0], ctx.in_types[1]
    index_shape = _index_shape(ctx, 2)
    target_shape, gathered_shape, at = ix.advanced_shapes(idx, x_type.shape, index_shape)
    if x_type.size == 0 or int(np.prod(gathered_shape)) == 0:
        return [x]
    updates = broadcast_to(v, v_type, target_shape)
    if target_shape != gathered_shape:
        updates = emit.reshape(updates, TensorType(x_type.dtype, gathered_shape))
    if x_type.ndim == 0:  # the update is elementwise
        return [_update_region(mode, x_type.dtype)(x, updates)]
    entries = [e for e in idx if e is not None]
    axes = [a for a, e in enumerate(entries) if e == ix.ARRAY]
    # where each slice's elements sit in x[idx] (without new axes)
    slice_dims = [g for g in range(len(gathered_shape)) if not at <= g < at + len(index_shape)]
    slice_dim = dict(zip([a for a, e in enumerate(entries) if e != ix.ARRAY], slice_dims))
    # Slices of step +-1 are update windows (updates reversed for step -1); the other dims
    # are scattered: one index per element of x[idx] without the window dims.
    windows, reverse = [], []
    for a, e in enumerate(entries):
        if e != ix.ARRAY and abs(slice(*e).indices(x_type.shape[a])[2]) == 1:
            windows.append(a)
            if slice(*e).indices(x_type.shape[a])[2] == -1:
                reverse.append(slice_dim[a])
    if reverse:
        updates = hlo.reverse(updates, i64_array(reverse))
    window_dims = [slice_dim[a] for a in windows]
    scatter_dims = [g for g in range(len(gathered_shape)) if g not in window_dims]
    batch_shape = tuple(gathered_shape[g] for g in scatter_dims)
    batch_type = tensor_type(TensorType(_INDEX, batch_shape))
    index_dims = [scatter_dims.index(g) for g in range(at, at + len(index_shape))]
    arrays = iter(_wrapped_indices(indices, ctx.node.inputs[2:], [x_type.shape[a] for a in axes], index_shape))
    columns = []
    for a, (e, d) in enumerate(zip(entries, x_type.shape)):
        if e == ix.ARRAY:
            column = next(arrays)
            if isinstance(column, np.ndarray):
                column = np.broadcast_to(column.reshape(_expand(index_shape, index_dims, len(batch_shape))),
                                         batch_shape)
            elif batch_shape != index_shape:
                column = hlo.broadcast_in_dim(batch_type, column, i64_array(index_dims))
            columns.append(column)
            continue
        start, _, step = slice(*e).indices(d)
        if a in windows:
            first = start if step == 1 else start - slice_length(e, d) + 1
            columns.append(np.full(batch_shape, first, _INDEX))
        else:
            at_dim = scatter_dims.index(slice_dim[a])
            positions = np.arange(batch_shape[at_dim], dtype=_INDEX) * step + start
            columns.append(np.broadcast_to(
                positions.reshape(_expand((batch_shape[at_dim],), [at_dim], len(batch_shape))), batch_shape))
    scatter_indices = _stack_last(columns, batch_shape)
    dnums = hlo.ScatterDimensionNumbers.get(
        update_window_dims=window_dims,
        inserted_window_dims=[a for a in range(x_type.ndim) if a not in windows],
        input_batching_dims=[], scatter_indices_batching_dims=[],
        scattered_dims_to_operand_dims=list(range(x_type.ndim)), index_vector_dim=len(batch_shape),
    )
    op = hlo.ScatterOp([tensor_type(x_type)], [x], scatter_indices, [updates], dnums,
                       indices_are_sorted=False, unique_indices=False)
    st = scalar_type(x_type.dtype)
    block = op.update_computation.blocks.append(st, st)
    with ir.InsertionPoint(block):
        hlo.return_([_update_region(mode, x_type.dtype)(*block.arguments)])
    return [op.result]


@register(ix.SearchSorted)
def lower_search_sorted(ctx: LoweringContext, a: ir.Value, v: ir.Value) -> list[ir.Value]:
    """Counts, for each element of ``v``, the elements of ``a`` before it: ``a < v`` (left)
    or ``a <= v`` (right) under NumPy's order where NaN is the largest value."""
    a_type, v_type = ctx.in_types
    out_type = ctx.out_type
    dtype = a_type.dtype
    shape = (*v_type.shape, a_type.shape[0])
    wide = tensor_type(TensorType(dtype, shape))
    a_b = hlo.broadcast_in_dim(wide, a, i64_array([len(shape) - 1]))
    v_b = hlo.broadcast_in_dim(wide, v, i64_array(list(range(v_type.ndim))))
    if ctx.op.side == "left":
        before = compare(a_b, v_b, "LT", dtype)
        v_nan, a_nan = is_nan(v_b, dtype), is_nan(a_b, dtype)
        if v_nan is not None:
            before = hlo.or_(before, hlo.and_(v_nan, hlo.not_(a_nan)))
    else:
        before = compare(a_b, v_b, "LE", dtype)
        v_nan = is_nan(v_b, dtype)
        if v_nan is not None:
            before = hlo.or_(before, v_nan)
    counts = convert(before, TensorType(np.bool_, shape), _INDEX)
    op = hlo.ReduceOp([tensor_type(out_type)], [counts], [constant(0, _INDEX)], i64_array([len(shape) - 1]))
    block = reduce_region(op, _INDEX)
    with ir.InsertionPoint(block):
        hlo.return_([hlo.add(*block.arguments)])
    return [op.result]


@register(ix.DynamicSlice)
def lower_dynamic_slice(ctx: LoweringContext, x: ir.Value, *starts: ir.Value) -> list[ir.Value]:
    """``stablehlo.dynamic_slice``, which clamps the starts as ``perform`` does."""
    if ctx.in_types[0].ndim == 0:  # the whole of a 0-d operand
        return [x]
    return [hlo.dynamic_slice(x, list(starts), i64_array(ctx.op.sizes))]


@register(ix.DynamicUpdateSlice)
def lower_dynamic_update_slice(ctx: LoweringContext, x: ir.Value, update: ir.Value,
                               *starts: ir.Value) -> list[ir.Value]:
    """``stablehlo.dynamic_update_slice``, which clamps the starts as ``perform`` does."""
    if ctx.in_types[0].ndim == 0:  # the update replaces a 0-d operand
        return [update]
    return [hlo.dynamic_update_slice(x, update, list(starts))]
