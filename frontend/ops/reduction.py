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
from ..types import DTYPES, TensorType, as_dtype, dtype_name, is_complex, is_float
from .basic import as_variable, scalar_reduction_axis
from .elemwise import astype
from .shape import reshape
from . import elemwise as ew
from ..graph import Constant, NotDifferentiableError, UndefinedGradient
from ..types import is_inexact

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

    # derivatives: integer and bool results (all, any, sums of ints) carry none
    def pullback(self, node, cotangents):
        if not is_inexact(node.outputs[0].dtype):
            return [None]
        return super().pullback(node, cotangents)

    def pushforward(self, node, tangents):
        if not is_inexact(node.outputs[0].dtype):
            return [None]
        return super().pushforward(node, tangents)


class Sum(Reduce):
    """Sum over axes, as numpy.sum (an empty axis sums to 0)."""

    reference = staticmethod(np.sum)
    accumulates = True

    @classmethod
    def output_dtype(cls, dtype: np.dtype) -> np.dtype:
        return sum_dtype(dtype)

    def pullback(self, node, cotangents):
        (x,) = node.inputs
        if not is_inexact(x.dtype):
            return [None]
        from ..autodiff import unreduce
        return [unreduce(cotangents[0], x, self.axis, self.keepdims)]

    def pushforward(self, node, tangents):
        return [_linear(self, tangents[0])]


class Prod(Reduce):
    """Product over axes, as numpy.prod (an empty axis gives 1)."""

    reference = staticmethod(np.prod)
    accumulates = True

    @classmethod
    def output_dtype(cls, dtype: np.dtype) -> np.dtype:
        return sum_dtype(dtype)

    # derivatives: the product of the other elements, exact with zeros (as jax's)
    def pullback(self, node, cotangents):
        (x,) = node.inputs
        if not is_inexact(x.dtype):
            return [None]
        from ..autodiff import unreduce
        ct = unreduce(cotangents[0], x, self.axis, self.keepdims)
        return [ew.multiply(ct, _prod_partials(self, node))]

    def pushforward(self, node, tangents):
        t = tangents[0]
        if t is None or not is_inexact(t.dtype):
            return [None]
        return [Sum(self.axis, self.keepdims)(ew.multiply(t, _prod_partials(self, node)))]


class Max(Reduce):
    """Maximum over axes, as numpy.max: NaN propagates, complex orders lexicographically."""

    reference = staticmethod(np.max)
    empty_ok = False

    # derivatives: shared equally among the elements equal to the result (as jax's)
    def pullback(self, node, cotangents):
        (x,) = node.inputs
        if not is_inexact(x.dtype):
            return [None]
        from ..autodiff import unreduce
        ct = unreduce(cotangents[0], x, self.axis, self.keepdims)
        return [ew.multiply(ct, _extremum_weights(self, node))]

    def pushforward(self, node, tangents):
        t = tangents[0]
        if t is None or not is_inexact(t.dtype):
            return [None]
        return [Sum(self.axis, self.keepdims)(ew.multiply(t, _extremum_weights(self, node)))]


class Min(Reduce):
    """Minimum over axes, as numpy.min: NaN propagates, complex orders lexicographically."""

    reference = staticmethod(np.min)
    empty_ok = False
    pullback = Max.pullback
    pushforward = Max.pushforward


class Mean(Reduce):
    """Arithmetic mean over axes, as numpy.mean (ints -> float64; an empty axis gives NaN)."""

    reference = staticmethod(np.mean)
    accumulates = True

    @classmethod
    def output_dtype(cls, dtype: np.dtype) -> np.dtype:
        return float_dtype(dtype)

    def pullback(self, node, cotangents):
        (x,) = node.inputs
        if not is_inexact(x.dtype):
            return [None]
        from ..autodiff import reduced_count, unreduce
        ct = _divide_by_count(cotangents[0], reduced_count(x, self.axis))
        return [unreduce(ct, x, self.axis, self.keepdims)]

    def pushforward(self, node, tangents):
        return [_linear(self, tangents[0])]


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

    # derivatives: the pullback weighs real cotangents by 2 conj(x - mean) / (n - ddof)
    # (std: further divided by 2 std); the pushforward takes the real part of the pairing
    def pullback(self, node, cotangents):
        (x,) = node.inputs
        if not is_inexact(x.dtype):
            return [None]
        from ..autodiff import unreduce
        ct = unreduce(cotangents[0], x, self.axis, self.keepdims)
        return [ew.multiply(ew.astype(ct, x.dtype), self._weights(node))]

    def pushforward(self, node, tangents):
        t = tangents[0]
        if t is None or not is_inexact(t.dtype):
            return [None]
        p = ew.multiply(t, self._weights(node))
        return [Sum(self.axis, self.keepdims)(ew.real(p) if is_complex(p.dtype) else p)]

    def _weights(self, node: Apply) -> Variable:
        from ..autodiff import reduced_count
        (x,) = node.inputs
        d = ew.subtract(x, Mean(self.axis, keepdims=True)(x))
        if is_complex(x.dtype):
            d = ew.conj(d)
        return _divide_by_count(ew.multiply(d, 2), _minus(reduced_count(x, self.axis), self.ddof))


class Std(Var):
    """Standard deviation over axes, as numpy.std: the square root of ``Var``."""

    def _reference(self, x: np.ndarray) -> np.ndarray:
        return np.std(x, axis=self.axis, keepdims=self.keepdims, ddof=self.ddof)

    def _weights(self, node: Apply) -> Variable:
        (x,), out = node.inputs, node.outputs[0]
        half_over_std = ew.divide(0.5, out if self.keepdims else _keep(out, self.axis))
        return ew.multiply(super()._weights(node), ew.astype(half_over_std, x.dtype))


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

    def pullback(self, node, cotangents):
        return [None]  # an index: no gradient

    def pushforward(self, node, tangents):
        return [None]


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

    # derivatives: cumsum's pullback is a reverse cumsum; cumprod's is exact with zeros
    # (as jax's); cummax/cummin send each cotangent to the element the output copies (on
    # ties, the latest of the equal elements; jax splits among them). axis=None works on
    # the flattened input.
    def pullback(self, node, cotangents):
        (x,), (ct,), out = node.inputs, cotangents, node.outputs[0]
        if not is_inexact(x.dtype):
            return [None]
        flat, axis = _cum_input(self, x)
        if isinstance(flat, UndefinedGradient):
            return [flat]
        if self.mode == "add":
            g = _reverse_cumsum(ct, axis)
        elif self.mode == "mul":
            g = _cumprod_pullback(flat, out, ct, axis)
        else:
            from .indexing import at
            from .shape import zeros_like
            g = at(zeros_like(flat))[_cum_source_index(flat, out, axis)].add(ct)
        return [_cum_restore(g, x, self.axis)]

    def pushforward(self, node, tangents):
        (x,), (t,), out = node.inputs, tangents, node.outputs[0]
        if t is None or not is_inexact(x.dtype):
            return [None]
        if self.mode == "add":
            return [self(t)]
        if self.mode == "mul":
            return super().pushforward(node, tangents)  # by transposing the pullback
        flat, axis = _cum_input(self, x)
        if isinstance(flat, UndefinedGradient):
            raise NotDifferentiableError(f"{self}: {flat.reason}")
        from .indexing import getitem
        t_flat = t if self.axis is not None or x.ndim == 1 else _flatten(t)
        return [getitem(t_flat, _cum_source_index(flat, out, axis))]


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

    # derivatives: y * (ct - sum(ct * y)) for softmax (a symmetric Jacobian), and
    # ct - exp(y) * sum(ct) for log_softmax
    def pullback(self, node, cotangents):
        return [self._vjp(node.outputs[0], cotangents[0])]

    def pushforward(self, node, tangents):
        t = tangents[0]
        return [None if t is None else self._jvp(node.outputs[0], t)]

    def _vjp(self, y: Variable, ct: Variable) -> Variable:
        return ew.multiply(y, ew.subtract(ct, Sum(self.axis, keepdims=True)(ew.multiply(ct, y))))

    def _jvp(self, y: Variable, t: Variable) -> Variable:
        return self._vjp(y, t)


class LogSoftmax(Softmax):
    """x - max - log(sum(exp(x - max))) over ``axis``, as scipy.special.log_softmax
    (non-finite maxima shift by 0)."""

    @staticmethod
    def _reference(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        shifted = x - _shifted_max(x, axes)
        return shifted - np.log(np.sum(np.exp(shifted), axis=axes, keepdims=True))

    def _vjp(self, y: Variable, ct: Variable) -> Variable:
        return ew.subtract(ct, ew.multiply(ew.exp(y), Sum(self.axis, keepdims=True)(ct)))

    def _jvp(self, y: Variable, t: Variable) -> Variable:
        return ew.subtract(t, Sum(self.axis, keepdims=True)(ew.multiply(ew.exp(y), t)))


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

    # derivatives: the softmax exp(x - out) weighs the cotangent
    def pullback(self, node, cotangents):
        from ..autodiff import unreduce
        (x,) = node.inputs
        ct = unreduce(cotangents[0], x, self.axis, self.keepdims)
        return [ew.multiply(ct, self._softmax(node))]

    def pushforward(self, node, tangents):
        t = tangents[0]
        if t is None:
            return [None]
        return [Sum(self.axis, self.keepdims)(ew.multiply(t, self._softmax(node)))]

    def _softmax(self, node: Apply) -> Variable:
        (x,), out = node.inputs, node.outputs[0]
        return ew.exp(ew.subtract(x, out if self.keepdims else _keep(out, self.axis)))


# --- derivative helpers -------------------------------------------------------------------
def _linear(op: Op, t: Variable | None) -> Variable | None:
    """The tangent of a linear Op (sum, mean, cumsum): the Op applied to the tangent."""
    return None if t is None or not is_inexact(t.dtype) else op(t)


def _keep(out: Variable, axes: tuple[int, ...]) -> Variable:
    """A reduction's result with the reduced dims back as 1s (keepdims=True)."""
    if not axes:
        return out
    from .shape import ExpandDims
    return ExpandDims(axes)(out)


def _divide_by_count(v: Variable, n: int | float | Variable) -> Variable:
    return ew.divide(v, n if not isinstance(n, Variable) else ew.astype(n, v.dtype))


def _minus(n: int | Variable, ddof: int | float) -> int | float | Variable:
    if not ddof:
        return n
    return n - ddof if not isinstance(n, Variable) else ew.subtract(ew.astype(n, _FLOAT64), ddof)


def _extremum_weights(op: Reduce, node: Apply) -> Variable:
    """1 / (number of maxima) at the elements equal to the max (or min), else 0."""
    (x,), out = node.inputs, node.outputs[0]
    mask = ew.astype(ew.equal(x, out if op.keepdims else _keep(out, op.axis)), x.dtype)
    return ew.divide(mask, Sum(op.axis, keepdims=True)(mask))


def _prod_partials(op: Prod, node: Apply) -> Variable:
    """d prod / d x: the product of the other elements. out / x without zeros; at the only
    zero of a slice, the product of the nonzero elements; 0 elsewhere."""
    (x,), out = node.inputs, node.outputs[0]
    zero = ew.equal(x, 0)
    count = Sum(op.axis, keepdims=True)(ew.astype(zero, _INT64))
    safe = ew.where(zero, 1, x)
    others = Prod(op.axis, keepdims=True)(safe)
    at_zero = ew.where(ew.equal(count, 1), others, 0)
    return ew.where(zero, at_zero, ew.divide(out if op.keepdims else _keep(out, op.axis), safe))


def _flatten(x: Variable) -> Variable:
    return reshape(x, (-1,))


def _cum_input(op: CumOp, x: Variable) -> tuple[Variable | UndefinedGradient, int]:
    """The input as the cumulative op sees it (flattened for axis=None) and the axis."""
    if op.axis is not None:
        flat, axis = x, op.axis
    elif x.ndim == 1:
        flat, axis = x, 0
    elif x.shape.count(None) > 1:
        return UndefinedGradient(f"axis=None on an input with more than one unknown dim "
                                 f"({x.type}): its gradient cannot be reshaped back"), 0
    else:
        flat, axis = _flatten(x), 0
    if op.mode in ("max", "min") and not flat.type.is_static:
        return UndefinedGradient(f"cummax/cummin gradients need static shapes, got {x.type}"), 0
    return flat, axis


def _cum_restore(g: Variable, x: Variable, axis: int | None) -> Variable:
    if axis is not None or x.ndim == 1:
        return g
    return reshape(g, tuple(-1 if d is None else d for d in x.shape))


def _flip(v: Variable, axis: int) -> Variable:
    from .indexing import Subtensor
    return Subtensor(tuple((None, None, -1) if a == axis else (None, None, None)
                           for a in range(v.ndim)))(v)


def _reverse_cumsum(v: Variable, axis: int) -> Variable:
    """Sums from each element to the end along ``axis``."""
    return _flip(CumOp(axis, "add")(_flip(v, axis)), axis)


def _cumprod_pullback(x: Variable, y: Variable, ct: Variable, axis: int) -> Variable:
    """The pullback of y = cumprod(x) along ``axis``, exact with zeros: before the first
    zero of x, reverse_cumsum(ct * y) / x; at the first zero, the reverse cumsum of ct
    times the cumprod with that zero replaced by 1; after it, 0."""
    zero = ew.equal(x, 0)
    zeros_so_far = CumOp(axis, "add")(ew.astype(zero, _INT64))
    before = ew.equal(zeros_so_far, 0)
    first = ew.logical_and(zero, ew.equal(zeros_so_far, 1))
    a = ew.divide(_reverse_cumsum(ew.where(before, ew.multiply(ct, y), 0), axis), ew.where(before, x, 1))
    y_skip = CumOp(axis, "mul")(ew.where(first, 1, x))
    b = _reverse_cumsum(ew.where(before, 0, ew.multiply(ct, y_skip)), axis)
    return ew.where(before, a, ew.where(first, b, 0))


def _cum_source_index(x: Variable, y: Variable, axis: int) -> tuple[Variable, ...]:
    """The index of the element of ``x`` (static shape) each element of y = cummax(x)
    (or cummin) copies, as a tuple of index arrays for x[...]."""
    def positions(d: int) -> Constant:
        shape = [1] * x.ndim
        shape[d] = x.shape[d]
        return Constant(np.arange(x.shape[d], dtype=np.int64).reshape(shape))

    source = CumOp(axis, "max")(ew.where(ew.equal(x, y), positions(axis), 0))
    return tuple(source if d == axis else positions(d) for d in range(x.ndim))


# --- builders ------------------------------------------------------------------------
# NumPy's reduction arguments beyond axis/keepdims: ``dtype`` (compute in and return
# that dtype), ``initial`` (a starting value, combined with the reduction's result)
# and ``where`` (a boolean mask broadcast to the input: only its True elements count).
def _mask(x: Variable, where: typing.Any) -> Variable | None:
    """``where`` as a boolean mask of ``x``'s shape (None when it is the default True)."""
    if where is True:
        return None
    from .shape import zeros_like
    m = as_variable(where)
    if m.dtype != _BOOL:
        m = ew.not_equal(m, 0)
    out = ew.logical_or(zeros_like(x, _BOOL), m)
    if out.ndim != x.ndim or builtins.any(a is not None and b is not None and a != b
                                          for a, b in zip(out.shape, x.shape)):
        raise ValueError(f"where: a mask of shape {tuple(m.shape)} does not broadcast to the "
                         f"input's shape {tuple(x.shape)} (as in NumPy)")
    return out


def _initial(result: Variable, initial: typing.Any) -> Variable:
    """``initial`` cast to the result's dtype, as NumPy does."""
    return as_variable(np.asarray(initial).astype(result.dtype))


def _static_empty(x: Variable, axis: typing.Any, op: str) -> bool:
    axes = _normalize_axes(op, _check_axis_arg(axis, op), x)
    return builtins.any(x.shape[a] == 0 for a in axes)


def _reduce(kind: str, x: typing.Any, axis: AxisArg, keepdims: bool, dtype: typing.Any,
            initial: typing.Any, where: typing.Any) -> Variable:
    """sum/prod/max/min/all/any with NumPy's dtype=, initial= and where=."""
    x = as_variable(x)
    axis = scalar_reduction_axis(axis, x.ndim)
    if dtype is not None:
        x = astype(x, dtype)
    op_cls = {"sum": Sum, "prod": Prod, "max": Max, "min": Min, "all": All, "any": Any}[kind]
    mask = _mask(x, where)
    if mask is not None:
        if kind in ("max", "min") and initial is None:
            raise ValueError(
                f"{kind}: where= needs initial= (as numpy.{kind}: the {kind}imum has no identity, "
                f"so a slice with no element selected would have no value)")
        fill = {"sum": 0, "prod": 1, "all": True, "any": False}.get(kind, initial)
        x = ew.where(mask, x, as_variable(np.asarray(fill).astype(x.dtype)))
    if kind in ("max", "min") and initial is not None and _static_empty(x, axis, kind):
        zero = astype(Sum(axis, keepdims)(ew.multiply(x, 0)), x.dtype)
        return ew.add(zero, _initial(zero, initial))
    if kind in ("max", "min") and initial is not None:
        axes = _normalize_axes(kind, _check_axis_arg(axis, kind), x)
        if builtins.any(x.shape[a] is None for a in axes):
            # a reduced dim of unknown size may be empty: one more element, initial, along
            # each reduced dim keeps the extremum defined (NumPy's result for an empty slice)
            from .construct import pad
            widths = [(0, 1) if a in axes else (0, 0) for a in range(x.ndim)]
            x = pad(x, widths, constant_values=np.asarray(initial).astype(x.dtype))
    out = op_cls(axis, keepdims)(x)
    if dtype is not None:
        out = astype(out, dtype)
    if initial is not None:
        combine = {"sum": ew.add, "prod": ew.multiply, "max": ew.maximum, "min": ew.minimum}[kind]
        out = combine(out, _initial(out, initial))
    return out


def sum(x: typing.Any, axis: AxisArg = None, keepdims: bool = False, *, dtype: typing.Any = None,
        initial: typing.Any = None, where: typing.Any = True) -> Variable:
    """Sum of elements over ``axis``, as numpy.sum (bool/small ints accumulate in 64 bits;
    ``dtype``: compute in and return that dtype; ``initial`` is added; only elements where
    ``where`` is True count)."""
    return _reduce("sum", x, axis, keepdims, dtype, initial, where)


def prod(x: typing.Any, axis: AxisArg = None, keepdims: bool = False, *, dtype: typing.Any = None,
         initial: typing.Any = None, where: typing.Any = True) -> Variable:
    """Product of elements over ``axis``, as numpy.prod (``dtype``, ``initial`` and
    ``where`` as numpy.prod)."""
    return _reduce("prod", x, axis, keepdims, dtype, initial, where)


def max(x: typing.Any, axis: AxisArg = None, keepdims: bool = False, *,
        initial: typing.Any = None, where: typing.Any = True) -> Variable:
    """Maximum over ``axis``, as numpy.max (NaN propagates; an empty axis is an error
    unless ``initial`` is given; ``where`` needs ``initial``)."""
    return _reduce("max", x, axis, keepdims, None, initial, where)


def min(x: typing.Any, axis: AxisArg = None, keepdims: bool = False, *,
        initial: typing.Any = None, where: typing.Any = True) -> Variable:
    """Minimum over ``axis``, as numpy.min (NaN propagates; an empty axis is an error
    unless ``initial`` is given; ``where`` needs ``initial``)."""
    return _reduce("min", x, axis, keepdims, None, initial, where)


amax, amin = max, min


def _count(mask: Variable, axis: AxisArg, keepdims: bool) -> Variable:
    return Sum(axis, keepdims)(mask)


def _masked_mean(x: Variable, mask: Variable, axis: AxisArg, keepdims: bool) -> Variable:
    """The mean of the elements of float ``x`` where ``mask`` is True (NaN for none)."""
    acc = accumulation_dtype(x.dtype)
    s = Sum(axis, keepdims)(astype(ew.where(mask, x, 0), acc))
    n = _count(mask, axis, keepdims)
    return astype(ew.divide(s, astype(n, s.dtype)), x.dtype)


def mean(x: typing.Any, axis: AxisArg = None, keepdims: bool = False, *, dtype: typing.Any = None,
         where: typing.Any = True) -> Variable:
    """Arithmetic mean over ``axis``, as numpy.mean (ints -> float64; ``dtype``: compute
    in and return that dtype; only elements where ``where`` is True count)."""
    x = as_variable(x)
    if dtype is not None:
        x = astype(x, dtype)
    mask = _mask(x, where)
    if mask is None:
        out = Mean(axis, keepdims)(x)
    else:
        out = _masked_mean(astype(x, float_dtype(x.dtype)), mask, axis, keepdims)
    return out if dtype is None else astype(out, dtype)


def _var(kind: str, x: typing.Any, axis: AxisArg, keepdims: bool, ddof: int | float,
         dtype: typing.Any, where: typing.Any, mean: typing.Any, correction: typing.Any) -> Variable:
    if correction is not None:
        if ddof != 0:
            raise ValueError(f"{kind}: ddof and correction can't be provided simultaneously "
                             f"(as numpy.{kind})")
        ddof = correction
    x = as_variable(x)
    if dtype is not None:
        x = astype(x, dtype)
    mask = _mask(x, where)
    if mask is None and mean is None:
        out = (Var if kind == "var" else Std)(axis, keepdims, ddof)(x)
    else:
        if mask is None:
            mask = _mask(x, np.True_)
        xf = astype(x, float_dtype(x.dtype))
        m = _masked_mean(xf, mask, axis, True) if mean is None else astype(as_variable(mean), xf.dtype)
        d = ew.subtract(xf, m)
        sq = ew.real(ew.multiply(d, ew.conj(d))) if is_complex(d.dtype) else ew.multiply(d, d)
        acc = accumulation_dtype(sq.dtype)
        s = Sum(axis, keepdims)(astype(ew.where(mask, sq, 0), acc))
        n = ew.subtract(astype(_count(mask, axis, keepdims), acc), ddof)
        out = ew.divide(s, ew.maximum(n, 0))
        if kind == "std":
            out = ew.sqrt(out)
        out = astype(out, real_float_dtype(x.dtype))
    return out if dtype is None else astype(out, real_float_dtype(as_dtype(dtype)))


def var(x: typing.Any, axis: AxisArg = None, keepdims: bool = False, ddof: int | float = 0, *,
        dtype: typing.Any = None, where: typing.Any = True, mean: typing.Any = None,
        correction: typing.Any = None) -> Variable:
    """Variance over ``axis`` with divisor ``n - ddof``, as numpy.var (real result;
    ``dtype``, ``where``, ``mean`` (the precomputed mean, keepdims-shaped) and
    ``correction`` (NumPy 2's name for ddof) as numpy.var)."""
    return _var("var", x, axis, keepdims, ddof, dtype, where, mean, correction)


def std(x: typing.Any, axis: AxisArg = None, keepdims: bool = False, ddof: int | float = 0, *,
        dtype: typing.Any = None, where: typing.Any = True, mean: typing.Any = None,
        correction: typing.Any = None) -> Variable:
    """Standard deviation over ``axis`` with divisor ``n - ddof``, as numpy.std (real
    result; ``dtype``, ``where``, ``mean`` and ``correction`` as numpy.std)."""
    return _var("std", x, axis, keepdims, ddof, dtype, where, mean, correction)


def all(x: typing.Any, axis: AxisArg = None, keepdims: bool = False, *,
        where: typing.Any = True) -> Variable:
    """Whether all elements over ``axis`` are nonzero, as numpy.all (only elements where
    ``where`` is True count)."""
    return _reduce("all", x, axis, keepdims, None, None, where)


def any(x: typing.Any, axis: AxisArg = None, keepdims: bool = False, *,
        where: typing.Any = True) -> Variable:
    """Whether any element over ``axis`` is nonzero, as numpy.any (only elements where
    ``where`` is True count)."""
    return _reduce("any", x, axis, keepdims, None, None, where)


def argmax(x: typing.Any, axis: int | None = None, keepdims: bool = False) -> Variable:
    """Index (int64) of the first maximum along ``axis``, as numpy.argmax."""
    x = as_variable(x)
    return Argmax(scalar_reduction_axis(axis, x.ndim), keepdims)(x)


def argmin(x: typing.Any, axis: int | None = None, keepdims: bool = False) -> Variable:
    """Index (int64) of the first minimum along ``axis``, as numpy.argmin."""
    x = as_variable(x)
    return Argmin(scalar_reduction_axis(axis, x.ndim), keepdims)(x)


def _cumulative(mode: str, x: typing.Any, axis: int | None, dtype: typing.Any) -> Variable:
    x = as_variable(x)
    if x.ndim == 0 and axis is not None:
        # numpy.cumsum/cumprod ravel a 0-d input first, so axis 0 and -1 are valid
        x = reshape(x, (1,))
    if dtype is None:
        return CumOp(axis, mode)(x)
    return astype(CumOp(axis, mode)(astype(x, dtype)), dtype)


def cumsum(x: typing.Any, axis: int | None = None, dtype: typing.Any = None) -> Variable:
    """Cumulative sum along ``axis`` (None: of the flattened input), as numpy.cumsum
    (``dtype``: compute in and return that dtype)."""
    return _cumulative("add", x, axis, dtype)


def cumprod(x: typing.Any, axis: int | None = None, dtype: typing.Any = None) -> Variable:
    """Cumulative product along ``axis`` (None: of the flattened input), as numpy.cumprod
    (``dtype``: compute in and return that dtype)."""
    return _cumulative("mul", x, axis, dtype)


def cummax(x: typing.Any, axis: int | None = None) -> Variable:
    """Running maximum along ``axis`` (None: of the flattened input), as
    np.maximum.accumulate (NaN propagates)."""
    return CumOp(axis, "max")(x)


def cummin(x: typing.Any, axis: int | None = None) -> Variable:
    """Running minimum along ``axis`` (None: of the flattened input), as
    np.minimum.accumulate (NaN propagates)."""
    return CumOp(axis, "min")(x)


def _as_float(x: typing.Any) -> Variable:
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
