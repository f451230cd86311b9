"""Lowering of DotGeneral (matmul, dot, tensordot) to ``stablehlo.dot_general``, and
of the decompositions through jax's lowering (lowering/bridge.py): StableHLO has
no op for them, jax lowers them to LAPACK custom calls on CPU."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...frontend.ops.linalg import (
    HALF_DTYPES, LU, QR, SVD, Cholesky, ChoSolve, Det, DotGeneral, Eig, Eigh, Expm, Inv,
    LUFactor, Pinv, PivotedQR, Schur, Slogdet, Solve, SolveSylvester, SolveTriangular,
)
from ...frontend.types import DTYPES, TensorType, is_complex, is_float
from .. import emit
from ..context import LoweringContext
from ..emit import convert
from ..bridge import lower_with_jax
from ...xla.jax_lowering import geqp3, geqrf, jnp, jsp_linalg, lax
from ...xla.mlir import hlo, i64_array, ir, tensor_type
from ..registry import register


@dataclass(frozen=True)
class DotPlan:
    """How one DotGeneral maps onto ``stablehlo.dot_general``, which needs batch
    dims of equal sizes on both sides and puts its result in the order
    (batch, free dims of lhs, free dims of rhs).

    A batch position where only one operand has a dim of size > 1 (the other
    lacks the dim or has size 1) is no batch dim for dot_general: it stays a
    free dim of that operand, the other side's size-1 dim is reshaped away,
    and a transpose restores the output order. Nothing is broadcast, so a
    stack of matrices times one matrix costs no copies of the matrix.
    """

    drop_a: tuple[int, ...]
    drop_b: tuple[int, ...]
    batch: tuple[tuple[int, ...], tuple[int, ...]]
    contracting: tuple[tuple[int, ...], tuple[int, ...]]
    #: output position of each dot_general result dim
    labels: tuple[int, ...]


def plan_dot(op: DotGeneral, a_shape: Sequence[int], b_shape: Sequence[int]) -> DotPlan:
    ba, bb = op.batch
    nb = max(len(ba), len(bb))
    pairs: list[tuple[int, int, int]] = []
    own: tuple[dict[int, int], dict[int, int]] = ({}, {})
    drop: tuple[set[int], set[int]] = (set(), set())
    for p in range(nb):
        ia = ba[p - nb + len(ba)] if p >= nb - len(ba) else None
        ib = bb[p - nb + len(bb)] if p >= nb - len(bb) else None
        sa = a_shape[ia] if ia is not None else None
        sb = b_shape[ib] if ib is not None else None
        if ia is not None and ib is not None and sa == sb:
            pairs.append((ia, ib, p))
        elif ia is not None and (ib is None or sb == 1):
            own[0][ia] = p
            if ib is not None:
                drop[1].add(ib)
        else:
            own[1][ib] = p
            if ia is not None:
                drop[0].add(ia)

    shapes = (a_shape, b_shape)
    kept = [[d for d in range(len(s)) if d not in drop[i]] for i, s in enumerate(shapes)]
    new = [{d: j for j, d in enumerate(k)} for k in kept]
    batch = tuple(tuple(new[i][pr[i]] for pr in pairs) for i in (0, 1))
    contracting = tuple(tuple(new[i][d] for d in op.contracting[i]) for i in (0, 1))

    labels = [p for _, _, p in pairs]
    offset = nb
    for i in (0, 1):
        free = op.free_axes(len(shapes[i]), i)
        paired = {pr[i] for pr in pairs}
        for d in kept[i]:
            if d in paired or d in op.contracting[i]:
                continue
            labels.append(own[i][d] if d in own[i] else offset + free.index(d))
        offset += len(free)
    return DotPlan(tuple(sorted(drop[0])), tuple(sorted(drop[1])), batch, contracting, tuple(labels))


def _drop_dims(x: ir.Value, t: TensorType, dims: Sequence[int]) -> ir.Value:
    if not dims:
        return x
    shape = [s for d, s in enumerate(t.shape) if d not in dims]
    return emit.reshape(x, t.with_shape(shape))


def _precision(dtype) -> ir.ArrayAttr | None:
    # float dots ask for full precision: TPUs and GPUs would otherwise use
    # bfloat16 passes, and NumPy computes at the operands' precision
    if not (is_float(dtype) or is_complex(dtype)):
        return None
    return ir.ArrayAttr.get([hlo.PrecisionAttr.get("HIGHEST")] * 2)


@register(DotGeneral)
def lower_dot_general(ctx: LoweringContext, a: ir.Value, b: ir.Value) -> list[ir.Value]:
    ta, tb = ctx.in_types
    out = ctx.out_type
    plan = plan_dot(ctx.op, ta.shape, tb.shape)
    a = _drop_dims(a, ta, plan.drop_a)
    b = _drop_dims(b, tb, plan.drop_b)
    dnums = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(plan.batch[0]),
        rhs_batching_dimensions=list(plan.batch[1]),
        lhs_contracting_dimensions=list(plan.contracting[0]),
        rhs_contracting_dimensions=list(plan.contracting[1]),
    )
    # float16/bfloat16 accumulate in float32 and round once, like NumPy
    acc_dtype = DTYPES["float32"] if out.dtype in HALF_DTYPES else out.dtype
    dg_shape = [out.shape[p] for p in plan.labels]
    dg_type = tensor_type(TensorType(acc_dtype, dg_shape))
    result = hlo.dot_general(dg_type, a, b, dnums, precision_config=_precision(out.dtype))
    perm = [0] * len(plan.labels)
    for j, p in enumerate(plan.labels):
        perm[p] = j
    if perm != sorted(perm):
        result = hlo.transpose(result, i64_array(perm))
    return [convert(result, TensorType(acc_dtype, out.shape), out.dtype)]


# --- decompositions: jax.numpy / jax.scipy functions, lowered by jax ------------------
def _rhs(op) -> str:
    return "(n)" if op.b_vector else "(n,k)"


def _slogdet_real(a):
    """numpy.linalg.slogdet of real matrices from their LU factors: a NaN pivot
    leaves the sign alone (NumPy flips it for negative pivots only; jax's
    sign(nan) would make it nan), an exact zero pivot gives (0, -inf)."""
    lu, piv = jsp_linalg.lu_factor(a)
    diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
    n = a.shape[-1]
    swaps = jnp.count_nonzero(piv != jnp.arange(n, dtype=piv.dtype), axis=-1)
    negatives = jnp.count_nonzero(diag < 0, axis=-1)
    sign = jnp.where((swaps + negatives) % 2 == 1, -1.0, 1.0).astype(a.dtype)
    logdet = jnp.sum(jnp.log(jnp.abs(diag)), axis=-1)
    singular = jnp.any(diag == 0, axis=-1)
    return (jnp.where(singular, jnp.zeros_like(sign), sign),
            jnp.where(singular, jnp.array(-jnp.inf, a.dtype), logdet))


def _slogdet_complex(a):
    """numpy.linalg.slogdet of complex matrices from their LU factors, as NumPy's loop:
    the sign is the parity times the product, in order and part by part, of each pivot
    over its modulus (an infinite part makes the modulus inf); an exact zero pivot
    gives (0, -inf)."""
    lu, piv = jsp_linalg.lu_factor(a)
    diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
    n = a.shape[-1]
    swaps = jnp.count_nonzero(piv != jnp.arange(n, dtype=piv.dtype), axis=-1)
    re, im = jnp.real(diag), jnp.imag(diag)
    modulus = jnp.where(jnp.isinf(re) | jnp.isinf(im), jnp.inf, jnp.hypot(re, im))
    sr = jnp.where(swaps % 2 == 1, -1.0, 1.0).astype(re.dtype)
    si = jnp.zeros_like(sr)
    for i in range(n):
        er, ei = re[..., i] / modulus[..., i], im[..., i] / modulus[..., i]
        sr, si = sr * er - si * ei, sr * ei + si * er
    logdet = jnp.sum(jnp.log(modulus), axis=-1)
    singular = jnp.any(diag == 0, axis=-1)
    sign = lax.complex(jnp.where(singular, 0, sr), jnp.where(singular, 0, si))
    return sign.astype(a.dtype), jnp.where(singular, jnp.array(-jnp.inf, re.dtype), logdet)


def _det(a):
    """numpy.linalg.det: NumPy computes it as ``sign * exp(logdet)`` from slogdet (a
    complex sign times ``exp(logdet) + 0j`` part by part), whose NaNs and infinities
    differ from a product of the pivots."""
    if jnp.iscomplexobj(a):
        sign, logdet = _slogdet_complex(a)
        e = jnp.exp(logdet)
        sr, si = jnp.real(sign), jnp.imag(sign)
        return lax.complex(sr * e - si * 0, sr * 0 + si * e).astype(a.dtype)
    sign, logdet = _slogdet_real(a)
    return sign * jnp.exp(logdet)


def _schur(output: str):
    """scipy.linalg.schur (jax's: LAPACK gees, CPU only; a real matrix with
    ``output="complex"`` is cast to complex first, as scipy does); a matrix with a
    non-finite entry gives NaNs (gees would return whatever it reached)."""
    def fn(a):
        t, z = jsp_linalg.schur(a, output=output)
        finite = jnp.all(jnp.isfinite(a), axis=(-2, -1), keepdims=True)
        nan = jnp.array(jnp.nan, t.dtype)
        return jnp.where(finite, t, nan), jnp.where(finite, z, nan)
    return fn


def _qr(mode: str):
    """numpy.linalg.qr; 'raw' is geqrf's result as NumPy returns it (transposed)."""
    if mode != "raw":
        return lambda a: jnp.linalg.qr(a, mode=mode)

    def raw(a):
        h, tau = geqrf(a)
        return jnp.swapaxes(h, -1, -2), tau
    return raw


def _pivoted_qr(mode: str):
    """scipy.linalg.qr(a, pivoting=True) (LAPACK geqp3) in numpy.linalg.qr's modes;
    'r' is the reduced r (scipy's is the complete one), 'raw' scipy's ((h, tau), r, p)."""
    def fn(a):
        if mode == "raw":
            m, n = a.shape[-2:]
            h, p, tau = geqp3(a, jnp.zeros(a.shape[:-2] + (n,), jnp.int32))
            r = jnp.triu(h[..., :min(m, n), :])
            p = p - 1  # LAPACK's pivots are 1-based
            if m == 0:
                p = jnp.broadcast_to(jnp.arange(n, dtype=p.dtype), p.shape)
            return h, tau, r, p
        if mode == "r":
            r, p = jsp_linalg.qr(a, mode="r", pivoting=True)
            r = r[..., :min(a.shape[-2:]), :]
        else:
            q, r, p = jsp_linalg.qr(a, mode="full" if mode == "complete" else "economic",
                                    pivoting=True)
        if a.shape[-2] == 0:  # no rows: geqp3 pivots nothing (jax's p would be zeros)
            p = jnp.broadcast_to(jnp.arange(a.shape[-1], dtype=p.dtype), p.shape)
        return (r, p) if mode == "r" else (q, r, p)
    return fn


#: Op class -> (op, input types) -> the jax function computing the node's outputs;
#: the function depends only on the op's props and the input types (the bridge's key)
JAX_FUNCTIONS = {
    # numpy's upper factor reads a's upper triangle; jax's reads the lower one of its input
    Cholesky: lambda op, ts: lambda a: jnp.linalg.cholesky(
        jnp.conj(jnp.swapaxes(a, -1, -2)) if op.upper else a, upper=op.upper, symmetrize_input=False),
    QR: lambda op, ts: _qr(op.mode),
    SVD: lambda op, ts: lambda a: jnp.linalg.svd(a, full_matrices=op.full_matrices,
                                                 compute_uv=op.compute_uv),
    Eigh: lambda op, ts: lambda a: (
        jnp.linalg.eigh(a, UPLO=op.uplo, symmetrize_input=False) if op.compute_v
        else jnp.linalg.eigh(a, UPLO=op.uplo, symmetrize_input=False)[0]),
    Eig: lambda op, ts: lambda a: jnp.linalg.eig(a) if op.compute_v else jnp.linalg.eigvals(a),
    Inv: lambda op, ts: jnp.linalg.inv,
    Pinv: lambda op, ts: lambda a: jnp.linalg.pinv(
        a, rtol=op.tolerance(ts[0].dtype, *ts[0].shape[-2:]), hermitian=op.hermitian),
    Det: lambda op, ts: _det,
    Slogdet: lambda op, ts: _slogdet_complex if is_complex(ts[0].dtype) else _slogdet_real,
    Solve: lambda op, ts: jnp.vectorize(jnp.linalg.solve, signature=f"(n,n),{_rhs(op)}->{_rhs(op)}"),
    SolveTriangular: lambda op, ts: jnp.vectorize(
        lambda a, b: jsp_linalg.solve_triangular(a, b, trans=op.trans, lower=op.lower,
                                                 unit_diagonal=op.unit_diagonal),
        signature=f"(n,n),{_rhs(op)}->{_rhs(op)}"),
    ChoSolve: lambda op, ts: jnp.vectorize(
        lambda c, b: jsp_linalg.cho_solve((c, op.lower), b),
        signature=f"(n,n),{_rhs(op)}->{_rhs(op)}"),
    LUFactor: lambda op, ts: jsp_linalg.lu_factor,
    LU: lambda op, ts: jnp.vectorize(jsp_linalg.lu, signature="(m,n)->(m,m),(m,k),(k,n)"),
    Expm: lambda op, ts: jnp.vectorize(jsp_linalg.expm, signature="(n,n)->(n,n)"),
    SolveSylvester: lambda op, ts: jnp.vectorize(
        jsp_linalg.solve_sylvester, signature="(n,n),(m,m),(n,m)->(n,m)"),
    Schur: lambda op, ts: _schur(op.output),  # gees takes batches itself
    PivotedQR: lambda op, ts: _pivoted_qr(op.mode),
}


def _as_tuple(fn):
    def wrapped(*args):
        out = fn(*args)
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return wrapped


def lower_linalg(ctx: LoweringContext, *operands: ir.Value) -> list[ir.Value]:
    """One rule for every decomposition: jax's lowering of its JAX_FUNCTIONS entry."""
    fn = JAX_FUNCTIONS[type(ctx.op)](ctx.op, ctx.in_types)
    return lower_with_jax(ctx, _as_tuple(fn), *operands)


lower_linalg.jax_bridge = True  # listed as "jax bridge" in the coverage table
for _cls in JAX_FUNCTIONS:
    register(_cls)(lower_linalg)
