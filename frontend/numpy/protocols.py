"""NumPy's own functions on graph values: ``Variable.__array_ufunc__`` and
``Variable.__array_function__``.

``np.sin(x)``, ``np.sum(x, axis=0)``, ``np.linalg.solve(a, b)`` or
``ndarray + x`` with a graph Variable ``x`` among the arguments build graph nodes
through hlograph's function of the same name: ``hlograph.<name>`` for ``numpy.<name>``,
``hlograph.linalg.<name>`` for ``numpy.linalg.<name>`` and ``hlograph.fft.<name>`` for
``numpy.fft.<name>`` (when hlograph has that namespace). Names resolve when called,
so every builder hlograph has is reachable. Arguments NumPy has but a graph cannot
honour (``out=``, ``order=``, ``like=``, ...; :data:`GRAPH_MEANINGLESS`) are accepted
at their defaults and rejected with a TypeError otherwise. A NumPy function
hlograph does not cover raises a TypeError naming it (and how to write it with
hlograph's functions, where there is a way).

Ufunc methods: ``reduce`` (``np.add.reduce`` -> ``sum``, ``multiply`` -> ``prod``,
``maximum``/``minimum`` -> ``max``/``min``, ``fmax``/``fmin`` -> ``nanmax``/``nanmin``,
``logical_and``/``logical_or`` -> ``all``/``any``), ``accumulate`` (``add`` -> ``cumsum``,
``multiply`` -> ``cumprod``, ``maximum``/``minimum`` -> ``cummax``/``cummin``) and
``outer`` (broadcasting); ``at`` and ``reduceat`` raise a TypeError naming the
alternative.

``Variable`` also has ``numpy.ndarray``'s methods and attributes (``x.std(axis=0)``);
:data:`NDARRAY_MEANINGLESS` lists those a graph value cannot have, with the reasons.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

import numpy as np

from ..graph import Variable
from ..ops.basic import as_variable

__all__ = ["array_ufunc", "array_function", "GRAPH_MEANINGLESS", "UFUNC_KEYWORDS", "KNOWN_GAPS", "resolve",
           "numpy_functions", "NDARRAY_MEANINGLESS", "check_meaningless"]

#: NumPy parameters a graph value cannot honour, each with its reason. Functions
#: reached through the protocols accept them at the default shown (NumPy passes some
#: explicitly) and raise a TypeError for any other value. ``tests/numpy/test_signatures.py``
#: reads this table; ``docs/numpy_compatibility.md`` shows it.
GRAPH_MEANINGLESS: dict[str, tuple[Any, str]] = {
    "out": (None, "graph values are immutable: every operation makes a new value "
                  "(use the result, or x.at[idx].set(v) for an updated copy)"),
    "order": ("K", "a graph value has no memory layout: XLA chooses it (sort/argsort/partition: "
                   "field names of structured arrays, which graphs do not have)"),
    "subok": (True, "there are no array subclasses in a graph"),
    "like": (None, "creation functions already make graph values; there is no other array type to imitate"),
    "device": (None, "placement is decided when compiling (hg.compile(..., device=...)), not per value"),
    "copy": (None, "graph values are immutable, so a copy and a view cannot be told apart"),
    "casting": ("same_kind", "hlograph follows NumPy's promotion rules; other casting rules "
                             "would only add errors, so ask for a dtype with astype instead"),
    "signature": (None, "ufunc loop selection: hlograph picks one implementation per dtype"),
    "overwrite_input": (False, "graph values are immutable: there is no input to overwrite"),
    "overwrite_a": (False, "graph values are immutable: there is no input to overwrite"),
    "overwrite_b": (False, "graph values are immutable: there is no input to overwrite"),
    "check_finite": (True, "the values are not known when the graph is built"),
    "kind": ("introselect", "an algorithm choice (partition's 'introselect', isin's 'sort'/'table'): "
                            "XLA chooses its own"),
    "optimize": (False, "einsum: hlograph chooses the contraction order itself"),
}

#: The keyword arguments of NumPy's ufuncs (``np.sin``, ``np.add``, ...), which
#: hlograph's elementwise builders do not take (they take the operands): how
#: ``np.<ufunc>(graph value, ..., keyword=...)`` honours each.
UFUNC_KEYWORDS: dict[str, str] = {
    "dtype": "honoured: the operands are cast to it and the result has it (bool results stay bool)",
    "where": "rejected unless True: without out= NumPy leaves the masked-out elements "
             "uninitialized; write hg.where(mask, np.<ufunc>(x), fallback)",
    "out": "rejected unless None (see out above)",
    "casting": "accepted at 'same_kind' only (see casting above)",
    "order": "accepted at 'K' only (see order above)",
    "subok": "accepted at True only (see subok above)",
    "signature": "accepted at None only (see signature above)",
}

_VALUE_NEEDED = ("needs the values, which are not known while the graph is built; {alt}, or call "
                 "it on the NumPy array a compiled function returns")
_IN_PLACE = "changes the array in place, and graph values are immutable; use {alt} (a new value)"
_NO_MEMORY = "a graph value has no memory of its own: XLA lays it out when compiling{alt}"

#: ``numpy.ndarray`` methods and attributes a graph value cannot have, each with the reason
#: and the alternative. ``Variable`` has every other public ndarray method and attribute
#: (``x.std(axis=0)``, ``x.T``, ``x.size``, ...) with NumPy's signature; these methods raise a
#: TypeError and these attributes an AttributeError with this text.
#: ``tests/numpy/test_methods.py`` walks ``dir(numpy.ndarray)`` against both;
#: ``docs/numpy_compatibility.md`` shows the table.
NDARRAY_MEANINGLESS: dict[str, str] = {
    "fill": _IN_PLACE.format(alt="hg.full_like(x, value)"),
    "put": _IN_PLACE.format(alt="hg.put(x, indices, values)"),
    "resize": _IN_PLACE.format(alt="hg.resize(x, new_shape) (NumPy's np.resize: the elements repeated) "
                                   "or x.reshape(new_shape)"),
    "sort": _IN_PLACE.format(alt="hg.sort(x, axis)"),
    "partition": _IN_PLACE.format(alt="hg.partition(x, kth, axis)"),
    "setfield": _NO_MEMORY.format(alt=", so there are no bytes to write (and graph values are "
                                      "immutable)"),
    "setflags": "graph values are always read-only and have no memory flags to set",
    "byteswap": _NO_MEMORY.format(alt=", in the machine's byte order; byteswap the NumPy arrays "
                                      "passed in or returned"),
    "getfield": _NO_MEMORY.format(alt=", so there are no bytes to reinterpret; x.astype(dtype) "
                                      "converts the values"),
    "item": _VALUE_NEEDED.format(alt="x[i, j] is the element as a 0-d graph value"),
    "tolist": _VALUE_NEEDED.format(alt="keep it a graph value"),
    "tobytes": _VALUE_NEEDED.format(alt="keep it a graph value"),
    "tofile": _VALUE_NEEDED.format(alt="keep it a graph value"),
    "dump": _VALUE_NEEDED.format(alt="keep it a graph value"),
    "dumps": _VALUE_NEEDED.format(alt="keep it a graph value"),
    "to_device": "placement is decided when compiling: hg.compile(..., device=...)",
    "device": "placement is decided when compiling (hg.compile(..., device=...)), not per value",
    "base": "graph values are immutable, so a copy and a view cannot be told apart: none has a base",
    "ctypes": _NO_MEMORY.format(alt=", so there is no pointer to hand to C"),
    "data": _NO_MEMORY.format(alt=", so there is no buffer to expose"),
    "strides": _NO_MEMORY.format(alt=", so there are no strides"),
    "flags": _NO_MEMORY.format(alt=" (graph values are read-only), so there are no memory flags"),
}

#: NumPy parameters hlograph does not take yet although a graph could honour them:
#: (NumPy module, function) -> {parameter: what is missing}. The signature test
#: fails when one of them is taken (so the list shrinks as they are added).
KNOWN_GAPS: dict[tuple[str, str], dict[str, str]] = {
}

#: A value in GRAPH_MEANINGLESS that is also accepted (NumPy's other spellings of the default).
_ALSO_DEFAULT = {"order": ("C", "A", "K", None), "copy": (None, True, False), "casting": ("same_kind", None),
                 "device": (None, "cpu"), "kind": (None, "introselect", "sort", "table"),
                 "optimize": (False, True, "greedy", "optimal")}

#: NumPy functions hlograph does not cover, with the way to write them (if any).
_HINTS = {
    "putmask": "hg.where(mask, values, a) (graph values are immutable)",
    "place": "hg.where(mask, values, a) (graph values are immutable)",
    "copyto": "hg.where(where, src, dst) (graph values are immutable)",
    "apply_along_axis": "a function of whole graph values (most hlograph builders take axis=)",
    "apply_over_axes": "the reduction's axis= argument with keepdims=True",
    "asanyarray": "hg.asarray", "ascontiguousarray": "hg.asarray", "asfortranarray": "hg.asarray",
    "require": "hg.asarray", "asarray_chkfinite": "hg.asarray plus hg.check_and_raise",
    "spacing": "hg.nextafter(x, np.inf) - x",
    "ix_": "indexing with reshaped index arrays (x[i[:, None], j])",
}


# --- resolution -----------------------------------------------------------------------
def _fft_namespace():
    """``hlograph.fft``'s module if hlograph has one (looked up when first needed)."""
    from . import MODULES
    from ..ops import FAMILIES
    if "fft" in MODULES:
        return MODULES["fft"]
    name = f"{__package__}.fft"  # numpy.fft's names live with the compositions
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
    return FAMILIES.get("fft")


def _namespace(module: str):
    """hlograph's module for a NumPy module name (None: not covered)."""
    if module == "numpy":
        from .. import builders
        return builders
    if module == "numpy.linalg":
        from . import linalg
        return linalg
    if module == "numpy.fft":
        return _fft_namespace()
    return None


def _numpy_module(func: Callable) -> str:
    module = getattr(func, "__module__", None) or "numpy"
    if module.startswith("numpy.linalg"):
        return "numpy.linalg"
    if module.startswith("numpy.fft"):
        return "numpy.fft"
    return "numpy"


def resolve(module: str, name: str) -> Callable | None:
    """hlograph's function for ``<module>.<name>`` (module: ``numpy``,
    ``numpy.linalg`` or ``numpy.fft``), or None."""
    ns = _namespace(module)
    if ns is None:
        return None
    if name not in getattr(ns, "__all__", ()):
        return None
    return getattr(ns, name)


def numpy_functions() -> dict[str, dict[str, tuple[Callable, Callable]]]:
    """NumPy module name -> {name: (NumPy's function, hlograph's function)} for every
    public NumPy function hlograph covers (the table the protocols dispatch through)."""
    out: dict[str, dict[str, tuple[Callable, Callable]]] = {}
    for module, npmod in (("numpy", np), ("numpy.linalg", np.linalg), ("numpy.fft", np.fft)):
        table = out.setdefault(module, {})
        for name in dir(npmod):
            if name.startswith("_"):
                continue
            f = getattr(npmod, name)
            if isinstance(f, type) or not callable(f):
                continue
            ours = resolve(module, name)
            if ours is not None:
                table[name] = (f, ours)
    return out


def _not_covered(qualname: str, module: str, name: str) -> TypeError:
    hint = _HINTS.get(name) if module == "numpy" else None
    msg = f"{qualname} has no hlograph implementation for graph values"
    if hint:
        msg += f"; write it as {hint}"
    return TypeError(msg)


# --- arguments ------------------------------------------------------------------------
def _is_default(param: str, value: Any) -> bool:
    default = GRAPH_MEANINGLESS[param][0]
    if value is default or (isinstance(value, (str, bool)) and value == default):
        return True
    return any(value is d or (isinstance(d, str) and value == d) for d in _ALSO_DEFAULT.get(param, ()))


def _check_out(qualname: str, out: Any) -> None:
    outs = out if isinstance(out, tuple) else (out,)
    if any(o is not None for o in outs):
        raise TypeError(
            f"{qualname}(..., out=...) on a graph value: {GRAPH_MEANINGLESS['out'][1]}; "
            f"drop out= and use the returned value")


def _params(fn: Callable) -> tuple[list[str], set[str], bool]:
    """(positional parameter names, all parameter names, takes **kwargs) of ``fn``."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return [], set(), True
    ps = sig.parameters.values()
    positional = [p.name for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = {p.name for p in ps if p.kind is not p.POSITIONAL_ONLY}
    return positional, names, any(p.kind is p.VAR_KEYWORD for p in ps)


def _adapt_kwargs(qualname: str, numpy_fn: Callable | None, fn: Callable,
                  args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """NumPy's call -> hlograph's: graph-meaningless arguments at their defaults
    dropped, other values of them rejected, arguments bound to NumPy's signature and
    passed to hlograph's function by position while their positions agree (so
    NumPy's positional order and its names for data arguments, ``a`` for ``x``, both
    work), by keyword after."""
    positional, names, var_kw = _params(fn)
    try:
        np_params = inspect.signature(numpy_fn).parameters
        bound = inspect.signature(numpy_fn).bind(*args, **kwargs).arguments
    except (TypeError, ValueError):
        np_params = None
    if np_params is None:  # no signature to bind to: keywords as given
        kwargs = dict(kwargs)
        for key in [k for k in kwargs if k in GRAPH_MEANINGLESS and (k not in names and not var_kw)]:
            _check_meaningless(qualname, key, kwargs.pop(key))
        return args, kwargs
    call_args: list = []
    call_kw: dict = {}
    in_order = True
    for i, (pname, p) in enumerate(np_params.items()):
        if pname not in bound:
            in_order = False
            continue
        value = bound[pname]
        if p.kind is p.VAR_POSITIONAL:
            call_args.extend(value)
            continue
        if p.kind is p.VAR_KEYWORD:
            call_kw.update(value)
            continue
        if pname in GRAPH_MEANINGLESS and pname not in names and not var_kw:
            _check_meaningless(qualname, pname, value)
            in_order = False  # the positions after it no longer line up
            continue
        if in_order and i < len(positional) and (
                p.kind is p.POSITIONAL_ONLY or positional[i] == pname or pname not in names):
            call_args.append(value)
        else:
            in_order = False
            call_kw[pname] = value
    return tuple(call_args), call_kw


def check_meaningless(qualname: str, **params: Any) -> None:
    """A TypeError with the reason when a :data:`GRAPH_MEANINGLESS` parameter (``out=``,
    ``order=``, ...) of ``qualname`` is given a value other than its default."""
    for param, value in params.items():
        if param not in GRAPH_MEANINGLESS:
            raise TypeError(f"{qualname}() got an unexpected keyword argument {param!r}")
        _check_meaningless(qualname, param, value)


def _check_meaningless(qualname: str, param: str, value: Any) -> None:
    if param == "out":
        _check_out(qualname, value)
    elif not _is_default(param, value):
        raise TypeError(f"{qualname}(..., {param}={value!r}) on a graph value: "
                        f"{GRAPH_MEANINGLESS[param][1]}")


# --- __array_function__ -----------------------------------------------------------------
def array_function(func: Callable, types: tuple, args: tuple, kwargs: dict) -> Any:
    """``Variable.__array_function__``: NumPy's ``func`` through hlograph's namesake."""
    name = getattr(func, "__name__", repr(func))
    module = _numpy_module(func)
    qualname = f"{module}.{name}"
    if not all(issubclass(t, (Variable, np.ndarray)) for t in types):
        return NotImplemented  # another array library's type takes part: let it answer
    fn = resolve(module, name)
    if fn is None:
        raise _not_covered(qualname, module, name)
    args, kwargs = _adapt_kwargs(qualname, func, fn, args, kwargs)
    return fn(*args, **kwargs)


# --- __array_ufunc__ ----------------------------------------------------------------------
#: ufunc name -> hlograph's reduction for ``ufunc.reduce``
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "fmax": "nanmax", "fmin": "nanmin", "logical_and": "all", "logical_or": "any"}
#: ufunc name -> hlograph's cumulative reduction for ``ufunc.accumulate``
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod", "maximum": "cummax", "minimum": "cummin"}
_UFUNC_DEFAULTS = {"casting": "same_kind", "order": "K", "subok": True, "signature": None}
#: the generalized ufuncs' keywords (matmul, vecdot, matvec, vecmat), passed to the builders taking them
_GUFUNC_KEYWORDS = ("axes", "axis", "keepdims")


def _builder(name: str) -> Callable | None:
    from .. import builders
    return getattr(builders, name) if name in builders.__all__ else None


def _ufunc_call(ufunc: np.ufunc, inputs: tuple, kwargs: dict) -> Any:
    qualname = f"numpy.{ufunc.__name__}"
    fn = _builder(ufunc.__name__)
    if fn is None:
        raise _not_covered(qualname, "numpy", ufunc.__name__)
    dtype = kwargs.pop("dtype", None)
    where = kwargs.pop("where", True)
    for key, default in _UFUNC_DEFAULTS.items():
        value = kwargs.pop(key, default)
        if not (value is default or value == default):
            raise TypeError(f"{qualname}(..., {key}={value!r}) on a graph value: "
                            f"{GRAPH_MEANINGLESS[key][1]}")
    if not (where is True):
        raise TypeError(
            f"{qualname}(..., where=...) without out=: NumPy leaves the masked-out elements "
            f"uninitialized, and graph values are immutable; write "
            f"hg.where(mask, {qualname.replace('numpy.', 'np.')}(...), fallback) instead")
    gufunc = {k: kwargs.pop(k) for k in _GUFUNC_KEYWORDS if k in kwargs and k in _params(fn)[1]}
    if kwargs:
        raise TypeError(f"{qualname}: unexpected keyword argument(s) {sorted(kwargs)} for a graph value")
    if dtype is None:
        return fn(*inputs, **gufunc)
    loop = _loop_dtypes(ufunc, qualname, inputs, dtype)
    inputs = tuple(as_variable(x).astype(dt) for x, dt in zip(inputs, loop))
    result = fn(*inputs, **gufunc)
    results = result if isinstance(result, (tuple, list)) else (result,)
    fixed = tuple(r.astype(dt) for r, dt in zip(results, loop[ufunc.nin:]))
    return fixed if isinstance(result, (tuple, list)) else fixed[0]


def _loop_dtypes(ufunc: np.ufunc, qualname: str, inputs: tuple, dtype: Any) -> tuple[np.dtype, ...]:
    """The dtypes of NumPy's loop for ``ufunc`` on ``inputs`` with ``dtype=`` (inputs
    then outputs), as NumPy picks it; a TypeError where NumPy has none."""
    from ..types import as_dtype
    def dt(x):
        if isinstance(x, Variable) or isinstance(x, (np.ndarray, np.generic)):
            return x.dtype
        return type(x) if isinstance(x, (bool, int, float, complex)) else np.asarray(x).dtype
    out = as_dtype(dtype)
    try:
        return tuple(ufunc.resolve_dtypes(tuple(dt(x) for x in inputs) + (None,) * ufunc.nout,
                                          signature=(None,) * ufunc.nin + (out,) * ufunc.nout))
    except TypeError as e:
        raise TypeError(f"{qualname}(..., dtype={out}): {e} (as in NumPy)") from None


def _ufunc_reduce(ufunc: np.ufunc, inputs: tuple, kwargs: dict) -> Any:
    qualname = f"numpy.{ufunc.__name__}.reduce"
    name = _REDUCE.get(ufunc.__name__)
    if name is None:
        raise TypeError(f"{qualname} has no hlograph implementation for graph values; "
                        f"the reductions are {', '.join(f'np.{k}.reduce' for k in _REDUCE)}")
    (x,) = inputs
    kwargs = dict(kwargs)
    if "out" in kwargs:
        _check_out(qualname, kwargs.pop("out"))
    kwargs.setdefault("axis", 0)
    dtype = kwargs.pop("dtype", None)
    if dtype is not None:
        if name in ("all", "any", "max", "min", "nanmax", "nanmin"):
            x = as_variable(x).astype(dtype)
        else:
            kwargs["dtype"] = dtype
    return _builder(name)(x, **kwargs)


def _ufunc_accumulate(ufunc: np.ufunc, inputs: tuple, kwargs: dict) -> Any:
    qualname = f"numpy.{ufunc.__name__}.accumulate"
    name = _ACCUMULATE.get(ufunc.__name__)
    if name is None:
        raise TypeError(f"{qualname} has no hlograph implementation for graph values; "
                        f"the accumulations are {', '.join(f'np.{k}.accumulate' for k in _ACCUMULATE)}")
    (x,) = inputs
    kwargs = dict(kwargs)
    if "out" in kwargs:
        _check_out(qualname, kwargs.pop("out"))
    axis = kwargs.pop("axis", 0)
    dtype = kwargs.pop("dtype", None)
    if kwargs:
        raise TypeError(f"{qualname}: unexpected keyword argument(s) {sorted(kwargs)}")
    x = as_variable(x)
    if axis is None:
        raise TypeError(f"{qualname}: axis=None is not allowed (as in NumPy); pass an int")
    if dtype is not None:
        x = x.astype(dtype)
    out = _builder(name)(x, axis=axis)
    return out.astype(x.dtype) if dtype is not None and out.dtype != x.dtype else out


def _ufunc_outer(ufunc: np.ufunc, inputs: tuple, kwargs: dict) -> Any:
    from .. import builders
    a, b = (as_variable(v) for v in inputs)
    if b.ndim:  # a's dims, then b's: a[..., None, ..., None] op b
        a = builders.expand_dims(a, tuple(range(a.ndim, a.ndim + b.ndim)))
    return _ufunc_call(ufunc, (a, b), dict(kwargs))


def array_ufunc(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    """``Variable.__array_ufunc__``: NumPy's ufunc ``method`` through hlograph's builders."""
    for x in inputs:
        if not isinstance(x, (Variable, np.ndarray)) and hasattr(type(x), "__array_ufunc__") \
                and type(x).__array_ufunc__ is not np.ndarray.__array_ufunc__:
            return NotImplemented  # another array library's type takes part: let it answer
    kwargs = dict(kwargs)
    if method == "__call__":
        if "out" in kwargs:
            _check_out(f"numpy.{ufunc.__name__}", kwargs.pop("out"))
        return _ufunc_call(ufunc, inputs, kwargs)
    if method == "reduce":
        return _ufunc_reduce(ufunc, inputs, kwargs)
    if method == "accumulate":
        return _ufunc_accumulate(ufunc, inputs, kwargs)
    if method == "outer":
        if "out" in kwargs:
            _check_out(f"numpy.{ufunc.__name__}.outer", kwargs.pop("out"))
        return _ufunc_outer(ufunc, inputs, kwargs)
    if method == "at":
        update = {"add": "add", "multiply": "multiply", "minimum": "min", "maximum": "max",
                  "subtract": "add", "divide": "multiply", "true_divide": "multiply"}.get(ufunc.__name__)
        operand = {"subtract": "-b", "divide": "1 / b", "true_divide": "1 / b"}.get(ufunc.__name__, "b")
        hint = (f"write a = hg.at(a)[indices].{update}({operand}), an updated copy (a may be a NumPy "
                f"array such as np.zeros(n))" if update else
                "update a copy with a = hg.at(a)[indices].set/.add/.multiply/.min/.max(...)")
        if ufunc.__name__ == "add":
            hint += "; for a 1-d sum, np.bincount(indices, weights=b, minlength=n)"
        raise TypeError(
            f"numpy.{ufunc.__name__}.at(a, indices, b) updates a in place, and graph values are "
            f"immutable; {hint}")
    if method == "reduceat":
        raise TypeError(
            f"numpy.{ufunc.__name__}.reduceat has no hlograph implementation; reduce each slice "
            f"(hg.{_REDUCE.get(ufunc.__name__, 'sum')}(x[i:j], axis=...)) and hg.stack the results")
    raise TypeError(f"numpy.{ufunc.__name__}.{method} is not supported on graph values")
