"""Padding and shapes as graph values, with NumPy semantics.

Three Ops: ``Pad`` (constant padding with one value, ``stablehlo.pad``),
``SpecifyShape`` (a checked shape assertion that refines unknown dims) and
``Shape`` (``x``'s shape as an int64 vector). ``pad``'s other modes (edge,
reflect, symmetric, wrap, linear_ramp and the statistics) compose slices,
gathers, reductions and concatenations, and need the sizes of the padded dims
to be known; they raise ``ValueError`` naming the dim otherwise.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..graph import Apply, Constant, Op, Variable
from ..types import TensorType, is_complex, is_float, is_integer
from ..types import is_inexact
from .basic import as_int, as_variable, result_type, static_shape
from .elemwise import add, astype, divide, floor, isnan, multiply, subtract, where
from .elemwise import round as round_
from .indexing import getitem, take
from .reduction import amax, amin, mean
from .reduction import any as any_
from .shape import broadcast_to, concatenate
from .sort import sort

__all__ = ["Pad", "SpecifyShape", "Shape", "pad", "specify_shape", "shape_of"]


# --- Ops ----------------------------------------------------------------------------
class Pad(Op):
    """``numpy.pad(x, pad_width, constant_values=value)``: ``pad_width`` is one (before,
    after) pair of non-negative ints per dim; ``value`` is a 0-d input of ``x``'s dtype."""

    __props__ = ("pad_width",)

    def __init__(self, pad_width: Sequence[Sequence[int]]):
        self.pad_width = tuple((int(b), int(a)) for b, a in pad_width)
        if any(b < 0 or a < 0 for b, a in self.pad_width):
            raise ValueError(f"Pad: pad widths must be non-negative, got {self.pad_width}")

    def make_node(self, x: Any, value: Any) -> Apply:
        x = as_variable(x)
        value = as_variable(value)
        if len(self.pad_width) != x.ndim:
            raise ValueError(f"{self}: {len(self.pad_width)} pad widths for input 'x' of rank {x.ndim}")
        if value.ndim != 0 or value.dtype != x.dtype:
            raise TypeError(f"{self}: input 'value' must be 0-d of dtype {x.dtype}, got {value.type}")
        shape = [None if d is None else d + b + a for d, (b, a) in zip(x.shape, self.pad_width)]
        return Apply(self, [x, value], [TensorType(x.dtype, shape)])

    def perform(self, node, inputs):
        x, value = inputs
        if x.ndim == 0:
            return [np.array(x, copy=True)]
        return [np.pad(x, self.pad_width, mode="constant", constant_values=value).astype(x.dtype, copy=False)]

    # derivatives: x gets the inner slice of the cotangent, value the sum of the rest
    def pullback(self, node, cotangents):
        (ct,), (x, value) = cotangents, node.inputs
        if not is_inexact(x.dtype):
            return [None, None]
        if not any(b or a for b, a in self.pad_width):
            return [ct, None]
        from .reduction import Sum
        inner = getitem(ct, tuple(slice(b, -a if a else None) for b, a in self.pad_width))
        return [inner, subtract(Sum()(ct), Sum()(inner))]

    def pushforward(self, node, tangents):
        (tx, tv), (x, value) = tangents, node.inputs
        if (tx is None and tv is None) or not is_inexact(x.dtype):
            return [None]
        from .shape import zeros_like
        return [self(zeros_like(x) if tx is None else tx, Constant(np.zeros((), x.dtype)) if tv is None else tv)]


class SpecifyShape(Op):
    """``x`` unchanged, with its shape asserted to be ``shape`` (``None``: any size): unknown
    dims of ``x`` become known; a mismatch raises ``ValueError`` when the graph is built or
    specialized, and in ``perform``."""

    __props__ = ("shape",)

    def __init__(self, shape: Sequence[int | None]):
        self.shape = tuple(None if d is None else int(d) for d in shape)

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        if x.ndim != len(self.shape) or any(
            s is not None and d is not None and s != d for s, d in zip(self.shape, x.shape)
        ):
            raise ValueError(f"{self}: input 'x' of shape {tuple(x.shape)} does not have the specified shape")
        shape = [d if s is None else s for s, d in zip(self.shape, x.shape)]
        return Apply(self, [x], [TensorType(x.dtype, shape)])

    def perform(self, node, inputs):
        (x,) = inputs
        if x.ndim != len(self.shape) or any(s is not None and s != d for s, d in zip(self.shape, x.shape)):
            raise ValueError(f"{self}: input 'x' has shape {x.shape}")
        return [x]

    def pullback(self, node, cotangents):
        return [cotangents[0] if is_inexact(node.inputs[0].dtype) else None]

    def pushforward(self, node, tangents):
        t = tangents[0]
        return [None if t is None or not is_inexact(t.dtype) else self(t)]


class Shape(Op):
    """The shape of ``x`` as an int64 vector."""

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        return Apply(self, [x], [TensorType("int64", (x.ndim,))])

    def perform(self, node, inputs):
        return [np.asarray(inputs[0].shape, dtype=np.int64).reshape(-1)]

    # an integer output that reads no values: no derivative
    def pullback(self, node, cotangents):
        return [None]

    def pushforward(self, node, tangents):
        return [None]


def specify_shape(x: Any, shape: Sequence[int | None]) -> Variable:
    """``x`` with its shape asserted (PyTensor's SpecifyShape); ``None`` leaves a dim free."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return SpecifyShape(tuple(None if d is None else as_int(d, "specify_shape", "a dim") for d in shape))(x)


def shape_of(x: Any) -> Variable:
    """``x.shape`` as a graph value (an int64 vector; numpy.shape / PyTensor's shape)."""
    return Shape()(x)


# --- pad -------------------------------------------------------------------------------------
_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "linear_ramp", "maximum", "minimum",
              "mean", "median")
_STAT_MODES = ("maximum", "minimum", "mean", "median")


def _pad_pairs(v: Any, ndim: int, what: str) -> list[tuple[Any, Any]]:
    """(before, after) per axis from a scalar, one pair or one pair per axis (np.pad's
    broadcasting of its per-axis arguments)."""
    try:
        pairs = np.broadcast_to(np.asarray(v, dtype=object), (ndim, 2))
    except ValueError:
        raise ValueError(f"pad: {what} {v!r} does not fit an input of rank {ndim}") from None
    return [(b, a) for b, a in pairs.tolist()]


def _along(axis: int, ndim: int, sl: Any) -> tuple:
    return (slice(None),) * axis + (sl,) + (slice(None),) * (ndim - axis - 1)


def _pad_constant(x: Variable, widths: Sequence[tuple[int, int]], values: Any) -> Variable:
    """Constant padding, axis after axis as NumPy fills it (a later axis' values cover the
    corners): one Pad per axis, or per side when the two sides' values differ."""
    if isinstance(values, Variable):
        if values.ndim == 0:
            return Pad(widths)(x, as_variable(values, x.dtype))
        try:
            table = broadcast_to(astype(values, x.dtype), (x.ndim, 2))
        except ValueError:
            raise ValueError(f"pad: constant_values {values.type} does not fit an input of rank {x.ndim}") from None
        side = lambda a, k: getitem(table, (a, k))
        same = lambda a: False
    else:
        if np.ndim(values) == 0:
            return Pad(widths)(x, Constant(np.asarray(values).astype(x.dtype)))
        pairs = [tuple(np.asarray(v).astype(x.dtype) for v in p)
                 for p in _pad_pairs(values, x.ndim, "constant_values")]
        if len({v.tobytes() for p in pairs for v in p}) == 1:
            return Pad(widths)(x, Constant(pairs[0][0]))
        side = lambda a, k: Constant(pairs[a][k])
        same = lambda a: pairs[a][0].tobytes() == pairs[a][1].tobytes()
    zero = [(0, 0)] * x.ndim
    for a, (b, f) in enumerate(widths):
        if b == f == 0:
            continue
        if same(a) or not b or not f:
            w = list(zero)
            w[a] = (b, f)
            x = Pad(w)(x, side(a, 0 if b else 1))
            continue
        for k, pair in ((0, (b, 0)), (1, (0, f))):
            w = list(zero)
            w[a] = pair
            x = Pad(w)(x, side(a, k))
    return x


def _linear_ramps(x: Variable, axis: int, n: int, widths: tuple[int, int], ends: tuple[Any, Any]) -> Variable:
    """``x`` extended along ``axis`` by numpy.pad's linear ramps: ``np.linspace(end, edge,
    width, endpoint=False)`` from each end value to the edge, floored for integer dtypes."""
    parts = []
    for k, (w, end) in enumerate(zip(widths, ends)):
        if not w:
            parts.append(None)
            continue
        end = end.item() if isinstance(end, np.generic) else end
        dt = result_type(x, end, 1.0)
        edge = astype(getitem(x, _along(axis, x.ndim, slice(0, 1) if k == 0 else slice(n - 1, n))), dt)
        start = Constant(np.asarray(end).astype(dt))
        steps = np.arange(w, dtype=dt).reshape([w if d == axis else 1 for d in range(x.ndim)])
        ramp = add(multiply(Constant(steps), divide(subtract(edge, start), Constant(np.asarray(w, dt)))), start)
        if is_integer(x.dtype):
            ramp = floor(ramp)
        ramp = astype(ramp, x.dtype)
        if k == 1:
            ramp = getitem(ramp, _along(axis, x.ndim, slice(None, None, -1)))
        parts.append(ramp)
    return concatenate([p for p in (parts[0], x, parts[1]) if p is not None], axis)


def _median(chunk: Variable, axis: int) -> Variable:
    """numpy.median of ``chunk`` along ``axis`` (keepdims): the middle of the sorted values,
    the mean of the two middle ones for an even count, NaN where a NaN is present."""
    m = chunk.shape[axis]
    srt = sort(chunk, axis=axis)
    mid = getitem(srt, _along(axis, chunk.ndim, slice((m - 1) // 2, m // 2 + 1)))
    med = mean(mid, axis=axis, keepdims=True)
    if is_float(chunk.dtype) or is_complex(chunk.dtype):
        med = where(any_(isnan(chunk), axis=axis, keepdims=True), Constant(np.asarray(np.nan, med.dtype)), med)
    return med


def _stat_pads(x: Variable, axis: int, n: int, widths: tuple[int, int], lengths: tuple[Any, Any],
               mode: str) -> Variable:
    """``x`` extended along ``axis`` by a statistic of the ``lengths`` first / last elements
    (all when None), rounded half to even for integer dtypes, as numpy.pad."""
    stat = {"maximum": amax, "minimum": amin, "mean": mean,
            "median": lambda c, axis, keepdims: _median(c, axis)}[mode]
    parts = []
    for k, (w, length) in enumerate(zip(widths, lengths)):
        if not w:
            parts.append(None)
            continue
        length = n if length is None else min(int(length), n)
        if length == 0:
            raise ValueError(f"pad: stat_length of 0 yields no value for padding (axis {axis}, mode {mode!r})")
        chunk = getitem(x, _along(axis, x.ndim, slice(0, length) if k == 0 else slice(n - length, n)))
        v = stat(chunk, axis=axis, keepdims=True)
        if is_integer(x.dtype) and not is_integer(v.dtype):
            v = round_(v)
        shape = list(x.shape)
        shape[axis] = w
        parts.append(broadcast_to(astype(v, x.dtype), shape))
    return concatenate([p for p in (parts[0], x, parts[1]) if p is not None], axis)


def pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: Any = 0, end_values: Any = 0,
        stat_length: Any = None) -> Variable:
    """numpy.pad in the modes constant, edge, reflect, symmetric, wrap, linear_ramp,
    maximum, minimum, mean and median.

    ``pad_width``, ``constant_values``, ``end_values`` and ``stat_length`` broadcast as
    in NumPy: a scalar, one (before, after) pair, or one pair per axis. Axes are padded
    in order, each over the result of the previous ones, so corners hold the values of
    the last axis, as NumPy does. ``constant_values`` may be a graph value (0-d, or
    broadcastable to (ndim, 2)); a different value per axis or side is one
    ``stablehlo.pad`` per axis-side. edge/reflect/symmetric/wrap gather the elements
    NumPy picks; linear_ramp and the statistics modes (over the first / last
    ``stat_length`` elements of each axis, all when None; integers rounded half to
    even) are computed from slices and concatenated. All modes but constant need the
    padded axes' sizes known.
    """
    x = as_variable(x)
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be one of {_PAD_MODES}, got {mode!r}")
    try:
        widths = np.broadcast_to(np.asarray(pad_width), (x.ndim, 2)) if x.ndim else np.zeros((0, 2), np.int64)
    except ValueError:
        raise ValueError(f"pad: pad_width {pad_width!r} does not fit an input of rank {x.ndim}") from None
    if widths.dtype.kind not in "iu":
        raise TypeError(f"pad: pad_width must be ints, got {pad_width!r}")
    widths = tuple((int(b), int(a)) for b, a in widths)
    if any(b < 0 or a < 0 for b, a in widths):
        raise ValueError(f"pad: pad widths must be non-negative, got {widths}")
    if mode == "constant":
        return _pad_constant(x, widths, constant_values)
    if mode == "linear_ramp":
        if isinstance(end_values, Variable):
            raise NotImplementedError("pad: end_values must be static numbers")
        ends = _pad_pairs(end_values, x.ndim, "end_values")
    if mode in _STAT_MODES:
        if isinstance(stat_length, Variable):
            raise NotImplementedError("pad: stat_length must be static ints")
        lengths = _pad_pairs(stat_length, x.ndim, "stat_length")
        for pair in lengths:
            for v in pair:
                if v is not None and (as_int(v, "pad", "stat_length") < 0):
                    raise ValueError(f"pad: stat_length must be non-negative, got {stat_length!r}")
    for axis, (b, a) in enumerate(widths):
        if b == a == 0:
            continue
        n = static_shape(x, "pad", [axis])[axis]
        if n == 0:
            raise ValueError(f"pad: can't extend the empty axis {axis} in mode {mode!r}")
        if mode == "linear_ramp":
            x = _linear_ramps(x, axis, n, (b, a), ends[axis])
        elif mode in _STAT_MODES:
            x = _stat_pads(x, axis, n, (b, a), lengths[axis], mode)
        else:
            x = take(x, np.pad(np.arange(n, dtype=np.int64), (b, a), mode=mode), axis=axis)
    return x
