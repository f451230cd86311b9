"""Shapes: Shape, Shape_i (constants once the input's dims are known), Reshape,
SpecifyShape, JoinDims and SplitDims (PyTensor 3), Unbroadcast (2.x)."""

from __future__ import annotations

import importlib
import numpy as np

from ....frontend import builders as hb
from ....frontend.graph import Constant
from ..convert import NotStatic, hlograph_convert

pts = importlib.import_module("pytensor.tensor.shape")  # (pytensor.tensor.shape is also a function name)


@hlograph_convert.register(pts.Shape)
def convert_shape(op, node, inputs, ctx):
    (x,) = inputs
    if x.type.is_static:
        return Constant(np.asarray(x.shape, dtype=node.outputs[0].type.dtype).reshape(-1))
    out = hb.shape_of(x)
    ctx.set_partial(out, list(x.shape))
    return out


@hlograph_convert.register(pts.Shape_i)
def convert_shape_i(op, node, inputs, ctx):
    (x,) = inputs
    d = x.shape[op.i]
    if d is not None:
        return Constant(np.asarray(d, dtype=node.outputs[0].type.dtype))
    return hb.shape_of(x)[op.i]


def _target_shape(ctx, shape, what: str) -> tuple[int, ...]:
    """A reshape target: its entries, with one entry known only at run time given as -1
    (the size of the input fixes it)."""
    entries = ctx.partial_ints(shape)
    if entries is None:
        raise NotStatic(f"{what} is known only at run time")
    unknown = [i for i, e in enumerate(entries) if e is None]
    if not unknown:
        return tuple(entries)
    if len(unknown) == 1 and -1 not in entries:
        ctx.mark_shape_dependent()
        return tuple(-1 if e is None else e for e in entries)
    ctx.mark_shape_dependent()
    raise NotStatic(f"{what} is known only at run time")


@hlograph_convert.register(pts.Reshape)
def convert_reshape(op, node, inputs, ctx):
    x, shape = inputs
    return hb.reshape(x, _target_shape(ctx, shape, "the shape of Reshape"))


@hlograph_convert.register(pts.SpecifyShape)
def convert_specify_shape(op, node, inputs, ctx):
    x, *shape = inputs
    dims = []
    for s in shape:
        if s is None:
            dims.append(None)
            continue
        v = ctx.static(s, needed=False)
        dims.append(None if v is None else int(v))
    return hb.specify_shape(x, dims)


_unbroadcast = getattr(pts, "Unbroadcast", None)  # PyTensor 2.x before static shapes
if _unbroadcast is not None:
    hlograph_convert.register(_unbroadcast)(lambda op, node, inputs, ctx: inputs[0])


def _register_reshape_ops():
    try:
        from pytensor.tensor.reshape import JoinDims, SplitDims
    except ImportError:  # PyTensor < 3
        return

    @hlograph_convert.register(JoinDims)
    def convert_join_dims(op, node, inputs, ctx):
        (x,) = inputs
        a, n = op.start_axis, op.n_axes
        outer = [*x.shape[:a], *x.shape[a + n:]]
        if None in outer:
            ctx.mark_shape_dependent()
            raise NotStatic("the dims JoinDims keeps are known only at run time")
        return hb.reshape(x, (*x.shape[:a], -1, *x.shape[a + n:]))

    @hlograph_convert.register(SplitDims)
    def convert_split_dims(op, node, inputs, ctx):
        x, shape = inputs
        a = op.axis
        inner = _target_shape(ctx, shape, "the shape of SplitDims")
        outer = [*x.shape[:a], *x.shape[a + 1:]]
        if None in outer and -1 in inner:
            raise NotStatic("the dims of SplitDims are known only at run time")
        if None in outer:
            if sum(d is None for d in outer) > 1:
                ctx.mark_shape_dependent()
                raise NotStatic("the dims SplitDims keeps are known only at run time")
            outer_shape = [-1 if d is None else d for d in x.shape[:a]], [-1 if d is None else d for d in x.shape[a + 1:]]
            return hb.reshape(x, (*outer_shape[0], *inner, *outer_shape[1]))
        return hb.reshape(x, (*x.shape[:a], *inner, *x.shape[a + 1:]))


_register_reshape_ops()
