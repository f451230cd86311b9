"""NumPy's sorting routines that compose sorts: ``lexsort``, ``sort_complex``. ``sort``,
``argsort``, ``partition``, ``argpartition`` and ``top_k`` are the Ops of
``frontend/ops/sort.py``; ``searchsorted`` is an indexing Op and ``argmax``,
``argmin`` are reductions.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..graph import Constant, Variable
from ..ops.basic import as_variable
from ..ops import reduction as rd
from ..ops.control import while_loop
from ..ops.elemwise import add, less
from ..ops.indexing import take_along_axis
from ..ops.shape import full_like
from ..ops.elemwise import astype
from ..ops.sort import argsort, sort

__all__ = ["lexsort", "sort_complex"]


def lexsort(keys: Sequence[Any], axis: int = -1) -> Variable:
    """Indices that sort by the last key, ties broken by the key before it, ...
    (numpy.lexsort): stable argsorts from the first key to the last."""
    if isinstance(keys, Variable):
        if keys.ndim == 0:
            raise TypeError("lexsort: need sequence of keys with len > 0 (keys is 0-d)")
        if keys.shape[0] is None:
            return _lexsort_rows(keys, axis)
        keys = [keys[i] for i in range(keys.shape[0])]
    keys = [as_variable(k) for k in keys]
    if not keys:
        raise ValueError("lexsort: needs at least one key")
    order = argsort(keys[0], axis=axis, stable=True)
    for key in keys[1:]:
        step = argsort(take_along_axis(key, order, axis=axis), axis=axis, stable=True)
        order = take_along_axis(order, step, axis=axis)
    return order


def _lexsort_rows(keys: Variable, axis: int) -> Variable:
    """lexsort of the rows of ``keys`` when their number is known only at run time: a
    loop of stable argsorts, from row 0 to the last (zero keys are an IndexError where
    NumPy raises a TypeError)."""
    ones = full_like(keys, 1, "int64")
    if keys.ndim > 1:
        ones = full_like(rd.sum(ones, axis=tuple(range(1, keys.ndim))), 1, "int64")
    n = rd.sum(ones)  # the number of keys, counted (not read from a Shape: lowers with symbolic dims)
    order = argsort(keys[0], axis=axis, stable=True)  # zero keys: an IndexError

    def body(i, order):
        step = argsort(take_along_axis(keys[i], order, axis=axis), axis=axis, stable=True)
        return add(i, 1), take_along_axis(order, step, axis=axis)

    _, order = while_loop(lambda i, order: less(i, n), body, [Constant(np.int64(1)), order])
    return order


def sort_complex(a: Any) -> Variable:
    """numpy.sort_complex: ``a`` sorted along its last axis by real part, then imaginary
    part, as a complex array (complex64 for int8/int16/uint8/uint16, else complex128,
    complex input keeping its dtype)."""
    a = as_variable(a)
    if a.dtype.kind != "c":
        a = astype(a, np.complex64 if a.dtype.char in "bhBH" else np.complex128)
    return sort(a, axis=-1)
