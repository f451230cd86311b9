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


# --- Schur and QR with pivoting: converted, checked by reconstruction ---------------------
import warnings  # noqa: E402

import pytensor  # noqa: E402
import scipy.linalg  # noqa: E402

import hlograph.interop.pytensor as hgpt  # noqa: E402
from hlograph.tests.interop.pytensor_helpers import fallbacks_of, py_mode  # noqa: E402


def _both(inputs, outputs, values):
    """The HLOGRAPH function's results (no FallbackWarning, no node left to its perform)
    and the Python mode's."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", hgpt.FallbackWarning)
        fn = pytensor.function(inputs, outputs, mode="HLOGRAPH")
        got = fn(*values)
    assert not fallbacks_of(fn)
    want = pytensor.function(inputs, outputs, mode=py_mode)(*values)
    assert [(np.asarray(g).dtype, np.shape(g)) for g in got] == [(np.asarray(w).dtype, np.shape(w)) for w in want]
    return got, want


def _tol(dtype):
    single = np.dtype(dtype) in (np.float32, np.complex64)
    return dict(rtol=1e-4, atol=1e-4) if single else dict(rtol=1e-10, atol=1e-10)


def _mH(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _check_schur(a, t, z, complex_form):
    tol = _tol(t.dtype)
    np.testing.assert_allclose(z @ t @ _mH(z), a, **tol)
    n = a.shape[-1]
    np.testing.assert_allclose(_mH(z) @ z, np.broadcast_to(np.eye(n), z.shape), **tol)
    np.testing.assert_array_equal(np.tril(t, -1 if complex_form else -2), 0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64"])
@pytest.mark.parametrize("output", ["real", "complex"])
def test_schur_is_converted(output, dtype, rng):
    a = pt.matrix("a", dtype=dtype)
    val = rng.normal(size=(4, 4)) * (3 if dtype == "int64" else 1)
    if dtype.startswith("complex"):
        val = val + 1j * rng.normal(size=(4, 4))
    val = val.astype(dtype)
    (t, z), (rt, _) = _both([a], pt.linalg.schur(a, output=output), [val])
    want = scipy.linalg.schur(val, output=output)[0].dtype if dtype != "int64" else \
        (np.complex128 if output == "complex" else np.float64)
    assert t.dtype == z.dtype == rt.dtype == want
    _check_schur(val, t, z, output == "complex" or dtype.startswith("complex"))


def test_batched_schur_and_empty_and_non_finite_matrices(rng):
    a = pt.tensor3("a")
    val = rng.normal(size=(3, 4, 4))
    val[1, 2, 0] = np.nan
    (t, z), (rt, rz) = _both([a], pt.linalg.schur(a), [val])
    assert np.isnan(t[1]).all() and np.isnan(z[1]).all() and np.isnan(rt[1]).all()
    _check_schur(val[[0, 2]], t[[0, 2]], z[[0, 2]], False)
    m = pt.matrix("m")
    for n in (0, 1):
        (t, z), _ = _both([m], pt.linalg.schur(m, output="complex"), [np.full((n, n), 2.0)])
        assert t.dtype == np.complex128 and t.shape == (n, n)
        np.testing.assert_allclose(t, np.full((n, n), 2.0))


def test_sorted_schur_runs_its_perform(rng):
    a = pt.matrix("a")
    t, z = pt.linalg.schur(a, sort="lhp")
    with pytest.warns(hgpt.FallbackWarning, match="Schur"):
        fn = pytensor.function([a], [t, z], mode="HLOGRAPH")
        got = fn(rng.normal(size=(3, 3)))
    assert fallbacks_of(fn)
    assert got[0].shape == (3, 3)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("mode", ["full", "economic", "r"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)], ids=str)
def test_qr_with_pivoting_is_converted(shape, mode, dtype, rng):
    a = pt.matrix("a", dtype=dtype)
    val = rng.normal(size=shape)
    if dtype.startswith("complex"):
        val = val + 1j * rng.normal(size=shape)
    val = val.astype(dtype)
    got, want = _both([a], pt.linalg.qr(a, mode=mode, pivoting=True), [val])
    sp = scipy.linalg.qr(val, mode=mode, pivoting=True)
    assert [(g.dtype, g.shape) for g in got] == [(s.dtype, s.shape) for s in sp]
    p, r = got[-1], got[-2]
    np.testing.assert_array_equal(p, sp[-1])
    np.testing.assert_array_equal(p, want[-1])
    np.testing.assert_array_equal(np.tril(r, -1), 0)
    np.testing.assert_allclose(np.abs(r), np.abs(sp[-2]), **_tol(dtype))  # R up to row phases
    if mode != "r":
        q = got[0]
        np.testing.assert_allclose(q @ r, val[:, p], **_tol(dtype))
        np.testing.assert_allclose(_mH(q) @ q, np.eye(q.shape[1]), **_tol(dtype))


def test_batched_qr_with_pivoting_and_unknown_shapes(rng):
    a = pt.tensor3("a")
    val = rng.normal(size=(2, 5, 3))
    for mode in ("economic", "r"):
        got, want = _both([a], pt.linalg.qr(a, mode=mode, pivoting=True), [val])
        np.testing.assert_array_equal(got[-1], want[-1])
        np.testing.assert_allclose(np.abs(got[-2]), np.abs(want[-2]), rtol=1e-10, atol=1e-12)
        for i in range(2):
            if mode != "r":
                np.testing.assert_allclose(got[0][i] @ got[1][i], val[i][:, got[-1][i]], rtol=1e-10, atol=1e-12)


def test_qr_without_pivoting_and_raw_mode_keep_their_paths(rng):
    a = pt.matrix("a")
    val = rng.normal(size=(4, 3))
    q, r = pt.linalg.qr(a, mode="economic")
    compare_hlograph_and_py([a], [q, r], [val], assert_fn=lambda g, w: np.testing.assert_allclose(
        np.abs(g), np.abs(w), rtol=1e-10, atol=1e-12))


@pytest.mark.parametrize("pivoting", [False, True])
@pytest.mark.parametrize("shape, static", [((5, 3), True), ((3, 5), True), ((4, 4), False),
                                           ((2, 5, 3), True), ((2, 3, 5), False)], ids=str)
def test_qr_raw_is_converted_with_the_shapes_perform_returns(shape, static, pivoting, rng):
    """mode='raw': PyTensor declares H as (M, M) (and R as (M, N)) but its perform returns
    scipy's geqrf/geqp3 result (M, N) and the reduced R (K, N): the converted graph gives
    what perform gives, on the device, batched or not, with static or unknown dims."""
    a = pt.tensor("a", shape=shape if static else (None,) * len(shape), dtype="float64")
    val = rng.normal(size=shape)
    outs = pt.linalg.qr(a, mode="raw", pivoting=pivoting)
    got, want = _both([a], outs, [val])
    assert [(g.dtype, g.shape) for g in got] == [(w.dtype, w.shape) for w in want]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_schur_overwrites_a_fortran_ordered_input_with_t(rng):
    from pytensor import In
    from pytensor.compile.mode import get_mode
    inplace = get_mode("HLOGRAPH").including("inplace")
    val = rng.normal(size=(4, 4))
    for output, written in (("real", True), ("complex", False)):
        x = pt.matrix("x", shape=(None, None))
        t, z = pt.linalg.schur(x, output=output)
        fn = pytensor.function([In(x, mutable=True)], [t, z], mode=inplace)
        want = pytensor.function([x], [t, z], mode="FAST_COMPILE")(val)
        for order in ("F", "C"):
            arg = np.copy(val, order=order)
            got = fn(arg)
            np.testing.assert_allclose(got[0], want[0], rtol=1e-8, atol=1e-10)
            changed = not np.array_equal(arg, val)
            assert changed == (written and order == "F"), (output, order)
            if changed:
                np.testing.assert_allclose(arg, got[0], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("output", ["real", "complex"])
def test_qz_runs_on_the_host_by_design_without_a_warning(output, rng):
    """QZ (LAPACK's gges) has no device implementation anywhere: it runs PyTensor's perform
    on the host, as the functions' fallbacks list, but warns of nothing."""
    from pytensor.tensor.linalg import qz
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    outs = qz(a, b, output=output)
    with warnings.catch_warnings():
        warnings.simplefilter("error", hgpt.FallbackWarning)
        fn, got = compare_hlograph_and_py([a, b], list(outs), [rng.normal(size=(4, 4)), rng.normal(size=(4, 4))],
                                          allow_fallback=True)
    assert {name for name, _ in fallbacks_of(fn)} == {"QZ"}
