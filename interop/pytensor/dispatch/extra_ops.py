"""``pytensor.tensor.extra_ops``: CumOp, Repeat, Unique, SearchsortedOp, FillDiagonal
(and with an offset), UnravelIndex, RavelMultiIndex, Bartlett, CpuContiguous.

``unique`` runs on the host (value-dependent length), as does ``repeat`` with
repeats known only at run time."""

from __future__ import annotations

import importlib
import numpy as np

from ....frontend import builders as hb
from ..convert import NotConvertible, cast, hlograph_convert

pte = importlib.import_module("pytensor.tensor.extra_ops")  # (pytensor.tensor.extra_ops is also a function name)


@hlograph_convert.register(pte.CumOp)
def convert_cumop(op, node, inputs, ctx):
    (x,) = inputs
    x = cast(x, node.outputs[0].type.dtype)
    axis = op.axis
    if axis is None:
        x, axis = hb.reshape(x, (-1,)), 0
    fn = {"add": hb.cumsum, "mul": hb.cumprod}.get(op.mode)
    if fn is None:
        raise NotConvertible(f"CumOp mode {op.mode!r}")
    return fn(x, axis=axis)


@hlograph_convert.register(pte.Repeat)
def convert_repeat(op, node, inputs, ctx):
    x, repeats = inputs
    counts = ctx.static(repeats)
    if counts is None:
        return hb.dynamic_repeat(x, repeats, axis=op.axis)
    counts = np.asarray(counts, dtype=np.int64)
    return hb.repeat(x, counts if counts.ndim else int(counts), axis=op.axis)


@hlograph_convert.register(pte.Unique)
def convert_unique(op, node, inputs, ctx):
    (x,) = inputs
    if op.axis is not None:
        raise NotConvertible("unique along an axis")
    res = hb.unique(x, return_index=op.return_index, return_inverse=op.return_inverse,
                    return_counts=op.return_counts)
    outs = list(res) if isinstance(res, (tuple, list)) else [res]
    # PyTensor's inverse is flat (NumPy 1's)
    return [hb.reshape(o, (-1,)) if o.ndim != v.type.ndim and v.type.ndim == 1 else o
            for o, v in zip(outs, node.outputs)]


@hlograph_convert.register(pte.SearchsortedOp)
def convert_searchsorted(op, node, inputs, ctx):
    a, v, *sorter = inputs
    if sorter and sorter[0] is not None:
        a = hb.take(a, sorter[0])
    if v.dtype != a.dtype:
        from pytensor.scalar import upcast
        dt = upcast(a.dtype.name, v.dtype.name)
        a, v = cast(a, dt), cast(v, dt)
    return hb.searchsorted(a, v, side=op.side)


@hlograph_convert.register(pte.FillDiagonal)
def convert_fill_diagonal(op, node, inputs, ctx):
    a, val = inputs
    return hb.fill_diagonal(a, cast(val, a.dtype))


@hlograph_convert.register(pte.FillDiagonalOffset)
def convert_fill_diagonal_offset(op, node, inputs, ctx):
    a, val, offset = inputs
    k = ctx.require_int(offset, "the offset of fill_diagonal")
    return hb.fill_diagonal(a, cast(val, a.dtype), offset=k)


@hlograph_convert.register(pte.UnravelIndex)
def convert_unravel_index(op, node, inputs, ctx):
    indices, dims = inputs
    if op.order != "C":
        raise NotConvertible(f"unravel_index with order={op.order!r}")
    shape = ctx.require_ints(dims, "the dims of unravel_index")
    return list(hb.unravel_index(indices, shape))


@hlograph_convert.register(pte.RavelMultiIndex)
def convert_ravel_multi_index(op, node, inputs, ctx):
    *multi_index, dims = inputs
    if op.order != "C":
        raise NotConvertible(f"ravel_multi_index with order={op.order!r}")
    shape = ctx.require_ints(dims, "the dims of ravel_multi_index")
    return hb.ravel_multi_index(tuple(multi_index), shape, mode=op.mode)


@hlograph_convert.register(pte.Bartlett)
def convert_bartlett(op, node, inputs, ctx):
    (m,) = inputs
    return hb.bartlett(ctx.require_int(m, "the length of bartlett"))


@hlograph_convert.register(pte.CpuContiguous)
def convert_contiguous(op, node, inputs, ctx):
    return inputs[0]

