"""Reductions: ``reduce_sum``/``max``/``min``/``prod``/``and``/``or``, ``argmax``
and ``argmin``, and the cumulative ``cumsum``/``cumprod``/``cummax``/``cummin``.

jax keeps the operand's dtype where NumPy widens (sums of int32 are int64 in
NumPy): the interpreter casts the results back, which wraps as jax's sums do.
"""

from __future__ import annotations

import numpy as np

from ..registry import Unsupported, register
from .common import hg


def _reduction(name: str, builder, bool_only: bool = False) -> None:
    def rule(x, *, axes, out_sharding=None, **params):
        if bool_only and x.dtype != np.bool_:
            raise Unsupported(f"bitwise {name} of {x.dtype}")
        axes = tuple(int(a) for a in axes)
        return builder(x, axis=axes) if axes else x

    rule.__name__ = rule.__qualname__ = name
    register(name)(rule)


_reduction("reduce_sum", hg.sum)
_reduction("reduce_prod", hg.prod)
_reduction("reduce_max", hg.max)
_reduction("reduce_min", hg.min)
_reduction("reduce_and", hg.all, bool_only=True)
_reduction("reduce_or", hg.any, bool_only=True)


@register("argmax")
def argmax(x, *, axes, index_dtype):
    (axis,) = axes
    return hg.astype(hg.argmax(x, axis=int(axis)), np.dtype(index_dtype))


@register("argmin")
def argmin(x, *, axes, index_dtype):
    (axis,) = axes
    return hg.astype(hg.argmin(x, axis=int(axis)), np.dtype(index_dtype))


def _cumulative(name: str, builder) -> None:
    def rule(x, *, axis, reverse=False):
        if x.ndim == 0:
            return x
        axis = int(axis)
        if reverse:
            return hg.flip(builder(hg.flip(x, axis), axis=axis), axis)
        return builder(x, axis=axis)

    rule.__name__ = rule.__qualname__ = name
    register(name)(rule)


_cumulative("cumsum", hg.cumsum)
_cumulative("cumprod", hg.cumprod)
_cumulative("cummax", hg.cummax)
_cumulative("cummin", hg.cummin)
