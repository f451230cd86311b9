"""Sorting: SortOp and ArgSortOp (stable sorts: NumPy's order for ties)."""

from __future__ import annotations

from pytensor.tensor.sort import ArgSortOp, SortOp

from ....frontend import builders as hb
from ..convert import hlograph_convert


def _axis(ctx, x, axis):
    """(x, axis): an axis of None sorts the flattened input (PyTensor 2.x)."""
    if axis is None:
        return hb.reshape(x, (-1,)), 0
    return x, ctx.require_int(axis, "the sort axis")


@hlograph_convert.register(SortOp)
def convert_sort(op, node, inputs, ctx):
    x, axis = _axis(ctx, *inputs)
    return hb.sort(x, axis=axis, stable=True)


@hlograph_convert.register(ArgSortOp)
def convert_argsort(op, node, inputs, ctx):
    x, axis = _axis(ctx, *inputs)
    return hb.argsort(x, axis=axis, stable=True)
