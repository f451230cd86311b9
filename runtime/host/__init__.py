"""Host ops through Numba: ``hlograph.host.register(OpClass)`` and host segments."""

from .registry import get_impl, has_impl, register, registered_ops

__all__ = ["register", "get_impl", "has_impl", "registered_ops"]
