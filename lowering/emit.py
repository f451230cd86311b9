"""Small StableHLO emitters shared by the lowering rules (types, constants,
broadcasting, conversion, comparison). They emit at the current insertion point."""

from __future__ import annotations

import contextlib
import contextvars
from typing import Sequence

import numpy as np

from ..frontend.symbolic import SymDim, SymbolicDimError
from ..frontend.types import TensorType, is_complex, is_float
from ..xla.mlir import dense_attr, element_type, hlo, i64_array, ir, tensor_type

__all__ = [
    "real_dtype", "is_nan", "ordered_compare", "signbit", "constant", "broadcast_to", "convert", "compare", "compare_type",
    "ir_type", "scalar_type", "reduce_region", "reshape", "iota", "broadcast_in_dim", "slice_static",
    "symbolic_dims", "dim_value", "shape_value", "is_symbolic_shape",
]

ir_type = tensor_type

# --- symbolic dimensions (shape-polymorphic lowering) ----------------------------
#
# While a graph specialized to symbolic dims (``SymDim``) is lowered, each dimension
# variable has a value in the module: the size of an argument's dimension
# (``stablehlo.get_dimension_size``), computed once at the top of ``@main``. The
# emitters below use the dynamic StableHLO ops where a shape is symbolic, with
# the output shape computed from those values; a call's shapes refine them back
# to static ops (stablehlo-refine-shapes, canonicalize-dynamism).

_DIMS: contextvars.ContextVar[dict | None] = contextvars.ContextVar("hlograph_dims", default=None)
_I64 = np.dtype(np.int64)


@contextlib.contextmanager
def symbolic_dims(values: dict[str, ir.Value]):
    """Makes ``values`` (dimension variable -> 0-d i64 value) the symbolic dims' values
    while a module is lowered."""
    token = _DIMS.set(values)
    try:
        yield
    finally:
        _DIMS.reset(token)


def is_symbolic_shape(shape: Sequence) -> bool:
    return any(type(d) is SymDim for d in shape)


def dim_value(d) -> ir.Value:
    """A 0-d i64 value holding the dim ``d`` (an int or a ``SymDim``)."""
    if type(d) is not SymDim:
        return constant(int(d), _I64)
    values = _DIMS.get()
    if values is None:
        raise SymbolicDimError(f"the dimension {d} is symbolic outside a shape-polymorphic lowering")
    total = None
    for mono, c in d._terms:
        term = None
        for atom in mono:
            v = _atom_value(atom, values)
            term = v if term is None else hlo.multiply(term, v)
        if term is None:
            term = constant(c, _I64)
        elif c != 1:
            term = hlo.multiply(term, constant(c, _I64))
        total = term if total is None else hlo.add(total, term)
    return total


def _atom_value(atom, values) -> ir.Value:
    if isinstance(atom, str):
        return values[atom]
    kind, a, b = atom
    a, b = dim_value(a), dim_value(b)
    return {"floordiv": hlo.divide, "mod": hlo.remainder, "max": hlo.maximum, "min": hlo.minimum}[kind](a, b)


def shape_value(shape: Sequence) -> ir.Value:
    """A 1-d i64 tensor holding ``shape`` (ints and ``SymDim``s)."""
    if not is_symbolic_shape(shape):
        return hlo.constant(dense_attr(np.asarray(shape, dtype=_I64).reshape(len(shape))))
    one = ir.RankedTensorType.get([1], element_type(_I64))
    parts = [hlo.reshape(one, dim_value(d)) for d in shape]
    return parts[0] if len(parts) == 1 else hlo.concatenate(parts, 0)


def reshape(x: ir.Value, t: TensorType) -> ir.Value:
    """``x`` reshaped to the type ``t`` (dynamic_reshape where ``t`` is symbolic)."""
    if is_symbolic_shape(t.shape):
        return hlo.dynamic_reshape(tensor_type(t), x, shape_value(t.shape))
    return hlo.reshape(tensor_type(t), x)


def iota(t: TensorType, dimension: int) -> ir.Value:
    """``stablehlo.iota`` of type ``t`` along ``dimension`` (dynamic_iota where symbolic)."""
    if is_symbolic_shape(t.shape):
        return hlo.dynamic_iota(tensor_type(t), shape_value(t.shape), ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), dimension))
    return hlo.iota(tensor_type(t), dimension)


def broadcast_in_dim(x: ir.Value, t: TensorType, dims: Sequence[int]) -> ir.Value:
    """``stablehlo.broadcast_in_dim`` to the type ``t`` (dynamic where symbolic)."""
    if is_symbolic_shape(t.shape):
        return hlo.dynamic_broadcast_in_dim(tensor_type(t), x, shape_value(t.shape), i64_array(dims))
    return hlo.broadcast_in_dim(tensor_type(t), x, i64_array(dims))


def slice_static(x: ir.Value, x_type: TensorType, starts: Sequence, limits: Sequence,
                 strides: Sequence[int]) -> ir.Value:
    """``x[starts:limits:strides]`` per dim (bounds may be symbolic: real_dynamic_slice)."""
    if not (is_symbolic_shape(starts) or is_symbolic_shape(limits) or is_symbolic_shape(x_type.shape)):
        return hlo.slice(x, i64_array(starts), i64_array(limits), i64_array(strides))
    shape = [(hi - lo + st - 1) // st for lo, hi, st in zip(starts, limits, strides)]
    t = TensorType(x_type.dtype, shape)
    return hlo.real_dynamic_slice(tensor_type(t), x, shape_value(starts), shape_value(limits),
                                  shape_value(strides))


def real_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of the real part (complex64 -> float32); itself for real dtypes."""
    return np.real(np.zeros((), dtype)).dtype


def scalar_type(dtype: np.dtype) -> ir.RankedTensorType:
    return ir.RankedTensorType.get([], element_type(dtype))


def constant(value, dtype: np.dtype, shape: Sequence[int] = ()) -> ir.Value:
    """A constant of ``dtype`` and ``shape``; a scalar ``value`` becomes a splat (a
    symbolic dim's value too)."""
    if type(value) is SymDim:
        v = hlo.convert(tensor_type(TensorType(dtype, ())), dim_value(value))
        return broadcast_to(v, TensorType(dtype, ()), shape) if shape else v
    if shape and is_symbolic_shape(shape):
        scalar = constant(value, dtype)
        return hlo.dynamic_broadcast_in_dim(tensor_type(TensorType(dtype, shape)), scalar,
                                            shape_value(shape), i64_array([]))
    arr = np.asarray(value, dtype=dtype)
    if arr.shape == tuple(shape):
        if arr.size > 1 and np.all(arr == arr.flat[0]) and not (is_float(arr.dtype) and np.isnan(arr).any()):
            arr = arr.reshape(-1)[:1].reshape(())
        else:
            return hlo.constant(dense_attr(arr))
    if arr.ndim != 0:
        raise ValueError(f"constant of shape {arr.shape} cannot fill shape {tuple(shape)}")
    # a one-element buffer with a larger shape makes a splat attribute
    return hlo.constant(ir.DenseElementsAttr.get(arr.reshape(1), type=element_type(arr.dtype),
                                                 shape=list(shape)))


def broadcast_to(x: ir.Value, from_type: TensorType, shape: Sequence[int]) -> ir.Value:
    """NumPy broadcasting of ``x`` (of ``from_type``) to ``shape``; no-op when equal."""
    shape = tuple(shape)
    if from_type.shape == shape:
        return x
    offset = len(shape) - from_type.ndim
    dims = list(range(offset, len(shape)))
    if is_symbolic_shape(shape) or is_symbolic_shape(from_type.shape):
        return broadcast_in_dim(x, TensorType(from_type.dtype, shape), dims)
    t = ir.RankedTensorType.get(list(shape), element_type(from_type.dtype))
    return hlo.broadcast_in_dim(t, x, i64_array(dims))


def convert(x: ir.Value, from_type: TensorType, dtype: np.dtype) -> ir.Value:
    """NumPy ``astype``: float/int -> bool is ``!= 0``, complex -> real keeps the real part."""
    if from_type.dtype == dtype:
        return x
    if dtype == np.bool_:
        zero = constant(0, from_type.dtype, from_type.shape)
        return compare(x, zero, "NE", from_type.dtype)
    if is_complex(from_type.dtype) and not is_complex(dtype):
        x = hlo.real(x)
        from_type = TensorType(real_dtype(from_type.dtype), from_type.shape)
        if from_type.dtype == dtype:
            return x
    return hlo.convert(tensor_type(TensorType(dtype, from_type.shape)), x)


def compare_type(dtype: np.dtype) -> str:
    if is_float(dtype) or is_complex(dtype):
        return "FLOAT"
    if dtype.kind == "i":
        return "SIGNED"
    return "UNSIGNED"


def compare(lhs: ir.Value, rhs: ir.Value, direction: str, dtype: np.dtype) -> ir.Value:
    """``stablehlo.compare`` with the comparison type ``dtype`` calls for (EQ NE LT LE GT GE)."""
    return hlo.compare(
        lhs, rhs,
        hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get(compare_type(dtype)),
    )


def reduce_region(op, dtype: np.dtype, n: int = 1):
    """Adds the body block of a reduce-like ``op`` taking ``n`` pairs of scalar ``dtype``
    arguments; returns the block (use ``with ir.InsertionPoint(block)``)."""
    st = scalar_type(dtype)
    return op.regions[0].blocks.append(*([st] * (2 * n)))


def is_nan(v: ir.Value, dtype: np.dtype) -> ir.Value | None:
    """NaN test of a float or complex value (either part NaN); None for types without NaN."""
    if is_complex(dtype):
        fdt = real_dtype(dtype)
        re, im = hlo.real(v), hlo.imag(v)
        return hlo.or_(compare(re, re, "NE", fdt), compare(im, im, "NE", fdt))
    if is_float(dtype):
        return compare(v, v, "NE", dtype)
    return None


def ordered_compare(a: ir.Value, b: ir.Value, direction: str, dtype: np.dtype) -> ir.Value:
    """``a <direction> b`` for EQ NE GT GE LT LE; complex numbers order lexicographically
    (real part, then imaginary part), as NumPy does."""
    if not is_complex(dtype) or direction in ("EQ", "NE"):
        return compare(a, b, direction, dtype)
    fdt = real_dtype(dtype)
    ra, rb, ia, ib = hlo.real(a), hlo.real(b), hlo.imag(a), hlo.imag(b)
    strict = direction[0] + "T"
    return hlo.or_(compare(ra, rb, strict, fdt),
                   hlo.and_(compare(ra, rb, "EQ", fdt), compare(ia, ib, direction, fdt)))


def signbit(x: ir.Value, t: TensorType) -> ir.Value:
    """The sign bit of float ``x`` of type ``t`` (true for -0.0 and negative NaNs too)."""
    it = TensorType(f"int{8 * t.dtype.itemsize}", t.shape)
    as_int = hlo.bitcast_convert(tensor_type(it), x)
    return compare(as_int, constant(0, it.dtype, t.shape), "LT", it.dtype)
