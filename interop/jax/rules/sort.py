"""``sort`` (one or several operands, one or several keys) and ``top_k``.

A sort of several operands orders them all by the keys (the first
``num_keys`` operands, the first one most significant): the stable argsort of
the keys, then each operand gathered along the sort axis. ``jnp.argsort`` is
such a sort of the values and an iota."""

from __future__ import annotations

from ..registry import register
from .common import hg


@register("sort")
def sort(*operands, dimension, is_stable=True, num_keys=1):
    axis = int(dimension)
    if len(operands) == 1:
        return [hg.sort(operands[0], axis=axis, stable=bool(is_stable))]
    keys = operands[:int(num_keys)]
    if len(keys) == 1:
        perm = hg.argsort(keys[0], axis=axis, stable=True)
    else:
        perm = hg.lexsort(list(keys[::-1]), axis=axis)
    return [hg.take_along_axis(x, perm, axis=axis) for x in operands]


@register("top_k")
def top_k(x, *, k, axis=-1):
    axis = int(axis) % x.ndim
    last = x.ndim - 1
    if axis != last:
        x = hg.moveaxis(x, axis, last)
    values, indices = hg.top_k(x, int(k))
    if axis != last:
        values, indices = hg.moveaxis(values, last, axis), hg.moveaxis(indices, last, axis)
    return [values, indices]
