"""The graph IR: Variable, Constant, Apply, Op and Graph.

An ``Op`` describes a computation (``make_node`` checks inputs and computes the
output types; ``perform`` is the NumPy reference). Applying an Op to Variables
makes an ``Apply`` node whose outputs are new Variables. A ``Graph`` names the
inputs and outputs of a computation and validates the nodes between them.
"""

from __future__ import annotations

import itertools
import os
import sys
from typing import Any, Sequence

import numpy as np

from .pytree import LEAF_DEF, Parameters, PyTreeDef, is_container, tree_flatten
from .types import TensorType, as_dtype, dtype_name

__all__ = ["Variable", "Constant", "Apply", "Op", "Graph", "GraphError", "GradientError",
           "NotDifferentiableError", "UndefinedGradient"]

_INTERNAL_DIRS = tuple(
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), d) + os.sep
    for d in ("frontend", "lowering", "runtime", "passes")
) + (os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "__init__.py"),)

_ids = itertools.count()


class GraphError(ValueError):
    """An invalid graph: a cycle, an unreachable output, a bad input list."""


class GradientError(ValueError):
    """A gradient that cannot be built: a cost that is not a real 0-d value, a
    ``wrt`` the cost does not depend on, a cotangent of the wrong type."""


class NotDifferentiableError(GradientError):
    """An Op on the path between the cost and a ``wrt`` has no derivative for a
    float or complex input that needs one."""


class UndefinedGradient:
    """What a ``pullback`` returns (in place of a cotangent) for an input whose
    derivative hlograph cannot build, with the reason. It is an error only when
    that input needs a gradient: ``polygamma(n, x)`` differentiates in ``x``
    even though ``n`` has no derivative."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason

    def __repr__(self) -> str:
        return f"UndefinedGradient({self.reason!r})"


def _user_frame() -> tuple[str, int] | None:
    """The first stack frame outside hlograph's own modules: where the user built the node."""
    f = sys._getframe(2)
    while f is not None:
        fname = f.f_code.co_filename
        if not fname.startswith(_INTERNAL_DIRS):
            return fname, f.f_lineno
        f = f.f_back
    return None


def _meaningless_attribute(name: str) -> property:
    """An ndarray attribute a graph value cannot have: an AttributeError with the reason."""
    def get(self):
        from .numpy import protocols
        raise AttributeError(f"x.{name} of a graph Variable ({self.type}): "
                             f"{protocols.NDARRAY_MEANINGLESS[name]}")
    return property(get, doc=f"numpy.ndarray.{name}, which a graph value cannot have (AttributeError).")


def _conversion_hint(frame) -> str:
    """What made NumPy convert a graph value to an ndarray (``Variable.__array__`` called
    from ``frame``), as the start of the error's advice: a NumPy Python function that does
    not dispatch it, ``np.r_``/``np.c_``, or indexing of / assignment into a NumPy array."""
    import dis
    name, f, depth = None, frame, 0
    while f is not None and depth < 30:  # the outermost of the NumPy Python functions converting it
        depth += 1
        module = f.f_globals.get("__name__", "")
        if not (module == "numpy" or module.startswith("numpy.")):
            if name:
                break
        else:
            name = getattr(f.f_code, "co_qualname", f.f_code.co_name).split(".")[0]
        f = f.f_back
    if name == "AxisConcatenator":
        return ("np.r_[...] / np.c_[...] convert their items with np.array: use np.concatenate / "
                "np.column_stack / np.stack of the graph values instead; ")
    if name is not None:
        from .numpy import protocols
        if protocols.resolve("numpy", name) is not None:
            return (f"np.{name} was given graph values where NumPy's dispatch does not look (inside a "
                    f"list or tuple, or an argument it does not dispatch on): np.stack a list first "
                    f"(np.{name}(np.stack([a, b]), ...)), or call hg.{name}; ")
        return f"np.{name} (no graph implementation) converts its argument with np.asarray; "
    try:
        op = dis.opname[frame.f_code.co_code[frame.f_lasti]]
    except (AttributeError, IndexError, TypeError):
        return ""
    if op == "BINARY_SUBSCR":
        return ("a NumPy array indexed by a graph value (arr[x], as np.eye(k)[labels]) converts the "
                "index: write hg.asarray(arr)[x] or hg.take(arr, x, axis=0); ")
    if op == "STORE_SUBSCR":
        return ("assigning into a NumPy array (arr[idx] = x) cannot store graph values: write "
                "arr = hg.at(arr)[idx].set(x); ")
    return ""


class Variable:
    """A value in the graph: an input (no owner) or the output of an Apply."""

    # dim_names (graph inputs only, set by ``tensor`` for named symbolic dims; unset
    # elsewhere: read it with getattr(v, "dim_names", None))
    __slots__ = ("type", "owner", "index", "name", "_id", "dim_names", "__weakref__")
    __array_priority__ = 1000  # numpy defers binary operators to us

    def __init__(self, type: TensorType, owner: "Apply | None" = None,
                 index: int | None = None, name: str | None = None):
        if not isinstance(type, TensorType):
            raise TypeError(f"Variable type must be a TensorType, got {type!r}")
        self.type = type
        self.owner = owner
        self.index = index
        self.name = name
        self._id = next(_ids)

    # --- conveniences -------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        return self.type.dtype

    @property
    def shape(self) -> tuple[int | None, ...]:
        return self.type.shape

    @property
    def ndim(self) -> int:
        return self.type.ndim

    def __repr__(self) -> str:
        label = self.name or f"%{self._id}"
        return f"<{type(self).__name__} {label}: {self.type}>"

    def __bool__(self):
        raise TypeError(
            f"a graph Variable ({self.type}) has no truth value while the graph is built: it is "
            "ambiguous, the value is not known yet. A Python `if`, `while`, `and`/`or` or a chained "
            "comparison (a < b < c, which is (a < b) and (b < c)) needs one; write "
            "hg.logical_and(a < b, b < c) for a chained comparison, hg.where / hg.ifelse for a "
            "condition, hg.any / hg.all to reduce to one truth value inside the graph"
        )

    def _value_needed(self, what: str):
        via = _conversion_hint(sys._getframe(2))  # the frame converting (int(x), arr[i] = x, ...)
        raise TypeError(
            f"{what} of a graph Variable ({self.type}): its value is not known while the graph "
            f"is built (inside hg.function / hg.trace_numpy too); {via if 'assigning' in via else ''}"
            "keep it a graph value (x.astype(...), hg.where, hg.take instead of indexing a Python list)"
        )

    def __int__(self): self._value_needed("int()")
    def __float__(self): self._value_needed("float()")
    def __complex__(self): self._value_needed("complex()")
    def __index__(self): self._value_needed("using as a Python index (list[x], range(x), operator.index)")

    def __array__(self, dtype=None, copy=None):
        via = _conversion_hint(sys._getframe(1))
        raise TypeError(
            f"np.asarray() / np.array() of a graph Variable ({self.type}): its value is not known "
            f"while the graph is built (inside hg.function / hg.trace_numpy too); {via}use the graph "
            "value itself (drop a leading x = np.asarray(x); x.astype(dtype) converts), and "
            "np.stack([...]) / hg.stack instead of np.array([...]) of graph values"
        )

    # --- NumPy's protocols (frontend/numpy/protocols.py holds the dispatch tables) --
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from .numpy import protocols  # (the compositions build on this module)
        return protocols.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from .numpy import protocols
        return protocols.array_function(func, types, args, kwargs)

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d Variable")
        if self.shape[0] is None:
            raise TypeError("len() of a Variable whose first dimension is unknown")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0 or self.shape[0] is None:
            what = "a 0-d Variable" if self.ndim == 0 else "a Variable whose first dimension is unknown"
            raise TypeError(f"{what} ({self.type}) is not iterable; index it explicitly")
        return (self[i] for i in range(self.shape[0]))

    __hash__ = object.__hash__

    # --- operators (builders live in frontend.ops and frontend.numpy) --
    def _ops(self):
        from . import builders  # (the builders make Variables: they import this module)
        return builders

    def __add__(self, o): return self._ops().add(self, o)
    def __radd__(self, o): return self._ops().add(o, self)
    def __sub__(self, o): return self._ops().subtract(self, o)
    def __rsub__(self, o): return self._ops().subtract(o, self)
    def __mul__(self, o): return self._ops().multiply(self, o)
    def __rmul__(self, o): return self._ops().multiply(o, self)
    def __truediv__(self, o): return self._ops().divide(self, o)
    def __rtruediv__(self, o): return self._ops().divide(o, self)
    def __floordiv__(self, o): return self._ops().floor_divide(self, o)
    def __rfloordiv__(self, o): return self._ops().floor_divide(o, self)
    def __mod__(self, o): return self._ops().remainder(self, o)
    def __rmod__(self, o): return self._ops().remainder(o, self)
    def __pow__(self, o): return self._ops().power(self, o)
    def __rpow__(self, o): return self._ops().power(o, self)
    def __divmod__(self, o): return self._ops().divmod(self, o)
    def __rdivmod__(self, o): return self._ops().divmod(o, self)
    def __lshift__(self, o): return self._ops().left_shift(self, o)
    def __rlshift__(self, o): return self._ops().left_shift(o, self)
    def __rshift__(self, o): return self._ops().right_shift(self, o)
    def __rrshift__(self, o): return self._ops().right_shift(o, self)
    def __matmul__(self, o): return self._ops().matmul(self, o)
    def __rmatmul__(self, o): return self._ops().matmul(o, self)
    def __neg__(self): return self._ops().negative(self)
    def __pos__(self): return self
    def __abs__(self): return self._ops().abs(self)
    def __invert__(self):
        ops = self._ops()
        return ops.logical_not(self) if self.dtype == np.bool_ else ops.bitwise_not(self)
    def __and__(self, o): return self._ops().bitwise_and(self, o)
    def __rand__(self, o): return self._ops().bitwise_and(o, self)
    def __or__(self, o): return self._ops().bitwise_or(self, o)
    def __ror__(self, o): return self._ops().bitwise_or(o, self)
    def __xor__(self, o): return self._ops().bitwise_xor(self, o)
    def __rxor__(self, o): return self._ops().bitwise_xor(o, self)
    def __lt__(self, o): return self._ops().less(self, o)
    def __le__(self, o): return self._ops().less_equal(self, o)
    def __gt__(self, o): return self._ops().greater(self, o)
    def __ge__(self, o): return self._ops().greater_equal(self, o)
    def __eq__(self, o): return self._ops().equal(self, o)  # type: ignore[override]
    def __ne__(self, o): return self._ops().not_equal(self, o)  # type: ignore[override]
    def __getitem__(self, idx): return self._ops().getitem(self, idx)

    def __setitem__(self, idx, value):
        # also keeps Python from trying the key's __index__ (x[mask] = v would blame the mask)
        raise TypeError(
            f"x[idx] = v (also x[idx] += v) on a graph Variable ({self.type}) assigns into an array "
            "in place, and graph values are immutable; write x = x.at[idx].set(v) (x = x.at[idx].add(v) "
            "for x[idx] += v), or x = np.where(mask, v, x) for a boolean mask"
        )

    @property
    def T(self): return self._ops().transpose(self)

    @property
    def at(self):
        """Functional updates: ``x.at[idx].set(v)`` / ``.add`` / ``.multiply`` / ``.min`` / ``.max``."""
        return self._ops().at(self)

    # --- numpy.ndarray's methods and attributes ---------------------------------------------
    # NumPy's signatures (tests/numpy/test_signatures.py compares them), each delegating to the
    # builder of the same name; out=, order=, ... are taken at their defaults only (frontend/
    # numpy/protocols.py GRAPH_MEANINGLESS). The methods and attributes a graph value cannot
    # have raise with the reason (protocols.NDARRAY_MEANINGLESS).
    def _check(self, method: str, **params) -> None:
        from .numpy import protocols
        protocols.check_meaningless(f"Variable.{method}", **params)

    def _meaningless(self, name: str, call: str = "()") -> TypeError:
        from .numpy import protocols
        return TypeError(f"x.{name}{call} of a graph Variable ({self.type}): "
                         f"{protocols.NDARRAY_MEANINGLESS[name]}")

    def _static_size(self, what: str) -> int:
        n = self.type.size
        if n is None:
            raise TypeError(f"x.{what} of a Variable whose shape ({self.type}) has a dimension "
                            "unknown until run time; hg.size(x) is the size as a 0-d graph value")
        return n

    @property
    def size(self) -> int:
        """The number of elements (the shape must be static: ``hg.size(x)`` is a graph value)."""
        return self._static_size("size")

    @property
    def itemsize(self) -> int:
        """The bytes of one element."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """The bytes of all elements (the shape must be static)."""
        return self._static_size("nbytes") * self.dtype.itemsize

    @property
    def mT(self): return self._ops().matrix_transpose(self)

    @property
    def real(self): return self._ops().real(self)

    @property
    def imag(self): return self._ops().imag(self)

    @property
    def flat(self):
        """The elements in C order as a 1-d graph value (read-only: ``x.flat[i]``, iteration)."""
        return self._ops().ravel(self)

    base = _meaningless_attribute("base")
    ctypes = _meaningless_attribute("ctypes")
    data = _meaningless_attribute("data")
    device = _meaningless_attribute("device")
    flags = _meaningless_attribute("flags")
    strides = _meaningless_attribute("strides")

    def all(self, /, axis=None, out=None, keepdims=False, *, where=True):
        self._check("all", out=out)
        return self._ops().all(self, axis, keepdims, where=where)

    def any(self, /, axis=None, out=None, keepdims=False, *, where=True):
        self._check("any", out=out)
        return self._ops().any(self, axis, keepdims, where=where)

    def argmax(self, /, axis=None, out=None, *, keepdims=False):
        self._check("argmax", out=out)
        return self._ops().argmax(self, axis, keepdims)

    def argmin(self, /, axis=None, out=None, *, keepdims=False):
        self._check("argmin", out=out)
        return self._ops().argmin(self, axis, keepdims)

    def argpartition(self, kth, /, axis=-1, kind="introselect", order=None):
        self._check("argpartition", kind=kind, order=order)
        return self._ops().argpartition(self, kth, axis)

    def argsort(self, /, axis=-1, kind=None, order=None, *, stable=None):
        self._check("argsort", order=order)
        return self._ops().argsort(self, axis, kind, stable=stable)

    def astype(self, /, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """The values converted to ``dtype``. ``casting`` is checked as NumPy checks it;
        ``subok`` and ``copy`` change nothing on an immutable value of no subclass."""
        self._check("astype", order=order)
        if casting != "unsafe" and not np.can_cast(self.dtype, as_dtype(dtype), casting):
            raise TypeError(f"Cannot cast array data from {self.dtype!r} to {as_dtype(dtype)!r} "
                            f"according to the rule {casting!r}")
        return self._ops().astype(self, dtype)

    def choose(self, /, choices, out=None, mode="raise"):
        self._check("choose", out=out)
        return self._ops().choose(self, choices, mode)

    def clip(self, /, min=None, max=None, out=None, **kwargs):
        """``x`` clamped to [min, max]; ``kwargs`` are numpy.clip's ufunc keywords (``dtype=``:
        compute in and return that dtype; ``where=`` True only, as for every ufunc)."""
        dtype, where = kwargs.pop("dtype", None), kwargs.pop("where", True)
        self._check("clip", out=out, **kwargs)
        if where is not True:
            raise TypeError("x.clip(..., where=...) without out=: NumPy leaves the masked-out elements "
                            "uninitialized, and graph values are immutable; write "
                            "hg.where(mask, x.clip(...), fallback) instead")
        ops = self._ops()
        if dtype is None:
            return ops.clip(self, min, max)
        dtype = as_dtype(dtype)
        if not np.can_cast(self.dtype, dtype, "same_kind"):
            raise TypeError(f"Cannot cast ufunc 'clip' input 0 from {self.dtype!r} to {dtype!r} "
                            "with casting rule 'same_kind'")
        bounds = [None if b is None else ops.asarray(b).astype(dtype) for b in (min, max)]
        return ops.clip(self.astype(dtype), *bounds)

    def compress(self, /, condition, axis=None, out=None):
        self._check("compress", out=out)
        return self._ops().compress(condition, self, axis)

    def conj(self, /):
        """The complex conjugate; a value of another dtype itself (NumPy keeps its dtype)."""
        return self._ops().conj(self) if self.dtype.kind == "c" else self

    def conjugate(self, /):
        """The complex conjugate; a value of another dtype itself (NumPy keeps its dtype)."""
        return self._ops().conjugate(self) if self.dtype.kind == "c" else self

    def copy(self, /, order="C"):
        """``x`` itself: graph values are immutable, so a copy is the same value."""
        self._check("copy", order=order)
        return self._ops().copy(self)

    def cumprod(self, /, axis=None, dtype=None, out=None):
        self._check("cumprod", out=out)
        return self._ops().cumprod(self, axis, dtype)

    def cumsum(self, /, axis=None, dtype=None, out=None):
        self._check("cumsum", out=out)
        return self._ops().cumsum(self, axis, dtype)

    def diagonal(self, /, offset=0, axis1=0, axis2=1):
        return self._ops().diagonal(self, offset, axis1, axis2)

    def dot(self, other, /, out=None):
        self._check("dot", out=out)
        return self._ops().dot(self, other)

    def flatten(self, /, order="C"): return self._ops().ravel(self, order)

    def max(self, /, axis=None, out=None, *, keepdims=False, initial=None, where=True):
        self._check("max", out=out)
        return self._ops().max(self, axis, keepdims, initial=initial, where=where)

    def mean(self, /, axis=None, dtype=None, out=None, *, keepdims=False, where=True):
        self._check("mean", out=out)
        return self._ops().mean(self, axis, keepdims, dtype=dtype, where=where)

    def min(self, /, axis=None, out=None, *, keepdims=False, initial=None, where=True):
        self._check("min", out=out)
        return self._ops().min(self, axis, keepdims, initial=initial, where=where)

    def nonzero(self, /): return self._ops().nonzero(self)

    def prod(self, /, axis=None, dtype=None, out=None, *, keepdims=False, initial=None, where=True):
        self._check("prod", out=out)
        return self._ops().prod(self, axis, keepdims, dtype=dtype, initial=initial, where=where)

    def ravel(self, /, order="C"): return self._ops().ravel(self, order)

    def repeat(self, repeats, /, axis=None): return self._ops().repeat(self, repeats, axis)

    def reshape(self, /, *shape, order="C", copy=None):
        """The elements in a new shape (``x.reshape(2, 3)`` or ``x.reshape((2, 3))``), read
        and placed in ``order`` 'C' (row-major, also 'A') or 'F' (column-major)."""
        self._check("reshape", copy=copy)
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if order not in ("C", "F", "A"):
            raise ValueError(f"reshape: order must be 'C', 'F' or 'A', got {order!r}")
        ops = self._ops()
        if order == "F":
            return ops.transpose(ops.reshape(ops.transpose(self), tuple(reversed(shape))))
        return ops.reshape(self, shape)

    def round(self, /, decimals=0, out=None):
        self._check("round", out=out)
        return self._ops().round(self, decimals)

    def searchsorted(self, v, /, side="left", sorter=None):
        return self._ops().searchsorted(self, v, side, sorter)

    def squeeze(self, /, axis=None): return self._ops().squeeze(self, axis)

    def std(self, /, axis=None, dtype=None, out=None, ddof=0, *, keepdims=False, where=True, mean=None):
        self._check("std", out=out)
        return self._ops().std(self, axis, keepdims, ddof, dtype=dtype, where=where, mean=mean)

    def sum(self, /, axis=None, dtype=None, out=None, *, keepdims=False, initial=None, where=True):
        self._check("sum", out=out)
        return self._ops().sum(self, axis, keepdims, dtype=dtype, initial=initial, where=where)

    def swapaxes(self, axis1, axis2, /): return self._ops().swapaxes(self, axis1, axis2)

    def take(self, indices, /, axis=None, out=None, mode="raise"):
        self._check("take", out=out)
        return self._ops().take(self, indices, axis, mode)

    def trace(self, /, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        self._check("trace", out=out)
        return self._ops().trace(self, offset, axis1, axis2, dtype)

    def transpose(self, /, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = () if axes[0] is None else tuple(axes[0])
        return self._ops().transpose(self, axes or None)

    def var(self, /, axis=None, dtype=None, out=None, ddof=0, *, keepdims=False, where=True, mean=None):
        self._check("var", out=out)
        return self._ops().var(self, axis, keepdims, ddof, dtype=dtype, where=where, mean=mean)

    def view(self, /, *args, **kwargs):
        """``x`` itself (graph values are immutable, so a view is the same value); a view
        with another dtype reinterprets the bits as NumPy does (``hlograph.bitcast``): of
        another width, the last axis changes size."""
        if len(args) > 2 or set(kwargs) - {"dtype", "type"}:
            raise TypeError("view() takes at most 2 arguments: dtype and type")
        given = dict(zip(("dtype", "type"), args))
        if set(given) & set(kwargs):
            raise TypeError(f"view() got multiple values for {sorted(set(given) & set(kwargs))}")
        given.update(kwargs)
        dtype, kind = given.get("dtype", self.dtype), given.get("type")
        if isinstance(dtype, type) and issubclass(dtype, np.ndarray):
            dtype, kind = self.dtype, dtype
        if kind is not None and kind is not np.ndarray:
            name = getattr(kind, "__name__", kind)
            raise TypeError(f"x.view(type={name}) of a graph Variable ({self.type}): "
                            "there are no array subclasses in a graph")
        if as_dtype(dtype) != self.dtype:
            from .ops.bitcast import ndarray_view  # (the ops import this module)
            return ndarray_view(self, as_dtype(dtype))
        return self

    # the methods a graph value cannot have (protocols.NDARRAY_MEANINGLESS has the reasons)
    def byteswap(self, /, inplace=False): raise self._meaningless("byteswap")
    def dump(self, /, file): raise self._meaningless("dump")
    def dumps(self, /): raise self._meaningless("dumps")
    def fill(self, /, value): raise self._meaningless("fill")
    def getfield(self, /, dtype, offset=0): raise self._meaningless("getfield")
    def item(self, /, *args): raise self._meaningless("item")
    def partition(self, kth, /, axis=-1, kind="introselect", order=None): raise self._meaningless("partition")
    def put(self, indices, values, /, mode="raise"): raise self._meaningless("put")
    def resize(self, /, *new_shape, refcheck=True): raise self._meaningless("resize")
    def setfield(self, val, /, dtype, offset=0): raise self._meaningless("setfield")
    def setflags(self, /, *, write=None, align=None, uic=None): raise self._meaningless("setflags")
    def sort(self, /, axis=-1, kind=None, order=None, *, stable=None): raise self._meaningless("sort")
    def to_device(self, device, /, *, stream=None): raise self._meaningless("to_device")
    def tobytes(self, /, order="C"): raise self._meaningless("tobytes")
    def tofile(self, fid, /, sep="", format="%s"): raise self._meaningless("tofile")
    def tolist(self, /): raise self._meaningless("tolist")


class Constant(Variable):
    """A Variable with a fixed value, embedded into the lowered module."""

    __slots__ = ("data",)

    def __init__(self, data: Any, dtype: Any = None, name: str | None = None):
        arr = np.asarray(data, dtype=None if dtype is None else as_dtype(dtype))
        if dtype is None:
            arr = np.asarray(arr, dtype=as_dtype(arr.dtype))
        arr = arr.copy()
        arr.setflags(write=False)
        super().__init__(TensorType(arr.dtype, arr.shape), None, None, name)
        self.data = arr

    def __repr__(self) -> str:
        if self.data.size <= 8:
            return f"<Constant {np.array2string(self.data, separator=',')}: {self.type}>"
        return f"<Constant {self.type}>"


class Apply:
    """One application of an Op to input Variables, producing output Variables."""

    __slots__ = ("op", "inputs", "outputs", "trace", "__weakref__")

    def __init__(self, op: "Op", inputs: Sequence[Variable], output_types: Sequence[TensorType]):
        for i, v in enumerate(inputs):
            if not isinstance(v, Variable):
                raise TypeError(f"{op}: input {i} must be a Variable, got {type(v).__name__}")
        self.op = op
        self.inputs = list(inputs)
        self.outputs = [Variable(t, self, i) for i, t in enumerate(output_types)]
        self.trace = _user_frame()

    @classmethod
    def trusted(cls, op: "Op", inputs: Sequence[Variable], output_types: Sequence[TensorType],
                trace: tuple[str, int] | None) -> "Apply":
        """A node built without ``make_node``'s checks, for callers that already know
        its result: ``output_types`` must be what ``op.make_node(*inputs)`` gives (as
        a node ``make_node`` built for inputs of the same types and values shows),
        ``trace`` the (file, line) to record. The jax importer builds repeated
        equations this way."""
        return _built_node(op, inputs, output_types, trace, cls)

    @property
    def out(self) -> Variable:
        (o,) = self.outputs
        return o

    def __repr__(self) -> str:
        return f"<Apply {self.op}>"


class Op:
    """Base class of every operation.

    Subclasses set ``__props__`` (the attribute names that distinguish two
    instances: they give equality, hashing and ``str``), implement
    ``make_node(*inputs) -> Apply`` (check inputs, compute output types) and
    ``perform(node, inputs) -> list[np.ndarray]`` (the NumPy reference: never
    mutates its inputs, returns exactly the declared dtypes and ranks).
    """

    __props__: tuple[str, ...] = ()
    #: True for Ops no device can run (value-dependent output shapes, ...).
    host_only: bool = False
    #: True when ``make_node``'s output types depend only on the Op (its props) and the
    #: input types, never on constant values, and its node takes the inputs it is given:
    #: calling the Op then reuses the output types of a node built before for inputs of
    #: the same types, without make_node's checks.
    typed_by_inputs: bool = False

    @property
    def inner_graphs(self) -> tuple["Graph", ...]:
        """The graphs this Op runs inside itself (branches, loop bodies, a wrapped
        graph): where they run decides where the Op can run."""
        return ()

    def make_node(self, *inputs: Variable) -> Apply:
        raise NotImplementedError(f"{type(self).__name__}.make_node")

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        raise NotImplementedError(f"{type(self).__name__}.perform")

    # --- derivatives (hlograph.grad, vjp, jvp; see frontend/autodiff.py) ------
    def pullback(self, node: Apply, cotangents: list[Variable | None]
                 ) -> list["Variable | UndefinedGradient | None"]:
        """Reverse mode: one cotangent per output (None: zero) -> one per input.

        Each input's cotangent is built from graph ops and has the input's exact
        type (dtype and shape: broadcasting is summed away, e.g. with
        ``hlograph.frontend.autodiff.sum_to``). None means no gradient (integer,
        bool or index inputs, a zero derivative); ``UndefinedGradient(reason)``
        means hlograph cannot build it (an error only if that input needs it).
        Complex values follow jax: the pullback transposes the R-linear
        derivative under the pairing ``Re(sum(a * b))``, so holomorphic ops
        multiply by f'(z) without conjugation.
        """
        name = type(self).__name__
        raise NotDifferentiableError(
            f"{self} has no gradient rule, and a float or complex input of it needs a "
            f"gradient. Define one on the Op class, next to make_node and perform:\n"
            f"    class {name}(Op):\n"
            f"        def pullback(self, node, cotangents):\n"
            f"            # one cotangent per output (None: zero) -> one per input (None: no gradient)\n"
            f"            ...\n"
            f"(see docs/adding_an_op.md, 'Its gradient'), or cut the path with hlograph.stop_gradient"
        )

    def pushforward(self, node: Apply, tangents: list[Variable | None]
                    ) -> list[Variable | None]:
        """Forward mode: one tangent per input (None: zero) -> one per output
        (None: zero), each of the output's type.

        The default transposes ``pullback`` (which is linear in the cotangents),
        so every Op with a pullback has a forward mode; Ops define this where a
        direct rule is simpler or cheaper (elementwise and linear ops).
        """
        from .autodiff import pushforward_by_transposition
        return pushforward_by_transposition(node, tangents)

    def __call__(self, *inputs):
        if self.typed_by_inputs:
            node = _node_of_known_types(self, inputs)
        else:
            node = self.make_node(*inputs)
        return node.outputs[0] if len(node.outputs) == 1 else list(node.outputs)

    def _props(self) -> tuple:
        return tuple(getattr(self, p) for p in self.__props__)

    def props_dict(self) -> dict[str, Any]:
        return {p: getattr(self, p) for p in self.__props__}

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self._props() == other._props()

    def __hash__(self) -> int:
        return hash((type(self), self._props()))

    def __str__(self) -> str:
        name = type(self).__name__
        if not self.__props__:
            return name
        return name + "{" + ", ".join(f"{p}={_prop_str(getattr(self, p))}" for p in self.__props__) + "}"

    __repr__ = __str__


def _built_node(op: "Op", inputs: Sequence[Variable], output_types: Sequence[TensorType],
                trace: tuple[str, int] | None, cls: type = Apply) -> Apply:
    """``Apply.trusted``'s node (also graph building's, for types seen before)."""
    node = cls.__new__(cls)
    node.op = op
    node.inputs = list(inputs)
    node.outputs = [Variable(output_types[0], node, 0)] if len(output_types) == 1 else \
        [Variable(t, node, i) for i, t in enumerate(output_types)]
    node.trace = trace
    return node


#: (op, input types) -> output types of the nodes built by Ops ``typed_by_inputs``
_OUTPUT_TYPES: dict[tuple, tuple[TensorType, ...]] = {}
_OUTPUT_TYPES_MAX = 4096


def _node_of_known_types(op: Op, inputs: tuple) -> Apply:
    """``op.make_node(*inputs)``, or the same node from the output types a node of ``op``
    on inputs of the same types had (graph building's hot path)."""
    try:
        key = (op, *[v.type for v in inputs])
        out = _OUTPUT_TYPES.get(key)
    except (AttributeError, TypeError):  # a non-Variable input, unhashable props
        return op.make_node(*inputs)
    if out is not None:
        for v in inputs:
            if not isinstance(v, Variable):
                return op.make_node(*inputs)
        return _built_node(op, inputs, out, _user_frame())
    node = op.make_node(*inputs)
    if len(node.inputs) == len(inputs) and all(a is b for a, b in zip(node.inputs, inputs)):
        if len(_OUTPUT_TYPES) >= _OUTPUT_TYPES_MAX:
            _OUTPUT_TYPES.clear()
        _OUTPUT_TYPES[key] = tuple(o.type for o in node.outputs)
    return node


def _prop_str(value: Any) -> str:
    if isinstance(value, np.dtype):
        return dtype_name(value)
    return repr(value)


def _ancestors_toposort(outputs: Sequence[Variable]) -> list[Apply]:
    """Apply nodes needed for ``outputs``, inputs before users; detects cycles.

    A depth-first walk, its stack two lists (the nodes, and how many inputs of
    each have been looked at): a stack of (node, iterator) pairs is two
    container objects per node of a long chain alive at once, which the
    garbage collector scans (and promotes) while the walk runs."""
    order: list[Apply] = []
    state: dict[int, int] = {}  # id(node) -> 1 visiting, 2 done
    get = state.get
    for out in outputs:
        owner = out.owner
        if owner is None or get(id(owner)) == 2:
            continue
        state[id(owner)] = 1
        nodes, seen = [owner], [0]  # the stack: nodes, and the inputs of each looked at
        while nodes:
            node = nodes[-1]
            inputs = node.inputs
            i, n = seen[-1], len(inputs)
            while i < n:
                parent = inputs[i].owner
                i += 1
                if parent is None:
                    continue
                s = get(id(parent))
                if s is None:
                    seen[-1] = i
                    state[id(parent)] = 1
                    nodes.append(parent)
                    seen.append(0)
                    break
                if s == 1:
                    raise GraphError(f"the graph has a cycle through {parent.op}")
            else:
                nodes.pop()
                seen.pop()
                state[id(node)] = 2
                order.append(node)
    return order


class Graph:
    """A computation: ``Graph(inputs, outputs)``.

    ``inputs`` are owner-less, non-constant Variables (each once); every
    output must be computable from them and from Constants.
    """

    def __init__(self, inputs: Any, outputs: Any):
        #: a graph built with one bare output Variable returns one array, else a tuple
        self.single_output = isinstance(outputs, Variable)
        #: the inputs' structure (``pytree.Parameters``) when they are not a flat
        #: sequence of Variables: a dict (named parameters) or nested containers
        self.input_tree = None
        #: the outputs' structure (``pytree.PyTreeDef``) when they are not one
        #: Variable or a flat sequence of Variables
        self.output_tree = None
        if self.single_output:
            outputs = [outputs]
        else:
            outputs, self.output_tree = _flatten_outputs(outputs)
        inputs, self.input_tree = _flatten_inputs(inputs)
        for i, v in enumerate(inputs):
            if not isinstance(v, Variable):
                raise GraphError(f"graph input {i} is not a Variable: {v!r}")
            if isinstance(v, Constant):
                raise GraphError(f"graph input {i} is a Constant; constants need not be inputs")
            if v.owner is not None:
                raise GraphError(
                    f"graph input {i} ({v!r}) is the output of {v.owner.op}, not an input variable"
                )
        seen: set[int] = set()
        for i, v in enumerate(inputs):
            if id(v) in seen:
                raise GraphError(f"graph input {i} ({v!r}) is listed twice")
            seen.add(id(v))
        if not outputs:
            raise GraphError("a graph needs at least one output")
        for i, v in enumerate(outputs):
            if not isinstance(v, Variable):
                raise GraphError(f"graph output {i} is not a Variable: {v!r}")
        self.inputs = inputs
        self.outputs = outputs
        self.nodes = _ancestors_toposort(outputs)
        for node in self.nodes:
            for v in node.inputs:
                if v.owner is None and not isinstance(v, Constant) and id(v) not in seen:
                    raise GraphError(
                        f"{v!r} is used by {node.op} but is not a graph input; add it to inputs"
                    )
        for i, v in enumerate(outputs):
            if v.owner is None and not isinstance(v, Constant) and id(v) not in seen:
                raise GraphError(f"graph output {i} ({v!r}) is not computed from the inputs")

    def toposort(self) -> list[Apply]:
        return list(self.nodes)

    @property
    def input_types(self) -> list[TensorType]:
        return [v.type for v in self.inputs]

    @property
    def output_types(self) -> list[TensorType]:
        return [v.type for v in self.outputs]

    def clone(self, input_types: Sequence[TensorType] | None = None) -> "Graph":
        """A copy with fresh Variables; with ``input_types``, the copy is re-typed
        (shape inference runs again through each Op's make_node)."""
        if input_types is not None and len(input_types) != len(self.inputs):
            raise ValueError(f"expected {len(self.inputs)} input types, got {len(input_types)}")
        memo: dict[int, Variable] = {}
        new_inputs = []
        for i, v in enumerate(self.inputs):
            t = v.type if input_types is None else input_types[i]
            nv = Variable(t, name=v.name)
            names = getattr(v, "dim_names", None)
            if names is not None and len(names) == len(t.shape):
                nv.dim_names = names
            memo[id(v)] = nv
            new_inputs.append(nv)
        for node in self.nodes:
            ins = [memo.get(id(v), v) for v in node.inputs]
            if input_types is None:
                new = Apply.__new__(Apply)
                new.op, new.inputs, new.trace = node.op, ins, node.trace
                new.outputs = [Variable(o.type, new, o.index, o.name) for o in node.outputs]
            else:
                try:
                    new = node.op.make_node(*ins)
                except Exception as e:
                    if any(v.type.is_symbolic for v in ins):
                        from .symbolic import SymbolicDimError
                        raise SymbolicDimError(f"{node.op} needs static shapes "
                                               f"({type(e).__name__}: {e})") from None
                    raise
                new.trace = node.trace
                for o, no in zip(node.outputs, new.outputs):
                    no.name = o.name
            for o, no in zip(node.outputs, new.outputs):
                memo[id(o)] = no
        outs = [memo.get(id(v), v) for v in self.outputs]
        return self._with_trees(Graph(new_inputs, outs[0] if self.single_output else outs))

    def _with_trees(self, other: "Graph") -> "Graph":
        """``other`` (a copy of this graph) with this graph's input and output structure."""
        other.input_tree, other.output_tree = self.input_tree, self.output_tree
        return other

    @property
    def parameters(self) -> Parameters:
        """The call's parameters: one per input Variable (named by it), or the
        structure the graph was built with (a dict of inputs, nested containers)."""
        if self.input_tree is not None:
            return self.input_tree
        return Parameters([v.name for v in self.inputs], [LEAF_DEF] * len(self.inputs))

    @property
    def is_flat(self) -> bool:
        """True when the graph takes and returns plain sequences of arrays."""
        return self.input_tree is None and self.output_tree is None

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any] | None = None) -> list[Any]:
        """The flat input values of a call ``f(*args, **kwargs)``: arguments matched to
        the inputs by position, then by name; pytree arguments flattened (TypeError
        naming the argument or leaf whose structure differs)."""
        return self.parameters.bind(args, kwargs or {})

    def unflatten(self, outputs: Any) -> Any:
        """The results of a call (one array, or a tuple) in the graph's output structure."""
        if self.output_tree is None:
            return outputs
        return self.output_tree.unflatten(outputs)

    def __str__(self) -> str:
        names: dict[int, str] = {}
        counter = itertools.count()

        def name(v: Variable) -> str:
            if id(v) not in names:
                if isinstance(v, Constant):
                    return repr(v)[1:-1]
                names[id(v)] = v.name or f"%{next(counter)}"
            return names[id(v)]

        def inner(op) -> list[tuple[str, "Graph"]]:
            # the graphs an op runs inside itself (branches, loop bodies), named
            # after the property holding them
            graphs = list(op.inner_graphs)
            if hasattr(op, "then_graph") and len(graphs) == 2:
                return [("then", graphs[0]), ("else", graphs[1])]
            named = []
            for prop in op.__props__:
                value = getattr(op, prop, None)
                if isinstance(value, Graph):
                    named.append((prop, value))
                elif isinstance(value, (tuple, list)) and value and all(isinstance(g, Graph) for g in value):
                    named.extend((f"{prop}[{i}]", g) for i, g in enumerate(value))
            if [g for _, g in named] == graphs:
                return named
            return [(f"graph {i}", g) for i, g in enumerate(graphs)]

        def body(graph: "Graph", indent: str) -> list[str]:
            out = []
            for node in graph.nodes:
                outs = ", ".join(name(o) for o in node.outputs)
                types = ", ".join(str(o.type) for o in node.outputs)
                args = ", ".join(name(v) for v in node.inputs)
                out.append(f"{indent}{outs} = {node.op}({args}) : {types}")
                for label, g in inner(node.op):
                    params = ", ".join(f"{name(v)}: {v.type}" for v in g.inputs)
                    out.append(f"{indent}  {label}({params}) {{")
                    out.extend(body(g, indent + "    "))
                    out.append(f"{indent}  }}")
            out.append(f"{indent}return " + ", ".join(name(v) for v in graph.outputs))
            return out

        ins = ", ".join(f"{name(v)}: {v.type}" for v in self.inputs)
        lines = [f"Graph({ins}) {{", *body(self, "  "), "}"]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Graph {len(self.inputs)} inputs, {len(self.nodes)} nodes, {len(self.outputs)} outputs>"


def _is_variable(x: Any) -> bool:
    return isinstance(x, Variable)


def _flatten_outputs(outputs: Any) -> tuple[list[Any], PyTreeDef | None]:
    """A graph's outputs as a flat list, and their structure unless it is a flat
    list or tuple of Variables (which a call returns as a tuple)."""
    if type(outputs) in (list, tuple) and all(isinstance(v, Variable) for v in outputs):
        return list(outputs), None
    if is_container(outputs):
        leaves, tree = tree_flatten(outputs, _is_variable)
        for path, v in zip(tree.paths(), leaves):
            if not isinstance(v, Variable):
                raise GraphError(f"graph output {path or '(root)'} is not a Variable: {v!r}")
        return leaves, tree
    return list(outputs), None


def _flatten_inputs(inputs: Any) -> tuple[list[Any], Parameters | None]:
    """A graph's inputs as a flat list of Variables, and the call's parameters
    unless they are exactly those Variables: a dict names its parameters (in its
    order), and an item of a list may be a pytree of Variables."""
    if isinstance(inputs, dict):
        names = list(inputs)
        for k in names:
            if not isinstance(k, str) or not k.isidentifier():
                raise GraphError(f"graph inputs given as a dict need identifier keys, got {k!r}")
        items = [inputs[k] for k in names]
    else:
        items = list(inputs)
        if all(isinstance(v, Variable) for v in items):
            return items, None
        names = [v.name if isinstance(v, Variable) else None for v in items]
    leaves: list[Any] = []
    defs = []
    for i, item in enumerate(items):
        flat, tree = tree_flatten(item, _is_variable)
        for path, v in zip(tree.paths(), flat):
            if not isinstance(v, Variable):
                where = f"{names[i]!r}" if names[i] else f"{i}"
                raise GraphError(f"graph input {where}{path} is not a Variable: {v!r}")
        leaves.extend(flat)
        defs.append(tree)
    return leaves, Parameters(names, defs)


def subgraph(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> Graph:
    """A Graph computing ``outputs`` from ``inputs``, which may be any Variables
    (outputs of other nodes too): each becomes a fresh input Variable of the same
    type, and the nodes between are copied (Ops and traces shared)."""
    memo: dict[int, Variable] = {}
    new_inputs = []
    for v in inputs:
        nv = Variable(v.type, name=v.name)
        memo[id(v)] = nv
        new_inputs.append(nv)
    order: list[Apply] = []
    seen: set[int] = set()

    def visit(v: Variable) -> None:  # iterative DFS over the ancestors not cut by ``inputs``
        stack = [(v.owner, 0)] if v.owner is not None and id(v) not in memo else []
        while stack:
            node, i = stack.pop()
            if id(node) in seen and i == 0:
                continue
            if i < len(node.inputs):
                stack.append((node, i + 1))
                p = node.inputs[i]
                if p.owner is not None and id(p) not in memo and id(p.owner) not in seen:
                    stack.append((p.owner, 0))
            else:
                seen.add(id(node))
                order.append(node)

    for v in outputs:
        visit(v)
    for node in order:
        new = Apply.__new__(Apply)
        new.op, new.trace = node.op, node.trace
        new.inputs = [memo.get(id(v), v) for v in node.inputs]
        new.outputs = [Variable(o.type, new, o.index, o.name) for o in node.outputs]
        for o, no in zip(node.outputs, new.outputs):
            memo[id(o)] = no
    return Graph(new_inputs, [memo.get(id(v), v) for v in outputs])
