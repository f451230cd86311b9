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

__all__ = ["register", "get_impl", "has_impl", "lookup", "registered_ops"]

_IMPLS: dict[type, Callable] = {}


def register(op_class: type[Op]):
    """Decorator: ``@register(MyOp)`` above ``def numba_my_op(op, node): return fn``."""
    if not (isinstance(op_class, type) and issubclass(op_class, Op)):
        raise TypeError(f"register() takes an Op subclass, got {op_class!r}")

    def decorator(impl: Callable) -> Callable:
        if op_class in _IMPLS:
            raise ValueError(f"a host implementation for {op_class.__name__} is already registered "
                             f"({_IMPLS[op_class].__qualname__})")
        _IMPLS[op_class] = impl
        return impl

    return decorator


_builtins_loaded = False


def _load_builtins() -> None:
    # the built-in implementations import numba (~1 s): loaded on the first lookup
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        from . import impls  # noqa: F401


def lookup(op_class: type) -> Callable | None:
    """The host implementation registered for ``op_class`` or its nearest base class, or None."""
    _load_builtins()
    for cls in op_class.__mro__:
        impl = _IMPLS.get(cls)
        if impl is not None:
            return impl
    return None


def has_impl(op: Op) -> bool:
    return lookup(type(op)) is not None


def get_impl(op: Op) -> Callable | None:
    return lookup(type(op))


def registered_ops() -> dict[type, Callable]:
    _load_builtins()
    return dict(_IMPLS)
