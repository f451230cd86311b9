"""Reductions: ``reduce_sum``/``max``/``min``/``prod``/``and``/``or``, ``argmax``
and ``argmin``, ``psum``/``pmax``/``pmin`` over vmapped (positional) axes, the
cumulative ``cumsum``/``cumprod``/``cummax``/``cummin`` (hlograph's CumOp) and
``cumlogsumexp`` (a prefix scan of ``hg.logaddexp``), the windowed
``reduce_window_sum``/``max``/``min`` (pooling) with the max pool's derivatives,
and ``reduce`` and ``reduce_window`` with a combining function of their own
(``lax.reduce``, ``lax.reduce_window``).

A windowed reduction is the combination of one strided slice per window
position: the operand is padded with the reduction's identity (base dilation as
interior padding), and the slice at each window offset, taken in the window's
row-major order, is added (or maxed) into the result, the order XLA's
reduce_window combines a window in. The max pool's derivatives are windowed
too: ``select_and_gather_add`` (the tangent where each window's operand is
selected) and ``select_and_scatter_add`` (each window's cotangent added where
its operand is selected: one interior-padded slice per window position). The
selection keeps the earlier position unless the later one beats it
(``select_prim``: ``ge`` for a max, ``le`` for a min), as XLA's select does;
padding is never selected. Windows of more than ``MAX_WINDOW`` elements go
through the fallback.

jax keeps the operand's dtype where NumPy widens (sums of int32 are int64 in
NumPy): the interpreter casts the results back, which wraps as jax's sums do.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np

from ....frontend.types import is_float
from ..registry import Unsupported, register
from .common import const, hg, ints

#: the largest window (in elements) a windowed reduction is unrolled for
MAX_WINDOW = 256


def _reduction(name: str, builder, bitwise=None) -> None:
    def rule(x, *, axes, out_sharding=None, **params):
        axes = tuple(int(a) for a in axes)
        if not axes:
            return x
        if bitwise is not None and x.dtype != np.bool_:
            # a bitwise reduction of integers: halved with the bitwise op (exact)
            init = -1 if name == "reduce_and" and x.dtype.kind == "i" else \
                np.iinfo(x.dtype).max if name == "reduce_and" else 0
            return _halving([x], axes, lambda a, b: [bitwise(a[0], b[0])], [const(init, x.dtype)])[0]
        return builder(x, axis=axes)

    rule.__name__ = rule.__qualname__ = name
    register(name)(rule)


def _halving(operands, dims, combine, inits, final=False):
    """A reduction of ``operands`` over ``dims`` by an elementwise ``combine(lhs, rhs)``
    of lists of arrays: the dims moved last and flattened, then the first half combined
    with the second until one element is left (an odd length padded with ``inits``);
    ``final``: combined with the initial values last."""
    keep = [d for d in range(operands[0].ndim) if d not in dims]
    kept_shape = tuple(operands[0].shape[d] for d in keep)
    size = int(np.prod([operands[0].shape[d] for d in dims]))
    inits = [i if i.dtype == x.dtype else hg.astype(i, x.dtype) for i, x in zip(inits, operands)]
    if size == 0:
        return [hg.broadcast_to(i, kept_shape) for i in inits]
    flat = [hg.reshape(hg.transpose(x, keep + list(dims)) if keep + list(dims) != list(range(x.ndim)) else x,
                       (*kept_shape, size)) for x in operands]
    while size > 1:
        if size % 2:
            flat = [hg.concatenate([x, hg.broadcast_to(i, (*kept_shape, 1))], axis=-1) for x, i in zip(flat, inits)]
            size += 1
        half = size // 2
        flat = combine([x[(Ellipsis, slice(0, half))] for x in flat], [x[(Ellipsis, slice(half, size))] for x in flat])
        size = half
    flat = [hg.reshape(x, kept_shape) for x in flat]
    return combine([hg.broadcast_to(i, kept_shape) for i in inits], flat) if final else flat


_reduction("reduce_sum", hg.sum)
_reduction("reduce_prod", hg.prod)
_reduction("reduce_max", hg.max)
_reduction("reduce_min", hg.min)
_reduction("reduce_and", hg.all, bitwise=hg.bitwise_and)
_reduction("reduce_or", hg.any, bitwise=hg.bitwise_or)
_reduction("reduce_xor", lambda x, axis: hg.not_equal(hg.remainder(hg.sum(hg.astype(x, np.int32), axis=axis),
                                                                   const(2, np.int32)), const(0, np.int32)),
           bitwise=hg.bitwise_xor)


def _collective(name: str, builder) -> None:
    # a collective over vmapped axes (``jax.vmap(..., axis_name=...)``) is left with
    # positional axes: a reduction over them, broadcast back by the jaxpr
    def rule(*xs, axes, axis_index_groups=None, **params):
        if axis_index_groups is not None or not all(isinstance(a, (int, np.integer)) for a in axes):
            raise Unsupported("a collective over named (mapped) axes")
        axes = tuple(int(a) for a in axes)
        return [builder(x, axis=axes) if axes else x for x in xs]

    rule.__name__ = rule.__qualname__ = name
    register(name)(rule)


_collective("psum", hg.sum)
_collective("pmax", hg.max)
_collective("pmin", hg.min)


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


@register("cumlogsumexp")
def cumlogsumexp(x, *, axis, reverse=False):
    """The running ``logaddexp`` along ``axis``: an inclusive prefix scan (Hillis and
    Steele: ``ceil(log2(n))`` steps, each combining every element with the one
    ``2**k`` before it, -inf before the start), so each result is a tree of
    ``hg.logaddexp`` of depth ``log2(n)``, as XLA's rewrite of jax's reduce_window
    lowering combines it; ``reverse`` scans the flipped operand."""
    if not is_float(x.dtype):
        raise Unsupported(f"cumlogsumexp of {x.dtype}")
    if x.ndim == 0:
        return x
    axis = int(axis)
    n = x.shape[axis]
    if n <= 1:
        return x
    y = hg.flip(x, axis) if reverse else x
    lead = [slice(None)] * x.ndim
    shift = 1
    while shift < n:
        before = list(lead)
        before[axis] = slice(0, n - shift)
        pad_shape = list(x.shape)
        pad_shape[axis] = shift
        shifted = hg.concatenate([hg.broadcast_to(const(-np.inf, x.dtype), pad_shape), y[tuple(before)]], axis=axis)
        y = hg.logaddexp(shifted, y)
        shift *= 2
    return hg.flip(y, axis) if reverse else y


def _identity(name: str, dtype: np.dtype):
    if name == "sum":
        return const(0, dtype)
    if dtype == np.bool_:
        return const(name == "min", dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return const(info.min if name == "max" else info.max, dtype)
    return const(-np.inf if name == "max" else np.inf, dtype)


def _windowed(name: str, combine) -> None:
    def rule(x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
        from .shape import pad
        window, strides, dilation = ints(window_dimensions), ints(window_strides), ints(window_dilation)
        if int(np.prod(window)) > MAX_WINDOW:
            raise Unsupported(f"a window of {int(np.prod(window))} elements")
        if name == "sum" and x.dtype == np.bool_:
            raise Unsupported("a windowed sum of booleans")
        init = _identity(name, x.dtype)
        config = [(int(lo), int(hi), int(b) - 1) for (lo, hi), b in zip(padding, ints(base_dilation))]
        if any(c != (0, 0, 0) for c in config):
            x = pad(x, init, padding_config=config)
        out = [(n - (w - 1) * d - 1) // s + 1 for n, w, d, s in zip(x.shape, window, dilation, strides)]
        if any(n <= 0 for n in out):
            raise Unsupported("an empty windowed reduction")
        acc = None
        for offset in itertools.product(*(range(w) for w in window)):
            key = tuple(slice(o * d, o * d + (n - 1) * s + 1, s)
                        for o, d, n, s in zip(offset, dilation, out, strides))
            part = x[key] if any(k != slice(0, m, 1) for k, m in zip(key, x.shape)) else x
            acc = part if acc is None else combine(acc, part)
        return acc

    rule.__name__ = rule.__qualname__ = f"reduce_window_{name}"
    register(f"reduce_window_{name}")(rule)


_windowed("sum", hg.add)
_windowed("max", hg.maximum)
_windowed("min", hg.minimum)


@register("reduce_window")
def reduce_window(*args, jaxpr, consts, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation):
    """``lax.reduce_window`` with a combining function of its own, over one or several
    operands, as XLA's reduce_window computes each output: the initial values, then
    each element of the window in row-major order combined into the accumulator
    (``acc = f(acc, element)``), padding and base-dilation holes skipped. The function
    (a jaxpr on scalars) is imported elementwise on the output shape (``jnp.vectorize``
    of it, traced by jax once)."""
    from .control import inline
    from .shape import pad
    n = len(args) // 2
    operands, inits = list(args[:n]), list(args[n:])
    window, strides, dilation = ints(window_dimensions), ints(window_strides), ints(window_dilation)
    if int(np.prod(window)) > MAX_WINDOW:
        raise Unsupported(f"a window of {int(np.prod(window))} elements")
    config = [(int(lo), int(hi), int(b) - 1) for (lo, hi), b in zip(padding, ints(base_dilation))]
    valid = None
    if any(c != (0, 0, 0) for c in config):
        valid = pad(hg.ones(tuple(operands[0].shape), dtype=np.bool_), const(False, np.bool_), padding_config=config)
        operands = [pad(x, i, padding_config=config) for x, i in zip(operands, inits)]
    shape = operands[0].shape
    out = tuple((m - (w - 1) * d - 1) // s + 1 for m, w, d, s in zip(shape, window, dilation, strides))
    if any(m < 0 for m in out):
        raise Unsupported("a window larger than the padded operand")
    acc = [hg.broadcast_to(i, out) for i in inits]
    if 0 in out or 0 in window:
        return acc
    x64 = bool(jax.config.jax_enable_x64) or any(x.dtype.itemsize == 8 for x in operands)
    body = lambda *v: tuple(jax.core.eval_jaxpr(jaxpr, consts, *v))  # noqa: E731
    with jax.enable_x64(x64):
        closed = jax.make_jaxpr(jnp.vectorize(body))(*(jax.ShapeDtypeStruct(out, v.dtype) for v in acc + acc))
    for offset in itertools.product(*(range(w) for w in window)):
        key = tuple(slice(o * d, o * d + (m - 1) * s + 1, s) for o, d, m, s in zip(offset, dilation, out, strides))
        parts = [x[key] if any(k != slice(0, m, 1) for k, m in zip(key, x.shape)) else x for x in operands]
        combined = inline(closed, *acc, *parts)
        if valid is not None:
            ok = valid[key]
            combined = [hg.where(ok, c, a) for c, a in zip(combined, acc)]
        acc = combined
    return acc


def _select(select_prim):
    name = getattr(select_prim, "name", str(select_prim))
    if name == "ge":
        return hg.greater_equal, "max"
    if name == "le":
        return hg.less_equal, "min"
    raise Unsupported(f"a window selection by {name}")


def _window_slices(shape, window, strides, dilation):
    """(output shape, [(offset, key)] per window position in row-major order)."""
    out = [(n - (w - 1) * d - 1) // s + 1 for n, w, d, s in zip(shape, window, dilation, strides)]
    if any(n <= 0 for n in out):
        raise Unsupported("an empty window")
    keys = []
    for offset in itertools.product(*(range(w) for w in window)):
        keys.append((offset, tuple(slice(o * d, o * d + (n - 1) * s + 1, s)
                                   for o, d, n, s in zip(offset, dilation, out, strides))))
    return out, keys


def _selected(operand, select_prim, window, strides, padding, base_dilation, dilation):
    """Per window, the position selected (int32 of the output shape), the output
    shape, the window positions' slices, the padded operand's shape and the padding."""
    from .shape import pad
    if int(np.prod(window)) > MAX_WINDOW:
        raise Unsupported(f"a window of {int(np.prod(window))} elements")
    better, kind = _select(select_prim)
    config = [(int(lo), int(hi), int(b) - 1) for (lo, hi), b in zip(padding, base_dilation)]
    valid = None
    if any(c != (0, 0, 0) for c in config):
        valid = pad(hg.ones(tuple(operand.shape), dtype=np.bool_), const(False, np.bool_), padding_config=config)
        operand = pad(operand, _identity(kind, operand.dtype), padding_config=config)
    out, keys = _window_slices(operand.shape, window, strides, dilation)
    best = best_ok = index = None
    for i, (_, key) in enumerate(keys):
        v = operand[key]
        if best is None:
            best, index = v, hg.zeros(out, dtype=np.int32)
            best_ok = valid[key] if valid is not None else None
            continue
        # the later position replaces the kept one unless the kept one is selected over it
        take = hg.logical_not(better(best, v))
        if valid is not None:
            ok = valid[key]
            take = hg.logical_and(ok, hg.logical_or(take, hg.logical_not(best_ok)))
            best_ok = hg.logical_or(best_ok, ok)
        best = hg.where(take, v, best)
        index = hg.where(take, const(i, np.int32), index)
    return index, out, keys, tuple(operand.shape), config


@register("select_and_gather_add")
def select_and_gather_add(tangents, operand, *, select_prim, window_dimensions, window_strides, padding,
                          base_dilation, window_dilation):
    from .shape import pad
    index, out, keys, _, config = _selected(operand, select_prim, ints(window_dimensions), ints(window_strides),
                                            padding, ints(base_dilation), ints(window_dilation))
    if any(c != (0, 0, 0) for c in config):
        tangents = pad(tangents, const(0, tangents.dtype), padding_config=config)
    result = None
    for i, (_, key) in enumerate(keys):
        t = tangents[key]
        result = t if result is None else hg.where(hg.equal(index, const(i, np.int32)), t, result)
    return result


@register("select_and_scatter_add")
def select_and_scatter_add(source, operand, *, select_prim, window_dimensions, window_strides, padding):
    from .shape import pad
    window, strides = ints(window_dimensions), ints(window_strides)
    ones = (1,) * operand.ndim
    index, out, keys, padded_shape, config = _selected(operand, select_prim, window, strides, padding, ones, ones)
    zero = const(0, source.dtype)
    total = None
    for i, (offset, _) in enumerate(keys):
        part = hg.where(hg.equal(index, const(i, np.int32)), source, zero)
        # back to the padded operand's positions offset + k * stride
        spread = [(o, n - (o + (m - 1) * s + 1), s - 1) for o, n, m, s in zip(offset, padded_shape, out, strides)]
        part = pad(part, zero, padding_config=spread)
        total = part if total is None else hg.add(total, part)
    if any(c != (0, 0, 0) for c in config):
        total = pad(total, zero, padding_config=[(-lo, -hi, 0) for lo, hi, _ in config])
    return total


@register("reduce")
def reduce(*args, computation=None, jaxpr, dimensions):
    """``lax.reduce`` with a combining function of its own over several operands,
    halved (``_halving``) and combined with the initial values last. The function, a
    jaxpr on scalars, is imported elementwise on the halves' shape (``jnp.vectorize``
    of it, traced by jax)."""
    from .control import inline
    n = len(args) // 2
    operands, inits = list(args[:n]), list(args[n:])
    dims = tuple(int(d) for d in dimensions)
    if not dims:
        return operands
    x64 = bool(jax.config.jax_enable_x64) or any(x.dtype.itemsize == 8 for x in operands)

    def combine(lhs, rhs):
        shape = tuple(lhs[0].shape)
        body = lambda *v: tuple(jax.core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *v))  # noqa: E731
        with jax.enable_x64(x64):
            closed = jax.make_jaxpr(jnp.vectorize(body))(*(jax.ShapeDtypeStruct(shape, v.dtype) for v in lhs + rhs))
        return inline(closed, *lhs, *rhs)

    return _halving(operands, dims, combine, inits, final=True)
