"""hlograph-order-operands: one operand order for commutative ops, so that CSE sees ``a*b`` and ``b*a`` as one value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..xla.mlir import ir
from .patterns import apply_patterns
from .patterns.commutative import COMMUTATIVE_PATTERNS, order_operands_in_place
from .registry import ModulePass, register

__all__ = ["OrderOperandsPass"]


@register
@dataclass(frozen=True)
class OrderOperandsPass(ModulePass):
    """Puts the operands of commutative ops in one order, so that CSE merges ``a*b`` and ``b*a``.

    ``add``, ``multiply``, ``and``, ``or``, ``xor`` and ``compare`` EQ/NE (for
    every element type), ``maximum`` and ``minimum`` (integers and booleans:
    for floats the sign of a zero result depends on the operand order) get
    the operand defined first on the left, constants on the right (the rules
    are in ``passes/patterns/commutative.py``). Neither MLIR's ``canonicalize``
    nor its ``cse`` does this; ``hlograph-simplify`` includes it. Exact; run it
    before ``cse``.
    """

    name: ClassVar[str] = "hlograph-order-operands"

    def apply(self, module: ir.Module) -> None:
        order_operands_in_place(module.operation)
        apply_patterns(module, COMMUTATIVE_PATTERNS, fold=False)
