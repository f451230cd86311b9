"""NumPy 2's set routines that compose host ops: the array-API ``unique_*``
functions (NaNs distinct, as ``equal_nan=False``), ``setxor1d``, and NumPy's
``unique``, ``intersect1d``, ``setdiff1d`` and ``isin`` with all their options,
built on the host Ops of ``frontend/ops/dynamic.py`` (``union1d`` is one of them):
their output shapes depend on the values.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..graph import Constant, Variable
from ..types import DTYPES, is_complex, is_float
from ..ops import dynamic as dy
from ..ops import elemwise as ew
from ..ops.basic import as_variable
from ..ops.construct import shape_of
from ..ops.indexing import take
from ..ops.reduction import cumsum
from ..ops.shape import concatenate, reshape
from ..ops.sort import argsort, sort

__all__ = ["unique", "unique_values", "unique_counts", "unique_inverse", "unique_all", "setxor1d",
           "intersect1d", "setdiff1d", "isin"]

_INT64 = DTYPES["int64"]
_BOOL = DTYPES["bool"]


def _may_hold_nan(dt: np.dtype) -> bool:
    return is_float(dt) or is_complex(dt)


class UniqueCountsResult(NamedTuple):
    values: Variable
    counts: Variable


class UniqueInverseResult(NamedTuple):
    values: Variable
    inverse_indices: Variable


class UniqueAllResult(NamedTuple):
    values: Variable
    indices: Variable
    inverse_indices: Variable
    counts: Variable


def _unique_parts(x: Any, name: str):
    """(flat x, values, indices, inverse of the flat x, counts) with NaNs distinct (NumPy's
    ``equal_nan=False``): the unique non-NaN values in order, then every NaN in input order."""
    x = as_variable(x)
    flat = reshape(x, (-1,))
    if not _may_hold_nan(x.dtype):
        values, index, inverse, counts = dy.unique(x, True, True, True)
        return x, values, index, inverse, counts
    nan = ew.isnan(flat)
    keep = ew.logical_not(nan)
    values, index, inverse, counts = dy.unique(dy.boolean_mask(flat, keep), True, True, True)
    nan_pos = dy.flatnonzero(nan)
    n_values = _length(values)
    nan_rank = ew.subtract(cumsum(ew.astype(nan, _INT64)), 1)
    placed = dy.mask_assign(ew.add(nan_rank, n_values), keep, inverse)
    return (x,
            concatenate([values, dy.boolean_mask(flat, nan)]),
            concatenate([_positions(keep, index), nan_pos]),
            placed,
            concatenate([counts, ew.astype(ew.add(ew.multiply(nan_pos, 0), 1), _INT64)]))


def _length(v: Variable) -> Variable:
    """The (dynamic) length of a 1-D value as a 0-d int64."""
    return shape_of(v)[0]


def _positions(mask: Variable, index: Variable) -> Variable:
    """Positions in the full vector of the elements ``index`` picks from ``mask``'s selection."""
    return take(dy.flatnonzero(mask), index)


def _inverse_shape(x: Variable, inverse: Variable) -> Variable:
    """The inverse indices shaped like ``x`` (at most one unknown dim of ``x``)."""
    if inverse.ndim == x.ndim:
        return inverse
    if sum(d is None for d in x.shape) > 1:
        raise ValueError(f"unique_inverse: the input may have at most one unknown dim, got {x.type}")
    return reshape(inverse, tuple(-1 if d is None else d for d in x.shape))


def unique_values(x: Any) -> Variable:
    """The unique elements of ``x`` (flattened), as numpy.unique_values, sorted (NumPy
    leaves the order unspecified); every NaN is its own value, after the others."""
    _, values, _, _, _ = _unique_parts(x, "unique_values")
    return values


def unique_counts(x: Any) -> UniqueCountsResult:
    """``(values, counts)`` of ``x`` (flattened), as numpy.unique_counts (sorted values,
    int64 counts; NaNs are distinct)."""
    _, values, _, _, counts = _unique_parts(x, "unique_counts")
    return UniqueCountsResult(values, counts)


def unique_inverse(x: Any) -> UniqueInverseResult:
    """``(values, inverse_indices)``, as numpy.unique_inverse: ``values[inverse_indices]``
    rebuilds ``x`` (the inverse has ``x``'s shape; NaNs are distinct)."""
    x, values, _, inverse, _ = _unique_parts(x, "unique_inverse")
    return UniqueInverseResult(values, _inverse_shape(x, inverse))


def unique_all(x: Any) -> UniqueAllResult:
    """``(values, indices, inverse_indices, counts)``, as numpy.unique_all: sorted unique
    values, the index of each one's first occurrence in the flattened ``x``, the inverse (with
    ``x``'s shape) and the counts, all int64; NaNs are distinct."""
    x, values, index, inverse, counts = _unique_parts(x, "unique_all")
    return UniqueAllResult(values, index, _inverse_shape(x, inverse), counts)


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Variable:
    """Sorted values in exactly one of ``ar1`` and ``ar2`` (flattened), as numpy.setxor1d
    (``assume_unique`` skips the per-input deduplication, as in NumPy)."""
    a1, a2 = reshape(as_variable(ar1), (-1,)), reshape(as_variable(ar2), (-1,))
    if not assume_unique:
        a1, a2 = dy.unique(a1), dy.unique(a2)
    aux = sort(concatenate([a1, a2]))
    true = Constant(np.ones(1, _BOOL))
    flag = concatenate([true, ew.not_equal(aux[1:], aux[:-1]), true])
    return dy.boolean_mask(aux, ew.logical_and(flag[1:], flag[:-1]))


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
           axis: int | None = None, *, equal_nan: bool = True, sorted: bool = True):
    """The sorted unique elements of ``ar`` (flattened), as numpy.unique: with
    ``return_index``, ``return_inverse`` and ``return_counts``, also the first indices, the
    inverse (shaped like ``ar``) and the counts (int64). ``equal_nan=False`` keeps every NaN
    distinct (after the other values, in input order). ``sorted=False`` allows any order,
    as in NumPy; the values come sorted. ``axis``: None (or 0 / -1 for a 1-d input).

    Returns:
        A Variable, or a tuple when any ``return_*`` flag is set.
    """
    x = as_variable(ar)
    if equal_nan or not _may_hold_nan(x.dtype):
        return dy.unique(x, return_index, return_inverse, return_counts, axis)
    if axis is not None:
        dy.unique(x, axis=axis)  # the same check of axis (1-d inputs only)
    x, values, index, inverse, counts = _unique_parts(x, "unique")
    outs = [values] + [v for v, flag in ((index, return_index), (_inverse_shape(x, inverse), return_inverse),
                                         (counts, return_counts)) if flag]
    return tuple(outs) if len(outs) > 1 else values


def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False) -> Variable:
    """For each element, whether it occurs in ``test_elements`` (whether it does not, with
    ``invert``), as numpy.isin; ``assume_unique`` is NumPy's speed hint (the result is the
    same for unique inputs)."""
    out = dy.isin(element, test_elements)
    return ew.logical_not(out) if invert else out


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Variable:
    """The sorted unique values of ``ar1`` that are not in ``ar2``, as numpy.setdiff1d; with
    ``assume_unique``, the elements of the flattened ``ar1`` not in ``ar2``, in ``ar1``'s
    order (as NumPy, which skips the deduplication and the sort then)."""
    if not assume_unique:
        return dy.setdiff1d(ar1, ar2)
    a1 = reshape(as_variable(ar1), (-1,))
    return dy.boolean_mask(a1, ew.logical_not(dy.isin(a1, ar2)))


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False):
    """The sorted values in both inputs (flattened), as numpy.intersect1d. ``assume_unique``
    skips the per-input deduplication (as in NumPy: repeated values then show up);
    ``return_indices`` also returns the int64 indices of the first occurrence of each value
    in the flattened ``ar1`` and ``ar2``."""
    if not return_indices and not assume_unique:
        return dy.intersect1d(ar1, ar2)
    a1, a2 = reshape(as_variable(ar1), (-1,)), reshape(as_variable(ar2), (-1,))
    if not assume_unique:
        (a1, i1), (a2, i2) = dy.unique(a1, return_index=True), dy.unique(a2, return_index=True)
    aux = concatenate([a1, a2])
    if return_indices:
        order = argsort(aux)  # stable: an ar1 value comes before its equal in ar2
        aux = take(aux, order)
    else:
        aux = sort(aux)
    same = ew.equal(aux[1:], aux[:-1])
    values = dy.boolean_mask(aux[:-1], same)
    if not return_indices:
        return values
    idx1 = dy.boolean_mask(order[:-1], same)
    idx2 = ew.subtract(dy.boolean_mask(order[1:], same), _length(a1))
    if not assume_unique:
        idx1, idx2 = take(i1, idx1), take(i2, idx2)
    return values, idx1, idx2
