"""Sparse matrices under the HLOGRAPH mode: dense arrays inside the graph, SciPy
matrices of the declared format and dtype at its boundary, sparse Ops on the host."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sps

import pytensor
import pytensor.sparse as ps
import pytensor.tensor as pt

import hlograph.interop.pytensor  # noqa: F401


def _run(inputs, output, values):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn = pytensor.function(inputs, output, mode="HLOGRAPH")
        got = fn(*values)
    want = pytensor.function(inputs, output, mode="FAST_COMPILE")(*values)
    return got, want


def _assert_same(got, want):
    assert sps.issparse(got) == sps.issparse(want)
    if sps.issparse(want):
        assert got.format == want.format and got.dtype == want.dtype
        np.testing.assert_allclose(got.toarray(), want.toarray())
    else:
        np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("format", ["csr", "csc"])
def test_sparse_input_and_output_keep_format(format):
    x = ps.matrix(format, name="x", shape=(4, 3))
    got, want = _run([x], -x, [sps.random(4, 3, density=0.5, format=format, random_state=1)])
    _assert_same(got, want)


@pytest.mark.parametrize("format", ["csr", "csc"])
def test_dense_from_sparse_and_back(format):
    x = pt.matrix("x", shape=(3, 2))
    s = ps.csr_from_dense(x) if format == "csr" else ps.csc_from_dense(x)
    got, want = _run([x], [s, ps.dense_from_sparse(s)], [np.eye(3, 2)])
    for g, w in zip(got, want):
        _assert_same(g, w)


def test_structured_dot_and_structured_elemwise_on_host():
    x = ps.csr_matrix("x", shape=(3, 3))
    y = pt.matrix("y", shape=(3, 2))
    got, want = _run([x, y], [ps.structured_dot(x, y), ps.math.sin(x * y[:, 0])],
                     [sps.random(3, 3, density=0.5, format="csr", random_state=2), np.ones((3, 2))])
    for g, w in zip(got, want):
        _assert_same(g, w)
