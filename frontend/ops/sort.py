"""Sorting and selection: ``sort``, ``argsort``, ``top_k`` and ``partition``.

Orders are NumPy's: NaNs sort after every number (descending: before), complex
numbers order lexicographically by real then imaginary part, -0.0 equals 0.0.
``descending=True`` keeps equal elements in their original order (as
``jax.numpy.argsort(descending=True)``). ``axis=None`` sorts the flattened
input. Indices are int64.

Derivatives: sorted values (and ``top_k`` values) are the input gathered through
the sorting permutation, so cotangents are scattered back through it; tied elements
take them in jax's order (a stable ascending sort, reversed for descending).
Indices have none.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import Apply, Constant, Op, UndefinedGradient, Variable
from ..types import DTYPES, TensorType, is_inexact
from .basic import as_variable, normalize_axis
from .shape import reshape

__all__ = ["sort", "argsort", "top_k", "partition", "argpartition"]

_INT64 = DTYPES["int64"]


def _describe(x: Variable) -> str:
    return f"input '{x.name}'" if x.name else f"input {x.type}"


def _check_axis(op: Op, axis: Any) -> int | None:
    if axis is None:
        return None
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{type(op).__name__}: axis must be None or an int, got {axis!r}")
    return int(axis)


def _stable_argsort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """NumPy's stable argsort; descending keeps equal elements in their original order."""
    if x.dtype == DTYPES["bfloat16"]:
        x = x.astype(np.float32)  # (NumPy's sort of ml_dtypes' bfloat16 misplaces NaNs)
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - rev, axis)


class Sort(Op):
    """Sorted copy of ``x`` along ``axis`` (None: of the flattened input), as numpy.sort.

    ``stable`` only matters to values that compare equal but differ (0.0 and -0.0,
    NaN payloads); the lowering then keeps their original order.
    """

    __props__ = ("axis", "descending", "stable")
    #: True for the index variant (argsort)
    indices: bool = False

    def __init__(self, axis: int | None = -1, descending: bool = False, stable: bool = True):
        self.axis = _check_axis(self, axis)
        self.descending = bool(descending)
        self.stable = bool(stable)

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        if self.axis is None:
            shape: tuple[int | None, ...] = (x.type.size,)
            op = self
        else:
            if x.ndim == 0:
                raise ValueError(f"{self}: cannot sort a 0-d {_describe(x)} along an axis; "
                                 f"use axis=None")
            axis = normalize_axis(self.axis, x.ndim, str(self))
            op = self if axis == self.axis else type(self)(axis, self.descending, self.stable)
            shape = x.shape
        dtype = _INT64 if self.indices else x.dtype
        return Apply(op, [x], [TensorType(dtype, shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        x = inputs[0]
        if self.axis is None:
            x = x.reshape(-1)
        axis = -1 if self.axis is None else self.axis
        idx = _stable_argsort(x, axis, self.descending)
        if self.indices:
            return [idx.astype(_INT64)]
        return [np.take_along_axis(x, idx, axis).astype(x.dtype)]

    # derivatives: the sorted values are x gathered through the sorting permutation (a
    # stable ascending sort, reversed for descending, as jax.numpy.sort: tied elements
    # take their cotangents in that order); the cotangent is scattered back through it.
    # Indices have no derivative.
    def permutation(self, x: Variable) -> Variable:
        """The int64 indices the sorted values (of ``x``, flattened for ``axis=None``) are
        gathered from along the sort axis."""
        perm = ArgSort(self.axis)(x)
        if self.descending:
            from .indexing import getitem
            axis = 0 if self.axis is None else self.axis
            perm = getitem(perm, (slice(None),) * axis + (slice(None, None, -1),))
        return perm

    def pullback(self, node, cotangents):
        (x,) = node.inputs
        if self.indices or not is_inexact(x.dtype):
            return [None]
        return [_scatter_back(cotangents[0], self.permutation(x), x, self.axis)]

    def pushforward(self, node, tangents):
        (t,), (x,) = tangents, node.inputs
        if self.indices or t is None or not is_inexact(t.dtype):
            return [None]
        return [_gather(t, self.permutation(x), self.axis)]


class ArgSort(Sort):
    """Indices that sort ``x`` along ``axis``, as numpy.argsort(kind='stable'): int64;
    equal elements keep their original order (also when descending)."""

    indices = True


class TopK(Op):
    """The ``k`` largest values of ``x`` along its last axis and their indices, largest
    first, as jax.lax.top_k: equal values come in index order, NaNs count as the
    largest; indices are int64."""

    __props__ = ("k",)

    def __init__(self, k: int):
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise TypeError(f"TopK: k must be a non-negative int, got {k!r}")
        self.k = int(k)

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        if x.ndim == 0:
            raise ValueError(f"{self}: {_describe(x)} must have at least one dimension")
        n = x.shape[-1]
        if n is not None and self.k > n:
            raise ValueError(f"{self}: k={self.k} is larger than the last dimension ({n}) "
                             f"of {_describe(x)}")
        shape = x.shape[:-1] + (self.k,)
        return Apply(self, [x], [TensorType(x.dtype, shape), TensorType(_INT64, shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        x = inputs[0]
        if self.k > x.shape[-1]:
            raise ValueError(f"{self}: k is larger than the last dimension {x.shape[-1]}")
        idx = _stable_argsort(x, -1, descending=True)[..., :self.k]
        return [np.take_along_axis(x, idx, -1).astype(x.dtype), idx.astype(_INT64)]

    # derivatives: the values are x gathered at the indices along the last axis
    def pullback(self, node, cotangents):
        (x,), (ct, _) = node.inputs, cotangents
        if ct is None or not is_inexact(x.dtype):
            return [None]
        return [_scatter_back(ct, node.outputs[1], x, -1)]

    def pushforward(self, node, tangents):
        (t,) = tangents
        if t is None or not is_inexact(t.dtype):
            return [None, None]
        return [_gather(t, node.outputs[1], -1), None]


class Partition(Sort):
    """numpy.partition: the element at each ``kth`` position is the one a sort puts
    there, smaller ones before it and larger ones after. The order inside the two
    sides is left open by NumPy; hlograph returns them sorted (a full sort
    satisfies the contract), so results are deterministic."""

    __props__ = ("axis", "kth")

    def __init__(self, kth: int | tuple[int, ...], axis: int | None = -1):
        super().__init__(axis)
        kths = (kth,) if isinstance(kth, (int, np.integer)) and not isinstance(kth, bool) else kth
        if not isinstance(kths, (tuple, list)) or not all(
                isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in kths):
            raise TypeError(f"{type(self).__name__}: kth must be an int or a tuple of ints, "
                            f"got {kth!r}")
        self.kth = tuple(int(k) for k in kths)

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        if self.axis is None:
            n = x.type.size
            op = self
        else:
            if x.ndim == 0:
                raise ValueError(f"{self}: cannot partition a 0-d {_describe(x)} along an axis; "
                                 f"use axis=None")
            axis = normalize_axis(self.axis, x.ndim, str(self))
            op = self if axis == self.axis else type(self)(self.kth, axis)
            n = x.shape[axis]
        if n is not None:
            for k in self.kth:
                if not -n <= k < n:
                    raise ValueError(f"{self}: kth {k} is out of bounds for an axis of "
                                     f"length {n} of {_describe(x)}")
        node = Sort.make_node(op, x)
        return node


class ArgPartition(Partition):
    """numpy.argpartition, with the same full-order choice as Partition (int64)."""

    indices = True


def _along_axis(perm: Variable, axis: int) -> tuple:
    """The index of ``take_along_axis(v, perm, axis)`` into ``v``: ``perm`` on ``axis``, the
    positions along every other dim (ranges, counted at run time for unknown dims)."""
    from .reduction import cumsum
    from .shape import ones_like
    idx: list = []
    for d, n in enumerate(perm.shape):
        if d == axis:
            idx.append(perm)
        elif n is not None:
            idx.append(Constant(np.arange(n, dtype=_INT64).reshape([n if e == d else 1 for e in range(perm.ndim)])))
        else:
            idx.append(cumsum(ones_like(perm), axis=d) - 1)
    return tuple(idx)


def _gather(t: Variable, perm: Variable, axis: int | None) -> Variable:
    """``t`` (flattened for ``axis=None``) gathered at ``perm`` along ``axis``."""
    from .indexing import getitem
    from .shape import reshape
    if axis is None:
        return getitem(reshape(t, -1), perm)
    return getitem(t, _along_axis(perm, axis % t.ndim))


def _scatter_back(ct: Variable, perm: Variable, x: Variable, axis: int | None) -> Variable | UndefinedGradient:
    """The cotangent of ``x`` from that of ``x`` (flattened for ``axis=None``) gathered at
    ``perm`` along ``axis``: ``ct`` written at ``perm`` into zeros."""
    from .indexing import at
    from .shape import Reshape, reshape, zeros_like
    if axis is not None:
        return at(zeros_like(x))[_along_axis(perm, axis % x.ndim)].set(ct)
    if x.shape.count(None) > 1:
        return UndefinedGradient(f"the cotangent cannot be reshaped back to {x.type}, which has more "
                                 f"than one unknown dim")
    out = at(zeros_like(reshape(x, -1)))[perm].set(ct)
    return Reshape(tuple(-1 if d is None else d for d in x.shape))(out)


_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _is_stable(name: str, kind: str | None, stable: bool | None) -> bool:
    if kind not in _KINDS:
        raise ValueError(f"{name}: kind must be one of {', '.join(map(repr, _KINDS))}, got {kind!r}")
    if stable is None:
        return True
    return bool(stable) or kind in ("stable", "mergesort")


def sort(x: Any, axis: int | None = -1, kind: str | None = None, *, stable: bool | None = None,
         descending: bool = False) -> Variable:
    """Sorted copy of ``x`` along ``axis`` (None: flattened), NaNs last, as numpy.sort.

    ``kind`` is accepted for NumPy compatibility; sorts are stable unless
    ``stable=False`` (which only frees the order of 0.0 and -0.0)."""
    return Sort(axis, descending, _is_stable("sort", kind, stable))(x)


def argsort(x: Any, axis: int | None = -1, kind: str | None = None, *, stable: bool | None = None,
            descending: bool = False) -> Variable:
    """int64 indices that sort ``x`` along ``axis`` (None: flattened), as numpy.argsort;
    always stable (``kind``/``stable`` are accepted for NumPy compatibility), also when
    ``descending``."""
    _is_stable("argsort", kind, stable)
    x = as_variable(x)
    if x.ndim == 0:  # numpy.argsort flattens a 0-d input whatever the axis: [0]
        axis = None
    return ArgSort(axis, descending, True)(x)


def top_k(x: Any, k: int) -> tuple[Variable, Variable]:
    """The ``k`` largest values along the last axis and their int64 indices, as jax.lax.top_k."""
    values, indices = TopK(k)(x)
    return values, indices


def partition(x: Any, kth: int | tuple[int, ...], axis: int | None = -1) -> Variable:
    """numpy.partition (the result is fully sorted along ``axis``, which satisfies it)."""
    return Partition(kth, axis)(x)


def argpartition(x: Any, kth: int | tuple[int, ...], axis: int | None = -1) -> Variable:
    """numpy.argpartition (the indices fully sort ``x`` along ``axis``, which satisfies it)."""
    x = as_variable(x)
    if x.ndim == 0 and axis is not None:  # as NumPy, a 0-d input is partitioned as [x]
        x = reshape(x, (1,))
    return ArgPartition(kth, axis)(x)
