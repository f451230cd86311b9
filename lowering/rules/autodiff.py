"""Lowering of the Ops of the autodiff layer: ``StopGradient`` and ``CustomVJPCall``
are identities (their meaning is in their gradient rules), ``SumToLike`` sums a
cotangent back to the shape it was broadcast from, ``ReshapeLike`` reshapes one and
``SplitLike`` slices one into the pieces of a concatenation (all known once the graph
is specialized to concrete shapes)."""

from __future__ import annotations

from ...frontend.ops import autodiff as ad
from ...frontend.ops.reduction import accumulation_dtype
from ...frontend.types import TensorType
from .. import emit
from ..context import LoweringContext
from ..emit import constant, convert, reduce_region
from ...xla.mlir import hlo, i64_array, ir, tensor_type
from ..registry import register


@register(ad.StopGradient)
def lower_stop_gradient(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [x]


@register(ad.CustomVJPCall)
def lower_custom_vjp_call(ctx: LoweringContext, *operands: ir.Value) -> list[ir.Value]:
    return list(operands[ctx.op.n_args:])


@register(ad.SumToLike)
def lower_sum_to_like(ctx: LoweringContext, g: ir.Value, like: ir.Value) -> list[ir.Value]:
    t, out = ctx.in_types[0], ctx.out_type
    axes = ad.sum_to_axes(t.shape, out.shape)
    if not axes:
        return [g]  # the same shape: nothing was broadcast
    acc = accumulation_dtype(t.dtype)
    g = convert(g, t, acc)
    red_t = TensorType(acc, [d for i, d in enumerate(t.shape) if i not in axes])
    op = hlo.ReduceOp([tensor_type(red_t)], [g], [constant(0, acc)], i64_array(axes))
    block = reduce_region(op, acc)
    with ir.InsertionPoint(block):
        hlo.return_([hlo.add(*block.arguments)])
    r = convert(op.result, red_t, out.dtype)
    return [emit.reshape(r, out)]


@register(ad.ReshapeLike)
def lower_reshape_like(ctx: LoweringContext, g: ir.Value, like: ir.Value) -> list[ir.Value]:
    return [emit.reshape(g, ctx.out_type)]


@register(ad.SplitLike)
def lower_split_like(ctx: LoweringContext, g: ir.Value, *likes: ir.Value) -> list[ir.Value]:
    t, axis = ctx.in_types[0], ctx.op.axis
    out, start = [], 0
    for piece in ctx.out_types:
        starts = [0] * len(t.shape)
        limits = list(t.shape)
        starts[axis], limits[axis] = start, start + piece.shape[axis]
        out.append(emit.slice_static(g, t, starts, limits, [1] * len(t.shape)))
        start = start + piece.shape[axis]
    return out
