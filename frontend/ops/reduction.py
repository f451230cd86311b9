"""Reductions, cumulative reductions and the softmax family, with NumPy 2 semantics.

Reductions (``sum``, ``prod``, ``max``, ``min``, ``mean``, ``var``, ``std``, ``all``, ``any``)
take ``axis=None|int|tuple`` and ``keepdims``; each node's Op carries the
normalized axes (non-negative, sorted), so equal reductions compare equal.
dtypes follow NumPy: ``sum``/``prod`` of bool and small integers accumulate in
int64 (unsigned: uint64), ``mean`` of integers is float64, ``max``/``min``
keep the dtype, ``argmax``/``argmin`` give int64 and ``all``/``any`` bool.
``var``/``std`` give a real float dtype (ints and bool: float64; complex: its
real part's dtype). float16 and bfloat16 sums, products, means, variances and
cumulative sums and products accumulate in float32 and round once at the end
(NumPy does so for float16 in its means and contiguous sums).

Cumulative reductions (``cumsum``, ``cumprod``, ``cummax``, ``cummin``) are one
Op, ``CumOp``, with a ``mode``; ``cummax``/``cummin`` are
``np.maximum.accumulate``/``np.minimum.accumulate`` (NaN propagates, the dtype
is kept).

``softmax``, ``log_softmax`` and ``logsumexp`` follow ``scipy.special``
(max-shifted); integer and bool inputs compute in float64, float16 and
bfloat16 in float32.
"""

from __future__ import annotations

import builtins
import warnings
import typing
from typing import Callable, ClassVar, Sequence

import numpy as np

from ..graph import Apply, Op, Variable
from ..types import DTYPES, TensorType, dtype_name, is_complex, is_float
from .basic import as_variable

__all__ = [
    "sum", "prod", "max", "min", "amax", "amin", "mean", "var", "std", "all", "any", "argmax",
    "argmin", "cumsum", "cumprod", "cummax", "cummin", "softmax", "log_softmax", "logsumexp",
]

AxisArg = int | Sequence[int] | None

_INT64, _UINT64 = DTYPES["int64"], DTYPES["uint64"]
_FLOAT32, _FLOAT64 = DTYPES["float32"], DTYPES["float64"]
_BOOL = DTYPES["bool"]
_HALF = (DTYPES["float16"], DTYPES["bfloat16"])


# --- dtype rules --------------------------------------------------------------
def sum_dtype(dtype: np.dtype) -> np.dtype:
    """np.add.reduce's default result dtype: bool and small ints widen to 64 bits."""
    if dtype == _BOOL or dtype.kind == "i":
        return _INT64
    if dtype.kind == "u":
        return _UINT64
    return dtype


def accumulation_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a sum of ``dtype`` values is computed in (float16/bfloat16: float32)."""
    return _FLOAT32 if dtype in _HALF else dtype


def float_dtype(dtype: np.dtype) -> np.dtype:
    """The float dtype of ``mean``/``softmax`` results: ints and bool give float64."""
    return dtype if is_float(dtype) or is_complex(dtype) else _FLOAT64


def real_float_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of ``var``/``std`` results: ints and bool give float64, complex its real dtype."""
    dtype = float_dtype(dtype)
    return np.finfo(dtype).dtype if is_complex(dtype) else dtype


# --- axes -----------------------------------------------------------------------
def _describe(x: Variable) -> str:
    return f"input '{x.name}'" if x.name else f"input {x.type}"


def _check_axis_arg(axis: typing.Any, name: str,
                    allow_tuple: bool = True) -> int | tuple[int, ...] | None:
    """Validates the type of an ``axis`` argument; ints and tuples pass unchanged."""
    if axis is None:
        return None
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return int(axis)
    if allow_tuple and isinstance(axis, (tuple, list)):
        if builtins.all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in axis):
            return tuple(int(a) for a in axis)
    kinds = "None, an int or a tuple of ints" if allow_tuple else "None or an int"
    raise TypeError(f"{name}: axis must be {kinds}, got {axis!r}")


def _normalize_axes(op: Op, axis: int | tuple[int, ...] | None, x: Variable) -> tuple[int, ...]:
    """Non-negative sorted axes of ``x``; None means every axis."""
    if axis is None:
        return tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, int) else axis
    out = []
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise ValueError(
                f"{op}: axis {a} is out of bounds for {_describe(x)} of rank {x.ndim}"
            )
        out.append(a % x.ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{op}: repeated axis in {axes} for {_describe(x)} of rank {x.ndim}")
    return tuple(sorted(out))


def _reduced_shape(shape: tuple[int | None, ...], axes: tuple[int, ...], keepdims: bool):
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _check_not_empty(op: Op, x: Variable, axes: tuple[int, ...]) -> None:
    """NumPy raises for an extremum over an empty axis: so do we, when the size is known."""
    for a in axes:
        if x.shape[a] == 0:
            raise ValueError(
                f"{op}: axis {a} of {_describe(x)} has size 0, and an empty axis has no "
                f"{type(op).__name__.lower()} (NumPy raises here too)"
            )


def _quiet(fn: Callable[[], np.ndarray]) -> np.ndarray:
    """Runs a NumPy reduction without the warnings NumPy gives for NaN results."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn()


# --- reductions -----------------------------------------------------------------
class Reduce(Op):
    """Base of the reductions over ``axis`` (a sorted tuple of axes on a node).

    Subclasses set ``reference`` (the NumPy function), ``output_dtype`` and, for
    extrema, ``empty_ok = False``.
    """

    __props__ = ("axis", "keepdims")
    #: The NumPy function this Op means, called as ``fn(x, axis=..., keepdims=...)``.
    reference: ClassVar[Callable[..., np.ndarray]]
    #: False when reducing an empty axis is an error (max, min).
    empty_ok: ClassVar[bool] = True
    #: True when float16/bfloat16 inputs accumulate in float32 (sum, prod, mean).
    accumulates: ClassVar[bool] = False

    def __init__(self, axis: AxisArg = None, keepdims: bool = False):
        self.axis = _check_axis_arg(axis, type(self).__name__)
        self.keepdims = bool(keepdims)

    @classmethod
    def output_dtype(cls, dtype: np.dtype) -> np.dtype:
        return dtype

    def make_node(self, x: typing.Any) -> Apply:
        x = as_variable(x)
        axes = _normalize_axes(self, self.axis, x)
        if not self.empty_ok:
            _check_not_empty(self, x, axes)
        op = self if self.axis == axes else type(self)(axes, self.keepdims)
        out = TensorType(self.output_dtype(x.dtype), _reduced_shape(x.shape, axes, self.keepdims))
        return Apply(op, [x], [out])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        out_dt = node.outputs[0].dtype
        if self.accumulates and x.dtype in _HALF:
            x = x.astype(_FLOAT32)
        fn = type(self).reference
        return [_quiet(lambda: np.asarray(fn(x, axis=self.axis, keepdims=self.keepdims)).astype(out_dt))]


class Sum(Reduce):
    """Sum over axes, as numpy.sum (an empty axis sums to 0)."""

    reference = staticmethod(np.sum)
    accumulates = True

    @classmethod
    def output_dtype(cls, dtype: np.dtype) -> np.dtype:
        return sum_dtype(dtype)


class Prod(Reduce):
    """Product over axes, as numpy.prod (an empty axis gives 1)."""

    reference = staticmethod(np.prod)
    accumulates = True

    @classmethod
    def output_dtype(cls, dtype: np.dtype) -> np.dtype:
        return sum_dtype(dtype)


class Max(Reduce):
    """Maximum over axes, as numpy.max: NaN propagates, complex orders lexicographically."""

    reference = staticmethod(np.max)
    empty_ok = False


class Min(Reduce):
    """Minimum over axes, as numpy.min: NaN propagates, complex orders lexicographically."""

    reference = staticmethod(np.min)
    empty_ok = False


class Mean(Reduce):
    """Arithmetic mean over axes, as numpy.mean (ints -> float64; an empty axis gives NaN)."""

    reference = staticmethod(np.mean)
    accumulates = True

    @classmethod
    def output_dtype(cls, dtype: np.dtype) -> np.dtype:
        return float_dtype(dtype)


class All(Reduce):
    """True where every element along the axes is nonzero, as numpy.all (empty: True)."""

    reference = staticmethod(np.all)

    @classmethod
    def output_dtype(cls, dtype: np.dtype) -> np.dtype:
        return _BOOL


class Any(Reduce):
    """True where some element along the axes is nonzero, as numpy.any (empty: False)."""

    reference = staticmethod(np.any)

    @classmethod
    def output_dtype(cls, dtype: np.dtype) -> np.dtype:
        return _BOOL


class Var(Op):
    """Variance over axes, as numpy.var: ``mean(abs(x - mean(x))**2)`` with
    ``n - ddof`` as the divisor (a divisor <= 0 gives inf or NaN, as NumPy). The
    result is real (complex -> its real dtype; ints and bool -> float64)."""

    __props__ = ("axis", "keepdims", "ddof")

    def __init__(self, axis: AxisArg = None, keepdims: bool = False, ddof: int | float = 0):
        name = type(self).__name__
        self.axis = _check_axis_arg(axis, name)
        self.keepdims = bool(keepdims)
        if isinstance(ddof, bool) or not isinstance(ddof, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name}: ddof must be a real number, got {ddof!r}")
        self.ddof = int(ddof) if float(ddof).is_integer() else float(ddof)

    def make_node(self, x: typing.Any) -> Apply:
        x = as_variable(x)
        axes = _normalize_axes(self, self.axis, x)
        op = self if self.axis == axes else type(self)(axes, self.keepdims, self.ddof)
        out = TensorType(real_float_dtype(x.dtype), _reduced_shape(x.shape, axes, self.keepdims))
        return Apply(op, [x], [out])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        x = inputs[0].astype(accumulation_dtype(float_dtype(inputs[0].dtype)))
        out_dt = node.outputs[0].dtype
        return [_quiet(lambda: np.asarray(self._reference(x)).astype(out_dt))]

    def _reference(self, x: np.ndarray) -> np.ndarray:
        return np.var(x, axis=self.axis, keepdims=self.keepdims, ddof=self.ddof)


class Std(Var):
    """Standard deviation over axes, as numpy.std: the square root of ``Var``."""

    def _reference(self, x: np.ndarray) -> np.ndarray:
        return np.std(x, axis=self.axis, keepdims=self.keepdims, ddof=self.ddof)


class Argmax(Op):
    """Index of the first maximum along ``axis`` (None: of the flattened input), as
    numpy.argmax: int64, and the first NaN counts as the maximum."""

    __props__ = ("axis", "keepdims")
    reference: ClassVar[Callable[..., np.ndarray]] = staticmethod(np.argmax)

    def __init__(self, axis: int | None = None, keepdims: bool = False):
        self.axis = _check_axis_arg(axis, type(self).__name__, allow_tuple=False)
        self.keepdims = bool(keepdims)

    def make_node(self, x: typing.Any) -> Apply:
        x = as_variable(x)
        if self.axis is None:
            _check_not_empty(self, x, tuple(range(x.ndim)))
            shape = (1,) * x.ndim if self.keepdims else ()
            return Apply(self, [x], [TensorType(_INT64, shape)])
        (axis,) = _normalize_axes(self, self.axis, x)
        _check_not_empty(self, x, (axis,))
        op = self if self.axis == axis else type(self)(axis, self.keepdims)
        shape = _reduced_shape(x.shape, (axis,), self.keepdims)
        return Apply(op, [x], [TensorType(_INT64, shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        res = type(self).reference(inputs[0], axis=self.axis, keepdims=self.keepdims)
        return [np.asarray(res, dtype=_INT64)]


class Argmin(Argmax):
    """Index of the first minimum along ``axis``, as numpy.argmin (see Argmax)."""

    reference = staticmethod(np.argmin)


# --- cumulative reductions --------------------------------------------------------
_CUM_MODES = {"add": np.cumsum, "mul": np.cumprod,
              "max": np.maximum.accumulate, "min": np.minimum.accumulate}


class CumOp(Op):
    """Cumulative sum (``mode='add'``), product (``'mul'``), maximum (``'max'``) or
    minimum (``'min'``) along ``axis``, as numpy.cumsum / numpy.cumprod /
    np.maximum.accumulate / np.minimum.accumulate; ``axis=None`` works on the
    flattened input (so a 0-d input gives shape (1,)). dtypes as numpy: sums and
    products of bool and small ints give int64, and float16 and bfloat16
    accumulate in float32; maxima and minima keep the dtype and propagate NaN."""

    __props__ = ("axis", "mode")

    def __init__(self, axis: int | None = None, mode: str = "add"):
        if mode not in _CUM_MODES:
            raise ValueError(f"CumOp: mode must be one of {', '.join(map(repr, _CUM_MODES))}, got {mode!r}")
        self.axis = _check_axis_arg(axis, f"CumOp{{mode={mode!r}}}", allow_tuple=False)
        self.mode = mode

    def make_node(self, x: typing.Any) -> Apply:
        x = as_variable(x)
        out_dt = sum_dtype(x.dtype) if self.mode in ("add", "mul") else x.dtype
        if self.axis is None:
            return Apply(self, [x], [TensorType(out_dt, (x.type.size,))])
        (axis,) = _normalize_axes(self, self.axis, x)
        op = self if self.axis == axis else CumOp(axis, self.mode)
        return Apply(op, [x], [TensorType(out_dt, x.shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        out_dt = node.outputs[0].dtype
        fn = _CUM_MODES[self.mode]
        if self.mode in ("max", "min"):
            if self.axis is None:
                x = x.reshape(-1)
            return [np.asarray(fn(x, axis=0 if self.axis is None else self.axis)).astype(out_dt)]
        if x.dtype in _HALF:
            x = x.astype(_FLOAT32)
        res = _quiet(lambda: np.asarray(fn(x, axis=self.axis, dtype=sum_dtype(x.dtype))).astype(out_dt))
        return [res]


# --- softmax family ------------------------------------------------------------------
def _check_float(op: Op, x: Variable) -> None:
    if not is_float(x.dtype):
        raise TypeError(
            f"{op}: {_describe(x)} must have a real float dtype, got {dtype_name(x.dtype)} "
            f"(the builder function casts integers and bool to float64)"
        )


def _shifted_max(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """max over ``axes`` (keepdims), with non-finite maxima replaced by 0, as scipy does."""
    m = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
    return np.where(np.isfinite(m), m, 0).astype(x.dtype)


class Softmax(Op):
    """exp(x - max) / sum(exp(x - max)) over ``axis``, as scipy.special.softmax
    (NaN in gives NaN; a slice of all -inf, or with +inf, gives NaN)."""

    __props__ = ("axis",)

    def __init__(self, axis: AxisArg = -1):
        self.axis = _check_axis_arg(axis, type(self).__name__)

    def make_node(self, x: typing.Any) -> Apply:
        x = as_variable(x)
        _check_float(self, x)
        axes = _normalize_axes(self, self.axis, x)
        op = self if self.axis == axes else type(self)(axes)
        return Apply(op, [x], [x.type])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        x = x.astype(accumulation_dtype(x.dtype))
        out_dt = node.outputs[0].dtype
        return [_quiet(lambda: np.asarray(self._reference(x, self.axis)).astype(out_dt))]

    @staticmethod
    def _reference(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        m = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
        e = np.exp(x - m)
        return e / np.sum(e, axis=axes, keepdims=True)


class LogSoftmax(Softmax):
    """x - max - log(sum(exp(x - max))) over ``axis``, as scipy.special.log_softmax
    (non-finite maxima shift by 0)."""

    @staticmethod
    def _reference(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        shifted = x - _shifted_max(x, axes)
        return shifted - np.log(np.sum(np.exp(shifted), axis=axes, keepdims=True))


class LogSumExp(Op):
    """log(sum(exp(x))) over ``axis``, max-shifted, as scipy.special.logsumexp: -inf
    when every element is -inf (or the axis is empty), +inf when one is +inf."""

    __props__ = ("axis", "keepdims")

    def __init__(self, axis: AxisArg = None, keepdims: bool = False):
        self.axis = _check_axis_arg(axis, type(self).__name__)
        self.keepdims = bool(keepdims)

    def make_node(self, x: typing.Any) -> Apply:
        x = as_variable(x)
        _check_float(self, x)
        axes = _normalize_axes(self, self.axis, x)
        op = self if self.axis == axes else type(self)(axes, self.keepdims)
        return Apply(op, [x], [TensorType(x.dtype, _reduced_shape(x.shape, axes, self.keepdims))])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        x = inputs[0].astype(accumulation_dtype(inputs[0].dtype))
        axes = self.axis

        def reference() -> np.ndarray:
            m = _shifted_max(x, axes)
            out = np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True)) + m
            out = out if self.keepdims else np.squeeze(out, axis=axes)
            return out.astype(node.outputs[0].dtype)

        return [_quiet(reference)]


# --- builders ------------------------------------------------------------------------
def sum(x: typing.Any, axis: AxisArg = None, keepdims: bool = False) -> Variable:
    """Sum of elements over ``axis``, as numpy.sum (bool/small ints accumulate in 64 bits)."""
    return Sum(axis, keepdims)(x)


def prod(x: typing.Any, axis: AxisArg = None, keepdims: bool = False) -> Variable:
    """Product of elements over ``axis``, as numpy.prod."""
    return Prod(axis, keepdims)(x)


def max(x: typing.Any, axis: AxisArg = None, keepdims: bool = False) -> Variable:
    """Maximum over ``axis``, as numpy.max (NaN propagates; an empty axis is an error)."""
    return Max(axis, keepdims)(x)


def min(x: typing.Any, axis: AxisArg = None, keepdims: bool = False) -> Variable:
    """Minimum over ``axis``, as numpy.min (NaN propagates; an empty axis is an error)."""
    return Min(axis, keepdims)(x)


amax, amin = max, min


def mean(x: typing.Any, axis: AxisArg = None, keepdims: bool = False) -> Variable:
    """Arithmetic mean over ``axis``, as numpy.mean (ints -> float64)."""
    return Mean(axis, keepdims)(x)


def var(x: typing.Any, axis: AxisArg = None, keepdims: bool = False, ddof: int | float = 0) -> Variable:
    """Variance over ``axis`` with divisor ``n - ddof``, as numpy.var (real result)."""
    return Var(axis, keepdims, ddof)(x)


def std(x: typing.Any, axis: AxisArg = None, keepdims: bool = False, ddof: int | float = 0) -> Variable:
    """Standard deviation over ``axis`` with divisor ``n - ddof``, as numpy.std (real result)."""
    return Std(axis, keepdims, ddof)(x)


def all(x: typing.Any, axis: AxisArg = None, keepdims: bool = False) -> Variable:
    """Whether all elements over ``axis`` are nonzero, as numpy.all."""
    return All(axis, keepdims)(x)


def any(x: typing.Any, axis: AxisArg = None, keepdims: bool = False) -> Variable:
    """Whether any element over ``axis`` is nonzero, as numpy.any."""
    return Any(axis, keepdims)(x)


def argmax(x: typing.Any, axis: int | None = None, keepdims: bool = False) -> Variable:
    """Index (int64) of the first maximum along ``axis``, as numpy.argmax."""
    return Argmax(axis, keepdims)(x)


def argmin(x: typing.Any, axis: int | None = None, keepdims: bool = False) -> Variable:
    """Index (int64) of the first minimum along ``axis``, as numpy.argmin."""
    return Argmin(axis, keepdims)(x)


def cumsum(x: typing.Any, axis: int | None = None) -> Variable:
    """Cumulative sum along ``axis`` (None: of the flattened input), as numpy.cumsum."""
    return CumOp(axis, "add")(x)


def cumprod(x: typing.Any, axis: int | None = None) -> Variable:
    """Cumulative product along ``axis`` (None: of the flattened input), as numpy.cumprod."""
    return CumOp(axis, "mul")(x)


def cummax(x: typing.Any, axis: int | None = None) -> Variable:
    """Running maximum along ``axis`` (None: of the flattened input), as
    np.maximum.accumulate (NaN propagates)."""
    return CumOp(axis, "max")(x)


def cummin(x: typing.Any, axis: int | None = None) -> Variable:
    """Running minimum along ``axis`` (None: of the flattened input), as
    np.minimum.accumulate (NaN propagates)."""
    return CumOp(axis, "min")(x)


def _as_float(x: typing.Any) -> Variable:
    from .elemwise import astype

    x = as_variable(x)
    return x if is_float(x.dtype) or is_complex(x.dtype) else astype(x, _FLOAT64)


def softmax(x: typing.Any, axis: AxisArg = -1) -> Variable:
    """Softmax over ``axis`` (default: the last), as scipy.special.softmax; ints and bool
    compute in float64."""
    return Softmax(axis)(_as_float(x))


def log_softmax(x: typing.Any, axis: AxisArg = -1) -> Variable:
    """Log of the softmax over ``axis``, as scipy.special.log_softmax."""
    return LogSoftmax(axis)(_as_float(x))


def logsumexp(x: typing.Any, axis: AxisArg = None, keepdims: bool = False) -> Variable:
    """log(sum(exp(x))) over ``axis``, as scipy.special.logsumexp (without ``b``)."""
    return LogSumExp(axis, keepdims)(_as_float(x))
