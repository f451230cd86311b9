"""hlograph-simplify-power: power(x, c) with a constant exponent as cheaper ops."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..xla.mlir import ir
from .patterns import apply_patterns
from .patterns.power import POWER_PATTERNS
from .registry import ModulePass, register

__all__ = ["SimplifyPowerPass"]


@register
@dataclass(frozen=True)
class SimplifyPowerPass(ModulePass):
    """Rewrites power(x, c) for constant c in {1, 0, 2, -1, 3, 0.5} as x, 1, x*x, 1/x, x*x*x, sqrt(x).

    Only where the result is the same bit for bit: ``x*x*x`` for integers only,
    ``1/x`` for floats only, ``sqrt`` of an ``abs`` in float16/bfloat16/float32
    (the rules are in ``passes/patterns/power.py``). Complex powers are left
    alone. Safe at any point.
    """

    name: ClassVar[str] = "hlograph-simplify-power"

    def apply(self, module: ir.Module) -> None:
        apply_patterns(module, POWER_PATTERNS)
