"""Tensor types of the graph IR: a dtype and a static shape (``None`` = unknown dim;
a ``SymDim`` = a symbolic dim, in graphs specialized for shape-polymorphic lowering)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import ml_dtypes
import numpy as np

from .symbolic import SymDim

__all__ = ["TensorType", "as_dtype", "DTYPES", "dtype_name"]

#: Every dtype hlograph supports, by canonical name.
DTYPES: dict[str, np.dtype] = {
    "bool": np.dtype(np.bool_),
    "int8": np.dtype(np.int8),
    "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "uint8": np.dtype(np.uint8),
    "uint16": np.dtype(np.uint16),
    "uint32": np.dtype(np.uint32),
    "uint64": np.dtype(np.uint64),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    "complex64": np.dtype(np.complex64),
    "complex128": np.dtype(np.complex128),
}
_SUPPORTED = frozenset(DTYPES.values())


def as_dtype(dtype: Any) -> np.dtype:
    """Normalizes a dtype spec (name, NumPy dtype or scalar type) to a supported np.dtype."""
    if isinstance(dtype, np.dtype) and dtype in _SUPPORTED:  # the common case: no np.dtype() call
        return dtype
    if isinstance(dtype, str) and dtype in DTYPES:
        return DTYPES[dtype]
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"not a dtype: {dtype!r}") from e
    if dt not in _SUPPORTED:
        raise TypeError(
            f"unsupported dtype {dt}; hlograph supports {', '.join(DTYPES)}"
        )
    return dt


def dtype_name(dtype: np.dtype) -> str:
    return "bfloat16" if dtype == DTYPES["bfloat16"] else dtype.name


def is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype == DTYPES["bfloat16"]


def is_complex(dtype: np.dtype) -> bool:
    return dtype.kind == "c"


def is_integer(dtype: np.dtype) -> bool:
    return dtype.kind in "iu"


def is_inexact(dtype: np.dtype) -> bool:
    return is_float(dtype) or is_complex(dtype)


def _as_shape(shape: Iterable[int | None] | int) -> tuple[int | None, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    out = []
    for d in shape:
        if type(d) is int and d >= 0 or d is None or type(d) is SymDim:
            out.append(d)
            continue
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0:
            raise ValueError(f"a dimension must be a non-negative int or None, got {d!r}")
        out.append(int(d))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class TensorType:
    """The type of a graph value: ``TensorType("float32", (3, None))``."""

    dtype: np.dtype
    shape: tuple[int | None, ...]

    def __init__(self, dtype: Any, shape: Iterable[int | None] | int = ()):
        object.__setattr__(self, "dtype", as_dtype(dtype))
        object.__setattr__(self, "shape", _as_shape(shape))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def is_static(self) -> bool:
        return None not in self.shape

    @property
    def size(self) -> int | None:
        """Number of elements, or None when a dim is unknown."""
        if not self.is_static:
            return None
        if self.is_symbolic:
            n = 1
            for d in self.shape:
                n = d * n
            return n
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def is_symbolic(self) -> bool:
        """Whether a dim is a ``SymDim`` (a graph specialized for shape-polymorphic lowering)."""
        return any(type(d) is SymDim for d in self.shape)

    def with_shape(self, shape) -> "TensorType":
        return TensorType(self.dtype, shape)

    def with_dtype(self, dtype) -> "TensorType":
        return TensorType(dtype, self.shape)

    def accepts(self, dtype: np.dtype, shape: tuple[int, ...]) -> bool:
        """True when a concrete value of this dtype and shape fits this type."""
        return (
            dtype == self.dtype
            and len(shape) == len(self.shape)
            and all(s is None or s == d for s, d in zip(self.shape, shape))
        )

    def __str__(self) -> str:
        dims = ",".join("?" if d is None else str(d).replace(" ", "") for d in self.shape)
        return f"{dtype_name(self.dtype)}[{dims}]"

    __repr__ = __str__
