"""Lowering of sorting and selection: ``stablehlo.sort`` with a comparator region.

The comparator orders NumPy's way with a total order: floats are compared with
``TOTALORDER`` after mapping -0.0 to 0.0 and every NaN to the positive quiet NaN
(so NaNs sort last, as in jax's ``_sort_lt_comparator``); complex numbers compare
lexicographically on (real, imaginary) canonicalized the same way, after a key
that puts those with a NaN part last in NumPy's order (``R + nanj`` before
``nan + Rj`` before ``nan + nanj``). Descending
sorts use the reversed comparison in a stable sort, so ties keep their original
order; indices come from an ``iota`` sorted along as a second operand.
"""

from __future__ import annotations

import numpy as np

from ...frontend.ops import sort as so
from ...frontend.types import DTYPES, TensorType, is_complex, is_float
from .. import emit
from ..context import LoweringContext
from ..emit import compare, constant, real_dtype, scalar_type
from ...xla.mlir import hlo, i64_array, ir
from ..registry import register

_INT64 = DTYPES["int64"]


def _canonical_float(v: ir.Value, dtype: np.dtype) -> ir.Value:
    """-0.0 -> 0.0 and any NaN -> +NaN, so that TOTALORDER matches NumPy's order."""
    zero = constant(0, dtype)
    v = hlo.select(compare(v, zero, "EQ", dtype), zero, v)
    return hlo.select(compare(v, v, "NE", dtype), constant(np.nan, dtype), v)


def _keys(v: ir.Value, dtype: np.dtype) -> list[tuple[ir.Value, np.dtype]]:
    if is_complex(dtype):
        # NumPy's order: R + Rj, R + nanj, nan + Rj, nan + nanj, each group by its
        # non-NaN parts: a class key (2 for a NaN real part, 1 for a NaN imaginary
        # part) before the parts
        fdt = real_dtype(dtype)
        re, im = hlo.real(v), hlo.imag(v)
        i32 = DTYPES["int32"]
        one, zero = constant(1, i32), constant(0, i32)
        cls = hlo.add(hlo.select(compare(re, re, "NE", fdt), constant(2, i32), zero),
                      hlo.select(compare(im, im, "NE", fdt), one, zero))
        return [(cls, i32), (_canonical_float(re, fdt), fdt), (_canonical_float(im, fdt), fdt)]
    if is_float(dtype):
        return [(_canonical_float(v, dtype), dtype)]
    return [(v, dtype)]


def _key_compare(a: ir.Value, b: ir.Value, direction: str, dtype: np.dtype) -> ir.Value:
    if is_float(dtype):
        return hlo.compare(a, b, hlo.ComparisonDirectionAttr.get(direction),
                           compare_type=hlo.ComparisonTypeAttr.get("TOTALORDER"))
    return compare(a, b, direction, dtype)


def _less(a: ir.Value, b: ir.Value, dtype: np.dtype, descending: bool) -> ir.Value:
    """``a`` goes before ``b``: lexicographic strict comparison of the keys."""
    direction = "GT" if descending else "LT"
    ka, kb = _keys(a, dtype), _keys(b, dtype)
    result = None
    for (x, kdt), (y, _) in zip(reversed(ka), reversed(kb)):
        before = _key_compare(x, y, direction, kdt)
        result = before if result is None else hlo.or_(
            before, hlo.and_(_key_compare(x, y, "EQ", kdt), result))
    return result


def sort_values(operands: list[ir.Value], dtypes: list[np.dtype], dimension: int,
                descending: bool, stable: bool) -> list[ir.Value]:
    """``stablehlo.sort`` of ``operands`` (same shape) along ``dimension``, keyed by the
    first operand in NumPy's order; returns the sorted operands."""
    op = hlo.SortOp([v.type for v in operands], operands,
                    dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dimension),
                    is_stable=ir.BoolAttr.get(stable))
    args = []
    for dt in dtypes:
        args += [scalar_type(dt), scalar_type(dt)]
    block = op.comparator.blocks.append(*args)
    with ir.InsertionPoint(block):
        a, b = block.arguments[0], block.arguments[1]
        hlo.return_([_less(a, b, dtypes[0], descending)])
    return list(op.results)


def _flatten(x: ir.Value, t: TensorType) -> tuple[ir.Value, TensorType]:
    flat = TensorType(t.dtype, (t.size,))
    if t.shape == flat.shape:
        return x, t
    return emit.reshape(x, flat), flat


def _iota(t: TensorType, dimension: int) -> ir.Value:
    return emit.iota(t.with_dtype(_INT64), ir.IntegerAttr.get(
        ir.IntegerType.get_signless(64), dimension))


@register(so.Sort)
def lower_sort(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    op, t = ctx.op, ctx.in_types[0]
    if op.axis is None:
        x, t = _flatten(x, t)
    axis = 0 if op.axis is None else op.axis
    if not t.is_symbolic and (t.shape[axis] <= 1 or t.size == 0):
        if op.indices:
            return [_iota(t, axis)]
        return [x]
    if not op.indices:
        return sort_values([x], [t.dtype], axis, op.descending, op.stable)
    _, idx = sort_values([x, _iota(t, axis)], [t.dtype, _INT64], axis, op.descending, True)
    return [idx]


@register(so.TopK)
def lower_top_k(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    # a stable descending sort with indices, then the first k: ties in index order and
    # NaNs first (chlo.top_k leaves the order of NaNs and ties to the backend)
    t = ctx.in_types[0]
    axis = t.ndim - 1
    values, idx = sort_values([x, _iota(t, axis)], [t.dtype, _INT64], axis, True, True)
    k = ctx.op.k
    if k == t.shape[axis]:
        return [values, idx]
    start, limit, strides = [0] * t.ndim, list(t.shape), [1] * t.ndim
    limit[axis] = k
    return [hlo.slice(values, i64_array(start), i64_array(limit), i64_array(strides)),
            hlo.slice(idx, i64_array(start), i64_array(limit), i64_array(strides))]
