"""The importer's rules: jax primitive name -> ``rule(*inputs, **params) -> outputs``.

A rule receives one hlograph Variable per operand of the equation (literals and
constants arrive as Constants) and the equation's params as keyword arguments,
and returns the equation's results: one Variable, or a list of them for the
primitives with several results. It builds them with hlograph's builders; the
interpreter then checks each result against the jaxpr's abstract value (the
same shape, else an error naming the rule) and casts it to the aval's dtype
where NumPy's promotion gave another one.

A rule that meets params it does not handle raises ``Unsupported(reason)``: the
equation then goes through the fallback (``fallback.JaxPrimitiveOp``), as a
primitive without a rule does. So does an equation whose rule fails with the
errors hlograph's builders raise for what they do not support (``TypeError``,
``ValueError``, ``IndexError``, ``NotImplementedError``); the import report
gives the error.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["register", "lookup", "registered", "Unsupported"]

#: primitive name -> rule
RULES: dict[str, Callable[..., Any]] = {}


class Unsupported(Exception):
    """Raised by a rule for an equation it does not translate (the reason is
    reported); the equation goes through the fallback."""


def _name(primitive: Any) -> str:
    return primitive if isinstance(primitive, str) else primitive.name


def register(*primitives: Any, replace: bool = False) -> Callable:
    """Decorator: ``@register("exp")`` (or a ``jax.extend.core.Primitive``) files
    the decorated rule under each primitive named. Registering a second rule for
    a primitive is an error unless ``replace=True``."""
    names = [_name(p) for p in primitives]
    if not names:
        raise TypeError("register() needs at least one primitive")

    def decorator(rule: Callable) -> Callable:
        for name in names:
            old = RULES.get(name)
            if old is not None and not replace:
                raise ValueError(f"a rule for jax primitive {name!r} is already registered "
                                 f"({getattr(old, '__qualname__', old)}); pass replace=True")
            RULES[name] = rule
        return rule

    return decorator


def lookup(primitive: Any) -> Callable | None:
    """The rule for a primitive (or its name), or None."""
    return RULES.get(_name(primitive))


def registered() -> list[str]:
    """The names of the primitives that have a rule, sorted."""
    return sorted(RULES)
