"""Bitcasts: ``bitcast(x, dtype)`` reinterprets the bits of ``x`` as ``dtype``.

Between dtypes of one width it is NumPy's ``x.view(dtype)`` (the shape is kept).
Between widths it is ``lax.bitcast_convert_type``'s: a wider -> narrower bitcast
adds a trailing dim of ``wide // narrow`` elements (the bytes of each element,
least significant first, as ``x[..., None].view(dtype)`` on a little-endian
machine), and a narrower -> wider bitcast consumes a trailing dim of that size.
``bool`` is one byte of value 0 or 1: it bitcasts to and from the 8-bit integers
(a nonzero byte reads as True). Complex dtypes have no bitcast (their parts are
reached with ``real``/``imag``).

A bitcast has a zero derivative (as jax's ``bitcast_convert_type``): its result
is not a smooth function of its input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import Apply, Op, Variable
from ..types import TensorType, as_dtype, is_complex
from .basic import as_variable
from .shape import reshape

__all__ = ["bitcast"]

_BOOL = np.dtype(np.bool_)


def _bits(dtype: np.dtype) -> int:
    """The width in bits of an element of ``dtype`` (bool: 8, its byte)."""
    return dtype.itemsize * 8


class Bitcast(Op):
    """``bitcast(x, dtype)``: the bits of ``x`` read as ``dtype`` (see the module doc)."""

    __props__ = ("dtype",)

    def __init__(self, dtype: Any):
        self.dtype = as_dtype(dtype)
        if is_complex(self.dtype):
            raise TypeError(f"Bitcast: complex dtypes have no bitcast, got {self.dtype}")

    def make_node(self, x) -> Apply:
        x = as_variable(x)
        src, dst = x.dtype, self.dtype
        if is_complex(src):
            raise TypeError(f"Bitcast: complex dtypes have no bitcast, got x of type {x.type}")
        if (src == _BOOL) != (dst == _BOOL) and _bits(src if dst == _BOOL else dst) != 8:
            raise TypeError(f"Bitcast: bool bitcasts only to and from 8-bit integers, "
                            f"got {src} -> {dst}")
        a, b = _bits(src), _bits(dst)
        if a == b:
            shape = tuple(x.shape)
        elif a > b:
            shape = (*x.shape, a // b)
        else:
            if x.ndim == 0 or x.shape[-1] != b // a:
                raise ValueError(f"Bitcast: a {src} -> {dst} bitcast needs a trailing dim of {b // a} "
                                 f"(the {b // a} {src} elements of one {dst}), got x of type {x.type}")
            shape = tuple(x.shape[:-1])
        return Apply(self, [x], [TensorType(dst, shape)])

    def perform(self, node, inputs):
        (x,) = inputs
        src, dst = x.dtype, self.dtype
        out_shape = node.outputs[0].type.shape
        if dst == _BOOL:
            return [np.asarray(x != 0, dtype=_BOOL)]
        if src == _BOOL:
            x = x.astype(np.uint8)
        x = np.ascontiguousarray(x)
        if src.itemsize > dst.itemsize:
            x = x.reshape(*x.shape, 1)
        if x.ndim == 0:
            x = x.reshape(1)
        return [x.view(dst).reshape(out_shape)]

    # a zero derivative, as jax's bitcast_convert_type (not a smooth function)
    def pullback(self, node, cotangents):
        return [None]

    def pushforward(self, node, tangents):
        return [None]


def bitcast(x: Any, dtype: Any) -> Variable:
    """The bits of ``x`` read as ``dtype``: NumPy's ``x.view(dtype)`` between dtypes of
    one width; from a wider dtype a trailing dim of ``wide // narrow`` elements is added
    (least significant first), to a wider one a trailing dim of that size is consumed
    (as ``lax.bitcast_convert_type``)."""
    x = as_variable(x)
    op = Bitcast(dtype)
    if op.dtype == x.dtype:
        return x
    return op(x)


def ndarray_view(x: Variable, dtype: Any) -> Variable:
    """NumPy's ``x.view(dtype)``: the bits read as ``dtype``; between widths the last
    axis changes size (``n`` elements of ``a`` bytes become ``n * a // b`` of ``b``)."""
    dtype = as_dtype(dtype)
    if is_complex(x.dtype) or is_complex(dtype):
        raise TypeError(f"x.view({dtype}) of a graph Variable ({x.type}): complex dtypes have no "
                        "bitcast (use real/imag)")
    if x.dtype == dtype:
        return x
    # bool is one byte: it goes through uint8 to and from other widths
    if x.dtype == _BOOL and dtype.itemsize != 1:
        return ndarray_view(bitcast(x, np.uint8), dtype)
    if dtype == _BOOL and x.dtype.itemsize != 1:
        return bitcast(ndarray_view(x, np.uint8), dtype)
    a, b = x.dtype.itemsize, dtype.itemsize
    if a == b:
        return bitcast(x, dtype)
    if x.ndim == 0:
        raise ValueError(f"x.view({dtype}) of a graph Variable ({x.type}): changing to a "
                         "larger or smaller dtype needs at least one axis (as numpy)")
    n = x.shape[-1]
    if a > b:
        return reshape(bitcast(x, dtype), (*x.shape[:-1], n * (a // b)))
    if n % (b // a):
        raise ValueError(f"x.view({dtype}) of a graph Variable ({x.type}): the size of the last "
                         f"axis ({n} elements of {a} bytes) must be a multiple of {b} bytes (as numpy)")
    return bitcast(reshape(x, (*x.shape[:-1], n // (b // a), b // a)), dtype)
