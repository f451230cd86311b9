"""hlograph.schur (scipy.linalg.schur) and hlograph.qr(..., pivoting=True)
(scipy.linalg.qr with column pivoting): compiled results checked by reconstruction
(the factors are unique only up to signs, phases and the order of the Schur
blocks), dtypes and shapes against SciPy's, perform against the compiled run,
batches, empty and 1x1 matrices, non-finite inputs, errors and gradients."""

import numpy as np
import pytest
import scipy.linalg

import hlograph as hg
from hlograph.frontend.ops.linalg import PivotedQR, Schur
from hlograph.tests.helpers import random_array

LIN_DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {
    "float32": dict(rtol=1e-4, atol=1e-4),
    "complex64": dict(rtol=1e-4, atol=1e-4),
    "float64": dict(rtol=1e-10, atol=1e-10),
    "complex128": dict(rtol=1e-10, atol=1e-10),
}


def _mH(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _eyes(shape, n):
    return np.broadcast_to(np.eye(n), tuple(shape) + (n, n))


def _close(actual, expected, dtype):
    np.testing.assert_allclose(np.asarray(actual, np.complex128), np.asarray(expected, np.complex128),
                               **TOL[dtype])


def _run(build, a):
    x = hg.tensor("a", a.shape, a.dtype)
    g = hg.Graph([x], build(x))
    got = hg.compile(g)(a)
    ref = hg.evaluate(g, a)
    return got, ref


def _schur_ok(a, t, z, dtype, output):
    """a = z t z^H, z unitary, t (quasi) upper triangular."""
    n = a.shape[-1]
    _close(z @ t @ _mH(z), a, dtype)
    _close(_mH(z) @ z, _eyes(a.shape[:-2], n), dtype)
    if output == "complex" or np.iscomplexobj(a):
        np.testing.assert_array_equal(np.tril(t, -1), 0)
    else:
        np.testing.assert_array_equal(np.tril(t, -2), 0)
        # 2x2 blocks on the diagonal do not overlap
        sub = np.diagonal(t, -1, axis1=-2, axis2=-1) != 0
        assert not (sub[..., 1:] & sub[..., :-1]).any()
    if a.size == 0:
        return
    # the eigenvalues are a's (compared as sets: sorting splits conjugate pairs)
    ev = np.linalg.eigvals(a.astype(np.complex128)).reshape(-1, n)
    if output == "complex" or np.iscomplexobj(a):
        got = np.diagonal(t, axis1=-2, axis2=-1).astype(np.complex128).reshape(-1, n)
    else:
        got = np.linalg.eigvals(t.astype(np.complex128)).reshape(-1, n)
    tol = 1e-3 if dtype in ("float32", "complex64") else 1e-8
    for g, e in zip(got, ev):
        dist = np.abs(g[:, None] - e[None, :])
        scale = 1 + np.abs(e)[None, :]
        assert (dist.min(axis=0) <= tol * scale[0]).all() and (dist.min(axis=1) <= tol * scale.max()).all()


# --- schur -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", LIN_DTYPES)
@pytest.mark.parametrize("output", ["real", "complex"])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (1, 1), (0, 0), (2, 0, 0), (0, 3, 3)], ids=str)
def test_schur(shape, output, dtype, rng):
    a = random_array(rng, shape, dtype)
    (t, z), (rt, rz) = _run(lambda x: hg.schur(x, output=output), a)
    et, ez = scipy.linalg.schur(np.zeros((1, 1), dtype), output=output)
    for got in (t, z, rt, rz):
        assert got.shape == shape and got.dtype == et.dtype == ez.dtype
    _schur_ok(a, t, z, dtype, output)
    _schur_ok(a, rt, rz, dtype, output)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_real_schur_of_complex_eigenvalues_has_2x2_blocks(dtype):
    rot = np.array([[0.0, -2.0, 1.0], [2.0, 0.0, 3.0], [0.0, 0.0, 1.0]], dtype)
    q, _ = np.linalg.qr(np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]))
    a = (q @ rot @ q.T).astype(dtype)
    (t, z), _ = _run(hg.schur, a)
    assert t.dtype == np.dtype(dtype)
    assert np.count_nonzero(np.abs(np.diagonal(t, -1)) > 1e-3) == 1
    _schur_ok(a, t, z, dtype, "real")
    (t, z), _ = _run(lambda x: hg.schur(x, "complex"), a)
    assert t.dtype == np.result_type(dtype, np.complex64)
    _schur_ok(a, t, z, dtype, "complex")


def test_schur_matches_scipy_on_a_triangular_matrix(rng):
    # an upper triangular matrix is its own Schur form (z = I)
    a = np.triu(random_array(rng, (4, 4), "float64"))
    (t, z), _ = _run(hg.schur, a)
    np.testing.assert_allclose(np.abs(t), np.abs(scipy.linalg.schur(a)[0]), rtol=1e-12, atol=1e-12)


def test_schur_of_non_finite_matrices_is_nan(rng):
    a = random_array(rng, (3, 3, 3), "float64")
    a[0, 1, 1], a[2, 0, 2] = np.nan, np.inf
    for output in ("real", "complex"):
        (t, z), (rt, rz) = _run(lambda x: hg.schur(x, output), a)
        for got in (t, z, rt, rz):
            assert np.isnan(got[0]).all() and np.isnan(got[2]).all()
        _schur_ok(a[1], t[1], z[1], "float64", output)


def test_schur_converts_ints_and_checks_its_input():
    t, z = hg.schur(hg.tensor("a", (3, 3), "int32"))
    assert t.dtype == z.dtype == np.float64
    t, z = hg.schur(hg.tensor("a", (None, 3, 3), "float32"), output="complex")
    assert t.dtype == np.complex64 and t.type.shape == (None, 3, 3)
    with pytest.raises(ValueError, match=r"Schur.*square"):
        hg.schur(hg.tensor("a", (3, 4)))
    with pytest.raises(ValueError, match=r"Schur: output must be 'real' or 'complex'"):
        hg.schur(hg.tensor("a", (3, 3)), output="sorted")
    with pytest.raises(TypeError, match=r"schur: array type float16 is unsupported"):
        hg.schur(hg.tensor("a", (3, 3), "float16"))
    assert "schur" in hg.__all__ and hg.schur is hg.frontend.builders.schur
    assert Schur("real") == Schur() and Schur("complex") != Schur()


def test_schur_unknown_dims_specialize_at_call(rng):
    x = hg.tensor("x", (None, 3, 3), "float64")
    fn = hg.compile(hg.Graph([x], hg.schur(x)))
    for n in (1, 3):
        a = random_array(rng, (n, 3, 3), "float64")
        t, z = fn(a)
        _schur_ok(a, t, z, "float64", "real")


def test_schur_has_no_gradient():
    x = hg.tensor("x", (3, 3), "float64")
    t, _ = hg.schur(x)
    with pytest.raises(hg.NotDifferentiableError, match="Schur"):
        hg.grad(hg.sum(t), x)


# --- qr with pivoting --------------------------------------------------------------------
SCIPY_MODE = {"reduced": "economic", "complete": "full", "r": "r"}


@pytest.mark.parametrize("dtype", LIN_DTYPES)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 4, 3), (1, 1), (0, 3), (3, 0)], ids=str)
def test_pivoted_qr(shape, mode, dtype, rng):
    a = random_array(rng, shape, dtype)
    got, ref = _run(lambda x: hg.qr(x, mode, pivoting=True), a)
    m, n = shape[-2:]
    k = min(m, n)
    for run in (got, ref):
        if mode == "r":
            r, p = run
        else:
            q, r, p = run
        assert p.dtype == np.int32 and p.shape == shape[:-2] + (n,)
        assert r.dtype == np.dtype(dtype) and r.shape == shape[:-2] + ((m if mode == "complete" else k), n)
        np.testing.assert_array_equal(np.tril(r, -1), 0)
        for idx in np.ndindex(*shape[:-2]):
            sq, sr, sp = scipy.linalg.qr(a[idx], mode="economic", pivoting=True)
            np.testing.assert_array_equal(p[idx], sp)
            _close(np.abs(r[idx][:k]), np.abs(sr), dtype)  # rows of r are unique up to a phase
            if mode == "complete":
                np.testing.assert_array_equal(r[idx][k:], 0)
        if mode == "r":
            continue
        assert q.dtype == np.dtype(dtype) and q.shape == shape[:-2] + (m, m if mode == "complete" else k)
        ap = np.take_along_axis(a, np.broadcast_to(p[..., None, :], a.shape).astype(np.intp), axis=-1)
        _close(q @ r, ap, dtype)
        _close(_mH(q) @ q, _eyes(shape[:-2], q.shape[-1]), dtype)


def test_pivoted_qr_pivots_by_column_norm():
    a = np.array([[1.0, 10.0, 0.0], [0.0, 0.0, 100.0], [1.0, 0.0, 0.0]])
    (q, r, p), _ = _run(lambda x: hg.qr(x, pivoting=True), a)
    np.testing.assert_array_equal(p, [2, 1, 0])
    d = np.abs(np.diagonal(r))
    assert (d[:-1] >= d[1:]).all()


def test_pivoted_qr_checks_and_has_no_gradient():
    x = hg.tensor("a", (4, 3), "int64")
    q, r, p = hg.qr(x, pivoting=True)
    assert (q.dtype, r.dtype, p.dtype) == (np.float64, np.float64, np.int32)
    assert q.type.shape == (4, 3) and r.type.shape == (3, 3) and p.type.shape == (3,)
    r, p = hg.qr(hg.tensor("a", (None, 2, 5)), "r", pivoting=True)
    assert r.type.shape == (None, 2, 5) and p.type.shape == (None, 5)
    with pytest.raises(ValueError, match=r"PivotedQR: mode must be"):
        hg.qr(hg.tensor("a", (3, 3)), "economic", pivoting=True)
    assert PivotedQR("reduced") == PivotedQR()
    x = hg.tensor("a", (4, 3), "float64")
    q, r, _ = hg.qr(x, pivoting=True)
    with pytest.raises(hg.NotDifferentiableError, match="PivotedQR"):
        hg.grad(hg.sum(r), x)
