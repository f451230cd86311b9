"""Lowering of reductions (``stablehlo.reduce``), variances, cumulative reductions
(``stablehlo.reduce_window`` on short axes, a ``stablehlo.while`` over the axis on
long ones) and the softmax family."""

from __future__ import annotations

import math

from typing import Callable, Sequence

import numpy as np

from ...frontend.ops import reduction as rd
from ...frontend.symbolic import SymDim, SymbolicDimError
from ...frontend.types import DTYPES, TensorType, is_complex, is_float
from .. import emit
from ..context import LoweringContext
from ..emit import (broadcast_to, compare, constant, convert, dim_value, is_nan, ordered_compare,
                    reduce_region, scalar_type)
from ...xla.mlir import hlo, i64_array, ir, tensor_type
from ...xla.ffi import host_call
from ...xla.pjrt import resolve_platform
from ..registry import register

_BOOL, _INT64 = DTYPES["bool"], DTYPES["int64"]

Combiner = Callable[[ir.Value, ir.Value], ir.Value]


# --- helpers ------------------------------------------------------------------------
def _extreme(dtype: np.dtype, highest: bool):
    """The greatest (or least) value of ``dtype``: the identity of min (or max)."""
    if dtype == _BOOL:
        return highest
    if is_complex(dtype):
        inf = np.inf if highest else -np.inf
        return complex(inf, inf)
    if is_float(dtype):
        return np.inf if highest else -np.inf
    info = np.iinfo(dtype)
    return info.max if highest else info.min


def _complex_extremum(is_max: bool, dtype: np.dtype) -> Combiner:
    # stablehlo.maximum has no complex form: pick a when it is NaN, or when it is
    # lexicographically larger (smaller) and b is not NaN
    def combine(a: ir.Value, b: ir.Value) -> ir.Value:
        a_nan, b_nan = is_nan(a, dtype), is_nan(b, dtype)
        wins = hlo.and_(hlo.not_(b_nan), ordered_compare(a, b, "GE" if is_max else "LE", dtype))
        return hlo.select(hlo.or_(a_nan, wins), a, b)

    return combine


def _combiner(kind: str, dtype: np.dtype) -> Combiner:
    # (sums and products never run on bool: they accumulate in int64)
    if kind == "add":
        return hlo.add
    if kind == "mul":
        return hlo.multiply
    if kind == "and":
        return hlo.and_
    if kind == "or":
        return hlo.or_
    is_max = kind == "max"
    if dtype == _BOOL:
        return hlo.or_ if is_max else hlo.and_
    if is_complex(dtype):
        return _complex_extremum(is_max, dtype)
    # NaN-propagating, as np.maximum; a reduce of real floats adds a NaN flag
    # (_reduce_float_extremum) for XLA:CPU's sake
    return hlo.maximum if is_max else hlo.minimum


_IDENTITIES = {"add": 0, "mul": 1, "and": True, "or": False}


def _identity(kind: str, dtype: np.dtype):
    if kind in ("max", "min"):
        return _extreme(dtype, highest=kind == "min")
    return _IDENTITIES[kind]


def _reduce(x: ir.Value, t: TensorType, axes: Sequence[int], kind: str) -> tuple[ir.Value, TensorType]:
    """``stablehlo.reduce`` of ``x`` (of type ``t``) over ``axes`` with the ``kind``
    monoid (add mul and or max min); returns the value and its type (axes dropped)."""
    out_t = TensorType(t.dtype, [d for i, d in enumerate(t.shape) if i not in axes])
    init = constant(_identity(kind, t.dtype), t.dtype)
    op = hlo.ReduceOp([tensor_type(out_t)], [x], [init], i64_array(axes))
    block = reduce_region(op, t.dtype)
    with ir.InsertionPoint(block):
        hlo.return_([_combiner(kind, t.dtype)(*block.arguments)])
    return op.result, out_t


def _reduce_float_extremum(x: ir.Value, t: TensorType, axes: Sequence[int],
                           kind: str) -> tuple[ir.Value, TensorType]:
    """max/min of a real float ``x`` over ``axes`` that propagates NaN, as np.max.

    XLA:CPU (jaxlib 0.10.2) loses NaN in a ``stablehlo.maximum`` reduce of several
    rows (and may then return -inf), although the op itself propagates NaN. So a
    variadic reduce carries a "NaN seen" flag next to the value, and NaN is put back
    where the flag is set; a compare-and-select body is correct too, but slower.
    """
    out_t = TensorType(t.dtype, [d for i, d in enumerate(t.shape) if i not in axes])
    flag_t = out_t.with_dtype(_BOOL)
    op = hlo.ReduceOp(
        [tensor_type(out_t), tensor_type(flag_t)], [x, compare(x, x, "NE", t.dtype)],
        [constant(_identity(kind, t.dtype), t.dtype), constant(False, _BOOL)], i64_array(axes),
    )
    sv, sb = scalar_type(t.dtype), scalar_type(_BOOL)
    block = op.regions[0].blocks.append(sv, sb, sv, sb)
    with ir.InsertionPoint(block):
        a, a_nan, b, b_nan = block.arguments
        hlo.return_([_combiner(kind, t.dtype)(a, b), hlo.or_(a_nan, b_nan)])
    value, seen_nan = op.results
    return hlo.select(seen_nan, constant(np.nan, t.dtype, out_t.shape), value), out_t


def _reshape(v: ir.Value, from_type: TensorType, to_type: TensorType) -> ir.Value:
    if from_type.shape == to_type.shape:
        return v
    return emit.reshape(v, to_type.with_dtype(from_type.dtype))


def _broadcast_back(v: ir.Value, t: TensorType, axes: Sequence[int], full: TensorType) -> ir.Value:
    """A reduced value (axes dropped) broadcast back to the ``full`` shape."""
    kept = [i for i in range(full.ndim) if i not in axes]
    return emit.broadcast_in_dim(v, full.with_dtype(t.dtype), kept)


def _flatten(x: ir.Value, t: TensorType) -> tuple[ir.Value, TensorType]:
    flat = TensorType(t.dtype, (t.size,))
    return _reshape(x, t, flat), flat


# --- reductions -----------------------------------------------------------------------
_KINDS = {rd.Sum: "add", rd.Prod: "mul", rd.Max: "max", rd.Min: "min", rd.All: "and", rd.Any: "or"}


@register(rd.Sum)
@register(rd.Prod)
@register(rd.Max)
@register(rd.Min)
@register(rd.All)
@register(rd.Any)
def lower_reduce(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t, out = ctx.in_types[0], ctx.out_type
    kind = _KINDS[type(ctx.op)]
    # sums and products run in the output dtype (float16/bfloat16: float32);
    # all/any on x != 0; max/min in the input dtype
    acc = rd.accumulation_dtype(out.dtype) if kind in ("add", "mul") else out.dtype
    x = convert(x, t, acc)
    if kind in ("max", "min") and is_float(acc):
        r, rt = _reduce_float_extremum(x, t, ctx.op.axis, kind)
    else:
        if kind == "mul" and is_complex(acc):
            x = _first_times_one(x, t.with_dtype(acc), ctx.op.axis)
        r, rt = _reduce(x, t.with_dtype(acc), ctx.op.axis, kind)
    r = convert(r, rt, out.dtype)
    return [_reshape(r, rt.with_dtype(out.dtype), out)]


def _first_times_one(x: ir.Value, t: TensorType, axes: Sequence[int]) -> ir.Value:
    """``x`` with the first element of each reduced slice multiplied by ``1 + 0j`` part by
    part: NumPy's complex products start from the identity, so an infinite part of the
    first element makes its other part NaN (1 * (inf + 2j) = inf + nan j), even over one
    element, where XLA's reduce starts from the element itself. Over no axes (a 0-d
    ``x``, ``axis=()``) every element is the first of its slice."""
    ft = np.zeros((), t.dtype).real.dtype
    re, im = hlo.real(x), hlo.imag(x)
    zero = constant(0, ft, t.shape)
    once = hlo.complex(hlo.subtract(re, hlo.multiply(zero, im)), hlo.add(im, hlo.multiply(zero, re)))
    it = t.with_dtype(DTYPES["int64"])
    first = None
    for a in axes:
        at0 = compare(emit.iota(it, a), constant(0, it.dtype, t.shape), "EQ", it.dtype)
        first = at0 if first is None else hlo.and_(first, at0)
    return once if first is None else hlo.select(first, once, x)


@register(rd.Mean)
def lower_mean(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t, out = ctx.in_types[0], ctx.out_type
    acc = rd.accumulation_dtype(out.dtype)
    x = convert(x, t, acc)
    s, st = _reduce(x, t.with_dtype(acc), ctx.op.axis, "add")
    count = math.prod(t.shape[a] for a in ctx.op.axis)
    if count == 1 and is_complex(acc):
        # XLA takes x / 1 for x, but NumPy divides its sum (0 + a + b j) by 1 + 0j part
        # by part: (a + 0) + (b + 0) * 0 + ((b + 0) - (a + 0) * 0) j, so an infinite part
        # makes the other NaN; a + |b| * 0 + (b + |a| * 0) j is that, signed zeros included
        ft = np.zeros((), acc).real.dtype
        re, im, zero = hlo.real(s), hlo.imag(s), constant(0, ft, st.shape)
        m = hlo.complex(hlo.add(re, hlo.multiply(hlo.abs(im), zero)),
                        hlo.add(im, hlo.multiply(hlo.abs(re), zero)))
    else:
        # an empty axis gives 0 / 0 = NaN, as np.mean
        m = hlo.divide(s, constant(count, acc, st.shape))
    m = convert(m, st, out.dtype)
    return [_reshape(m, st.with_dtype(out.dtype), out)]


@register(rd.Argmax)
@register(rd.Argmin)
def lower_argmax_argmin(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    # A variadic reduce over (value, index) pairs, as jax's _compute_argminmax, with
    # a symmetric combiner: XLA may combine partial results in any order, so a tie
    # (equal values, or two NaNs) goes to the lower index whichever side it is on.
    t, out = ctx.in_types[0], ctx.out_type
    is_max = not isinstance(ctx.op, rd.Argmin)
    axis = ctx.op.axis
    if axis is None:
        x, t = _flatten(x, t)
        axis = 0
    dt = t.dtype
    idx_t = TensorType(_INT64, t.shape)
    iota = emit.iota(idx_t, axis)
    red_shape = [d for i, d in enumerate(t.shape) if i != axis]
    red_v, red_i = TensorType(dt, red_shape), TensorType(_INT64, red_shape)
    op = hlo.ReduceOp(
        [tensor_type(red_v), tensor_type(red_i)], [x, iota],
        # the identity: the least (greatest) value with an index no element has
        [constant(_extreme(dt, highest=not is_max), dt), constant(np.iinfo(np.int64).max, _INT64)],
        i64_array([axis]),
    )
    sv, si = scalar_type(dt), scalar_type(_INT64)
    block = op.regions[0].blocks.append(sv, si, sv, si)
    with ir.InsertionPoint(block):
        va, ia, vb, ib = block.arguments
        direction = "GT" if is_max else "LT"
        a_beats, b_beats = ordered_compare(va, vb, direction, dt), ordered_compare(vb, va, direction, dt)
        a_nan, b_nan = is_nan(va, dt), is_nan(vb, dt)
        if a_nan is not None:
            # NaN beats every number and two NaNs tie. A real comparison with NaN is
            # false already; a lexicographic one may not be, so mask it.
            if is_complex(dt):
                no_nan = hlo.not_(hlo.or_(a_nan, b_nan))
                a_beats, b_beats = hlo.and_(no_nan, a_beats), hlo.and_(no_nan, b_beats)
            a_beats = hlo.or_(hlo.and_(a_nan, hlo.not_(b_nan)), a_beats)
            b_beats = hlo.or_(hlo.and_(b_nan, hlo.not_(a_nan)), b_beats)
        tie = hlo.not_(hlo.or_(a_beats, b_beats))
        pick_a = hlo.or_(a_beats, hlo.and_(tie, compare(ia, ib, "LT", _INT64)))
        hlo.return_([hlo.select(pick_a, va, vb), hlo.select(pick_a, ia, ib)])
    return [_reshape(op.results[1], red_i, out)]


# --- cumulative reductions -------------------------------------------------------------
# Measured on XLA:CPU (jaxlib 0.10.2): the loop runs float32[2048, 2048] along axis 0 in
# ~3 ms where the reduce_window takes ~40-70 ms (jax.jit's cumsum too); the reduce_window
# is still ahead on axes of about a dozen elements.
#: up to this length of the axis, sums and products use one reduce_window (few ops, and
#: its O(n^2) work is small); longer axes, and every max/min, run the loop below
_WINDOW_MAX = 12
#: an axis whose inner dims hold fewer elements than this is moved to the front for the loop
_CONTIGUOUS_MIN = 16
#: slices of the axis each loop iteration combines (unrolled in the loop body)
_BLOCK = 8
_I64 = DTYPES["int64"]


def _cum_window(x: ir.Value, t: TensorType, axis: int, kind: str) -> ir.Value:
    # A window of the whole axis, padded in front with n - 1 identities: output i
    # reduces elements 0..i (jax's cumred_reduce_window_impl). O(n^2) work.
    n = t.shape[axis]
    window = [1] * t.ndim
    window[axis] = n
    padding = np.zeros((t.ndim, 2), np.int64)
    padding[axis, 0] = n - 1
    op = hlo.ReduceWindowOp(
        [tensor_type(t)], [x], [constant(_identity(kind, t.dtype), t.dtype)], i64_array(window),
        window_strides=i64_array([1] * t.ndim),
        padding=ir.DenseIntElementsAttr.get(padding, shape=[t.ndim, 2]),
    )
    block = reduce_region(op, t.dtype)
    with ir.InsertionPoint(block):
        hlo.return_([_combiner(kind, t.dtype)(*block.arguments)])
    return op.result


def _slice_axis(x: ir.Value, t: TensorType, axis: int, start: int, stop: int) -> ir.Value:
    starts, limits = [0] * t.ndim, list(t.shape)
    starts[axis], limits[axis] = start, stop
    return hlo.slice(x, i64_array(starts), i64_array(limits), i64_array([1] * t.ndim))


def _running(acc: ir.Value, block: ir.Value, bt: TensorType, axis: int, count: int,
             combine: Combiner) -> tuple[ir.Value, list[ir.Value]]:
    """Combines the ``count`` slices of ``block`` into ``acc`` one after the other,
    in order; returns the last accumulator and every intermediate one."""
    rows = []
    for j in range(count):
        acc = combine(acc, _slice_axis(block, bt, axis, j, j + 1))
        rows.append(acc)
    return acc, rows


def _concat(rows: list[ir.Value], axis: int) -> ir.Value:
    return rows[0] if len(rows) == 1 else hlo.concatenate(rows, axis)


def _cum_loop(x: ir.Value, t: TensorType, axis: int, kind: str, seed: ir.Value | None = None) -> ir.Value:
    """The running reduction of ``x`` along ``axis`` in the order NumPy uses (so sums
    round as numpy.cumsum does): a ``stablehlo.while`` carrying the running slice
    and the output, which starts as ``x`` and is overwritten in place: iteration
    ``i`` reads slices ``[i * B, (i + 1) * B)`` of the axis (still ``x``'s values)
    with ``dynamic_slice``, combines them one by one into the running slice, and
    writes the B results back with ``dynamic_update_slice``; the last ``n % B``
    slices follow the loop, unrolled. O(n) work along the axis, against the O(n^2)
    of a reduce_window: on CPU it runs at the speed of a compiled loop over rows.
    ``seed``: the running slice to start from (the identity when None)."""
    if seed is None and kind == "mul" and is_complex(t.dtype) and t.shape[axis] > 1:
        # NumPy's running product starts from the first slice: 1 * (inf + 2j) is
        # inf + nan j, so the identity may not lead
        n = t.shape[axis]
        rest_t = TensorType(t.dtype, [n - 1 if i == axis else d for i, d in enumerate(t.shape)])
        first = _slice_axis(x, t, axis, 0, 1)
        rest = _cum_loop(_slice_axis(x, t, axis, 1, n), rest_t, axis, kind, seed=first)
        return hlo.concatenate([first, rest], axis)
    n = t.shape[axis]
    combine = _combiner(kind, t.dtype)
    row_t = TensorType(t.dtype, [1 if i == axis else d for i, d in enumerate(t.shape)])
    ident = _identity(kind, t.dtype)
    if kind == "add" and (is_float(t.dtype) or is_complex(t.dtype)):
        ident = -0.0  # -0.0 + x is x for every x, signed zeros included
    acc = constant(ident, t.dtype, row_t.shape) if seed is None else seed
    n_iter, tail = divmod(n, _BLOCK)
    out = x
    if n_iter:
        blk_t = TensorType(t.dtype, [_BLOCK if i == axis else d for i, d in enumerate(t.shape)])
        idx_t = TensorType(_I64, ())
        types = [tensor_type(idx_t), tensor_type(row_t), tensor_type(t)]
        loop = hlo.WhileOp(types, [constant(0, _I64), acc, x])
        cond = loop.cond.blocks.append(*types)
        with ir.InsertionPoint(cond):
            hlo.return_([compare(cond.arguments[0], constant(n_iter, _I64), "LT", _I64)])
        body = loop.body.blocks.append(*types)
        with ir.InsertionPoint(body):
            i, b_acc, b_out = body.arguments
            zero = constant(0, _I64)
            start = hlo.multiply(i, constant(_BLOCK, _I64))
            starts = [start if d == axis else zero for d in range(t.ndim)]
            blk = hlo.dynamic_slice(b_out, starts, i64_array(blk_t.shape))
            b_acc, rows = _running(b_acc, blk, blk_t, axis, _BLOCK, combine)
            b_out = hlo.dynamic_update_slice(b_out, _concat(rows, axis), starts)
            hlo.return_([hlo.add(i, constant(1, _I64)), b_acc, b_out])
        _, acc, out = loop.results
    if tail:
        done = n - tail
        rest_t = TensorType(t.dtype, [tail if i == axis else d for i, d in enumerate(t.shape)])
        rest = x if done == 0 else _slice_axis(out, t, axis, done, n)
        _, rows = _running(acc, rest, rest_t, axis, tail, combine)
        rest = _concat(rows, axis)
        if not n_iter:
            return rest
        out = _concat([_slice_axis(out, t, axis, 0, done), rest], axis)
    return out


#: arrays from this size on run their running reductions on the CPU as an in-module
#: Numba loop (see _cum_host_loop)
_HOST_LOOP_MIN = 1 << 15


def _host_loop_target(ctx: LoweringContext, t: TensorType, kind: str) -> str | None:
    """The FFI target of a compiled running-reduction loop for ``t`` on the CPU, or
    None (too small, another platform, or no host calls available)."""
    calls = ctx.module.host_calls
    if t.size < _HOST_LOOP_MIN or calls is None or resolve_platform(ctx.module.platform) != "cpu":
        return None
    return calls.cumulative(kind, t.dtype)


def _cum_host_loop(ctx: LoweringContext, x: ir.Value, t: TensorType, axis: int, target: str) -> ir.Value:
    """The running reduction as an XLA FFI custom call to a compiled loop (CPU only):
    XLA:CPU runs the ``stablehlo.while`` of ``_cum_loop`` at a few microseconds per
    iteration, which a plain loop over rows does not pay (a 2048 x 2048 cumsum along
    axis 0 takes about half the time). The operand is viewed as ``[pre, n, post]``
    (free reshapes); the loop rounds exactly as ``_cum_loop`` and NumPy do."""
    pre = int(np.prod(t.shape[:axis], dtype=np.int64))
    post = int(np.prod(t.shape[axis + 1:], dtype=np.int64))
    vt = ctx.module.ir_type(TensorType(t.dtype, (pre, t.shape[axis], post)))
    (y,) = host_call(target, [hlo.reshape(vt, x)], [vt])
    return emit.reshape(y, t)


@register(rd.CumOp)
def lower_cum_op(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    t, out = ctx.in_types[0], ctx.out_type
    axis = ctx.op.axis
    if axis is None:
        x, t = _flatten(x, t)
        axis = 0
    kind = ctx.op.mode
    acc = rd.accumulation_dtype(out.dtype) if kind in ("add", "mul") else out.dtype
    x = convert(x, t, acc)
    t = t.with_dtype(acc)
    if type(t.shape[axis]) is SymDim:
        # the fast forms (a window for short axes, a blocked loop or a host loop for
        # long ones) are chosen by the length: lowered per call shape
        raise SymbolicDimError(f"a running reduction along the symbolic axis {axis} ({t.shape[axis]})")
    if t.size:
        # max/min never take the reduce_window: XLA:CPU may lose NaN in a reduction
        # with stablehlo.maximum (see _reduce_float_extremum)
        # (complex products: never, the window's padding multiplies the first slice by 1)
        if kind in ("add", "mul") and t.shape[axis] <= _WINDOW_MAX and not (kind == "mul" and is_complex(acc)):
            x = _cum_window(x, t, axis, kind)
        elif (target := _host_loop_target(ctx, t, kind)) is not None:
            x = _cum_host_loop(ctx, x, t, axis, target)
        elif axis == 0 or int(np.prod(t.shape[axis + 1:], dtype=np.int64)) >= _CONTIGUOUS_MIN:
            x = _cum_loop(x, t, axis, kind)
        else:
            # the slices of an inner axis are strided: run the loop on the axis moved to
            # the front, where each slice is contiguous
            perm = [axis] + [d for d in range(t.ndim) if d != axis]
            tt = TensorType(t.dtype, [t.shape[d] for d in perm])
            y = _cum_loop(hlo.transpose(x, i64_array(perm)), tt, 0, kind)
            x = hlo.transpose(y, i64_array([int(d) for d in np.argsort(perm)]))
    return [convert(x, t, out.dtype)]


# --- variance ---------------------------------------------------------------------------
@register(rd.Var)
@register(rd.Std)
def lower_var(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    # two passes, as numpy.var: the mean, then the mean of |x - mean|^2
    t, out = ctx.in_types[0], ctx.out_type
    axes = ctx.op.axis
    ct = t.with_dtype(rd.accumulation_dtype(rd.float_dtype(t.dtype)))
    rt = ct.with_dtype(rd.accumulation_dtype(out.dtype))
    x = convert(x, t, ct.dtype)
    count = math.prod(t.shape[a] for a in axes)
    s, st = _reduce(x, ct, axes, "add")
    m = hlo.divide(s, constant(count, ct.dtype, st.shape))
    d = hlo.subtract(x, _broadcast_back(m, st, axes, ct))
    if is_complex(ct.dtype):
        re, im = hlo.real(d), hlo.imag(d)
        sq = hlo.add(hlo.multiply(re, re), hlo.multiply(im, im))
    else:
        sq = hlo.multiply(d, d)
    s2, s2t = _reduce(sq, rt, axes, "add")
    # a divisor <= 0 gives inf (or NaN for 0 / 0), as numpy.var
    if type(count) is SymDim and ctx.op.ddof:
        n = hlo.maximum(dim_value(count - ctx.op.ddof), constant(0, _INT64))
        divisor = broadcast_to(hlo.convert(tensor_type(TensorType(rt.dtype, ())), n), TensorType(rt.dtype, ()),
                               s2t.shape)
    else:
        divisor = constant(max(count - ctx.op.ddof, 0), rt.dtype, s2t.shape)
    v = hlo.divide(s2, divisor)
    if isinstance(ctx.op, rd.Std):
        v = hlo.sqrt(v)
    v = convert(v, s2t, out.dtype)
    return [_reshape(v, s2t.with_dtype(out.dtype), out)]


# --- softmax family -----------------------------------------------------------------------
def _float_operand(ctx: LoweringContext, x: ir.Value) -> tuple[ir.Value, TensorType]:
    """The operand in its compute dtype (float16/bfloat16: float32)."""
    t = ctx.in_types[0]
    ct = t.with_dtype(rd.accumulation_dtype(t.dtype))
    return convert(x, t, ct.dtype), ct


def _finite_or_zero(v: ir.Value, t: TensorType) -> ir.Value:
    # scipy shifts by 0 where the maximum is not finite
    return hlo.select(hlo.is_finite(v), v, constant(0, t.dtype, t.shape))


# The softmax family reduces with a plain stablehlo.maximum: where XLA:CPU loses a NaN
# there (see _reduce_float_extremum), the NaN still reaches the sum of exponentials and
# makes the whole slice NaN, as in scipy.


@register(rd.Softmax)
def lower_softmax(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    x, ct = _float_operand(ctx, x)
    axes = ctx.op.axis
    m, mt = _reduce(x, ct, axes, "max")
    e = hlo.exponential(hlo.subtract(x, _broadcast_back(m, mt, axes, ct)))
    s, st = _reduce(e, ct, axes, "add")
    y = hlo.divide(e, _broadcast_back(s, st, axes, ct))
    return [convert(y, ct, ctx.out_type.dtype)]


@register(rd.LogSoftmax)
def lower_log_softmax(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    x, ct = _float_operand(ctx, x)
    axes = ctx.op.axis
    m, mt = _reduce(x, ct, axes, "max")
    shifted = hlo.subtract(x, _broadcast_back(_finite_or_zero(m, mt), mt, axes, ct))
    s, st = _reduce(hlo.exponential(shifted), ct, axes, "add")
    y = hlo.subtract(shifted, _broadcast_back(hlo.log(s), st, axes, ct))
    return [convert(y, ct, ctx.out_type.dtype)]


@register(rd.LogSumExp)
def lower_log_sum_exp(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    x, ct = _float_operand(ctx, x)
    axes, out = ctx.op.axis, ctx.out_type
    m, mt = _reduce(x, ct, axes, "max")
    m = _finite_or_zero(m, mt)
    s, st = _reduce(hlo.exponential(hlo.subtract(x, _broadcast_back(m, mt, axes, ct))), ct, axes, "add")
    y = convert(hlo.add(hlo.log(s), m), st, out.dtype)
    return [_reshape(y, st.with_dtype(out.dtype), out)]
