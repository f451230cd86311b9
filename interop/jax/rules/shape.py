"""Shape primitives: ``broadcast_in_dim``, ``reshape``, ``squeeze``,
``expand_dims``, ``transpose``, ``rev``, ``pad``, ``concatenate``, ``split``,
``iota``, ``stack``, ``tile``, ``empty``/``empty2`` (zeros: jax leaves
the values unspecified), and the layout annotations that compute nothing
(``sharding_constraint``, ``reshard``, ``mesh_cast``)."""

from __future__ import annotations

import numpy as np

from ....frontend.ops.construct import Pad
from ..registry import Unsupported, register
from .common import broadcast_in_dim, hg, iota, ints


@register("broadcast_in_dim")
def broadcast_in_dim_(x, *dyn_shape, shape, broadcast_dimensions, sharding=None):
    if dyn_shape:
        raise Unsupported("dynamic shapes")
    return broadcast_in_dim(x, shape, broadcast_dimensions)


@register("reshape")
def reshape(x, *dyn_shape, new_sizes, dimensions=None, sharding=None, key_impls=()):
    if dyn_shape:
        raise Unsupported("dynamic shapes")
    # a PRNG key array is its key data: the key's own dims trail the array's
    key = tuple(getattr(key_impls[0], "key_shape", ())) if key_impls and key_impls[0] is not None else ()
    if dimensions is not None:
        x = hg.transpose(x, (*ints(dimensions), *range(len(dimensions), len(dimensions) + len(key))))
    return hg.reshape(x, (*ints(new_sizes), *key))


reshape.key_impls = True  # (the interpreter passes the operands' PRNG implementations)


@register("squeeze")
def squeeze(x, *, dimensions):
    return hg.squeeze(x, axis=ints(dimensions)) if dimensions else x


@register("expand_dims")
def expand_dims(x, *, dimensions):
    return hg.expand_dims(x, ints(dimensions))


@register("transpose")
def transpose(x, *, permutation):
    perm = ints(permutation)
    return x if perm == tuple(range(x.ndim)) else hg.transpose(x, perm)


@register("rev")
def rev(x, *, dimensions):
    return hg.flip(x, ints(dimensions)) if dimensions else x


@register("concatenate")
def concatenate(*xs, dimension):
    return xs[0] if len(xs) == 1 else hg.concatenate(list(xs), axis=int(dimension))


@register("split")
def split(x, *, sizes, axis):
    axis, out, start = int(axis), [], 0
    for size in ints(sizes):
        index = [slice(None)] * x.ndim
        index[axis] = slice(start, start + size)
        out.append(x[tuple(index)])
        start += size
    return out


@register("iota")
def iota_(*dyn_shape, dtype, shape, dimension, sharding=None):
    if dyn_shape:
        raise Unsupported("dynamic shapes")
    return iota(shape, int(dimension), np.dtype(dtype))


@register("pad")
def pad(x, value, *, padding_config):
    """``lax.pad``: per dim (low, high, interior); negative low/high remove elements."""
    config = [ints(c) for c in padding_config]
    # interior padding: each element followed by `interior` fill values, the last ones cut
    for axis, (_, _, interior) in enumerate(config):
        n = x.shape[axis]
        if interior == 0 or n == 0:
            continue
        if n == 1:
            continue
        spread = hg.expand_dims(x, axis + 1)
        fill = hg.broadcast_to(value, [*x.shape[:axis + 1], interior, *x.shape[axis + 1:]])
        joined = hg.concatenate([spread, fill], axis=axis + 1)
        merged = hg.reshape(joined, [*x.shape[:axis], n * (interior + 1), *x.shape[axis + 1:]])
        index = [slice(None)] * x.ndim
        index[axis] = slice(0, n + (n - 1) * interior)
        x = merged[tuple(index)]
    # negative edges crop, positive ones pad
    crop = tuple(slice(max(-lo, 0), x.shape[a] - max(-hi, 0)) for a, (lo, hi, _) in enumerate(config))
    if any(lo < 0 or hi < 0 for lo, hi, _ in config):
        x = x[crop]
    widths = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in config]
    if any(lo or hi for lo, hi in widths):
        x = Pad(widths)(x, value)
    return x


@register("stack")
def stack(*xs, axis):
    return hg.stack(list(xs), axis=int(axis))


@register("tile")
def tile(x, *, reps):
    reps = ints(reps)
    return x if all(r == 1 for r in reps) else hg.tile(x, reps)


@register("empty", "empty2")
def empty(*dyn_shape, dtype, shape=(), **params):
    # an array whose values jax leaves unspecified (the zeros of a transposed
    # loop's unused outputs): zeros
    if dyn_shape:
        raise Unsupported("dynamic shapes")
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise Unsupported(f"an empty array of {dtype}") from None
    return hg.zeros(ints(shape), dtype=dt)


@register("sharding_constraint", "reshard", "mesh_cast")
def layout_annotation(x, **params):
    return x
