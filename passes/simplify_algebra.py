"""hlograph-simplify-algebra: algebraic identities that hold exactly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..xla.mlir import ir
from .patterns import apply_patterns
from .patterns.algebra import algebra_patterns
from .registry import ModulePass, register

__all__ = ["SimplifyAlgebraPass"]


@register
@dataclass(frozen=True)
class SimplifyAlgebraPass(ModulePass):
    """Applies algebraic identities that are exact under IEEE-754 and integer semantics.

    ``x * 1``, ``x / 1``, ``x + (-0.0)``, ``x - 0.0``, ``x + 0`` and ``x * 0`` on
    integers, ``-(-x)``, ``not(not x)``, ``x & x``, ``max(x, x)``, identity
    convert/reshape/transpose/broadcast_in_dim/slice/pad/reverse, chains of
    transposes, reshapes, broadcasts, slices and lossless conversions, select
    with a constant predicate or equal branches, single-operand concatenate, ...
    (the full list is in ``passes/patterns/algebra.py``). NaN and signed zeros
    are respected, so the pass never changes a result. Safe at any point.

    Options:
        fast-math: also apply identities that hold only approximately (``x + 0.0``,
            ``x * 0.0``, ``x - x`` on floats, reassociating constants); these can
            change results and are never part of the named pipelines.
    """

    name: ClassVar[str] = "hlograph-simplify-algebra"
    fast_math: bool = False
    """Also apply the approximate identities."""

    def apply(self, module: ir.Module) -> None:
        apply_patterns(module, algebra_patterns(self.fast_math))
