"""Shape manipulation and array construction, with NumPy semantics.

Shape ops (``reshape``, ``transpose``, ``broadcast_to``, ``expand_dims``,
``squeeze``, ``concatenate``, ``stack``) take static parameters and keep
unknown (``None``) dims unknown wherever NumPy's result would depend on them;
checks that need a dim's size run again when the graph is specialized to
concrete shapes. Construction ops (``zeros``, ``ones``, ``full``, the
``*_like`` variants, ``arange``, ``eye``) have static shapes, dtypes and fill
values, resolved exactly as NumPy resolves them (``np.full``'s default dtype,
``np.arange``'s length, dtype and values).
"""

from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np

from ..graph import Apply, Op, Variable
from ..types import is_inexact
from ..types import DTYPES, TensorType, as_dtype, is_complex
from .basic import as_variable, normalize_axes, normalize_axis, promote, scalar_reduction_axis
from .dynamic import dynamic_arange, dynamic_eye

__all__ = [
    "reshape", "transpose", "broadcast_to", "expand_dims", "squeeze", "concatenate", "stack",
    "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "arange", "eye",
    "empty", "empty_like", "alloc",
]


# --- helpers --------------------------------------------------------------------------
def _shape_arg(shape: Any, op: str, *, allow_minus_one: bool = False) -> tuple[int, ...]:
    """A static shape argument (an int or a sequence of ints) as a tuple of ints."""
    if isinstance(shape, Variable):
        raise TypeError(f"{op}: the shape must be static (Python ints), got the graph value {shape!r}")
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"{op}: the shape must be an int or a sequence of ints, got {shape!r}") from None
    out = []
    for d in dims:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"{op}: shape entries must be ints, got {d!r} in {shape!r}")
        d = int(d)
        if d < 0 and not (allow_minus_one and d == -1):
            raise ValueError(f"{op}: negative dimensions are not allowed, got {tuple(dims)}")
        out.append(d)
    return tuple(out)


def _prod(dims: Sequence[int]) -> int:
    return math.prod(dims)


def _fmt_shape(shape: Sequence[int | None]) -> str:
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _linear(op: Op, t: Variable | None) -> Variable | None:
    """The tangent of a linear one-input Op: the Op applied to the tangent."""
    return None if t is None or not is_inexact(t.dtype) else op(t)


# --- shape ops ------------------------------------------------------------------------
class Reshape(Op):
    """``reshape(x, shape)``: the same elements in C order under a new shape.

    ``shape`` may hold one ``-1``, inferred from the size of the input; it is
    unknown while the input has unknown dims.
    """

    __props__ = ("shape",)

    def __init__(self, shape: Sequence[int]):
        shape = _shape_arg(shape, "Reshape", allow_minus_one=True)
        if shape.count(-1) > 1:
            raise ValueError(f"Reshape: can only specify one unknown dimension (-1), got {shape}")
        self.shape = shape

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        known = _prod(d for d in self.shape if d != -1)
        infer = -1 in self.shape
        err = ValueError(
            f"{self}: cannot reshape input 'x' of shape {_fmt_shape(x.shape)} into shape {self.shape}"
        )
        if infer and known == 0:
            raise err  # NumPy: -1 is ambiguous next to a zero-size dim
        if x.type.is_static:
            size = x.type.size
            if infer:
                if size % known:
                    raise err
                out = tuple(size // known if d == -1 else d for d in self.shape)
            else:
                if size != known:
                    raise err
                out = self.shape
        else:
            static_part = _prod(d for d in x.shape if d is not None)
            if not infer and (known % static_part if static_part else known):
                raise err
            out = tuple(None if d == -1 else d for d in self.shape)
        return Apply(self, [x], [TensorType(x.dtype, out)])

    def perform(self, node, inputs):
        return [inputs[0].reshape(self.shape)]

    def pullback(self, node, cotangents):
        (x,) = node.inputs
        if not is_inexact(x.dtype):
            return [None]
        from .autodiff import reshape_like  # (autodiff's helpers import this module)
        return [reshape_like(cotangents[0], x)]

    def pushforward(self, node, tangents):
        return [_linear(self, tangents[0])]


class Transpose(Op):
    """``transpose(x, axes)``: output dim ``i`` is input dim ``perm[i]``."""

    __props__ = ("perm",)

    def __init__(self, perm: Sequence[int]):
        self.perm = tuple(int(p) for p in perm)
        if sorted(self.perm) != list(range(len(self.perm))):
            raise ValueError(f"Transpose: perm must be a permutation of 0..{len(self.perm) - 1}, got {self.perm}")

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        if x.ndim != len(self.perm):
            raise ValueError(f"{self}: axes don't match input 'x' of rank {x.ndim}")
        return Apply(self, [x], [TensorType(x.dtype, tuple(x.shape[p] for p in self.perm))])

    def perform(self, node, inputs):
        return [np.transpose(inputs[0], self.perm)]

    def pullback(self, node, cotangents):
        if not is_inexact(node.inputs[0].dtype):
            return [None]
        return [Transpose(tuple(int(i) for i in np.argsort(self.perm)))(cotangents[0])]

    def pushforward(self, node, tangents):
        return [_linear(self, tangents[0])]


class BroadcastTo(Op):
    """``broadcast_to(x, shape)``: NumPy broadcasting of ``x`` to a static ``shape``."""

    __props__ = ("shape",)

    def __init__(self, shape: Sequence[int]):
        self.shape = _shape_arg(shape, "BroadcastTo")

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        _check_broadcast(self, x.shape, self.shape, "x")
        return Apply(self, [x], [TensorType(x.dtype, self.shape)])

    def perform(self, node, inputs):
        return [np.array(np.broadcast_to(inputs[0], self.shape))]

    def pullback(self, node, cotangents):
        (x,) = node.inputs
        if not is_inexact(x.dtype):
            return [None]
        from ..autodiff import sum_to
        return [sum_to(cotangents[0], x)]

    def pushforward(self, node, tangents):
        return [_linear(self, tangents[0])]


def _check_broadcast(op: Op, src: Sequence[int | None], dst: Sequence[int], name: str) -> None:
    """One-directional broadcasting: every dim of ``src`` is 1 or its ``dst`` dim."""
    ok = len(src) <= len(dst) and all(
        s is None or s == 1 or s == d for s, d in zip(src[::-1], dst[::-1]) if d is not None
    )
    if not ok:
        raise ValueError(
            f"{op}: input '{name}' of shape {_fmt_shape(src)} cannot be broadcast to {_fmt_shape(dst)}"
        )


class ExpandDims(Op):
    """``expand_dims(x, axis)``: inserts size-1 dims at ``axes`` (positions in the output)."""

    __props__ = ("axes",)

    def __init__(self, axes: Sequence[int]):
        self.axes = tuple(sorted(int(a) for a in axes))
        if len(set(self.axes)) != len(self.axes):
            raise ValueError(f"ExpandDims: repeated axis in {self.axes}")

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        ndim = x.ndim + len(self.axes)
        if self.axes and not (self.axes[0] >= 0 and self.axes[-1] < ndim):
            raise ValueError(f"{self}: axes out of range for an output of rank {ndim}")
        dims = iter(x.shape)
        shape = tuple(1 if i in self.axes else next(dims) for i in range(ndim))
        return Apply(self, [x], [TensorType(x.dtype, shape)])

    def perform(self, node, inputs):
        return [np.expand_dims(inputs[0], self.axes)]

    def pullback(self, node, cotangents):
        if not is_inexact(node.inputs[0].dtype):
            return [None]
        return [Squeeze(self.axes)(cotangents[0])]

    def pushforward(self, node, tangents):
        return [_linear(self, tangents[0])]


class Squeeze(Op):
    """``squeeze(x, axis)``: removes the size-1 dims ``axes`` (positions in the input)."""

    __props__ = ("axes",)

    def __init__(self, axes: Sequence[int]):
        self.axes = tuple(sorted(set(int(a) for a in axes)))

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        if self.axes and not (self.axes[0] >= 0 and self.axes[-1] < x.ndim):
            raise ValueError(f"{self}: axes out of range for input 'x' of rank {x.ndim}")
        for a in self.axes:
            if x.shape[a] not in (1, None):
                raise ValueError(
                    f"{self}: cannot squeeze axis {a} of input 'x' of shape {_fmt_shape(x.shape)}: "
                    f"its size is {x.shape[a]}, not 1"
                )
        shape = tuple(d for i, d in enumerate(x.shape) if i not in self.axes)
        return Apply(self, [x], [TensorType(x.dtype, shape)])

    def perform(self, node, inputs):
        return [np.squeeze(inputs[0], self.axes)]

    def pullback(self, node, cotangents):
        if not is_inexact(node.inputs[0].dtype):
            return [None]
        return [ExpandDims(self.axes)(cotangents[0])]

    def pushforward(self, node, tangents):
        return [_linear(self, tangents[0])]


class Concatenate(Op):
    """``concatenate(xs, axis)``: joins inputs of one dtype and rank along ``axis``."""

    __props__ = ("axis",)

    def __init__(self, axis: int):
        self.axis = int(axis)

    def make_node(self, *xs: Any) -> Apply:
        xs = tuple(as_variable(x) for x in xs)
        if not xs:
            raise ValueError(f"{self}: need at least one input to concatenate")
        first = xs[0]
        for i, x in enumerate(xs):
            if x.dtype != first.dtype:
                raise TypeError(
                    f"{self}: inputs must share one dtype, got {first.type} and {x.type} at index {i} "
                    f"(the builder function promotes)"
                )
            if x.ndim != first.ndim:
                raise ValueError(
                    f"{self}: all inputs must have the same rank, but input 0 has rank {first.ndim} "
                    f"and input {i} has rank {x.ndim}"
                )
            if x.ndim == 0:
                raise ValueError(f"{self}: zero-dimensional inputs cannot be concatenated")
        if not 0 <= self.axis < first.ndim:
            raise ValueError(f"{self}: axis out of range for inputs of rank {first.ndim}")
        shape: list[int | None] = []
        for d in range(first.ndim):
            dims = [x.shape[d] for x in xs]
            if d == self.axis:
                shape.append(None if None in dims else sum(dims))
                continue
            known = [(i, s) for i, s in enumerate(dims) if s is not None]
            for i, s in known[1:]:
                if s != known[0][1]:
                    j, s0 = known[0]
                    raise ValueError(
                        f"{self}: all input dims except the concatenation axis must match, but "
                        f"along dim {d} input {j} has size {s0} and input {i} has size {s}"
                    )
            shape.append(known[0][1] if known else None)
        return Apply(self, list(xs), [TensorType(first.dtype, shape)])

    def perform(self, node, inputs):
        return [np.concatenate(inputs, axis=self.axis)]

    def pullback(self, node, cotangents):
        (ct,), xs = cotangents, node.inputs
        if not is_inexact(xs[0].dtype):
            return [None] * len(xs)
        sizes = [x.shape[self.axis] for x in xs]
        if sizes.count(None) > 1:
            # the sizes are known once the graph is specialized to concrete shapes
            from .autodiff import SplitLike
            return SplitLike(self.axis).make_node(ct, *xs).outputs
        from .construct import SpecifyShape
        from .indexing import Subtensor
        # the pieces before the one of unknown size counted from the start, those after
        # it from the end
        unknown = sizes.index(None) if None in sizes else len(xs)
        out = []
        for i, (x, n) in enumerate(zip(xs, sizes)):
            before, after = sum(sizes[:min(i, unknown)]), sum(sizes[max(i, unknown) + 1:])
            if i < unknown:
                bounds = (before, before + n if i < len(xs) - 1 else None)
            elif i == unknown:
                bounds = (before, -after if after else None)
            else:
                bounds = (-(after + n), -after if after else None) if n else (0, 0)
            idx = tuple((*bounds, None) if a == self.axis else (None, None, None) for a in range(ct.ndim))
            piece = Subtensor(idx)(ct)
            if any(p is None and d is not None for p, d in zip(piece.shape, x.shape)):
                piece = SpecifyShape(x.shape)(piece)
            out.append(piece)
        return out

    def pushforward(self, node, tangents):
        if all(t is None for t in tangents) or not is_inexact(node.outputs[0].dtype):
            return [None]
        return [self(*(zeros_like(x) if t is None else t for x, t in zip(node.inputs, tangents)))]


# --- shape builders -------------------------------------------------------------------
def reshape(x: Any, shape: int | Sequence[int]) -> Variable:
    """Gives ``x`` a new shape with the same elements (C order), as numpy.reshape.

    Args:
        x: the array.
        shape: an int or a sequence of ints; one entry may be -1 (inferred).

    Raises:
        ValueError: the sizes do not match, or more than one -1.
    """
    return Reshape(_shape_arg(shape, "reshape", allow_minus_one=True))(as_variable(x))


def transpose(x: Any, axes: Sequence[int] | None = None) -> Variable:
    """Permutes the dims of ``x``, as numpy.transpose (``axes=None`` reverses them).

    Raises:
        ValueError: ``axes`` is not a permutation of the dims (negative axes count from the end).
    """
    x = as_variable(x)
    if axes is None:
        perm = tuple(range(x.ndim))[::-1]
    else:
        axes = tuple(axes)
        if len(axes) != x.ndim:
            raise ValueError(f"transpose: axes {axes} don't match input of rank {x.ndim}")
        perm = normalize_axes(axes, x.ndim, "transpose")
    return Transpose(perm)(x)


def broadcast_to(x: Any, shape: int | Sequence[int]) -> Variable:
    """Broadcasts ``x`` to a static ``shape``, as numpy.broadcast_to (the result is a copy)."""
    return BroadcastTo(_shape_arg(shape, "broadcast_to"))(as_variable(x))


def expand_dims(x: Any, axis: int | Sequence[int]) -> Variable:
    """Inserts size-1 dims at ``axis`` (positions in the result; negative from the end),
    as numpy.expand_dims."""
    x = as_variable(x)
    n = 1 if isinstance(axis, (int, np.integer)) else len(tuple(axis))
    return ExpandDims(normalize_axes(axis, x.ndim + n, "expand_dims"))(x)


def squeeze(x: Any, axis: int | Sequence[int] | None = None) -> Variable:
    """Removes size-1 dims, as numpy.squeeze.

    Raises:
        ValueError: an ``axis`` whose size is not 1; ``axis=None`` on an input with
            unknown dims (which of them are 1 is not known: name the axes).
    """
    x = as_variable(x)
    if axis is None:
        if not x.type.is_static:
            raise ValueError(
                f"squeeze: axis=None needs known dims, but the input has shape {_fmt_shape(x.shape)}; "
                f"pass the axes to squeeze"
            )
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    elif scalar_reduction_axis(axis, x.ndim) is None:  # numpy.squeeze(0-d, axis=0 or -1)
        axes = ()
    else:
        axes = normalize_axes(axis, x.ndim, "squeeze")
    return Squeeze(axes)(x)


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _sequence_arg(xs: Any, op: str, dtype: Any = None, casting: str = "same_kind") -> list[Variable]:
    """The inputs as Variables of one dtype: ``dtype``, or their NumPy 2 result type;
    each input must cast to it by NumPy's ``casting`` rule."""
    if isinstance(xs, (Variable, np.ndarray)) or not isinstance(xs, Sequence):
        raise TypeError(f"{op}: expected a list or tuple of arrays, got {type(xs).__name__}")
    if not xs:
        raise ValueError(f"{op}: need at least one array")
    if dtype is None and casting == "same_kind":
        return promote(*(as_variable(x) for x in xs))
    if casting not in _CASTINGS:
        raise ValueError(f"{op}: casting must be one of {', '.join(map(repr, _CASTINGS))} (got {casting!r})")
    vs = [as_variable(x) for x in xs]
    dt = promote(*vs)[0].dtype if dtype is None else as_dtype(dtype)
    for i, v in enumerate(vs):
        if not np.can_cast(v.dtype, dt, casting=casting):
            raise TypeError(f"{op}: cannot cast input {i} from {v.dtype} to {dt} according to the "
                            f"rule {casting!r}")
    return [as_variable(v, dt) for v in vs]


def concatenate(xs: Sequence[Any], axis: int | None = 0, *, dtype: Any = None,
                casting: str = "same_kind") -> Variable:
    """Joins arrays along an existing axis, as numpy.concatenate.

    Inputs are promoted to one dtype (NumPy 2 rules), or cast to ``dtype`` (NumPy's
    ``casting`` rule checked); ``axis=None`` flattens them first.

    Raises:
        ValueError: ranks or dims (other than ``axis``) differ, or 0-d inputs with an axis.
        TypeError: an input does not cast to ``dtype`` by the ``casting`` rule.
    """
    vs = _sequence_arg(xs, "concatenate", dtype, casting)
    if axis is None:
        vs = [reshape(v, -1) for v in vs]
        axis = 0
    if vs[0].ndim == 0:
        raise ValueError("concatenate: zero-dimensional arrays cannot be concatenated")
    return Concatenate(normalize_axis(axis, vs[0].ndim, "concatenate"))(*vs)


def stack(xs: Sequence[Any], axis: int = 0, *, dtype: Any = None, casting: str = "same_kind") -> Variable:
    """Joins arrays of one shape along a new axis, as numpy.stack (cast to ``dtype`` as
    ``concatenate``).

    Raises:
        ValueError: the inputs' shapes differ.
        TypeError: an input does not cast to ``dtype`` by the ``casting`` rule.
    """
    vs = _sequence_arg(xs, "stack", dtype, casting)
    first = vs[0]
    for i, v in enumerate(vs):
        same = v.ndim == first.ndim and all(
            a is None or b is None or a == b for a, b in zip(v.shape, first.shape)
        )
        if not same:
            raise ValueError(
                f"stack: all input arrays must have the same shape, but input 0 has shape "
                f"{_fmt_shape(first.shape)} and input {i} has {_fmt_shape(v.shape)}"
            )
    ax = normalize_axis(axis, first.ndim + 1, "stack")
    return Concatenate(ax)(*(expand_dims(v, ax) for v in vs))


# --- construction ops -----------------------------------------------------------------
class _Construction(Op):
    """An Op without inputs, its output fixed by its props: nothing to differentiate
    (``full`` with a graph fill value is a broadcast, which has a gradient)."""

    def pullback(self, node, cotangents):
        return []

    def pushforward(self, node, tangents):
        return [None]


class Full(_Construction):
    """A tensor of static ``shape`` and ``dtype`` filled with the static ``value``."""

    __props__ = ("shape", "dtype", "value")

    def __init__(self, shape: Sequence[int], dtype: Any, value: Any):
        self.shape = _shape_arg(shape, "Full")
        self.dtype = as_dtype(dtype)
        # the Python scalar of the value in ``dtype`` (exact: it round-trips)
        self.value = np.asarray(value, dtype=self.dtype).item()

    def make_node(self) -> Apply:
        return Apply(self, [], [TensorType(self.dtype, self.shape)])

    def perform(self, node, inputs):
        return [np.full(self.shape, self.value, dtype=self.dtype)]


class FullLike(Op):
    """``fill`` broadcast to the shape of ``like`` (whose values are not read).

    The ``*_like`` builders use it when ``like`` has unknown dims; with known
    dims they build a ``Full`` or a ``BroadcastTo``.
    """

    def make_node(self, like: Any, fill: Any) -> Apply:
        like, fill = as_variable(like), as_variable(fill)
        _check_broadcast(self, fill.shape, like.shape, "fill")
        return Apply(self, [like, fill], [TensorType(fill.dtype, like.shape)])

    def perform(self, node, inputs):
        like, fill = inputs
        return [np.array(np.broadcast_to(fill, like.shape))]

    def pullback(self, node, cotangents):
        (like, fill) = node.inputs
        if not is_inexact(fill.dtype):
            return [None, None]
        from ..autodiff import sum_to
        return [None, sum_to(cotangents[0], fill)]  # like's values are not read

    def pushforward(self, node, tangents):
        t = tangents[1]
        return [None if t is None or not is_inexact(t.dtype) else self(node.inputs[0], t)]


class Arange(_Construction):
    """``arange(start, stop, step, dtype)`` with static bounds: exactly numpy.arange.

    The length is ``ceil((stop - start) / step)`` computed on the Python values;
    element 0 is ``start`` and element 1 is ``start + step`` (both converted to
    ``dtype``), and element ``i >= 2`` is ``x0 + i * (x1 - x0)`` computed in
    ``dtype`` (float16 and bfloat16 compute in float32), as NumPy fills it.
    """

    __props__ = ("start", "stop", "step", "dtype")

    def __init__(self, start: Any, stop: Any, step: Any, dtype: Any):
        self.start, self.stop, self.step = start, stop, step
        self.dtype = as_dtype(dtype)
        self.length, self.first, self.second = _arange_plan(start, stop, step, self.dtype)

    def make_node(self) -> Apply:
        return Apply(self, [], [TensorType(self.dtype, (self.length,))])

    def perform(self, node, inputs):
        return [np.arange(self.start, self.stop, self.step, dtype=self.dtype)]


class Eye(_Construction):
    """``eye(n, m, k, dtype)``: ones on the ``k``-th diagonal of an ``n`` x ``m`` matrix."""

    __props__ = ("n", "m", "k", "dtype")

    def __init__(self, n: int, m: int, k: int, dtype: Any):
        self.n, self.m = _shape_arg((n, m), "Eye")
        self.k = int(k)
        self.dtype = as_dtype(dtype)

    def make_node(self) -> Apply:
        return Apply(self, [], [TensorType(self.dtype, (self.n, self.m))])

    def perform(self, node, inputs):
        return [np.eye(self.n, self.m, self.k, dtype=self.dtype)]


# --- arange: NumPy's length, dtype and first two values -------------------------------
def _static_number(v: Any, name: str) -> Any:
    if isinstance(v, Variable):
        raise TypeError(f"arange: {name} must be a static Python number, got the graph value {v!r}")
    if isinstance(v, np.ndarray):
        if v.ndim != 0:
            raise TypeError(f"arange: {name} must be a scalar, got an array of shape {v.shape}")
        v = v[()]
    if not isinstance(v, (bool, int, float, complex, np.generic)):
        raise TypeError(f"arange: {name} must be a number, got {type(v).__name__}")
    return v


def _default_arange_dtype(*values: Any) -> np.dtype:
    """numpy.arange's dtype: at least the default int, promoted with each bound's dtype
    (legacy promotion: an int64 start and a float32 step give float64)."""
    dt = np.dtype(np.intp)
    for v in values:
        try:
            dt = np.promote_types(dt, np.asarray(v).dtype)
        except TypeError as e:
            raise TypeError(f"arange: no supported dtype for the bounds {values}; pass dtype=") from e
    return as_dtype(dt)


def _arange_length(start: Any, stop: Any, step: Any, cmplx: bool) -> int:
    """``ceil((stop - start) / step)`` on the Python values, clipped at 0 (NumPy's
    _calc_length, including its underflow rule and its errors)."""
    try:
        span = stop - start
        val = span / step
    except ZeroDivisionError:
        raise ValueError("arange: step must not be zero") from None
    except OverflowError:
        raise ValueError("arange: maximum allowed size exceeded") from None

    def ceil_len(value: float) -> int:
        if math.isnan(value):
            raise ValueError("arange: cannot compute length")
        c = math.ceil(value) if math.isfinite(value) else value
        if not -(2 ** 63) <= c < 2 ** 63:
            raise ValueError("arange: maximum allowed size exceeded")
        return int(c)

    if cmplx and isinstance(val, (complex, np.complexfloating)):
        n = min(ceil_len(float(np.real(val))), ceil_len(float(np.imag(val))))
    else:
        value = float(val)
        if val == 0 and span != 0:  # the quotient underflowed, or step is infinite
            n = 0 if math.copysign(1.0, value) < 0 else 1
        else:
            n = ceil_len(value)
    return max(n, 0)


def _arange_plan(start: Any, stop: Any, step: Any, dtype: np.dtype) -> tuple[int, Any, Any]:
    """(length, element 0, element 1) of numpy.arange; the elements are NumPy scalars
    of ``dtype`` (element 1 is None for length < 2)."""
    n = _arange_length(start, stop, step, is_complex(dtype))
    if dtype == DTYPES["bool"] and n > 2:
        raise TypeError("arange: booleans are only supported when the result has at most length 2")
    first = np.asarray(start, dtype=dtype)[()] if n >= 1 else None
    second = np.asarray(start + step, dtype=dtype)[()] if n >= 2 else None
    return n, first, second


# --- construction builders ------------------------------------------------------------
def _fill_constant(fill: Any, dtype: Any, like: bool = False) -> np.ndarray:
    """The static fill value converted as numpy.full (``like``: numpy.full_like) converts it."""
    if like:
        arr = np.full_like(np.empty(np.shape(fill), dtype=dtype), fill)
    else:
        arr = np.full(np.shape(fill), fill, dtype=None if dtype is None else as_dtype(dtype))
    return arr.astype(as_dtype(arr.dtype), copy=False)


def full(shape: int | Sequence[int], fill_value: Any, dtype: Any = None) -> Variable:
    """An array of ``shape`` filled with ``fill_value``, as numpy.full.

    Args:
        shape: static int or sequence of ints.
        fill_value: a Python/NumPy scalar or array (broadcast to ``shape``), or a graph value.
        dtype: the result dtype; None takes NumPy's dtype for ``fill_value``
            (int64 for a Python int, float64 for a float; a graph value's own dtype).
    """
    shape = _shape_arg(shape, "full")
    if isinstance(fill_value, Variable):
        v = fill_value if dtype is None else fill_value.astype(dtype)
        return broadcast_to(v, shape)
    value = _fill_constant(fill_value, dtype)
    if value.ndim == 0:
        return Full(shape, value.dtype, value)()
    return broadcast_to(as_variable(value), shape)


def zeros(shape: int | Sequence[int], dtype: Any = "float64") -> Variable:
    """An array of zeros, as numpy.zeros (float64 unless ``dtype`` is given)."""
    return Full(_shape_arg(shape, "zeros"), dtype, 0)()


def ones(shape: int | Sequence[int], dtype: Any = "float64") -> Variable:
    """An array of ones, as numpy.ones (float64 unless ``dtype`` is given)."""
    return Full(_shape_arg(shape, "ones"), dtype, 1)()


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: int | Sequence[int] | None = None) -> Variable:
    """An array shaped like ``x`` (or of ``shape``) filled with ``fill_value``, as
    numpy.full_like.

    The dtype is ``x``'s unless ``dtype`` is given; the fill value is cast to it
    as NumPy casts it. ``x`` may have unknown dims.
    """
    x = as_variable(x)
    dt = x.dtype if dtype is None else as_dtype(dtype)
    if shape is not None:
        shape = _shape_arg(shape, "full_like")
        if isinstance(fill_value, Variable):
            return broadcast_to(fill_value.astype(dt), shape)
        value = _fill_constant(fill_value, dt, like=True)
        return Full(shape, dt, value)() if value.ndim == 0 else broadcast_to(as_variable(value), shape)
    if isinstance(fill_value, Variable):
        fill = fill_value.astype(dt)
    else:
        value = _fill_constant(fill_value, dt, like=True)
        if value.ndim == 0 and x.type.is_static:
            return Full(x.shape, dt, value)()
        fill = as_variable(value)
    if x.type.is_static:
        return broadcast_to(fill, x.shape)
    return FullLike()(x, fill)


def empty(shape: int | Sequence[int], dtype: Any = "float64") -> Variable:
    """numpy.empty: NumPy leaves the contents unspecified; hlograph gives zeros."""
    return zeros(shape, dtype)


def empty_like(x: Any, dtype: Any = None, shape: int | Sequence[int] | None = None) -> Variable:
    """numpy.empty_like: unspecified contents (zeros here), shaped like ``x`` (or ``shape``)."""
    return zeros_like(x, dtype, shape)


def alloc(value: Any, *shape: int) -> Variable:
    """PyTensor's ``alloc(value, *shape)``: ``value`` broadcast to ``shape``."""
    return broadcast_to(as_variable(value), shape)


def zeros_like(x: Any, dtype: Any = None, shape: int | Sequence[int] | None = None) -> Variable:
    """Zeros shaped like ``x`` (or ``shape``; of ``x``'s dtype unless given), as numpy.zeros_like."""
    return full_like(x, 0, dtype, shape)


def ones_like(x: Any, dtype: Any = None, shape: int | Sequence[int] | None = None) -> Variable:
    """Ones shaped like ``x`` (or ``shape``; of ``x``'s dtype unless given), as numpy.ones_like."""
    return full_like(x, 1, dtype, shape)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Variable:
    """Evenly spaced values in ``[start, stop)``, as numpy.arange, with static bounds.

    ``arange(n)`` counts from 0. The length, the default dtype (at least int64,
    float64 when a bound is a float) and every value are NumPy's.

    Raises:
        TypeError: a bound is a graph value; bool results longer than 2.
        ValueError: ``step`` is zero; the length is NaN or too large.
    """
    if any(isinstance(b, Variable) for b in (start, stop, step)):
        return dynamic_arange(start, stop, step, dtype)
    start = _static_number(start, "start")
    if stop is None:
        start, stop = 0, start
    stop = _static_number(stop, "stop")
    step = _static_number(1 if step is None else step, "step")
    dt = _default_arange_dtype(start, stop, step) if dtype is None else as_dtype(dtype)
    return Arange(start, stop, step, dt)()


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = "float64") -> Variable:
    """A 2-d array with ones on the ``k``-th diagonal and zeros elsewhere, as numpy.eye.

    Args:
        N: rows. M: columns (default ``N``). k: the diagonal (0 main, > 0 above, < 0 below).
        dtype: the result dtype (float64 unless given).
    """
    if any(isinstance(b, Variable) for b in (N, M, k)):
        return dynamic_eye(N, M, k, dtype)
    k = operator.index(k)
    return Eye(N, N if M is None else M, k, dtype)()
