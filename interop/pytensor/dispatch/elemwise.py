"""Elemwise (with PyTensor's error for broadcasting a dim its type does not mark
broadcastable), reductions (CAReduce: sum, prod, max, min, all, any), DimShuffle,
softmax and log-softmax."""

from __future__ import annotations

import numpy as np
import pytensor.scalar.basic as psb
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise

from ....frontend import builders as hb
from ....frontend.graph import Constant, Variable
from ..convert import NotConvertible, cast, hlograph_convert
from .scalar import hlograph_convert_scalar


#: PyTensor's Elemwise error when a dim not broadcastable in its type is 1 at run time
RUNTIME_BROADCAST_MSG = (
    "Runtime broadcasting not allowed. At least one input has a distinct dimension length of 1, "
    "but was not marked as broadcastable.\n"
    "If broadcasting was intended, use `specify_broadcastable` on the relevant input.")


@hlograph_convert.register(Elemwise)
def convert_elemwise(op, node, inputs, ctx):
    out = hlograph_convert_scalar(op.scalar_op, node, inputs, ctx)
    # (not in the core of a batched Blockwise, a device loop's body, which holds no host
    # checks: there a length-1 dim not marked broadcastable broadcasts without the error)
    violation = False if ctx.batched_core else runtime_broadcast(node, inputs)
    if violation is False:
        return out
    ctx.checks[RUNTIME_BROADCAST_MSG] = ValueError
    ok = hb.constant(False) if violation is True else hb.logical_not(violation)
    if isinstance(out, (list, tuple)):
        return [hb.check_and_raise(o, ok, RUNTIME_BROADCAST_MSG) for o in out]
    return hb.check_and_raise(out, ok, RUNTIME_BROADCAST_MSG)


def _fold(terms: list, absorbing: bool, combine) -> "bool | Variable":
    """Python bools and boolean 0-d Variables combined by ``combine`` (``absorbing`` is
    the bool that decides the result alone): a bool when it folds."""
    if any(t is absorbing for t in terms):
        return absorbing
    pending = [t for t in terms if t is not (not absorbing)]
    if not pending:
        return not absorbing
    out = pending[0]
    for t in pending[1:]:
        out = combine(out, t)
    return out


def _any(terms: list) -> "bool | Variable":
    """Whether any term is true."""
    return _fold(terms, True, hb.logical_or)


def _all(terms: list) -> "bool | Variable":
    """Whether every term is true."""
    return _fold(terms, False, hb.logical_and)


def _dim_is_one(x: Variable, i: int, one: bool = True) -> "bool | Variable":
    """Whether dim ``i`` of ``x`` is 1 (or, with ``one`` False, is not 1): a bool when the
    dim is a known int, else a comparison of its run-time length."""
    d = x.shape[i]
    if type(d) is int:
        return (d == 1) == one
    n = hb.shape_of(x)[i]
    return hb.equal(n, 1) if one else hb.not_equal(n, 1)


def runtime_broadcast(node, inputs: list) -> "bool | Variable":
    """Whether the inputs broadcast at run time as PyTensor's Elemwise forbids: along
    some dim, an input whose type does not mark the dim broadcastable has length 1 while
    another input's length is not 1 (a bool when the shapes tell, else a boolean 0-d
    Variable of the run-time lengths)."""
    ndim = node.outputs[0].type.ndim
    ins = [(x, v.type.broadcastable) for x, v in zip(inputs, node.inputs)
           if getattr(x, "ndim", None) == ndim and v.type.ndim == ndim]
    return _any([_dim_broadcasts_at_run_time(ins, i) for i in range(ndim)])


def _dim_broadcasts_at_run_time(ins: list, i: int) -> "bool | Variable":
    """Whether, along dim ``i``, an input not broadcastable there has length 1 while
    another input's length is not 1 (``ins``: pairs of input and its broadcastable
    flags). Per such input, against the others only: ``x + 1`` on a vector of unknown
    length cannot broadcast at run time (the constant's length is 1), so it folds."""
    terms = []
    for k, (x, bc) in enumerate(ins):
        if bc[i]:
            continue
        one = _dim_is_one(x, i)
        if one is False:
            continue
        terms.append(_all([one, _any([_dim_is_one(u, i, one=False) for j, (u, _) in enumerate(ins) if j != k])]))
    return _any(terms)


def _axes(axis, ndim: int) -> tuple[int, ...]:
    return tuple(range(ndim)) if axis is None else tuple(int(a) % max(ndim, 1) for a in axis)


@hlograph_convert.register(CAReduce)
def convert_careduce(op, node, inputs, ctx):
    """A reduction accumulating in PyTensor's ``acc_dtype`` (when it has one), cast to
    the output dtype."""
    (x,) = inputs
    out_dt = node.outputs[0].type.dtype
    axes = _axes(op.axis, x.ndim)
    acc = getattr(op, "acc_dtype", None) or out_dt
    scalar = op.scalar_op
    name = type(op).__name__
    if name == "ProdWithoutZeros":
        x = hb.where(hb.equal(x, Constant(np.zeros((), x.dtype))), Constant(np.ones((), x.dtype)), x)
        scalar = psb.mul
    if not axes:
        return cast(x, out_dt)
    if isinstance(scalar, psb.Add):
        return cast(hb.sum(cast(x, acc), axis=axes), out_dt)
    if isinstance(scalar, psb.Mul):
        return cast(hb.prod(cast(x, acc), axis=axes), out_dt)
    if isinstance(scalar, psb.Maximum):
        return hb.max(x, axis=axes)
    if isinstance(scalar, psb.Minimum):
        return hb.min(x, axis=axes)
    if isinstance(scalar, (psb.AND, psb.OR)) and (out_dt == "bool" or x.dtype == np.bool_):
        fn = hb.all if isinstance(scalar, psb.AND) else hb.any
        return fn(x, axis=axes)
    raise NotConvertible(f"no reduction for the scalar Op {type(scalar).__name__}")


@hlograph_convert.register(DimShuffle)
def convert_dimshuffle(op, node, inputs, ctx):
    """Dropped (broadcastable) dims squeezed, the kept ones transposed, new ones inserted."""
    (x,) = inputs
    order = list(op.new_order)
    kept = [d for d in order if d != "x"]
    drop = [i for i in range(x.ndim) if i not in kept]
    if drop:
        if any(x.shape[i] is None for i in drop):
            ctx.mark_shape_dependent()  # checked once specialized to the argument shapes
        kept_shape = tuple(n for i, n in enumerate(x.shape) if i not in drop)
        if None not in kept_shape and any(x.shape[i] is not None and x.shape[i] != 1 for i in drop):
            # a run-time error with the message of PyTensor's C and Numba DimShuffle
            msg = "DimShuffle: Attempting to squeeze axes with size not equal to one"
            ctx.checks[msg] = ValueError
            x = hb.check_and_raise(hb.zeros(kept_shape, x.dtype), hb.constant(False), msg)
        else:
            x = hb.squeeze(x, axis=tuple(drop))
    remaining = sorted(kept)
    perm = [remaining.index(d) for d in kept]
    if perm != list(range(len(perm))):
        x = hb.transpose(x, perm)
    new = [i for i, d in enumerate(order) if d == "x"]
    if new:
        x = hb.expand_dims(x, axis=tuple(new))
    return x


def _softmax_axis(op, ndim: int):
    axis = op.axis
    if axis is None:
        return tuple(range(ndim))
    return tuple(axis) if isinstance(axis, (tuple, list)) else (int(axis),)


def _register_softmax():
    import pytensor.tensor.special as special

    @hlograph_convert.register(special.Softmax)
    def convert_softmax(op, node, inputs, ctx):
        (x,) = inputs
        return hb.softmax(x, axis=_softmax_axis(op, x.ndim))

    @hlograph_convert.register(special.LogSoftmax)
    def convert_log_softmax(op, node, inputs, ctx):
        (x,) = inputs
        return hb.log_softmax(x, axis=_softmax_axis(op, x.ndim))

    grad = getattr(special, "SoftmaxGrad", None)  # PyTensor 2.x
    if grad is not None:
        @hlograph_convert.register(grad)
        def convert_softmax_grad(op, node, inputs, ctx):
            dy, sm = inputs
            axis = _softmax_axis(op, sm.ndim)
            d = dy * sm
            return d - sm * hb.sum(d, axis=axis, keepdims=True)

    for name, fn in [("XLogY", hb.xlogy), ("XLog1PY", hb.xlog1py)]:
        cls = getattr(special, name, None)
        if cls is not None:
            hlograph_convert.register(cls)(
                lambda op, node, inputs, ctx, fn=fn: fn(*(cast(v, node.outputs[0].type.dtype)
                                                        for v in inputs)))


_register_softmax()
