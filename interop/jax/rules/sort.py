"""``sort`` (one or several operands, one or several keys), ``top_k`` and ``approx_top_k``.

A sort of several operands orders them all by the keys (the first
``num_keys`` operands, the first one most significant): the stable argsort of
the keys, then each operand gathered along the sort axis. ``jnp.argsort`` is
such a sort of the values and an iota. ``approx_top_k`` (``lax.approx_max_k``
/ ``approx_min_k``) is the exact top k, as XLA computes it off TPUs."""

from __future__ import annotations

import numpy as np

from ..registry import Unsupported, register
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


@register("approx_top_k")
def approx_top_k(x, *, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,
                 reduction_input_size_override=-1, aggregate_to_topk=True, **params):
    # off TPUs XLA computes the exact top k (the recall target is a TPU tuning knob)
    if not aggregate_to_topk:
        raise Unsupported("approximate results not aggregated to the top k")
    axis = int(reduction_dimension) % x.ndim
    if is_max_k:
        return top_k(x, k=int(k), axis=axis)
    perm = hg.argsort(x, axis=axis, stable=True)
    index = [slice(None)] * x.ndim
    index[axis] = slice(0, int(k))
    perm = perm[tuple(index)]
    return [hg.take_along_axis(x, perm, axis=axis), hg.astype(perm, np.int32)]
