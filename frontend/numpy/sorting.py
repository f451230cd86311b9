"""NumPy's sorting routines that compose sorts: ``lexsort``. ``sort``,
``argsort``, ``partition``, ``argpartition`` and ``top_k`` are the Ops of
``frontend/ops/sort.py``; ``searchsorted`` is an indexing Op and ``argmax``,
``argmin`` are reductions.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..graph import Variable
from ..ops.basic import as_variable
from ..ops.indexing import take_along_axis
from ..ops.sort import argsort

__all__ = ["lexsort"]


def lexsort(keys: Sequence[Any], axis: int = -1) -> Variable:
    """Indices that sort by the last key, ties broken by the key before it, ...
    (numpy.lexsort): stable argsorts from the first key to the last."""
    if isinstance(keys, Variable):
        keys = [keys[i] for i in range(keys.shape[0])]
    keys = [as_variable(k) for k in keys]
    if not keys:
        raise ValueError("lexsort: needs at least one key")
    order = argsort(keys[0], axis=axis, stable=True)
    for key in keys[1:]:
        step = argsort(take_along_axis(key, order, axis=axis), axis=axis, stable=True)
        order = take_along_axis(order, step, axis=axis)
    return order
