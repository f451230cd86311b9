"""``jit``: a jax function compiled by hlograph, called with pytrees as jax.jit's is."""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable

import jax
import numpy as np

from ...compiler import compile as hg_compile
from .avals import is_key
from .interpreter import ImportedGraph, from_jax

__all__ = ["jit"]


def _spec(leaf: Any) -> Any:
    """The jax argument spec of one argument leaf (Python scalars weakly typed, as jax.jit)."""
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return leaf
    if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
        return jax.ShapeDtypeStruct(tuple(leaf.shape), leaf.dtype)
    if isinstance(leaf, (bool, int, float, complex)):
        dtype = jax.dtypes.canonicalize_dtype(np.result_type(type(leaf)))
        return jax.ShapeDtypeStruct((), dtype, weak_type=True)
    arr = np.asarray(leaf)
    return jax.ShapeDtypeStruct(arr.shape, arr.dtype)


def _argument(leaf: Any, graph_input: Any) -> Any:
    """One argument as the compiled graph takes it (keys as key data, scalars typed)."""
    if is_key(getattr(leaf, "dtype", None)):
        return jax.random.key_data(leaf)
    if isinstance(leaf, (bool, int, float, complex)) or not hasattr(leaf, "dtype"):
        return np.asarray(leaf, dtype=graph_input.dtype)
    return leaf


def jit(f: Callable, **compile_options: Any) -> Callable:
    """``f`` imported with ``from_jax`` and compiled with ``hlograph.compile`` (taking
    ``compile_options``), once per argument structure, shapes and dtypes, like
    ``jax.jit(f)``. Calls take and return pytrees; results are NumPy arrays (keys:
    their key data). ``jitted.graph_for(*args, **kwargs)`` gives the imported graph."""
    cache: dict[Any, tuple[ImportedGraph, Any]] = {}
    lock = threading.Lock()

    def entry(args: tuple, kwargs: dict) -> tuple[list[Any], ImportedGraph, Any]:
        leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        specs = [_spec(leaf) for leaf in leaves]
        key = (tree, tuple((s.shape, str(s.dtype), bool(getattr(s, "weak_type", False))) for s in specs))
        with lock:
            found = cache.get(key)
            if found is None:
                spec_args, spec_kwargs = jax.tree_util.tree_unflatten(tree, specs)
                graph = from_jax(f, *spec_args, **spec_kwargs)
                found = cache[key] = (graph, hg_compile(graph, **compile_options))
        return leaves, *found

    @functools.wraps(f)
    def jitted(*args: Any, **kwargs: Any) -> Any:
        leaves, graph, fn = entry(args, kwargs)
        out = fn(*(_argument(leaf, v) for leaf, v in zip(leaves, graph.inputs)))
        return graph.unflatten(out)

    def graph_for(*args: Any, **kwargs: Any) -> ImportedGraph:
        return entry(args, kwargs)[1]

    jitted.graph_for = graph_for
    return jitted
