"""hlograph-inline-calls: calls to functions defined in the module are replaced by their bodies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..xla.mlir import func, ir
from .registry import ModulePass, register

__all__ = ["InlineCallsPass", "inline_calls"]


@register
@dataclass(frozen=True)
class InlineCallsPass(ModulePass):
    """Inlines ``func.call``s of functions defined in the module.

    Upstream ``inline`` does nothing in jax's MLIR context (the func dialect's
    inliner interface is not registered there), so this pass does it: a copy
    of the callee's single-block body replaces the call. Calls inside
    recursive call cycles and calls to functions with several blocks or
    without a body are left alone. Functions keep their definitions (other ops
    may refer to them by symbol); run ``symbol-dce`` afterwards to drop the
    private ones nothing refers to anymore. Safe at any point.

    Options:
        max-rounds: inlining repeats while inlined bodies contain calls, at most
            this many times.
    """

    name: ClassVar[str] = "hlograph-inline-calls"
    max_rounds: int = 64
    """Bound on the nesting depth of calls inlined."""

    def apply(self, module: ir.Module) -> None:
        inline_calls(module, self.max_rounds)


def _functions(module) -> dict[str, ir.OpView]:
    out = {}
    for op in module.body.operations:
        if op.operation.name == "func.func":
            out[op.attributes["sym_name"].value] = op
    return out


def _calls(op: ir.Operation) -> list[ir.OpView]:
    found: list[ir.OpView] = []

    def visit(o):
        found.append(o.opview)
        return ir.WalkResult.ADVANCE

    op.walk(visit, op_class=func.CallOp)
    return found


def _callee_name(call: ir.OpView) -> str:
    return ir.FlatSymbolRefAttr(call.attributes["callee"]).value


def _recursive(functions: dict[str, ir.OpView]) -> set[str]:
    """Names of the functions on a call cycle."""
    edges = {name: {_callee_name(c) for c in _calls(f.operation)} & functions.keys()
             for name, f in functions.items()}
    on_cycle = set()
    for start in edges:
        stack, seen = list(edges[start]), set()
        while stack:
            n = stack.pop()
            if n == start:
                on_cycle.add(start)
                break
            if n in seen:
                continue
            seen.add(n)
            stack.extend(edges[n])
    return on_cycle


def _inlinable(f: ir.OpView) -> bool:
    region = f.regions[0]
    return len(region.blocks) == 1


def inline_calls(module, max_rounds: int = 64) -> int:
    """Inlines calls as ``InlineCallsPass`` does; returns how many were inlined."""
    module_op = module.operation
    total = 0
    for _ in range(max_rounds):
        functions = _functions(module)
        if len(functions) < 2:
            break  # a lone function can only call itself, which is never inlined
        recursive = _recursive(functions)
        calls = [c for c in _calls(module_op)
                 if _callee_name(c) in functions and _callee_name(c) not in recursive
                 and _inlinable(functions[_callee_name(c)])]
        if not calls:
            break
        for call in calls:
            _inline_one(call, functions[_callee_name(call)])
            total += 1
    return total


def _inline_one(call: ir.OpView, callee: ir.OpView) -> None:
    """Replaces ``call`` by a copy of the body of ``callee``.

    The callee itself is never touched: other ops may refer to it by symbol
    (custom_call's called_computations, a composite's decomposition), so
    removing it is left to ``symbol-dce``, which knows every kind of use.
    """
    source = callee.operation.clone()
    block = source.regions[0].blocks[0]
    for arg, value in zip(block.arguments, call.operands):
        arg.replace_all_uses_with(value)
    ops = list(block.operations)
    terminator = ops[-1]
    for op in ops[:-1]:
        op.operation.move_before(call.operation)
    for result, value in zip(call.results, terminator.operands):
        result.replace_all_uses_with(value)
    call.operation.erase()
    source.erase()
