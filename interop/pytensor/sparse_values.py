"""Sparse matrices (``pytensor.sparse``) as values: inside an hlograph graph a sparse
value is its dense array (hlograph has no sparse type) and its PyTensor type keeps the
format; SciPy matrices at the function boundary and around a sparse Op's ``perform``
(dispatch/sparse.py converts the sparse <-> dense Ops)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sps
from pytensor.sparse.type import SparseTensorType

__all__ = ["is_sparse_type", "to_scipy", "to_dense", "is_sparse_node"]


def is_sparse_type(pt_type) -> bool:
    """Whether ``pt_type`` is PyTensor's sparse matrix type."""
    return isinstance(pt_type, SparseTensorType)


def is_sparse_node(node) -> bool:
    """Whether a PyTensor node has a sparse input or output."""
    return any(is_sparse_type(v.type) for v in (*node.inputs, *node.outputs))


def to_scipy(pt_type: SparseTensorType, value: Any):
    """``value`` (a dense array or a SciPy matrix) as a SciPy matrix of ``pt_type``'s
    format and dtype."""
    if sps.issparse(value):
        if value.format == pt_type.format and value.dtype == pt_type.dtype:
            return value
        value = value.asformat(pt_type.format)
    else:
        value = sps.csr_matrix(np.asarray(value)) if pt_type.format == "csr" else sps.csc_matrix(np.asarray(value))
    return value.astype(pt_type.dtype, copy=False)


def to_dense(pt_type, value: Any) -> np.ndarray:
    """A SciPy matrix (or an array) as the dense array standing for it in a graph."""
    arr = value.toarray() if sps.issparse(value) else np.asarray(value)
    return arr.astype(pt_type.dtype, copy=False)
