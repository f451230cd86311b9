"""Small StableHLO emitters shared by the lowering rules (types, constants,
broadcasting, conversion, comparison). They emit at the current insertion point."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..frontend.types import TensorType, is_complex, is_float
from ..xla.mlir import dense_attr, element_type, hlo, i64_array, ir, tensor_type

__all__ = [
    "real_dtype", "is_nan", "ordered_compare", "signbit", "constant", "broadcast_to", "convert", "compare", "compare_type",
    "ir_type", "scalar_type", "reduce_region",
]

ir_type = tensor_type


def real_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of the real part (complex64 -> float32); itself for real dtypes."""
    return np.real(np.zeros((), dtype)).dtype


def scalar_type(dtype: np.dtype) -> ir.RankedTensorType:
    return ir.RankedTensorType.get([], element_type(dtype))


def constant(value, dtype: np.dtype, shape: Sequence[int] = ()) -> ir.Value:
    """A constant of ``dtype`` and ``shape``; a scalar ``value`` becomes a splat."""
    arr = np.asarray(value, dtype=dtype)
    if arr.shape == tuple(shape):
        if arr.size > 1 and np.all(arr == arr.flat[0]) and not (is_float(dtype) and np.isnan(arr).any()):
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
