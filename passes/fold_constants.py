"""hlograph-fold-constants: ops whose operands are all constants become constants."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..xla.mlir import ir
from .patterns import apply_patterns
from .patterns.folding import folding_patterns
from .registry import ModulePass, register

__all__ = ["FoldConstantsPass"]


@register
@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Folds ops whose operands are all constants into constants.

    Covers elementwise arithmetic, bitwise and shift ops, compare, select, clamp,
    convert, bitcast_convert, broadcast_in_dim, reshape, transpose, slice,
    concatenate, reverse, pad, iota and integer/boolean/min/max reduce. Only
    results that StableHLO defines exactly are computed (see
    ``passes/patterns/folding.py``): transcendental functions, float sums, dot
    products and implementation-defined cases (integer division by zero,
    out-of-range float-to-int conversion) are left alone, so the pass never
    changes a result. Safe at any point; the results of splat operands stay splats.

    Options:
        max-elements: the largest non-splat constant the pass creates.
        max-expanded-elements: the largest non-splat result allowed to have more
            elements than its constant operands together (iota, broadcast_in_dim,
            pad), so that folding does not bloat the module.
    """

    name: ClassVar[str] = "hlograph-fold-constants"
    max_elements: int = 1 << 16
    """Largest non-splat constant created."""
    max_expanded_elements: int = 1024
    """Largest non-splat result that is bigger than its constant operands."""

    def __post_init__(self) -> None:
        if self.max_elements < 0 or self.max_expanded_elements < 0:
            raise ValueError("max-elements and max-expanded-elements must be >= 0")

    def apply(self, module: ir.Module) -> None:
        apply_patterns(module, folding_patterns(self.max_elements, self.max_expanded_elements))
