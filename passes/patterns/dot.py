"""Transposes folded into ``dot_general`` dimension numbers.

``dot_general(transpose(a, p), b)`` contracts the same pairs of elements as
``dot_general(a, b)`` with every lhs dimension ``d`` renamed ``p[d]``. The
result lists batch dimensions, then the lhs free dimensions in increasing
order, then the rhs ones; so the fold applies when ``p`` keeps the free
dimensions in increasing order (otherwise the result would come out
transposed).
"""

from __future__ import annotations

from ...xla.mlir import PatternRewriter, hlo, ir
from .core import RewritePattern, building, rewrite_pattern
from .values import defining_op, ints, static_type

__all__ = ["fold_transpose_into_dot", "DOT_PATTERNS"]


def _dims(op: hlo.DotGeneralOp) -> tuple[list[int], list[int], list[int], list[int]]:
    d = hlo.DotDimensionNumbers(op.dot_dimension_numbers)
    return (list(d.lhs_batching_dimensions), list(d.rhs_batching_dimensions),
            list(d.lhs_contracting_dimensions), list(d.rhs_contracting_dimensions))


def _renamed(perm: list[int], batch: list[int], contracting: list[int]) -> tuple[list[int], list[int]] | None:
    """The dimension numbers on the transpose's operand, or None when the free
    dimensions would come out in another order."""
    used = set(batch) | set(contracting)
    free = [perm[d] for d in range(len(perm)) if d not in used]
    if free != sorted(free):
        return None
    return [perm[d] for d in batch], [perm[d] for d in contracting]


@rewrite_pattern(hlo.DotGeneralOp)
def fold_transpose_into_dot(op: hlo.DotGeneralOp, rewriter: PatternRewriter) -> bool:
    """dot_general(transpose(a), b) -> dot_general(a, b) with renamed dimensions (either side)."""
    operands = op.operation.operands
    lhs, rhs = operands[0], operands[1]
    lt, rt = defining_op(lhs), defining_op(rhs)
    if not isinstance(lt, hlo.TransposeOp) and not isinstance(rt, hlo.TransposeOp):
        return False
    lb, rb, lc, rc = _dims(op)
    new_lhs, new_rhs = lhs, rhs
    if isinstance(lt, hlo.TransposeOp) and static_type(lt.operand) is not None:
        renamed = _renamed(ints(lt.permutation), lb, lc)
        if renamed is not None:
            lb, lc = renamed
            new_lhs = lt.operand
    if isinstance(rt, hlo.TransposeOp) and static_type(rt.operand) is not None:
        renamed = _renamed(ints(rt.permutation), rb, rc)
        if renamed is not None:
            rb, rc = renamed
            new_rhs = rt.operand
    if new_lhs == lhs and new_rhs == rhs:
        return False
    attrs = op.operation.attributes
    attributes = {name: attrs[name] for name in attrs}
    attributes["dot_dimension_numbers"] = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=lb, rhs_batching_dimensions=rb,
        lhs_contracting_dimensions=lc, rhs_contracting_dimensions=rc)
    with building(rewriter, op):
        new = ir.Operation.create("stablehlo.dot_general", results=[op.result.type],
                                  operands=[new_lhs, new_rhs], attributes=attributes)
    rewriter.replace_op(op, list(new.results))
    return True


DOT_PATTERNS: list[RewritePattern] = [fold_transpose_into_dot]
