"""hlograph-sink-broadcasts: elementwise ops run before broadcasts, on fewer elements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..xla.mlir import ir
from .patterns import apply_patterns
from .patterns.broadcast import BROADCAST_PATTERNS
from .registry import ModulePass, register

__all__ = ["SinkBroadcastsPass"]


@register
@dataclass(frozen=True)
class SinkBroadcastsPass(ModulePass):
    """Moves broadcast_in_dim past elementwise ops when that shrinks the work.

    ``f(broadcast(x), broadcast(y))`` becomes ``broadcast(f(x, y))`` when all
    non-constant operands are broadcasts of the same shape along the same
    dimensions, used only by ``f``, and that shape has fewer elements than the
    result; splat constants are shrunk along. ``f`` is then computed once per
    distinct value, on the same values, so results do not change. Safe at any point.
    """

    name: ClassVar[str] = "hlograph-sink-broadcasts"

    def apply(self, module: ir.Module) -> None:
        apply_patterns(module, BROADCAST_PATTERNS)
