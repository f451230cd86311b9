"""Lowering of bitcasts: ``stablehlo.bitcast_convert`` (bool, one byte of 0 or 1,
goes through ``uint8``)."""

from __future__ import annotations

import numpy as np

from ...frontend.ops import bitcast as bc
from ...frontend.types import TensorType
from ..context import LoweringContext
from ..emit import compare, constant, convert
from ...xla.mlir import hlo, ir
from ..registry import register

_BOOL = np.dtype(np.bool_)
_UINT8 = np.dtype(np.uint8)


@register(bc.Bitcast)
def lower_bitcast(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    src, out = ctx.in_types[0], ctx.out_type
    if out.dtype == _BOOL:  # a nonzero byte reads as True
        return [compare(x, constant(0, src.dtype, src.shape), "NE", src.dtype)]
    if src.dtype == _BOOL:
        x = convert(x, src, _UINT8)
        if out.dtype == _UINT8:
            return [x]
    return [hlo.bitcast_convert(ctx.module.ir_type(TensorType(out.dtype, out.shape)), x)]
