"""The per-call entry of compiled functions: ``Dispatching``, the base class of
``Function``, ``Compiled`` and ``ShardedCompiled``.

Calling an instance runs the jaxlib C++ dispatcher bound to it with ``_bind``
(see ``xla.pjrt.make_dispatcher``) and returns NumPy arrays, or jax arrays
with ``output="device"``: one array when the graph has a single output, else
a tuple.

The dispatcher needs jax's 64-bit types enabled to see a float64 NumPy
argument as float64 (with jax's default it narrows it to float32), but
switching jax's thread-local x64 state costs more than the rest of a call's
Python overhead. So a call runs under the caller's x64 state when its
signature is the same either way: all arguments are jax arrays, or NumPy
arrays (exactly ``numpy.ndarray``) of exactly the input's dtype, where that
dtype is not one jax narrows (int64, uint64, float64, complex128). Every
other call runs with x64 enabled for the current thread only, and NumPy
arrays in a non-native byte order go to the dispatcher in native order (it
would read their bytes as native ones).

The C implementation (``runtime/_dispatch.c``, built at install time) and the
Python one here behave alike; ``IMPLEMENTATION`` tells which one is in use.
Setting ``HLOGRAPH_PURE_PYTHON_DISPATCH=1`` selects the Python one.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from .args import native_byte_order
from ..xla.pjrt import DeviceArray, set_x64_local, swap_x64_local

__all__ = ["Dispatching", "PyDispatching", "CDispatching", "IMPLEMENTATION", "direct_dtypes"]

#: the dtypes whose NumPy arrays jax narrows when its 64-bit types are off
_NARROWED = frozenset(np.dtype(t) for t in ("int64", "uint64", "float64", "complex128"))


def direct_dtypes(dtypes: Sequence[np.dtype]) -> tuple:
    """Per input, the NumPy dtype whose arrays need no x64 switch, or None."""
    out = []
    for dt in dtypes:
        dt = np.dtype(dt)
        out.append(None if dt in _NARROWED else dt)
    return tuple(out)


class PyDispatching:
    """The Python implementation (the reference for ``_dispatch.c``)."""

    __slots__ = ("__dispatch", "__direct", "__single")

    def _bind(self, dispatch, direct: tuple, single: bool) -> None:
        self.__dispatch = dispatch
        self.__direct = direct
        self.__single = bool(single)

    def __call__(self, *args: Any, output: str = "numpy", **kwargs: Any):
        if kwargs:
            method = getattr(self, "_call_with_keywords", None)
            if method is None:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {next(iter(kwargs))!r}")
            return method(args, {**kwargs, "output": output})
        if output == "numpy":
            numpy = True
        elif output == "device":
            numpy = False
        else:
            raise ValueError(f"output must be 'numpy' or 'device', got {output!r}")
        try:
            dispatch = self.__dispatch
        except AttributeError:
            raise RuntimeError("this object has no compiled code bound to it") from None
        if _x64_neutral(self.__direct, args):
            out = dispatch(*args)
        else:
            args = [native_byte_order(a) for a in args]
            prev = swap_x64_local(True)
            try:
                out = dispatch(*args)
            finally:
                set_x64_local(prev)
        if not numpy:
            return out
        if self.__single:
            return np.asarray(out)
        return tuple([np.asarray(o) for o in out])


def _x64_neutral(direct: tuple, args: tuple) -> bool:
    if len(args) != len(direct):
        return False
    for a, want in zip(args, direct):
        tp = type(a)
        if tp is DeviceArray:
            continue
        if tp is not np.ndarray or want is None or a.dtype is not want:
            return False
    return True


def _load_c():
    if os.environ.get("HLOGRAPH_PURE_PYTHON_DISPATCH", "") not in ("", "0"):
        return None
    try:
        from . import _dispatch
    except ImportError:
        return None
    _dispatch.configure(swap_x64_local, set_x64_local, np.asarray, native_byte_order, DeviceArray, np.ndarray,
                        np.empty(0, np.float32))
    return _dispatch


_c = _load_c()
#: the C type, or None where the extension is not built (or is switched off)
CDispatching = None if _c is None else _c.Dispatching
#: "c" or "python"
IMPLEMENTATION = "python" if CDispatching is None else "c"


class Dispatching(PyDispatching if CDispatching is None else CDispatching):
    """The base class of compiled callables (the C type when it is built).

    Python 3.11 does not pass the C type's vectorcall flag on to subclasses
    defined in Python (3.12 does, for subclasses without ``__call__``); without
    it a call packs its arguments into a tuple first. Every subclass gets it here.
    """

    __slots__ = ()

    def _call_with_keywords(self, args: tuple, kwargs: dict) -> Any:
        """A call with arguments given by input name (``fn(x=..., w=...)``, mixed with
        positional ones as Python allows): matched to the inputs, then called as usual."""
        output = kwargs.pop("output", "numpy")
        return self(*self.graph.bind(args, kwargs), output=output)

    def _bind_graph(self, dispatch, graph) -> None:
        """Binds ``dispatch``, the dispatcher of a compiled ``graph``."""
        self._bind(dispatch, direct_dtypes(t.dtype for t in graph.input_types), graph.single_output)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if _c is not None:
            _c.enable_vectorcall(cls)
