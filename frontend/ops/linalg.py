"""Linear algebra products: ``matmul``, ``dot`` and ``tensordot``.

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
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from ..graph import Apply, Op, Variable
from ..types import DTYPES, TensorType
from .basic import as_variable, broadcast_shapes, normalize_axes, result_type

__all__ = ["DotGeneral", "matmul", "dot", "tensordot"]

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
