"""Linear algebra: products (``matmul``, ``dot``, ``tensordot``, ``einsum``,
``outer``, ``matrix_power``), ``norm`` and decompositions.

All three build one Op, ``DotGeneral``: a contraction of two operands of one
dtype over pairs of *contracting* axes, with optional pairs of *batch* axes.
Its output holds the (broadcast) batch dims, then the remaining ("free") dims
of ``a`` in order, then those of ``b`` -- the layout of ``stablehlo.dot_general``.
Batch axes broadcast NumPy-style: the two batch lists are right-aligned, may
differ in length, and a size-1 dim stretches; that is how ``matmul`` broadcasts
its stacks of matrices.

dtypes are NumPy's: inputs that are not graph values become arrays with
NumPy's default dtypes (``np.dot(int8_array, 2)`` is int64, Python scalars are
not weak here), the operands are promoted to their common dtype, and the
product is computed in it: bool is a logical or of ands, integers wrap, and
float16/bfloat16 accumulate in float32 and round once, as NumPy does.

``einsum``, ``outer``, ``matrix_power`` and ``norm`` are builders over
DotGeneral and the shape/reduction/elementwise ops. The decompositions
(``cholesky``, ``qr``, ``svd``, ``eigh``, ``eig``, ``lu``, ...) are Ops of their
own (subclasses of ``LinalgOp``): NumPy's / SciPy's semantics over stacks of
matrices (leading dims broadcast), float32/float64/complex64/complex128 inputs
(ints and bool become float64 as in NumPy). Where NumPy raises for a singular
or non-positive-definite matrix, the compiled op returns non-finite values.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from ..graph import Apply, Op, Variable
from ..types import DTYPES, TensorType, is_complex, is_float
from ..types import is_inexact
from .basic import as_variable, broadcast_shapes, normalize_axes, result_type
from .elemwise import abs as abs_, astype, not_equal, power, sqrt, square
from .indexing import getitem
from .reduction import any as any_, max as max_, min as min_, sum as sum_
from .shape import broadcast_to, expand_dims, eye, reshape, transpose

__all__ = [
    "DotGeneral", "matmul", "dot", "tensordot", "einsum", "outer", "matrix_power", "norm",
    "cholesky", "qr", "svd", "svdvals", "eigh", "eigvalsh", "eig", "eigvals", "inv", "pinv",
    "det", "slogdet", "solve", "solve_triangular", "cho_solve", "lu_factor", "lu", "expm",
    "solve_sylvester",
]

#: dtypes whose products accumulate in float32 (NumPy's half loops do the same)
HALF_DTYPES = (DTYPES["float16"], DTYPES["bfloat16"])


def _axes_tuple(axes: Sequence[int], what: str) -> tuple[int, ...]:
    out = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or a < 0:
            raise ValueError(f"DotGeneral: {what} axes must be non-negative ints, got {tuple(axes)!r}")
        out.append(int(a))
    return tuple(out)


def _pair(value: Any, what: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    try:
        a_axes, b_axes = value
    except (TypeError, ValueError):
        raise ValueError(
            f"DotGeneral: {what} must be a pair (axes of a, axes of b), got {value!r}"
        ) from None
    return _axes_tuple(a_axes, what), _axes_tuple(b_axes, what)


def _size(x: np.ndarray, axes: Sequence[int]) -> int:
    return int(np.prod([x.shape[d] for d in axes], dtype=np.int64))


class DotGeneral(Op):
    """Contraction of ``a`` and ``b`` over pairs of axes, as ``lax.dot_general``.

    Args:
        contracting: ``(axes of a, axes of b)``, paired in order; paired dims
            must have equal sizes.
        batch: ``(axes of a, axes of b)``; the lists are right-aligned and
            broadcast NumPy-style (missing or size-1 dims stretch).

    The output shape is ``broadcast(batch dims) + free dims of a + free dims of b``,
    where free dims are the axes in neither list, in their order.
    """

    __props__ = ("contracting", "batch")

    def __init__(self, contracting: Any, batch: Any = ((), ())):
        self.contracting = _pair(contracting, "contracting")
        self.batch = _pair(batch, "batch")
        if len(self.contracting[0]) != len(self.contracting[1]):
            raise ValueError(
                f"DotGeneral: contracting axes must pair up, got {len(self.contracting[0])} "
                f"axes of a and {len(self.contracting[1])} of b"
            )

    def free_axes(self, ndim: int, side: int) -> tuple[int, ...]:
        """The axes of operand ``side`` (0: a, 1: b) that are neither batch nor contracting."""
        used = set(self.contracting[side]) | set(self.batch[side])
        return tuple(d for d in range(ndim) if d not in used)

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_variable(a), as_variable(b)
        if a.dtype != b.dtype:
            raise TypeError(
                f"{self}: inputs must share one dtype, got {a.type} and {b.type} "
                f"(matmul/dot/tensordot promote)"
            )
        for side, (x, label) in enumerate(((a, "a"), (b, "b"))):
            axes = self.contracting[side] + self.batch[side]
            for d in axes:
                if d >= x.ndim:
                    raise ValueError(
                        f"{self}: axis {d} is out of bounds for input '{label}' of rank {x.ndim}"
                    )
            if len(set(axes)) != len(axes):
                raise ValueError(f"{self}: input '{label}' lists an axis twice")
        for da, db in zip(*self.contracting):
            sa, sb = a.shape[da], b.shape[db]
            if sa is not None and sb is not None and sa != sb:
                raise ValueError(
                    f"{self}: contracting axis {da} of 'a' {a.type} has size {sa} but axis {db} "
                    f"of 'b' {b.type} has size {sb}"
                )
        batch = broadcast_shapes(
            tuple(a.shape[d] for d in self.batch[0]),
            tuple(b.shape[d] for d in self.batch[1]),
            op=f"{self}: batch dims of {a.type} and {b.type}",
        )
        shape = (
            batch
            + tuple(a.shape[d] for d in self.free_axes(a.ndim, 0))
            + tuple(b.shape[d] for d in self.free_axes(b.ndim, 1))
        )
        return Apply(self, [a, b], [TensorType(a.dtype, shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        a, b = inputs
        (ca, cb), (ba, bb) = self.contracting, self.batch
        fa, fb = self.free_axes(a.ndim, 0), self.free_axes(b.ndim, 1)
        k = _size(a, ca)
        # (batch..., free, contracting) @ (batch..., contracting, free): np.matmul
        # broadcasts the batch dims exactly as DotGeneral does
        a2 = np.transpose(a, ba + fa + ca).reshape([a.shape[d] for d in ba] + [_size(a, fa), k])
        b2 = np.transpose(b, bb + cb + fb).reshape([b.shape[d] for d in bb] + [k, _size(b, fb)])
        dt = node.outputs[0].dtype
        if dt in HALF_DTYPES:
            a2, b2 = a2.astype(np.float32), b2.astype(np.float32)
        with np.errstate(all="ignore"):
            out = np.matmul(a2, b2)
        batch = np.broadcast_shapes(tuple(a.shape[d] for d in ba), tuple(b.shape[d] for d in bb))
        shape = batch + tuple(a.shape[d] for d in fa) + tuple(b.shape[d] for d in fb)
        return [np.asarray(out.reshape(shape), dtype=dt)]

    # --- derivatives: bilinear. Each operand's cotangent contracts the cotangent with the
    # other operand over the other's free dims (no conjugate for complex, as jax), then is
    # transposed to the operand's axis order and summed over the batch dims it broadcast.
    def pullback(self, node, cotangents):
        (ct,), (a, b) = cotangents, node.inputs
        if not is_inexact(a.dtype):
            return [None, None]
        return [self._cotangent(ct, a, b, 0), self._cotangent(ct, b, a, 1)]

    def pushforward(self, node, tangents):
        (ta, tb), (a, b) = tangents, node.inputs
        if not is_inexact(a.dtype):
            return [None]
        terms = ([] if ta is None else [self(ta, b)]) + ([] if tb is None else [self(a, tb)])
        if not terms:
            return [None]
        return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]

    def _cotangent(self, ct: Variable, x: Variable, other: Variable, side: int) -> Variable:
        o = 1 - side
        fx, fo = self.free_axes(x.ndim, side), self.free_axes(other.ndim, o)
        bx, bo = self.batch[side], self.batch[o]
        cx, co = self.contracting[side], self.contracting[o]
        nb = ct.ndim - len(fx) - len(fo)  # the output: batch dims, free dims of a, of b
        start_fo = nb + (len(fx) if side == 0 else 0)
        # g: batch dims shared with ``other``, the other dims of ct, then co (ascending)
        g = DotGeneral((tuple(range(start_fo, start_fo + len(fo))), fo),
                       (tuple(range(nb - len(bo), nb)), bo))(ct, other)

        def batch_position(p: int) -> int:  # where output batch dim p is in g
            return p - (nb - len(bo)) if p >= nb - len(bo) else len(bo) + p

        rank = sorted(co)
        in_g = {}  # axis of x -> its position in g
        for k, d in enumerate(bx):
            in_g[d] = batch_position(nb - len(bx) + k)
        for k, d in enumerate(fx):
            in_g[d] = nb + k
        for d, e in zip(cx, co):
            in_g[d] = nb + len(fx) + rank.index(e)
        perm = [batch_position(p) for p in range(nb - len(bx))] + [in_g[d] for d in range(x.ndim)]
        if perm != list(range(len(perm))):
            g = transpose(g, perm)
        from ..autodiff import sum_to
        return sum_to(g, x)


# --- builders --------------------------------------------------------------
def _promoted(a: Any, b: Any) -> tuple[Variable, Variable]:
    """Both operands as Variables of their common dtype (non-graph values become
    arrays with NumPy's default dtypes first, as np.dot/np.matmul convert them)."""
    a, b = as_variable(a), as_variable(b)
    dt = result_type(a, b)
    return as_variable(a, dt), as_variable(b, dt)


def _check_contracting(name: str, a: Variable, b: Variable, ca: Sequence[int],
                       cb: Sequence[int]) -> None:
    for da, db in zip(ca, cb):
        sa, sb = a.shape[da], b.shape[db]
        if sa is not None and sb is not None and sa != sb:
            raise ValueError(
                f"{name}: size {sa} of axis {da} of 'a' {a.type} does not match "
                f"size {sb} of axis {db} of 'b' {b.type}"
            )


def matmul(a: Any, b: Any) -> Variable:
    """Matrix product, as numpy.matmul (the ``@`` operator).

    1-D operands are promoted to a row (``a``) or column (``b``) matrix and the
    added dim is removed from the result; leading dims are stacks of matrices
    that broadcast. 0-d operands are an error, as in NumPy.
    """
    a, b = _promoted(a, b)
    for i, x in enumerate((a, b)):
        if x.ndim == 0:
            raise ValueError(
                f"matmul: input operand {i} does not have enough dimensions "
                f"(has 0, needs at least 1): {x.type}"
            )
    ca = a.ndim - 1
    cb = 0 if b.ndim == 1 else b.ndim - 2
    _check_contracting("matmul", a, b, [ca], [cb])
    batch_a = tuple(range(a.ndim - 2)) if a.ndim > 2 else ()
    batch_b = tuple(range(b.ndim - 2)) if b.ndim > 2 else ()
    broadcast_shapes(tuple(a.shape[:len(batch_a)]), tuple(b.shape[:len(batch_b)]),
                     op=f"matmul: stacked matrices of {a.type} and {b.type}")
    return DotGeneral(((ca,), (cb,)), (batch_a, batch_b))(a, b)


def dot(a: Any, b: Any) -> Variable:
    """Dot product, as numpy.dot.

    0-d operands multiply; 1-D x 1-D is the inner product; otherwise the last
    axis of ``a`` contracts with the only axis of a 1-D ``b`` or with the
    second-to-last axis of ``b``, and the result has ``a``'s remaining dims
    followed by ``b``'s.
    """
    a, b = _promoted(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return DotGeneral(((), ()))(a, b)
    ca = a.ndim - 1
    cb = 0 if b.ndim == 1 else b.ndim - 2
    _check_contracting("dot", a, b, [ca], [cb])
    return DotGeneral(((ca,), (cb,)))(a, b)


def _tensordot_axes(axes: Any, a: Variable, b: Variable) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0:
            raise ValueError(f"tensordot: axes must be a non-negative int, got {n}")
        if n > a.ndim or n > b.ndim:
            raise ValueError(
                f"tensordot: axes={n} needs both operands to have at least {n} dims, "
                f"got {a.type} and {b.type}"
            )
        return tuple(range(a.ndim - n, a.ndim)), tuple(range(n))
    try:
        axes_a, axes_b = axes
    except (TypeError, ValueError):
        raise TypeError(
            f"tensordot: axes must be an int or a pair (axes of a, axes of b), got {axes!r}"
        ) from None
    try:
        axes_a = (operator.index(axes_a),) if not isinstance(axes_a, (list, tuple)) else tuple(axes_a)
        axes_b = (operator.index(axes_b),) if not isinstance(axes_b, (list, tuple)) else tuple(axes_b)
    except TypeError:
        raise TypeError(f"tensordot: axes must be ints, got {axes!r}") from None
    if len(axes_a) != len(axes_b):
        raise ValueError(
            f"tensordot: axes must pair up, got {len(axes_a)} axes of a and {len(axes_b)} of b"
        )
    return normalize_axes(axes_a, a.ndim, "tensordot (axes of a)"), \
        normalize_axes(axes_b, b.ndim, "tensordot (axes of b)")


def tensordot(a: Any, b: Any, axes: Any = 2) -> Variable:
    """Sum of products over the given axes, as numpy.tensordot.

    ``axes`` is an int N (the last N axes of ``a`` with the first N of ``b``)
    or a pair ``(axes_a, axes_b)`` of ints or sequences of ints (negative
    axes count from the end). The result has the remaining dims of ``a``
    followed by those of ``b``.
    """
    a, b = _promoted(a, b)
    axes_a, axes_b = _tensordot_axes(axes, a, b)
    _check_contracting("tensordot", a, b, axes_a, axes_b)
    return DotGeneral((axes_a, axes_b))(a, b)


# --- einsum ----------------------------------------------------------------------------
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _parse_term(term: str, ndim: int, where: str) -> list[Any]:
    """Labels of one operand: letters, and ``("...", k)`` for the k-th ellipsis dim
    counted from the right (ellipsis dims of different operands right-align)."""
    if term.count("...") > 1 or (term.replace("...", "").count(".")):
        raise ValueError(f"einsum: invalid ellipsis in subscripts {term!r} of {where}")
    head, dots, tail = term.partition("...")
    for c in head + tail:
        if c not in _LETTERS:
            raise ValueError(f"einsum: invalid subscript {c!r} in {where}; use letters a-z, A-Z")
    n_ell = ndim - len(head) - len(tail)
    if (not dots and n_ell != 0) or n_ell < 0:
        raise ValueError(
            f"einsum: {where} has {ndim} dims but its subscripts {term!r} name "
            f"{len(head) + len(tail)}"
        )
    return list(head) + [("...", n_ell - 1 - j) for j in range(n_ell)] + list(tail)


def _diagonal(x: Variable, labels: list[Any]) -> tuple[Variable, list[Any]]:
    """Takes the diagonal over every label repeated within one operand."""
    while True:
        seen = [lab for i, lab in enumerate(labels) if lab in labels[:i]]
        if not seen:
            return x, labels
        lab = seen[0]
        dims = [i for i, l in enumerate(labels) if l == lab]
        rest = [i for i, l in enumerate(labels) if l != lab]
        sizes = {x.shape[d] for d in dims} - {None}
        if len(sizes) > 1:
            raise ValueError(f"einsum: label {lab!r} repeats with different sizes {sorted(sizes)} in {x.type}")
        if None in [x.shape[d] for d in dims + rest]:
            raise ValueError(f"einsum: repeated label {lab!r} needs static dims, got {x.type}")
        n, k = (sizes.pop() if sizes else 0), len(dims)
        # the diagonal of k axes of size n, flattened, is every (1 + n + ... + n^(k-1))-th element
        flat = reshape(transpose(x, rest + dims), [x.shape[d] for d in rest] + [n ** k])
        step = max(1, sum(n ** j for j in range(k)))
        x = getitem(flat, (Ellipsis, slice(None, None, step)))
        labels = [labels[d] for d in rest] + [lab]


def _sum_labels(x: Variable, labels: list[Any], drop: set) -> tuple[Variable, list[Any]]:
    """Sums ``x`` over the dims labelled by ``drop``, keeping its dtype (einsum
    sums of ints wrap in their own type; of bools, it is a logical or)."""
    axes = tuple(i for i, lab in enumerate(labels) if lab in drop)
    if not axes:
        return x, labels
    out = any_(x, axis=axes) if x.dtype == np.bool_ else astype(sum_(x, axis=axes), x.dtype)
    return out, [lab for lab in labels if lab not in drop]


def einsum(subscripts: str, *operands: Any) -> Variable:
    """Einstein summation, as numpy.einsum.

    Any NumPy subscripts: implicit output (the labels used once, in alphabetical
    order, after the ellipsis dims), explicit output after ``->``, ``...`` for
    broadcast leading dims, a label repeated within one operand (its diagonal),
    labels summed within one operand, and size-1 dims broadcasting against the
    same label of another operand. Operands are promoted to their common dtype;
    the contraction runs pairwise, left to right, as dot_general chains.
    """
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a string, got {subscripts!r}")
    if not operands:
        raise ValueError("einsum: no operands")
    xs = [as_variable(x) for x in operands]
    dt = result_type(*xs)
    xs = [as_variable(x, dt) for x in xs]
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(xs):
        raise ValueError(f"einsum: {len(terms)} operand subscripts in {subscripts!r} for {len(xs)} operands")
    labels = [_parse_term(t, x.ndim, f"operand {i} {x.type}") for i, (t, x) in enumerate(zip(terms, xs))]
    n_ell = max((sum(isinstance(l, tuple) for l in ls) for ls in labels), default=0)
    ellipsis = [("...", n_ell - 1 - j) for j in range(n_ell)]
    if arrow:
        if rhs.count("...") > 1 or rhs.replace("...", "").count("."):
            raise ValueError(f"einsum: invalid ellipsis in the output subscripts {rhs!r}")
        head, dots, tail = rhs.partition("...")
        for c in head + tail:
            if c not in _LETTERS:
                raise ValueError(f"einsum: invalid output subscript {c!r}")
            if not any(c in ls for ls in labels):
                raise ValueError(f"einsum: output subscript {c!r} does not appear in the operands")
        if len(set(head + tail)) != len(head + tail):
            raise ValueError(f"einsum: output subscripts {rhs!r} repeat a label")
        if n_ell and not dots:
            raise ValueError(
                "einsum: the operands have ellipsis dims but the output subscripts have no '...'"
            )
        out = list(head) + ellipsis + list(tail)
    else:
        counts: dict[str, int] = {}
        for ls in labels:
            for lab in ls:
                if not isinstance(lab, tuple):
                    counts[lab] = counts.get(lab, 0) + 1
        out = ellipsis + sorted(c for c, k in counts.items() if k == 1)

    sizes: dict[Any, int] = {}
    for x, ls in zip(xs, labels):
        for lab, n in zip(ls, x.shape):
            if n is None or n == 1:
                continue
            if sizes.setdefault(lab, n) != n:
                raise ValueError(
                    f"einsum: label {lab if not isinstance(lab, tuple) else '...'!r} has sizes "
                    f"{sizes[lab]} and {n}, which do not broadcast"
                )

    ops = [_diagonal(x, ls) for x, ls in zip(xs, labels)]

    def needed(skip: Sequence[int]) -> set:
        keep = set(out)
        for j, (_, ls) in enumerate(ops):
            if j not in skip:
                keep |= set(ls)
        return keep

    def size(x: Variable, ls: list[Any], lab: Any) -> int | None:
        return x.shape[ls.index(lab)]

    x, ls = _sum_labels(*ops[0], set(ops[0][1]) - needed([0]))
    for i in range(1, len(ops)):
        y, ly = ops[i]
        later = needed(list(range(i + 1)))
        shared = [lab for lab in ls if lab in ly]
        # a contracted label of size 1 on one side only broadcasts: sum it there first
        x, ls = _sum_labels(x, ls, {lab for lab in shared if lab not in later
                                    and size(x, ls, lab) == 1 and size(y, ly, lab) != 1})
        y, ly = _sum_labels(y, ly, {lab for lab in shared if lab not in later
                                    and size(y, ly, lab) == 1 and size(x, ls, lab) not in (1, None)
                                    and lab in ls})
        x, ls = _sum_labels(x, ls, {lab for lab in ls if lab not in later and lab not in ly})
        y, ly = _sum_labels(y, ly, {lab for lab in ly if lab not in later and lab not in ls})
        batch = [lab for lab in ls if lab in ly and lab in later]
        contract = [lab for lab in ls if lab in ly and lab not in later]
        op = DotGeneral(([ls.index(l) for l in contract], [ly.index(l) for l in contract]),
                        ([ls.index(l) for l in batch], [ly.index(l) for l in batch]))
        x = op(x, y)
        ls = batch + [l for l in ls if l not in ly] + [l for l in ly if l not in ls]
        ls = list(dict.fromkeys(ls))  # (free labels are distinct; keeps order)
    x, ls = _sum_labels(x, ls, set(ls) - set(out))
    # an output label missing from ``ls`` cannot happen: outputs come from the operands
    perm = [ls.index(lab) for lab in out]
    if perm != list(range(len(perm))):
        x = transpose(x, perm)
    return x


# --- outer, matrix_power ---------------------------------------------------------------
def outer(a: Any, b: Any) -> Variable:
    """Outer product of the flattened inputs, as numpy.outer: ``out[i, j] = a[i] * b[j]``."""
    a, b = _promoted(a, b)
    return DotGeneral(((), ()))(reshape(a, (-1,)), reshape(b, (-1,)))


def matrix_power(a: Any, n: int) -> Variable:
    """``a`` raised to the static integer power ``n``, as numpy.linalg.matrix_power:
    repeated squaring; ``n = 0`` gives the identity (in ``a``'s dtype), negative
    ``n`` powers the inverse (float and complex matrices only)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"matrix_power: the exponent must be an integer, got {n!r}")
    a = as_variable(a)
    if a.ndim < 2 or (a.shape[-1] is not None and a.shape[-2] is not None
                      and a.shape[-1] != a.shape[-2]):
        raise ValueError(f"matrix_power: input must be a stack of square matrices, got {a.type}")
    n = int(n)
    if n == 0:
        if a.shape[-1] is None or any(d is None for d in a.shape):
            raise ValueError(f"matrix_power: n=0 needs a static shape, got {a.type}")
        return broadcast_to(eye(a.shape[-1], dtype=a.dtype), a.shape)
    if n < 0:
        a, n = inv(a), -n
    result = None
    base = a
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result


# --- norm ------------------------------------------------------------------------------
def _float_input(x: Any, name: str) -> Variable:
    """``x`` as a float/complex Variable: ints and bool become float64, as in numpy.linalg."""
    x = as_variable(x)
    if not (is_float(x.dtype) or is_complex(x.dtype)):
        x = astype(x, "float64")
    return x


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Variable:
    """Vector or matrix norm, as numpy.linalg.norm.

    Vector norms (``axis`` an int, or None with a 1-D input): ord None/2
    (Euclidean), 1, inf, -inf, 0 (count of non-zeros) and any other number p
    (``sum(|x|**p)**(1/p)``). Matrix norms (``axis`` a pair, or None with a 2-D
    input): None/'fro', 'nuc', 1, -1, 2, -2, inf, -inf. ``ord=None, axis=None``
    is the Frobenius norm of the flattened input, whatever its rank. The result
    is real: float inputs keep their dtype, complex ones give their real part's,
    ints and bool give float64.
    """
    x = _float_input(x, "norm")
    if axis is None:
        if ord is None:
            out = sqrt(sum_(square(abs_(x))))
            return _ones_shape(out, x.ndim) if keepdims else out
        if x.ndim not in (1, 2):
            raise ValueError(f"norm: improper number of dimensions to norm ({x.type}) for ord={ord!r}")
        axis = tuple(range(x.ndim))
    elif isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        axis = (int(axis),)
    else:
        axis = tuple(axis)
    axes = normalize_axes(axis, x.ndim, "norm")
    if len(set(axes)) != len(axes):
        raise ValueError(f"norm: duplicate axes {axis!r}")
    a = abs_(x)
    if len(axes) == 1:
        (ax,) = axes
        if ord is None or ord == 2:
            out = sqrt(sum_(square(a), axis=ax))
        elif ord == np.inf:
            out = max_(a, axis=ax)
        elif ord == -np.inf:
            out = min_(a, axis=ax)
        elif ord == 0:
            out = astype(sum_(not_equal(x, 0), axis=ax), a.dtype)
        elif ord == 1:
            out = sum_(a, axis=ax)
        elif isinstance(ord, str):
            raise ValueError(f"norm: invalid norm order {ord!r} for vectors")
        else:
            p = float(ord)
            out = power(sum_(power(a, p), axis=ax), 1.0 / p)
        return expand_dims(out, ax) if keepdims else out
    if len(axes) != 2:
        raise ValueError(f"norm: improper number of dimensions to norm: axis={axis!r}")
    r, c = axes
    if ord is None or ord == "fro":
        out = sqrt(sum_(square(a), axis=axes))
    elif ord in (1, -1, np.inf, -np.inf):
        inner, outer_ = (r, c) if ord in (1, -1) else (c, r)
        red = max_ if ord > 0 else min_
        s = sum_(a, axis=inner)
        out = red(s, axis=outer_ - 1 if outer_ > inner else outer_)
    elif ord in (2, -2, "nuc"):
        rest = [d for d in range(x.ndim) if d not in axes]
        sv = svdvals(transpose(x, rest + [r, c]))
        out = max_(sv, axis=-1) if ord == 2 else min_(sv, axis=-1) if ord == -2 else sum_(sv, axis=-1)
    else:
        raise ValueError(f"norm: invalid norm order {ord!r} for matrices")
    return expand_dims(out, tuple(sorted(axes))) if keepdims else out


def _ones_shape(x: Variable, ndim: int) -> Variable:
    return reshape(x, (1,) * ndim)


# --- decompositions and solvers ----------------------------------------------------------
_LINALG_DTYPES = tuple(DTYPES[n] for n in ("float32", "float64", "complex64", "complex128"))


def _real(dtype: np.dtype) -> np.dtype:
    return np.finfo(dtype).dtype


def _complex(dtype: np.dtype) -> np.dtype:
    return np.result_type(dtype, np.complex64)


def _batched(fn, arrays: Sequence[np.ndarray], core: Sequence[int], n_out: int):
    """Applies ``fn`` (on single matrices) over the broadcast leading dims of
    ``arrays``, whose last ``core[i]`` dims are the matrix dims of ``arrays[i]``;
    returns ``n_out`` stacked results."""
    batch = np.broadcast_shapes(*(a.shape[:a.ndim - k] for a, k in zip(arrays, core)))
    arrays = [np.broadcast_to(a, batch + a.shape[a.ndim - k:]) for a, k in zip(arrays, core)]
    results = []
    for idx in np.ndindex(*batch):
        r = fn(*(a[idx] for a in arrays))
        results.append(r if isinstance(r, tuple) else (r,))
    if not results:  # an empty stack: the core shapes come from one call on zeros
        r = fn(*(np.zeros(a.shape[len(batch):], a.dtype) + np.eye(*a.shape[-2:], dtype=a.dtype)
                 if k == 2 and a.shape[-1] == a.shape[-2] else np.ones(a.shape[len(batch):], a.dtype)
                 for a, k in zip(arrays, core)))
        r = r if isinstance(r, tuple) else (r,)
        return tuple(np.zeros(batch + np.shape(o), np.asarray(o).dtype) for o in r)
    return tuple(np.stack([r[j] for r in results]).reshape(batch + np.shape(results[0][j]))
                 for j in range(n_out))


class LinalgOp(Op):
    """A decomposition or solver over stacks of matrices (abstract).

    Subclasses set ``core`` (the number of matrix dims of each input: 2 for a
    matrix, 1 or 2 for a right-hand side given as ``b_vector``) and define
    ``core_types(*inputs) -> [(dtype, core shape), ...]`` for the outputs and
    ``compute(*arrays)``, the NumPy/SciPy reference on the whole (broadcast)
    stack. The leading dims of all inputs broadcast.
    """

    #: input names, for error messages
    inputs_names: tuple[str, ...] = ("a",)
    #: inputs whose last two dims must be equal
    square: tuple[int, ...] = (0,)

    def core_ndims(self, xs: Sequence[Variable]) -> list[int]:
        return [2] * len(xs)

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self.inputs_names):
            raise TypeError(f"{self}: takes {len(self.inputs_names)} inputs, got {len(inputs)}")
        xs = [as_variable(x) for x in inputs]
        for x, name in zip(xs, self.inputs_names):
            if x.dtype not in _LINALG_DTYPES:
                raise TypeError(
                    f"{self}: input '{name}' must be float32, float64, complex64 or complex128, "
                    f"got {x.type}"
                )
            if x.dtype != xs[0].dtype:
                raise TypeError(f"{self}: inputs must share one dtype, got {xs[0].type} and {x.type}")
        core = self.core_ndims(xs)
        for x, k, name in zip(xs, core, self.inputs_names):
            if x.ndim < k:
                raise ValueError(f"{self}: input '{name}' needs at least {k} dims, got {x.type}")
        for i in self.square:
            n, m = xs[i].shape[-2:]
            if n is not None and m is not None and n != m:
                raise ValueError(
                    f"{self}: input '{self.inputs_names[i]}' must be a stack of square matrices, "
                    f"got {xs[i].type}"
                )
        batch = broadcast_shapes(*(x.shape[:x.ndim - k] for x, k in zip(xs, core)),
                                 op=f"{self}: leading dims")
        cores = [tuple(x.shape[x.ndim - k:]) for x, k in zip(xs, core)]
        self.check_cores(cores, xs)
        outs = [TensorType(dt, batch + tuple(shape)) for dt, shape in self.core_types(xs[0].dtype, *cores)]
        return Apply(self, xs, outs)

    def check_cores(self, cores: list[tuple], xs: Sequence[Variable]) -> None:
        pass

    def core_types(self, dtype: np.dtype, *cores: tuple) -> list[tuple[np.dtype, tuple]]:
        raise NotImplementedError

    def compute(self, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        raise NotImplementedError

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        with np.errstate(all="ignore"):
            outs = self.compute(*inputs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return [np.asarray(o, dtype=v.dtype).reshape(v.type.shape) for o, v in zip(outs, node.outputs)]


def _min(m, n):
    return None if m is None or n is None else min(m, n)


class Cholesky(LinalgOp):
    """Cholesky factor, as numpy.linalg.cholesky: lower (``a = L L^H``) or upper (``a = U^H U``)."""

    __props__ = ("upper",)

    def __init__(self, upper: bool = False):
        self.upper = bool(upper)

    def core_types(self, dtype, core):
        return [(dtype, core)]

    def compute(self, a):
        return np.linalg.cholesky(a, upper=self.upper)


class QR(LinalgOp):
    """QR decomposition, as numpy.linalg.qr: mode 'reduced' (q, r), 'complete' (q, r) or 'r'."""

    __props__ = ("mode",)
    square = ()

    def __init__(self, mode: str = "reduced"):
        if mode not in ("reduced", "complete", "r"):
            raise ValueError(f"QR: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
        self.mode = mode

    def core_types(self, dtype, core):
        m, n = core
        k = m if self.mode == "complete" else _min(m, n)
        r = (dtype, (k, n))
        return [r] if self.mode == "r" else [(dtype, (m, k)), r]

    def compute(self, a):
        out = np.linalg.qr(a, mode=self.mode)
        return (out,) if self.mode == "r" else tuple(out)


class SVD(LinalgOp):
    """Singular value decomposition, as numpy.linalg.svd: (u, s, vh) or s alone;
    s is real and descending."""

    __props__ = ("full_matrices", "compute_uv")
    square = ()

    def __init__(self, full_matrices: bool = True, compute_uv: bool = True):
        self.full_matrices, self.compute_uv = bool(full_matrices), bool(compute_uv)

    def core_types(self, dtype, core):
        m, n = core
        k = _min(m, n)
        s = (_real(dtype), (k,))
        if not self.compute_uv:
            return [s]
        if self.full_matrices:
            return [(dtype, (m, m)), s, (dtype, (n, n))]
        return [(dtype, (m, k)), s, (dtype, (k, n))]

    def compute(self, a):
        out = np.linalg.svd(a, full_matrices=self.full_matrices, compute_uv=self.compute_uv)
        return tuple(out) if self.compute_uv else (out,)


class Eigh(LinalgOp):
    """Eigen-decomposition of Hermitian matrices from one triangle, as numpy.linalg.eigh
    (ascending real eigenvalues w, eigenvectors v) or eigvalsh (w alone)."""

    __props__ = ("uplo", "compute_v")

    def __init__(self, uplo: str = "L", compute_v: bool = True):
        if uplo not in ("L", "U"):
            raise ValueError(f"Eigh: UPLO must be 'L' or 'U', got {uplo!r}")
        self.uplo, self.compute_v = uplo, bool(compute_v)

    def core_types(self, dtype, core):
        w = (_real(dtype), core[:1])
        return [w, (dtype, core)] if self.compute_v else [w]

    def compute(self, a):
        if self.compute_v:
            return tuple(np.linalg.eigh(a, UPLO=self.uplo))
        return (np.linalg.eigvalsh(a, UPLO=self.uplo),)


class Eig(LinalgOp):
    """Eigen-decomposition of general matrices, as numpy.linalg.eig / eigvals, always
    complex (NumPy returns real arrays when every eigenvalue happens to be real)."""

    __props__ = ("compute_v",)

    def __init__(self, compute_v: bool = True):
        self.compute_v = bool(compute_v)

    def core_types(self, dtype, core):
        c = _complex(dtype)
        return [(c, core[:1]), (c, core)] if self.compute_v else [(c, core[:1])]

    def compute(self, a):
        if self.compute_v:
            return tuple(np.linalg.eig(a))
        return (np.linalg.eigvals(a),)


class Inv(LinalgOp):
    """Matrix inverse, as numpy.linalg.inv. ``singular="nan"``: an exactly
    singular matrix gives NaNs instead of raising LinAlgError (as inside
    numpy.linalg.cond); compiled code is the same either way."""

    __props__ = ("singular",)

    def __init__(self, singular: str = "raise"):
        if singular not in ("raise", "nan"):
            raise ValueError(f"Inv: singular must be 'raise' or 'nan', got {singular!r}")
        self.singular = singular

    def core_types(self, dtype, core):
        return [(dtype, core)]

    def compute(self, a):
        if self.singular == "raise":
            return np.linalg.inv(a)
        try:
            return np.linalg.inv(a)
        except np.linalg.LinAlgError:  # one matrix at a time: NaNs where it is singular
            flat = a.reshape((-1,) + a.shape[-2:])
            out = np.empty_like(flat)
            for i, m in enumerate(flat):
                try:
                    out[i] = np.linalg.inv(m)
                except np.linalg.LinAlgError:
                    out[i] = np.nan
            return out.reshape(a.shape)


class Pinv(LinalgOp):
    """Moore-Penrose pseudo-inverse, as numpy.linalg.pinv: singular values below
    ``rtol`` times the largest are dropped (default ``max(m, n) * eps``)."""

    __props__ = ("rtol", "hermitian")
    square = ()

    def __init__(self, rtol: float | None = None, hermitian: bool = False):
        self.rtol = None if rtol is None else float(rtol)
        self.hermitian = bool(hermitian)

    def tolerance(self, dtype, m, n) -> float:
        return self.rtol if self.rtol is not None else max(m, n) * float(np.finfo(dtype).eps)

    def core_types(self, dtype, core):
        return [(dtype, core[::-1])]

    def compute(self, a):
        m, n = a.shape[-2:]
        if a.size == 0:
            return np.zeros(a.shape[:-2] + (n, m), a.dtype)
        return np.linalg.pinv(a, rtol=self.tolerance(a.dtype, m, n), hermitian=self.hermitian)


class Det(LinalgOp):
    """Determinant, as numpy.linalg.det."""

    __props__ = ()

    def core_types(self, dtype, core):
        return [(dtype, ())]

    def compute(self, a):
        return np.linalg.det(a)


class Slogdet(LinalgOp):
    """Sign and log of the absolute determinant, as numpy.linalg.slogdet
    (sign in the input's dtype, logabsdet real)."""

    __props__ = ()

    def core_types(self, dtype, core):
        return [(dtype, ()), (_real(dtype), ())]

    def compute(self, a):
        return tuple(np.linalg.slogdet(a))


class _SolveLike(LinalgOp):
    """``f(a, b)``: ``b`` is a vector right-hand side when ``b_vector`` (NumPy 2's
    rule for solve: a 1-D ``b``), else a stack of matrices (n, k)."""

    inputs_names = ("a", "b")

    def core_ndims(self, xs):
        return [2, 1 if self.b_vector else 2]

    def check_cores(self, cores, xs):
        n, nb = cores[0][-1], cores[1][0]
        if n is not None and nb is not None and n != nb:
            raise ValueError(f"{self}: 'a' {xs[0].type} and 'b' {xs[1].type} do not match in size ({n} vs {nb})")

    def core_types(self, dtype, a_core, b_core):
        return [(dtype, b_core)]

    def compute(self, a, b):
        k = 1 if self.b_vector else 2
        return _batched(self.solve_one, [a, b], [2, k], 1)


class Solve(_SolveLike):
    """Solution of ``a x = b``, as numpy.linalg.solve (NumPy 2: ``b`` is a vector only when 1-D)."""

    __props__ = ("b_vector",)

    def __init__(self, b_vector: bool = False):
        self.b_vector = bool(b_vector)

    def compute(self, a, b):
        return np.linalg.solve(a, b)


class SolveTriangular(_SolveLike):
    """Solution of ``op(a) x = b`` for triangular ``a``, as scipy.linalg.solve_triangular:
    ``trans`` 0 (a), 1 (a^T) or 2 (a^H); only the ``lower`` or upper triangle is read;
    ``unit_diagonal`` takes the diagonal as ones."""

    __props__ = ("lower", "trans", "unit_diagonal", "b_vector")

    def __init__(self, lower: bool = False, trans: int = 0, unit_diagonal: bool = False,
                 b_vector: bool = False):
        trans = {"N": 0, "T": 1, "C": 2}.get(trans, trans)
        if trans not in (0, 1, 2):
            raise ValueError(f"SolveTriangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
        self.lower, self.trans = bool(lower), int(trans)
        self.unit_diagonal, self.b_vector = bool(unit_diagonal), bool(b_vector)

    def solve_one(self, a, b):
        import scipy.linalg  # (a dependency of jax)
        return scipy.linalg.solve_triangular(a, b, trans=self.trans, lower=self.lower,
                                             unit_diagonal=self.unit_diagonal, check_finite=False)


class ChoSolve(_SolveLike):
    """Solution of ``a x = b`` given the Cholesky factor ``c`` of ``a``, as
    scipy.linalg.cho_solve((c, lower), b)."""

    __props__ = ("lower", "b_vector")
    inputs_names = ("c", "b")

    def __init__(self, lower: bool = False, b_vector: bool = False):
        self.lower, self.b_vector = bool(lower), bool(b_vector)

    def solve_one(self, c, b):
        import scipy.linalg
        return scipy.linalg.cho_solve((c, self.lower), b, check_finite=False)


class LUFactor(LinalgOp):
    """Pivoted LU factorization, as scipy.linalg.lu_factor: ``lu`` holds L (unit
    diagonal, below) and U; ``piv`` (int32) the row swaps, row i with row piv[i]."""

    __props__ = ()
    square = ()

    def core_types(self, dtype, core):
        return [(dtype, core), (DTYPES["int32"], (_min(*core),))]

    def compute(self, a):
        import scipy.linalg
        return _batched(lambda m: scipy.linalg.lu_factor(m, check_finite=False), [a], [2], 2)


class LU(LinalgOp):
    """Pivoted LU decomposition, as scipy.linalg.lu: ``a = p @ l @ u`` (the permutation
    matrix ``p`` is real)."""

    __props__ = ()
    square = ()

    def core_types(self, dtype, core):
        m, n = core
        k = _min(m, n)
        return [(_real(dtype), (m, m)), (dtype, (m, k)), (dtype, (k, n))]

    def compute(self, a):
        import scipy.linalg
        return _batched(lambda m: scipy.linalg.lu(m, check_finite=False), [a], [2], 3)


class Expm(LinalgOp):
    """Matrix exponential, as scipy.linalg.expm."""

    __props__ = ()

    def core_types(self, dtype, core):
        return [(dtype, core)]

    def compute(self, a):
        import scipy.linalg
        return _batched(scipy.linalg.expm, [a], [2], 1)


class SolveSylvester(LinalgOp):
    """Solution ``x`` of ``a x + x b = q``, as scipy.linalg.solve_sylvester
    (a: n x n, b: m x m, q: n x m)."""

    __props__ = ()
    inputs_names = ("a", "b", "q")
    square = (0, 1)

    def check_cores(self, cores, xs):
        (n, _), (m, _), (qn, qm) = cores
        for want, got, what in ((n, qn, "rows"), (m, qm, "columns")):
            if want is not None and got is not None and want != got:
                raise ValueError(f"{self}: 'q' {xs[2].type} has {got} {what}, expected {want}")

    def core_types(self, dtype, a, b, q):
        return [(dtype, q)]

    def compute(self, a, b, q):
        import scipy.linalg
        return _batched(scipy.linalg.solve_sylvester, [a, b, q], [2, 2, 2], 1)


# --- their builders ------------------------------------------------------------------------
def _lin(x: Any, name: str) -> Variable:
    """A decomposition input: ints and bool become float64; float16/bfloat16 are rejected
    (NumPy's linalg has no half-precision loops)."""
    x = _float_input(x, name)
    if x.dtype not in _LINALG_DTYPES:
        raise TypeError(f"{name}: array type {x.dtype} is unsupported in linalg")
    return x


def _lin2(a: Any, b: Any, name: str) -> tuple[Variable, Variable]:
    a, b = _lin(a, name), _lin(b, name)
    dt = result_type(a, b)
    return as_variable(a, dt), as_variable(b, dt)


def cholesky(a: Any, upper: bool = False) -> Variable:
    """Cholesky factor of Hermitian positive-definite matrices, as numpy.linalg.cholesky."""
    return Cholesky(upper)(_lin(a, "cholesky"))


def qr(a: Any, mode: str = "reduced"):
    """QR decomposition, as numpy.linalg.qr: ``[q, r]`` (mode 'reduced'/'complete') or ``r``."""
    return QR(mode)(_lin(a, "qr"))


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True):
    """Singular value decomposition, as numpy.linalg.svd: ``[u, s, vh]`` or ``s``."""
    return SVD(full_matrices, compute_uv)(_lin(a, "svd"))


def svdvals(a: Any) -> Variable:
    """Singular values (descending), as numpy.linalg.svdvals."""
    return SVD(False, False)(_lin(a, "svdvals"))


def eigh(a: Any, UPLO: str = "L"):
    """``[w, v]`` of Hermitian matrices, as numpy.linalg.eigh."""
    return Eigh(UPLO, True)(_lin(a, "eigh"))


def eigvalsh(a: Any, UPLO: str = "L") -> Variable:
    """Eigenvalues of Hermitian matrices (ascending), as numpy.linalg.eigvalsh."""
    return Eigh(UPLO, False)(_lin(a, "eigvalsh"))


def eig(a: Any):
    """``[w, v]`` of general matrices, as numpy.linalg.eig (always complex)."""
    return Eig(True)(_lin(a, "eig"))


def eigvals(a: Any) -> Variable:
    """Eigenvalues of general matrices, as numpy.linalg.eigvals (always complex)."""
    return Eig(False)(_lin(a, "eigvals"))


def inv(a: Any) -> Variable:
    """Matrix inverse, as numpy.linalg.inv."""
    return Inv()(_lin(a, "inv"))


def pinv(a: Any, rtol: float | None = None, hermitian: bool = False) -> Variable:
    """Pseudo-inverse, as numpy.linalg.pinv (``rtol`` default ``max(m, n) * eps``)."""
    return Pinv(rtol, hermitian)(_lin(a, "pinv"))


def det(a: Any) -> Variable:
    """Determinant, as numpy.linalg.det."""
    return Det()(_lin(a, "det"))


def slogdet(a: Any):
    """``[sign, logabsdet]``, as numpy.linalg.slogdet."""
    return Slogdet()(_lin(a, "slogdet"))


def solve(a: Any, b: Any) -> Variable:
    """Solution of ``a x = b``, as numpy.linalg.solve (NumPy 2: ``b`` is a vector when 1-D)."""
    a, b = _lin2(a, b, "solve")
    return Solve(b.ndim == 1)(a, b)


def solve_triangular(a: Any, b: Any, trans: Any = 0, lower: bool = False,
                     unit_diagonal: bool = False) -> Variable:
    """Solution of a triangular system, as scipy.linalg.solve_triangular (a 1-D ``b``
    is a vector; otherwise ``b`` is a stack of (n, k) right-hand sides)."""
    a, b = _lin2(a, b, "solve_triangular")
    return SolveTriangular(lower, trans, unit_diagonal, b.ndim == 1)(a, b)


def cho_solve(c_and_lower: Any, b: Any) -> Variable:
    """Solution of ``a x = b`` from a Cholesky factor, as scipy.linalg.cho_solve((c, lower), b)."""
    try:
        c, lower = c_and_lower
    except (TypeError, ValueError):
        raise TypeError("cho_solve: the first argument must be a pair (c, lower)") from None
    c, b = _lin2(c, b, "cho_solve")
    return ChoSolve(lower, b.ndim == 1)(c, b)


def lu_factor(a: Any):
    """``[lu, piv]``, as scipy.linalg.lu_factor (piv is int32)."""
    return LUFactor()(_lin(a, "lu_factor"))


def lu(a: Any):
    """``[p, l, u]`` with ``a = p @ l @ u``, as scipy.linalg.lu."""
    return LU()(_lin(a, "lu"))


def expm(a: Any) -> Variable:
    """Matrix exponential, as scipy.linalg.expm."""
    return Expm()(_lin(a, "expm"))


def solve_sylvester(a: Any, b: Any, q: Any) -> Variable:
    """Solution of ``a x + x b = q``, as scipy.linalg.solve_sylvester."""
    a, b, q = (_lin(x, "solve_sylvester") for x in (a, b, q))
    dt = result_type(a, b, q)
    return SolveSylvester()(*(as_variable(x, dt) for x in (a, b, q)))
