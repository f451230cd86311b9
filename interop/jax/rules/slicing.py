"""Slicing and indexing: ``slice``, ``dynamic_slice``, ``dynamic_update_slice``,
``gather`` and the ``scatter`` family, as hlograph's basic and advanced
indexing (``x[idx]`` and ``hg.at(x)[idx].set/add/...``) and its dynamic slices.

``dynamic_slice`` and ``dynamic_update_slice`` are ``hg.dynamic_slice`` and
``hg.dynamic_update_slice``, which clamp the starts as the primitives do (jax
wraps negative starts with ops of its own before them); a dynamic slice at
known starts is a static slice.

``gather`` and ``scatter`` translate in general (any dimension numbers): each
operand dim that the start indices (or batching dims) address gets an index
array, ``start + offset`` broadcast over the result dims it spans; the other
dims are static slices. NumPy's advanced indexing then gives the selected
values, which are transposed into jax's dim order (for a scatter, the updates
are transposed into the indexed layout instead). Start indices are clamped so
that a whole window fits, as XLA does; in ``FILL_OR_DROP`` mode a gather
fills the windows that do not fit with the fill value and a scatter drops them
(their index is moved out of range, which hlograph's scatter drops). A scatter
whose function ignores its updates (``x.at[idx].apply(fn)``) applies ``fn`` as
many times as an element is indexed, as XLA does.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from jax import lax

from ....frontend.graph import Variable
from ..avals import Literal
from ..registry import Unsupported, register
from .common import const, hg, ints, place, static_value

Mode = lax.GatherScatterMode


@register("slice")
def slice_(x, *, start_indices, limit_indices, strides=None):
    strides = ints(strides) if strides is not None else (1,) * x.ndim
    key = tuple(slice(int(a), int(b), s) for a, b, s in zip(start_indices, limit_indices, strides))
    if all(k == slice(0, n, 1) for k, n in zip(key, x.shape)):
        return x
    return x[key]


@register("dynamic_slice")
def dynamic_slice(x, *starts, slice_sizes):
    sizes = ints(slice_sizes)
    if len(starts) != x.ndim:
        raise Unsupported("dynamic slice sizes")
    values = [static_value(s) for s in starts]
    if all(v is not None for v in values):
        # known starts: a static slice (clamped as the primitive clamps them)
        first = [min(max(int(v), 0), n - size) for v, n, size in zip(values, x.shape, sizes)]
        return slice_(x, start_indices=first, limit_indices=[f + n for f, n in zip(first, sizes)])
    return hg.dynamic_slice(x, starts, sizes)


@register("dynamic_update_slice")
def dynamic_update_slice(x, update, *starts):
    return hg.dynamic_update_slice(x, update, starts)


# --- gather and scatter --------------------------------------------------------------
def _mode(mode: Any) -> Mode:
    mode = Mode.from_any(mode) if not isinstance(mode, Mode) else mode
    if mode not in (Mode.CLIP, Mode.FILL_OR_DROP, Mode.PROMISE_IN_BOUNDS):
        raise Unsupported(f"mode {mode.name}")
    return mode


def _expand(x: Variable, positions: Sequence[int], rank: int) -> Variable:
    """``x`` with its dims at ``positions`` (increasing) of a rank-``rank`` value, size 1 elsewhere."""
    unit = [1] * rank
    for d, p in zip(x.shape, positions):
        unit[p] = d
    return x if list(x.shape) == unit else hg.reshape(x, unit)


def _indexing(operand: Variable, indices: Variable, start_map: Sequence[int],
              operand_batching: Sequence[int], indices_batching: Sequence[int],
              unit_dims: Sequence[int], window: dict[int, int], batch_pos: Sequence[int],
              sizes: Sequence[int], mode: Mode, drop: bool = False):
    """What gather and scatter share. Output (update) positions: ``batch_pos`` for the
    index batch dims, ``window[d]`` for the window dim of operand dim ``d``. Returns the
    index key for ``operand``, the positions of the dims of ``operand[key]`` and the
    validity mask of the windows (over the array dims, or None)."""
    rank = operand.ndim
    array_dims = sorted(set(start_map) | set(operand_batching)
                        | {d for d in unit_dims if d not in start_map})
    span = sorted(set(batch_pos) | {window[d] for d in array_dims if d in window})
    where = {p: i for i, p in enumerate(span)}
    batch_at = [where[p] for p in batch_pos]
    idx_dtype = indices.dtype if indices.dtype.kind in "iu" else np.dtype(np.int32)
    valid = None
    starts: dict[int, Variable] = {}
    for k, d in enumerate(start_map):
        s = indices[(Ellipsis, k)]
        if s.dtype != idx_dtype:
            s = hg.astype(s, idx_dtype)
        limit = operand.shape[d] - sizes[d]
        if mode == Mode.FILL_OR_DROP:
            ok = hg.logical_and(hg.greater_equal(s, const(0, idx_dtype)),
                                hg.less_equal(s, const(limit, idx_dtype)))
            valid = ok if valid is None else hg.logical_and(valid, ok)
        starts[d] = _expand(hg.minimum(hg.maximum(s, const(0, idx_dtype)), const(max(limit, 0), idx_dtype)),
                            batch_at, len(span))
    for d, c in zip(operand_batching, indices_batching):
        ramp = hg.arange(indices.shape[c], dtype=idx_dtype)
        starts[d] = _expand(ramp, [batch_at[c]], len(span))
    if valid is not None:
        valid = _expand(valid, batch_at, len(span))
    key: list[Any] = []
    for d in range(rank):
        if d not in array_dims:
            key.append(slice(0, sizes[d]))
            continue
        index = starts.get(d)
        if d in window:
            ramp = _expand(hg.arange(sizes[d], dtype=idx_dtype), [where[window[d]]], len(span))
            index = ramp if index is None else hg.add(index, ramp)
        elif index is None:
            index = _expand(const(0, idx_dtype), [], len(span))
        if drop and valid is not None and d == start_map[0]:
            index = hg.where(valid, index, const(operand.shape[d], idx_dtype))
        key.append(index)
    # the dims of operand[key], NumPy's rule: the index arrays' dims replace the indexed
    # dims in place when those are adjacent, else they go first
    sliced = [window[d] for d in range(rank) if d not in array_dims]
    if not array_dims:
        positions = sliced
    elif array_dims[-1] - array_dims[0] + 1 == len(array_dims):
        first = array_dims[0]
        before = [window[d] for d in range(first) if d not in array_dims]
        positions = before + span + sliced[len(before):]
    else:
        positions = span + sliced
    return tuple(key), positions, (valid, span)


def _fill(dtype: np.dtype, fill_value: Any) -> Variable:
    if fill_value is not None:
        return const(fill_value, dtype)
    if dtype.kind in "fc":
        return const(np.nan, dtype)
    if dtype == np.bool_:
        return const(True, dtype)
    info = np.iinfo(dtype)
    return const(info.min if dtype.kind == "i" else info.max, dtype)


@register("gather")
def gather(operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value=None,
           indices_are_sorted=False, unique_indices=False):
    dn = dimension_numbers
    mode = _mode(mode)
    sizes = ints(slice_sizes)
    offset_dims = ints(dn.offset_dims)
    collapsed, start_map = ints(dn.collapsed_slice_dims), ints(dn.start_index_map)
    operand_batching, indices_batching = ints(dn.operand_batching_dims), ints(dn.start_indices_batching_dims)
    batch_shape = indices.shape[:-1]
    out_rank = len(batch_shape) + len(offset_dims)
    batch_pos = [p for p in range(out_rank) if p not in offset_dims]
    offset_operand = [d for d in range(operand.ndim) if d not in collapsed and d not in operand_batching]
    window = dict(zip(offset_operand, offset_dims))
    out_shape = [0] * out_rank
    for p, n in zip(batch_pos, batch_shape):
        out_shape[p] = n
    for d, p in window.items():
        out_shape[p] = sizes[d]
    key, positions, (valid, span) = _indexing(operand, indices, start_map, operand_batching,
                                              indices_batching, collapsed, window, batch_pos, sizes, mode)
    # x[key] is the rank-0 operand itself when nothing indexes it
    taken = operand[key] if key else operand
    result = place(taken, positions, out_shape)
    if valid is not None:
        result = hg.where(place(valid, span, out_shape), result, _fill(operand.dtype, fill_value))
    return result


_SCATTER_MODES = {"scatter": "set", "scatter-add": "add", "scatter-sub": "add", "scatter-mul": "mul",
                  "scatter-min": "min", "scatter-max": "max"}


def _scatter(name: str):
    how = _SCATTER_MODES[name]

    def rule(operand, indices, updates, *, dimension_numbers, mode, update_jaxpr=None,
             update_consts=(), indices_are_sorted=False, unique_indices=False):
        if name == "scatter" and update_jaxpr is not None:
            jaxpr = getattr(update_jaxpr, "jaxpr", update_jaxpr)
            if jaxpr.eqns or len(jaxpr.invars) != 2 or jaxpr.outvars[0] is not jaxpr.invars[1]:
                return _scatter_apply(operand, indices, updates, update_jaxpr, update_consts,
                                      dimension_numbers, mode)
        dn = dimension_numbers
        mode = _mode(mode)
        window_dims = ints(dn.update_window_dims)
        inserted, start_map = ints(dn.inserted_window_dims), ints(dn.scatter_dims_to_operand_dims)
        operand_batching = ints(dn.operand_batching_dims)
        indices_batching = ints(dn.scatter_indices_batching_dims)
        batch_pos = [p for p in range(updates.ndim) if p not in window_dims]
        window_operand = [d for d in range(operand.ndim) if d not in inserted and d not in operand_batching]
        window = dict(zip(window_operand, window_dims))
        sizes = [updates.shape[window[d]] if d in window else 1 for d in range(operand.ndim)]
        key, positions, _ = _indexing(operand, indices, start_map, operand_batching, indices_batching,
                                      inserted, window, batch_pos, sizes, mode, drop=True)
        if not key:  # a rank-0 operand: the update is the value
            raise Unsupported("a scatter into a rank-0 operand")
        if list(positions) != sorted(positions):
            updates = hg.transpose(updates, list(positions))
        if name == "scatter-sub":
            updates = hg.negative(updates)
        ref = hg.at(operand)[key]
        return {"set": ref.set, "add": ref.add, "mul": ref.multiply, "min": ref.min, "max": ref.max}[how](updates)

    rule.__name__ = rule.__qualname__ = name.replace("-", "_")
    return rule


def _scatter_apply(operand, indices, updates, update_jaxpr, update_consts, dimension_numbers, mode):
    """A scatter whose function ignores the updates (``x.at[idx].apply(fn)``): XLA applies
    it once per update, so an element indexed ``c`` times is ``fn`` applied ``c`` times
    (the counts: a scatter-add of ones; the repeated application: a loop up to the
    largest count, jax's, traced and imported)."""
    import jax
    import jax.numpy as jnp
    from jax import lax as jlax

    from .control import inline
    closed = update_jaxpr if hasattr(update_jaxpr, "jaxpr") else None
    jaxpr = closed.jaxpr if closed is not None else update_jaxpr
    consts = list(closed.consts) if closed is not None else list(update_consts)
    used = {v for e in jaxpr.eqns for v in e.invars if not isinstance(v, Literal)} | set(jaxpr.outvars)
    if len(jaxpr.invars) != 2 or jaxpr.invars[1] in used:
        raise Unsupported("a scatter combining the operand with the updates by a function of its own")
    int32 = np.dtype(np.int32)
    counts = _scatter("scatter-add")(hg.zeros(tuple(operand.shape), dtype=int32), indices,
                                     hg.ones(tuple(updates.shape), dtype=int32),
                                     dimension_numbers=dimension_numbers, mode=mode)
    dummy = np.zeros((), jaxpr.invars[1].aval.dtype)
    fn = jnp.vectorize(lambda v: jax.core.eval_jaxpr(jaxpr, consts, v, dummy)[0])

    def repeated(x, c):
        return jlax.fori_loop(0, jnp.max(c, initial=0), lambda i, x: jnp.where(c > i, fn(x), x), x)

    with jax.enable_x64(bool(jax.config.jax_enable_x64) or operand.dtype.itemsize == 8):
        traced = jax.make_jaxpr(repeated)(jax.ShapeDtypeStruct(tuple(operand.shape), operand.dtype),
                                          jax.ShapeDtypeStruct(tuple(operand.shape), int32))
    return inline(traced, operand, counts)[0]


for _name in _SCATTER_MODES:
    register(_name)(_scatter(_name))
