"""Broadcasts sunk past elementwise ops.

``f(broadcast(x), broadcast(y))`` computes ``f`` on every element of the
broadcast shape, although only ``x.size`` distinct values exist. When every
operand is a broadcast of the same shape along the same dimensions (or a splat
constant), ``broadcast(f(x, y))`` computes the same elements with less work.
"""

from __future__ import annotations

import numpy as np

from ...xla.mlir import PatternRewriter, hlo, i64_array, ir
from .core import RewritePattern, building
from .values import defining_op, ints, make_splat, splat_value, static_type

__all__ = ["sink_broadcast", "BROADCAST_PATTERNS", "BROADCAST_SOURCES", "ELEMENTWISE_OPS"]

#: StableHLO ops that apply one scalar function to each element (same shapes in and out)
ELEMENTWISE_OPS: tuple[type, ...] = (
    hlo.AbsOp, hlo.AddOp, hlo.AndOp, hlo.Atan2Op, hlo.CbrtOp, hlo.CeilOp, hlo.ClampOp,
    hlo.CompareOp, hlo.ComplexOp, hlo.ConvertOp, hlo.CosineOp, hlo.ClzOp, hlo.DivOp, hlo.ExpOp,
    hlo.Expm1Op, hlo.FloorOp, hlo.ImagOp, hlo.IsFiniteOp, hlo.LogOp, hlo.Log1pOp, hlo.LogisticOp, hlo.MaxOp, hlo.MinOp, hlo.MulOp, hlo.NegOp, hlo.NotOp, hlo.OrOp,
    hlo.PopulationCountOp, hlo.PowOp, hlo.RealOp, hlo.RemOp, hlo.RoundOp, hlo.RoundNearestEvenOp,
    hlo.RsqrtOp, hlo.SelectOp, hlo.ShiftLeftOp, hlo.ShiftRightArithmeticOp,
    hlo.ShiftRightLogicalOp, hlo.SignOp, hlo.SineOp, hlo.SqrtOp, hlo.SubtractOp, hlo.TanOp,
    hlo.TanhOp, hlo.XorOp,
)


def sink_broadcast(op: ir.OpView, rewriter: PatternRewriter) -> bool:
    """f(broadcast(x), ...) -> broadcast(f(x, ...)) when every operand is such a
    broadcast (used by nothing else), a splat constant or a rank-0 select
    predicate / clamp bound, and x is smaller than the result."""
    operands = list(op.operands)
    owners = [v.owner for v in operands]
    if not any(type(o) is hlo.BroadcastInDimOp for o in owners):
        return False
    out = static_type(op.result)
    if out is None:
        return False
    source = None  # (operand type, dims) shared by every broadcast operand
    for v, b in zip(operands, owners):
        if type(b) is hlo.BroadcastInDimOp:
            t = static_type(b.operand)
            if t is None or not _single_use(v):
                return False
            key = (t.shape, ints(b.broadcast_dimensions))
            if source is None:
                source = key
            elif key != source:
                return False
        elif splat_value(v) is None and not _scalar_side_operand(op, v):
            return False
    if source is None:
        return False
    small_shape, dims = source
    if int(np.prod(small_shape, dtype=np.int64)) >= int(np.prod(out.shape, dtype=np.int64)):
        return False
    with building(rewriter, op):
        operands = []
        for v in op.operands:
            b = defining_op(v)
            if isinstance(b, hlo.BroadcastInDimOp):
                operands.append(b.operand)
            elif _scalar_side_operand(op, v):
                operands.append(v)
            else:
                t = ir.RankedTensorType.get(list(small_shape), static_type(v).element_type)
                operands.append(make_splat(splat_value(v), t))
        attrs = op.operation.attributes
        small = ir.Operation.create(
            op.operation.name, results=[ir.RankedTensorType.get(list(small_shape), out.element_type)],
            operands=operands, attributes={name: attrs[name] for name in attrs})
        new = hlo.BroadcastInDimOp(op.result.type, small.results[0], i64_array(dims)).result
    rewriter.replace_op(op, [new])
    return True


def _single_use(v: ir.Value) -> bool:
    uses = iter(v.uses)
    first = next(uses, None)
    if first is None:
        return False
    owner = first.owner
    return all(u.owner == owner for u in uses)


def _scalar_side_operand(op: ir.OpView, v: ir.Value) -> bool:
    """The rank-0 predicate of a select or bound of a clamp, valid for any shape."""
    t = static_type(v)
    if t is None or t.rank != 0:
        return False
    if isinstance(op, hlo.SelectOp):
        return v == op.pred
    if isinstance(op, hlo.ClampOp):
        return v in (op.min, op.max)
    return False


BROADCAST_PATTERNS: list[RewritePattern] = [RewritePattern(cls, sink_broadcast) for cls in ELEMENTWISE_OPS]

#: The ops without which no ``broadcast_in_dim`` appears while hlograph's patterns
#: run: they create broadcasts only from a broadcast (``fold_broadcast_in_dim``,
#: ``sink_broadcast``) or a reduce (``fold_reduce_of_broadcast``), and MLIR's folders
#: only make constants. In a module with none of them ``sink_broadcast`` has nothing to match.
BROADCAST_SOURCES: frozenset[str] = frozenset({hlo.BroadcastInDimOp.OPERATION_NAME, hlo.ReduceOp.OPERATION_NAME})
