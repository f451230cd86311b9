"""hlograph-fold-reductions: reductions of splats and of broadcasts over their repeated dimensions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..xla.mlir import ir
from .patterns import apply_patterns
from .patterns.reduction import REDUCTION_PATTERNS
from .registry import ModulePass, register

__all__ = ["FoldReductionsPass"]


@register
@dataclass(frozen=True)
class FoldReductionsPass(ModulePass):
    """Folds reductions of splat constants and of broadcasts over only their repeated dimensions.

    ``sum(broadcast(c))`` over ``k`` elements is the constant ``k*c`` (integers;
    floats when every partial sum is exact), ``max``/``min`` of a splat is the
    splat, and a reduction of ``broadcast_in_dim(x)`` over the dimensions the
    broadcast repeats is computed on ``x`` (an integer sum multiplies by the
    count; ``max``/``min``/``and``/``or`` of copies is ``x``). Every rewrite
    gives the same bits in any order of evaluation (the rules are in
    ``passes/patterns/reduction.py``). Safe at any point.
    """

    name: ClassVar[str] = "hlograph-fold-reductions"

    def apply(self, module: ir.Module) -> None:
        apply_patterns(module, REDUCTION_PATTERNS)
