"""hlograph-bound-fusion: optimization barriers cut long elementwise chains of big modules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..xla.mlir import hlo, ir
from .registry import ModulePass, register

__all__ = ["BoundFusionPass", "bound_fusion", "ELEMENTWISE_OPS"]

#: the StableHLO ops XLA fuses into one loop with their neighbours
ELEMENTWISE_OPS = frozenset("stablehlo." + name for name in (
    "abs", "add", "and", "atan2", "cbrt", "ceil", "clamp", "compare", "complex", "convert",
    "cosine", "count_leading_zeros", "divide", "exponential", "exponential_minus_one", "floor",
    "imag", "is_finite", "log", "log_plus_one", "logistic", "maximum", "minimum", "multiply",
    "negate", "not", "or", "popcnt", "power", "real", "remainder", "round_nearest_afz",
    "round_nearest_even", "rsqrt", "select", "shift_left", "shift_right_arithmetic",
    "shift_right_logical", "sign", "sine", "sqrt", "subtract", "tan", "tanh", "xor",
    "broadcast_in_dim", "reshape",
))


@register
@dataclass(frozen=True)
class BoundFusionPass(ModulePass):
    """Cuts long elementwise chains of big modules with optimization barriers.

    A compiler that keeps ``stablehlo.optimization_barrier`` through fusion
    fuses no further than a barrier, which bounds the size of its fused loops
    and so its compile time. In a function of at least ``min-ops`` ops, after
    every ``every`` consecutive elementwise ops (a run is broken by any other
    op, constants aside), the values computed so far and used later go through
    one barrier, and later ops use its results. A barrier is the identity, so
    results do not change; modules below ``min-ops`` are left alone. Safe at
    any point (best last, so that other rewrites see whole chains).

    Not in the named pipelines: XLA:CPU (jaxlib 0.10.2) removes barriers
    before it fuses, so there the pass changes neither the executable nor the
    compile time (``bench/lowering_scaling.py --compile``). ``hlograph-cut-fusion``
    cuts chains with a custom call XLA:CPU keeps.

    Options:
        every: elementwise ops between two barriers.
        min-ops: functions with fewer ops are left alone.
    """

    name: ClassVar[str] = "hlograph-bound-fusion"
    every: int = 500
    """Elementwise ops between two barriers."""
    min_ops: int = 2000
    """Functions with fewer ops (of their body, nested ones included) are left alone."""

    def __post_init__(self) -> None:
        if self.every < 1 or self.min_ops < 0:
            raise ValueError(f"every must be >= 1 and min-ops >= 0, got every={self.every}, "
                             f"min-ops={self.min_ops}")

    def apply(self, module: ir.Module) -> None:
        bound_fusion(module, self.every, self.min_ops)


def _count_ops(op: ir.Operation) -> int:
    n = 0

    def visit(_):
        nonlocal n
        n += 1
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return n - 1  # the function itself


def _top_level(op: ir.Operation, block_parent: ir.Operation) -> ir.Operation:
    """The ancestor of ``op`` (or ``op``) in the block of ``block_parent``'s region."""
    op = op.operation
    while op.parent.operation != block_parent:
        op = op.parent.operation
    return op


def bound_fusion(module, every: int = 500, min_ops: int = 2000) -> int:
    """Inserts barriers as ``BoundFusionPass`` does; returns how many."""
    inserted = 0
    with module.context:
        for f in list(module.body.operations):
            if f.operation.name != "func.func" or len(f.regions[0].blocks) != 1:
                continue
            if _count_ops(f.operation) < min_ops:
                continue
            inserted += _bound_block(f.operation, every)
    return inserted


def _bound_block(f: ir.Operation, every: int) -> int:
    block = f.regions[0].blocks[0]
    ops = [op.operation for op in block.operations]
    index = {op: i for i, op in enumerate(ops)}
    cuts = []
    run = 0
    for i, op in enumerate(ops[:-2]):  # (never right before the terminator)
        if op.name == "stablehlo.constant":
            continue
        run = run + 1 if op.name in ELEMENTWISE_OPS else 0
        if run >= every:
            cuts.append(i)
            run = 0
    if not cuts:
        return 0
    # every use of every non-constant result, keyed by (position of the defining
    # op, result number), as (position of the using op in the block, using op,
    # operand number); positions are read before anything changes
    values: dict[tuple, ir.Value] = {}
    uses: dict[tuple, list] = {}
    for i, op in enumerate(ops):
        if op.name == "stablehlo.constant":
            continue
        for r, result in enumerate(op.results):
            found = [(index[_top_level(u.owner, f)], u.owner.operation, u.operand_number)
                     for u in result.uses]
            if found:
                values[(i, r)] = result
                uses[(i, r)] = found
    inserted = 0
    for cut in cuts:
        live = [key for key, found in uses.items()
                if key[0] <= cut and any(pos > cut for pos, _, _ in found)]
        if not live:
            continue
        barrier = hlo.OptimizationBarrierOp([values[key] for key in live], loc=ops[cut].location,
                                            ip=ir.InsertionPoint(ops[cut + 1])).operation
        for r, key in enumerate(live):
            new = barrier.results[r]
            later = [u for u in uses[key] if u[0] > cut]
            for _, owner, operand in later:
                owner.operands[operand] = new
            uses[key] = [u for u in uses[key] if u[0] <= cut]
            values[(cut + 0.5, r)] = new
            uses[(cut + 0.5, r)] = later
        inserted += 1
    return inserted
