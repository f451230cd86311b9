"""Reductions, products, extra ops, sorting and linear algebra (``pytensor.tensor.math``,
``extra_ops``, ``sort``, ``linalg``, Blockwise) through the HLOGRAPH mode against
PyTensor's Python implementation."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pytensor")

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402

from hlograph.tests.interop.pytensor_helpers import compare_hlograph_and_py  # noqa: E402


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool"])
def test_reductions(dtype, rng):
    m = pt.matrix("m", dtype=dtype)
    outs = [m.sum(), m.sum(axis=0), m.prod(axis=1), m.max(axis=0), m.min(), pt.argmax(m, axis=1), pt.argmax(m),
            pt.argmin(m, axis=0), pt.any(m, axis=1), pt.all(m), m.sum(axis=(0, 1), dtype="float64"),
            pt.sum(m, axis=1, acc_dtype="float64")]
    if dtype != "bool":
        outs += [m.mean(axis=0), pt.max(m, axis=1, keepdims=True), m.var(axis=1), pt.prod(m, no_zeros_in_input=True)]
    vals = rng.normal(size=(4, 3)) * 3
    vals = vals > 0 if dtype == "bool" else vals.astype(dtype)
    compare_hlograph_and_py([m], outs, [vals])


def test_reductions_of_size_zero(rng):
    e = pt.matrix("e")
    outs = [e.sum(axis=0), e.prod(axis=0), e.sum(), pt.any(e > 0), e.mean(axis=1)]
    compare_hlograph_and_py([e], outs, [np.zeros((0, 3))])


def test_products(rng):
    m, x = pt.matrix("m"), pt.vector("x")
    i = pt.matrix("i", dtype="int32")
    f = pt.matrix("f", dtype="float32")
    b = pt.tensor3("b")
    outs = [pt.dot(m, x[:3]), m @ m.T, pt.dot(x, x), pt.outer(x, x), pt.dot(i, f), pt.dot(i, i.T),
            pt.batched_dot(b, b.transpose(0, 2, 1)), pt.tensordot(b, m, axes=[[2], [1]]),
            pt.einsum("ij,kj->ik", m, m)]
    compare_hlograph_and_py([m, x, i, f, b], outs, [rng.normal(size=(4, 3)), rng.normal(size=5),
                                                    rng.integers(-5, 5, size=(3, 3)).astype(np.int32),
                                                    rng.normal(size=(3, 2)).astype(np.float32),
                                                    rng.normal(size=(2, 4, 3))])


def test_softmax_family(rng):
    m = pt.matrix("m")
    outs = [pt.special.softmax(m, axis=-1), pt.special.log_softmax(m, axis=0), pt.special.softmax(m, axis=None),
            pt.logsumexp(m, axis=1)]
    compare_hlograph_and_py([m], outs, [rng.normal(size=(3, 4))])


def test_extra_ops(rng):
    m, x = pt.matrix("m"), pt.vector("x")
    i = pt.vector("i", dtype="int64")
    outs = [pt.cumsum(m, axis=0), pt.cumprod(m, axis=1), pt.cumsum(m), pt.repeat(x, 2), pt.repeat(m, [1, 0, 2], axis=1),
            pt.extra_ops.searchsorted(pt.sort(x), m[0]), pt.extra_ops.searchsorted(pt.sort(x), m[0], side="right"),
            pt.extra_ops.fill_diagonal(m, 5.0), pt.extra_ops.fill_diagonal_offset(m, 2.0, 1),
            *pt.extra_ops.unravel_index(i, (3, 4)), pt.extra_ops.ravel_multi_index([i % 3, i % 4], (3, 4)),
            pt.extra_ops.bartlett(5), pt.extra_ops.cumsum(i, axis=0), pt.diff(x)]
    compare_hlograph_and_py([m, x, i], outs, [rng.normal(size=(4, 3)), rng.normal(size=5),
                                              np.array([0, 5, 11], dtype=np.int64)])


def test_sort(rng):
    m = pt.matrix("m")
    i = pt.vector("i", dtype="int32")
    outs = [pt.sort(m, axis=0), pt.argsort(m, axis=1), pt.sort(m.flatten()), pt.sort(i), pt.argsort(i)]
    compare_hlograph_and_py([m, i], outs, [rng.normal(size=(4, 3)), np.array([3, 1, 3, 0, 1], dtype=np.int32)])


def _spd(rng, n, batch=()):
    a = rng.normal(size=(*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _eigvalsh(a):
    """``eigvalsh(a, None)``; PyTensor 2.x takes ``NoneConst`` for the missing ``b``."""
    try:
        return pt.linalg.eigvalsh(a, None)
    except NotImplementedError:
        from pytensor.tensor.type_other import NoneConst
        return pt.linalg.eigvalsh(a, NoneConst)


def test_linalg(rng):
    a, b = pt.matrix("a"), pt.matrix("b")
    v, g = pt.vector("v"), pt.matrix("g")
    chol = pt.linalg.cholesky(a)
    outs = [chol, pt.linalg.cholesky(a, lower=False), pt.linalg.solve(a, b), pt.linalg.solve(a, v),
            pt.linalg.solve(a, b, assume_a="pos"), pt.linalg.solve(pt.tril(a), b, assume_a="sym", lower=True),
            pt.linalg.solve_triangular(chol, b, lower=True), pt.linalg.solve_triangular(chol.T, v, unit_diagonal=True),
            pt.linalg.cho_solve((chol, True), b), pt.linalg.inv(a), pt.linalg.pinv(b), pt.linalg.det(a),
            *pt.linalg.slogdet(a), _eigvalsh(a), pt.linalg.svd(b, compute_uv=False),
            pt.linalg.expm(a / 10), pt.linalg.kron(a, b),
            # a general matrix: row pivoting, negative determinants (det is an LU factorization
            # after PyTensor's rewrites)
            pt.linalg.det(g), *pt.linalg.slogdet(g), *pt.linalg.lu_factor(g), *pt.linalg.lu(g),
            *pt.linalg.lu(g, p_indices=True), pt.linalg.solve(g, v)]
    gv = np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]])
    compare_hlograph_and_py([a, b, v, g], outs, [_spd(rng, 3), rng.normal(size=(3, 2)), rng.normal(size=3), gv],
                            rtol=1e-8, atol=1e-10)


def test_decompositions_up_to_signs(rng):
    """Eigenvectors and singular vectors are defined up to signs: compared as products."""
    a, b = pt.matrix("a"), pt.matrix("b")
    w, v = pt.linalg.eigh(a)
    u, s, vt = pt.linalg.svd(b, full_matrices=False)
    q, r = pt.linalg.qr(b, mode="economic")
    outs = [w, (v * w) @ v.T, abs(v), (u * s) @ vt, abs(u), q @ r, abs(r), pt.linalg.qr(b, mode="r").shape]
    compare_hlograph_and_py([a, b], outs, [_spd(rng, 3), rng.normal(size=(4, 3))], rtol=1e-8, atol=1e-10)


def test_batched_linalg_is_blockwise(rng):
    a, b = pt.tensor3("a"), pt.matrix("b")
    outs = [pt.linalg.cholesky(a), pt.linalg.solve(a, b), pt.linalg.det(a), pt.linalg.inv(a),
            pt.linalg.solve_triangular(pt.linalg.cholesky(a), b, lower=True)]
    compare_hlograph_and_py([a, b], outs, [_spd(rng, 3, (2,)), rng.normal(size=(3, 2))], rtol=1e-8, atol=1e-10)


def test_batched_svd_output_dim_names_no_input_dim(rng):
    """SVD's signature ``(m,n)->(m,m),(k),(n,n)`` has an output dim (``k = min(m, n)``)
    no input names: its size comes from the core Op, the Blockwise is still converted."""
    from pytensor.tensor.blockwise import Blockwise
    from pytensor.tensor.nlinalg import SVD
    a = pt.tensor3("a")
    u, s, vt = Blockwise(SVD(full_matrices=True, compute_uv=True))(a)
    s_only = Blockwise(SVD(full_matrices=False, compute_uv=False))(a)
    outs = [s, abs(u), abs(vt), s_only, (u[..., :3] * s[:, None, :]) @ vt[..., :3, :]]
    compare_hlograph_and_py([a], outs, [rng.normal(size=(2, 4, 3))], rtol=1e-8, atol=1e-10)


def test_block_diag(rng):
    """BlockDiagonal (``pt.linalg.block_diag``): the blocks on the diagonal of zeros, in
    the common dtype of the blocks, for square, rectangular and empty blocks."""
    a, b, c = pt.matrix("a"), pt.matrix("b", dtype="int32"), pt.matrix("c")
    outs = [pt.linalg.block_diag(a, b, c), pt.linalg.block_diag(b, b), pt.linalg.block_diag(a)]
    compare_hlograph_and_py([a, b, c], outs, [rng.normal(size=(3, 3)), np.arange(6, dtype=np.int32).reshape(2, 3),
                                              np.zeros((0, 2))])


def test_gradients_match(rng):
    """A graph of ``pytensor.grad``: the gradient graph PyTensor builds runs and matches."""
    m, x = pt.matrix("m"), pt.vector("x")
    cost = (pt.tanh(m @ x[:3]) ** 2).sum() + pt.logsumexp(m, axis=0).sum() + pt.linalg.det(m[:3] @ m[:3].T)
    grads = pytensor.grad(cost, [m, x])
    gx = pytensor.grad(pt.sum(pt.exp(x) * x[::-1]), x)
    hvp = pytensor.grad((gx * pt.cos(x)).sum(), x)  # a Hessian-vector product (hessian() is a Scan)
    compare_hlograph_and_py([m, x], [cost, *grads, hvp], [rng.normal(size=(4, 3)), rng.normal(size=5)],
                            rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cholesky_reads_the_triangle_scipy_reads(dtype, rng):
    """scipy's ``cholesky(a, lower=False)`` reads the upper triangle of ``a`` (NumPy's reads
    the lower one): on a non-symmetric input only that triangle counts."""
    a = pt.tensor("a", shape=(None, None), dtype=dtype)
    a_val = _spd(rng, 4).astype(dtype)
    a_val[np.tril_indices(4, -1)] += rng.normal(size=6).astype(dtype)  # lower part differs
    outs = [pt.linalg.cholesky(a, lower=False), pt.linalg.cholesky(a, lower=True).T,
            pt.linalg.cholesky(a.T, lower=False)]
    compare_hlograph_and_py([a], outs, [a_val])
    batched = pt.tensor3("b", dtype=dtype)
    b_val = np.stack([a_val, a_val.T])
    compare_hlograph_and_py([batched], [pt.linalg.cholesky(batched, lower=False)], [b_val])


@pytest.mark.parametrize("shape", [None, (3, 4, 4)], ids=["unknown_shape", "static_shape"])
def test_batched_sylvester_and_lyapunov_solvers(shape, rng):
    """``SolveSylvester`` (an OpFromGraph of the Schur decomposition and LAPACK's trsyl in
    PyTensor) is hlograph's solver, batched over the leading dims like any core Op."""
    a = pt.tensor3("a") if shape is None else pt.tensor("a", shape=shape)
    b = pt.tensor3("b") if shape is None else pt.tensor("b", shape=shape)
    a_val = rng.normal(size=(3, 4, 4)) * 0.3
    b_val = rng.normal(size=(3, 4, 4))
    out = pt.linalg.solve_discrete_lyapunov(a, b, method="bilinear")
    _, (res,) = compare_hlograph_and_py([a, b], [out], [a_val, b_val], rtol=1e-8, atol=1e-10)
    # the solution solves A X A^H - X + B = 0 batch by batch
    np.testing.assert_allclose(a_val @ res @ np.swapaxes(a_val, -1, -2) - res + b_val, 0, atol=1e-9)
    c_val = rng.normal(size=(3, 4, 4))
    c = pt.tensor3("c") if shape is None else pt.tensor("c", shape=shape)
    x = pt.linalg.solve_sylvester(a, b, c)
    _, (xs,) = compare_hlograph_and_py([a, b, c], [x], [a_val, b_val + 3 * np.eye(4), c_val], rtol=1e-8,
                                      atol=1e-10)
    np.testing.assert_allclose(a_val @ xs + xs @ (b_val + 3 * np.eye(4)), c_val, atol=1e-9)


def test_blockwise_whose_core_needs_perform_runs_its_perform(rng):
    """A batched core Op whose converted graph would need PyTensor's perform for some inner
    node (here a sorted Schur decomposition, which hlograph does not have) cannot be a device
    loop: the whole Blockwise runs its perform, and the results are PyTensor's."""
    from pytensor.compile.builders import OpFromGraph
    from pytensor.tensor.blockwise import Blockwise

    from hlograph.tests.interop.pytensor_helpers import fallbacks_of

    m = pt.matrix("m")
    t, z = pt.linalg.schur(m, sort="lhp")
    core = OpFromGraph([m], [t + 1.0])
    a = pt.tensor3("a")
    out = Blockwise(core, signature="(m,m)->(m,m)")(a)
    a_val = rng.normal(size=(3, 4, 4))
    fn, (res,) = compare_hlograph_and_py([a], [out], [a_val], allow_fallback=True)
    assert [name for name, _ in fallbacks_of(fn)] == ["Blockwise"]


def test_blockwise_of_an_op_from_graph_with_elementwise_ops_on_unknown_dims(rng):
    """The core of a batched Blockwise is a device loop's body: the elementwise ops of an
    OpFromGraph core, whose dims are unknown, convert there without PyTensor's run-time
    broadcast check (a host check) and the whole Blockwise runs on the device."""
    from pytensor.compile.builders import OpFromGraph
    from pytensor.tensor.blockwise import Blockwise

    from hlograph.tests.interop.pytensor_helpers import fallbacks_of

    m, v = pt.matrix("m"), pt.vector("v")
    core = OpFromGraph([m, v], [pt.exp(m) * v + 1.0])
    a, b = pt.tensor3("a"), pt.matrix("b")
    out = Blockwise(core, signature="(m,n),(n)->(m,n)")(a, b)
    fn, _ = compare_hlograph_and_py([a, b], [out], [rng.normal(size=(3, 4, 5)), rng.normal(size=(3, 5))])
    assert fallbacks_of(fn) == []


@pytest.mark.parametrize("ls", [0.7, 1.3, 2.1])
def test_gaussian_process_kernel_gradient_is_the_python_modes(ls):
    """PyMC's ExpQuad kernel (inputs over a length scale, squared distances clipped at 0,
    their gradient masked by ``d >= 0``): the diagonal distances cancel to exactly 0 in
    the Python mode, so the gradient w.r.t. the length scale keeps the diagonal's terms
    only if hlograph's quotients and products round as NumPy's do."""
    X, ell = pt.dmatrix("X"), pt.dscalar("ell")
    xs = X / ell
    s = pt.sum(xs**2, axis=1)
    sqd = pt.clip(s[:, None] - 2 * xs @ xs.T + s[None, :], 0.0, np.inf)
    total = pt.sum(pt.exp(-0.5 * sqd))
    x = np.random.default_rng(0).normal(size=(20, 1))
    compare_hlograph_and_py([X, ell], [total, pytensor.grad(total, ell)], [x, np.float64(ls)],
                            rtol=1e-10, atol=1e-10)
