"""hlograph-fold-dot-transposes: transposes of dot_general operands become dimension numbers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..xla.mlir import ir
from .patterns import apply_patterns
from .patterns.dot import DOT_PATTERNS
from .registry import ModulePass, register

__all__ = ["FoldDotTransposesPass"]


@register
@dataclass(frozen=True)
class FoldDotTransposesPass(ModulePass):
    """Folds transposes of dot_general operands into its dimension numbers.

    ``dot_general(transpose(a), b)`` becomes ``dot_general(a, b)`` with the
    batch and contracting dimensions renamed, when the transpose keeps the free
    (non-batch, non-contracting) dimensions in order, so the result layout is
    unchanged. The same products are summed: results are the same in the
    reference interpreter and in XLA's compiled code (the order of a dot's sum
    is the backend's, and XLA's constant folder, for a dot of two constants,
    may pick another one). The transpose goes away once nothing else uses it.
    Safe at any point.
    """

    name: ClassVar[str] = "hlograph-fold-dot-transposes"

    def apply(self, module: ir.Module) -> None:
        apply_patterns(module, DOT_PATTERNS)
