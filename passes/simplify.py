"""hlograph-simplify: every exact rewrite of hlograph, applied together to a fixed point."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..xla.mlir import ir
from .patterns import RewritePattern, apply_patterns
from .patterns.algebra import algebra_patterns
from .patterns.broadcast import BROADCAST_PATTERNS, BROADCAST_SOURCES, sink_broadcast
from .patterns.commutative import COMMUTATIVE_PATTERNS, order_operands_in_place
from .patterns.dot import DOT_PATTERNS
from .patterns.folding import folding_patterns
from .patterns.power import POWER_PATTERNS
from .patterns.reduction import REDUCTION_PATTERNS
from .registry import ModulePass, register
from .sink_into_branches import CONDITIONALS, sink_into_branches

__all__ = ["SimplifyPass"]


@register
@dataclass(frozen=True)
class SimplifyPass(ModulePass):
    """Folds constants, simplifies algebra, folds transposes into dots and sinks broadcasts, together.

    The union of the patterns of ``hlograph-fold-constants``,
    ``hlograph-simplify-algebra``, ``hlograph-fold-dot-transposes``,
    ``hlograph-sink-broadcasts``, ``hlograph-fold-reductions``,
    ``hlograph-simplify-power`` and ``hlograph-order-operands``, run by one
    greedy driver (so that the ``cse`` after it merges ``a*b`` and ``b*a``): a fold can enable a
    simplification and the other way round, and one driver reaches the common
    fixed point in fewer sweeps over the module than the four passes in turn.
    Every pattern is exact, so the pass never changes a result (this is the
    core of the O2 pipeline). Then, where the module has conditionals, their
    elementwise consumers move into the branches (``hlograph-sink-into-branches``,
    exact too). Safe at any point.

    Options:
        fold-constants, algebra, dot-transposes, sink-broadcasts, reductions,
            power, order-operands, branches: turn a pattern family (or the sinking
            into branches) off.
        max-elements, max-expanded-elements: as for ``hlograph-fold-constants``.
    """

    name: ClassVar[str] = "hlograph-simplify"
    fold_constants: bool = True
    """Include the constant-folding patterns."""
    algebra: bool = True
    """Include the exact algebraic identities."""
    dot_transposes: bool = True
    """Include folding transposes into dot_general."""
    sink_broadcasts: bool = True
    """Include sinking broadcasts past elementwise ops."""
    reductions: bool = True
    """Include folding reductions of splats and of broadcasts."""
    power: bool = True
    """Include rewriting power by a constant exponent."""
    order_operands: bool = True
    """Include putting the operands of commutative ops in one order."""
    branches: bool = True
    """Then sink elementwise consumers into conditional branches (where there are conditionals)."""
    max_elements: int = 1 << 16
    """Largest non-splat constant created by folding."""
    max_expanded_elements: int = 1024
    """Largest folded non-splat result that is bigger than its constant operands."""

    def patterns(self) -> list[RewritePattern]:
        out: list[RewritePattern] = []
        if self.algebra:
            out += algebra_patterns()
        if self.fold_constants:
            out += folding_patterns(self.max_elements, self.max_expanded_elements)
        if self.dot_transposes:
            out += DOT_PATTERNS
        if self.sink_broadcasts:
            out += BROADCAST_PATTERNS
        if self.reductions:
            out += REDUCTION_PATTERNS
        if self.power:
            out += POWER_PATTERNS
        if self.order_operands:
            out += COMMUTATIVE_PATTERNS
        return out

    def apply(self, module: ir.Module) -> None:
        patterns = self.patterns()
        names = None
        if self.order_operands:
            # what the ordering patterns would do to the ops there now, without rewrites
            names = order_operands_in_place(module.operation)
            if self.sink_broadcasts and not names & BROADCAST_SOURCES:
                # no broadcast can appear: leave out the pattern on every elementwise op
                patterns = [p for p in patterns if p.fn is not sink_broadcast]
        apply_patterns(module, patterns)
        if self.branches and (names is None or names & CONDITIONALS):
            sink_into_branches(module.operation)
