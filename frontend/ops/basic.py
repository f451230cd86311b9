"""Graph inputs and constants, plus the helpers every op family shares:
conversion of Python values, NumPy 2 (NEP 50) dtype promotion, broadcasting,
axis normalization and the checks of static int and shape arguments."""

from __future__ import annotations

import operator
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..graph import Constant, Variable
from ..symbolic import SymDim, dim_max
from ..types import DTYPES, TensorType, as_dtype, is_float

__all__ = ["tensor", "scalar", "constant", "as_variable"]

_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def tensor(name: str, shape: Iterable[int | str | None] = (), dtype: Any = "float32") -> Variable:
    """A graph input: ``tensor("x", (3, None), "float32")``; ``None`` marks an unknown
    dim, a name (``tensor("x", ("b", 4))``) an unknown dim that every input naming it
    shares: a shape-polymorphic lowering (``Function.lower(symbolic=True)``) keeps
    it as one symbolic size, and a call must give equal sizes there."""
    if isinstance(shape, (int, np.integer)) or not any(isinstance(d, str) for d in shape):
        return Variable(TensorType(dtype, shape), name=name)
    shape = tuple(shape)
    for d in shape:
        if isinstance(d, str) and not d.isidentifier():
            raise ValueError(f"a symbolic dimension name must be an identifier, got {d!r}")
    v = Variable(TensorType(dtype, [None if isinstance(d, str) else d for d in shape]), name=name)
    v.dim_names = tuple(d if isinstance(d, str) else None for d in shape)
    return v


def scalar(name: str, dtype: Any = "float32") -> Variable:
    """A 0-d graph input."""
    return tensor(name, (), dtype)


def constant(value: Any, dtype: Any = None, name: str | None = None) -> Constant:
    """A constant graph value (copied; NumPy's default dtypes unless ``dtype`` is given)."""
    return Constant(value, dtype, name)


def is_weak(x: Any) -> bool:
    """Python scalars are weakly typed (NEP 50): they adopt the other operand's dtype."""
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _kind(dt: np.dtype) -> str:
    if is_float(dt):
        return "f"
    return dt.kind


def _strong_result(dtypes: Sequence[np.dtype]) -> np.dtype:
    try:
        return as_dtype(np.result_type(*dtypes))
    except (TypeError, np.exceptions.DTypePromotionError):
        # bfloat16 with float16 has no NumPy promotion; both fit float32.
        widened = [DTYPES["float32"] if d in (DTYPES["bfloat16"], DTYPES["float16"]) else d
                   for d in dtypes]
        return as_dtype(np.result_type(*widened))


def result_type(*args: Any) -> np.dtype:
    """NumPy 2 promotion of Variables, arrays and weak Python scalars."""
    if args and all(isinstance(a, Variable) for a in args):
        first = args[0].dtype
        if all(a.dtype is first for a in args):  # the common case: one dtype
            return first
    strong = [a.dtype if isinstance(a, Variable) else np.asarray(a).dtype
              for a in args if not is_weak(a)]
    weak = [a for a in args if is_weak(a)]
    if strong:
        dt = _strong_result(strong)
    else:
        return as_dtype(np.result_type(*weak))
    for w in weak:
        wk = "b" if isinstance(w, bool) else "i" if isinstance(w, int) else \
             "f" if isinstance(w, float) else "c"
        if _KIND_RANK[wk] <= _KIND_RANK[_kind(dt)]:
            continue
        if wk == "i":
            dt = DTYPES["int64"]
        elif wk == "f":
            dt = DTYPES["float64"]
        else:  # complex scalar
            dt = DTYPES["complex64"] if _kind(dt) == "f" and dt.itemsize <= 4 else DTYPES["complex128"]
    return dt


def as_variable(x: Any, dtype: Any = None) -> Variable:
    """A Variable for ``x``: Variables pass through (cast when ``dtype`` differs),
    anything array-like becomes a Constant."""
    if isinstance(x, Variable):
        if dtype is not None and as_dtype(dtype) != x.dtype:
            return x.astype(dtype)  # elemwise's Cast, through the Variable's method
        return x
    if dtype is None and is_weak(x):
        dtype = result_type(x)
    try:
        return Constant(np.asarray(x, dtype=None if dtype is None else as_dtype(dtype)))
    except OverflowError as e:
        raise OverflowError(f"Python value {x!r} does not fit {as_dtype(dtype)}") from e


def promote(*args: Any, dtype: Any = None) -> list[Variable]:
    """Converts ``args`` to Variables of one dtype (``dtype`` or their NEP 50 result type)."""
    dt = as_dtype(dtype) if dtype is not None else result_type(*args)
    return [as_variable(a, dt) for a in args]


def broadcast_shapes(*shapes: Sequence[int | None], op: "str | Callable[[], str]" = "broadcast"
                     ) -> tuple[int | None, ...]:
    """NumPy broadcasting of static shapes; ``None`` dims broadcast with anything but
    an incompatible known size. ``op`` names the caller in the error (a callable
    is called only then: graph building formats nothing it does not show)."""
    if len(shapes) > 1 and all(s == shapes[0] for s in shapes):
        return tuple(shapes[0])  # the common case: one shape (unknown and symbolic dims alike)
    ndim = max((len(s) for s in shapes), default=0)
    out: list[int | None] = []
    for i in range(ndim):
        dims = [s[len(s) - ndim + i] for s in shapes if len(s) - ndim + i >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if any(type(d) is SymDim for d in known):
            # symbolic dims broadcast with 1, with themselves and with a known size
            # (checked when a call refines them); two different ones give their max
            ints = {d for d in known if type(d) is not SymDim}
            if len(ints) > 1:
                raise ValueError(
                    f"{_name(op)}: shapes {', '.join(str(tuple(s)) for s in shapes)} do not broadcast")
            if ints:
                out.append(ints.pop())
            else:
                syms = sorted(known, key=str)
                d = syms[0]
                for e in syms[1:]:
                    d = dim_max(d, e)
                out.append(d)
            continue
        if len(known) > 1:
            raise ValueError(
                f"{_name(op)}: shapes {', '.join(str(tuple(s)) for s in shapes)} do not broadcast"
            )
        if known:
            out.append(known.pop())
        elif any(d is None for d in dims):
            # an unknown dim broadcast with 1s stays unknown
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def _name(op: "str | Callable[[], str]") -> str:
    return op() if callable(op) else op


def normalize_axis(axis: int, ndim: int, op: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{op}: axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{op}: axis {axis} is out of bounds for an array of dimension {ndim}")
    return int(axis) % ndim if ndim else 0


def scalar_reduction_axis(axis: Any, ndim: int) -> Any:
    """NumPy's ufunc reductions accept an int axis 0 or -1 on a 0-d input (they reduce
    nothing: ``np.sum(np.float64(2.5), axis=0)`` is 2.5); such an axis means None here."""
    if ndim == 0 and isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) \
            and axis in (0, -1):
        return None
    return axis


def normalize_axes(axis: int | Sequence[int] | None, ndim: int, op: str) -> tuple[int, ...]:
    """``None`` means every axis; ints may be negative; duplicates are an error."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        axis = (axis,)
    axes = tuple(normalize_axis(a, ndim, op) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}: repeated axis in {tuple(axis)}")
    return axes


def as_int(v: Any, op: str, what: str) -> int:
    """A static int argument (not a bool): ``TypeError`` naming ``what`` otherwise."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {what} must be an int, got {v!r}")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{op}: {what} must be an int, got {v!r}") from None


def as_ints(v: Any, op: str, what: str) -> tuple[int, ...]:
    """One static int or a sequence (or array) of them, as a tuple of ints."""
    if isinstance(v, (list, tuple, np.ndarray)):
        return tuple(as_int(e, op, what) for e in np.asarray(v).reshape(-1).tolist())
    return (as_int(v, op, what),)


def static_shape(x: Variable, op: str, axes: Sequence[int] | None = None) -> tuple[int, ...]:
    """``x``'s dims, of which those of ``axes`` (or all) must be known: ``ValueError``
    naming the first unknown one otherwise."""
    for a in range(x.ndim) if axes is None else axes:
        if x.shape[a] is None:
            raise ValueError(f"{op}: axis {a} of the input must have a known size, got shape {tuple(x.shape)}")
    return tuple(x.shape)
