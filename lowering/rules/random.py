"""Lowering of the random samplers: ``stablehlo.rng_bit_generator`` (Threefry)
seeded by the key, then a transformation of the bits.

The generator state is ``uint64[2]``: the key's two words as one 64-bit value,
and a stream tag shifted high into the counter half (samplers 0, ``split`` 1,
the gamma family 2-4), so that split keys never repeat a sampler's bits.
Floats in [0, 1) set the mantissa of a number in [1, 2) from the high bits and
subtract 1 (jax's ``_uniform``); normals are ``sqrt(2) * erfinv(u)`` for ``u``
uniform in (-1, 1); categories take the Gumbel-max; permutations sort by
random 64-bit keys; gamma variates use Marsaglia and Tsang's rejection method
in a ``stablehlo.while`` (beta and Dirichlet are ratios of gammas). float16 and
bfloat16 samples are computed in float32 and rounded once.
"""

from __future__ import annotations

import numpy as np

from ...frontend.ops import random as rnd
from ...frontend.types import DTYPES, TensorType
from .. import emit
from ..context import LoweringContext
from ..emit import broadcast_to, compare, constant, convert, scalar_type
from ...xla.mlir import chlo, hlo, i64_array, ir, tensor_type
from ..registry import register

_UINT32, _UINT64, _INT64 = DTYPES["uint32"], DTYPES["uint64"], DTYPES["int64"]
_FLOAT32, _BOOL = DTYPES["float32"], DTYPES["bool"]
_HALF = (DTYPES["float16"], DTYPES["bfloat16"])

#: float dtype -> (mantissa bits, unsigned dtype of its width, bits of 1.0)
_FLOAT_BITS = {
    DTYPES["float16"]: (10, DTYPES["uint16"], 0x3C00),
    DTYPES["bfloat16"]: (7, DTYPES["uint16"], 0x3F80),
    DTYPES["float32"]: (23, _UINT32, 0x3F800000),
    DTYPES["float64"]: (52, _UINT64, 0x3FF0000000000000),
}


_STATE_T = TensorType(_UINT64, (2,))


def initial_state(key: ir.Value, tag: int) -> ir.Value:
    """The generator state of ``key`` in the stream ``tag``: [key words as one uint64,
    tag << 48] (the counter half starts far from every other stream's)."""
    k64 = hlo.bitcast_convert(tensor_type(TensorType(_UINT64, ())), key)
    k64 = emit.reshape(k64, TensorType(_UINT64, (1,)))
    return hlo.concatenate([k64, constant([tag << 48], _UINT64, (1,))], 0)


def next_bits(state: ir.Value, shape: tuple[int, ...], dtype: np.dtype) -> tuple[ir.Value, ir.Value]:
    """(new state, ``dtype`` bits of ``shape``) from a generator state."""
    new_state, bits = hlo.rng_bit_generator(
        tensor_type(_STATE_T), tensor_type(TensorType(dtype, shape)),
        hlo.RngAlgorithmAttr.get("THREE_FRY"), state)
    return new_state, bits


def random_bits(key: ir.Value, shape: tuple[int, ...], dtype: np.dtype,
                tag: int = rnd.SAMPLE_TAG) -> ir.Value:
    """``dtype`` (uint32 or uint64) bits of ``shape``, a deterministic function of ``key``."""
    return next_bits(initial_state(key, tag), shape, dtype)[1]


def bits_to_unit(bits: ir.Value, shape: tuple[int, ...], dtype: np.dtype) -> ir.Value:
    """Floats of ``dtype`` in [0, 1) from uint32 (uint64 for float64) ``bits``."""
    nmant, udt, one = _FLOAT_BITS[dtype]
    wide = _UINT64 if udt == _UINT64 else _UINT32
    bits = hlo.shift_right_logical(bits, constant(wide.itemsize * 8 - nmant, wide, shape))
    if udt != wide:
        bits = hlo.convert(tensor_type(TensorType(udt, shape)), bits)
    bits = hlo.or_(bits, constant(one, udt, shape))
    t = TensorType(dtype, shape)
    floats = hlo.bitcast_convert(tensor_type(t), bits)
    return hlo.subtract(floats, constant(1, dtype, shape))


def _unit_bits_dtype(dtype: np.dtype) -> np.dtype:
    return _UINT64 if _FLOAT_BITS[dtype][1] == _UINT64 else _UINT32


def uniform01(key: ir.Value, shape: tuple[int, ...], dtype: np.dtype,
              tag: int = rnd.SAMPLE_TAG) -> ir.Value:
    """Floats of ``dtype`` uniform in [0, 1)."""
    return bits_to_unit(random_bits(key, shape, _unit_bits_dtype(dtype), tag), shape, dtype)


def _standard_normal(u: ir.Value, shape: tuple[int, ...], dtype: np.dtype) -> ir.Value:
    """Standard normals from ``u`` uniform in [0, 1): sqrt(2) * erfinv(2u - 1), with -1
    moved to the next float up."""
    u = hlo.subtract(hlo.multiply(u, constant(2, dtype, shape)), constant(1, dtype, shape))
    low = np.nextafter(np.asarray(-1, dtype), np.asarray(0, dtype))
    u = hlo.maximum(u, constant(low, dtype, shape))
    return hlo.multiply(chlo.erf_inv(u), constant(np.sqrt(2), dtype, shape))


def _param(v: ir.Value, t: TensorType, dtype: np.dtype, shape: tuple[int, ...]) -> ir.Value:
    v = convert(v, t, dtype)
    return broadcast_to(v, t.with_dtype(dtype), shape)


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    return _FLOAT32 if dtype in _HALF else dtype


@register(rnd.KeyFromSeed)
def lower_key_from_seed(ctx: LoweringContext, seed: ir.Value) -> list[ir.Value]:
    t = ctx.in_types[0]
    s = convert(seed, t, _INT64) if t.dtype != _UINT64 else seed
    s = hlo.bitcast_convert(tensor_type(TensorType(_UINT64, ())), s) if t.dtype != _UINT64 else s
    hi = hlo.shift_right_logical(s, constant(32, _UINT64))
    lo = hlo.and_(s, constant(0xFFFFFFFF, _UINT64))
    one = tensor_type(TensorType(_UINT32, (1,)))
    words = [hlo.reshape(one, hlo.convert(tensor_type(TensorType(_UINT32, ())), w)) for w in (hi, lo)]
    return [hlo.concatenate(words, 0)]


@register(rnd.Split)
def lower_split(ctx: LoweringContext, key: ir.Value) -> list[ir.Value]:
    return [random_bits(key, (ctx.op.n, 2), _UINT32, rnd.SPLIT_TAG)]


@register(rnd.Uniform)
def lower_uniform(ctx: LoweringContext, key: ir.Value, lo: ir.Value, hi: ir.Value) -> list[ir.Value]:
    shape, dtype = ctx.op.shape, ctx.op.dtype
    _, lt, ht = ctx.in_types
    lo, hi = _param(lo, lt, dtype, shape), _param(hi, ht, dtype, shape)
    u = uniform01(key, shape, dtype)
    return [hlo.maximum(lo, hlo.add(hlo.multiply(u, hlo.subtract(hi, lo)), lo))]


@register(rnd.Normal)
def lower_normal(ctx: LoweringContext, key: ir.Value, loc: ir.Value, scale: ir.Value) -> list[ir.Value]:
    shape, dtype = ctx.op.shape, ctx.op.dtype
    cdt = _compute_dtype(dtype)
    _, lt, st = ctx.in_types
    z = _standard_normal(uniform01(key, shape, cdt), shape, cdt)
    out = hlo.add(hlo.multiply(z, _param(scale, st, cdt, shape)), _param(loc, lt, cdt, shape))
    return [convert(out, TensorType(cdt, shape), dtype)]


@register(rnd.Bernoulli)
def lower_bernoulli(ctx: LoweringContext, key: ir.Value, p: ir.Value) -> list[ir.Value]:
    shape = ctx.op.shape
    pt = ctx.in_types[1]
    cdt = _compute_dtype(pt.dtype)
    u = uniform01(key, shape, cdt)
    return [compare(u, _param(p, pt, cdt, shape), "LT", cdt)]


@register(rnd.Integers)
def lower_integers(ctx: LoweringContext, key: ir.Value, low: ir.Value, high: ir.Value) -> list[ir.Value]:
    # (bits mod span) + low over 64 bits: the modulo bias is below span / 2**64
    shape, dtype = ctx.op.shape, ctx.op.dtype
    _, lt, ht = ctx.in_types
    wide = _UINT64 if dtype == _UINT64 else _INT64
    low, high = _param(low, lt, wide, shape), _param(high, ht, wide, shape)
    # high - low wraps into the unsigned span (2**63 and more fit); an empty range
    # (perform raises) gives low
    span = hlo.subtract(high, low)
    if wide == _INT64:
        span = hlo.bitcast_convert(tensor_type(TensorType(_UINT64, shape)), span)
    span = hlo.select(compare(high, low, "GT", wide), span, constant(1, _UINT64, shape))
    r = hlo.remainder(random_bits(key, shape, _UINT64), span)
    if wide == _INT64:
        r = hlo.bitcast_convert(tensor_type(TensorType(_INT64, shape)), r)
    return [convert(hlo.add(r, low), TensorType(wide, shape), dtype)]


@register(rnd.Categorical)
def lower_categorical(ctx: LoweringContext, key: ir.Value, logits: ir.Value) -> list[ir.Value]:
    # Gumbel-max: argmax over the categories of logits + (-log(-log(u)))
    op, lt = ctx.op, ctx.in_types[1]
    cdt = _compute_dtype(lt.dtype)
    axis, ncat = op.axis, lt.shape[op.axis]
    perm = [d for d in range(lt.ndim) if d != axis] + [axis]
    lg = convert(logits, lt, cdt)
    moved = TensorType(cdt, [lt.shape[d] for d in perm])
    if perm != list(range(lt.ndim)):
        lg = hlo.transpose(lg, i64_array(perm))
    full = op.shape + (ncat,)
    lg = broadcast_to(lg, moved, full)
    tiny = np.finfo(cdt).tiny
    u = hlo.maximum(uniform01(key, full, cdt), constant(tiny, cdt, full))
    gumbel = hlo.negate(hlo.log(hlo.negate(hlo.log(u))))
    scores = hlo.add(lg, gumbel)
    idx = emit.iota(TensorType(_INT64, full), ir.IntegerAttr.get(ir.IntegerType.get_signless(64), len(full) - 1))
    out_v, out_i = TensorType(cdt, op.shape), TensorType(_INT64, op.shape)
    red = hlo.ReduceOp([tensor_type(out_v), tensor_type(out_i)], [scores, idx],
                       [constant(-np.inf, cdt), constant(0, _INT64)], i64_array([len(full) - 1]))
    sv, si = scalar_type(cdt), scalar_type(_INT64)
    block = red.regions[0].blocks.append(sv, si, sv, si)
    with ir.InsertionPoint(block):
        a, ia, b, ib = block.arguments
        a_wins = hlo.or_(compare(a, b, "GT", cdt),
                         hlo.and_(compare(a, b, "EQ", cdt), compare(ia, ib, "LT", _INT64)))
        hlo.return_([hlo.select(a_wins, a, b), hlo.select(a_wins, ia, ib)])
    return [red.results[1]]


@register(rnd.Permutation)
def lower_permutation(ctx: LoweringContext, key: ir.Value, x: ir.Value) -> list[ir.Value]:
    # sort along axis 0 by random 64-bit keys shared by each row
    t = ctx.in_types[1]
    n = t.shape[0]
    if n <= 1 or t.size == 0:
        return [x]
    bits = random_bits(key, (n,), _UINT64)
    if t.ndim > 1:
        bits = emit.broadcast_in_dim(bits, t.with_dtype(_UINT64), [0])
    op = hlo.SortOp([bits.type, x.type], [bits, x],
                    dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0),
                    is_stable=ir.BoolAttr.get(True))
    su, sx = scalar_type(_UINT64), scalar_type(t.dtype)
    block = op.comparator.blocks.append(su, su, sx, sx)
    with ir.InsertionPoint(block):
        a, b = block.arguments[0], block.arguments[1]
        hlo.return_([compare(a, b, "LT", _UINT64)])
    return [op.results[1]]


def gamma_sample(key: ir.Value, a: ir.Value, shape: tuple[int, ...], dtype: np.dtype,
                 tag: int) -> ir.Value:
    """Gamma(a, 1) of ``shape`` (``a`` already of ``shape`` and ``dtype``).

    Marsaglia and Tsang's method: for a >= 1, with d = a - 1/3 and c = 1/sqrt(9d),
    draw z normal and u uniform until v = (1 + cz)^3 > 0 and
    log(u) < z^2/2 + d - dv + d log(v), and return dv; every element redraws in a
    ``stablehlo.while`` until all are accepted. For a < 1, Gamma(a + 1) * u^(1/a)
    (u from a second stream). a = 0 gives 0, as NumPy; a < 0 or NaN gives NaN.
    """
    def c(v):
        return constant(v, dtype, shape)

    small = compare(a, c(1), "LT", dtype)
    a1 = hlo.select(small, hlo.add(a, c(1)), a)
    d = hlo.subtract(a1, c(1 / 3))
    cc = hlo.divide(c(1), hlo.sqrt(hlo.multiply(c(9), d)))
    bad = hlo.not_(compare(a, c(0), "GE", dtype))  # a < 0 or NaN
    wide = _unit_bits_dtype(dtype)
    bits_shape = (2,) + shape
    t_x, t_done = TensorType(dtype, shape), TensorType(_BOOL, shape)
    types = [tensor_type(_STATE_T), tensor_type(t_x), tensor_type(t_done),
             tensor_type(t_x), tensor_type(t_x)]
    loop = hlo.WhileOp(types, [initial_state(key, tag), c(0), bad, d, cc])
    cond = loop.cond.blocks.append(*types)
    with ir.InsertionPoint(cond):
        red = hlo.ReduceOp([tensor_type(TensorType(_BOOL, ()))], [cond.arguments[2]],
                           [constant(True, _BOOL)], i64_array(range(len(shape))))
        blk = red.regions[0].blocks.append(scalar_type(_BOOL), scalar_type(_BOOL))
        with ir.InsertionPoint(blk):
            hlo.return_([hlo.and_(*blk.arguments)])
        hlo.return_([hlo.not_(red.result)])
    body = loop.body.blocks.append(*types)
    with ir.InsertionPoint(body):
        state, x, done, dd, ccb = body.arguments
        state, bits = next_bits(state, bits_shape, wide)
        lim = [1] + list(shape)
        b_z = emit.reshape(hlo.slice(bits, i64_array([0] * len(bits_shape)), i64_array(lim),
                                    i64_array([1] * len(bits_shape))), TensorType(wide, shape))
        b_u = emit.reshape(hlo.slice(bits, i64_array([1] + [0] * len(shape)), i64_array([2] + list(shape)),
                                    i64_array([1] * len(bits_shape))), TensorType(wide, shape))
        z = _standard_normal(bits_to_unit(b_z, shape, dtype), shape, dtype)
        u = bits_to_unit(b_u, shape, dtype)
        one_cz = hlo.add(c(1), hlo.multiply(ccb, z))
        v = hlo.multiply(hlo.multiply(one_cz, one_cz), one_cz)
        positive = compare(v, c(0), "GT", dtype)
        safe_v = hlo.select(positive, v, c(1))
        rhs = hlo.add(hlo.multiply(hlo.multiply(z, z), c(0.5)),
                      hlo.add(hlo.subtract(dd, hlo.multiply(dd, safe_v)),
                              hlo.multiply(dd, hlo.log(safe_v))))
        ok = hlo.and_(positive, compare(hlo.log(u), rhs, "LT", dtype))
        take = hlo.and_(ok, hlo.not_(done))
        x = hlo.select(take, hlo.multiply(dd, safe_v), x)
        hlo.return_([state, x, hlo.or_(done, ok), dd, ccb])
    x = loop.results[1]
    # boost for a < 1: x * u^(1/a), computed as exp(log(u) / a) (u in (0, 1])
    u = hlo.subtract(c(1), uniform01(key, shape, dtype, rnd.BOOST_TAG))
    boost = hlo.exponential(hlo.divide(hlo.log(u), a))
    x = hlo.select(small, hlo.multiply(x, boost), x)
    x = hlo.select(compare(a, c(0), "EQ", dtype), c(0), x)
    return hlo.select(bad, c(np.nan), x)


@register(rnd.Gamma)
def lower_gamma(ctx: LoweringContext, key: ir.Value, a: ir.Value) -> list[ir.Value]:
    shape, dtype = ctx.op.shape, ctx.op.dtype
    cdt = _compute_dtype(dtype)
    g = gamma_sample(key, _param(a, ctx.in_types[1], cdt, shape), shape, cdt, rnd.GAMMA_TAG)
    return [convert(g, TensorType(cdt, shape), dtype)]


@register(rnd.Beta)
def lower_beta(ctx: LoweringContext, key: ir.Value, a: ir.Value, b: ir.Value) -> list[ir.Value]:
    shape, dtype = ctx.op.shape, ctx.op.dtype
    cdt = _compute_dtype(dtype)
    _, at, bt = ctx.in_types
    x = gamma_sample(key, _param(a, at, cdt, shape), shape, cdt, rnd.GAMMA_TAG)
    y = gamma_sample(key, _param(b, bt, cdt, shape), shape, cdt, rnd.GAMMA_TAG_2)
    out = hlo.divide(x, hlo.add(x, y))
    return [convert(out, TensorType(cdt, shape), dtype)]


@register(rnd.Dirichlet)
def lower_dirichlet(ctx: LoweringContext, key: ir.Value, alpha: ir.Value) -> list[ir.Value]:
    full, dtype = ctx.out_type.shape, ctx.op.dtype
    cdt = _compute_dtype(dtype)
    g = gamma_sample(key, _param(alpha, ctx.in_types[1], cdt, full), full, cdt, rnd.GAMMA_TAG)
    ft = TensorType(cdt, full)
    total, _ = _sum_last(g, ft)
    out = hlo.divide(g, emit.broadcast_in_dim(total, ft, range(len(full) - 1)))
    return [convert(out, ft, dtype)]


def _sum_last(x: ir.Value, t: TensorType) -> tuple[ir.Value, TensorType]:
    out_t = TensorType(t.dtype, t.shape[:-1])
    red = hlo.ReduceOp([tensor_type(out_t)], [x], [constant(0, t.dtype)], i64_array([t.ndim - 1]))
    blk = red.regions[0].blocks.append(scalar_type(t.dtype), scalar_type(t.dtype))
    with ir.InsertionPoint(blk):
        hlo.return_([hlo.add(*blk.arguments)])
    return red.result, out_t
