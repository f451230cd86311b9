"""Lowering rules by Op class: ``@register(OpClass)`` over a dict, looked up by MRO."""

from __future__ import annotations

from typing import Callable

from ..frontend.graph import Op

__all__ = ["register", "get_rule", "has_rule", "lookup", "registered_ops"]

_RULES: dict[type, Callable] = {}


def register(op_class: type[Op]):
    """Decorator: ``@register(MyOp)`` above ``def lower_my_op(ctx, *operands) -> list[ir.Value]``."""
    if not (isinstance(op_class, type) and issubclass(op_class, Op)):
        raise TypeError(f"register() takes an Op subclass, got {op_class!r}")

    def decorator(rule: Callable) -> Callable:
        if op_class in _RULES:
            old = _RULES[op_class]
            where = getattr(old, "__qualname__", None) or getattr(getattr(old, "func", None), "__qualname__", repr(old))
            raise ValueError(f"a lowering rule for {op_class.__name__} is already registered ({where})")
        _RULES[op_class] = rule
        return rule

    return decorator


def lookup(op_class: type) -> Callable | None:
    """The rule registered for ``op_class`` or its nearest base class, or None."""
    for cls in op_class.__mro__:
        rule = _RULES.get(cls)
        if rule is not None:
            return rule
    return None


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


def registered_ops() -> dict[type, Callable]:
    return dict(_RULES)
