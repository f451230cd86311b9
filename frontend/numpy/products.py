"""Matrix and vector products under NumPy's top-level names (NumPy lists them
with its linear algebra routines): inner, vdot, vecdot, matvec, vecmat, kron,
and trace. Each composes dot_general products (``frontend/ops/linalg.py``:
``dot``, ``matmul``, ``tensordot``, ``einsum``, ``outer``), reshapes and
elementwise ops; the ``numpy.linalg`` namespace is ``linalg.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import Variable
from ..types import as_dtype, is_complex
from ..ops import elemwise as ew
from ..ops.basic import as_variable, static_shape
from ..ops.linalg import apply_core_axes, dot, matmul, tensordot
from ..ops.reduction import sum as _sum
from ..ops.shape import expand_dims, reshape, squeeze, transpose
from .indexing import diagonal

__all__ = ["inner", "vdot", "vecdot", "matvec", "vecmat", "kron", "trace"]


def _conj(x: Variable) -> Variable:
    """The complex conjugate; other dtypes pass through unchanged (numpy.conj of bool is int8)."""
    return ew.conj(x) if is_complex(x.dtype) else x


def _static_size(x: Variable, name: str) -> int:
    if any(d is None for d in x.shape):
        raise ValueError(f"{name}: needs a static shape, got {x.type}")
    return int(np.prod(x.shape, dtype=np.int64))


def inner(a: Any, b: Any) -> Variable:
    """Inner product over the last axes, as numpy.inner (0-d operands multiply); the result
    has ``a``'s other dims followed by ``b``'s."""
    a, b = as_variable(a), as_variable(b)
    if a.ndim == 0 or b.ndim == 0:
        return ew.multiply(a, b)
    if a.shape[-1] is not None and b.shape[-1] is not None and a.shape[-1] != b.shape[-1]:
        raise ValueError(f"inner: last dims differ, got {a.type} and {b.type}")
    return tensordot(a, b, axes=([-1], [-1]))


def vdot(a: Any, b: Any) -> Variable:
    """Dot product of the flattened inputs, conjugating ``a``, as numpy.vdot (0-d result)."""
    a, b = as_variable(a), as_variable(b)
    na, nb = _static_size(a, "vdot"), _static_size(b, "vdot")
    if na != nb:
        raise ValueError(f"vdot: inputs have different sizes, {a.type} and {b.type}")
    return dot(_conj(reshape(a, (-1,))), reshape(b, (-1,)))


def vecdot(x1: Any, x2: Any, axis: int | None = None, *, axes: Any = None,
           keepdims: bool = False) -> Variable:
    """Vector dot product along ``axis`` (the last by default; the other dims broadcast),
    conjugating ``x1``, as numpy.vecdot; ``axes`` (``[i, j]`` or ``[(i,), (j,), (k,)]``)
    picks each operand's vector axis (and, with ``keepdims``, the output's), and
    ``keepdims`` keeps the reduced dim with size 1."""
    x1, x2 = as_variable(x1), as_variable(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"vecdot: inputs must have at least one dim, got {x1.type} and {x2.type}")
    return apply_core_axes("vecdot", "(n),(n)->()", _vecdot, [x1, x2], [1, 1], 0, axes, axis, keepdims)


def _vecdot(x1: Variable, x2: Variable) -> Variable:
    out = matmul(expand_dims(_conj(x1), -2), expand_dims(x2, -1))
    return squeeze(out, (-2, -1))


def matvec(x1: Any, x2: Any, *, axes: Any = None, axis: Any = None, keepdims: bool = False) -> Variable:
    """Matrix-vector product over the last dims (the others broadcast), as numpy.matvec:
    ``(..., m, n) x (..., n) -> (..., m)``; ``axes`` (``[(i, j), (k,), (l,)]``) places the
    core dims elsewhere, as NumPy's generalized-ufunc keyword (``axis``/``keepdims`` raise
    NumPy's TypeError)."""
    x1, x2 = as_variable(x1), as_variable(x2)
    if x1.ndim < 2 or x2.ndim < 1:
        raise ValueError(f"matvec: needs a matrix and a vector, got {x1.type} and {x2.type}")
    return apply_core_axes("matvec", "(m,n),(n)->(m)", _matvec, [x1, x2], [2, 1], 1, axes, axis, keepdims)


def _matvec(x1: Variable, x2: Variable) -> Variable:
    return squeeze(matmul(x1, expand_dims(x2, -1)), -1)


def vecmat(x1: Any, x2: Any, *, axes: Any = None, axis: Any = None, keepdims: bool = False) -> Variable:
    """Vector-matrix product over the last dims (the others broadcast), conjugating the
    vector, as numpy.vecmat: ``(..., m) x (..., m, n) -> (..., n)``; ``axes``
    (``[(i,), (j, k), (l,)]``) places the core dims elsewhere, as NumPy's
    generalized-ufunc keyword (``axis``/``keepdims`` raise NumPy's TypeError)."""
    x1, x2 = as_variable(x1), as_variable(x2)
    if x1.ndim < 1 or x2.ndim < 2:
        raise ValueError(f"vecmat: needs a vector and a matrix, got {x1.type} and {x2.type}")
    return apply_core_axes("vecmat", "(m),(m,n)->(n)", _vecmat, [x1, x2], [1, 2], 1, axes, axis, keepdims)


def _vecmat(x1: Variable, x2: Variable) -> Variable:
    return squeeze(matmul(expand_dims(_conj(x1), -2), x2), -2)


def kron(a: Any, b: Any) -> Variable:
    """numpy.kron: the Kronecker product (ranks aligned on the right)."""
    a, b = as_variable(a), as_variable(b)
    ndim = max(a.ndim, b.ndim)
    sa = (1,) * (ndim - a.ndim) + static_shape(a, "kron")
    sb = (1,) * (ndim - b.ndim) + static_shape(b, "kron")
    prod = ew.multiply(reshape(a, [d for s in sa for d in (s, 1)]), reshape(b, [d for s in sb for d in (1, s)]))
    return reshape(prod, [x * y for x, y in zip(sa, sb)])


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Variable:
    """numpy.trace: the sum along the ``offset`` diagonal of the (``axis1``, ``axis2``) planes
    (``sum``'s result dtype, or ``dtype``)."""
    a = as_variable(a)
    if a.ndim < 2:
        raise ValueError(f"trace: the input must have at least 2 dims, got {a.ndim}")
    d = diagonal(a, offset, axis1, axis2)
    if dtype is None:
        return _sum(d, -1)
    dt = as_dtype(dtype)
    return ew.astype(_sum(ew.astype(d, dt), -1), dt)
