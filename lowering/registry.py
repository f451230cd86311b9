"""Lowering rules by Op class: ``@register(OpClass)``, looked up along the MRO.

``@register(OpClass, platform="cpu")`` files a rule for one platform beside the
default one: lowering for that platform looks it up first (along the MRO) and
falls back to the default rule."""

from __future__ import annotations

from typing import Callable

from ..frontend.graph import Op
from ..frontend.registry import OpRegistry
from ..xla.pjrt import resolve_platform

__all__ = ["register", "get_rule", "has_rule", "lookup", "registered_ops", "PLATFORMS"]

RULES = OpRegistry("lowering rule")
#: the platforms a rule may be registered for
PLATFORMS = ("cpu", "gpu", "tpu")
#: platform -> the rules registered for that platform only
PLATFORM_RULES: dict[str, OpRegistry] = {p: OpRegistry(f"{p} lowering rule") for p in PLATFORMS}


#: (Op class, platform) -> its rule or None, and Op class -> whether some platform has a
#: rule for it: what ``lookup`` found (the MRO walk is asked per node), emptied by ``register``
_FOUND: dict[tuple[type, str], Callable | None] = {}
_HAS_PLATFORM_RULE: dict[type, bool] = {}
#: bumped by ``register``: callers that keep answers derived from the rules (the
#: placement of an Op class) drop them when it changes
generation = 0


def register(op_class: type[Op], platform: str | None = None):
    """Decorator: ``@register(MyOp)`` above ``def lower_my_op(ctx, *operands) -> list[ir.Value]``
    files the default rule; ``platform="cpu"`` (``"gpu"``, ``"tpu"``) files a rule used
    only when lowering for that platform."""
    if platform is not None and platform not in PLATFORM_RULES:
        raise ValueError(f"register(): unknown platform {platform!r}; expected one of {PLATFORMS}")
    file = (RULES if platform is None else PLATFORM_RULES[platform]).register(op_class)

    def decorator(fn: Callable) -> Callable:
        global generation
        fn = file(fn)
        _FOUND.clear()
        _HAS_PLATFORM_RULE.clear()
        generation += 1
        return fn

    return decorator


def lookup(op_class: type, platform: str | None = None) -> Callable | None:
    """The rule for an Op class or its nearest base class, or None: a rule registered
    for ``platform`` (None: jax's default platform) first, then the default one (so a
    base class's platform rule also wins over a subclass's default rule)."""
    if platform is None:
        # resolving the default platform asks the backend: only for ops with platform rules
        has = _HAS_PLATFORM_RULE.get(op_class)
        if has is None:
            has = _HAS_PLATFORM_RULE[op_class] = any(
                reg.lookup(op_class) is not None for reg in PLATFORM_RULES.values())
        platform = resolve_platform(None) if has else ""
    key = (op_class, platform)
    try:
        return _FOUND[key]
    except KeyError:
        pass
    reg = PLATFORM_RULES.get(platform)
    fn = reg.lookup(op_class) if reg is not None else None
    fn = _FOUND[key] = fn if fn is not None else RULES.lookup(op_class)
    return fn


def registered_ops(platform: str | None = None) -> dict[type, Callable]:
    """Op class -> rule, for the classes registered directly (with ``platform``: the
    rules registered for that platform only)."""
    return (RULES if platform is None else PLATFORM_RULES[platform]).registered()


def has_rule(op: Op, platform: str | None = None) -> bool:
    return lookup(type(op), platform) is not None


def get_rule(op: Op, platform: str | None = None) -> Callable:
    """The rule lowering ``op`` for ``platform`` (None: jax's default platform)."""
    rule = lookup(type(op), platform)
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
