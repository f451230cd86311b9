"""hlograph-sink-into-branches: elementwise consumers of a conditional's result move
into its branches, where XLA fuses them with the branch's own kernel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..lowering.rules.elemwise import REWRITTEN_PRODUCERS, producer_name
from ..xla.mlir import ir
from .bound_fusion import ELEMENTWISE_OPS
from .registry import ModulePass, register

__all__ = ["SinkIntoBranchesPass", "sink_into_branches"]

CONDITIONALS = frozenset(("stablehlo.case", "stablehlo.if"))

#: at most this many ops move into one conditional (each is copied into every branch:
#: a long chain after a conditional would double the code XLA compiles)
MAX_SUNK = 16

#: consumer -> the producers next to which XLA's simplifier rewrites it against IEEE
#: results (the lowering keeps such pairs apart: lowering/rules/elemwise.py), and
#: ``convert(bool) * y``, which XLA:CPU turns into a select
_KEPT_APART = {f"stablehlo.{consumer}": frozenset(producers) for consumer, producers in REWRITTEN_PRODUCERS.items()}
_KEPT_APART["stablehlo.multiply"] = _KEPT_APART["stablehlo.multiply"] | {"stablehlo.convert"}


def _available_before(v: ir.Value, op: ir.Operation) -> bool:
    """Whether ``v`` is defined before ``op`` (a block argument, an op earlier in
    ``op``'s block, or a value of an enclosing scope)."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return True
    owner = owner.operation
    return owner.block != op.block or owner.is_before_in_block(op)


def _terminator(region: ir.Region) -> ir.Operation:
    """The ``stablehlo.return`` of a branch."""
    block = region.blocks[0]
    return block.operations[len(block.operations) - 1]


def _meets_rewrite(user: ir.Operation, positions: list[int], value: ir.Value) -> bool:
    """Whether ``user``, reading a branch's ``value`` at ``positions``, would be a
    consumer XLA rewrites with its producers: a multiply of two exponentials or of a
    convert, a log / sqrt / power of the producers in ``REWRITTEN_PRODUCERS``."""
    apart, made_by = _KEPT_APART[user.name], producer_name(value)
    if user.name != "stablehlo.multiply":
        return made_by in apart
    if made_by == "stablehlo.convert":  # of booleans: XLA:CPU makes convert(bool) * y a select
        source = ir.RankedTensorType(value.owner.operation.operands[0].type).element_type
        return isinstance(source, ir.IntegerType) and source.width == 1
    producers = [made_by if i in positions else producer_name(v) for i, v in enumerate(user.operands)]
    return all(p == "stablehlo.exponential" for p in producers)


def _sink_one(cond: ir.Operation) -> bool:
    """Moves the one user of ``cond``'s single result into every branch, when it is an
    elementwise op (one XLA fuses: ``bound_fusion.ELEMENTWISE_OPS``) of the same result
    type whose other operands exist before ``cond``."""
    if len(cond.results) != 1:
        return False
    result = cond.results[0]
    uses = list(result.uses)
    if not uses:
        return False
    user = uses[0].owner
    if not isinstance(user, ir.Operation):
        user = user.operation
    if user.name not in ELEMENTWISE_OPS or any(u.owner != uses[0].owner for u in uses[1:]):
        return False
    if len(user.results) != 1 or user.results[0].type != result.type or user.block != cond.block:
        return False
    positions = [i for i, v in enumerate(user.operands) if v == result]
    if not all(_available_before(v, cond) for i, v in enumerate(user.operands) if i not in positions):
        return False
    returns = [_terminator(r) for r in cond.regions]
    if user.name in _KEPT_APART and any(_meets_rewrite(user, positions, ret.operands[0]) for ret in returns):
        return False  # moved in, it would meet a producer XLA rewrites it with
    for ret in returns:
        value = ret.operands[0]
        clone = user.clone(ip=ir.InsertionPoint(ret))
        for i in positions:
            clone.operands[i] = value
        ret.operands[0] = clone.results[0]
    user.results[0].replace_all_uses_with(result)
    user.erase()
    return True


def sink_into_branches(root: ir.Operation) -> bool:
    """Sinks elementwise consumers into the branches of every ``stablehlo.case`` /
    ``stablehlo.if`` under ``root`` with one result used by one op, repeatedly (a chain
    of up to ``MAX_SUNK`` consumers moves in); True when something moved."""
    conditionals: list[ir.Operation] = []

    def visit(op):
        if op.name in CONDITIONALS:
            conditionals.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    changed = False
    for cond in conditionals:
        for _ in range(MAX_SUNK):
            if not _sink_one(cond):
                break
            changed = True
    return changed


@register
@dataclass(frozen=True)
class SinkIntoBranchesPass(ModulePass):
    """Moves elementwise consumers of a conditional's result into its branches.

    ``f(case(...), y)``, where the case (or if) has one result whose only user is
    the elementwise ``f`` of the same type and ``y`` is defined before the case,
    becomes a case whose every branch returns ``f(branch result, y)``, unless a
    branch's result comes from an op XLA's simplifier would rewrite ``f`` with
    against IEEE results (``exp(a) * exp(a)``, ``log(exp(a))``, ...: the pairs the
    lowering keeps apart). At most ``MAX_SUNK`` ops move into one conditional. Exactly one
    branch runs, so ``f`` runs once on the same values: results do not change.
    XLA:CPU cannot fuse a consumer into a conditional: moved in, it joins the
    branch's kernel instead of reading and writing the whole result once more (the
    CPU lowerings of sin, cos and tan branch on the size of their arguments).
    Safe at any point.
    """

    name: ClassVar[str] = "hlograph-sink-into-branches"

    def apply(self, module: ir.Module) -> None:
        sink_into_branches(module.operation)
