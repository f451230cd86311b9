"""Lowering rules by Op class: ``@register(OpClass)``, looked up along the MRO."""

from __future__ import annotations

from typing import Callable

from ..frontend.graph import Op
from ..frontend.registry import OpRegistry

__all__ = ["register", "get_rule", "has_rule", "lookup", "registered_ops"]

RULES = OpRegistry("lowering rule")

#: Decorator: ``@register(MyOp)`` above ``def lower_my_op(ctx, *operands) -> list[ir.Value]``.
register = RULES.register
#: The rule for an Op class or its nearest base class, or None.
lookup = RULES.lookup
#: Op class -> rule, for the classes registered directly.
registered_ops = RULES.registered


def has_rule(op: Op) -> bool:
    return lookup(type(op)) is not None


def get_rule(op: Op) -> Callable:
    rule = lookup(type(op))
    if rule is None:
        props = ", ".join(f"{k}={v!r}" for k, v in op.props_dict().items()) or "no props"
        name = type(op).__name__
        raise NotImplementedError(
            f"no lowering rule for Op {name} ({props}). Register one with\n"
            f"    @hlograph.lowering.register({name})\n"
            f"    def lower_{name.lower()}(ctx, *operands):  # -> list of ir.Value, one per output\n"
            f"        ...\n"
            f"(see docs/adding_an_op.md)"
        )
    return rule
