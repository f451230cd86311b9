"""A pass plugin for ``hlograph-opt --load-pass-plugin hlograph.tests.tools.pass_plugin``
(filecheck/passes/load-pass-plugin.mlir): importing it registers one pass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from hlograph.passes import ModulePass, register
from hlograph.passes.patterns import apply_patterns, building, defining_op, rewrite_pattern
from hlograph.xla.mlir import hlo


@rewrite_pattern(hlo.NegOp)
def double_negation(op, rewriter) -> bool:
    inner = defining_op(op.operand)
    if not isinstance(inner, hlo.NegOp):
        return False
    with building(rewriter, op):
        pass
    rewriter.replace_op(op, [inner.operand])
    return True


@register
@dataclass(frozen=True)
class DropDoubleNegationPass(ModulePass):
    """Rewrites -(-x) as x (a plugin's pass, for hlograph-opt's tests)."""

    name: ClassVar[str] = "hlograph-test-drop-double-negation"

    def apply(self, module) -> None:
        apply_patterns(module, [double_negation])
