"""The Ops of automatic differentiation and the helpers every gradient rule uses
(the engine is frontend/autodiff.py):
``StopGradient`` and ``CustomVJPCall`` are identities whose meaning is in their
gradient rules; ``SumToLike`` sums a cotangent back to the shape it was
broadcast from, ``ReshapeLike`` reshapes one back and ``SplitLike`` cuts one into
the pieces of a concatenation, once the graph is specialized to concrete shapes."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from ..graph import Apply, Constant, GradientError, Op, Variable
from ..types import TensorType, is_inexact
from . import reduction as rd
from . import shape as sh
from .basic import as_variable

#: the family's builder (``hlograph.stop_gradient``); the Op classes and the helpers for
#: gradient rules are reached through the module
__all__ = ["stop_gradient"]


# --- helpers for gradient rules (every family's pullbacks use them) ---------------------
def is_differentiable(v: Variable) -> bool:
    """Whether ``v`` can carry a gradient (a float or complex dtype)."""
    return is_inexact(v.dtype)


def constant_like(value: Any, v: Variable) -> Constant:
    """A 0-d constant ``value`` of ``v``'s dtype (Python scalars alone promote to float64)."""
    return Constant(np.asarray(value, dtype=v.dtype))


def sum_to_axes(shape: Sequence[int], target: Sequence[int]) -> tuple[int, ...]:
    """The axes of an array of static ``shape`` to sum (keeping dims) so that, with its
    leading extra dims dropped, it has the static shape ``target`` it was broadcast from."""
    lead = len(shape) - len(target)
    return tuple(range(lead)) + tuple(
        lead + i for i, t in enumerate(target) if t == 1 and shape[lead + i] != 1
    )


def sum_to(g: Variable, x: Variable) -> Variable:
    """``g`` (the cotangent of a value ``x`` was broadcast to) summed back to ``x``'s shape:
    over its extra leading dims and over the dims where ``x`` has size 1. Where an unknown
    dim of ``x`` may have been 1 at run time, the sum is a ``SumToLike`` node, resolved when
    the graph is specialized to concrete shapes."""
    if g.ndim < x.ndim:
        raise GradientError(f"sum_to: a cotangent {g.type} has fewer dims than the value {x.type}")
    lead = g.ndim - x.ndim
    inner = []  # dims of x of size 1 that g has larger
    for i, xd in enumerate(x.shape):
        gd = g.shape[lead + i]
        if xd == 1:
            if gd != 1:
                inner.append(i)
        elif xd is None and gd != 1:
            return SumToLike()(g, x)
    if lead or inner:
        g = rd.Sum(tuple(range(lead)) + tuple(lead + i for i in inner))(g)
        if inner:
            g = sh.ExpandDims(tuple(inner))(g)
    return g


def broadcast_like(g: Variable, x: Variable) -> Variable:
    """``g`` broadcast to the shape of ``x`` (``g``'s shape broadcasts to it)."""
    if g.ndim == x.ndim and all(a is not None and a == b for a, b in zip(g.shape, x.shape)):
        return g
    if x.type.is_static:
        return sh.BroadcastTo(x.shape)(g)
    return sh.FullLike()(x, g)


def unreduce(ct: Variable, x: Variable, axes: Sequence[int], keepdims: bool) -> Variable:
    """The cotangent ``ct`` of a reduction of ``x`` over ``axes`` broadcast back to ``x``'s shape."""
    if not keepdims and axes:
        ct = sh.ExpandDims(tuple(axes))(ct)
    return broadcast_like(ct, x)


def reduced_count(x: Variable, axes: Sequence[int]) -> int | Variable:
    """How many elements of ``x`` a reduction over ``axes`` combines: a Python int when the
    dims are known, else an int64 graph value."""
    dims = [x.shape[a] for a in axes]
    if None not in dims:
        return math.prod(dims)
    from .construct import shape_of  # construct's rules import this module
    s = shape_of(x)
    n: Variable | None = None
    for a in axes:
        n = s[a] if n is None else n * s[a]
    return n


class StopGradient(Op):
    """The identity, through which no gradient flows (``jax.lax.stop_gradient``)."""

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0]]

    def pullback(self, node, cotangents):
        return [None]

    def pushforward(self, node, tangents):
        return [None]


class SumToLike(Op):
    """``g`` summed to the shape of ``like`` (whose values are not read): over ``g``'s extra
    leading dims and over the dims where ``like`` has size 1. The cotangent of a broadcast
    whose shapes are known only when the graph is specialized (see ``sum_to``)."""

    def make_node(self, g: Any, like: Any) -> Apply:
        g, like = as_variable(g), as_variable(like)
        lead = g.ndim - like.ndim
        ok = lead >= 0 and all(
            t is None or t == 1 or s is None or s == t for s, t in zip(g.shape[lead:], like.shape)
        )
        if not ok:
            raise ValueError(f"{self}: {g.type} cannot be summed to the shape of {like.type}")
        return Apply(self, [g, like], [TensorType(g.dtype, like.shape)])

    def perform(self, node, inputs):
        g, like = inputs
        axes = sum_to_axes(g.shape, like.shape)
        acc = np.float32 if g.dtype in rd._HALF else g.dtype
        out = np.sum(g, axis=axes, keepdims=True, dtype=acc) if axes else g
        return [np.asarray(out, dtype=g.dtype).reshape(like.shape)]

    def pullback(self, node, cotangents):
        (ct,) = cotangents
        return [broadcast_like(ct, node.inputs[0]), None]

    def pushforward(self, node, tangents):
        t = tangents[0]
        return [None if t is None else self(t, node.inputs[1])]


class ReshapeLike(Op):
    """``g`` reshaped to the shape of ``like`` (whose values are not read), the same
    elements in C order. The cotangent of a reshape whose input has more than one
    unknown dim, resolved when the graph is specialized to concrete shapes."""

    def make_node(self, g: Any, like: Any) -> Apply:
        g, like = as_variable(g), as_variable(like)
        if g.type.is_static and like.type.is_static and g.type.size != like.type.size:
            raise ValueError(f"{self}: {g.type} cannot be reshaped to the shape of {like.type}")
        return Apply(self, [g, like], [TensorType(g.dtype, like.shape)])

    def perform(self, node, inputs):
        g, like = inputs
        if g.size != like.size:
            raise ValueError(f"{self}: an array of shape {g.shape} cannot be reshaped to {like.shape}")
        return [g.reshape(like.shape)]

    def pullback(self, node, cotangents):
        return [reshape_like(cotangents[0], node.inputs[0]), None]

    def pushforward(self, node, tangents):
        t = tangents[0]
        return [None if t is None else self(t, node.inputs[1])]


def reshape_like(g: Variable, x: Variable) -> Variable:
    """``g`` reshaped to ``x``'s shape: a ``Reshape`` when at most one dim of ``x`` is
    unknown, else a ``ReshapeLike`` (resolved once shapes are known)."""
    if g.ndim == x.ndim and all(a is not None and a == b for a, b in zip(g.shape, x.shape)):
        return g
    if x.shape.count(None) <= 1:
        return sh.Reshape(tuple(-1 if d is None else d for d in x.shape))(g)
    return ReshapeLike()(g, x)


class SplitLike(Op):
    """``g`` cut along ``axis`` into consecutive pieces as long as the ``likes`` are
    along it (their values are not read): the inverse of a concatenation. The
    cotangents of a concatenation of several inputs of unknown size along its axis,
    resolved when the graph is specialized to concrete shapes."""

    __props__ = ("axis",)

    def __init__(self, axis: int):
        self.axis = int(axis)

    def make_node(self, g: Any, *likes: Any) -> Apply:
        g, likes = as_variable(g), [as_variable(v) for v in likes]
        if not likes:
            raise ValueError(f"{self}: need at least one input to split like")
        if not 0 <= self.axis < g.ndim:
            raise ValueError(f"{self}: axis out of range for {g.type}")
        sizes = [v.shape[self.axis] if v.ndim == g.ndim else -1 for v in likes]
        if -1 in sizes or (None not in sizes and g.shape[self.axis] is not None
                           and sum(sizes) != g.shape[self.axis]):
            raise ValueError(f"{self}: {g.type} cannot be split like "
                             + ", ".join(str(v.type) for v in likes))
        outs = []
        for v in likes:
            shape = [v.shape[d] if d == self.axis or g.shape[d] is None else g.shape[d] for d in range(g.ndim)]
            outs.append(TensorType(g.dtype, shape))
        return Apply(self, [g, *likes], outs)

    def perform(self, node, inputs):
        g, *likes = inputs
        sizes = [v.shape[self.axis] for v in likes]
        if sum(sizes) != g.shape[self.axis]:
            raise ValueError(f"{self}: an array of shape {g.shape} cannot be split into sizes {sizes}")
        bounds = np.cumsum([0, *sizes])
        return [np.array(np.take(g, np.arange(a, b), axis=self.axis)) for a, b in zip(bounds[:-1], bounds[1:])]

    def pullback(self, node, cotangents):
        pieces = [c if c is not None else sh.zeros_like(o) for c, o in zip(cotangents, node.outputs)]
        return [sh.Concatenate(self.axis)(*pieces)] + [None] * (len(node.inputs) - 1)

    def pushforward(self, node, tangents):
        t = tangents[0]
        if t is None:
            return [None] * len(node.outputs)
        out = self.make_node(t, *node.inputs[1:]).outputs
        return list(out)


class CustomVJPCall(Op):
    """The outputs of a ``custom_vjp`` function: the identity on its last inputs (the
    outputs the forward function built), whose pullback calls the user's backward
    function instead of differentiating the forward graph. Inputs: the differentiable
    arguments, then the forward outputs."""

    __props__ = ("name",)

    def __init__(self, name: str, n_args: int, arg_positions: tuple[int, ...], n_positional: int,
                 residuals: Any, bwd: Callable, single: bool):
        self.name = name
        self.n_args = n_args
        self.arg_positions = arg_positions
        self.n_positional = n_positional
        self.residuals = residuals
        self.bwd = bwd
        self.single = single

    # each call has its own residuals and backward function
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [as_variable(v) for v in inputs]
        return Apply(self, inputs, [v.type for v in inputs[self.n_args:]])

    def perform(self, node, inputs):
        return list(inputs[self.n_args:])

    def pullback(self, node, cotangents):
        cts = [c if c is not None or not is_differentiable(o) else sh.zeros_like(o)
               for c, o in zip(cotangents, node.outputs)]
        result = self.bwd(self.residuals, cts[0] if self.single else tuple(cts))
        if not isinstance(result, (tuple, list)):
            raise GradientError(
                f"custom_vjp {self.name}: bwd must return a tuple with one cotangent per "
                f"positional argument ({self.n_positional}), got {type(result).__name__}"
            )
        if len(result) != self.n_positional:
            raise GradientError(
                f"custom_vjp {self.name}: bwd returned {len(result)} cotangents for "
                f"{self.n_positional} positional arguments"
            )
        out: list[Any] = []
        for pos, x in zip(self.arg_positions, node.inputs[:self.n_args]):
            g = result[pos]
            if g is not None and not isinstance(g, Variable):
                g = Constant(np.asarray(g, dtype=x.dtype))
            out.append(g)
        return out + [None] * len(node.outputs)


def stop_gradient(x: Any) -> Variable:
    """``x``, through which no gradient flows (``jax.lax.stop_gradient``): its
    derivative is zero, in reverse and in forward mode."""
    return StopGradient()(as_variable(x))
