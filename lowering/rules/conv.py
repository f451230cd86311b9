"""Lowering of ConvGeneralDilated to ``stablehlo.convolution``."""

from __future__ import annotations

import numpy as np

from ...frontend.ops.conv import ConvGeneralDilated
from ...frontend.types import DTYPES, TensorType, is_complex, is_float
from ..context import LoweringContext
from ..emit import convert
from ...xla.mlir import hlo, ir, tensor_type
from ..registry import register

_HALF = (DTYPES["float16"], DTYPES["bfloat16"])


@register(ConvGeneralDilated)
def lower_conv_general_dilated(ctx: LoweringContext, lhs: ir.Value, rhs: ir.Value) -> list[ir.Value]:
    op: ConvGeneralDilated = ctx.op
    out = ctx.out_type
    (ln, lc, *ls), (ro, ri, *rs), (on, oc, *os_) = op.specs
    dnums = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=ln, input_feature_dimension=lc, input_spatial_dimensions=ls,
        kernel_output_feature_dimension=ro, kernel_input_feature_dimension=ri,
        kernel_spatial_dimensions=rs,
        output_batch_dimension=on, output_feature_dimension=oc, output_spatial_dimensions=os_,
    )
    n = len(ls)
    # float16/bfloat16 accumulate in float32 and round once, as perform does
    acc = DTYPES["float32"] if out.dtype in _HALF else out.dtype
    precision = None
    if is_float(out.dtype) or is_complex(out.dtype):
        precision = ir.ArrayAttr.get([hlo.PrecisionAttr.get("HIGHEST")] * 2)
    if acc != out.dtype:
        lhs = convert(lhs, ctx.in_types[0], acc)
        rhs = convert(rhs, ctx.in_types[1], acc)
    i64 = ir.IntegerType.get_signless(64)
    padding = ir.DenseIntElementsAttr.get(np.asarray(op.padding, np.int64).reshape(n, 2),
                                          type=i64)
    result = hlo.convolution(
        tensor_type(TensorType(acc, out.shape)), lhs, rhs, dnums,
        ir.IntegerAttr.get(i64, op.feature_group_count), ir.IntegerAttr.get(i64, op.batch_group_count),
        window_strides=list(op.window_strides), padding=padding,
        lhs_dilation=list(op.lhs_dilation), rhs_dilation=list(op.rhs_dilation),
        window_reversal=ir.DenseBoolArrayAttr.get([False] * n), precision_config=precision,
    )
    return [convert(result, TensorType(acc, out.shape), out.dtype)]
