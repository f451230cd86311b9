"""Lowering of basic indexing: ``stablehlo.slice``, then ``reverse`` for negative
steps and ``reshape`` to drop integer-indexed dims and add new axes."""

from __future__ import annotations

from ...frontend.ops import indexing as ix
from ..context import LoweringContext
from ..mlir import hlo, i64_array, ir, tensor_type
from ..registry import register


def _slice_bounds(entry, dim: int) -> tuple[int, int, int, int, bool]:
    """(start, limit, stride, count, reversed) of a StableHLO slice selecting the same
    elements as ``entry`` (an int or a (start, stop, step) slice) from a dim of size ``dim``;
    a negative step selects them in ascending order, to be reversed afterwards."""
    if not isinstance(entry, tuple):
        i = entry % dim
        return i, i + 1, 1, 1, False
    start, stop, step = slice(*entry).indices(dim)
    n = len(range(start, stop, step))
    if n == 0:
        return 0, 0, 1, 0, False
    last = start + (n - 1) * step
    if step > 0:
        return start, last + 1, step, n, False
    return last, start + 1, -step, n, n > 1


@register(ix.Subtensor)
def lower_subtensor(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    in_shape = ctx.in_types[0].shape
    entries = [e for e in ctx.op.idx if e is not None]
    bounds = [_slice_bounds(e, d) for e, d in zip(entries, in_shape)]
    starts, limits, strides, counts, flips = zip(*bounds) if bounds else ((),) * 5
    if list(starts) != [0] * len(in_shape) or list(limits) != list(in_shape) or any(s != 1 for s in strides):
        x = hlo.slice(x, i64_array(starts), i64_array(limits), i64_array(strides))
    reverse = [a for a, flip in enumerate(flips) if flip]
    if reverse:
        x = hlo.reverse(x, i64_array(reverse))
    if tuple(counts) != ctx.out_type.shape:
        x = hlo.reshape(tensor_type(ctx.out_type), x)
    return [x]
