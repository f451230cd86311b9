"""Linear algebra primitives hlograph has Ops for: ``cholesky``,
``triangular_solve``, ``eigh``, ``eig``, ``qr``, ``svd`` and ``lu`` (its permutation, as
``lu_pivots_to_permutation``, a loop over the pivots). hlograph lowers
these Ops through jax's own lowering (LAPACK on the CPU), so the imported
graph computes what jax computes. Variants without a matching Op (pivoted QR,
eigenvalue or singular value subsets, a chosen algorithm, left eigenvectors of
``eig`` or its eigenvector derivatives) go through the fallback."""

from __future__ import annotations

import numpy as np

from ....frontend.graph import Graph, Variable
from ....frontend.ops.control import Scan
from ....frontend.ops.linalg import QR, SVD, Cholesky, Eig, Eigh, LUFactor, SolveTriangular
from ....frontend.types import TensorType, is_complex
from ..registry import Unsupported, register
from .common import hg, iota


def _mT(x):
    n = x.ndim
    return hg.transpose(x, list(range(n - 2)) + [n - 1, n - 2])


@register("cholesky")
def cholesky(a, **params):
    return Cholesky(upper=False)(a)


@register("triangular_solve")
def triangular_solve(a, b, *, left_side=False, lower=False, transpose_a=False, conjugate_a=False,
                     unit_diagonal=False):
    conjugate_a = bool(conjugate_a) and is_complex(a.dtype)
    if left_side:
        # op(a) x = b
        trans = (2 if conjugate_a else 1) if transpose_a else 0
        if conjugate_a and not transpose_a:
            a = hg.conj(a)
        return SolveTriangular(bool(lower), trans, bool(unit_diagonal))(a, b)
    # x op(a) = b, i.e. op(a)^T x^T = b^T
    if transpose_a:
        trans = 0
        if conjugate_a:
            a = hg.conj(a)
    else:
        trans = 2 if conjugate_a else 1
    return _mT(SolveTriangular(bool(lower), trans, bool(unit_diagonal))(a, _mT(b)))


def _full_range(subset_by_index, n) -> bool:
    return subset_by_index is None or tuple(subset_by_index) in ((0, n), (0, -1), (-1, -1))


@register("eigh")
def eigh(a, *, lower=True, sort_eigenvalues=True, subset_by_index=None, algorithm=None):
    if not sort_eigenvalues or algorithm is not None or not _full_range(subset_by_index, a.shape[-1]):
        raise Unsupported("unsorted eigenvalues, an eigenvalue subset or a chosen algorithm")
    w, v = Eigh("L" if lower else "U", True)(a)
    return [v, w]


@register("eig")
def eig(a, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True, enable_eigvec_derivs=False,
        implementation=None, use_magma=None):
    # hlograph's Eig is jnp.linalg.eig / eigvals: the eigenvalues and the right eigenvectors
    if compute_left_eigenvectors:
        raise Unsupported("left eigenvectors")
    if enable_eigvec_derivs and compute_right_eigenvectors:
        raise Unsupported("eigenvector derivatives (hlograph's Eig defines none)")
    if implementation is not None or use_magma:
        raise Unsupported(f"a chosen implementation ({implementation or 'magma'})")
    if compute_right_eigenvectors:
        w, v = Eig(True)(a)
        return [w, v]
    return [Eig(False)(a)]


@register("qr")
def qr(a, *, pivoting=False, full_matrices=True, use_magma=None):
    if pivoting:
        raise Unsupported("pivoting")
    q, r = QR("complete" if full_matrices else "reduced")(a)
    return [q, r]


@register("svd")
def svd(a, *, full_matrices=True, compute_uv=True, subset_by_index=None, algorithm=None):
    if algorithm is not None or not _full_range(subset_by_index, min(a.shape[-2:])):
        raise Unsupported("a singular value subset or a chosen algorithm")
    if not compute_uv:
        return [SVD(bool(full_matrices), False)(a)]
    u, s, vh = SVD(bool(full_matrices), True)(a)
    return [s, u, vh]


def _permutation(pivots, m: int):
    """``lax.linalg.lu_pivots_to_permutation``: the row order after swapping row ``i`` with
    row ``pivots[..., i]`` for i = 0, 1, ... (a Scan carrying the permutation)."""
    batch, k = tuple(pivots.shape[:-1]), pivots.shape[-1]
    int32 = np.dtype(np.int32)
    start = iota((*batch, m), len(batch), int32)
    if k == 0:
        return start
    perm = Variable(TensorType(int32, (*batch, m)), name="perm")
    j = Variable(TensorType(int32, batch), name="pivot")
    i = Variable(TensorType(int32, ()), name="i")
    at_j = hg.expand_dims(j, -1)
    row_i, row_j = perm[(Ellipsis, i)], hg.take_along_axis(perm, at_j, axis=-1)
    swapped = hg.put_along_axis(hg.at(perm)[(Ellipsis, i)].set(hg.squeeze(row_j, -1)), at_j,
                                hg.expand_dims(row_i, -1), axis=-1)
    step = Graph([j, i, perm], [swapped])
    pivots = hg.astype(pivots, int32) if pivots.dtype != int32 else pivots
    sequence = hg.moveaxis(pivots, -1, 0) if batch else pivots
    loop = Scan(step, k, 2, [True], [False])
    return loop.make_node(sequence, hg.arange(k, dtype=int32), start).outputs[0]


@register("lu")
def lu(a):
    factors, pivots = LUFactor()(a)
    return [factors, pivots, _permutation(pivots, a.shape[-2])]


@register("lu_pivots_to_permutation")
def lu_pivots_to_permutation(pivots, *, permutation_size):
    return _permutation(pivots, int(permutation_size))
