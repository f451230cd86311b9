"""The ``numpy.linalg`` namespace (``hg.linalg``): every name of NumPy 2's
``np.linalg`` with its signature and semantics, so that ``np.linalg.inv(a)``
becomes ``hg.linalg.inv(a)``.

The decompositions and solvers reuse the Ops of ``frontend/ops/linalg.py``; the
rest are builders over the product, shape, reduction and elementwise ops. Functions
that return several arrays in NumPy return the same named tuples
(``SlogdetResult``, ``QRResult``, ``SVDResult``, ``EigResult``,
``EighResult``) of Variables. Stacks of matrices (leading dims) broadcast
wherever ``np.linalg`` allows them.

Where NumPy's result depends on values, the graph version is fixed:
``eig``/``eigvals`` are always complex (NumPy returns real arrays when every
eigenvalue is real), ``lstsq``'s residuals always have NumPy's full-rank shape
(NumPy returns an empty array when ``a`` is rank deficient), ``matrix_rank`` of
a vector is an int64 0-d value (NumPy: a Python int), and where NumPy raises
``LinAlgError`` for a singular or non-positive-definite matrix the compiled
result holds non-finite values.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any, Sequence

import numpy as np

from ..graph import Variable
from ..types import DTYPES, is_complex
from ..ops import elemwise as _ew
from ..ops import indexing as _ix
from ..ops import linalg as _la
from ..ops import reduction as _red
from ..ops import shape as _sh
from ..ops import sort as _sort
from ..ops.basic import as_variable, normalize_axes, normalize_axis, result_type
from .indexing import diagonal as _diagonal
from .manipulation import matrix_transpose

__all__ = [
    "LinAlgError", "SlogdetResult", "QRResult", "SVDResult", "EigResult", "EighResult",
    "inv", "pinv", "solve", "det", "slogdet", "cholesky", "qr", "svd", "svdvals", "eig", "eigh",
    "eigvals", "eigvalsh", "norm", "matrix_norm", "vector_norm", "matrix_power", "matrix_rank",
    "multi_dot", "lstsq", "tensorinv", "tensorsolve", "cross", "outer", "trace", "diagonal",
    "matmul", "tensordot", "vecdot", "matrix_transpose", "cond",
]

#: NumPy's exception, raised where a result is undefined for any value of a given shape
LinAlgError = np.linalg.LinAlgError

SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])

_INT64 = DTYPES["int64"]
_NO_VALUE = object()

# unchanged from the top-level builders: their semantics are np.linalg's
inv = _la.inv
det = _la.det
solve = _la.solve
cholesky = _la.cholesky
svdvals = _la.svdvals
eigvals = _la.eigvals
eigvalsh = _la.eigvalsh
norm = _la.norm
matrix_power = _la.matrix_power
matmul = _la.matmul


# --- helpers ---------------------------------------------------------------------------------
def _static(x: Variable, name: str) -> tuple[int, ...]:
    if any(d is None for d in x.shape):
        raise ValueError(f"linalg.{name}: needs a static input shape, got {x.type}")
    return tuple(x.shape)


def _moveaxis(x: Variable, source: int, destination: int) -> Variable:
    """``np.moveaxis`` with normalized axes."""
    if source == destination:
        return x
    perm = [d for d in range(x.ndim) if d != source]
    perm.insert(destination, source)
    return _sh.transpose(x, perm)


def _mT(x: Variable) -> Variable:
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return _sh.transpose(x, perm)


def _mH(x: Variable) -> Variable:
    x = _mT(x)
    return _ew.conj(x) if is_complex(x.dtype) else x


_LINALG_DTYPES = tuple(DTYPES[n] for n in ("float32", "float64", "complex64", "complex128"))


def _float_input(x: Any) -> Variable:
    """``x`` as a float/complex Variable: ints and bool become float64, as in numpy.linalg."""
    return _la._float_input(x, "")


def _lin(x: Any, name: str) -> Variable:
    """A decomposition input (see ``linalg._lin``), errors naming ``linalg.<name>``."""
    return _la._lin(x, f"linalg.{name}")


def _lin2(a: Any, b: Any, name: str) -> tuple[Variable, Variable]:
    return _la._lin2(a, b, f"linalg.{name}")


_promoted = _la._promoted


def _eps(dtype: np.dtype) -> float:
    return float(np.finfo(dtype).eps)


def _check_int(value: Any, name: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"linalg.{name}: {what} must be an integer, got {value!r}")
    return int(value)


# --- decompositions with NumPy's result tuples ---------------------------------------------------
def slogdet(a: Any) -> SlogdetResult:
    """``(sign, logabsdet)`` of (stacks of) square matrices, as numpy.linalg.slogdet."""
    sign, logabsdet = _la.slogdet(a)
    return SlogdetResult(sign, logabsdet)


def qr(a: Any, mode: str = "reduced"):
    """QR decomposition, as numpy.linalg.qr: ``QRResult(Q, R)`` for mode 'reduced' or
    'complete', ``R`` alone for mode 'r', the tuple ``(h, tau)`` for mode 'raw' (LAPACK
    geqrf's Householder form, ``h`` transposed to ``(..., N, M)``)."""
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"linalg.qr: unrecognized mode {mode!r}")
    out = _la.qr(a, mode)
    if mode == "raw":
        return tuple(out)
    return out if mode == "r" else QRResult(*out)


def eig(a: Any) -> EigResult:
    """``EigResult(eigenvalues, eigenvectors)`` of general square matrices, as
    numpy.linalg.eig (always complex)."""
    return EigResult(*_la.eig(a))


def eigh(a: Any, UPLO: str = "L") -> EighResult:
    """``EighResult(eigenvalues, eigenvectors)`` of Hermitian matrices read from the
    ``UPLO`` triangle, as numpy.linalg.eigh (ascending real eigenvalues)."""
    if UPLO not in ("L", "U"):
        raise ValueError(f"linalg.eigh: UPLO argument must be 'L' or 'U', got {UPLO!r}")
    return EighResult(*_la.eigh(a, UPLO))


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False):
    """Singular value decomposition, as numpy.linalg.svd: ``SVDResult(U, S, Vh)`` with
    ``a = U @ (S[..., None] * Vh)``, or the descending singular values ``S`` alone when
    not ``compute_uv``. ``hermitian=True`` reads the lower triangle only and takes the
    decomposition from ``eigh``, as NumPy does."""
    if not hermitian:
        out = _la.svd(a, full_matrices, compute_uv)
        return SVDResult(*out) if compute_uv else out
    a = _lin(a, "svd")
    if not compute_uv:
        s = _ew.abs(_la.eigvalsh(a))
        return _sort.sort(s, axis=-1, descending=True)
    w, v = _la.eigh(a)
    sgn = _ew.sign(w)
    s = _ew.abs(w)
    idx = _sort.argsort(s, axis=-1, descending=True)
    sgn = _ix.take_along_axis(sgn, idx, axis=-1)
    s = _ix.take_along_axis(s, idx, axis=-1)
    u = _ix.take_along_axis(v, _sh.expand_dims(idx, -2), axis=-1)
    if is_complex(u.dtype):
        sgn = _ew.astype(sgn, u.dtype)
    vh = _mH(u * _sh.expand_dims(sgn, -2))
    return SVDResult(u, s, vh)


def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = _NO_VALUE) -> Variable:
    """Moore-Penrose pseudo-inverse, as numpy.linalg.pinv: singular values at most
    ``rcond`` (or ``rtol``) times the largest are dropped; the default is
    ``max(m, n) * eps``. ``rcond``/``rtol`` are static scalars here."""
    if rcond is not None and rtol is not _NO_VALUE:
        raise ValueError("linalg.pinv: `rtol` and `rcond` can't be both set")
    tol = rcond if rcond is not None else (None if rtol is _NO_VALUE else rtol)
    if tol is not None:
        if isinstance(tol, Variable) or np.ndim(tol) != 0:
            raise NotImplementedError("linalg.pinv: rcond/rtol must be a Python or NumPy scalar")
        tol = float(tol)
    a = as_variable(a)
    if a.ndim >= 2 and 0 in a.shape[-2:]:
        # NumPy: empty matrices (not an empty stack of them) give an empty result of the
        # input's own dtype, whatever the stack's dims
        return _mT(a)
    return _la.pinv(a, tol, hermitian)


# --- norms ---------------------------------------------------------------------------------------
def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Variable:
    """Vector norm, as numpy.linalg.vector_norm: over all elements (``axis=None``), one
    axis, or several axes taken together as one vector."""
    x = as_variable(x)
    shape = x.shape
    if axis is None:
        flat = _sh.reshape(x, (-1,))
        out = _la.norm(flat, ord=ord, axis=0)
        return _sh.reshape(out, (1,) * x.ndim) if keepdims else out
    if isinstance(axis, (tuple, list)):
        axes = normalize_axes(tuple(axis), x.ndim, "linalg.vector_norm")
        if len(set(axes)) != len(axes):
            raise ValueError(f"linalg.vector_norm: repeated axis in {axis!r}")
        _static(x, "vector_norm")
        rest = [d for d in range(x.ndim) if d not in axes]
        y = _sh.transpose(x, list(axes) + rest)
        y = _sh.reshape(y, (int(np.prod([shape[d] for d in axes], dtype=np.int64)),)
                        + tuple(shape[d] for d in rest))
        out = _la.norm(y, ord=ord, axis=0)
        if keepdims:
            out = _sh.reshape(out, tuple(1 if d in axes else shape[d] for d in range(x.ndim)))
        return out
    return _la.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Variable:
    """Norm of (stacks of) matrices over the last two axes, as numpy.linalg.matrix_norm."""
    x = as_variable(x)
    if x.ndim < 2:
        raise ValueError(f"linalg.matrix_norm: the input must have at least 2 dims, got {x.type}")
    return _la.norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def cond(x: Any, p: Any = None) -> Variable:
    """Condition number, as numpy.linalg.cond: ``p`` None/2/-2 from the singular
    values, any other matrix norm order ('fro', 'nuc', 1, -1, inf, -inf) as
    ``norm(x, p) * norm(inv(x), p)`` on square matrices. A NaN result becomes inf
    unless the matrix holds a NaN."""
    x = _float_input(x)
    if x.ndim < 2:
        raise LinAlgError(f"linalg.cond: {x.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")
    if 0 in x.shape[-2:]:
        raise LinAlgError("linalg.cond: cond is not defined on empty arrays")
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        s = svdvals(x)
        first, last = _ix.getitem(s, (Ellipsis, 0)), _ix.getitem(s, (Ellipsis, -1))
        r = last / first if (p is not None and p == -2) else first / last
    else:
        n, m = x.shape[-2:]
        if n is not None and m is not None and n != m:
            raise LinAlgError(f"linalg.cond: last 2 dimensions of the array must be square for "
                              f"p={p!r}, got {x.type}")
        inv_x = _la.Inv(singular="nan")(_la._lin(x, "cond"))
        r = _la.norm(x, p, axis=(-2, -1)) * _la.norm(inv_x, p, axis=(-2, -1))
    nan_in_x = _red.any(_ew.isnan(x), axis=(-2, -1))
    fix = _ew.logical_and(_ew.isnan(r), _ew.logical_not(nan_in_x))
    return _ew.where(fix, np.array(np.inf, dtype=r.dtype), r)


def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> Variable:
    """Rank of (stacks of) matrices from their singular values, as numpy.linalg.matrix_rank
    (int64): singular values above ``tol`` (default ``S.max() * rtol``, ``rtol`` default
    ``max(m, n) * eps``) count. ``tol``/``rtol`` may be arrays broadcasting with the stack."""
    if tol is not None and rtol is not None:
        raise ValueError("linalg.matrix_rank: `tol` and `rtol` can't be both set")
    A = as_variable(A)
    if A.ndim < 2:
        return _ew.astype(_red.any(_ew.not_equal(A, 0)), _INT64)
    A = _lin(A, "matrix_rank")
    s = svd(A, compute_uv=False, hermitian=hermitian)
    if tol is None:
        if rtol is None:
            m, n = _static(A, "matrix_rank")[-2:]
            rtol = max(m, n) * _eps(s.dtype)
        else:
            rtol = _sh.expand_dims(as_variable(rtol), -1)
        tol = _red.max(s, axis=-1, keepdims=True) * rtol
    else:
        tol = _sh.expand_dims(as_variable(tol), -1)
    return _red.sum(_ew.greater(s, tol), axis=-1)


# --- products ------------------------------------------------------------------------------------
def _chain_order(dims: list[int]) -> list[list[int]]:
    """The matrix-chain split table for matrices of shapes (dims[i], dims[i+1])."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(arrays: Sequence[Any], *, out: Any = None) -> Variable:
    """Product of two or more arrays in the cheapest association order, as
    numpy.linalg.multi_dot: the first array may be 1-D (a row vector), the last 1-D
    (a column vector), the others are 2-D. ``out`` is not supported."""
    if out is not None:
        raise TypeError("linalg.multi_dot: out= is not supported (graph values are immutable)")
    xs = [as_variable(x) for x in arrays]
    if len(xs) < 2:
        raise ValueError("linalg.multi_dot: expecting at least two arrays")
    if len(xs) == 2:
        return _la.dot(xs[0], xs[1])
    dt = result_type(*xs)
    xs = [as_variable(x, dt) for x in xs]
    first_1d, last_1d = xs[0].ndim == 1, xs[-1].ndim == 1
    if first_1d:
        xs[0] = _sh.reshape(xs[0], (1, -1))
    if last_1d:
        xs[-1] = _sh.reshape(xs[-1], (-1, 1))
    for i, x in enumerate(xs):
        if x.ndim != 2:
            raise ValueError(f"linalg.multi_dot: array {i} has {x.ndim} dimensions; the first and "
                             "last may be 1-D, the others must be 2-D")
    dims = [x.shape[0] for x in xs] + [xs[-1].shape[1]]
    for i in range(len(xs) - 1):
        a, b = xs[i].shape[1], xs[i + 1].shape[0]
        if a is not None and b is not None and a != b:
            raise ValueError(f"linalg.multi_dot: shapes {xs[i].type} and {xs[i + 1].type} of "
                             f"arrays {i} and {i + 1} are not aligned")
    if None in dims:
        result = xs[0]
        for x in xs[1:]:
            result = _la.dot(result, x)
    else:
        split = _chain_order(dims)

        def build(i: int, j: int) -> Variable:
            if i == j:
                return xs[i]
            k = split[i][j]
            return _la.dot(build(i, k), build(k + 1, j))

        result = build(0, len(xs) - 1)
    if first_1d and last_1d:
        return _sh.reshape(result, ())
    if first_1d:
        return _sh.reshape(result, (-1,))
    if last_1d:
        return _sh.reshape(result, (-1,))
    return result


def outer(x1: Any, x2: Any, /) -> Variable:
    """Outer product of two 1-D arrays, as numpy.linalg.outer."""
    x1, x2 = as_variable(x1), as_variable(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"linalg.outer: input arrays must be one-dimensional, got {x1.type} and "
                         f"{x2.type}")
    return _la.outer(x1, x2)


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> Variable:
    """Sum of products over ``axes``, as numpy.linalg.tensordot."""
    return _la.tensordot(x1, x2, axes)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Variable:
    """Vector dot product ``sum(conj(x1) * x2)`` over ``axis``, leading dims broadcasting,
    as numpy.linalg.vecdot (the product keeps the common dtype: ints wrap, bool is a
    logical or of ands)."""
    a, b = _promoted(x1, x2)
    for i, x in enumerate((a, b)):
        if x.ndim == 0:
            raise ValueError(f"linalg.vecdot: input {i} must have at least 1 dimension, got {x.type}")
    a = _moveaxis(a, normalize_axis(axis, a.ndim, "linalg.vecdot"), a.ndim - 1)
    b = _moveaxis(b, normalize_axis(axis, b.ndim, "linalg.vecdot"), b.ndim - 1)
    na, nb = a.shape[-1], b.shape[-1]
    if na is not None and nb is not None and na != nb:
        raise ValueError(f"linalg.vecdot: axis {axis} has size {na} in {a.type} and {nb} in {b.type}")
    if is_complex(a.dtype):
        a = _ew.conj(a)
    op = _la.DotGeneral(((a.ndim - 1,), (b.ndim - 1,)),
                        (tuple(range(a.ndim - 1)), tuple(range(b.ndim - 1))))
    return op(a, b)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Variable:
    """Cross product of 3-element vectors along ``axis`` (other dims broadcast), as
    numpy.linalg.cross."""
    a, b = as_variable(x1), as_variable(x2)
    dt = result_type(a, b)
    if dt == np.bool_:
        raise TypeError("linalg.cross: boolean inputs are not supported (NumPy's subtract "
                        "rejects them)")
    a, b = as_variable(a, dt), as_variable(b, dt)
    for x in (a, b):
        if x.ndim == 0:
            raise ValueError(f"linalg.cross: inputs must have at least 1 dimension, got {x.type}")
    ax_a = normalize_axis(axis, a.ndim, "linalg.cross")
    ax_b = normalize_axis(axis, b.ndim, "linalg.cross")
    if a.shape[ax_a] not in (3, None) or b.shape[ax_b] not in (3, None):
        raise ValueError(f"linalg.cross: both input arrays must be (arrays of) 3-dimensional "
                         f"vectors along axis {axis}, got {a.type} and {b.type}")
    a, b = _moveaxis(a, ax_a, a.ndim - 1), _moveaxis(b, ax_b, b.ndim - 1)
    a0, a1, a2 = (_ix.getitem(a, (Ellipsis, i)) for i in range(3))
    b0, b1, b2 = (_ix.getitem(b, (Ellipsis, i)) for i in range(3))
    out = _sh.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    out = _ew.astype(out, dt) if out.dtype != dt else out
    return _moveaxis(out, out.ndim - 1, normalize_axis(axis, out.ndim, "linalg.cross"))


def diagonal(x: Any, /, *, offset: int = 0) -> Variable:
    """The ``offset`` diagonals of the matrices in the last two axes, as numpy.linalg.diagonal."""
    x = as_variable(x)
    if x.ndim < 2:
        raise ValueError(f"linalg.diagonal: the input must have at least 2 dims, got {x.type}")
    return _diagonal(x, offset, -2, -1)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Variable:
    """Sum of the ``offset`` diagonal of the matrices in the last two axes, as
    numpy.linalg.trace (bool and small ints sum in int64, as numpy.sum; ``dtype``
    sets the accumulation and result dtype)."""
    d = diagonal(x, offset=offset)
    if dtype is None:
        return _red.sum(d, axis=-1)
    d = _ew.astype(d, dtype)
    out = _red.sum(d, axis=-1)
    return out if out.dtype == d.dtype else _ew.astype(out, d.dtype)


# --- tensor solvers ------------------------------------------------------------------------------
def tensorinv(a: Any, ind: int = 2) -> Variable:
    """Inverse of an N-d array for ``tensordot(·, ·, ind)``, as numpy.linalg.tensorinv."""
    a = as_variable(a)
    ind = _check_int(ind, "tensorinv", "ind")
    if ind <= 0:
        raise ValueError(f"linalg.tensorinv: invalid ind argument {ind}")
    shape = _static(a, "tensorinv")
    inv_shape = shape[ind:] + shape[:ind]
    prod = int(np.prod(shape[ind:], dtype=np.int64))
    if prod == 0 or int(np.prod(shape, dtype=np.int64)) != prod * prod:
        raise LinAlgError(f"linalg.tensorinv: {a.type} does not reshape to a square matrix "
                          f"with ind={ind}")
    return _sh.reshape(inv(_sh.reshape(a, (prod, -1))), inv_shape)


def tensorsolve(a: Any, b: Any, axes: Sequence[int] | None = None) -> Variable:
    """``x`` with ``tensordot(a, x, axes=x.ndim) == b``, as numpy.linalg.tensorsolve
    (``axes`` are moved to the end of ``a`` first)."""
    a, b = _lin2(a, b, "tensorsolve")
    an = a.ndim
    if axes is not None:
        order = list(range(an))
        for k in axes:
            k = normalize_axis(k, an, "linalg.tensorsolve")
            order.remove(k)
            order.append(k)
        a = _sh.transpose(a, order)
    shape = _static(a, "tensorsolve")
    _static(b, "tensorsolve")
    old = shape[-(an - b.ndim):]
    prod = int(np.prod(old, dtype=np.int64))
    if int(np.prod(shape, dtype=np.int64)) != prod * prod:
        raise LinAlgError(f"linalg.tensorsolve: input arrays must satisfy the requirement "
                          f"prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim]), got {a.type} and "
                          f"{b.type}")
    x = solve(_sh.reshape(a, (prod, prod)), _sh.reshape(b, (-1,)))
    return _sh.reshape(x, old)


# --- least squares -------------------------------------------------------------------------------
def lstsq(a: Any, b: Any, rcond: Any = None):
    """Least-squares solution of ``a @ x = b``, as numpy.linalg.lstsq: ``(x, residuals,
    rank, s)``. Singular values at most ``rcond`` times the largest are treated as zero
    (default ``max(m, n) * eps``; negative: machine precision). ``residuals`` holds the
    squared 2-norm of each column of ``b - a @ x`` (shape (1,) for a 1-D ``b``, (k,) for
    a 2-D one) when ``m > n``, and is empty otherwise; NumPy also returns it empty when
    ``a`` is rank deficient, where this keeps the sums. ``rank`` is int32."""
    a, b = _lin2(a, b, "lstsq")
    if a.ndim != 2:
        raise LinAlgError(f"linalg.lstsq: {a.ndim}-dimensional array given. Array must be "
                          "two-dimensional")
    if b.ndim not in (1, 2):
        raise LinAlgError(f"linalg.lstsq: b must be 1-D or 2-D, got {b.type}")
    m, n = _static(a, "lstsq")
    _static(b, "lstsq")
    if b.shape[0] != m:
        raise LinAlgError(f"linalg.lstsq: incompatible dimensions {a.type} and {b.type}")
    real = np.finfo(a.dtype).dtype
    if rcond is None:
        rcond = _eps(a.dtype) * max(m, n)
    elif isinstance(rcond, Variable) or np.ndim(rcond) != 0:
        raise NotImplementedError("linalg.lstsq: rcond must be a Python or NumPy scalar")
    rcond = float(rcond)
    if rcond < 0:
        rcond = _eps(a.dtype)
    b2 = b if b.ndim == 2 else _sh.reshape(b, (m, 1))
    k = b2.shape[1]
    if min(m, n) == 0:
        x = _sh.zeros((n, k), a.dtype)
        s = _sh.zeros((0,), real)
        rank = _sh.zeros((), DTYPES["int32"])
    else:
        u, s, vh = _la.svd(a, full_matrices=False)
        keep = _ew.greater(s, _red.max(s) * np.array(rcond, dtype=real))
        s_inv = _ew.where(keep, 1 / s, np.array(0, dtype=real))
        if is_complex(a.dtype):
            s_inv = _ew.astype(s_inv, a.dtype)
        x = _la.matmul(_mH(vh), _sh.expand_dims(s_inv, -1) * _la.matmul(_mH(u), b2))
        rank = _ew.astype(_red.sum(keep), DTYPES["int32"])
    if m > n:
        r = _ew.abs(b2 - _la.matmul(a, x))
        resid = _red.sum(r * r, axis=0)
    else:
        resid = _sh.zeros((0,), real)
    if b.ndim == 1:
        x = _sh.reshape(x, (n,))
    return x, resid, rank, s
