"""Helpers the rule modules share: constants, iotas, and broadcasting as jax's
``broadcast_in_dim`` and result placement need them."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ....frontend import builders as hg
from ....frontend.graph import Constant, Variable
from ....frontend.types import as_dtype

__all__ = ["hg", "const", "iota", "broadcast_in_dim", "place", "static_value", "ints"]


def const(value: Any, dtype: Any) -> Constant:
    """A constant of exactly ``dtype`` (no NumPy promotion on the way)."""
    return Constant(np.asarray(value, dtype=as_dtype(dtype)))


def ints(values: Sequence[Any]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def iota(shape: Sequence[int], dimension: int, dtype: Any) -> Variable:
    """``lax.iota``-style: the index along ``dimension``, broadcast to ``shape``."""
    shape = ints(shape)
    ramp = hg.arange(shape[dimension], dtype=as_dtype(dtype))
    if len(shape) == 1:
        return ramp
    unit = [1] * len(shape)
    unit[dimension] = shape[dimension]
    return hg.broadcast_to(hg.reshape(ramp, unit), shape)


def broadcast_in_dim(x: Variable, shape: Sequence[int], dims: Sequence[int]) -> Variable:
    """``lax.broadcast_in_dim``: operand dim ``i`` becomes dim ``dims[i]`` of ``shape``."""
    shape, dims = ints(shape), ints(dims)
    if tuple(x.shape) == shape:
        return x
    unit = [1] * len(shape)
    for i, d in enumerate(dims):
        unit[d] = x.shape[i]
    if list(x.shape) != unit:
        x = hg.reshape(x, unit)
    return hg.broadcast_to(x, shape) if tuple(unit) != shape else x


def place(x: Variable, labels: Sequence[int | None], shape: Sequence[int]) -> Variable:
    """``x`` rearranged to ``shape``: dim ``i`` of ``x`` becomes dim ``labels[i]``
    (None: a size-1 dim to drop); dims of ``shape`` no label names are broadcast."""
    shape = ints(shape)
    keep = [i for i, lab in enumerate(labels) if lab is not None]
    if len(keep) != x.ndim:
        x = hg.reshape(x, [x.shape[i] for i in keep])
    kept = [labels[i] for i in keep]
    order = sorted(range(len(kept)), key=lambda j: kept[j])
    if order != list(range(len(kept))):
        x = hg.transpose(x, order)
    return broadcast_in_dim(x, shape, sorted(kept))


def static_value(x: Variable) -> np.ndarray | None:
    """The value of a Constant (a literal or constant of the jaxpr), else None."""
    return x.data if isinstance(x, Constant) else None
