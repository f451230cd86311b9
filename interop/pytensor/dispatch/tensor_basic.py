"""Construction and assembly (``pytensor.tensor.basic``): Alloc, AllocEmpty,
MakeVector, Join, Split, ExtractDiag, Eye, ARange, Nonzero and the scalar/tensor
conversions.

Shapes and sizes are static in hlograph Ops: after the graph is specialized to
the shapes of its arguments they are constants (folded shape arithmetic).
``eye`` and ``arange`` with sizes that depend on values run on the host
(hlograph's dynamic ops); other value-dependent shapes run PyTensor's perform.
"""

from __future__ import annotations

import importlib
import numpy as np

from ....frontend import builders as hb
from ....frontend.graph import Constant
from ..convert import NotConvertible, NotStatic, cast, hlograph_convert

ptb = importlib.import_module("pytensor.tensor.basic")  # (pytensor.tensor.basic is also a function name)


@hlograph_convert.register(ptb.Alloc)
def convert_alloc(op, node, inputs, ctx):
    value, *shape = inputs
    dims = ctx.require_ints(shape, "the shape of Alloc")
    out = hb.broadcast_to(cast(value, node.outputs[0].type.dtype), dims)
    # as PyTensor's Alloc: a value dimension not known to be 1 (None in its type) that is
    # 1 at run time and broadcast to another length is an error, not a broadcast
    v_type_shape = node.inputs[0].type.shape
    v_shape = getattr(value, "shape", ())
    offset = len(dims) - len(v_type_shape)
    for i, static_dim in enumerate(v_type_shape):
        if static_dim is not None:
            continue
        if v_shape[i] is None:
            ctx.mark_shape_dependent()  # known once specialized to the argument shapes
        elif v_shape[i] == 1 and dims[offset + i] != 1:
            msg = ptb.Alloc._runtime_broadcast_error_msg
            ctx.checks[msg] = ValueError
            return hb.check_and_raise(out, hb.constant(False), msg)
    return out


@hlograph_convert.register(ptb.AllocEmpty)
def convert_alloc_empty(op, node, inputs, ctx):
    dims = ctx.require_ints(inputs, "the shape of AllocEmpty")
    return hb.zeros(dims, op.dtype)


@hlograph_convert.register(ptb.MakeVector)
def convert_make_vector(op, node, inputs, ctx):
    dt = node.outputs[0].type.dtype
    if not inputs:
        return Constant(np.zeros((0,), dt))
    out = hb.stack([cast(hb.reshape(x, ()), dt) for x in inputs])
    entries = [ctx.static_int(x, needed=False) if np.dtype(dt).kind in "iu" else None for x in inputs]
    ctx.set_partial(out, entries)
    return out


@hlograph_convert.register(ptb.Join)
def convert_join(op, node, inputs, ctx):
    axis, *tensors = inputs
    ax = ctx.require_int(axis, "the axis of Join")
    dt = node.outputs[0].type.dtype
    tensors = [cast(t, dt) for t in tensors]
    if len(tensors) == 1:
        return tensors[0]
    return hb.concatenate(tensors, axis=ax)


@hlograph_convert.register(ptb.Split)
def convert_split(op, node, inputs, ctx):
    x, axis, splits = inputs
    ax = ctx.require_int(axis, "the axis of Split")
    sizes = ctx.require_ints(splits, "the split sizes")
    if len(sizes) != op.len_splits or any(s < 0 for s in sizes):
        raise NotConvertible(f"split sizes {sizes} for {op.len_splits} outputs")
    n = x.shape[ax]
    if n is not None and sum(sizes) != n:
        raise NotConvertible(f"split sizes {sizes} do not sum to {n}")
    bounds = np.cumsum(sizes)[:-1].tolist()
    return list(hb.split(x, bounds, axis=ax))


@hlograph_convert.register(ptb.ExtractDiag)
def convert_extract_diag(op, node, inputs, ctx):
    (x,) = inputs
    return hb.diagonal(x, offset=op.offset, axis1=op.axis1, axis2=op.axis2)


@hlograph_convert.register(ptb.Eye)
def convert_eye(op, node, inputs, ctx):
    n, m, k = inputs
    dims = ctx.static_ints([n, m, k])
    if dims is None:
        return hb.dynamic_eye(n, m, k, dtype=op.dtype)
    return hb.eye(dims[0], dims[1], dims[2], dtype=op.dtype)


@hlograph_convert.register(ptb.ARange)
def convert_arange(op, node, inputs, ctx):
    bounds = [ctx.static(b) for b in inputs]
    if any(b is None for b in bounds):
        start, stop, step = inputs
        return hb.dynamic_arange(start, stop, step, dtype=op.dtype)
    start, stop, step = (b.item() for b in bounds)
    return hb.arange(start, stop, step, dtype=op.dtype)


@hlograph_convert.register(ptb.TensorFromScalar)
@hlograph_convert.register(ptb.ScalarFromTensor)
def convert_scalar_tensor(op, node, inputs, ctx):
    return inputs[0]


@hlograph_convert.register(ptb.Nonzero)
def convert_nonzero(op, node, inputs, ctx):
    (x,) = inputs
    if x.ndim == 0:
        raise NotStatic("nonzero of a 0-d value")
    return list(hb.nonzero(x))
