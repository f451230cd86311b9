"""Gradients of the decompositions and solvers (frontend/ops/linalg.py) against jax and
finite differences, in float64 and complex128, single and stacked matrices.

The triangular solvers read one triangle of their input and are compared with jax
functions that read the same triangle. cholesky and eigh are defined on Hermitian
matrices: their derivatives see the input's Hermitian part, as jax's (symmetric
gradients), so they are compared with jax's defaults along Hermitian tangents; eigenvectors and singular
vectors are compared in a fixed gauge (the first component of each made real and
positive), the only way two implementations agree on them. Each check covers several
variants at once (one function of several inputs, its outputs flattened together), so
that one jax and one hlograph compilation serve them all."""

import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.graph import NotDifferentiableError
from hlograph.tests.autodiff.helpers import check_grads


def _rand(rng, shape, complex_=False):
    x = rng.normal(size=shape)
    if complex_:
        x = x + 1j * rng.normal(size=shape)
    return x


def _spd(rng, shape, complex_=False):
    """Well-conditioned Hermitian positive-definite matrices."""
    a = _rand(rng, shape, complex_)
    n = shape[-1]
    return a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)


def _dominant(rng, shape, complex_=False):
    """Well-conditioned (diagonally dominant) general matrices."""
    n = shape[-1]
    return _rand(rng, shape, complex_) + 2 * n * np.eye(n)


def _hermitian_jnp(x, lower=True):
    """The Hermitian matrix LAPACK sees when it reads one triangle of x."""
    s = jnp.tril(x, -1) if lower else jnp.triu(x, 1)
    d = jnp.real(jnp.diagonal(x, axis1=-2, axis2=-1)).astype(x.dtype)
    return s + jnp.conj(jnp.swapaxes(s, -1, -2)) + d[..., None] * jnp.eye(x.shape[-1], dtype=x.dtype)


def _flat(xs):
    """The values of ``xs`` in one vector of their common dtype."""
    dt = np.result_type(*[x.dtype for x in xs])
    return hg.concatenate([hg.reshape(x.astype(dt), (-1,)) for x in xs], axis=0)


def _jflat(xs):
    dt = jnp.result_type(*[x.dtype for x in xs])
    return jnp.concatenate([jnp.reshape(x.astype(dt), (-1,)) for x in xs])


def _gauge(v):
    """Unit factors (1, n) that make the first row of v real and positive."""
    first = v[..., 0:1, :]
    if np.iscomplexobj(np.zeros((), v.dtype)):
        return hg.conj(first) / hg.abs(first).astype(v.dtype)
    return hg.sign(first)


def _jgauge(v):
    first = v[..., 0:1, :]
    if jnp.iscomplexobj(v):
        return jnp.conj(first) / jnp.abs(first).astype(v.dtype)
    return jnp.sign(first)


# --- cholesky, eigh ----------------------------------------------------------------------------
@pytest.mark.parametrize("complex_", [False, True])
def test_cholesky(complex_, rng):
    def fn(x, y):
        return _flat([hg.cholesky(x), hg.cholesky(x, upper=True), hg.cholesky((y + hg.conj(y.T)) / 2)])

    def jax_fn(x, y):
        lower = jnp.linalg.cholesky(x)
        return _jflat([lower, jnp.conj(jnp.swapaxes(lower, -1, -2)), jnp.linalg.cholesky(y)])

    check_grads(fn, jax_fn, [_spd(rng, (2, 3, 3), complex_), _spd(rng, (3, 3), complex_)], rng=rng,
                tangent_map=_hermitian_np)


def _hermitian_np(t):
    return (t + np.conj(np.swapaxes(t, -1, -2))) / 2


@pytest.mark.parametrize("name", ["cholesky", "eigvalsh", "eigh_vectors"])
def test_hermitian_ops_gradients_are_jax_s(name, rng):
    # a matrix argument used directly: the gradient is Hermitian, as jax.grad's
    # (jnp.linalg.cholesky/eigh symmetrize their input), not one triangle's
    w = rng.normal(size=(4, 4))
    fns = {
        "cholesky": (lambda a: hg.sum(hg.linalg.cholesky(a) * w), lambda a: jnp.sum(jnp.linalg.cholesky(a) * w)),
        "eigvalsh": (lambda a: hg.sum(hg.linalg.eigvalsh(a) ** 2), lambda a: jnp.sum(jnp.linalg.eigvalsh(a) ** 2)),
        "eigh_vectors": (lambda a: hg.sum(hg.abs(hg.linalg.eigh(a)[1]) * w),
                         lambda a: jnp.sum(jnp.abs(jnp.linalg.eigh(a)[1]) * w)),
    }
    hf, jf = fns[name]
    a0 = _spd(rng, (4, 4)) + np.diag([0.0, 1.0, 3.0, 6.0])
    a = hg.tensor("a", (4, 4), "float64")
    got = hg.compile(hg.Graph([a], hg.grad(hf(a), a)))(a0)
    import jax
    with jax.enable_x64(True):
        ref = np.asarray(jax.grad(jf)(a0))
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got, got.T, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("complex_", [False, True])
def test_eigh(complex_, rng):
    def fn(x):
        parts = []
        for uplo in "LU":
            w, v = hg.eigh(x, UPLO=uplo)
            parts += [w, v * _gauge(v), hg.linalg.eigvalsh(x, UPLO=uplo)]
        return _flat(parts)

    def jax_fn(x):
        parts = []
        for _ in "LU":
            w, v = jnp.linalg.eigh(x)
            parts += [w, v * _jgauge(v), w]
        return _jflat(parts)

    check_grads(fn, jax_fn, [_spd(rng, (2, 3, 3), complex_) + np.diag([0.0, 1.0, 3.0])], rng=rng,
                tangent_map=_hermitian_np)


# --- svd, qr -----------------------------------------------------------------------------------
@pytest.mark.parametrize("complex_", [False, True])
def test_svd(complex_, rng):
    def one(x, svd, gauge, swap, conj):
        u, s, vh = svd(x)
        g = gauge(u)
        return [u * g, s, vh * conj(swap(g))]

    def fn(*xs):
        parts = []
        for x in xs:
            parts += one(x, lambda v: hg.svd(v, full_matrices=False), _gauge,
                         hg.linalg.matrix_transpose, hg.conj)
            parts.append(hg.linalg.svdvals(x))
        parts.append(hg.svd(xs[0])[1])  # the singular values of a full SVD of a square matrix
        return _flat(parts)

    def jax_fn(*xs):
        parts = []
        for x in xs:
            parts += one(x, lambda v: jnp.linalg.svd(v, full_matrices=False), _jgauge,
                         lambda v: jnp.swapaxes(v, -1, -2), jnp.conj)
            parts.append(jnp.linalg.svdvals(x))
        parts.append(jnp.linalg.svd(xs[0])[1])
        return _jflat(parts)

    shapes = [(3, 3), (4, 3), (3, 4)] + ([] if complex_ else [(2, 4, 3)])
    check_grads(fn, jax_fn, [_rand(rng, s, complex_) for s in shapes], rng=rng)


@pytest.mark.parametrize("complex_", [False, True])
def test_qr(complex_, rng):
    modes = ["reduced", "complete", "r"]

    def fn(*xs):
        return _flat([o for x in xs for m in modes for o in (hg.qr(x, mode=m) if m != "r" else [hg.qr(x, mode=m)])])

    def jax_fn(*xs):
        return _jflat([o for x in xs for m in modes
                       for o in (jnp.linalg.qr(x, mode=m) if m != "r" else [jnp.linalg.qr(x, mode=m)])])

    shapes = [(4, 3), (3, 5)] + ([] if complex_ else [(3, 3), (2, 4, 2)])
    check_grads(fn, jax_fn, [_rand(rng, s, complex_) for s in shapes], rng=rng)


# --- solvers ---------------------------------------------------------------------------------
@pytest.mark.parametrize("complex_", [False, True])
def test_solve(complex_, rng):
    def fn(a, b, c, v, m):
        return _flat([hg.solve(a, v), hg.solve(a, m), hg.solve(b, v), hg.solve(b, c), hg.solve(a, c)])

    def jax_fn(a, b, c, v, m):
        vec = jnp.vectorize(jnp.linalg.solve, signature="(n,n),(n)->(n)")
        mat = jnp.vectorize(jnp.linalg.solve, signature="(n,n),(n,k)->(n,k)")
        return _jflat([vec(a, v), mat(a, m), vec(b, v), mat(b, c), mat(a, c)])

    args = [_dominant(rng, (2, 3, 3), complex_), _dominant(rng, (3, 3), complex_),
            _rand(rng, (3, 2), complex_), _rand(rng, (3,), complex_), _rand(rng, (2, 1, 3, 2), complex_)]
    check_grads(fn, jax_fn, args, rng=rng)


SOLVE_TRIANGULAR = [(lower, trans, unit) for lower in (True, False) for trans in (0, 1, 2)
                    for unit in (False, True)]


def test_solve_triangular(rng):
    def fn(a, b, v):
        return _flat([hg.solve_triangular(a, b, trans=t, lower=lo, unit_diagonal=u)
                      for lo, t, u in SOLVE_TRIANGULAR] + [hg.solve_triangular(a, v, lower=True)])

    def jax_fn(a, b, v):
        return _jflat([jsl.solve_triangular(a, b, trans=t, lower=lo, unit_diagonal=u)
                       for lo, t, u in SOLVE_TRIANGULAR] + [jsl.solve_triangular(a, v, lower=True)])

    args = [_dominant(rng, (3, 3), True), _rand(rng, (3, 2), True), _rand(rng, (3,), True)]
    check_grads(fn, jax_fn, args, rng=rng)


def test_solve_triangular_batched(rng):
    a, b = _dominant(rng, (2, 3, 3)), _rand(rng, (3,))
    check_grads(lambda x, y: hg.solve_triangular(x, y, trans=1),
                jnp.vectorize(lambda x, y: jsl.solve_triangular(x, y, trans=1), signature="(n,n),(n)->(n)"),
                [a, b], rng=rng)


@pytest.mark.parametrize("complex_", [False, True])
def test_cho_solve(complex_, rng):
    def fn(c, u, b, v):
        return _flat([hg.cho_solve((c, True), b), hg.cho_solve((u, False), b), hg.cho_solve((c, True), v)])

    def jax_fn(c, u, b, v):
        mat = "(n,n),(n,k)->(n,k)"
        return _jflat([jnp.vectorize(lambda x, y: jsl.cho_solve((x, True), y), signature=mat)(c, b),
                       jnp.vectorize(lambda x, y: jsl.cho_solve((x, False), y), signature=mat)(u, b),
                       jnp.vectorize(lambda x, y: jsl.cho_solve((x, True), y), signature="(n,n),(n)->(n)")(c, v)])

    c = np.linalg.cholesky(_spd(rng, (2, 3, 3), complex_))
    u = np.conj(np.swapaxes(np.linalg.cholesky(_spd(rng, (3, 3), complex_)), -1, -2))
    check_grads(fn, jax_fn, [c, u, _rand(rng, (2, 3, 2), complex_), _rand(rng, (3,), complex_)], rng=rng)


@pytest.mark.parametrize("complex_", [False, True])
def test_inv_det_slogdet(complex_, rng):
    def fn(a):
        sign, logabsdet = hg.linalg.slogdet(a)
        return _flat([hg.linalg.inv(a), hg.linalg.det(a), logabsdet] + ([sign] if complex_ else []))

    def jax_fn(a):
        sign, logabsdet = jnp.linalg.slogdet(a)
        return _jflat([jnp.linalg.inv(a), jnp.linalg.det(a), logabsdet] + ([sign] if complex_ else []))

    # 4 x 4: jax's det of 2 x 2 and 3 x 3 matrices is a formula, of larger ones its cofactor rule
    check_grads(fn, jax_fn, [_dominant(rng, (2, 4, 4), complex_)], rng=rng)


@pytest.mark.parametrize("complex_", [False, True])
def test_pinv(complex_, rng):
    def fn(a, b, c, h):
        return _flat([hg.linalg.pinv(a), hg.linalg.pinv(b), hg.linalg.pinv(c), hg.linalg.pinv(h, hermitian=True)])

    def jax_fn(a, b, c, h):
        return _jflat([jnp.linalg.pinv(a), jnp.linalg.pinv(b), jnp.linalg.pinv(c),
                       jnp.linalg.pinv(_hermitian_jnp(h), hermitian=True)])

    args = [_rand(rng, (4, 3), complex_), _rand(rng, (3, 4), complex_), _rand(rng, (2, 3, 3), complex_),
            _spd(rng, (3, 3), complex_)]
    check_grads(fn, jax_fn, args, rng=rng)


def test_expm(rng):
    # jax's expm compiles slowly: one comparison (complex), finite differences else (stacked)
    check_grads(hg.expm, jsl.expm, [0.5 * _rand(rng, (3, 3), True)], rng=rng)
    check_grads(hg.expm, None, [0.5 * _rand(rng, (2, 3, 3))], rng=rng)


def _jax_sylvester(a, b, q):
    # vec(a x + x b) = (I kron a + b^T kron I) vec(x), vec stacking columns
    n, m = q.shape
    k = jnp.kron(jnp.eye(m), a) + jnp.kron(b.T, jnp.eye(n))
    return jnp.linalg.solve(k, q.T.reshape(-1)).reshape(m, n).T


def test_solve_sylvester(rng):
    batched = jnp.vectorize(_jax_sylvester, signature="(n,n),(m,m),(n,m)->(n,m)")
    args = [_dominant(rng, (2, 3, 3)), _dominant(rng, (2, 2)), _rand(rng, (2, 3, 2))]
    check_grads(hg.solve_sylvester, batched, args, rng=rng)


# --- lu --------------------------------------------------------------------------------------
@pytest.mark.parametrize("complex_", [False, True])
def test_lu(complex_, rng):
    jax_lu = jnp.vectorize(jsl.lu, signature="(m,n)->(m,m),(m,k),(k,n)")

    def fn(*xs):
        return _flat([o for x in xs for o in hg.lu(x)[1:]] + [hg.lu_factor(x)[0] for x in xs[:3]])

    def jax_fn(*xs):
        return _jflat([o for x in xs for o in jax_lu(x)[1:]] + [jsl.lu_factor(x)[0] for x in xs[:3]])

    shapes = [(3, 3), (4, 3), (3, 4)] + ([] if complex_ else [(2, 3, 3)])
    check_grads(fn, jax_fn, [_rand(rng, s, complex_) for s in shapes], rng=rng)


# --- eig (eigenvalues) ---------------------------------------------------------------------------
def test_eigvals(rng):
    a = _rand(rng, (3, 3)) + np.diag([0.0, 2.0, 4.0])
    check_grads(lambda x, y: _flat([hg.linalg.eigvals(x), hg.linalg.eigvals(y)]),
                lambda x, y: _jflat([jnp.linalg.eigvals(x), jnp.linalg.eigvals(y)]),
                [a, a + 1j * _rand(rng, (3, 3))], rng=rng)


# --- what has no gradient --------------------------------------------------------------------
def test_no_gradient_errors():
    a = hg.tensor("a", (3, 3), "float64")
    w, v = hg.linalg.eig(a)
    with pytest.raises(NotDifferentiableError, match="Eig.*eigenvectors"):
        hg.grad(hg.sum(hg.abs(v)), a)
    hg.grad(hg.sum(hg.abs(w)), a)  # the eigenvalues have one
    b = hg.tensor("b", (4, 3), "float64")
    u, s, vh = hg.svd(b)  # full_matrices of a non-square matrix
    with pytest.raises(NotDifferentiableError, match="SVD.*full_matrices=False"):
        hg.grad(hg.sum(u), b)
    hg.grad(hg.sum(s), b)  # the singular values have one
    c = hg.tensor("c", (None, None), "float64")
    with pytest.raises(NotDifferentiableError, match="Cholesky.*static matrix dims"):
        hg.grad(hg.sum(hg.cholesky(c)), c)


def test_unknown_batch_dims(rng):
    # masks and identities need the matrix dims only; batch dims may be unknown
    x = hg.tensor("x", (None, 4, 3), "float64")
    u, s, vh = hg.svd(x, full_matrices=False)
    g = hg.grad(hg.sum(hg.cholesky(hg.matmul(hg.linalg.matrix_transpose(x), x))) + hg.sum(s * s), x)
    graph = hg.Graph([x], g)
    xv = rng.normal(size=(2, 4, 3))
    np.testing.assert_allclose(hg.compile(graph)(xv), hg.evaluate(graph, xv), rtol=1e-10)
