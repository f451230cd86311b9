"""Sparse matrices (``pytensor.sparse``): inside an hlograph graph a sparse value is
its dense array (hlograph has no sparse type); its PyTensor type keeps the format.

The linker densifies sparse arguments and turns dense results of sparse outputs back
into SciPy matrices of the output's format and dtype. Sparse Ops without a converter
run their PyTensor ``perform`` on the host as sparse Ops are meant to (no
``FallbackWarning``): their sparse inputs are made SciPy matrices again before it, and
their sparse results dense after it. ``DenseFromSparse`` and ``SparseFromDense`` are
therefore no-ops in the graph."""

from __future__ import annotations

from pytensor.sparse import DenseFromSparse, SparseFromDense

from ..convert import cast, hlograph_convert


@hlograph_convert.register(DenseFromSparse)
@hlograph_convert.register(SparseFromDense)
def convert_dense_sparse(op, node, inputs, ctx):
    (x,) = inputs
    return cast(x, node.outputs[0].type.dtype)
