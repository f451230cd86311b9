"""Linear algebra (``pytensor.tensor.linalg``) through the HLOGRAPH mode against
PyTensor's Python implementation: the behaviour of PyTensor's Ops beyond the values
of a well-posed problem (failures, batches)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pytensor")

import pytensor.tensor as pt  # noqa: E402

from hlograph.tests.interop.pytensor_helpers import compare_hlograph_and_py  # noqa: E402


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_of_a_matrix_not_positive_definite_is_all_nan(lower):
    """PyTensor's Cholesky fills the whole factor with NaN when the factorization fails,
    not only the columns from the failing one on."""
    a = pt.matrix("a")
    not_pd = np.array([[4.0, 2.0, 0.0], [2.0, -3.0, 1.0], [0.0, 1.0, 5.0]])
    _, res = compare_hlograph_and_py([a], pt.linalg.cholesky(a, lower=lower), [not_pd])
    assert np.isnan(res).all()


def test_batched_cholesky_nan_only_where_it_fails(rng):
    """In a batch, only the factors of the matrices that are not positive definite are NaN."""
    a = pt.tensor3("a")
    x = rng.normal(size=(3, 3))
    batch = np.stack([x @ x.T + 3 * np.eye(3), -np.eye(3)])
    _, res = compare_hlograph_and_py([a], pt.linalg.cholesky(a), [batch])
    assert np.isfinite(res[0]).all() and np.isnan(res[1]).all()
