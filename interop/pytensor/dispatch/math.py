"""Products and arg-reductions (``pytensor.tensor.math``, ``pytensor.tensor.blas``):
Dot, Argmax (MaxAndArgmax where PyTensor has it), BatchedDot and the BLAS Ops
(Dot22, Dot22Scalar, Gemm, Gemv, Ger), which the HLOGRAPH mode's rewrites do not
introduce but other modes' graphs may hold. Products compute in the output dtype."""

from __future__ import annotations

import importlib
import numpy as np

from ....frontend import builders as hb
from ....frontend.graph import Variable
from ..convert import NotStatic, cast, hlograph_convert

ptm = importlib.import_module("pytensor.tensor.math")  # (pytensor.tensor.math is also a function name)


def _out(node, i: int = 0) -> str:
    return node.outputs[i].type.dtype


def _cast(xs, dtype: str) -> list[Variable]:
    return [cast(x, dtype) for x in xs]


@hlograph_convert.register(ptm.Dot)
def convert_dot(op, node, inputs, ctx):
    x, y = _cast(inputs, _out(node))
    return hb.dot(x, y)


def argmax(x: Variable, axis) -> Variable:
    """Argmax over several axes (PyTensor's Argmax): the reduced axes moved last and
    flattened into one."""
    axes = tuple(range(x.ndim)) if axis is None else tuple(sorted(int(a) for a in axis))
    if not axes:
        return hb.zeros(tuple(x.shape), "int64") if x.type.is_static else hb.full_like(x, 0, dtype="int64")
    if len(axes) == 1:
        return hb.argmax(x, axis=axes[0])
    keep = [i for i in range(x.ndim) if i not in axes]
    t = hb.transpose(x, keep + list(axes))
    kept = [t.shape[i] for i in range(len(keep))]
    if None in kept:
        raise NotStatic("the kept dims of a multi-axis argmax are known only at run time")
    return hb.argmax(hb.reshape(t, (*kept, -1)), axis=-1)


@hlograph_convert.register(ptm.Argmax)
def convert_argmax(op, node, inputs, ctx):
    (x,) = inputs
    return argmax(x, op.axis)


_max_and_argmax = getattr(ptm, "MaxAndArgmax", None)  # PyTensor 2.x
if _max_and_argmax is not None:
    @hlograph_convert.register(_max_and_argmax)
    def convert_max_and_argmax(op, node, inputs, ctx):
        (x,) = inputs
        axes = tuple(range(x.ndim)) if op.axis is None else tuple(op.axis)
        return [hb.max(x, axis=axes), argmax(x, axes)]


def _register_blas():
    from pytensor.tensor import blas

    def zero(ctx, v) -> bool:
        c = ctx.static(v, needed=False)
        return c is not None and not np.any(c)

    @hlograph_convert.register(blas.Dot22)
    def convert_dot22(op, node, inputs, ctx):
        x, y = _cast(inputs, _out(node))
        return hb.matmul(x, y)

    @hlograph_convert.register(blas.Dot22Scalar)
    def convert_dot22_scalar(op, node, inputs, ctx):
        x, y, a = _cast(inputs, _out(node))
        return hb.matmul(x, y) * a

    @hlograph_convert.register(blas.Gemm)
    def convert_gemm(op, node, inputs, ctx):
        # b * z + a * x @ y (z is not read when b is 0, as BLAS)
        z, a, x, y, b = _cast(inputs, _out(node))
        prod = hb.matmul(x, y) * a
        return prod if zero(ctx, inputs[4]) else z * b + prod

    @hlograph_convert.register(blas.Gemv)
    def convert_gemv(op, node, inputs, ctx):
        y, alpha, a, x, beta = _cast(inputs, _out(node))
        prod = hb.matmul(a, x) * alpha
        return prod if zero(ctx, inputs[4]) else y * beta + prod

    @hlograph_convert.register(blas.Ger)
    def convert_ger(op, node, inputs, ctx):
        a, alpha, x, y = _cast(inputs, _out(node))
        return a + hb.outer(x, y) * alpha

    @hlograph_convert.register(blas.BatchedDot)
    def convert_batched_dot(op, node, inputs, ctx):
        x, y = _cast(inputs, _out(node))
        return hb.matmul(x, y)


_register_blas()
