"""Tracing a plain NumPy function into a graph: ``trace_numpy(f, *specs) -> Graph``.

``f`` runs once on graph Variables of the given types; the ``np.*`` calls it makes
on them build nodes through NumPy's protocols (``frontend/numpy/protocols.py``),
and its operators through the Variable's. NumPy calls on constants alone stay
NumPy calls (folded into the graph as Constants). What depends on values
(``if x > 0``, ``int(x)``, ``float(x)``, ``lst[x]``, ``np.asarray(x)``) raises a
TypeError naming the problem: the values are not known while tracing.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
from typing import Any, Callable

import numpy as np

from ..graph import Graph, Variable
from ..pytree import tree_flatten
from ..ops.basic import as_variable
from ..types import TensorType

__all__ = ["trace_numpy", "as_tensor_type", "bind_parameters"]


def as_tensor_type(spec: Any, what: str = "spec") -> TensorType:
    """A TensorType from ``spec``: a TensorType, a ``(shape, dtype)`` pair, an array
    (its shape and dtype) or any object with ``shape`` and ``dtype`` attributes
    (``jax.ShapeDtypeStruct``, jax and NumPy arrays); a Python scalar is 0-d."""
    if isinstance(spec, TensorType):
        return spec
    if isinstance(spec, Variable):
        return spec.type
    if isinstance(spec, tuple) and len(spec) == 2 and not hasattr(spec, "dtype"):
        shape, dtype = spec
        if isinstance(shape, int):
            shape = (shape,)
        if isinstance(shape, (tuple, list)):
            try:
                return TensorType(dtype, tuple(shape))
            except (TypeError, ValueError) as e:
                raise TypeError(f"{what} {spec!r}: not a (shape, dtype) pair ({e})") from None
    if hasattr(spec, "shape") and hasattr(spec, "dtype"):
        return TensorType(np.dtype(spec.dtype) if not isinstance(spec.dtype, np.dtype) else spec.dtype,
                          tuple(spec.shape))
    if isinstance(spec, (bool, int, float, complex, np.generic, list)):
        arr = np.asarray(spec)
        return TensorType(arr.dtype, arr.shape)
    raise TypeError(f"{what} must be a hg.TensorType, a (shape, dtype) pair, an array or an "
                    f"object with shape and dtype attributes, got {type(spec).__name__}: {spec!r}")


def _is_spec_leaf(x: Any) -> bool:
    """Whether ``x`` is one input's spec rather than a container of specs: a TensorType,
    a Variable, an object with ``shape`` and ``dtype``, a ``(shape, dtype)`` pair or a
    scalar (lists, tuples, dicts, namedtuples and registered classes are containers)."""
    if isinstance(x, (TensorType, Variable)) or (hasattr(x, "shape") and hasattr(x, "dtype")
                                                  and not isinstance(x, type)):
        return True
    if type(x) is tuple and len(x) == 2:
        shape, dtype = x
        is_shape = isinstance(shape, (int, np.integer)) and not isinstance(shape, bool) or (
            isinstance(shape, (tuple, list))
            and all(d is None or isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape))
        is_dtype = isinstance(dtype, (str, np.dtype)) or (isinstance(dtype, type) and issubclass(dtype, np.generic)) \
            or any(dtype is t for t in (bool, int, float, complex))
        return is_shape and is_dtype
    return False


def _signature(f: Callable) -> inspect.Signature | None:
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):
        return None


def bind_parameters(f: Callable, fname: str, args: tuple, kwargs: dict) -> dict[str, Any]:
    """The parameters of the graph ``trace_numpy(f, *args, **kwargs)`` builds, each
    bound to its value in that call (name -> pytree, in the graph's order)."""
    return _bind(f, fname, args, kwargs)[0]


def _bind(f: Callable, fname: str, specs: tuple, kwspecs: dict) -> tuple[dict[str, Any], Callable]:
    """The graph's parameters (name -> pytree of specs, in the call's order) and the
    way to call ``f`` with the same structure of graph values in their place."""
    sig = _signature(f)
    if sig is None:
        if kwspecs:
            raise TypeError(f"trace_numpy: {fname} has no signature to match keyword specs "
                            f"{sorted(kwspecs)} to")
        names = [f"arg{i}" for i in range(len(specs))]
        return dict(zip(names, specs)), lambda values: f(*(values[n] for n in names))
    try:
        bound = sig.bind(*specs, **kwspecs)
    except TypeError as e:
        raise TypeError(f"trace_numpy: the specs do not match {fname}{sig}: {e}") from None
    params: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        kind = sig.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            params.update(value)
        else:
            params[name] = value

    def call(values: dict[str, Any]) -> Any:
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for name, p in sig.parameters.items():
            if p.kind is p.VAR_KEYWORD:
                kwargs.update({k: values[k] for k in bound.arguments.get(name, {})})
            elif name not in bound.arguments:
                continue
            elif p.kind is p.VAR_POSITIONAL:
                args.extend(values[name])
            elif p.kind is p.KEYWORD_ONLY:
                kwargs[name] = values[name]
            else:
                args.append(values[name])
        return f(*args, **kwargs)

    return params, call


def _as_output(value: Any, i: int | None, fname: str) -> Variable:
    if isinstance(value, Variable):
        return value
    where = f"{fname} returned" if i is None else f"output {i} of {fname}"
    if isinstance(value, (np.ndarray, np.generic, bool, int, float, complex)):
        return as_variable(value)
    raise TypeError(f"{where} is a {type(value).__name__}: a traced function returns graph "
                    f"values (or arrays), one or a tuple/list of them")


# --- np.asarray(x) and friends while tracing ------------------------------------------------
#: the conversions a NumPy function applies to its arguments first (``x = np.asarray(x)``),
#: which NumPy does not dispatch: while a function is traced, those of the ``numpy`` module
#: give a graph value (or a nested sequence holding one) back as a graph value
_CONVERSIONS = ("asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "array")
_patch_lock = threading.Lock()
_patch_depth = 0
_originals: dict[str, Callable] = {}


def _holds_variable(a: Any) -> bool:
    if isinstance(a, Variable):
        return True
    return isinstance(a, (list, tuple)) and any(_holds_variable(v) for v in a)


def _graph_conversion(name: str, original: Callable) -> Callable:
    from . import creation

    @functools.wraps(original)
    def convert(a, dtype=None, *args, **kwargs):
        if not _holds_variable(a):
            return original(a, dtype, *args, **kwargs)
        ndmin = kwargs.pop("ndmin", 0) if name == "array" else 0
        for meaningless in ("copy", "order", "subok" if name == "array" else "like"):
            kwargs.pop(meaningless, None)  # (a graph value is never a view)
        if kwargs or args:
            takes = "dtype=, copy=, order= and ndmin=" if name == "array" else "dtype="
            raise TypeError(f"np.{name} of graph values takes {takes} only, got {sorted(kwargs) or args}")
        return creation.array(a, dtype, ndmin=ndmin) if name == "array" else creation.asarray(a, dtype)
    return convert


@contextlib.contextmanager
def _conversions_of_graph_values():
    """While tracing: ``np.asarray`` / ``np.array`` / ... of graph values give graph values
    (their other calls are NumPy's own); the numpy module's functions are restored after the
    outermost trace ends."""
    global _patch_depth
    with _patch_lock:
        if _patch_depth == 0:
            for name in _CONVERSIONS:
                _originals[name] = getattr(np, name)
                setattr(np, name, _graph_conversion(name, _originals[name]))
        _patch_depth += 1
    try:
        yield
    finally:
        with _patch_lock:
            _patch_depth -= 1
            if _patch_depth == 0:
                for name in _CONVERSIONS:
                    setattr(np, name, _originals.pop(name))


def trace_numpy(f: Callable, *specs: Any, **kwspecs: Any) -> Graph:
    """The graph of ``f`` applied to inputs of the types ``specs`` and ``kwspecs``
    (each a ``hg.TensorType``, a ``(shape, dtype)`` pair, an example array, an object
    with ``shape`` and ``dtype`` or a Python scalar, or a pytree of them: dicts,
    lists, tuples, namedtuples and registered classes of specs). The specs bind to
    ``f``'s parameters as a call's arguments would; parameters left out keep their
    Python defaults.

    A call of flat specs returning one value or a flat tuple/list of values gives a
    flat graph (one input Variable per spec, named by its parameter). Otherwise the
    graph's inputs are a dict of ``f``'s parameter names (each ``**kwargs`` key its
    own) to pytrees of input Variables, and its outputs keep ``f``'s return
    structure: the compiled graph takes ``fn(x, params={"w": ...})`` and returns the
    same containers ``f`` does.

    Raises:
        TypeError: specs that do not match ``f``'s signature, a bad spec or output,
            or ``f`` needs a value (bool(x), int(x), indexing a Python list by x,
            np.asarray(x), ...), which tracing cannot give.
    """
    if not callable(f):
        raise TypeError(f"trace_numpy takes a function, got {type(f).__name__}")
    fname = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    params, call = _bind(f, fname, specs, kwspecs)
    values: dict[str, Any] = {}
    flat = True
    for name, tree in params.items():
        leaves, treedef = tree_flatten(tree, _is_spec_leaf)
        flat = flat and treedef.is_leaf
        paths = treedef.paths()
        variables = [Variable(as_tensor_type(s, f"spec {name!r}{path}"), name=name + path if path else name)
                     for s, path in zip(leaves, paths)]
        values[name] = treedef.unflatten(variables)
    try:
        with _conversions_of_graph_values():
            result = call(values)
    except TypeError as e:
        if "graph Variable" in str(e):
            e.add_note(f"(while tracing {fname}: a traced function runs once on graph values, "
                       f"so Python control flow and conversions cannot depend on their values)")
        raise
    if type(result) in (tuple, list) and not result:
        raise TypeError(f"{fname} returned an empty {type(result).__name__}: a graph needs an output")
    out_leaves, out_def = tree_flatten(result, lambda v: isinstance(v, Variable))
    if not out_leaves:
        raise TypeError(f"{fname} returned no graph values ({result!r}): a graph needs an output")
    outputs = [_as_output(v, None if out_def.is_leaf else path or None, fname)
               for v, path in zip(out_leaves, out_def.paths())]
    inputs: Any = list(values.values()) if flat else values
    if out_def.is_leaf:
        return Graph(inputs, outputs[0])
    if type(result) in (tuple, list) and all(c.is_leaf for c in out_def.children):
        return Graph(inputs, type(result)(outputs))
    return Graph(inputs, out_def.unflatten(outputs))
