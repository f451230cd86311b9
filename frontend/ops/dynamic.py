"""Host ops: NumPy functions whose output shape depends on the input values.

``unique``, ``nonzero``, boolean masks, set operations, ``bincount`` and the
constructors whose sizes are graph values (``dynamic_eye``, ``dynamic_arange``,
...) cannot run on a device whose shapes are fixed at compile time. Their Ops
set ``host_only`` and a ``host_reason``; the partitioner runs them on the host
through their Numba implementation (runtime/host/impls.py), and the device
segments after them specialize on the shapes seen at run time. Output dims
that depend on values are ``None`` here. A few of these Ops have static
output shapes (``mask_assign``, ``isin``) but no StableHLO lowering.

Every ``perform`` calls the NumPy function itself, so results (order of the
unique values, NaN handling, dtypes) are NumPy 2's.

Derivatives: a selection (``x[mask]``, ``compress``, ``extract``, ``repeat``,
``unique``'s first occurrences) scatters its cotangent back into zeros (with
``mask_assign`` or an update at indices), so gradients run on the host too;
``bincount`` weights gather it; ``arange`` and ``linspace`` are affine in their
float bounds. Indices, sizes, set operations and counts have none.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..graph import Apply, Constant, Op, UndefinedGradient, Variable
from ..types import DTYPES, TensorType, as_dtype, dtype_name, is_complex, is_float, is_inexact, is_integer
from .basic import as_variable, normalize_axis, result_type

#: ``unique``, ``setdiff1d``, ``intersect1d`` and ``isin`` are the host Ops' builders;
#: ``hlograph.<name>`` is the NumPy function with all its options (``numpy/sets.py``)
__all__ = [
    "nonzero", "flatnonzero", "argwhere", "boolean_mask", "mask_assign",
    "dynamic_eye", "dynamic_tri", "dynamic_arange", "dynamic_linspace", "dynamic_repeat",
    "compress", "extract", "bincount", "union1d",
]

_INT64 = DTYPES["int64"]
_BOOL = DTYPES["bool"]
_FLOAT64 = DTYPES["float64"]


# --- shared helpers --------------------------------------------------------------------
class HostOp(Op):
    """Base of the ops in this module: no device runs them."""

    host_only = True
    host_reason = "output shape depends on values"

    def __str__(self) -> str:
        parts = []
        for p in self.__props__:
            v = getattr(self, p)
            parts.append(f"{p}={dtype_name(v)}" if isinstance(v, np.dtype) else f"{p}={v!r}")
        name = type(self).__name__
        return name + "{" + ", ".join(parts) + "}" if parts else name

    __repr__ = __str__


def _size(shape: tuple[int | None, ...]) -> int | None:
    if None in shape:
        return None
    return int(np.prod(shape, dtype=np.int64))


def _count_dim(n_elements: int | None) -> int | None:
    """The length of a selection from ``n_elements`` values: known only when there are none."""
    return 0 if n_elements == 0 else None


def _int_scalar(op: str, name: str, v: Any) -> Variable:
    """A 0-d integer graph value: Variables are checked, Python ints become int64 Constants."""
    if isinstance(v, Variable):
        if v.ndim != 0 or not is_integer(v.dtype):
            raise TypeError(f"{op}: {name} must be a 0-d integer value, got {v.type}")
        return v
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {name} must be an integer, got {v!r}")
    try:
        return Constant(np.int64(operator.index(v)))
    except TypeError:
        raise TypeError(f"{op}: {name} must be an integer or a 0-d integer graph value, "
                        f"got {v!r}") from None


def _static_int(v: Variable) -> int | None:
    return int(v.data) if isinstance(v, Constant) else None


def _check_mask(op: str, x: Variable, mask: Variable) -> None:
    if mask.dtype != _BOOL:
        raise TypeError(f"{op}: mask must be bool, got {mask.type}")
    if mask.ndim > x.ndim:
        raise ValueError(f"{op}: mask of rank {mask.ndim} is longer than input 'x' of rank {x.ndim}")
    for axis, (m, d) in enumerate(zip(mask.shape, x.shape)):
        if m is not None and d is not None and m != d:
            raise ValueError(
                f"{op}: boolean index did not match input 'x' along axis {axis}; size of axis is "
                f"{d} but size of corresponding boolean axis is {m}"
            )


def _common_dtype(op: str, a: Variable, b: Variable) -> np.dtype:
    """NumPy's dtype for comparing or concatenating ``a`` and ``b``."""
    try:
        return as_dtype(np.result_type(a.dtype, b.dtype))
    except (TypeError, np.exceptions.DTypePromotionError):
        raise TypeError(f"{op}: no common dtype for {a.type} and {b.type}") from None


def _zero(x: Variable) -> Constant:
    return Constant(np.zeros((), dtype=x.dtype))


def _cast_to(g: Variable, v: Variable) -> Variable | None:
    """The cotangent ``g`` in ``v``'s dtype; None for an integer ``v``."""
    if not is_inexact(v.dtype):
        return None
    from .elemwise import astype
    return astype(g, v.dtype)


def _positions(x: Variable, axis: int | None) -> Variable:
    """0, 1, ..., n-1 (int64) for the n elements of ``x`` along ``axis`` (None: flattened)."""
    from .construct import shape_of
    from .shape import reshape
    n = _size(x.shape) if axis is None else x.shape[axis]
    if n is not None:
        return Constant(np.arange(n, dtype=_INT64))
    dim = shape_of(reshape(x, -1) if axis is None else x)[0 if axis is None else axis]
    return DynamicArange(_INT64)(Constant(np.int64(0)), dim, Constant(np.int64(1)))


def _scatter_flat(ct: Variable, idx: Variable, x: Variable) -> Variable | UndefinedGradient:
    """The cotangent of ``x`` whose flattened elements at ``idx`` were gathered: ``ct``
    added at ``idx`` into zeros, shaped as ``x``."""
    from .indexing import at
    from .shape import Reshape, reshape, zeros_like
    if x.shape.count(None) > 1:
        return UndefinedGradient(f"the cotangent cannot be reshaped back to {x.type}, which has more "
                                 f"than one unknown dim")
    flat = at(zeros_like(reshape(x, -1)))[idx].add(ct)
    return flat if x.ndim == 1 else Reshape(tuple(-1 if d is None else d for d in x.shape))(flat)


# --- unique ----------------------------------------------------------------------------
class Unique(HostOp):
    """``numpy.unique(x, return_index, return_inverse, return_counts)`` of the flattened input.

    Outputs: the sorted unique values, then (as requested) the index of each
    value's first occurrence, the inverse (``x``'s shape, as NumPy 2) and the
    counts, all int64. NaNs collapse into one value (``equal_nan=True``).
    """

    __props__ = ("return_index", "return_inverse", "return_counts")

    def __init__(self, return_index: bool = False, return_inverse: bool = False,
                 return_counts: bool = False):
        self.return_index = bool(return_index)
        self.return_inverse = bool(return_inverse)
        self.return_counts = bool(return_counts)

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        size = _size(x.shape)
        n = size if size is not None and size <= 1 else None
        outs = [TensorType(x.dtype, (n,))]
        if self.return_index:
            outs.append(TensorType(_INT64, (n,)))
        if self.return_inverse:
            outs.append(TensorType(_INT64, x.shape))
        if self.return_counts:
            outs.append(TensorType(_INT64, (n,)))
        return Apply(self, [x], outs)

    def perform(self, node, inputs):
        (x,) = inputs
        res = np.unique(x, return_index=self.return_index, return_inverse=self.return_inverse,
                        return_counts=self.return_counts)
        res = res if isinstance(res, tuple) else (res,)
        return [np.asarray(r, dtype=o.dtype) for r, o in zip(res, node.outputs)]

    # derivatives: each unique value is x at its first occurrence (as a stable sort-based
    # unique, jax.numpy.unique(size=...), differentiates), so the cotangent of the values
    # goes to the first occurrences; the indices, inverse and counts have none
    def first_index(self, node: Apply) -> Variable:
        if self.return_index:
            return node.outputs[1]
        return Unique(return_index=True)(node.inputs[0])[1]

    def pullback(self, node, cotangents):
        (x,), ct = node.inputs, cotangents[0]
        if ct is None or not is_inexact(x.dtype):
            return [None]
        return [_scatter_flat(ct, self.first_index(node), x)]

    def pushforward(self, node, tangents):
        (t,) = tangents
        if t is None or not is_inexact(t.dtype):
            return [None] * len(node.outputs)
        from .indexing import getitem
        from .shape import reshape
        return [getitem(reshape(t, -1), self.first_index(node))] + [None] * (len(node.outputs) - 1)


def unique(x: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None):
    """The sorted unique elements of ``x``, as numpy.unique (NumPy 2 semantics).

    Args:
        x: any shape; it is flattened.
        return_index, return_inverse, return_counts: also return the first
            indices, the inverse (shaped like ``x``) and the counts (int64).
        axis: None (or 0 / -1 for a 1-d ``x``, which is the same thing).

    Returns:
        A Variable, or a tuple when any ``return_*`` flag is set.

    Raises:
        NotImplementedError: ``axis`` along a dimension of an N-d input.
    """
    x = as_variable(x)
    if axis is not None:
        if x.ndim != 1:
            raise NotImplementedError(
                f"unique: axis={axis!r} is not supported for input 'x' of rank {x.ndim} "
                f"(only axis=None, which flattens)")
        normalize_axis(axis, 1, "unique")
    outs = Unique(return_index, return_inverse, return_counts)(x)
    return tuple(outs) if isinstance(outs, list) else outs


# --- nonzero family --------------------------------------------------------------------
class _IndexResult:
    """The derivative rules of a host op whose outputs are indices, booleans or values
    built from integer sizes alone: nothing flows from its inputs into a derivative."""

    def pullback(self, node, cotangents):
        return [None] * len(node.inputs)

    def pushforward(self, node, tangents):
        return [None] * len(node.outputs)


class Nonzero(_IndexResult, HostOp):
    """``numpy.nonzero(x)``: one int64 index vector per dimension of ``x`` (rank >= 1)."""

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        if x.ndim == 0:
            raise ValueError("Nonzero: input 'x' is 0-d; NumPy 2 does not allow nonzero of 0-d "
                             "arrays (use flatnonzero or argwhere)")
        n = _count_dim(_size(x.shape))
        return Apply(self, [x], [TensorType(_INT64, (n,)) for _ in range(x.ndim)])

    def perform(self, node, inputs):
        return [np.asarray(i, dtype=_INT64) for i in np.nonzero(inputs[0])]


class FlatNonzero(_IndexResult, HostOp):
    """``numpy.flatnonzero(x)``: int64 indices of the nonzero elements of the flattened ``x``."""

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        return Apply(self, [x], [TensorType(_INT64, (_count_dim(_size(x.shape)),))])

    def perform(self, node, inputs):
        return [np.asarray(np.flatnonzero(inputs[0]), dtype=_INT64)]


class ArgWhere(_IndexResult, HostOp):
    """``numpy.argwhere(x)``: an int64 ``(count, x.ndim)`` matrix of nonzero coordinates."""

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        return Apply(self, [x], [TensorType(_INT64, (_count_dim(_size(x.shape)), x.ndim))])

    def perform(self, node, inputs):
        return [np.asarray(np.argwhere(inputs[0]), dtype=_INT64)]


def nonzero(x: Any) -> tuple[Variable, ...]:
    """The indices of the nonzero elements, one int64 vector per axis, as numpy.nonzero.

    Raises:
        ValueError: ``x`` is 0-d (as in NumPy 2).
    """
    x = as_variable(x)
    if x.ndim == 0:
        raise ValueError("nonzero: calling nonzero on a 0-d input is not allowed (as in NumPy 2); "
                         "use flatnonzero or argwhere")
    outs = Nonzero()(x)
    return tuple(outs) if isinstance(outs, list) else (outs,)


def flatnonzero(x: Any) -> Variable:
    """The int64 indices of the nonzero elements of the flattened ``x``, as numpy.flatnonzero."""
    return FlatNonzero()(x)


def argwhere(x: Any) -> Variable:
    """The coordinates of the nonzero elements, ``(count, x.ndim)`` int64, as numpy.argwhere."""
    return ArgWhere()(x)


# --- boolean masks ---------------------------------------------------------------------
class BooleanMask(HostOp):
    """``x[mask]``: ``mask`` is bool with ``mask.shape == x.shape[:mask.ndim]``; the result
    is ``(count,) + x.shape[mask.ndim:]``."""

    def make_node(self, x: Any, mask: Any) -> Apply:
        x, mask = as_variable(x), as_variable(mask)
        _check_mask("BooleanMask", x, mask)
        n = _count_dim(_size(mask.shape))
        return Apply(self, [x, mask], [TensorType(x.dtype, (n,) + x.shape[mask.ndim:])])

    def perform(self, node, inputs):
        x, mask = inputs
        return [np.array(x[mask], dtype=x.dtype)]

    # derivatives: the cotangent written back into zeros through the mask
    def pullback(self, node, cotangents):
        (ct,), (x, mask) = cotangents, node.inputs
        if not is_inexact(x.dtype):
            return [None, None]
        from .shape import zeros_like
        return [MaskAssign()(zeros_like(x), mask, ct), None]

    def pushforward(self, node, tangents):
        t = tangents[0]
        return [None if t is None or not is_inexact(t.dtype) else self(t, node.inputs[1])]


class MaskAssign(HostOp):
    """``y = x.copy(); y[mask] = values``: ``values`` (of ``x``'s dtype) broadcasts to
    ``(count,) + x.shape[mask.ndim:]``. The output has ``x``'s type."""

    host_reason = "no StableHLO lowering (values are consumed in mask order)"

    def make_node(self, x: Any, mask: Any, values: Any) -> Apply:
        x, mask, values = as_variable(x), as_variable(mask), as_variable(values)
        _check_mask("MaskAssign", x, mask)
        if values.dtype != x.dtype:
            raise TypeError(f"MaskAssign: values must have the dtype of input 'x' ({x.type}), "
                            f"got {values.type} (the builder casts)")
        rest = x.shape[mask.ndim:]
        if values.ndim > len(rest) + 1:
            raise ValueError(f"MaskAssign: values of rank {values.ndim} do not fit the "
                             f"selected elements of shape (count,) + {rest}")
        for v, d in zip(values.shape[::-1], rest[::-1]):
            if v is not None and d is not None and v not in (1, d):
                raise ValueError(f"MaskAssign: values of shape {values.shape} do not broadcast to "
                                 f"the selected elements of shape (count,) + {rest}")
        return Apply(self, [x, mask, values], [x.type])

    def perform(self, node, inputs):
        x, mask, values = inputs
        y = np.array(x, copy=True)
        y[mask] = values
        return [y]

    # derivatives: x keeps the cotangent outside the mask, values get it inside the mask
    # (summed over where they were broadcast)
    def pullback(self, node, cotangents):
        (ct,), (x, mask, values) = cotangents, node.inputs
        if not is_inexact(x.dtype):
            return [None, None, None]
        from ..autodiff import sum_to
        return [self(ct, mask, _zero(x)), None, sum_to(BooleanMask()(ct, mask), values)]

    def pushforward(self, node, tangents):
        (tx, _, tv), (x, mask, values) = tangents, node.inputs
        if not is_inexact(x.dtype) or (tx is None and tv is None):
            return [None]
        from .shape import zeros_like
        return [self(zeros_like(x) if tx is None else tx, mask, _zero(x) if tv is None else tv)]


def boolean_mask(x: Any, mask: Any) -> Variable:
    """``x[mask]`` for a bool ``mask`` whose shape is a prefix of ``x``'s.

    Raises:
        TypeError: ``mask`` is not bool.
        ValueError: the mask's shape does not match the leading dims of ``x``.
    """
    return BooleanMask()(x, mask)


def mask_assign(x: Any, mask: Any, values: Any) -> Variable:
    """A copy of ``x`` with ``values`` written where ``mask`` is true (``y[mask] = values``).

    ``values`` is cast to ``x``'s dtype (as NumPy's assignment casts) and
    broadcast to the selected elements; the result has ``x``'s shape.
    """
    x = as_variable(x)
    return MaskAssign()(x, mask, as_variable(values, x.dtype))


# --- runtime-sized construction --------------------------------------------------------
class DynamicEye(_IndexResult, HostOp):
    """``numpy.eye(n, m, k, dtype)`` with ``n``, ``m``, ``k`` 0-d integer graph values."""

    __props__ = ("dtype",)

    def __init__(self, dtype: Any):
        self.dtype = as_dtype(dtype)

    def make_node(self, n: Any, m: Any, k: Any) -> Apply:
        name = type(self).__name__
        n, m, k = (_int_scalar(name, a, v) for a, v in (("n", n), ("m", m), ("k", k)))
        dims = (_static_int(n), _static_int(m))
        if any(d is not None and d < 0 for d in dims):
            raise ValueError(f"{name}: negative dimensions are not allowed, got {dims}")
        return Apply(self, [n, m, k], [TensorType(self.dtype, dims)])

    def perform(self, node, inputs):
        n, m, k = (int(v) for v in inputs)
        return [np.eye(n, m, k, dtype=self.dtype)]


class DynamicTri(DynamicEye):
    """``numpy.tri(n, m, k, dtype)``: ones at and below the ``k``-th diagonal."""

    def perform(self, node, inputs):
        n, m, k = (int(v) for v in inputs)
        return [np.tri(n, m, k, dtype=self.dtype)]


def dynamic_eye(n: Any, m: Any = None, k: Any = 0, dtype: Any = "float64") -> Variable:
    """numpy.eye whose sizes and diagonal may be 0-d integer graph values."""
    return DynamicEye(dtype)(n, n if m is None else m, k)


def dynamic_tri(n: Any, m: Any = None, k: Any = 0, dtype: Any = "float64") -> Variable:
    """numpy.tri whose sizes and diagonal may be 0-d integer graph values."""
    return DynamicTri(dtype)(n, n if m is None else m, k)


class DynamicArange(HostOp):
    """``numpy.arange(start, stop, step, dtype)`` with 0-d real graph bounds.

    NumPy's rules: the length is ``ceil((stop - start) / step)`` clipped at 0;
    element 0 is ``start`` and element 1 is ``start + step`` (computed in the
    bounds' types, then converted to ``dtype``); element ``i >= 2`` is
    ``x0 + i * (x1 - x0)`` computed in ``dtype``.
    """

    __props__ = ("dtype",)

    def __init__(self, dtype: Any):
        self.dtype = as_dtype(dtype)

    def make_node(self, start: Any, stop: Any, step: Any) -> Apply:
        name = type(self).__name__
        bounds = [as_variable(v) for v in (start, stop, step)]
        for label, v in zip(("start", "stop", "step"), bounds):
            if v.ndim != 0 or is_complex(v.dtype):
                raise TypeError(f"{name}: {label} must be a 0-d real value, got {v.type}")
        if is_complex(self.dtype):
            raise TypeError(f"{name}: complex results are not supported")
        n = None
        if all(isinstance(v, Constant) for v in bounds):
            n = len(self.perform(None, [v.data for v in bounds])[0])
        return Apply(self, bounds, [TensorType(self.dtype, (n,))])

    def perform(self, node, inputs):
        start, stop, step = (np.asarray(v)[()] for v in inputs)
        if step == 0:
            raise ValueError(f"{self}: step must not be zero")
        return [np.arange(start, stop, step, dtype=self.dtype)]

    # derivatives: element i is start + i * step; stop only sets the length (a piecewise
    # constant function: zero derivative)
    def positions(self, node: Apply) -> Variable:
        """0, 1, ..., len - 1 in the output dtype."""
        from .construct import shape_of
        length = shape_of(node.outputs[0])[0]
        return DynamicArange(self.dtype)(Constant(np.int64(0)), length, Constant(np.int64(1)))

    def pullback(self, node, cotangents):
        (ct,), (start, stop, step) = cotangents, node.inputs
        if not is_inexact(self.dtype):
            return [None, None, None]
        from . import elemwise as ew
        from .reduction import sum as total
        d_start = _cast_to(total(ct), start)
        d_step = _cast_to(total(ew.multiply(ct, self.positions(node))), step) if is_inexact(step.dtype) else None
        return [d_start, None, d_step]

    def pushforward(self, node, tangents):
        t_start, _, t_step = tangents
        if not is_inexact(self.dtype) or (t_start is None and t_step is None):
            return [None]
        from . import elemwise as ew
        from .shape import zeros_like
        out = zeros_like(node.outputs[0])
        if t_start is not None:
            out = ew.add(out, ew.astype(t_start, self.dtype))
        if t_step is not None:
            out = ew.add(out, ew.multiply(self.positions(node), ew.astype(t_step, self.dtype)))
        return [out]


def _arange_dtype(bounds: list[Variable]) -> np.dtype:
    """numpy.arange's default dtype: at least int64 / float64, promoted with each bound's dtype."""
    dt = _INT64
    for v in bounds:
        dt = np.promote_types(dt, v.dtype)
    return as_dtype(dt)


def dynamic_arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Variable:
    """numpy.arange whose bounds may be 0-d graph values.

    ``dynamic_arange(n)`` counts from 0. Without ``dtype`` the result dtype is
    numpy.arange's: the bounds' dtypes promoted with int64 (int32 bounds give
    int64, float32 bounds float64; Python ints int64, floats float64).
    """
    if stop is None:
        start, stop = 0, start
    bounds = [as_variable(v) for v in (start, stop, step)]
    dt = _arange_dtype(bounds) if dtype is None else as_dtype(dtype)
    return DynamicArange(dt)(*bounds)


class DynamicLinspace(HostOp):
    """``numpy.linspace(start, stop, num, endpoint, dtype)`` with a 0-d integer graph ``num``.

    ``start`` and ``stop`` are 0-d values converted to the inexact computation
    dtype ``cdtype`` (NumPy's: the bounds' dtype promoted with a float); the
    result is converted to ``dtype``, rounding down first for integer dtypes.
    """

    __props__ = ("endpoint", "dtype", "cdtype")

    def __init__(self, endpoint: bool, dtype: Any, cdtype: Any):
        self.endpoint = bool(endpoint)
        self.dtype = as_dtype(dtype)
        self.cdtype = as_dtype(cdtype)

    def make_node(self, start: Any, stop: Any, num: Any) -> Apply:
        name = type(self).__name__
        start, stop = as_variable(start), as_variable(stop)
        if start.ndim != 0 or stop.ndim != 0:
            raise ValueError(f"{name}: start and stop must be 0-d, got {start.type} and {stop.type}")
        if not (is_float(self.cdtype) or is_complex(self.cdtype)):
            raise TypeError(f"{name}: the computation dtype must be inexact, got {dtype_name(self.cdtype)}")
        if is_complex(self.cdtype) and not is_inexact(self.dtype):
            raise TypeError(f"{name}: complex values cannot be converted to {dtype_name(self.dtype)}")
        num = _int_scalar(name, "num", num)
        n = _static_int(num)
        if n is not None and n < 0:
            raise ValueError(f"{name}: number of samples, {n}, must be non-negative")
        return Apply(self, [start, stop, num], [TensorType(self.dtype, (n,))])

    def perform(self, node, inputs):
        start, stop, num = (np.asarray(v) for v in inputs)
        return [np.linspace(start.astype(self.cdtype)[()], stop.astype(self.cdtype)[()], int(num),
                            endpoint=self.endpoint, dtype=self.dtype)]

    # derivatives: element i is start * (1 - w_i) + stop * w_i for w = linspace(0, 1, num)
    # (the same endpoint); num sets the length
    def weights(self, node: Apply) -> Variable:
        real = np.zeros(0, self.cdtype).real.dtype
        zero, one = Constant(np.zeros((), real)), Constant(np.ones((), real))
        return DynamicLinspace(self.endpoint, real, real)(zero, one, node.inputs[2])

    def pullback(self, node, cotangents):
        (ct,), (start, stop, _) = cotangents, node.inputs
        if not is_inexact(self.dtype):
            return [None, None, None]
        from . import elemwise as ew
        from .reduction import sum as total
        w = self.weights(node)
        ct = ew.astype(ct, self.cdtype)
        d_start = _cast_to(total(ew.multiply(ct, ew.subtract(Constant(np.ones((), w.dtype)), w))), start)
        d_stop = _cast_to(total(ew.multiply(ct, w)), stop)
        return [d_start, d_stop, None]

    def pushforward(self, node, tangents):
        t_start, t_stop, _ = tangents
        if not is_inexact(self.dtype) or (t_start is None and t_stop is None):
            return [None]
        from . import elemwise as ew
        w = ew.astype(self.weights(node), self.cdtype)
        out = None
        if t_start is not None:
            out = ew.multiply(ew.astype(t_start, self.cdtype), ew.subtract(Constant(np.ones((), self.cdtype)), w))
        if t_stop is not None:
            term = ew.multiply(ew.astype(t_stop, self.cdtype), w)
            out = term if out is None else ew.add(out, term)
        return [ew.astype(out, self.dtype)]


def dynamic_linspace(start: Any, stop: Any, num: Any, endpoint: bool = True,
                     dtype: Any = None) -> Variable:
    """numpy.linspace for 0-d ``start`` / ``stop`` whose ``num`` may be a graph value.

    The computation dtype is NumPy's: ``start`` and ``stop`` promoted with a
    float (float64 for integers, float32 stays float32).
    """
    if isinstance(num, (float, np.floating)):
        raise TypeError(f"dynamic_linspace: num must be an integer, got {num!r}")
    cdt = result_type(start, stop, 1.0)
    out = cdt if dtype is None else as_dtype(dtype)
    return DynamicLinspace(endpoint, out, cdt)(start, stop, num)


# --- repeat, compress, extract ---------------------------------------------------------
def _int64_safe(dtype: np.dtype) -> bool:
    return bool(np.can_cast(dtype, _INT64, "safe"))


class DynamicRepeat(HostOp):
    """``numpy.repeat(x, repeats, axis)`` with ``repeats`` a 0-d or 1-d integer graph value
    (length 1 or the size of the axis; ``axis=None`` flattens ``x``)."""

    __props__ = ("axis",)

    def __init__(self, axis: int | None):
        self.axis = axis

    def make_node(self, x: Any, repeats: Any) -> Apply:
        name = str(self)
        x, repeats = as_variable(x), as_variable(repeats)
        if not _int64_safe(repeats.dtype):
            raise TypeError(f"{name}: repeats must be integers, got {repeats.type}")
        if repeats.ndim > 1:
            raise ValueError(f"{name}: repeats must be 0-d or 1-d, got {repeats.type}")
        if self.axis is None:
            axis_len = _size(x.shape)
        else:
            if not 0 <= self.axis < x.ndim:
                raise ValueError(f"{name}: axis is out of bounds for input 'x' of rank {x.ndim}")
            axis_len = x.shape[self.axis]
        r = repeats.shape[0] if repeats.ndim == 1 else 1
        if r is not None and axis_len is not None and r not in (1, axis_len):
            raise ValueError(f"{name}: {r} repeats do not broadcast to the {axis_len} "
                             f"elements along the axis")
        if self.axis is None:
            shape: tuple[int | None, ...] = (0 if axis_len == 0 else None,)
        else:
            shape = x.shape[:self.axis] + (0 if axis_len == 0 else None,) + x.shape[self.axis + 1:]
        return Apply(self, [x, repeats], [TensorType(x.dtype, shape)])

    def perform(self, node, inputs):
        x, repeats = inputs
        return [np.repeat(x, repeats.astype(_INT64), axis=self.axis)]

    # derivatives: each slice of x gets the sum of the cotangents of its repeats (a
    # scatter-add at the repeated positions 0, 1, ..., n-1)
    def pullback(self, node, cotangents):
        (ct,), (x, repeats) = cotangents, node.inputs
        if not is_inexact(x.dtype):
            return [None, None]
        if self.axis is None:
            return [_scatter_flat(ct, self(_positions(x, None), repeats), x), None]
        from .indexing import at
        from .shape import zeros_like
        at_axis = (slice(None),) * self.axis
        seg = DynamicRepeat(0)(_positions(x, self.axis), repeats)
        return [at(zeros_like(x))[at_axis + (seg,)].add(ct), None]

    def pushforward(self, node, tangents):
        t = tangents[0]
        return [None if t is None or not is_inexact(t.dtype) else self(t, node.inputs[1])]


def dynamic_repeat(x: Any, repeats: Any, axis: int | None = None) -> Variable:
    """numpy.repeat where ``repeats`` is an integer graph value (0-d or 1-d).

    Raises:
        TypeError: ``repeats`` is not an integer array.
        ValueError: a static length of ``repeats`` that is neither 1 nor the axis length.
    """
    x = as_variable(x)
    if axis is not None:
        axis = normalize_axis(axis, max(x.ndim, 1), "dynamic_repeat")
        if x.ndim == 0:
            axis = None  # a 0-d input repeats as a 1-d one
    return DynamicRepeat(axis)(x, repeats)


class Compress(HostOp):
    """``numpy.compress(condition, x, axis)``: the slices along ``axis`` (or the elements of
    the flattened ``x``) where the 1-d ``condition`` is nonzero. A shorter
    ``condition`` selects nothing past its end; a longer one may only be zero there."""

    __props__ = ("axis",)

    def __init__(self, axis: int | None):
        self.axis = axis

    def make_node(self, condition: Any, x: Any) -> Apply:
        condition, x = as_variable(condition), as_variable(x)
        if condition.ndim != 1:
            raise ValueError(f"{self}: condition must be a 1-d array, got {condition.type}")
        if self.axis is None:
            shape: tuple[int | None, ...] = (_count_dim(condition.shape[0]),)
        else:
            if not 0 <= self.axis < x.ndim:
                raise ValueError(f"{self}: axis is out of bounds for input 'x' of rank {x.ndim}")
            shape = x.shape[:self.axis] + (_count_dim(condition.shape[0]),) + x.shape[self.axis + 1:]
        return Apply(self, [condition, x], [TensorType(x.dtype, shape)])

    def perform(self, node, inputs):
        condition, x = inputs
        return [np.compress(condition, x, axis=self.axis)]

    # derivatives: the cotangent written back at the selected positions
    def pullback(self, node, cotangents):
        (ct,), (condition, x) = cotangents, node.inputs
        if not is_inexact(x.dtype):
            return [None, None]
        idx = FlatNonzero()(condition)
        if self.axis is None:
            return [None, _scatter_flat(ct, idx, x)]
        from .indexing import at
        from .shape import zeros_like
        return [None, at(zeros_like(x))[(slice(None),) * self.axis + (idx,)].add(ct)]

    def pushforward(self, node, tangents):
        t = tangents[1]
        return [None if t is None or not is_inexact(t.dtype) else self(node.inputs[0], t)]


def compress(condition: Any, x: Any, axis: int | None = None) -> Variable:
    """Selected slices of ``x`` along ``axis`` (flattened for None), as numpy.compress."""
    x = as_variable(x)
    if axis is not None:
        axis = normalize_axis(axis, max(x.ndim, 1), "compress")
        if x.ndim == 0:
            axis = None
    return Compress(axis)(condition, x)


class Extract(HostOp):
    """``numpy.extract(condition, x)``: the elements of the flattened ``x`` at the nonzero
    positions of the flattened ``condition``."""

    def make_node(self, condition: Any, x: Any) -> Apply:
        condition, x = as_variable(condition), as_variable(x)
        return Apply(self, [condition, x], [TensorType(x.dtype, (_count_dim(_size(condition.shape)),))])

    def perform(self, node, inputs):
        condition, x = inputs
        return [np.extract(condition, x)]

    def pullback(self, node, cotangents):
        (ct,), (condition, x) = cotangents, node.inputs
        if not is_inexact(x.dtype):
            return [None, None]
        return [None, _scatter_flat(ct, FlatNonzero()(condition), x)]

    def pushforward(self, node, tangents):
        t = tangents[1]
        return [None if t is None or not is_inexact(t.dtype) else self(node.inputs[0], t)]


def extract(condition: Any, x: Any) -> Variable:
    """The elements of ``x`` where ``condition`` is nonzero (both flattened), as numpy.extract."""
    return Extract()(condition, x)


# --- bincount --------------------------------------------------------------------------
class Bincount(HostOp):
    """``numpy.bincount(x, weights, minlength)``: ``x`` is 1-d, non-negative integers; the
    result has ``max(x.max() + 1, minlength)`` entries, int64 (float64 with weights).

    With weights the result is float64 even for an empty ``x``, where NumPy
    returns int64 zeros: a dtype must not depend on a size.
    """

    __props__ = ("minlength", "weighted")

    def __init__(self, minlength: int = 0, weighted: bool = False):
        self.minlength = int(minlength)
        self.weighted = bool(weighted)

    def make_node(self, x: Any, *weights: Any) -> Apply:
        x = as_variable(x)
        if x.ndim != 1:
            raise ValueError(f"{self}: input 'x' must be 1-d, got {x.type}")
        if not _int64_safe(x.dtype):
            raise TypeError(f"{self}: input 'x' must be non-negative integers, got {x.type}")
        if len(weights) != int(self.weighted):
            raise TypeError(f"{self}: takes {1 + int(self.weighted)} inputs, got {1 + len(weights)}")
        inputs = [x]
        out_dt = _INT64
        if self.weighted:
            w = as_variable(weights[0])
            if not np.can_cast(w.dtype, _FLOAT64, "safe"):
                raise TypeError(f"{self}: weights must convert safely to float64, got {w.type}")
            if w.ndim != 1 or (w.shape[0] is not None and x.shape[0] is not None
                               and w.shape[0] != x.shape[0]):
                raise ValueError(f"{self}: weights {w.type} must have the shape of input 'x' {x.type}")
            inputs.append(w)
            out_dt = _FLOAT64
        return Apply(self, inputs, [TensorType(out_dt, (None,))])

    def perform(self, node, inputs):
        x = inputs[0]
        w = inputs[1] if self.weighted else None
        return [np.bincount(x, weights=w, minlength=self.minlength).astype(node.outputs[0].dtype)]

    # derivatives: bin b sums the weights of the elements equal to b, so weight i gets the
    # cotangent of bin x[i] (a gather)
    def pullback(self, node, cotangents):
        (ct,) = cotangents
        if not self.weighted or not is_inexact(node.inputs[1].dtype):
            return [None] * len(node.inputs)
        from .indexing import getitem
        return [None, _cast_to(getitem(ct, node.inputs[0]), node.inputs[1])]

    def pushforward(self, node, tangents):
        t = tangents[1] if self.weighted else None
        return [None if t is None else self(node.inputs[0], t)]


def bincount(x: Any, weights: Any = None, minlength: int = 0) -> Variable:
    """Counts (or summed ``weights``) of each non-negative integer in ``x``, as numpy.bincount.

    Negative values in ``x`` raise ValueError when the graph runs.
    """
    if isinstance(minlength, Variable):
        raise TypeError("bincount: minlength must be a static int, got a graph value")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError(f"bincount: minlength must not be negative, got {minlength}")
    if weights is None:
        return Bincount(minlength, False)(x)
    return Bincount(minlength, True)(x, weights)


# --- set operations --------------------------------------------------------------------
class SetOp(HostOp):
    """Base of the set operations: two inputs of any shape (flattened), compared in
    NumPy's common dtype, NaNs never equal to anything."""

    def compare_dtype(self, node: Apply) -> np.dtype:
        a, b = node.inputs
        return as_dtype(np.result_type(a.dtype, b.dtype))

    def out_dtype(self, a: Variable, b: Variable) -> np.dtype:
        return _common_dtype(type(self).__name__, a, b)

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_variable(a), as_variable(b)
        return Apply(self, [a, b], [TensorType(self.out_dtype(a, b), (None,))])

    def pullback(self, node, cotangents):
        reason = UndefinedGradient(
            f"{type(self).__name__} returns sorted unique values chosen by comparing elements of both "
            f"inputs: which element each output comes from (and how many outputs there are) changes "
            f"as the values move, so it has no derivative")
        return [reason if is_inexact(v.dtype) else None for v in node.inputs]


class SetDiff1d(SetOp):
    """``numpy.setdiff1d(a, b)``: the sorted unique values of ``a`` not in ``b`` (``a``'s dtype)."""

    def out_dtype(self, a, b):
        _common_dtype("SetDiff1d", a, b)
        return a.dtype

    def perform(self, node, inputs):
        return [np.setdiff1d(*inputs)]


class Intersect1d(SetOp):
    """``numpy.intersect1d(a, b)``: the sorted unique values in both."""

    def perform(self, node, inputs):
        return [np.intersect1d(*inputs).astype(node.outputs[0].dtype, copy=False)]


class Union1d(SetOp):
    """``numpy.union1d(a, b)``: the sorted unique values in either."""

    def perform(self, node, inputs):
        return [np.union1d(*inputs).astype(node.outputs[0].dtype, copy=False)]


class IsIn(SetOp):
    """``numpy.isin(element, test_elements)``: a bool array shaped like ``element``."""

    pullback = _IndexResult.pullback
    pushforward = _IndexResult.pushforward

    host_reason = "no StableHLO lowering (set membership by sorting)"

    def make_node(self, element: Any, test_elements: Any) -> Apply:
        element, test_elements = as_variable(element), as_variable(test_elements)
        _common_dtype("IsIn", element, test_elements)
        return Apply(self, [element, test_elements], [TensorType(_BOOL, element.shape)])

    def perform(self, node, inputs):
        return [np.asarray(np.isin(*inputs), dtype=_BOOL)]


def setdiff1d(ar1: Any, ar2: Any) -> Variable:
    """The sorted unique values of ``ar1`` that are not in ``ar2``, as numpy.setdiff1d."""
    return SetDiff1d()(ar1, ar2)


def intersect1d(ar1: Any, ar2: Any) -> Variable:
    """The sorted unique values in both inputs, as numpy.intersect1d."""
    return Intersect1d()(ar1, ar2)


def union1d(ar1: Any, ar2: Any) -> Variable:
    """The sorted unique values in either input, as numpy.union1d."""
    return Union1d()(ar1, ar2)


def isin(element: Any, test_elements: Any) -> Variable:
    """For each element, whether it occurs in ``test_elements``, as numpy.isin."""
    return IsIn()(element, test_elements)
