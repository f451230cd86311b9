"""Run-time checks on the host. No StableHLO op can raise a Python error, so
``Check`` has no lowering rule: this Numba implementation raises ``CheckError``
with its message, in a host segment."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ....frontend.graph import Apply
from ....frontend.ops.assertion import Check, CheckError
from ..registry import register

__all__: list[str] = []


@register(Check)
def numba_check(op: Check, node: Apply) -> Callable:
    # the message is a compile-time constant of the generated function
    params = ", ".join(f"c{i}" for i in range(len(node.inputs)))
    checks = "".join(f"    if not np.all(c{i}):\n        raise CheckError({op.msg!r})\n"
                     for i in range(len(node.inputs)))
    src = f"def check({params}):\n{checks}    return np.True_\n"
    env = {"np": np, "CheckError": CheckError}
    exec(compile(src, "<hlograph host check>", "exec"), env)
    return env["check"]
