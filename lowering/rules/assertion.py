"""Run-time checks. No StableHLO op can raise a Python error, so ``Check`` has
no lowering rule (its Numba implementation, runtime/host/impls/assertion.py,
runs in a host segment); ``AfterCheck`` lowers to its first operand, so the
checked value never leaves the device."""

from __future__ import annotations

from ...frontend.ops.assertion import AfterCheck
from ...xla.mlir import ir
from ..context import LoweringContext
from ..registry import register


@register(AfterCheck)
def lower_after_check(ctx: LoweringContext, x: ir.Value, ok: ir.Value) -> list[ir.Value]:
    return [x]
