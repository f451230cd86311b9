"""The numpy.linalg namespace against numpy.linalg."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import linalg as m
from hlograph.tests.helpers import (check_against_numpy, check_graph_against_numpy, compare_with_perform, graph_like,
                                   random_array)

TOL = {
    "float32": dict(rtol=2e-3, atol=2e-4),
    "complex64": dict(rtol=2e-3, atol=2e-4),
    "float64": dict(rtol=1e-9, atol=1e-10),
    "complex128": dict(rtol=1e-9, atol=1e-10),
}


def _tol(dtype):
    return TOL.get(np.dtype(dtype).name, TOL["float64"])


def check_linalg(builder, values, ref, dtype=None, **tol):
    """check_against_numpy with ``tol`` or else this module's tolerance for ``dtype``
    (default: the first value's dtype)."""
    check_against_numpy(builder, values, ref, **(tol or _tol(dtype or np.asarray(values[0]).dtype)))


def _runs(builder, values):
    """Outputs of the compiled graph and of hg.evaluate, as lists of arrays."""
    g = graph_like(builder, values)
    outs = [hg.compile(g)(*values), hg.evaluate(g, *values)]
    return [list(o) if not g.single_output else [o] for o in outs]


def _wellcond(rng, shape, dtype):
    a = random_array(rng, shape, dtype)
    return (a + 3 * shape[-1] * np.eye(shape[-1])).astype(dtype)


def _hpd(rng, shape, dtype):
    a = random_array(rng, shape, dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _herm(rng, shape, dtype):
    a = random_array(rng, shape, dtype)
    return ((a + np.conj(np.swapaxes(a, -1, -2))) / 2).astype(dtype)


def _close(a, e, dtype):
    np.testing.assert_allclose(a, e, **_tol(dtype))


def _mH(x):
    return np.conj(np.swapaxes(x, -1, -2))


DTYPES = ["float32", "float64", "complex128"]


def test_namespace_lists_numpy_linalg():
    assert set(np.linalg.__all__) <= set(m.__all__)
    for name in m.__all__:
        assert getattr(m, name) is not None
    assert m.LinAlgError is np.linalg.LinAlgError


# --- functions with unique results -------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)], ids=str)
def test_inverse_family(shape, dtype, rng):
    a = _wellcond(rng, shape, dtype)
    b = random_array(rng, shape[:-1], dtype)
    check_linalg(lambda x, y: [m.inv(x), m.det(x), *m.slogdet(x), m.solve(x, y[..., None]),
                               m.matrix_power(x, -2), m.matrix_power(x, 3), m.pinv(x)],
                 [a, b],
                 lambda x, y: [np.linalg.inv(x), np.linalg.det(x), *np.linalg.slogdet(x),
                               np.linalg.solve(x, y[..., None]), np.linalg.matrix_power(x, -2),
                               np.linalg.matrix_power(x, 3), np.linalg.pinv(x)])


def test_solve_vector_and_slogdet_result(rng):
    a = _wellcond(rng, (4, 4), "float64")
    b = random_array(rng, (4,), "float64")
    check_linalg(m.solve, [a, b], np.linalg.solve)
    res = m.slogdet(hg.tensor("a", (3, 3)))
    assert isinstance(res, m.SlogdetResult) and res.sign is res[0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_hermitian_values(dtype, rng):
    h = _hpd(rng, (2, 3, 3), dtype)
    check_linalg(lambda x: [m.cholesky(x), m.cholesky(x, upper=True), m.eigvalsh(x), m.eigvalsh(x, "U"),
                            m.svdvals(x), m.svd(x, compute_uv=False), m.svd(x, compute_uv=False, hermitian=True)],
                 [h],
                 lambda x: [np.linalg.cholesky(x), np.linalg.cholesky(x, upper=True), np.linalg.eigvalsh(x),
                            np.linalg.eigvalsh(x, "U"), np.linalg.svdvals(x),
                            np.linalg.svd(x, compute_uv=False),
                            np.linalg.svd(x, compute_uv=False, hermitian=True)])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pinv_arguments(dtype, rng):
    a = random_array(rng, (2, 5, 3), dtype)
    a[0, :, 2] = a[0, :, 0]  # rank deficient
    check_linalg(lambda x: [m.pinv(x, 1e-3), m.pinv(x, rtol=0.3), m.pinv(x, rtol=None)], [a],
                 lambda x: [np.linalg.pinv(x, 1e-3), np.linalg.pinv(x, rtol=0.3), np.linalg.pinv(x, rtol=None)])
    h = _herm(rng, (4, 4), dtype)
    check_linalg(lambda x: m.pinv(x, hermitian=True), [h], lambda x: np.linalg.pinv(x, hermitian=True))
    with pytest.raises(ValueError, match="rtol.*rcond"):
        m.pinv(hg.tensor("a", (3, 3)), 0.1, rtol=0.1)


# --- decompositions: invariants --------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, mode", [((4, 3), "reduced"), ((3, 4), "complete"), ((2, 3, 3), "reduced"),
                                         ((5, 3), "r")], ids=str)
def test_qr(shape, mode, dtype, rng):
    a = random_array(rng, shape, dtype)
    ref = np.linalg.qr(a, mode=mode)
    for out in _runs(lambda x: m.qr(x, mode), [a]):
        if mode == "r":
            (r,) = out
            assert r.shape == ref.shape and r.dtype == ref.dtype
            _close(np.abs(r), np.abs(ref), dtype)
            continue
        q, r = out
        assert q.shape == ref.Q.shape and r.shape == ref.R.shape and q.dtype == ref.Q.dtype
        _close(q @ r, a, dtype)
        k = q.shape[-1]
        _close(_mH(q) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), dtype)
        np.testing.assert_array_equal(np.tril(r, -1), 0)
    assert isinstance(m.qr(hg.tensor("a", (3, 2))), m.QRResult)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (0, 2)], ids=str)
def test_qr_raw(shape, dtype, rng):
    """NumPy's raw mode: the tuple (h, tau) of geqrf, h transposed."""
    a = random_array(rng, shape, dtype)
    ref = np.linalg.qr(a, mode="raw")
    assert isinstance(m.qr(hg.tensor("a", shape, dtype), "raw"), tuple)
    for out in _runs(lambda x: m.qr(x, "raw"), [a]):
        for g, w in zip(out, ref):
            assert g.shape == w.shape and g.dtype == w.dtype
            _close(g, w, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, full, hermitian", [((4, 3), True, False), ((2, 3, 5), False, False),
                                                    ((2, 4, 4), True, True)], ids=str)
def test_svd(shape, full, hermitian, dtype, rng):
    a = _herm(rng, shape, dtype) if hermitian else random_array(rng, shape, dtype)
    ref = np.linalg.svd(a, full_matrices=full, hermitian=hermitian)
    for u, s, vh in _runs(lambda x: m.svd(x, full, hermitian=hermitian), [a]):
        assert (u.shape, s.shape, vh.shape) == (ref.U.shape, ref.S.shape, ref.Vh.shape)
        assert (u.dtype, s.dtype, vh.dtype) == (ref.U.dtype, ref.S.dtype, ref.Vh.dtype)
        _close(s, ref.S, dtype)
        k = s.shape[-1]
        _close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, dtype)
        _close(_mH(u) @ u, np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2), dtype)


def test_svd_hermitian_reads_lower_triangle(rng):
    a = _herm(rng, (4, 4), "float64")
    a[0, 3] = 50.0  # NumPy's hermitian path reads the lower triangle only
    check_linalg(lambda x: m.svd(x, compute_uv=False, hermitian=True), [a],
                 lambda x: np.linalg.svd(x, compute_uv=False, hermitian=True))
    for u, s, vh in _runs(lambda x: m.svd(x, hermitian=True), [a]):
        _close((u * s[None, :]) @ vh, np.tril(a) + np.tril(a, -1).T, "float64")


@pytest.mark.parametrize("dtype", DTYPES)
def test_eig_eigh(dtype, rng):
    a = _wellcond(rng, (2, 3, 3), dtype)
    h = _herm(rng, (2, 3, 3), dtype)
    ref_w = np.linalg.eigvals(a)
    ref_h = np.linalg.eigh(h)
    for w, v, w2, hw, hv, hwu, hvu in _runs(
            lambda x, y: [*m.eig(x), m.eigvals(x), *m.eigh(y), *m.eigh(y, UPLO="U")], [a, h]):
        assert w.dtype == np.result_type(dtype, np.complex64) and v.shape == a.shape
        _close(a @ v, v * w[..., None, :], dtype)
        _close(np.sort_complex(w), np.sort_complex(ref_w), dtype)
        _close(np.sort_complex(w2), np.sort_complex(ref_w), dtype)
        for ew, ev in ((hw, hv), (hwu, hvu)):
            assert ew.dtype == ref_h.eigenvalues.dtype and ev.dtype == ref_h.eigenvectors.dtype
            _close(ew, ref_h.eigenvalues, dtype)
            _close(h @ ev, ev * ew[..., None, :], dtype)
    assert isinstance(m.eig(hg.tensor("a", (2, 2))), m.EigResult)
    assert isinstance(m.eigh(hg.tensor("a", (2, 2))), m.EighResult)
    with pytest.raises(ValueError, match="UPLO"):
        m.eigh(hg.tensor("a", (2, 2)), "X")


# --- norms, rank, condition number --------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32"])
def test_vector_norm(dtype, rng):
    x = random_array(rng, (2, 3, 4), dtype)
    cases = [dict(), dict(axis=-1), dict(axis=(0, 2), keepdims=True), dict(axis=(-1, 0), ord=1),
             dict(ord=np.inf), dict(axis=1, ord=-np.inf, keepdims=True),
             dict(axis=None, keepdims=True, ord=3), dict(axis=(1,), ord=0)]
    check_linalg(lambda v: [m.vector_norm(v, **c) for c in cases], [x],
                 lambda v: [np.linalg.vector_norm(v, **c) for c in cases],
                 **_tol("float32" if dtype in ("float32", "complex64") else "float64"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_matrix_norm_and_norm(dtype, rng):
    x = random_array(rng, (2, 3, 4), dtype)
    ords = ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]
    check_linalg(lambda v: [m.matrix_norm(v, ord=o) for o in ords] + [m.matrix_norm(v, keepdims=True),
                                                                      m.norm(v), m.norm(v, 3, axis=1),
                                                                      m.norm(v, "fro", (0, 2), True)],
                 [x],
                 lambda v: [np.linalg.matrix_norm(v, ord=o) for o in ords] + [
                     np.linalg.matrix_norm(v, keepdims=True), np.linalg.norm(v), np.linalg.norm(v, 3, axis=1),
                     np.linalg.norm(v, "fro", (0, 2), True)])


def _low_rank(rng, shape, rank, dtype):
    left = random_array(rng, shape[:-1] + (rank,), dtype)
    return (left @ random_array(rng, shape[:-2] + (rank, shape[-1]), dtype)).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_matrix_rank(dtype, rng):
    a = np.stack([_low_rank(rng, (5, 4), r, dtype) for r in (1, 2, 4)])
    h = _herm(rng, (4, 4), dtype)
    h = (h @ np.diag([1.0, 1.0, 0.0, 0.0]).astype(dtype) @ h).astype(dtype)
    tol = np.array([1e-3, 1e-2, 100.0])
    check_linalg(lambda x, y, t: [m.matrix_rank(x), m.matrix_rank(x, tol=0.5), m.matrix_rank(x, rtol=0.1),
                                  m.matrix_rank(x, t), m.matrix_rank(y, hermitian=True), m.matrix_rank(y)],
                 [a, h, tol],
                 lambda x, y, t: [np.linalg.matrix_rank(x), np.linalg.matrix_rank(x, tol=0.5),
                                  np.linalg.matrix_rank(x, rtol=0.1), np.linalg.matrix_rank(x, t),
                                  np.linalg.matrix_rank(y, hermitian=True), np.linalg.matrix_rank(y)])
    for v in (np.zeros(3, dtype), np.array([0, 2, 0], dtype)):
        g = graph_like(m.matrix_rank, [v])
        _, got = compare_with_perform(g, [v])
        assert got == np.linalg.matrix_rank(v) and got.dtype == np.int64
    with pytest.raises(ValueError, match="tol.*rtol"):
        m.matrix_rank(hg.tensor("a", (3, 3)), 0.1, rtol=0.1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_cond(dtype, rng):
    a = np.stack([random_array(rng, (3, 3), dtype), np.ones((3, 3), dtype)])  # the second is singular
    ps = [None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf]
    tol = dict(rtol=2e-2, atol=1e-3) if dtype == "float32" else dict(rtol=1e-6, atol=1e-8)
    g = graph_like(lambda x: [m.cond(x, p) for p in ps], [a])
    # 'nuc' of an exactly singular matrix raises LinAlgError in NumPy's cond (the SVD of
    # its NaN inverse fails) and in hg.evaluate: evaluate sees the regular matrix only
    for outs in (hg.evaluate(g, a[[0, 0]]), hg.compile(g)(a)):
        for p, r in zip(ps, outs):
            e = np.linalg.cond(a[:1], p)
            assert r.dtype == e.dtype and r.shape == (2,), f"p={p}"
            np.testing.assert_allclose(r[:1], e, **tol, err_msg=f"p={p}")
    for p, r in zip(ps, hg.compile(g)(a)):
        if p in (None, 2):  # NumPy's inf or a huge number, depending on rounding; never NaN
            assert not np.isnan(r[1]) and (np.isinf(r[1]) or abs(r[1]) > 1e5), f"p={p}: {r[1]}"
        elif p == -2:
            np.testing.assert_allclose(r[1], np.linalg.cond(a[1], p), atol=1e-5)
    # the other orders of the singular matrix: inf as NumPy's cond says, not LinAlgError
    # (its inverse there gives NaNs instead of raising, as NumPy's cond computes it)
    others = [p for p in ps if p != "nuc"]
    g1 = graph_like(lambda x: [m.cond(x, p) for p in others], [a])
    for p, r in zip(others, hg.evaluate(g1, a)):
        np.testing.assert_allclose(r, np.linalg.cond(a, p), **tol, err_msg=f"p={p}")
    with pytest.raises(np.linalg.LinAlgError):
        hg.evaluate(graph_like(lambda x: m.cond(x, "nuc"), [a]), a)
    with pytest.raises(np.linalg.LinAlgError, match="empty"):
        m.cond(hg.tensor("a", (0, 0)))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        m.cond(hg.tensor("a", (2, 3)), 1)


def test_cond_nan_input_stays_nan(rng):
    a = random_array(rng, (2, 3, 3), "float64")
    a[1, 0, 0] = np.nan
    check_linalg(lambda x: [m.cond(x, "fro"), m.cond(x, 1)], [a],
                 lambda x: [np.linalg.cond(x, "fro"), np.linalg.cond(x, 1)])


def test_cond_singular_is_inf():
    a = np.diag([1.0, 0.0, 2.0])
    check_linalg(lambda x: [m.cond(x), m.cond(x, -2)], [a], lambda x: [np.linalg.cond(x), np.linalg.cond(x, -2)])


# --- products ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [[(3, 4), (4, 5), (5, 2)], [(4,), (4, 6), (6, 2), (2, 3)],
                                    [(10, 2), (2, 30), (30, 4), (4,)], [(3,), (3, 4), (4,)],
                                    [(2, 3), (3,)]], ids=str)
def test_multi_dot(shapes, rng):
    xs = [random_array(rng, s, "float64") for s in shapes]
    check_linalg(lambda *v: m.multi_dot(v), xs, lambda *v: np.linalg.multi_dot(v))
    with pytest.raises(ValueError, match="multi_dot"):
        m.multi_dot([hg.tensor("a", (2, 2)), hg.tensor("b", (2, 2, 2)), hg.tensor("c", (2, 2))])


def test_multi_dot_order():
    xs = [hg.tensor(f"x{i}", s) for i, s in enumerate([(10, 2), (2, 30), (30, 4)])]
    out = m.multi_dot(xs)  # (10x2 @ 2x30) @ 30x4 costs 1800; 10x2 @ (2x30 @ 30x4) 320
    assert out.owner.inputs[0] is xs[0]


@pytest.mark.parametrize("dtype", ["int32", "float32", "complex128", "bool"])
def test_vecdot_outer_trace_diagonal(dtype, rng):
    x = random_array(rng, (2, 3, 4), dtype)
    y = random_array(rng, (3, 4), dtype)
    v = random_array(rng, (4,), dtype)
    w = random_array(rng, (3,), dtype)
    tdt = "complex128" if dtype == "complex128" else "float64"
    check_linalg(lambda a, b, c, d: [m.vecdot(a, b), m.vecdot(a, b, axis=-2), m.vecdot(c, c, axis=0),
                                     m.outer(c, d), m.trace(a), m.trace(a, offset=1), m.trace(b, offset=-1),
                                     m.trace(a, dtype=tdt), m.diagonal(a), m.diagonal(b, offset=2),
                                     m.matrix_transpose(a), m.matmul(a, c), m.tensordot(a, b, axes=2),
                                     m.tensordot(b, a, axes=([0], [1]))],
                 [x, y, v, w],
                 lambda a, b, c, d: [np.linalg.vecdot(a, b), np.linalg.vecdot(a, b, axis=-2),
                                     np.linalg.vecdot(c, c, axis=0),
                                     np.linalg.outer(c, d), np.linalg.trace(a), np.linalg.trace(a, offset=1),
                                     np.linalg.trace(b, offset=-1), np.linalg.trace(a, dtype=tdt),
                                     np.linalg.diagonal(a), np.linalg.diagonal(b, offset=2),
                                     np.linalg.matrix_transpose(a), np.linalg.matmul(a, c),
                                     np.linalg.tensordot(a, b, axes=2), np.linalg.tensordot(b, a, axes=([0], [1]))],
                 dtype="float32" if dtype in ("float32", "int32", "bool") else dtype)


def test_vecdot_broadcasts_and_conjugates(rng):
    a = random_array(rng, (2, 1, 3), "complex64")
    b = random_array(rng, (4, 3), "complex64")
    check_linalg(m.vecdot, [a, b], np.linalg.vecdot)
    with pytest.raises(ValueError, match="vecdot"):
        m.vecdot(hg.tensor("a", (3,)), hg.tensor("b", (4,)))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_cross(dtype, rng):
    a = random_array(rng, (2, 4, 3), dtype)
    b = random_array(rng, (4, 3), dtype)
    c = random_array(rng, (3, 2, 4), dtype)
    check_linalg(lambda x, y, z: [m.cross(x, y), m.cross(z, np.ones((3, 1, 1), dtype), axis=0),
                                  m.cross(x, y[None], axis=-1)],
                 [a, b, c],
                 lambda x, y, z: [np.linalg.cross(x, y), np.linalg.cross(z, np.ones((3, 1, 1), dtype), axis=0),
                                  np.linalg.cross(x, y[None], axis=-1)])
    with pytest.raises(ValueError, match="3-dimensional"):
        m.cross(hg.tensor("a", (2,)), hg.tensor("b", (2,)))


def test_products_reject_bad_inputs():
    with pytest.raises(ValueError, match="one-dimensional"):
        m.outer(hg.tensor("a", (2, 2)), hg.tensor("b", (2,)))
    with pytest.raises(ValueError, match="at least 2"):
        m.matrix_transpose(hg.tensor("a", (2,)))
    with pytest.raises(ValueError, match="at least 2"):
        m.trace(hg.tensor("a", (2,)))
    with pytest.raises(TypeError, match="out="):
        m.multi_dot([hg.tensor("a", (2, 2))] * 2, out=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="at least two"):
        m.multi_dot([hg.tensor("a", (2, 2))])
    with pytest.raises(ValueError, match="unrecognized mode"):
        m.qr(hg.tensor("a", (2, 2)), "economic")


# --- tensor solvers and least squares ----------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_tensorinv_tensorsolve(dtype, rng):
    a = _wellcond(rng, (6, 6), dtype).reshape(6, 2, 3)
    a4 = _wellcond(rng, (6, 6), dtype).reshape(2, 3, 6)
    b = random_array(rng, (6,), dtype)
    b2 = random_array(rng, (2, 3), dtype)
    check_linalg(lambda x, y, p, q: [m.tensorinv(x, ind=1), m.tensorinv(y, 2), m.tensorsolve(y, q),
                                     m.tensorsolve(x, p), m.tensorsolve(x, q, axes=(0,)),
                                     m.tensorsolve(y, q, axes=(-1,))],
                 [a, a4, b, b2],
                 lambda x, y, p, q: [np.linalg.tensorinv(x, ind=1), np.linalg.tensorinv(y, 2),
                                     np.linalg.tensorsolve(y, q), np.linalg.tensorsolve(x, p),
                                     np.linalg.tensorsolve(x, q, axes=(0,)),
                                     np.linalg.tensorsolve(y, q, axes=(2,))])
    with pytest.raises(np.linalg.LinAlgError, match="tensorinv"):
        m.tensorinv(hg.tensor("a", (2, 3, 4)), 1)
    with pytest.raises(ValueError, match="ind"):
        m.tensorinv(hg.tensor("a", (2, 2)), 0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("a_shape, b_shape", [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 5), (3,)),
                                              ((4, 4), (4, 3))], ids=str)
def test_lstsq(a_shape, b_shape, dtype, rng):
    a = random_array(rng, a_shape, dtype)
    b = random_array(rng, b_shape, dtype)
    tol = dict(rtol=5e-3, atol=5e-4) if dtype == "float32" else dict(rtol=1e-8, atol=1e-10)
    check_linalg(lambda x, y: m.lstsq(x, y), [a, b], lambda x, y: np.linalg.lstsq(x, y), **tol)


def test_lstsq_rank_deficient_and_rcond(rng):
    a = random_array(rng, (6, 4), "float64")
    a[:, 3] = a[:, 0] + a[:, 1]
    a[:, 2] *= 1e-4
    b = random_array(rng, (6, 2), "float64")
    for rcond in (None, 1e-3, -1):
        ref = np.linalg.lstsq(a, b, rcond=rcond)
        for x, resid, rank, s in _runs(lambda p, q: m.lstsq(p, q, rcond), [a, b]):
            assert rank == ref[2] and rank.dtype == np.int32
            np.testing.assert_allclose(x, ref[0], rtol=1e-7, atol=1e-7)
            _close(s, ref[3], "float64")
            assert resid.shape == (2,)  # NumPy: empty when rank deficient
            np.testing.assert_allclose(resid, np.sum(np.abs(b - a @ ref[0]) ** 2, axis=0), rtol=1e-7)


def test_lstsq_int_and_empty(rng):
    a = rng.integers(-3, 4, (5, 2)).astype(np.int32)
    b = rng.integers(-3, 4, (5,)).astype(np.int32)
    check_linalg(m.lstsq, [a, b], np.linalg.lstsq, dtype="float64")
    e, f = np.zeros((3, 0)), random_array(rng, (3, 2), "float64")
    check_linalg(m.lstsq, [e, f], np.linalg.lstsq)
    with pytest.raises(np.linalg.LinAlgError, match="two-dimensional"):
        m.lstsq(hg.tensor("a", (2, 3, 3)), hg.tensor("b", (3,)))


def test_size0_and_0d(rng):
    e3 = np.zeros((0, 3, 3))
    e2 = np.zeros((2, 0, 0), np.float32)
    v0 = np.zeros((0,), np.float32)
    s = np.float64(2.5)
    check_linalg(lambda a, b, c, d: [m.inv(a), m.det(a), m.matrix_transpose(a), m.trace(b), m.diagonal(b),
                                     m.vector_norm(c), m.vecdot(c, c), m.matrix_norm(b), m.matrix_rank(d),
                                     m.vector_norm(d, keepdims=True), m.svdvals(a), m.matmul(a, a)],
                 [e3, e2, v0, s],
                 lambda a, b, c, d: [np.linalg.inv(a), np.linalg.det(a), np.linalg.matrix_transpose(a),
                                     np.linalg.trace(b), np.linalg.diagonal(b), np.linalg.vector_norm(c),
                                     np.linalg.vecdot(c, c), np.linalg.matrix_norm(b),
                                     np.int64(np.linalg.matrix_rank(d)), np.linalg.vector_norm(d, keepdims=True),
                                     np.linalg.svdvals(a), np.linalg.matmul(a, a)],
                 dtype="float32")


def test_constant_operands(rng):
    a = _wellcond(rng, (3, 3), "float32")
    check_linalg(lambda x: [m.solve(x, np.ones(3)), m.vecdot(x, [1, 2, 3]), m.cross(x, [0.0, 0.0, 1.0]),
                            m.multi_dot([[1.0, 2.0, 3.0], x, x])],
                 [a],
                 lambda x: [np.linalg.solve(x, np.ones(3)), np.linalg.vecdot(x, [1, 2, 3]),
                            np.linalg.cross(x, [0.0, 0.0, 1.0]), np.linalg.multi_dot([[1.0, 2.0, 3.0], x, x])],
                 dtype="float32")


@pytest.mark.parametrize("dtype", ["int8", "int64", "float32", "complex64"])
@pytest.mark.parametrize("shape", [(2, 4, 0), (0, 3), (0, 0)])
def test_pinv_of_empty_matrices_keeps_the_dtype(shape, dtype):
    v = np.zeros(shape, dtype)
    check_against_numpy(m.pinv, [v], np.linalg.pinv)


@pytest.mark.parametrize("decl, shape, dtype", [
    ((None, 2, 0), (3, 2, 0), "int8"),     # empty matrices in a stack of unknown size: int8
    ((None, 0, None), (2, 0, 3), "bool"),
    ((0, 2, 3), (0, 2, 3), "int64"),       # an empty stack of 2x3 matrices: NumPy's SVD path, float64
    ((None, 2, 3), (0, 2, 3), "int64"),
])
def test_pinv_keeps_the_dtype_of_empty_matrices_not_of_an_empty_stack(decl, shape, dtype):
    v = np.zeros(shape, dtype)
    graph = graph_like(m.pinv, [v], shapes=[decl])
    check_graph_against_numpy(graph, [v], np.linalg.pinv(v))
    with pytest.raises(TypeError, match="float16"):  # NumPy refuses a stack of 2x3 float16 too
        m.pinv(hg.tensor("x", (0, 2, 3), "float16"))


def test_pinv_of_empty_float16_needs_a_known_shape():
    # NumPy's linalg refuses float16 but returns early on empty inputs: hlograph follows
    # when the shape is known, and refuses with a None dim, where it can't know the input
    # is empty (README, "NumPy semantics: the documented differences")
    v = np.zeros((4, 1, 0), np.float16)
    check_against_numpy(m.pinv, [v], np.linalg.pinv)
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        np.linalg.pinv(np.zeros((2, 2), np.float16))
    with pytest.raises(TypeError, match="float16"):
        m.pinv(hg.tensor("x", (4, 1, None), "float16"))
