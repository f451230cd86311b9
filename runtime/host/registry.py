"""Host implementations by Op class: ``@register(OpClass)``, the numba_funcify of hlograph.

A host implementation is a function ``impl(op, node) -> fn`` returning a
Numba-compilable ``fn(*inputs)`` that returns the node's output (or a tuple of
outputs when the node has several). Value-dependent output shapes are fine on
the host: the device segments after them specialize on the shapes seen at run
time.
"""

from __future__ import annotations

from typing import Callable

from ...frontend.graph import Op
from ...frontend.registry import OpRegistry

__all__ = ["register", "get_impl", "has_impl", "lookup", "registered_ops"]


def _load_builtins() -> None:
    # the built-in implementations import numba (~1 s): loaded on the first lookup
    from . import impls  # noqa: F401


IMPLS = OpRegistry("host implementation", load=_load_builtins)

#: Decorator: ``@register(MyOp)`` above ``def numba_my_op(op, node): return fn``.
register = IMPLS.register
#: The host implementation for an Op class or its nearest base class, or None.
lookup = IMPLS.lookup
#: Op class -> implementation, for the classes registered directly.
registered_ops = IMPLS.registered


def has_impl(op: Op) -> bool:
    return lookup(type(op)) is not None


def get_impl(op: Op) -> Callable | None:
    return lookup(type(op))
