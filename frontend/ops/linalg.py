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

import functools
import operator
from typing import Any, Sequence

import numpy as np

from ..graph import Apply, Constant, Op, UndefinedGradient, Variable
from ..types import DTYPES, TensorType, is_complex, is_float
from ..types import is_inexact
from .basic import as_variable, broadcast_shapes, normalize_axes, result_type
from .elemwise import abs as abs_, astype, not_equal, power, sqrt, square
from .elemwise import conj, equal, imag, multiply, real, reciprocal, where
from .indexing import getitem
from .reduction import any as any_, max as max_, min as min_, sum as sum_
from .shape import broadcast_to, concatenate, expand_dims, eye, reshape, squeeze, transpose, zeros_like

__all__ = [
    "DotGeneral", "dot_general_op", "matmul", "dot", "tensordot", "einsum", "outer", "matrix_power", "norm",
    "cholesky", "qr", "svd", "svdvals", "eigh", "eigvalsh", "eig", "eigvals", "inv", "pinv",
    "det", "slogdet", "solve", "solve_triangular", "cho_solve", "lu_factor", "lu", "expm",
    "solve_sylvester", "schur",
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
    typed_by_inputs = True

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
            op=lambda: f"{self}: batch dims of {a.type} and {b.type}",
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


def _core_axes(name: str, i: int, item: Any, ncore: int, ndim: int, what: str) -> tuple[int, ...]:
    """The normalized positions of the ``ncore`` core dims of ``what`` ``i`` from its ``axes`` item."""
    if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
        if ncore != 1:
            raise ValueError(f"{name}: {what} {i} has {ncore} core dimensions, but the axes item is a "
                             f"single integer")
        item = (item,)
    if not isinstance(item, (tuple, list)):
        raise TypeError(f"{name}: each axes item must be an int or a tuple of ints, got {item!r}")
    if len(item) != ncore:
        raise ValueError(f"{name}: {what} {i} has {ncore} core dimensions, but {len(item)} dimensions "
                         f"are specified by axes tuple")
    return normalize_axes(tuple(item), ndim, name)


def apply_core_axes(name: str, signature: str, fn: Any, operands: Sequence[Variable],
                    in_cores: Sequence[int], out_core: int, axes: Any = None, axis: Any = None,
                    keepdims: bool = False) -> Variable:
    """NumPy's generalized-ufunc keywords for a product ``fn`` whose core dims are the
    operands' last ones: ``axes`` (per operand, and optionally the output, the positions
    of the core dims), ``axis`` (the one core dim every operand shares, when the output
    has none) and ``keepdims`` (that dim kept with size 1 in the output); NumPy's
    TypeErrors where the signature does not allow them."""
    nin = len(operands)
    if axes is not None and axis is not None:
        raise TypeError(f"{name}: cannot specify both 'axis' and 'axes'")
    shared = all(c == 1 for c in in_cores) and out_core == 0
    if axis is not None and not shared:
        raise TypeError(f"{name}: axis can only be used with a single shared core dimension, not with "
                        f"the signature {signature}")
    if keepdims and not shared:
        raise TypeError(f"{name} does not support keepdims: its signature {signature} has core "
                        f"dimensions that are not one shared input dimension")
    if axis is not None:
        axes = [(axis,)] * nin + ([(axis,)] if keepdims else [])
    if axes is None:
        out = fn(*operands)
        return expand_dims(out, -1) if keepdims else out
    if isinstance(axes, (str, bytes)) or not isinstance(axes, (list, tuple)):
        raise TypeError(f"{name}: axes must be a list of tuples of ints, got {axes!r}")
    n_out = out_core + (1 if keepdims else 0)
    if len(axes) not in (nin, nin + 1) or (len(axes) == nin and out_core):
        raise ValueError(f"{name}: axes should be a list with an entry for all {nin} inputs"
                         f"{'' if out_core else ' and optionally the output'}, got {len(axes)} entries")
    moved = []
    for i, (x, c, item) in enumerate(zip(operands, in_cores, axes)):
        core = _core_axes(name, i, item, c, x.ndim, "operand")
        perm = [d for d in range(x.ndim) if d not in core] + list(core)
        moved.append(transpose(x, perm) if perm != list(range(x.ndim)) else x)
    out = fn(*moved)
    if keepdims:
        out = expand_dims(out, -1)
    if len(axes) == nin + 1:
        core = _core_axes(name, 0, axes[nin], n_out, out.ndim, "output")
        rest = iter(range(out.ndim - n_out))
        src = dict(zip(core, range(out.ndim - n_out, out.ndim)))
        perm = [src[d] if d in src else next(rest) for d in range(out.ndim)]
        if perm != list(range(out.ndim)):
            out = transpose(out, perm)
    return out


@functools.lru_cache(maxsize=1024)
def _interned_dot(contracting, batch) -> DotGeneral:
    return DotGeneral(contracting, batch)


def dot_general_op(contracting: Any, batch: Any = ((), ())) -> DotGeneral:
    """The DotGeneral contracting and batching these axes: one instance per axes
    (a graph of many products shares it, so building, keying and lowering it
    handle the Op once)."""
    try:
        return _interned_dot(contracting, batch)
    except TypeError:  # unhashable axes (lists): a new instance
        return DotGeneral(contracting, batch)


#: ``a @ b`` of two matrices
_MATRIX_PRODUCT = dot_general_op(((1,), (0,)), ((), ()))


def matmul(a: Any, b: Any, *, axes: Any = None, axis: Any = None, keepdims: bool = False) -> Variable:
    """Matrix product, as numpy.matmul (the ``@`` operator).

    1-D operands are promoted to a row (``a``) or column (``b``) matrix and the
    added dim is removed from the result; leading dims are stacks of matrices
    that broadcast. 0-d operands are an error, as in NumPy. ``axes`` (NumPy's
    generalized-ufunc keyword) places the core dims: ``[(i, j), (k, l), (m, n)]``
    for the two operands and the result (an int or 1-tuple for a 1-D operand);
    ``axis`` and ``keepdims=True`` raise NumPy's TypeError (matmul's core dims are
    not one shared dim).
    """
    if (axes is None and axis is None and not keepdims and isinstance(a, Variable)
            and isinstance(b, Variable) and a.ndim == 2 and b.ndim == 2 and a.dtype == b.dtype):
        # two matrices of one dtype (the common case)
        if a.shape[1] != b.shape[0]:
            _check_contracting("matmul", a, b, [1], [0])  # raises unless a size is unknown
        return _MATRIX_PRODUCT(a, b)
    if axes is not None or axis is not None or keepdims:
        a, b = as_variable(a), as_variable(b)
        one = [int(x.ndim == 1) for x in (a, b)]
        return apply_core_axes("matmul", "(n?,k),(k,m?)->(n?,m?)", matmul, [a, b],
                               [2 - one[0], 2 - one[1]], 2 - sum(one), axes, axis, keepdims)
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
                     op=lambda: f"matmul: stacked matrices of {a.type} and {b.type}")
    return dot_general_op(((ca,), (cb,)), (batch_a, batch_b))(a, b)


def dot(a: Any, b: Any) -> Variable:
    """Dot product, as numpy.dot.

    0-d operands multiply; 1-D x 1-D is the inner product; otherwise the last
    axis of ``a`` contracts with the only axis of a 1-D ``b`` or with the
    second-to-last axis of ``b``, and the result has ``a``'s remaining dims
    followed by ``b``'s.
    """
    a, b = _promoted(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return dot_general_op(((), ()))(a, b)
    ca = a.ndim - 1
    cb = 0 if b.ndim == 1 else b.ndim - 2
    _check_contracting("dot", a, b, [ca], [cb])
    return dot_general_op(((ca,), (cb,)))(a, b)


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
    return dot_general_op((axes_a, axes_b))(a, b)


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
    the contraction runs pairwise, left to right, as dot_general chains; a label
    of one operand only is summed after its product, as NumPy sums products.
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

    # a label of one operand only is summed after the product, not before: NumPy
    # sums the products (with an empty private label the result is 0, not
    # 0 * sum(other); inf * 0 terms make nan where a sum first would not)
    x, ls = ops[0]
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
        batch = [lab for lab in ls if lab in ly and lab in later]
        contract = [lab for lab in ls if lab in ly and lab not in later]
        op = DotGeneral(([ls.index(l) for l in contract], [ly.index(l) for l in contract]),
                        ([ls.index(l) for l in batch], [ly.index(l) for l in batch]))
        x = op(x, y)
        ls = batch + [l for l in ls if l not in ly] + [l for l in ly if l not in ls]
        ls = list(dict.fromkeys(ls))  # (free labels are distinct; keeps order)
        x, ls = _sum_labels(x, ls, {lab for lab in ls if lab not in later})
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
    if n == 3:  # NumPy's shortcut associates (a @ a) @ a, which infinities and NaNs can tell
        return matmul(matmul(a, a), a)
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
            out = max_(a, axis=ax, initial=0)  # 0 over an empty axis, as NumPy (values >= 0)
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
        red = _max_or_zero if ord > 0 else min_
        s = sum_(a, axis=inner)
        out = red(s, axis=outer_ - 1 if outer_ > inner else outer_)
    elif ord in (2, -2, "nuc"):
        rest = [d for d in range(x.ndim) if d not in axes]
        sv = svdvals(transpose(x, rest + [r, c]))
        out = _max_or_zero(sv, axis=-1) if ord == 2 else min_(sv, axis=-1) if ord == -2 else sum_(sv, axis=-1)
    else:
        raise ValueError(f"norm: invalid norm order {ord!r} for matrices")
    return expand_dims(out, tuple(sorted(axes))) if keepdims else out


def _max_or_zero(x: Variable, axis: int) -> Variable:
    """The max over ``axis`` of non-negative values, 0 over an empty axis (NumPy's
    matrix norms of empty matrices; the min-based ones raise)."""
    if x.shape[axis] is None:  # maybe empty: the values are >= 0, so 0 is the identity
        return max_(x, axis=axis, initial=0)
    return sum_(x, axis=axis) if x.shape[axis] == 0 else max_(x, axis=axis)


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
                                 op=lambda: f"{self}: leading dims")
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
        return [np.asarray(o, dtype=v.dtype).reshape(v.type.shape) if v.type.is_static
                else np.asarray(o, dtype=v.dtype) for o, v in zip(outs, node.outputs)]


# --- derivatives of the decompositions -----------------------------------------------------
# jax's rules (jax/_src/lax/linalg.py, jax/_src/numpy/linalg.py): each ``pushforward`` is
# jax's JVP and each ``pullback`` its transpose under the pairing Re(sum(a * b)), with no
# conjugates (the transpose of ``t -> m @ t`` is ``c -> m^T @ c``), written out, or built by
# transposing the pushforward (``_transposed_pushforward``: QR, LU, LUFactor, Pinv).
# Ops that read one triangle of a matrix (Cholesky, Eigh, the triangular solvers)
# differentiate what they read: the other triangle gets no gradient. Rules that build
# triangle masks or identities need static matrix dims.

def _autodiff():
    # function-local: autodiff imports this package's elemwise/reduction/shape modules
    from .. import autodiff
    return autodiff


def _sum_to(g: Variable, x: Variable) -> Variable:
    return _autodiff().sum_to(g, x)


def _dynamic_core(node: Apply) -> UndefinedGradient | None:
    """An UndefinedGradient when a float input of ``node`` has unknown matrix dims."""
    for x, k in zip(node.inputs, node.op.core_ndims(node.inputs)):
        if is_inexact(x.dtype) and None in x.shape[x.ndim - k:]:
            return UndefinedGradient(f"its derivative needs static matrix dims, got {x.type}")
    return None


def _const(value: Any, dtype: np.dtype) -> Constant:
    return Constant(np.asarray(value, dtype=dtype))


def _as(x: Variable, dtype: np.dtype) -> Variable:
    return x if x.dtype == dtype else astype(x, dtype)


def _mT(x: Variable) -> Variable:
    n = x.ndim
    return transpose(x, list(range(n - 2)) + [n - 1, n - 2])


def _cj(x: Variable) -> Variable:
    return conj(x) if is_complex(x.dtype) else x


def _mH(x: Variable) -> Variable:
    return _cj(_mT(x))


def _masked(x: Variable, mask: np.ndarray) -> Variable:
    """``x`` where the constant bool ``mask`` (over its last two dims) holds, else 0."""
    return where(Constant(mask), x, _const(0, x.dtype))


def _tril(x: Variable, k: int = 0) -> Variable:
    return _masked(x, np.tri(x.shape[-2], x.shape[-1], k, dtype=bool))


def _triu(x: Variable, k: int = 0) -> Variable:
    return _masked(x, ~np.tri(x.shape[-2], x.shape[-1], k - 1, dtype=bool))


def _triangle(x: Variable, lower: bool, strict: bool = False) -> Variable:
    return _tril(x, -1 if strict else 0) if lower else _triu(x, 1 if strict else 0)


def _eye(n: int, m: int, dtype: np.dtype) -> Constant:
    return Constant(np.eye(n, m, dtype=dtype))


def _diag_part(x: Variable) -> Variable:
    """The diagonal of the last two (equal) dims."""
    return sum_(_masked(x, np.eye(x.shape[-1], dtype=bool)), axis=-1)


def _diag_matrix(v: Variable) -> Variable:
    """A stack of diagonal matrices with ``v`` (..., n) on their diagonals."""
    return multiply(expand_dims(v, -1), _eye(v.shape[-1], v.shape[-1], v.dtype))


def _cols(x: Variable, v: Variable) -> Variable:
    """``x @ diag(v)``: column j of ``x`` times ``v[..., j]``."""
    return multiply(x, expand_dims(_as(v, x.dtype), -2))


def _rows(x: Variable, v: Variable) -> Variable:
    """``diag(v) @ x``: row i of ``x`` times ``v[..., i]``."""
    return multiply(x, expand_dims(_as(v, x.dtype), -1))


def _i_imag(x: Variable) -> Variable:
    """``1j * imag(x)`` in ``x``'s complex dtype."""
    return multiply(astype(imag(x), x.dtype), _const(1j, x.dtype))


def _half_diagonal(x: Variable, lower: bool) -> Variable:
    """The lower (upper) triangle of ``x`` with its diagonal halved."""
    n = x.shape[-1]
    weights = np.ones((n, n)) - 0.5 * np.eye(n)
    return _triangle(multiply(x, _const(weights, x.dtype)), lower)


def _hermitian_from(t: Variable, lower: bool) -> Variable:
    """The Hermitian matrix an op reading the lower (upper) triangle of ``t`` sees: the
    strict triangle, its conjugate transpose and the real part of the diagonal (LAPACK
    ignores the diagonal's imaginary parts)."""
    s = _triangle(t, lower, strict=True)
    d = _diag_part(t)
    if is_complex(t.dtype):
        d = astype(real(d), t.dtype)
    return s + _mH(s) + _diag_matrix(d)


def _hermitian_part(x: Variable) -> Variable:
    """``(x + x^H) / 2``: its own transpose. The derivatives of the ops defined on
    Hermitian matrices (cholesky, eigh) see their input's Hermitian part, as jax's
    (``symmetrize_input=True``): a tangent or cotangent of the input is
    symmetrized, so gradients are Hermitian. Along Hermitian directions this is
    the derivative of the triangle NumPy reads; others leave the space these ops
    are defined on."""
    return (x + _mH(x)) * _const(np.asarray(0.5), x.dtype)


def _transposed_pushforward(node: Apply, cotangents: list[Variable | None]) -> list:
    """The pullback of ``node`` from its Op's pushforward, which is linear in the tangents:
    the vjp of the pushforward with respect to tangents whose values are never read
    (zeros)."""
    positions = [i for i, x in enumerate(node.inputs) if is_inexact(x.dtype)]
    ts = [zeros_like(node.inputs[i]) for i in positions]
    tangents: list[Variable | None] = [None] * len(node.inputs)
    for i, t in zip(positions, ts):
        tangents[i] = t
    outs = node.op.pushforward(node, tangents)
    result: list[Any] = [None] * len(node.inputs)
    used = [(o, c) for o, c in zip(outs, cotangents) if c is not None and o is not None]
    for o, _ in used:
        if isinstance(o, UndefinedGradient):
            for i in positions:
                result[i] = o
            return result
    if not used:
        return result
    grads = _autodiff().vjp([o for o, _ in used], ts, [c for _, c in used])
    for i, g in zip(positions, grads):
        result[i] = g
    return result


def _column(v: Variable, vector: bool) -> Variable:
    """A right-hand side as a (stack of) matrices: vectors become one-column matrices."""
    return expand_dims(v, -1) if vector else v


def _uncolumn(v: Variable, vector: bool) -> Variable:
    return squeeze(v, -1) if vector else v


def _safe_reciprocal(s: Variable) -> Variable:
    """1 / s where s != 0, else 0."""
    zero = astype(equal(s, _const(0, s.dtype)), s.dtype)
    return reciprocal(s + zero) - zero


def _thin_qr_jvp(q: Variable, r: Variable, dx: Variable) -> tuple[Variable, Variable]:
    """jax's JVP of ``x = q r`` with square ``r``: (dq, dr)."""
    dx_rinv = _mT(SolveTriangular(lower=False, trans=1)(r, _mT(dx)))   # dx r^-1
    qt = matmul(_mH(q), dx_rinv)
    low = _tril(qt, -1)
    do = low - _mH(low)  # skew-Hermitian, with the imaginary diagonal of qt for complex
    if is_complex(qt.dtype):
        do = do + _diag_matrix(_i_imag(_diag_part(qt)))
    return matmul(q, do - qt) + dx_rinv, matmul(qt - do, r)


def _lu_jvp(t: Variable, p: Variable, lower: Variable, upper: Variable) -> tuple[Variable, Variable]:
    """jax's JVP of ``p^T a = l u`` (De Hoog, Anderssen & Lukas): with l, u completed to
    square factors L (m x m), U (n x n) and X = L^-1 p^T da U^-1, the tangents of the
    (m x n) strict lower and upper parts: L tril(X, -1) and triu(X) U."""
    m, n = t.shape[-2:]
    k = min(m, n)
    dt = t.dtype
    lf, uf = lower, upper
    if m > k:
        lf = matmul(lower, _eye(k, m, dt)) + _const(np.diag([0] * k + [1] * (m - k)), dt)
    if n > k:
        uf = matmul(_eye(n, k, dt), upper) + _const(np.diag([0] * k + [1] * (n - k)), dt)
    la = SolveTriangular(lower=True, unit_diagonal=True)(lf, matmul(_mT(_as(p, dt)), t))
    x = _mT(SolveTriangular(lower=False, trans=1)(uf, _mT(la)))        # ... U^-1
    return matmul(lf, _tril(x, -1)), matmul(_triu(x), uf)


def _expm_frechet(a: Variable, e: Variable) -> Variable:
    """The Frechet derivative of expm at ``a`` along ``e`` (same shapes): the top-right
    block of expm([[a, e], [0, a]])."""
    n = a.shape[-1]
    top = concatenate([a, e], axis=-1)
    bottom = concatenate([zeros_like(a), a], axis=-1)
    big = Expm()(concatenate([top, bottom], axis=-2))
    return getitem(big, (Ellipsis, slice(None, n), slice(n, None)))


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

    # --- derivatives: with S = L L^H the Hermitian part of a (``_hermitian_part``, as
    # jax), dL = L Phi(L^-1 dS L^-H), Phi the lower triangle with its diagonal halved;
    # the pullback is S's cotangent L^-T Phi(L^T Lbar) conj(L)^-1, symmetrized.
    def _lower_factor(self, node: Apply) -> Variable:
        out = node.outputs[0]
        return _mH(out) if self.upper else out

    def pullback(self, node, cotangents):
        (ct,) = cotangents
        if ct is None:
            return [None]
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined]
        lf = self._lower_factor(node)
        lbar = _mH(ct) if self.upper else ct
        p = _half_diagonal(matmul(_mT(lf), lbar), lower=True)
        m = SolveTriangular(lower=True, trans=1)(lf, p)                 # L^-T P
        g = _mT(SolveTriangular(lower=True, trans=2)(lf, _mT(m)))       # ... conj(L)^-1
        return [_hermitian_part(g)]

    def pushforward(self, node, tangents):
        (t,) = tangents
        if t is None:
            return [None]
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined]
        lf = self._lower_factor(node)
        s = _hermitian_part(t)
        tmp = SolveTriangular(lower=True)(lf, s)                         # L^-1 S
        x = SolveTriangular(lower=True)(lf, _mH(tmp))                    # L^-1 S L^-H
        dl = matmul(lf, _half_diagonal(x, lower=True))
        return [_mH(dl) if self.upper else dl]


class QR(LinalgOp):
    """QR decomposition, as numpy.linalg.qr: mode 'reduced' (q, r), 'complete' (q, r),
    'r' or 'raw' (LAPACK geqrf's Householder form as NumPy returns it: ``h``, the
    reflectors below the diagonal and R on and above it, transposed to ``(N, M)``, and
    the scalar factors ``tau``, ``(min(M, N),)``)."""

    __props__ = ("mode",)
    square = ()

    def __init__(self, mode: str = "reduced"):
        if mode not in ("reduced", "complete", "r", "raw"):
            raise ValueError(f"QR: mode must be 'reduced', 'complete', 'r' or 'raw', got {mode!r}")
        self.mode = mode

    def core_types(self, dtype, core):
        m, n = core
        if self.mode == "raw":
            return [(dtype, (n, m)), (dtype, (_min(m, n),))]
        k = m if self.mode == "complete" else _min(m, n)
        r = (dtype, (k, n))
        return [r] if self.mode == "r" else [(dtype, (m, k)), r]

    def compute(self, a):
        out = np.linalg.qr(a, mode=self.mode)
        return (out,) if self.mode == "r" else tuple(out)

    # --- derivatives: jax's JVP (thin QR, the wide case through the leading square
    # block, complete Q of a tall matrix from its Householder structure); the pullback
    # transposes it.
    def pullback(self, node, cotangents):
        return _transposed_pushforward(node, cotangents)

    def pushforward(self, node, tangents):
        (t,), (a,) = tangents, node.inputs
        n_out = len(node.outputs)
        if t is None:
            return [None] * n_out
        if self.mode == "raw":
            return [UndefinedGradient("qr(mode='raw'): LAPACK's Householder form has no derivative here")] * n_out
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined] * n_out
        m, n = a.shape[-2:]
        q, r = (QR("reduced")(a) if self.mode == "r" else node.outputs)
        if m < n:  # a = q [r1 r2]: r1 from the square block, r2 = q^H a2
            a2 = getitem(a, (Ellipsis, slice(None), slice(m, None)))
            t1 = getitem(t, (Ellipsis, slice(None), slice(None, m)))
            t2 = getitem(t, (Ellipsis, slice(None), slice(m, None)))
            r1 = getitem(r, (Ellipsis, slice(None), slice(None, m)))
            dq, dr1 = _thin_qr_jvp(q, r1, t1)
            dr = concatenate([dr1, matmul(_mH(dq), a2) + matmul(_mH(q), t2)], axis=-1)
        elif self.mode != "complete" or m == n:
            dq, dr = _thin_qr_jvp(q, r, t)
        else:  # complete q of a tall matrix (arXiv:2409.13374, as jax)
            q_mn = getitem(q, (Ellipsis, slice(None), slice(None, n)))
            q_mp = getitem(q, (Ellipsis, slice(None), slice(n, None)))
            r_nn = getitem(r, (Ellipsis, slice(None, n), slice(None)))
            dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, t)
            q_nn = getitem(q_mn, (Ellipsis, slice(None, n), slice(None)))
            q_pn = getitem(q_mn, (Ellipsis, slice(n, None), slice(None)))
            dq_nn = getitem(dq_mn, (Ellipsis, slice(None, n), slice(None)))
            dq_pn = getitem(dq_mn, (Ellipsis, slice(n, None), slice(None)))
            z_pn_h = Solve()(_mH(q_nn - _eye(n, n, a.dtype)), _mH(q_pn))
            z_pn = _mH(z_pn_h)
            dq_mp = matmul(dq_mn, z_pn_h) - matmul(q_mn + matmul(q_mp, z_pn),
                                                    _mH(dq_pn - matmul(z_pn, dq_nn)))
            dq = concatenate([dq_mn, dq_mp], axis=-1)
            dr = matmul(_eye(m, n, a.dtype), dr_nn)
        return [dr] if self.mode == "r" else [dq, dr]


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

    # --- derivatives: jax's JVP of the thin SVD, with dS = U^H dA V: ds = Re diag(dS);
    # dU, dV from F = 1 / (s_j^2 - s_i^2) (distinct singular values; equal ones give
    # inf/nan as in jax) plus the parts outside the spans of U (tall) or V (wide).
    # U and V of a full SVD of a non-square matrix have none (jax has none either).
    def _thin(self, node: Apply) -> tuple[Variable, Variable, Variable]:
        m, n = node.inputs[0].shape[-2:]
        if self.compute_uv and (not self.full_matrices or m == n):
            u, s, vh = node.outputs
            return u, s, vh
        return tuple(SVD(False, True)(node.inputs[0]))

    def _uv_undefined(self, node: Apply) -> UndefinedGradient | None:
        m, n = node.inputs[0].shape[-2:]
        if self.compute_uv and self.full_matrices and m != n:
            return UndefinedGradient(
                f"u and vh of a full SVD of a non-square matrix ({node.inputs[0].type}) have "
                f"no derivative (the extra columns are not unique); use full_matrices=False"
            )
        return None

    def _f(self, s: Variable, dtype: np.dtype) -> Variable:
        """1 / (s_j^2 - s_i^2) off the diagonal, 0 on it (in ``dtype``)."""
        k = s.shape[-1]
        sj, si = expand_dims(s, -2), expand_dims(s, -1)
        one = _eye(k, k, s.dtype)
        return _as(reciprocal((sj + si) * (sj - si) + one) - one, dtype)

    def pullback(self, node, cotangents):
        a = node.inputs[0]
        if self.compute_uv:
            cu, cs, cvh = cotangents
        else:
            (cs,), cu, cvh = cotangents, None, None
        if cu is None and cs is None and cvh is None:
            return [None]
        undefined = _dynamic_core(node) or (
            self._uv_undefined(node) if cu is not None or cvh is not None else None)
        if undefined is not None:
            return [undefined]
        dt = a.dtype
        m, n = a.shape[-2:]
        u, s, vh = self._thin(node)
        v = _mH(vh)
        terms = []  # the cotangent of dS = U^H dA V
        if cs is not None:
            terms.append(_diag_matrix(_as(cs, dt)))
        if cu is not None or cvh is not None:
            f = self._f(s, dt)
            if cu is not None:
                zu = matmul(_mT(u), cu)
                wu = multiply(f, zu)
                terms.append(_cols(wu + _mH(wu), s))
                if is_complex(dt):  # the imaginary diagonal of U^H dU
                    q = _diag_matrix(_diag_part(zu) * _as(_safe_reciprocal(s), dt) * _const(0.5, dt))
                    terms.append(q - _mH(q))
            if cvh is not None:
                cv = _mH(cvh)
                wv = multiply(f, matmul(_mT(v), cv))
                terms.append(_rows(wv + _mH(wv), s))
        dsbar = terms[0]
        for term in terms[1:]:
            dsbar = dsbar + term
        g = matmul(matmul(_cj(u), dsbar), _mT(v))
        if cu is not None and m > n:    # dU += (I - U U^H) dA V / s
            y = _cols(cu, reciprocal(s))
            y = y - matmul(_cj(u), matmul(_mT(u), y))
            g = g + matmul(y, _mT(v))
        if cvh is not None and n > m:   # dV += (I - V V^H) dA^H U / s
            y = _cols(_mH(cvh), reciprocal(s))
            y = y - matmul(_cj(v), matmul(_mT(v), y))
            g = g + _mH(matmul(y, _mT(u)))
        return [g]

    def pushforward(self, node, tangents):
        (t,), a = tangents, node.inputs[0]
        n_out = len(node.outputs)
        if t is None:
            return [None] * n_out
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined] * n_out
        dt = a.dtype
        m, n = a.shape[-2:]
        u, s, vh = self._thin(node)
        v = _mH(vh)
        dsm = matmul(matmul(_mH(u), t), v)
        ds = _diag_part(dsm)
        ds = real(ds) if is_complex(dt) else ds
        if not self.compute_uv:
            return [ds]
        undefined = self._uv_undefined(node)
        if undefined is not None:
            return [undefined, ds, undefined]
        f = self._f(s, dt)
        dss, sds = _cols(dsm, s), _rows(dsm, s)
        inner_u = multiply(f, dss + _mH(dss))
        if is_complex(dt):
            inner_u = inner_u + _diag_matrix(
                _diag_part(dsm - _mH(dsm)) * _as(_safe_reciprocal(s), dt) * _const(0.5, dt))
        du = matmul(u, inner_u)
        dv = matmul(v, multiply(f, sds + _mH(sds)))
        if m > n:
            dav = matmul(t, v)
            du = du + _cols(dav - matmul(u, matmul(_mH(u), dav)), reciprocal(s))
        if n > m:
            dahu = matmul(_mH(t), u)
            dv = dv + _cols(dahu - matmul(v, matmul(vh, dahu)), reciprocal(s))
        return [du, ds, _mH(dv)]


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

    # --- derivatives: with S the Hermitian part of a (``_hermitian_part``, as jax) and
    # X = V^H dS V: dw = Re diag(X), dV = V (F * X), F = 1 / (w_j - w_i) off the
    # diagonal (degenerate eigenvalues give inf/nan, as in jax).
    def _vectors(self, node: Apply) -> tuple[Variable, Variable]:
        if self.compute_v:
            w, v = node.outputs
            return w, v
        w, v = Eigh(self.uplo, True)(node.inputs[0])
        return w, v

    @staticmethod
    def _f(w: Variable, dtype: np.dtype) -> Variable:
        n = w.shape[-1]
        one = _eye(n, n, w.dtype)
        return _as(reciprocal(expand_dims(w, -2) - expand_dims(w, -1) + one) - one, dtype)

    def pullback(self, node, cotangents):
        cw, cv = cotangents if self.compute_v else (cotangents[0], None)
        if cw is None and cv is None:
            return [None]
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined]
        w, v = self._vectors(node)
        xbar = None if cw is None else _diag_matrix(_as(cw, v.dtype))
        if cv is not None:
            term = multiply(self._f(w, v.dtype), matmul(_mT(v), cv))
            xbar = term if xbar is None else xbar + term
        g = matmul(matmul(_cj(v), xbar), _mT(v))
        return [_hermitian_part(g)]

    def pushforward(self, node, tangents):
        (t,) = tangents
        n_out = len(node.outputs)
        if t is None:
            return [None] * n_out
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined] * n_out
        w, v = self._vectors(node)
        x = matmul(matmul(_mH(v), _hermitian_part(t)), v)
        dw = _diag_part(x)
        dw = real(dw) if is_complex(dw.dtype) else dw
        if not self.compute_v:
            return [dw]
        return [dw, matmul(v, multiply(self._f(w, v.dtype), x))]


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

    # --- derivatives: the eigenvalues' (dw = diag(V^-1 dA V), distinct eigenvalues); the
    # eigenvectors have none, as in jax (each is fixed only up to a complex scale).
    @staticmethod
    def _vectors_undefined() -> UndefinedGradient:
        return UndefinedGradient(
            f"the eigenvectors of a general matrix have no derivative (each is fixed only "
            f"up to a complex scale); differentiate the eigenvalues (eigvals) or use eigh for "
            f"Hermitian matrices"
        )

    def _vectors(self, node: Apply) -> Variable:
        return node.outputs[1] if self.compute_v else Eig(True)(node.inputs[0])[1]

    def pullback(self, node, cotangents):
        cw, cv = cotangents if self.compute_v else (cotangents[0], None)
        a = node.inputs[0]
        if cv is not None:
            return [self._vectors_undefined()]
        if cw is None:
            return [None]
        v = self._vectors(node)
        g = Solve()(_mT(v), _mT(_cols(v, cw)))  # V^-T diag(cw) V^T
        return [g if is_complex(a.dtype) else astype(real(g), a.dtype)]

    def pushforward(self, node, tangents):
        (t,), a = tangents, node.inputs[0]
        if t is None:
            return [None] * len(node.outputs)
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined] * len(node.outputs)
        v = self._vectors(node)
        dw = _diag_part(matmul(Solve()(v, _as(t, v.dtype)), v))
        return [dw, self._vectors_undefined()] if self.compute_v else [dw]


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

    # --- derivatives: d(a^-1) = -a^-1 da a^-1
    def pullback(self, node, cotangents):
        (ct,), (y,) = cotangents, node.outputs
        if ct is None:
            return [None]
        yt = _mT(y)
        return [-matmul(matmul(yt, ct), yt)]

    def pushforward(self, node, tangents):
        (t,), (y,) = tangents, node.outputs
        return [None if t is None else -matmul(matmul(y, t), y)]


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

    # --- derivatives: jax's JVP (Golub & Pereyra), valid where the rank is locally constant:
    # dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P; the pullback transposes it.
    # With ``hermitian``, a is the Hermitian matrix read from its lower triangle.
    def pullback(self, node, cotangents):
        return _transposed_pushforward(node, cotangents)

    def pushforward(self, node, tangents):
        (t,), (a,), (p,) = tangents, node.inputs, node.outputs
        if t is None:
            return [None]
        if self.hermitian:
            undefined = _dynamic_core(node)
            if undefined is not None:
                return [undefined]
            a, t = _hermitian_from(a, lower=True), _hermitian_from(t, lower=True)
        th, ph = _mH(t), _mH(p)
        s = matmul(matmul(p, ph), th)
        r = matmul(matmul(th, ph), p)
        dp = (-matmul(matmul(p, t), p) + s - matmul(matmul(s, a), p)
              + r - matmul(matmul(p, a), r))
        return [dp]


class Det(LinalgOp):
    """Determinant, as numpy.linalg.det."""

    __props__ = ()

    def core_types(self, dtype, core):
        return [(dtype, ())]

    def compute(self, a):
        return np.linalg.det(a)

    # --- derivatives: d det(a) = det(a) tr(a^-1 da) (NaN for exactly singular matrices,
    # where jax's cofactor rule gives the adjugate)
    def pullback(self, node, cotangents):
        (ct,), (a,), (d,) = cotangents, node.inputs, node.outputs
        if ct is None:
            return [None]
        return [multiply(expand_dims(ct * d, (-2, -1)), _mT(Inv("nan")(a)))]

    def pushforward(self, node, tangents):
        (t,), (a,), (d,) = tangents, node.inputs, node.outputs
        if t is None:
            return [None]
        return [d * sum_(multiply(_mT(Inv("nan")(a)), t), axis=(-2, -1))]


class Slogdet(LinalgOp):
    """Sign and log of the absolute determinant, as numpy.linalg.slogdet
    (sign in the input's dtype, logabsdet real)."""

    __props__ = ()

    def core_types(self, dtype, core):
        return [(dtype, ()), (_real(dtype), ())]

    def compute(self, a):
        return tuple(np.linalg.slogdet(a))

    # --- derivatives: with tau = tr(a^-1 da), d logabsdet = Re(tau) and, for complex a,
    # d sign = 1j Im(tau) sign; a real sign has none
    def pullback(self, node, cotangents):
        (cs, cl), (a,), (sign, _) = cotangents, node.inputs, node.outputs
        dt = a.dtype
        c = None if cl is None else _as(cl, dt)
        if cs is not None and is_complex(dt):
            term = _i_imag(cs * sign)
            c = term if c is None else c + term
        if c is None:
            return [None]
        return [multiply(expand_dims(c, (-2, -1)), _mT(Inv("nan")(a)))]

    def pushforward(self, node, tangents):
        (t,), (a,), (sign, _) = tangents, node.inputs, node.outputs
        if t is None:
            return [None, None]
        tau = sum_(multiply(_mT(Inv("nan")(a)), t), axis=(-2, -1))
        if not is_complex(a.dtype):
            return [None, tau]
        return [multiply(_i_imag(tau), sign), real(tau)]


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

    # --- derivatives: x = a^-1 b: b's cotangent a^-T ct, a's -(a^-T ct) x^T. Vectors
    # go through as one-column matrices (a stack of vectors is not NumPy's 1-D b).
    def pullback(self, node, cotangents):
        (ct,), (a, b), (x,) = cotangents, node.inputs, node.outputs
        if ct is None:
            return [None, None]
        gb = Solve()(_mT(a), _column(ct, self.b_vector))
        ga = -matmul(gb, _mT(_column(x, self.b_vector)))
        return [_sum_to(ga, a), _sum_to(_uncolumn(gb, self.b_vector), b)]

    def pushforward(self, node, tangents):
        (ta, tb), (a, b), (x,) = tangents, node.inputs, node.outputs
        if ta is None and tb is None:
            return [None]
        rhs = None if tb is None else _column(tb, self.b_vector)
        if ta is not None:
            term = -matmul(ta, _column(x, self.b_vector))
            rhs = term if rhs is None else rhs + term
        return [_uncolumn(Solve()(a, rhs), self.b_vector)]


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

    # --- derivatives: x = op(a)^-1 b: b's cotangent op(a)^-T ct, op(a)'s -(op(a)^-T ct) x^T,
    # folded back through op and onto the triangle read (without a unit diagonal).
    def _read(self, t: Variable) -> Variable:
        return _triangle(t, self.lower, strict=self.unit_diagonal)

    def _op(self, m: Variable) -> Variable:
        return m if self.trans == 0 else _mT(m) if self.trans == 1 else _mH(m)

    def pullback(self, node, cotangents):
        (ct,), (a, b), (x,) = cotangents, node.inputs, node.outputs
        if ct is None:
            return [None, None]
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined, undefined]
        ct = _column(ct, self.b_vector)
        if self.trans == 2:  # (a^H)^-T = conj(a)^-1
            gb = _cj(SolveTriangular(self.lower, 0, self.unit_diagonal)(a, _cj(ct)))
        else:
            gb = SolveTriangular(self.lower, 1 - self.trans, self.unit_diagonal)(a, ct)
        g_op = -matmul(gb, _mT(_column(x, self.b_vector)))
        ga = self._read(self._op(g_op))
        return [_sum_to(ga, a), _sum_to(_uncolumn(gb, self.b_vector), b)]

    def pushforward(self, node, tangents):
        (ta, tb), (a, b), (x,) = tangents, node.inputs, node.outputs
        if ta is None and tb is None:
            return [None]
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined]
        rhs = None if tb is None else _column(tb, self.b_vector)
        if ta is not None:
            term = -matmul(self._op(self._read(ta)), _column(x, self.b_vector))
            rhs = term if rhs is None else rhs + term
        out = SolveTriangular(self.lower, self.trans, self.unit_diagonal)(a, rhs)
        return [_uncolumn(out, self.b_vector)]


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

    # --- derivatives: x = A^-1 b with A = C C^H (lower) or C^H C, C the triangle of c:
    # b's cotangent A^-T ct = conj(A^-1 conj(ct)), A's G = -(A^-T ct) x^T, and C's
    # (G + G^H) conj(C) (lower) or conj(C) (G + G^H) on the triangle read.
    def pullback(self, node, cotangents):
        (ct,), (c, b), (x,) = cotangents, node.inputs, node.outputs
        if ct is None:
            return [None, None]
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined, undefined]
        gb = _cj(ChoSolve(self.lower)(c, _cj(_column(ct, self.b_vector))))
        ga = -matmul(gb, _mT(_column(x, self.b_vector)))
        sym, cc = ga + _mH(ga), _cj(_triangle(c, self.lower))
        gc = _triangle(matmul(sym, cc) if self.lower else matmul(cc, sym), self.lower)
        return [_sum_to(gc, c), _sum_to(_uncolumn(gb, self.b_vector), b)]

    def pushforward(self, node, tangents):
        (tc, tb), (c, b), (x,) = tangents, node.inputs, node.outputs
        if tc is None and tb is None:
            return [None]
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined]
        rhs = None if tb is None else _column(tb, self.b_vector)
        if tc is not None:  # dA x with dA = dC C^H + C dC^H (lower) or dC^H C + C^H dC
            cm, dc, xc = _triangle(c, self.lower), _triangle(tc, self.lower), _column(x, self.b_vector)
            if self.lower:
                dax = matmul(dc, matmul(_mH(cm), xc)) + matmul(cm, matmul(_mH(dc), xc))
            else:
                dax = matmul(_mH(dc), matmul(cm, xc)) + matmul(_mH(cm), matmul(dc, xc))
            rhs = -dax if rhs is None else rhs - dax
        return [_uncolumn(ChoSolve(self.lower)(c, rhs), self.b_vector)]


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

    # --- derivatives: jax's JVP of the packed factors (see ``_lu_jvp``; the permutation
    # comes from an LU node of the same matrix, whose pivoting is the same); the pivots
    # have none. The pullback transposes it.
    def pullback(self, node, cotangents):
        return _transposed_pushforward(node, cotangents)

    def pushforward(self, node, tangents):
        (t,), (a,), (lu_, _) = tangents, node.inputs, node.outputs
        if t is None:
            return [None, None]
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [undefined, None]
        m, n = a.shape[-2:]
        k = min(m, n)
        p = LU()(a)[0]
        lower = _tril(matmul(lu_, _eye(n, k, a.dtype)), -1) + _eye(m, k, a.dtype)
        upper = _triu(matmul(_eye(k, m, a.dtype), lu_))
        dl, du = _lu_jvp(t, p, lower, upper)
        return [dl + du, None]


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

    # --- derivatives: jax's JVP (see ``_lu_jvp``); p has none. The pullback transposes it.
    def pullback(self, node, cotangents):
        return _transposed_pushforward(node, cotangents)

    def pushforward(self, node, tangents):
        (t,), (a,), (p, lower, upper) = tangents, node.inputs, node.outputs
        if t is None:
            return [None, None, None]
        undefined = _dynamic_core(node)
        if undefined is not None:
            return [None, undefined, undefined]
        m, n = a.shape[-2:]
        k = min(m, n)
        dl, du = _lu_jvp(t, p, lower, upper)
        return [None, matmul(dl, _eye(n, k, a.dtype)), matmul(_eye(k, m, a.dtype), du)]


class Expm(LinalgOp):
    """Matrix exponential, as scipy.linalg.expm."""

    __props__ = ()

    def core_types(self, dtype, core):
        return [(dtype, core)]

    def compute(self, a):
        import scipy.linalg
        return _batched(scipy.linalg.expm, [a], [2], 1)

    # --- derivatives: the Frechet derivative L(a, e), the top-right block of
    # expm([[a, e], [0, a]]); its transpose is L(a^T, .).
    def pullback(self, node, cotangents):
        (ct,), (a,) = cotangents, node.inputs
        if ct is None:
            return [None]
        undefined = _dynamic_core(node)
        return [undefined if undefined is not None else _expm_frechet(_mT(a), ct)]

    def pushforward(self, node, tangents):
        (t,), (a,) = tangents, node.inputs
        if t is None:
            return [None]
        undefined = _dynamic_core(node)
        return [undefined if undefined is not None else _expm_frechet(a, t)]


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

    # --- derivatives: a dx + dx b = dq - da x - x db; the transpose of
    # q -> solve_sylvester(a, b, q) is z -> solve_sylvester(a^T, b^T, z).
    def pullback(self, node, cotangents):
        (ct,), (a, b, q), (x,) = cotangents, node.inputs, node.outputs
        if ct is None:
            return [None, None, None]
        z = SolveSylvester()(_mT(a), _mT(b), ct)
        return [_sum_to(-matmul(z, _mT(x)), a), _sum_to(-matmul(_mT(x), z), b), _sum_to(z, q)]

    def pushforward(self, node, tangents):
        (ta, tb, tq), (a, b, q), (x,) = tangents, node.inputs, node.outputs
        terms = ([] if tq is None else [tq]) + ([] if ta is None else [-matmul(ta, x)]) \
            + ([] if tb is None else [-matmul(x, tb)])
        if not terms:
            return [None]
        rhs = terms[0]
        for term in terms[1:]:
            rhs = rhs + term
        return [SolveSylvester()(a, b, rhs)]


class PivotedQR(LinalgOp):
    """QR decomposition with column pivoting, as scipy.linalg.qr(a, pivoting=True):
    ``a[..., :, p] = q @ r`` with ``|r[0, 0]| >= |r[1, 1]| >= ...``; the modes are
    numpy.linalg.qr's ('reduced': scipy's 'economic', 'complete': 'full', 'r': the
    reduced r), ``p`` (int32) the column permutation. No derivative (the permutation
    is piecewise constant, the factors are not differentiated here)."""

    __props__ = ("mode",)
    square = ()

    def __init__(self, mode: str = "reduced"):
        if mode not in ("reduced", "complete", "r", "raw"):
            raise ValueError(f"PivotedQR: mode must be 'reduced', 'complete', 'r' or 'raw', got {mode!r}")
        self.mode = mode

    def core_types(self, dtype, core):
        # QR's results (the same modes), then the permutation; 'raw' is scipy's
        # ((h, tau), r, p): geqp3's (M, N) result, its scalar factors and the reduced r
        p = (DTYPES["int32"], (core[1],))
        if self.mode == "raw":
            m, n = core
            k = _min(m, n)
            return [(dtype, core), (dtype, (k,)), (dtype, (k, n)), p]
        return QR.core_types(self, dtype, core) + [p]

    def compute(self, a):
        import scipy.linalg
        mode = {"reduced": "economic", "complete": "full", "r": "r", "raw": "raw"}[self.mode]
        k = min(a.shape[-2:])

        def one(m):
            out = scipy.linalg.qr(m, mode=mode, pivoting=True, check_finite=False)
            if self.mode == "r":  # scipy's 'r' is the complete r
                return out[0][:k], out[1]
            if self.mode == "raw":
                (h, tau), r, p = out
                return h, tau, r, p
            return tuple(out)
        return _batched(one, [a], [2], {"r": 2, "raw": 4}.get(self.mode, 3))


class Schur(LinalgOp):
    """Schur decomposition, as scipy.linalg.schur: ``a = z @ t @ z^H`` with ``z``
    unitary and ``t`` upper triangular, or quasi upper triangular (2x2 diagonal blocks
    for complex conjugate eigenvalue pairs) for ``output="real"`` of a real matrix; a
    real matrix with ``output="complex"`` gives complex ``t`` and ``z`` (its complex
    Schur form), a complex one is complex either way. A matrix with a non-finite entry
    gives NaNs (scipy raises). No derivative (as jax: the Schur vectors are not unique)."""

    __props__ = ("output",)

    def __init__(self, output: str = "real"):
        if output not in ("real", "complex"):
            raise ValueError(f"Schur: output must be 'real' or 'complex', got {output!r}")
        self.output = output

    def core_types(self, dtype, core):
        dt = _complex(dtype) if self.output == "complex" else dtype
        return [(dt, core), (dt, core)]

    def compute(self, a):
        import scipy.linalg
        dt = _complex(a.dtype) if self.output == "complex" else a.dtype

        def one(m):
            if not np.isfinite(m).all():
                nan = np.full(m.shape, np.nan, dt)
                return nan, nan.copy()
            t, z = scipy.linalg.schur(m, output=self.output, check_finite=False)
            return t.astype(dt), z.astype(dt)
        return _batched(one, [a], [2], 2)


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


def qr(a: Any, mode: str = "reduced", pivoting: bool = False):
    """QR decomposition, as numpy.linalg.qr: ``[q, r]`` (mode 'reduced'/'complete'), ``r``
    or ``[h, tau]`` (mode 'raw': LAPACK's Householder form, ``h`` of shape (N, M) as NumPy's).
    ``pivoting=True``: with column pivoting, as scipy.linalg.qr(a, pivoting=True):
    ``[q, r, p]``, ``[r, p]`` (mode 'r'; the reduced r) or ``[h, tau, r, p]`` (mode 'raw':
    scipy's ``((h, tau), r, p)``, ``h`` of shape (M, N), ``r`` the reduced r) with
    ``a[..., :, p] = q @ r`` (``p``: int32)."""
    if pivoting:
        return PivotedQR(mode)(_lin(a, "qr"))
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


def schur(a: Any, output: str = "real"):
    """``[t, z]`` with ``a = z @ t @ z^H``, as scipy.linalg.schur (``output`` 'real': t quasi
    upper triangular for real ``a``; 'complex': upper triangular, complex)."""
    return Schur(output)(_lin(a, "schur"))
