"""Run-time checks. No StableHLO op can raise a Python error, so ``Check`` has a
Numba host implementation (raising ``CheckError`` with its message) and no
lowering rule, and the partitioner puts it in a host segment; ``AfterCheck``
lowers to its first operand, so the checked value never leaves the device."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...frontend.graph import Apply
from ...frontend.ops.assertion import AfterCheck, Check, CheckError
from ...runtime.host.registry import register as register_host
from ..context import LoweringContext
from ...xla.mlir import ir
from ..registry import register


@register(AfterCheck)
def lower_after_check(ctx: LoweringContext, x: ir.Value, ok: ir.Value) -> list[ir.Value]:
    return [x]


@register_host(Check)
def numba_check(op: Check, node: Apply) -> Callable:
    # the message is a compile-time constant of the generated function
    params = ", ".join(f"c{i}" for i in range(len(node.inputs)))
    checks = "".join(f"    if not np.all(c{i}):\n        raise CheckError({op.msg!r})\n"
                     for i in range(len(node.inputs)))
    src = f"def check({params}):\n{checks}    return np.True_\n"
    env = {"np": np, "CheckError": CheckError}
    exec(compile(src, "<hlograph host check>", "exec"), env)
    return env["check"]
