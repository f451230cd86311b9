"""One operand order for commutative ops, so that CSE sees ``a*b`` and ``b*a`` as one value.

MLIR's ``cse`` compares operands in order and its ``canonicalize`` only moves
constants to the right, so ``a*b`` and ``b*a`` stay two values. These patterns
put the operands of ``add``, ``multiply``, ``and``, ``or``, ``xor`` and
``compare`` EQ/NE (every element type), and of ``maximum``/``minimum`` (integers
and booleans only: for floats ``max(-0.0, +0.0)`` is whichever operand comes
first, in XLA and in StableHLO's interpreter alike) in one order:

- constants on the right (where MLIR's folders and hlograph's patterns look first);
- a value of an enclosing block (a loop body reading a value from outside)
  before one of the block the op is in;
- in one block, block arguments before op results, arguments by number, results
  in program order (two results of one op by number).

Two constants keep their places. Swapping never changes a bit: these ops are commutative
bit for bit (NaN payloads aside).
"""

from __future__ import annotations

from ...xla.mlir import PatternRewriter, hlo, ir
from .core import RewritePattern, building
from .values import comparison_direction, numpy_dtype, static_type

__all__ = ["COMMUTATIVE_PATTERNS", "out_of_order", "order_operands_in_place"]


def _depth(block: ir.Block) -> int:
    """How many ops enclose ``block``."""
    n, op = 0, block.owner
    while op is not None:
        n += 1
        op = op.parent
    return n


_RESULT, _ARGUMENT = ir.OpResult, ir.BlockArgument


def out_of_order(a: ir.Value, b: ir.Value) -> bool:
    """Whether ``b`` comes before ``a`` in the canonical order (see the module)."""
    if a.__class__ is _RESULT and b.__class__ is _ARGUMENT:  # (the common case, first)
        oa = a.owner
        if oa.__class__ is hlo.ConstantOp:
            return True
        block_a, block_b = oa.operation.block, b.owner
        return True if block_a == block_b else _depth(block_a) > _depth(block_b)
    oa, ob = a.owner, b.owner
    ca, cb = type(oa) is hlo.ConstantOp, type(ob) is hlo.ConstantOp
    if ca or cb:
        return ca and not cb
    arg_a, arg_b = isinstance(oa, ir.Block), isinstance(ob, ir.Block)
    if not (arg_a or arg_b):
        oa, ob = oa.operation, ob.operation
        block_a, block_b = oa.block, ob.block
        if block_a == block_b:  # the common case: two results of ops in one block
            if oa == ob:
                return a.maybe_downcast().result_number > b.maybe_downcast().result_number
            return ob.is_before_in_block(oa)
    else:
        block_a = oa if arg_a else oa.operation.block
        block_b = ob if arg_b else ob.operation.block
        if block_a == block_b:
            if not (arg_a and arg_b):
                return arg_b
            return a.maybe_downcast().arg_number > b.maybe_downcast().arg_number
    # two values one op reads from nested blocks: the outer one first
    return _depth(block_a) > _depth(block_b)


def _binary_out_of_order(op: ir.Operation, a: ir.Value, b: ir.Value) -> bool:
    """Whether ``op``'s operands ``a``, ``b`` swap (out of order, both of the result's type)."""
    return out_of_order(a, b) and a.type == b.type == op.results[0].type


def _integer_out_of_order(op: ir.Operation, a: ir.Value, b: ir.Value) -> bool:
    """``_binary_out_of_order`` for integer and boolean results only (max, min)."""
    if not out_of_order(a, b):
        return False
    t = static_type(op.results[0])
    dt = numpy_dtype(t.element_type) if t is not None else None
    return dt is not None and dt.kind in "biu" and a.type == b.type == t


def _compare_out_of_order(op: ir.Operation, a: ir.Value, b: ir.Value) -> bool:
    """Whether a compare EQ/NE swaps its operands."""
    return out_of_order(a, b) and a.type == b.type and comparison_direction(op.opview) in ("EQ", "NE")


def _swap_binary(op_class, needs_swap=_binary_out_of_order):
    def order_operands(op, rewriter: PatternRewriter) -> bool:
        operands = op.operation.operands
        a, b = operands[0], operands[1]
        if not needs_swap(op.operation, a, b):
            return False
        with building(rewriter, op):
            new = op_class(b, a).result
        rewriter.replace_op(op, [new])
        return True

    order_operands.__name__ = f"order_{op_class.__name__[:-2].lower()}_operands"
    return RewritePattern(op_class, order_operands)


def order_compare_operands(op: hlo.CompareOp, rewriter: PatternRewriter) -> bool:
    """compare EQ/NE with its operands in the canonical order."""
    a, b = op.lhs, op.rhs
    if not _compare_out_of_order(op.operation, a, b):
        return False
    attrs = op.operation.attributes
    compare_type = attrs["compare_type"] if "compare_type" in attrs else None
    with building(rewriter, op):
        new = hlo.CompareOp(b, a, attrs["comparison_direction"], compare_type=compare_type).result
    rewriter.replace_op(op, [new])
    return True


#: op name -> whether an op of that name has its operands out of order
_OUT_OF_ORDER = {
    cls.OPERATION_NAME: check for cls, check in (
        (hlo.AddOp, _binary_out_of_order), (hlo.MulOp, _binary_out_of_order),
        (hlo.AndOp, _binary_out_of_order), (hlo.OrOp, _binary_out_of_order),
        (hlo.XorOp, _binary_out_of_order), (hlo.MaxOp, _integer_out_of_order),
        (hlo.MinOp, _integer_out_of_order), (hlo.CompareOp, _compare_out_of_order),
    )
}


def order_operands_in_place(root: ir.Operation) -> set[str]:
    """Puts the operands of every commutative op under ``root`` in the canonical
    order, as ``COMMUTATIVE_PATTERNS`` do, by swapping them in place in one walk.

    The patterns replace each op out of order by a new one, and any rewrite
    costs MLIR's greedy driver one more sweep over the module to confirm the
    fixed point; ordering first leaves the driver only the ops other patterns
    create. Swapping keeps the op, its location and its attributes: the module
    is the one the patterns give. Returns the names of the ops under ``root``
    (for a pass that leaves out patterns with nothing to match).
    """
    checks, advance, names = _OUT_OF_ORDER, ir.WalkResult.ADVANCE, set()

    def visit(op: ir.Operation):
        name = op.name
        names.add(name)
        check = checks.get(name)
        if check is not None:
            operands = op.operands
            a, b = operands[0], operands[1]
            if not check(op, a, b):
                return advance
            operands[0] = b
            operands[1] = a
        return advance

    root.walk(visit)
    return names


COMMUTATIVE_PATTERNS: list[RewritePattern] = [
    _swap_binary(hlo.AddOp), _swap_binary(hlo.MulOp), _swap_binary(hlo.AndOp), _swap_binary(hlo.OrOp),
    _swap_binary(hlo.XorOp), _swap_binary(hlo.MaxOp, _integer_out_of_order),
    _swap_binary(hlo.MinOp, _integer_out_of_order),
    RewritePattern(hlo.CompareOp, order_compare_operands),
]
