"""``hlograph.function``: a plain NumPy function compiled as it is, as ``jax.jit``.

``function(f)`` returns a callable that traces ``f`` (``frontend/numpy/trace.py``:
``np.*`` calls on graph values build nodes) once per argument signature (the
structure of the arguments, positional and keyword, pytrees included, and the
shapes and dtypes of their arrays), compiles the graph with ``hlograph.compile``
and runs it.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable

import numpy as np

from ..frontend.graph import Graph
from ..frontend.numpy.trace import bind_parameters, trace_numpy
from ..frontend.pytree import PyTreeDef, tree_flatten
from ..frontend.types import TensorType
from .api import Function, compile as _compile

__all__ = ["function", "TracedFunction"]


def _arg_type(arg: Any, where: str) -> TensorType:
    if hasattr(arg, "shape") and hasattr(arg, "dtype") and not isinstance(arg, type):
        return TensorType(np.dtype(arg.dtype), tuple(arg.shape))
    try:
        arr = np.asarray(arg)
    except Exception as e:  # noqa: BLE001 - any conversion failure is the same bad argument
        raise TypeError(f"{where}: {type(arg).__name__} is not an array ({e})") from None
    if arr.dtype == object or arr.dtype.kind in "USV":
        raise TypeError(f"{where}: {type(arg).__name__} is not an array of numbers")
    return TensorType(arr.dtype, arr.shape)


def _is_array_leaf(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, type)


def _signature(args: tuple, kwargs: dict) -> tuple[PyTreeDef, tuple[TensorType, ...]]:
    """(structure, leaf types) of a call's arguments: the key a compiled graph is cached by."""
    leaves, treedef = tree_flatten((args, kwargs), _is_array_leaf)
    paths = treedef.paths()
    types = []
    for leaf, path in zip(leaves, paths):
        # paths look like "[0][1]['w']": the first key tells positional from keyword
        where = f"argument {path[3:]}" if path.startswith("[0]") else f"keyword argument {path[3:]}"
        types.append(_arg_type(leaf, where))
    return treedef, tuple(types)


class TracedFunction:
    """A NumPy function compiled per argument signature (see :func:`function`)."""

    def __init__(self, f: Callable, compile_options: dict[str, Any]):
        if not callable(f):
            raise TypeError(f"hlograph.function takes a function, got {type(f).__name__}")
        self.fun = f
        self.compile_options = compile_options
        self._cache: dict[tuple[PyTreeDef, tuple[TensorType, ...]], Function] = {}
        self._lock = threading.Lock()
        functools.update_wrapper(self, f)

    def trace(self, *specs: Any, **kwspecs: Any) -> Graph:
        """The graph of the function for argument types ``specs`` and ``kwspecs``
        (pytrees of specs, as ``hg.trace_numpy``)."""
        return trace_numpy(self.fun, *specs, **kwspecs)

    def compiled_for(self, *args: Any, **kwargs: Any) -> Function:
        """The compiled ``hg.Function`` for the structure, shapes and dtypes of ``args``
        and ``kwargs``."""
        key = _signature(args, kwargs)
        fn = self._cache.get(key)
        if fn is None:
            with self._lock:
                fn = self._cache.get(key)
                if fn is None:
                    spec_args, spec_kwargs = key[0].unflatten(key[1])
                    fn = _compile(trace_numpy(self.fun, *spec_args, **spec_kwargs), **self.compile_options)
                    self._cache[key] = fn
        return fn

    def lower(self, *args: Any, **kwargs: Any):
        """The ``Lowered`` module for arguments (or specs) like ``args`` and ``kwargs``."""
        return self.compiled_for(*args, **kwargs).lower()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fn = self.compiled_for(*args, **kwargs)
        # the graph's parameters are f's, in the order trace_numpy bound them
        params = bind_parameters(self.fun, self.__name__, args, kwargs)
        return fn(*params.values())

    def __repr__(self) -> str:
        return f"<hlograph.function {getattr(self.fun, '__qualname__', self.fun)!r}, " \
               f"{len(self._cache)} signature(s) compiled>"


def function(f: Callable | None = None, **compile_options: Any) -> Any:
    """Compiles a NumPy function, as ``jax.jit``: ``@hg.function`` or
    ``hg.function(f, pipeline="O1", platform="cpu")`` (the options are
    ``hlograph.compile``'s). Each new set of argument shapes and dtypes traces ``f``
    on graph values (``hg.trace_numpy``) and compiles the graph; later calls with
    the same ones run the compiled code. ``f`` must not depend on values (no
    ``if x > 0``, ``int(x)``, ``float(x)``): that raises a TypeError naming it."""
    if f is None:
        return lambda g: TracedFunction(g, compile_options)
    return TracedFunction(f, compile_options)
