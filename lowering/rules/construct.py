"""Lowering of the construction ops of frontend/ops/construct.py: ``stablehlo.pad``
for constant padding; SpecifyShape and Shape need no computation once shapes are
static (the check ran when the graph was specialized)."""

from __future__ import annotations

import numpy as np

from ...frontend.ops import construct as cs
from ..context import LoweringContext
from ..emit import constant
from ...xla.mlir import hlo, i64_array, ir
from ..registry import register


@register(cs.Pad)
def lower_pad(ctx: LoweringContext, x: ir.Value, value: ir.Value) -> list[ir.Value]:
    low = [b for b, _ in ctx.op.pad_width]
    high = [a for _, a in ctx.op.pad_width]
    if not any(low) and not any(high):
        return [x]
    return [hlo.pad(x, value, i64_array(low), i64_array(high), i64_array([0] * len(low)))]


@register(cs.SpecifyShape)
def lower_specify_shape(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [x]


@register(cs.Shape)
def lower_shape(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    return [constant(np.asarray(ctx.in_types[0].shape, np.int64).reshape(-1), np.int64, ctx.out_type.shape)]
