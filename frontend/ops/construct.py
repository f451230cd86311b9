"""More shape manipulation and construction, with NumPy semantics: split,
tile, repeat, pad, flip, roll, diag/diagonal, tri/tril/triu, fill_diagonal,
block_diag, kron, linspace, meshgrid, and the shape as a graph value.

Three Ops are new here: ``Pad`` (constant padding with one value, ``stablehlo.pad``),
``SpecifyShape`` (a checked shape assertion that refines unknown dims) and
``Shape`` (``x``'s shape as an int64 vector). The other builders compose
existing ops (slices, gathers and scatters from indexing, reshapes and
broadcasts, elementwise ops) and need the sizes of the dims they rearrange to
be known; they raise ``ValueError`` naming the dim otherwise.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from ..graph import Apply, Constant, Op, Variable
from ..types import TensorType, as_dtype
from .basic import as_variable, normalize_axes, normalize_axis, result_type

__all__ = [
    "Pad", "SpecifyShape", "Shape",
    "split", "array_split", "tile", "repeat", "pad", "flip", "roll", "diag", "diagonal", "tri", "tril",
    "triu", "fill_diagonal", "block_diag", "kron", "linspace", "meshgrid", "specify_shape", "shape_of",
    "size",
]


def _static_shape(x: Variable, op: str, axes: Sequence[int] | None = None) -> tuple[int, ...]:
    """``x``'s dims (those of ``axes``, or all), which must be known."""
    for a in range(x.ndim) if axes is None else axes:
        if x.shape[a] is None:
            raise ValueError(f"{op}: axis {a} of the input must have a known size, got shape {tuple(x.shape)}")
    return tuple(x.shape)


def _int(v: Any, op: str, what: str) -> int:
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {what} must be an int, got {v!r}")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{op}: {what} must be an int, got {v!r}") from None


def _ints(v: Any, op: str, what: str) -> tuple[int, ...]:
    if isinstance(v, (list, tuple, np.ndarray)):
        return tuple(_int(e, op, what) for e in np.asarray(v).reshape(-1).tolist())
    return (_int(v, op, what),)


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


class Shape(Op):
    """The shape of ``x`` as an int64 vector."""

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        return Apply(self, [x], [TensorType("int64", (x.ndim,))])

    def perform(self, node, inputs):
        return [np.asarray(inputs[0].shape, dtype=np.int64).reshape(-1)]


def specify_shape(x: Any, shape: Sequence[int | None]) -> Variable:
    """``x`` with its shape asserted (PyTensor's SpecifyShape); ``None`` leaves a dim free."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return SpecifyShape(tuple(None if d is None else _int(d, "specify_shape", "a dim") for d in shape))(x)


def shape_of(x: Any) -> Variable:
    """``x.shape`` as a graph value (an int64 vector; numpy.shape / PyTensor's shape)."""
    return Shape()(x)


def size(x: Any, axis: int | None = None) -> Variable:
    """numpy.size as a graph value (0-d int64): the number of elements, or the size of ``axis``."""
    from .reduction import prod
    s = shape_of(x)
    if axis is None:
        return prod(s)
    return s[normalize_axis(axis, as_variable(x).ndim, "size")]


# --- split -----------------------------------------------------------------------------
def _split(x: Any, indices_or_sections: Any, axis: int, op: str, even: bool) -> list[Variable]:
    from .indexing import getitem
    x = as_variable(x)
    axis = normalize_axis(axis, x.ndim, op)
    n = _static_shape(x, op, [axis])[axis]
    if isinstance(indices_or_sections, (list, tuple, np.ndarray)):
        bounds = [0, *_ints(indices_or_sections, op, "split indices"), n]
    else:
        sections = _int(indices_or_sections, op, "the number of sections")
        if sections <= 0:
            raise ValueError(f"{op}: the number of sections must be larger than 0, got {sections}")
        if even and n % sections:
            raise ValueError(f"{op}: array split does not result in an equal division "
                             f"({n} elements into {sections} sections)")
        size_, extra = divmod(n, sections)
        sizes = [size_ + 1] * extra + [size_] * (sections - extra)
        bounds = [0, *np.cumsum(sizes).tolist()]
    lead = (slice(None),) * axis
    return [getitem(x, lead + (slice(lo, hi),)) for lo, hi in zip(bounds[:-1], bounds[1:])]


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Variable]:
    """numpy.split: equal sections (an int that divides the axis) or split points."""
    return _split(x, indices_or_sections, axis, "split", even=True)


def array_split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Variable]:
    """numpy.array_split: as ``split``, sections may differ by one (the first ones larger)."""
    return _split(x, indices_or_sections, axis, "array_split", even=False)


# --- tile, repeat, kron ----------------------------------------------------------------------
def _interleave(x: Variable, reps: Sequence[int], op: str, after: bool) -> Variable:
    """``x`` (of rank len(reps)) broadcast to (r0, s0, r1, s1, ...) (``after``: (s0, r0, ...))
    and merged into (r0*s0, r1*s1, ...)."""
    from .shape import broadcast_to, reshape
    shape = _static_shape(x, op)
    pairs = [(s, r) if after else (r, s) for s, r in zip(shape, reps)]
    spread = [d for s, r in zip(shape, reps) for d in ((s, 1) if after else (1, s))]
    y = broadcast_to(reshape(x, spread), [d for p in pairs for d in p])
    return reshape(y, [s * r for s, r in zip(shape, reps)])


def tile(x: Any, reps: Any) -> Variable:
    """numpy.tile: ``x`` repeated ``reps`` times along each dim (ranks aligned on the right)."""
    from .shape import reshape
    x = as_variable(x)
    reps = _ints(reps, "tile", "reps")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: reps must be non-negative, got {reps}")
    ndim = max(x.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    if x.ndim < ndim:
        x = reshape(x, (1,) * (ndim - x.ndim) + _static_shape(x, "tile"))
    return _interleave(x, reps, "tile", after=False)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Variable:
    """numpy.repeat with static ``repeats``: an int, or one count per element along ``axis``
    (``None``: of the flattened ``x``). Graph-valued ``repeats`` run on the host."""
    if isinstance(repeats, Variable):
        from .dynamic import dynamic_repeat
        return dynamic_repeat(x, repeats, axis)
    from .indexing import take
    from .shape import reshape
    x = as_variable(x)
    if axis is None:
        x = reshape(x, -1)
        axis = 0
    axis = normalize_axis(axis, x.ndim, "repeat")
    counts = _ints(repeats, "repeat", "repeats")
    if any(c < 0 for c in counts):
        raise ValueError(f"repeat: repeats must be non-negative, got {counts}")
    n = _static_shape(x, "repeat", [axis])[axis]
    if isinstance(repeats, (list, tuple, np.ndarray)) and len(counts) != 1:
        if len(counts) != n:
            raise ValueError(f"repeat: {len(counts)} repeats for an axis of size {n}")
        return take(x, np.repeat(np.arange(n, dtype=np.int64), counts), axis=axis)
    reps = [1] * x.ndim
    reps[axis] = counts[0]
    return _interleave(x, reps, "repeat", after=True)


def kron(a: Any, b: Any) -> Variable:
    """numpy.kron: the Kronecker product (ranks aligned on the right)."""
    from .elemwise import multiply
    from .shape import reshape
    a, b = as_variable(a), as_variable(b)
    ndim = max(a.ndim, b.ndim)
    sa = (1,) * (ndim - a.ndim) + _static_shape(a, "kron")
    sb = (1,) * (ndim - b.ndim) + _static_shape(b, "kron")
    prod = multiply(reshape(a, [d for s in sa for d in (s, 1)]), reshape(b, [d for s in sb for d in (1, s)]))
    return reshape(prod, [x * y for x, y in zip(sa, sb)])


# --- pad, flip, roll -------------------------------------------------------------------------
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
    from .elemwise import astype
    from .indexing import getitem
    from .shape import broadcast_to
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
    from .elemwise import add, astype, divide, floor, multiply, subtract
    from .indexing import getitem
    from .shape import concatenate
    from ..types import is_integer
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
    from .elemwise import isnan, where
    from .indexing import getitem
    from .reduction import any as any_
    from .reduction import mean
    from .sort import sort
    from ..types import is_complex, is_float
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
    from .elemwise import astype, round as round_
    from .indexing import getitem
    from .reduction import amax, amin, mean
    from .shape import broadcast_to, concatenate
    from ..types import is_integer
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
    from .indexing import take
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
                if v is not None and (_int(v, "pad", "stat_length") < 0):
                    raise ValueError(f"pad: stat_length must be non-negative, got {stat_length!r}")
    for axis, (b, a) in enumerate(widths):
        if b == a == 0:
            continue
        n = _static_shape(x, "pad", [axis])[axis]
        if n == 0:
            raise ValueError(f"pad: can't extend the empty axis {axis} in mode {mode!r}")
        if mode == "linear_ramp":
            x = _linear_ramps(x, axis, n, (b, a), ends[axis])
        elif mode in _STAT_MODES:
            x = _stat_pads(x, axis, n, (b, a), lengths[axis], mode)
        else:
            x = take(x, np.pad(np.arange(n, dtype=np.int64), (b, a), mode=mode), axis=axis)
    return x


def flip(x: Any, axis: int | Sequence[int] | None = None) -> Variable:
    """numpy.flip: ``x`` reversed along ``axis`` (``None``: every axis)."""
    from .indexing import getitem
    x = as_variable(x)
    axes = normalize_axes(axis, x.ndim, "flip")
    return getitem(x, tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(x.ndim)))


def roll(x: Any, shift: Any, axis: int | Sequence[int] | None = None) -> Variable:
    """numpy.roll with static shifts: elements shifted along ``axis`` (``None``: of the flattened
    ``x``) and wrapped around."""
    from .indexing import getitem
    from .shape import concatenate, reshape
    x = as_variable(x)
    if axis is None:
        return reshape(roll(reshape(x, -1), shift, 0), _static_shape(x, "roll"))
    shifts = _ints(shift, "roll", "shift")
    axes = [normalize_axis(a, x.ndim, "roll") for a in _ints(axis, "roll", "axis")]
    try:
        pairs = np.broadcast(np.asarray(shifts), np.asarray(axes))
    except ValueError:
        raise ValueError(f"roll: 'shift' and 'axis' must broadcast, got {shifts} and {tuple(axes)}") from None
    total: dict[int, int] = {}
    for s, a in pairs:
        total[int(a)] = total.get(int(a), 0) + int(s)
    for a, s in total.items():
        n = _static_shape(x, "roll", [a])[a]
        s = s % n if n else 0
        if s:
            lead = (slice(None),) * a
            tail, head = getitem(x, lead + (slice(n - s, None),)), getitem(x, lead + (slice(0, n - s),))
            x = concatenate([tail, head], a)
    return x


# --- diagonals and triangles ---------------------------------------------------------------
def _diag_positions(n1: int, n2: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    length = max(0, min(n1 - max(-offset, 0), n2 - max(offset, 0)))
    i = np.arange(length, dtype=np.int64)
    return i + max(-offset, 0), i + max(offset, 0)


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """numpy.diagonal: the diagonal at ``offset`` of the (``axis1``, ``axis2``) planes, as the
    last dim of the result."""
    from .indexing import getitem
    from .shape import transpose
    x = as_variable(x)
    if x.ndim < 2:
        raise ValueError(f"diagonal: the input must have at least 2 dims, got {x.ndim}")
    a1, a2 = normalize_axis(axis1, x.ndim, "diagonal"), normalize_axis(axis2, x.ndim, "diagonal")
    if a1 == a2:
        raise ValueError("diagonal: axis1 and axis2 cannot be the same")
    offset = _int(offset, "diagonal", "offset")
    shape = _static_shape(x, "diagonal", [a1, a2])
    rest = [a for a in range(x.ndim) if a not in (a1, a2)]
    rows, cols = _diag_positions(shape[a1], shape[a2], offset)
    return getitem(transpose(x, rest + [a1, a2]), (Ellipsis, rows, cols))


def diag(v: Any, k: int = 0) -> Variable:
    """numpy.diag: the ``k``-th diagonal of a 2-d ``v``, or a 2-d array with the 1-d ``v`` on
    its ``k``-th diagonal."""
    from .indexing import at
    from .shape import zeros
    v = as_variable(v)
    k = _int(k, "diag", "k")
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError(f"diag: the input must be 1-d or 2-d, got {v.ndim} dims")
    n = _static_shape(v, "diag")[0] + abs(k)
    rows, cols = _diag_positions(n, n, k)
    return at(zeros((n, n), v.dtype))[rows, cols].set(v)


def fill_diagonal(x: Any, val: Any, offset: int = 0) -> Variable:
    """Functional numpy.fill_diagonal (``wrap=False``), with PyTensor's ``offset`` for 2-d
    inputs: a copy of ``x`` with ``val`` (a scalar or one value per diagonal element) on its
    diagonal. Inputs of more dims need equal dims and no offset."""
    from .indexing import at
    x = as_variable(x)
    offset = _int(offset, "fill_diagonal", "offset")
    if x.ndim < 2:
        raise ValueError(f"fill_diagonal: the input must have at least 2 dims, got {x.ndim}")
    shape = _static_shape(x, "fill_diagonal")
    if x.ndim == 2:
        idx = _diag_positions(shape[0], shape[1], offset)
    else:
        if len(set(shape)) != 1 or offset:
            raise ValueError(f"fill_diagonal: an input of more than 2 dims needs equal dims and offset 0, "
                             f"got shape {shape}")
        idx = (np.arange(shape[0], dtype=np.int64),) * x.ndim
    return at(x)[idx].set(val)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = "float64") -> Variable:
    """numpy.tri: ones at and below the ``k``-th diagonal of an (N, M) array (graph-valued
    sizes run on the host)."""
    if any(isinstance(b, Variable) for b in (N, M, k)):
        from .dynamic import dynamic_tri
        return dynamic_tri(N, M, k, dtype)
    N = _int(N, "tri", "N")
    M = N if M is None else _int(M, "tri", "M")
    return Constant(np.tri(N, M, _int(k, "tri", "k"), dtype=as_dtype(dtype)))


def _triangle(x: Any, k: int, op: str, lower: bool) -> Variable:
    from .elemwise import where
    x = as_variable(x)
    if x.ndim < 2:
        raise ValueError(f"{op}: the input must have at least 2 dims, got {x.ndim}")
    n, m = _static_shape(x, op, [x.ndim - 2, x.ndim - 1])[-2:]
    k = _int(k, op, "k")
    mask = np.tri(n, m, k, dtype=bool) if lower else ~np.tri(n, m, k - 1, dtype=bool)
    return where(Constant(mask), x, Constant(np.zeros((), x.dtype)))


def tril(x: Any, k: int = 0) -> Variable:
    """numpy.tril: ``x`` with the elements above the ``k``-th diagonal of its last two dims zeroed."""
    return _triangle(x, k, "tril", lower=True)


def triu(x: Any, k: int = 0) -> Variable:
    """numpy.triu: ``x`` with the elements below the ``k``-th diagonal of its last two dims zeroed."""
    return _triangle(x, k, "triu", lower=False)


def block_diag(*arrs: Any) -> Variable:
    """scipy.linalg.block_diag: the inputs (0-d and 1-d ones as rows) along the diagonal of a
    2-d array, zeros elsewhere; the dtype is the inputs' result type."""
    from .shape import concatenate, reshape, zeros
    if not arrs:
        return zeros((1, 0), "float64")
    dt = result_type(*arrs)
    blocks = []
    for i, a in enumerate(arrs):
        a = as_variable(a, dt)
        if a.ndim > 2:
            raise ValueError(f"block_diag: input {i} has more than 2 dims ({a.ndim})")
        blocks.append(reshape(a, (1, -1)) if a.ndim < 2 else a)
    shapes = [_static_shape(b, "block_diag") for b in blocks]
    width = sum(s[1] for s in shapes)
    rows, left = [], 0
    for b, (_, c) in zip(blocks, shapes):
        rows.append(pad(b, ((0, 0), (left, width - left - c))))
        left += c
    return concatenate(rows, 0)


# --- linspace, meshgrid ----------------------------------------------------------------------
def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None) -> Variable:
    """numpy.linspace with a static ``num``: Python numbers give a constant; 0-d graph values
    compute ``start + arange(num) * step`` (and end exactly at ``stop`` when ``endpoint``)."""
    from .elemwise import add, astype, divide, multiply, subtract
    from .indexing import at
    if isinstance(num, Variable):
        from .dynamic import dynamic_linspace
        return dynamic_linspace(start, stop, num, endpoint, dtype)
    num = _int(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative, got {num}")
    if not isinstance(start, Variable) and not isinstance(stop, Variable):
        return Constant(np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype))
    start, stop = as_variable(start), as_variable(stop)
    if start.ndim or stop.ndim:
        raise NotImplementedError("linspace: graph-valued start and stop must be 0-d")
    dt = result_type(start, stop, 1.0)
    start, stop = as_variable(start, dt), as_variable(stop, dt)
    div = (num - 1) if endpoint else num
    step = divide(subtract(stop, start), div) if div > 0 else subtract(stop, start)
    y = add(multiply(Constant(np.arange(num).astype(dt)), step), start)
    if endpoint and num > 1:
        y = at(y)[-1].set(stop)
    return y if dtype is None else astype(y, dtype)


def meshgrid(*xs: Any, indexing: str = "xy", sparse: bool = False) -> list[Variable]:
    """numpy.meshgrid of 1-d inputs (others are flattened); ``indexing`` 'xy' (Cartesian: the
    first two dims swapped) or 'ij' (matrix)."""
    from .shape import broadcast_to, reshape
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [reshape(as_variable(x), -1) for x in xs]
    sizes = [_static_shape(x, "meshgrid")[0] for x in xs]
    ndim = len(xs)
    position = list(range(ndim))
    if indexing == "xy" and ndim > 1:
        position[0], position[1] = 1, 0
    full = [1] * ndim
    for i, n in enumerate(sizes):
        full[position[i]] = n
    out = []
    for i, x in enumerate(xs):
        shape = [1] * ndim
        shape[position[i]] = sizes[i]
        y = reshape(x, shape)
        out.append(y if sparse else broadcast_to(y, full))
    return out
