"""PRNG keys and bitcasts. A key-typed value is represented by its key data (see
``avals.py``), so wrapping key data into a key and unwrapping it compute
nothing.

For jax's default implementation, threefry2x32 (key data ``uint32[..., 2]``),
the primitives that compute with keys (``random_seed``, ``random_bits``,
``random_split``, ``random_fold_in``) are graph computations that give jax's
exact bits: the Threefry-2x32 hash (20 rounds of uint32 additions, rotations
and xors) applied as jax's ``jax/_src/random/threefry2x32.py`` applies it,
under either setting of the ``jax_threefry_partitionable`` flag (read when the
equation is imported, as jax reads it when it lowers). Keys of other
implementations (``rbg``, ``unsafe_rbg``, philox, user-registered ones) go
through the fallback, which hands jax real keys. These rules receive the PRNG
implementation of each operand (``key_impls``: the interpreter passes it to a
rule marked ``key_impls = True``).

``random_gamma`` (gamma, beta, dirichlet, chisquare, ``t``, ...) is jax's own
implementation of it (the Marsaglia-Tsang rejection loop jax lowers it to),
traced to a jaxpr and imported in place, so its keys and loops become graph
computations too.

``bitcast_convert_type`` is ``hg.bitcast``, whose width changes are lax's.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import jax
import numpy as np

from ....frontend.graph import Variable
from ....frontend.types import is_float
from ..avals import is_64bit
from ..registry import Unsupported, register
from .common import const, hg, ints
from .control import inline

_U32 = np.dtype(np.uint32)
_THREEFRY = "threefry2x32"
_UINTS = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: _U32, 64: np.dtype(np.uint64)}
#: the rotations of Threefry-2x32's rounds, four per block, the two lists alternating
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


@register("random_wrap", "random_unwrap", "random_clone")
def key_data(x, **params):
    return x


@register("bitcast_convert_type")
def bitcast_convert_type(x, *, new_dtype):
    dtype = np.dtype(new_dtype)
    if not all(is_float(d) or d.kind in "iu" for d in (dtype, x.dtype)):
        raise Unsupported(f"a bitcast from {x.dtype} to {dtype}")
    return hg.bitcast(x, dtype)


# --- Threefry-2x32 ------------------------------------------------------------------------
def _u32(value: int) -> Variable:
    return const(value, _U32)


def _rotate_left(x: Variable, r: int) -> Variable:
    return hg.bitwise_or(hg.left_shift(x, _u32(r)), hg.right_shift(x, _u32(32 - r)))


def threefry2x32(k1: Variable, k2: Variable, x1: Variable, x2: Variable) -> tuple[Variable, Variable]:
    """The Threefry-2x32 hash of the counts ``(x1, x2)`` under the key ``(k1, k2)``:
    jax's ``threefry2x32_p``, elementwise over the broadcast uint32 operands."""
    ks = [k1, k2, hg.bitwise_xor(hg.bitwise_xor(k1, k2), _u32(0x1BD11BDA))]
    x = [hg.add(x1, ks[0]), hg.add(x2, ks[1])]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x[0] = hg.add(x[0], x[1])
            x[1] = hg.bitwise_xor(x[0], _rotate_left(x[1], r))
        x[0] = hg.add(x[0], ks[(i + 1) % 3])
        x[1] = hg.add(hg.add(x[1], ks[(i + 2) % 3]), _u32(i + 1))
    return x[0], x[1]


def _key_halves(keys: Variable, extra: int) -> tuple[Variable, Variable]:
    """The two words of each key (key data ``[*K, 2]``), shaped ``[*K, 1 * extra]`` to
    broadcast against counts of ``extra`` dims."""
    kshape = tuple(keys.shape[:-1])
    return tuple(hg.reshape(keys[..., i], (*kshape, *([1] * extra))) for i in (0, 1))


def _threefry_2x32_flat(keys: Variable, count: Variable) -> Variable:
    """jax's ``threefry_2x32(key, count)`` for a flat ``count`` of ``n`` uint32, per key:
    the counts' two halves hashed as the pairs (padded with a 0 to even length),
    the two results concatenated (``[*K, n]``)."""
    n = count.shape[0]
    if n % 2:
        count = hg.concatenate([count, hg.zeros((1,), _U32)], 0)
    half = (n + 1) // 2
    k1, k2 = _key_halves(keys, 1)
    o1, o2 = threefry2x32(k1, k2, count[:half], count[half:])
    kshape = tuple(keys.shape[:-1])
    o1, o2 = (hg.broadcast_to(o, (*kshape, half)) for o in (o1, o2))
    out = hg.concatenate([o1, o2], -1)
    return out[..., :n] if n % 2 else out


def _iota_2x32(shape: Sequence[int]) -> tuple[Variable, Variable]:
    """jax's ``iota_2x32_shape``: the row-major index of each element of ``shape`` as a
    uint64, split into its high and low uint32 words."""
    size = math.prod(shape)
    if size > 2 ** 32:
        raise Unsupported(f"random bits of {size} elements (more than 2 ** 32)")
    lo = hg.reshape(hg.arange(size, dtype=_U32), shape)
    return hg.zeros(shape, _U32), lo


def _partitionable() -> bool:
    return bool(jax.config.jax_threefry_partitionable)


def _check(key_impls: Sequence[Any], what: str) -> None:
    impl = key_impls[0]
    name = getattr(impl, "name", None)
    if name != _THREEFRY:
        raise Unsupported(f"{what} of {name or impl} keys (only {_THREEFRY} keys are graph computations)")


def _static_shape(shape: Sequence[Any]) -> tuple[int, ...]:
    try:
        return ints(shape)
    except TypeError:
        raise Unsupported(f"a symbolic shape {tuple(shape)}") from None


@register("random_seed")
def random_seed(seeds, *, impl):
    if getattr(impl, "name", None) != _THREEFRY:
        raise Unsupported(f"seeding {getattr(impl, 'name', impl)} keys")
    if seeds.dtype.kind not in "iu":
        raise Unsupported(f"a {seeds.dtype} seed")
    # the seed's bits as a 64-bit value: its high word (0 for narrower seeds) and its low word
    if seeds.dtype.itemsize == 8:
        high = hg.astype(hg.right_shift(hg.bitcast(seeds, np.uint64), const(32, np.uint64)), _U32)
    else:
        high = hg.zeros(seeds.shape, _U32)
    return hg.stack([high, hg.astype(seeds, _U32)], -1)


@register("random_bits")
def random_bits(keys, *, bit_width, shape, key_impls=()):
    _check(key_impls, "random bits")
    shape, dtype = _static_shape(shape), _UINTS.get(bit_width)
    if dtype is None:
        raise Unsupported(f"random bits of width {bit_width}")
    kshape = tuple(keys.shape[:-1])
    size = math.prod(shape)
    if size == 0 or math.prod(kshape) == 0:
        return hg.zeros((*kshape, *shape), dtype)
    if _partitionable():
        k1, k2 = _key_halves(keys, len(shape))
        bits1, bits2 = threefry2x32(k1, k2, *_iota_2x32(shape))
        if bit_width == 64:
            high, low = (hg.astype(b, dtype) for b in (bits1, bits2))
            out = hg.bitwise_or(hg.left_shift(high, const(32, dtype)), low)
        else:
            out = hg.astype(hg.bitwise_xor(bits1, bits2), dtype)
        return hg.broadcast_to(out, (*kshape, *shape))
    # one count per 32 bits, hashed as threefry_2x32 does
    words = -(-bit_width * size // 32)
    if words >= 2 ** 32 - 1:
        raise Unsupported(f"random bits of {size} elements of {bit_width} bits (more than 2 ** 32 words)")
    bits = _threefry_2x32_flat(keys, hg.arange(words, dtype=_U32))
    if bit_width == 64:
        high, low = (hg.astype(b, dtype) for b in (bits[..., :size], bits[..., size:]))
        bits = hg.bitwise_or(hg.left_shift(high, const(32, dtype)), low)
    elif bit_width < 32:  # the words' pieces, least significant first
        bits = hg.reshape(hg.bitcast(bits, dtype), (*kshape, words * (32 // bit_width)))[..., :size]
    return hg.reshape(bits, (*kshape, *shape))


random_bits.key_impls = True


@register("random_split")
def random_split(keys, *, shape, key_impls=()):
    _check(key_impls, "splitting")
    shape = _static_shape(shape)
    kshape = tuple(keys.shape[:-1])
    num = math.prod(shape)
    if num == 0 or math.prod(kshape) == 0:
        return hg.zeros((*kshape, *shape, 2), _U32)
    if _partitionable():
        k1, k2 = _key_halves(keys, len(shape))
        bits1, bits2 = threefry2x32(k1, k2, *_iota_2x32(shape))
        bits1, bits2 = (hg.broadcast_to(b, (*kshape, *shape)) for b in (bits1, bits2))
        return hg.stack([bits1, bits2], -1)
    out = _threefry_2x32_flat(keys, hg.arange(2 * num, dtype=_U32))
    return hg.reshape(out, (*kshape, *shape, 2))


random_split.key_impls = True


@register("random_fold_in")
def random_fold_in(keys, msgs, *, key_impls=()):
    _check(key_impls, "folding data into")
    # threefry_2x32(key, threefry_seed(msg)): the pair (0, msg) hashed once
    msgs = hg.astype(msgs, _U32)
    kshape = tuple(keys.shape[:-1])
    shape = np.broadcast_shapes(kshape, tuple(msgs.shape))
    k1, k2 = (keys[..., i] for i in (0, 1))
    o1, o2 = threefry2x32(k1, k2, hg.zeros(msgs.shape, _U32), msgs)
    return hg.stack([hg.broadcast_to(o, shape) for o in (o1, o2)], -1)


random_fold_in.key_impls = True


def _jax_gamma_impl() -> Any:
    """jax's implementation of ``random_gamma_p`` (what its lowering traces), or None."""
    try:
        from jax._src.random.core import _gamma_impl
    except ImportError:  # pragma: no cover - a jax that moved it
        return None
    return _gamma_impl


@register("random_gamma")
def random_gamma(keys, a, *, log_space, key_impls=()):
    _check(key_impls, "gamma samples")
    impl, key_impl = _jax_gamma_impl(), key_impls[0]
    if impl is None:
        raise Unsupported("gamma samples (this jax keeps its implementation elsewhere)")

    def sample(data, alpha):
        key = jax.random.wrap_key_data(data, impl=key_impl)
        return impl(key, alpha, log_space=log_space, use_vmap=True)

    with jax.enable_x64(bool(jax.config.jax_enable_x64) or is_64bit(a.dtype)):
        closed = jax.make_jaxpr(sample)(jax.ShapeDtypeStruct(tuple(keys.shape), _U32),
                                        jax.ShapeDtypeStruct(tuple(a.shape), a.dtype))
    return inline(closed, keys, a)


random_gamma.key_impls = True
