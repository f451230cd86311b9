"""A registry of functions by Op class, looked up along the class's MRO: the
mechanism behind lowering rules (``hlograph.lowering.register``) and host
implementations (``hlograph.host.register``)."""

from __future__ import annotations

import threading
from typing import Callable

from .graph import Op

__all__ = ["OpRegistry"]


def _describe(fn: Callable) -> str:
    inner = getattr(fn, "func", fn)  # functools.partial
    return getattr(inner, "__qualname__", repr(fn))


class OpRegistry:
    """Functions by Op class. ``what`` names an entry in errors ("lowering rule");
    ``load`` (optional) runs once before the first lookup, to register built-ins lazily;
    lookups from other threads wait until it has finished."""

    def __init__(self, what: str, load: Callable[[], None] | None = None):
        self.what = what
        self._entries: dict[type, Callable] = {}
        self._load = load
        self._loaded = load is None
        self._loading: int | None = None  # the thread running ``load``
        self._load_lock = threading.Lock()

    def register(self, op_class: type[Op]):
        """Decorator: files the decorated function under ``op_class``; a second one is an error."""
        if not (isinstance(op_class, type) and issubclass(op_class, Op)):
            raise TypeError(f"register() takes an Op subclass, got {op_class!r}")

        def decorator(fn: Callable) -> Callable:
            old = self._entries.get(op_class)
            if old is not None:
                raise ValueError(f"a {self.what} for {op_class.__name__} is already registered "
                                 f"({_describe(old)})")
            self._entries[op_class] = fn
            return fn

        return decorator

    def _ensure_loaded(self) -> None:
        if self._loaded:
            return
        with self._load_lock:
            me = threading.get_ident()
            if self._loaded or self._loading == me:  # the loader's own lookups go through
                return
            self._loading = me
            try:
                self._load()
                self._loaded = True
            finally:
                self._loading = None

    def lookup(self, op_class: type) -> Callable | None:
        """The entry for ``op_class`` or its nearest base class, or None."""
        self._ensure_loaded()
        for cls in op_class.__mro__:
            fn = self._entries.get(cls)
            if fn is not None:
                return fn
        return None

    def registered(self) -> dict[type, Callable]:
        """Op class -> entry, for the classes registered directly."""
        self._ensure_loaded()
        return dict(self._entries)
