"""Contractions: ``dot_general`` as hlograph's DotGeneral and
``conv_general_dilated`` as its ConvGeneralDilated (both take jax's dimension
numbers and give jax's dim order). A ``preferred_element_type`` other than the
operands' dtype is honoured by converting the operands first."""

from __future__ import annotations

import numpy as np

from ....frontend.ops.conv import ConvGeneralDilated
from ....frontend.ops.linalg import dot_general_op
from ..registry import register
from .common import hg, ints


def _operands(lhs, rhs, preferred):
    dtype = np.dtype(preferred) if preferred is not None else np.result_type(lhs.dtype, rhs.dtype)
    return [x if x.dtype == dtype else hg.astype(x, dtype) for x in (lhs, rhs)]


@register("dot_general")
def dot_general(lhs, rhs, *, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None, **params):
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = _operands(lhs, rhs, preferred_element_type)
    return dot_general_op((ints(lc), ints(rc)), (ints(lb), ints(rb)))(lhs, rhs)


@register("conv_general_dilated")
def conv_general_dilated(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                         dimension_numbers, feature_group_count, batch_group_count, precision=None,
                         preferred_element_type=None, out_sharding=None, **params):
    lhs, rhs = _operands(lhs, rhs, preferred_element_type)
    specs = (ints(dimension_numbers.lhs_spec), ints(dimension_numbers.rhs_spec),
             ints(dimension_numbers.out_spec))
    op = ConvGeneralDilated(ints(window_strides), [ints(p) for p in padding], ints(lhs_dilation),
                            ints(rhs_dilation), specs, int(feature_group_count), int(batch_group_count))
    return op(lhs, rhs)
