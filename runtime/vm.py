"""The small-graph executor: a graph with static shapes run on the host by a C loop.

PJRT's per-call floor on the CPU (about 9 us to execute a program on device arrays,
plus about 2 us per NumPy argument moved in and each result moved out) is most of a
call when a graph is small: a model's log-density on a few hundred numbers costs
PJRT 30-60 us where the arithmetic takes 2. ``assemble(graph)`` turns a graph whose
every node it knows into a ``Program`` of strided array instructions (``_vm.c``): the
arguments are read in place, reshapes, transposes, broadcasts and basic slices are
views (no instruction), and a call allocates its results and reuses one scratch arena
(temps share its bytes once no instruction reads them: ``pack_arena``). Nothing is
compiled: assembling takes about a millisecond.

What it runs (anything else raises ``Unsupported`` naming the first node it cannot
take, and the graph goes to XLA as usual):

- float64, float32, int64, int32 and bool values of static shapes (rank <= 16);
- elementwise ops (the tables below), ``Select``, ``Cast``;
- ``Sum``, ``Prod``, ``Max``, ``Min``, ``All``, ``Any`` over any axes;
- ``DotGeneral`` (batch dims broadcast), float and integer;
- ``Reshape``, ``Transpose``, ``BroadcastTo``, ``ExpandDims``, ``Squeeze``,
  ``SpecifyShape``, ``Subtensor``, ``Concatenate``;
- ``AdvancedSubtensor`` and ``AdvancedIncSubtensor`` (every mode; duplicate indices
  accumulate, ``set`` keeps the last write) with up to six index arrays (int64 or int32,
  broadcast together; ints among them are 0-d arrays) and slices elsewhere, no new
  axes: NumPy's rule places the broadcast index shape where the indexed dims are when
  they are adjacent, first otherwise; an index out of range raises ``IndexError``, as
  ``perform`` does (a gather or update of no elements at a non-empty index is refused:
  it checks no index); ``AdvancedIncSubtensor`` of a basic index (slices, ints);
- ``CumOp`` of modes ``add`` and ``mul`` (cumsum, cumprod) along any axis or of the
  flattened input, as NumPy's: from the first element, in order, float32 rounding at
  each step;
- ``Softmax`` and ``LogSoftmax`` (float);
- ``Cholesky`` and ``SolveTriangular`` (every ``lower``, ``trans``, ``unit_diagonal``;
  ``b`` a vector or matrices) and ``ChoSolve``, float64 and float32 (computed in double),
  batch dims broadcast, one matrix at a time: unblocked Cholesky and substitution. A
  matrix that is not positive definite, or a zero on a triangular solve's diagonal,
  gives what compiled code gives (a factor of NaNs; infinities and NaNs), not
  ``perform``'s numpy.linalg.LinAlgError, unless ``assemble(..., linalg_errors="raise")``
  (``ChoSolve`` never checks, as ``perform``'s potrs); a NaN pivot gives NaNs from it
  on, as LAPACK's;
- any node whose inputs are all constants or computed from constants only, and nodes
  of no inputs (``zeros``, ``full``, ``arange``, ``eye``): evaluated once, by ``perform``.

Inputs, constants and results count as values too: each must have rank <= 16 and at
most ``MAX_ELEMENTS`` elements.

Semantics are ``perform``'s (NumPy's): float64 exp, log, log1p, expm1, the trigonometric
and hyperbolic functions and their inverses, exp2, log2, log10 and cbrt run NumPy's own
inner loops (its SIMD ones: NumPy's numbers, bit for bit); other floats compute in double
and round to the result's dtype, integers wrap around, ``maximum``/``max`` propagate NaN, ``x ** c`` of
a scalar exponent 2, 0.5 or -1 is NumPy's ``x * x``, ``sqrt(x)``, ``1 / x``. Sums add in
order (NumPy adds pairwise) and the linear algebra is unblocked (LAPACK's is blocked,
float32 LAPACK computes in float32): results may differ from NumPy's in the last bits.
"""

from __future__ import annotations

import bisect
import struct
from typing import Any, Sequence

import numpy as np

from ..frontend.graph import Constant, Graph, Variable
from ..frontend.registry import OpRegistry
from ..frontend.ops import construct as cs
from ..frontend.ops import elemwise as ew
from ..frontend.ops import indexing as ix
from ..frontend.ops import linalg as la
from ..frontend.ops import reduction as rd
from ..frontend.ops import shape as sh
from ..frontend.ops import special as sp

try:
    from . import _vm
except ImportError:  # the extension is optional (setup.py)
    _vm = None

__all__ = ["AVAILABLE", "Unsupported", "Program", "assemble", "MAX_ELEMENTS", "MAX_WORK"]

#: True when the C executor is built
AVAILABLE = _vm is not None
#: the largest number of elements of any value a program holds (larger graphs are XLA's:
#: its fused, vectorized and threaded kernels win there)
MAX_ELEMENTS = 1 << 16
#: the most elementary operations per call for which the PyTensor mode's ``executor="auto"``
#: picks the executor (measured: a GP log-density on 50 points, ~170k, runs faster here
#: than through XLA; its gradient, ~1.3M, slower)
MAX_WORK = 250_000

OP_EW, OP_FILL, OP_REDUCE, OP_DOT, OP_GATHER, OP_SCATTER, OP_CUM, OP_CHOL, OP_TRSM = 1, 2, 3, 4, 5, 6, 7, 8, 9
CL_F, CL_I = 0, 1
#: the instructions whose iteration order does not matter (up to the order of a sum)
_REORDERED = frozenset((OP_EW, OP_FILL, OP_REDUCE, OP_DOT))
_DT = {np.dtype(np.float64): 0, np.dtype(np.float32): 1, np.dtype(np.int64): 2, np.dtype(np.int32): 3,
       np.dtype(np.bool_): 4}
_FLOATS = frozenset((np.dtype(np.float64), np.dtype(np.float32)))

# elementwise functions: keep in step with _vm.c's enum
_UNARY = {
    ew.Positive: 0, ew.Negative: 1, ew.Abs: 2, ew.Sign: 3, ew.Exp: 4, ew.Log: 5, ew.Log1p: 6, ew.Expm1: 7,
    ew.Sqrt: 8, ew.Sin: 9, ew.Cos: 10, ew.Tan: 11, ew.Tanh: 12, ew.Floor: 13, ew.Ceil: 14, ew.Round: 15,
    ew.IsNan: 16, ew.IsFinite: 17, ew.IsInf: 18, ew.Square: 19, ew.Reciprocal: 20, ew.Rsqrt: 21,
    ew.Sigmoid: 22, ew.Erf: 23, sp.Erfc: 24, ew.Arcsin: 25, ew.Arccos: 26, ew.Arctan: 27, ew.Sinh: 28,
    ew.Cosh: 29, ew.Arcsinh: 30, ew.Arccosh: 31, ew.Arctanh: 32, ew.Exp2: 33, ew.Log2: 34, ew.Log10: 35,
    ew.Cbrt: 36, ew.Trunc: 37, ew.Signbit: 38, sp.Gammaln: 39, sp.Softplus: 40, ew.LogicalNot: 41,
}
_BINARY = {
    ew.Add: 64, ew.Subtract: 65, ew.Multiply: 66, ew.Divide: 67, ew.Power: 68, ew.Maximum: 69,
    ew.Minimum: 70, ew.Equal: 71, ew.NotEqual: 72, ew.Less: 73, ew.LessEqual: 74, ew.Greater: 75,
    ew.GreaterEqual: 76, ew.Arctan2: 77, ew.Hypot: 78, ew.Copysign: 79, ew.Logaddexp: 80, ew.Fmax: 81,
    ew.Fmin: 82, ew.LogicalAnd: 83, ew.LogicalOr: 84, ew.LogicalXor: 85, ew.BitwiseAnd: 86,
    ew.BitwiseOr: 87, ew.BitwiseXor: 88,
}
_SELECT = 128
_SUB, _EXP = _BINARY[ew.Subtract], _UNARY[ew.Exp]
#: what integer and bool operands compute (the rest are float functions)
_INTEGER_OK = frozenset((0, 1, 2, 3, 16, 17, 18, 19, 38, 41, 64, 65, 66, 69, 70, 71, 72, 73, 74, 75, 76,
                         83, 84, 85, 86, 87, 88))
_REDUCE = {rd.Sum: 0, rd.Prod: 1, rd.Max: 2, rd.Min: 3, rd.All: 4, rd.Any: 5}
_SCATTER = {"set": 0, "add": 1, "mul": 2, "min": 3, "max": 4}
#: the elementwise op of each update mode but "set"
_COMBINE = {"add": ew.Add, "mul": ew.Multiply, "min": ew.Minimum, "max": ew.Maximum}


class Unsupported(Exception):
    """The graph has a node, dtype or size the executor does not take (the message says which)."""


class _View:
    """A strided view of a slot: where a value lives during a call."""

    __slots__ = ("slot", "offset", "dtype", "shape", "strides")

    def __init__(self, slot: tuple, offset: int, dtype: np.dtype, shape: tuple, strides: tuple):
        self.slot, self.offset, self.dtype, self.shape, self.strides = slot, offset, dtype, shape, strides

    def contiguous(self) -> bool:
        return self.strides == _c_strides(self.shape, self.dtype.itemsize)

    def with_(self, offset=None, shape=None, strides=None) -> "_View":
        return _View(self.slot, self.offset if offset is None else offset, self.dtype,
                     self.shape if shape is None else tuple(shape),
                     self.strides if strides is None else tuple(strides))


def _c_strides(shape: Sequence[int], itemsize: int) -> tuple:
    out, acc = [], itemsize
    for d in reversed(shape):
        out.append(acc if d != 1 else 0)
        acc *= max(d, 1)
    return tuple(reversed(out))


def _collapse(shape: Sequence[int], strides: list) -> tuple[tuple, list]:
    """The iteration space ``shape`` with its size-1 dims dropped and each dim merged into
    the next where every operand steps through both as through one (so contiguous
    operands run as one long inner loop)."""
    if any(n == 0 for n in shape):
        return tuple(shape), strides
    keep = [d for d, n in enumerate(shape) if n != 1]
    dims = [shape[d] for d in keep]
    sts = [[st[d] for d in keep] for st in strides]
    d = len(dims) - 2
    while d >= 0:
        if all(st[d] == st[d + 1] * dims[d + 1] for st in sts):
            dims[d] *= dims[d + 1]
            del dims[d + 1]
            for st in sts:
                st[d] = st[d + 1]
                del st[d + 1]
        d -= 1
    return tuple(dims), [tuple(st) for st in sts]


def _check_value(shape: Sequence[int], what: str):
    """Unsupported unless a value of ``shape`` is one a program holds (rank, size)."""
    if len(shape) > 16:
        raise Unsupported(f"{what} of rank {len(shape)}")
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if size > MAX_ELEMENTS:
        raise Unsupported(f"{what} of {size} elements (more than {MAX_ELEMENTS})")


def _broadcast_strides(v: _View, shape: tuple) -> tuple:
    """``v``'s strides over ``shape`` (right-aligned; stretched dims get stride 0)."""
    pad = len(shape) - len(v.shape)
    out = [0] * pad
    for d, (n, s) in enumerate(zip(v.shape, v.strides)):
        out.append(0 if n == 1 and shape[pad + d] != 1 else s)
    return tuple(out)


class _Assembler:
    def __init__(self, graph: Graph, linalg_errors: str = "nan"):
        self.graph = graph
        self.raise_linalg_errors = linalg_errors == "raise"
        self.values: dict[int, _View] = {}
        self.consts: list[np.ndarray] = []
        self.folded: dict[int, np.ndarray] = {}  # values of nodes evaluated on constants
        self.arena = 0
        #: (offset, bytes) of each temp in the arena, in allocation order (``pack_arena``)
        self.blocks: list[tuple[int, int]] = []
        self.code: list[tuple] = []  # (op, sub, shape, [(view, strides)], extra)

    # --- storage -----------------------------------------------------------------------
    def const(self, data: np.ndarray) -> _View:
        arr = np.require(data, requirements="C")  # (ascontiguousarray makes 0-d arrays 1-d)
        if arr.dtype not in _DT:
            raise Unsupported(f"a constant of dtype {arr.dtype}")
        _check_value(arr.shape, "a constant")
        self.consts.append(arr)
        return _View(("const", len(self.consts) - 1), 0, arr.dtype, arr.shape,
                     _c_strides(arr.shape, arr.dtype.itemsize))

    def temp(self, dtype: np.dtype, shape: tuple) -> _View:
        dtype = np.dtype(dtype)
        if dtype not in _DT:
            raise Unsupported(f"a value of dtype {dtype}")
        _check_value(shape, "a value")
        size = int(np.prod(shape, dtype=np.int64)) if shape else 1
        offset = self.arena
        self.arena += (size * dtype.itemsize + 15) // 16 * 16
        self.blocks.append((offset, self.arena - offset))
        return _View(("arena",), offset, dtype, tuple(shape), _c_strides(shape, dtype.itemsize))

    def pack_arena(self) -> None:
        """Reuses scratch memory: each temp goes where temps no instruction reads any more
        were (first use order, best fit), so that a program's values stay in the caches."""
        starts = [b[0] for b in self.blocks]

        def block_of(view: _View) -> int:
            return bisect.bisect_right(starts, view.offset) - 1

        views: dict[int, tuple[_View, int]] = {}
        first: dict[int, int] = {}
        last: dict[int, int] = {}
        for k, (_, _, _, operands, _) in enumerate(self.code):
            for view, _ in operands:
                if view.slot[0] == "arena":
                    b = block_of(view)
                    views.setdefault(id(view), (view, b))
                    first.setdefault(b, k)
                    last[b] = k
        placed: dict[int, int] = {}
        active: list[tuple[int, int, int]] = []  # (last use, offset, size)
        free: list[tuple[int, int]] = []  # (offset, size)
        top = 0
        for b in sorted(first, key=first.__getitem__):
            free += [(off, sz) for end, off, sz in active if end < first[b]]
            active = [entry for entry in active if entry[0] >= first[b]]
            size = self.blocks[b][1]
            fits = [i for i, (_, sz) in enumerate(free) if sz >= size]
            if fits:
                i = min(fits, key=lambda j: free[j][1])
                off, sz = free.pop(i)
                if sz > size:
                    free.append((off + size, sz - size))
            else:
                off, top = top, top + size
            placed[b] = off
            active.append((last[b], off, size))
        for view, b in views.values():
            view.offset = view.offset - self.blocks[b][0] + placed[b]
        self.arena = top

    def view_of(self, v: Variable) -> _View:
        view = self.values.get(id(v))
        if view is None:  # a constant, or a value folded from constants: a constant slot
            data = v.data if isinstance(v, Constant) else self.folded[id(v)]
            view = self.values[id(v)] = self.const(np.asarray(data, dtype=v.dtype))
        return view

    def is_constant(self, v: Variable) -> bool:
        return isinstance(v, Constant) or id(v) in self.folded

    def emit(self, op: int, sub: int, shape: tuple, operands: list, extra: Sequence[int] = ()):
        shape, strides = _collapse(shape, [st for _, st in operands])
        if op in _REORDERED and len(shape) >= 2 and shape[-1] < 16:
            # a short inner dim costs a row step per few elements: put the longest dim
            # innermost (these instructions give the same result in any order)
            d = max(range(len(shape)), key=lambda k: shape[k])
            if shape[d] >= 4 * shape[-1]:
                order = [k for k in range(len(shape)) if k != d] + [d]
                shape = tuple(shape[k] for k in order)
                strides = [tuple(st[k] for k in order) for st in strides]
        if len(shape) > 16:
            raise Unsupported(f"a value of rank {len(shape)}")
        self.code.append((op, sub, shape, [(v, st) for (v, _), st in zip(operands, strides)], tuple(extra)))

    def copy(self, src: _View, dst: _View):
        # floats convert to an integer by truncation (CL_I), to bool by ``!= 0`` (CL_F)
        cl = CL_F if dst.dtype in _FLOATS or (dst.dtype == np.bool_ and src.dtype in _FLOATS) else CL_I
        self.emit(OP_EW, 0, dst.shape, [(dst, dst.strides), (src, _broadcast_strides(src, dst.shape))], (cl,))

    def contiguous(self, v: _View) -> _View:
        if v.contiguous():
            return v
        out = self.temp(v.dtype, v.shape)
        self.copy(v, out)
        return out

    # --- nodes --------------------------------------------------------------------------
    def run(self):
        g = self.graph
        for i, v in enumerate(g.inputs):
            t = v.type
            if not t.is_static:
                raise Unsupported(f"input {i} of type {t} (a dim unknown)")
            if np.dtype(t.dtype) not in _DT:
                raise Unsupported(f"input {i} of dtype {t.dtype}")
            shape = tuple(t.shape)
            _check_value(shape, f"input {i}")
            self.values[id(v)] = _View(("in", i), 0, np.dtype(t.dtype), shape,
                                       _c_strides(shape, np.dtype(t.dtype).itemsize))
        for node in g.toposort():
            for o in node.outputs:
                if not o.type.is_static:
                    raise Unsupported(f"{node.op}: an output of type {o.type}")
            if all(self.is_constant(v) for v in node.inputs) and not node.op.inner_graphs:
                self.fold(node)
                continue
            method = _NODES.lookup(type(node.op))
            if method is None:
                raise Unsupported(f"no executor instruction for {node.op}")
            method(self, node)
        outs = []
        for j, v in enumerate(g.outputs):
            _check_value(tuple(v.type.shape), f"output {j}")
            src = self.view_of(v)
            dst = _View(("out", j), 0, np.dtype(v.dtype), tuple(v.type.shape),
                        _c_strides(tuple(v.type.shape), np.dtype(v.dtype).itemsize))
            self.copy(src, dst)
            outs.append(dst)
        return outs

    def fold(self, node):
        try:
            values = node.op.perform(node, [np.asarray(v.data) if isinstance(v, Constant) else self.folded[id(v)]
                                            for v in node.inputs])
        except Exception as e:  # noqa: BLE001 - a constant node that fails runs where it fails
            raise Unsupported(f"{node.op} on constants: {e}") from None
        for o, val in zip(node.outputs, values):  # (a constant slot once an instruction reads it)
            self.folded[id(o)] = np.asarray(val, dtype=o.dtype).reshape(o.type.shape)

    def elemwise(self, node):
        cls = type(node.op)
        sub = _UNARY.get(cls, _BINARY.get(cls))
        if sub is None:
            raise Unsupported(f"no executor instruction for {node.op}")
        dt = np.dtype(node.inputs[0].dtype)
        cl = CL_F if dt in _FLOATS else CL_I
        if dt not in _DT or (cl == CL_I and sub not in _INTEGER_OK):
            raise Unsupported(f"{node.op} on {dt}")
        self._ew(node, sub, cl)

    def _ew(self, node, sub: int, cl: int):
        o = node.outputs[0]
        out = self.temp(o.dtype, tuple(o.type.shape))
        ops = [(out, out.strides)]
        for v in node.inputs:
            view = self.view_of(v)
            ops.append((view, _broadcast_strides(view, out.shape)))
        self.emit(OP_EW, sub, out.shape, ops, (cl,))
        self.values[id(o)] = out

    def select(self, node):
        dt = np.dtype(node.outputs[0].dtype)
        self._ew(node, _SELECT, CL_F if dt in _FLOATS else CL_I)

    def cast(self, node):
        o = node.outputs[0]
        src = self.view_of(node.inputs[0])
        if src.dtype not in _DT or np.dtype(o.dtype) not in _DT:
            raise Unsupported(f"{node.op} from {src.dtype}")
        out = self.temp(o.dtype, tuple(o.type.shape))
        self.copy(src, out)
        self.values[id(o)] = out

    def reduce(self, node):
        op, o = node.op, node.outputs[0]
        sub = _REDUCE[type(op)]
        src = self.view_of(node.inputs[0])
        dt = np.dtype(o.dtype)
        cl = CL_F if src.dtype in _FLOATS else CL_I
        out = self.temp(dt, tuple(o.type.shape))
        acc = self._accumulator(out) if sub in (0, 1) else out
        self._reduce_into(acc, src, set(op.axis), sub, op.keepdims, cl)
        if acc is not out:
            self.copy(acc, out)
        self.values[id(o)] = out

    def _reduce_into(self, acc: _View, src: _View, axes: set, sub: int, keepdims: bool, cl: int):
        """``acc`` = the reduction ``sub`` of ``src`` over ``axes`` (``acc`` with or without
        the reduced dims, as ``keepdims`` says)."""
        full = []  # acc's strides over the input's dims
        it = iter(acc.strides)
        for d in range(len(src.shape)):
            if d in axes:
                full.append(0)
                if keepdims:
                    next(it)
            else:
                full.append(next(it))
        self.fill(acc, _identity(sub, acc.dtype))
        self.emit(OP_REDUCE, sub, src.shape, [(acc, tuple(full)), (src, src.strides)], (cl,))

    def _accumulator(self, out: _View) -> _View:
        """Where a sum or product into ``out`` accumulates: float32 ones in a float64
        temp (rounded once, as floats compute in double: a float32 accumulator rounds at
        each step, and 65536 additions of 0.1 drift in the fourth digit), else ``out``."""
        return self.temp(np.float64, out.shape) if out.dtype == np.float32 else out

    def fill(self, out: _View, value):
        if out.dtype in _FLOATS:
            extra = (CL_F, struct.unpack("<q", struct.pack("<d", float(value)))[0])
        else:
            extra = (CL_I, int(value))
        self.emit(OP_FILL, 0, out.shape, [(out, out.strides)], extra)

    def dot(self, node):
        op, o = node.op, node.outputs[0]
        a, b = (self.view_of(v) for v in node.inputs)
        if a.dtype == np.bool_:
            raise Unsupported(f"{node.op} on bool")
        (ca, cb), (ba, bb) = op.contracting, op.batch
        fa, fb = op.free_axes(len(a.shape), 0), op.free_axes(len(b.shape), 1)
        out = self.temp(o.dtype, tuple(o.type.shape))
        acc = self._accumulator(out)
        nb = len(out.shape) - len(fa) - len(fb)
        space = list(out.shape) + [a.shape[d] for d in ca]
        so, sa, sb = list(acc.strides) + [0] * len(ca), [], []
        for side, (v, batch, free, contract, strides) in enumerate(
                ((a, ba, fa, ca, sa), (b, bb, fb, cb, sb))):
            pad = nb - len(batch)
            strides.extend([0] * pad)
            for k, d in enumerate(batch):
                strides.append(0 if v.shape[d] == 1 and out.shape[pad + k] != 1 else v.strides[d])
            if side == 0:
                strides.extend(v.strides[d] for d in free)
                strides.extend([0] * len(fb))
            else:
                strides.extend([0] * len(fa))
                strides.extend(v.strides[d] for d in free)
            strides.extend(v.strides[d] for d in contract)
        nout = len(out.shape)
        if (ca and nout and acc.dtype == np.float64 and so[nout - 1] == 8
                and (sa[nout - 1] == a.dtype.itemsize or sb[nout - 1] == b.dtype.itemsize)):
            # the output's unit-stride dim innermost, the contraction around it: rows of the
            # output accumulate scalar-times-row terms (each element's in the same order)
            perm = list(range(nout - 1)) + list(range(nout, len(space))) + [nout - 1]
            space, so, sa, sb = ([x[p] for p in perm] for x in (space, so, sa, sb))
        self.fill(acc, 0)
        self.emit(OP_DOT, 0, tuple(space), [(acc, tuple(so)), (a, tuple(sa)), (b, tuple(sb))],
                  (CL_F if out.dtype in _FLOATS else CL_I,))
        if acc is not out:
            self.copy(acc, out)
        self.values[id(o)] = out

    def reshape(self, node):
        o = node.outputs[0]
        src = self.contiguous(self.view_of(node.inputs[0]))
        shape = tuple(o.type.shape)
        self.values[id(o)] = src.with_(shape=shape, strides=_c_strides(shape, src.dtype.itemsize))

    def transpose(self, node):
        src = self.view_of(node.inputs[0])
        perm = node.op.perm
        self.values[id(node.outputs[0])] = src.with_(shape=[src.shape[p] for p in perm],
                                                     strides=[src.strides[p] for p in perm])

    def broadcast_to(self, node):
        src = self.view_of(node.inputs[0])
        shape = tuple(node.outputs[0].type.shape)
        self.values[id(node.outputs[0])] = src.with_(shape=shape, strides=_broadcast_strides(src, shape))

    def expand_dims(self, node):
        src = self.view_of(node.inputs[0])
        shape = tuple(node.outputs[0].type.shape)
        axes = {a % len(shape) for a in node.op.axes}
        it = iter(src.strides)
        strides = [0 if d in axes else next(it) for d in range(len(shape))]
        self.values[id(node.outputs[0])] = src.with_(shape=shape, strides=strides)

    def squeeze(self, node):
        src = self.view_of(node.inputs[0])
        axes = {a % len(src.shape) for a in node.op.axes}
        keep = [d for d in range(len(src.shape)) if d not in axes]
        self.values[id(node.outputs[0])] = src.with_(shape=[src.shape[d] for d in keep],
                                                     strides=[src.strides[d] for d in keep])

    def _basic(self, src: _View, idx) -> _View:
        offset, shape, strides = src.offset, [], []
        dims = iter(zip(src.shape, src.strides))
        for e in idx:
            if e is None:
                shape.append(1)
                strides.append(0)
                continue
            n, s = next(dims)
            if isinstance(e, tuple):
                start, stop, step = slice(*e).indices(n)
                length = len(range(start, stop, step))
                if length:
                    offset += start * s
                shape.append(length)
                strides.append(s * step)
            else:
                offset += (e + n if e < 0 else e) * s
        return src.with_(offset=offset, shape=shape, strides=strides)

    def specify_shape(self, node):
        # (every value here has a static shape, which make_node checked against the spec)
        src = self.view_of(node.inputs[0])
        if tuple(src.shape) != tuple(node.outputs[0].type.shape):
            raise Unsupported(f"{node.op}: input of shape {src.shape}")
        self.values[id(node.outputs[0])] = src

    def subtensor(self, node):
        self.values[id(node.outputs[0])] = self._basic(self.view_of(node.inputs[0]), node.op.idx)

    def concatenate(self, node):
        o = node.outputs[0]
        out = self.temp(o.dtype, tuple(o.type.shape))
        axis = node.op.axis % len(out.shape)
        at = 0
        for v in node.inputs:
            src = self.view_of(v)
            n = src.shape[axis]
            shape = list(out.shape)
            shape[axis] = n
            self.copy(src, out.with_(offset=out.offset + at * out.strides[axis], shape=shape))
            at += n
        self.values[id(o)] = out

    def _advanced(self, node, x: _View, indices: list[_View]):
        """(the operands over the gathered shape: x viewed by the slices, then the index
        arrays; the gathered shape; the (stride, length) of each indexed axis) for index
        arrays and slices (NumPy's rule: the broadcast index shape replaces the indexed
        dims in place when they are adjacent, and goes first otherwise)."""
        idx = node.op.idx
        if any(e is None or (e != ix.ARRAY and not isinstance(e, tuple)) for e in idx):
            raise Unsupported(f"{node.op}: only index arrays and slices are executed here")
        for index in indices:
            if index.dtype not in (np.dtype(np.int64), np.dtype(np.int32)):
                raise Unsupported(f"{node.op}: index of dtype {index.dtype}")
        if len(indices) + 2 > 8:
            raise Unsupported(f"{node.op}: {len(indices)} index arrays")
        positions = [d for d, e in enumerate(idx) if e == ix.ARRAY]
        xs = self._basic(x, tuple((None, None, None) if e == ix.ARRAY else e for e in idx))
        bshape = tuple(np.broadcast_shapes(*(i.shape for i in indices)))
        rest = [d for d in range(len(xs.shape)) if d not in positions]
        adjacent = positions == list(range(positions[0], positions[-1] + 1))
        before = [d for d in rest if d < positions[0]] if adjacent else []
        after = [d for d in rest if d not in before]
        nb = len(bshape)
        shape = tuple(xs.shape[d] for d in before) + bshape + tuple(xs.shape[d] for d in after)
        if 0 in shape and 0 not in bshape:
            raise Unsupported(f"{node.op}: no elements to take but indices to check (as perform does)")
        x_strides = tuple(xs.strides[d] for d in before) + (0,) * nb + tuple(xs.strides[d] for d in after)
        operands = [(xs, x_strides)]
        for index in indices:
            st = _broadcast_strides(index, bshape)
            operands.append((index, (0,) * len(before) + st + (0,) * len(after)))
        axes = [(xs.strides[d], xs.shape[d]) for d in positions]
        return operands, shape, axes

    @staticmethod
    def _index_extra(out: _View, axes) -> tuple:
        return (CL_F if out.dtype in _FLOATS else CL_I, len(axes), *[v for a in axes for v in a])

    def advanced_subtensor(self, node):
        x, *indices = (self.view_of(v) for v in node.inputs)
        operands, shape, axes = self._advanced(node, x, indices)
        o = node.outputs[0]
        out = self.temp(o.dtype, tuple(o.type.shape))
        if tuple(out.shape) != shape:
            raise Unsupported(f"{node.op}: result shape {out.shape}, expected {shape}")
        self.emit(OP_GATHER, 0, shape, [(out, out.strides), *operands], self._index_extra(out, axes))
        self.values[id(o)] = out

    def advanced_inc_subtensor(self, node):
        if ix.ARRAY not in node.op.idx:  # slices and ints only
            return self.basic_inc_subtensor(node)
        x, v, *indices = (self.view_of(u) for u in node.inputs)
        o = node.outputs[0]
        out = self.temp(o.dtype, tuple(o.type.shape))
        self.copy(x, out)
        ((outs, ost), *index_ops), shape, axes = self._advanced(node, out, indices)
        self.emit(OP_SCATTER, _SCATTER[node.op.mode], shape,
                  [(outs, ost), (v, _broadcast_strides(v, shape)), *index_ops], self._index_extra(out, axes))
        self.values[id(o)] = out

    def cumulative(self, node):
        """cumsum and cumprod along one axis (axis=None: of the flattened input), as
        NumPy's: sequentially, from the first element, float32 rounding at each step."""
        op, o = node.op, node.outputs[0]
        if op.mode not in ("add", "mul"):
            raise Unsupported(f"{node.op}: mode {op.mode!r}")
        src = self.view_of(node.inputs[0])
        out = self.temp(o.dtype, tuple(o.type.shape))
        if op.axis is None:  # of the flattened input (a 0-d one gives one element)
            if len(src.shape) != 1:
                src = self.contiguous(src)
                src = src.with_(shape=out.shape, strides=_c_strides(out.shape, src.dtype.itemsize))
            axis = 0
        else:
            axis = op.axis % len(src.shape)
        if tuple(src.shape) != tuple(out.shape):
            raise Unsupported(f"{node.op}: result shape {out.shape}, expected {src.shape}")
        order = [d for d in range(len(src.shape)) if d != axis] + [axis]  # accumulate innermost
        shape = tuple(src.shape[d] for d in order)
        # (appended as it is: emit's merging of dims would merge the accumulated one)
        self.code.append((OP_CUM, 0 if op.mode == "add" else 1, shape,
                          [(out, tuple(out.strides[d] for d in order)),
                           (src, tuple(src.strides[d] for d in order))],
                          (CL_F if out.dtype in _FLOATS else CL_I,)))
        self.values[id(o)] = out

    def basic_inc_subtensor(self, node):
        x, v = (self.view_of(u) for u in node.inputs)
        o = node.outputs[0]
        out = self.temp(o.dtype, tuple(o.type.shape))
        self.copy(x, out)
        target = self._basic(out, node.op.idx)
        if node.op.mode == "set":
            self.copy(v, target)
        else:
            sub = _BINARY[_COMBINE[node.op.mode]]
            self.emit(OP_EW, sub, target.shape, [(target, target.strides), (target, target.strides),
                                                  (v, _broadcast_strides(v, target.shape))],
                      (CL_F if out.dtype in _FLOATS else CL_I,))
        self.values[id(o)] = out

    # linear algebra: in float64 (other float dtypes are cast in and out), a matrix at a time
    def _float64(self, v: _View) -> _View:
        if v.dtype == np.float64:
            return v
        out = self.temp(np.float64, v.shape)
        self.copy(v, out)
        return out

    @staticmethod
    def _mT(v: _View) -> _View:
        """``v`` with its last two dims swapped (a view)."""
        return v.with_(shape=v.shape[:-2] + (v.shape[-1], v.shape[-2]),
                       strides=v.strides[:-2] + (v.strides[-1], v.strides[-2]))

    @staticmethod
    def _batched(v: _View, core: int, batch: tuple) -> tuple:
        """``v``'s strides over ``batch`` (broadcast) followed by its ``core`` own ones."""
        nb = len(v.shape) - core
        lead = _broadcast_strides(v.with_(shape=v.shape[:nb], strides=v.strides[:nb]), batch)
        return lead + tuple(v.strides[nb:])

    def _linalg_operands(self, node) -> list[_View]:
        views = [self.view_of(v) for v in node.inputs]
        for v in views:
            if v.dtype not in _FLOATS:
                raise Unsupported(f"{node.op} on {v.dtype}")
        return [self._float64(v) for v in views]

    def _linalg_result(self, node, w: _View, out: _View, in_place: bool):
        if not in_place:  # (the float64 work to float32)
            self.copy(w, out)
        self.values[id(node.outputs[0])] = out

    def cholesky(self, node):
        """numpy.linalg.cholesky: the lower factor of the lower triangle (upper: the
        transposed factor of the transposed upper triangle); where a matrix is not positive
        definite, a NaN factor or LinAlgError (``linalg_errors``)."""
        (a,) = self._linalg_operands(node)
        o = node.outputs[0]
        shape = tuple(o.type.shape)
        out = self.temp(o.dtype, shape)
        upper = node.op.upper
        in_place = out.dtype == np.float64 and not upper
        w = out if in_place else self.temp(np.float64, shape)
        if upper:
            a = self._mT(a)
        self.code.append((OP_CHOL, 1 if self.raise_linalg_errors else 0, shape, [(w, w.strides), (a, a.strides)], ()))
        self._linalg_result(node, self._mT(w) if upper else w, out, in_place)

    def _trsm(self, w: _View, m: _View, lower: bool, unit: bool, check: bool, b: _View):
        """w = m^-1 b for the triangular m (float64 views; b and w stacks of (n, k)
        right-hand sides, w of the broadcast batch shape)."""
        batch = w.shape[:-2]
        sub = (1 if lower else 0) | (2 if unit else 0) | (4 if check else 0)
        self.code.append((OP_TRSM, sub, w.shape, [(w, w.strides), (m, self._batched(m, 2, batch)),
                                                  (b, self._batched(b, 2, batch))], ()))

    def _solve_views(self, node):
        """(the float64 operands, b and the float64 result as stacks of (n, k) right-hand
        sides, the result, whether the float64 result is the result)."""
        a, b = self._linalg_operands(node)
        o = node.outputs[0]
        out = self.temp(o.dtype, tuple(o.type.shape))
        in_place = out.dtype == np.float64
        w = out if in_place else self.temp(np.float64, out.shape)
        if node.op.b_vector:  # a one-column right-hand side
            b = b.with_(shape=b.shape + (1,), strides=b.strides + (0,))
            w = w.with_(shape=w.shape + (1,), strides=w.strides + (8,))
        return a, b, w, out, in_place

    def _solved(self, node, w: _View, out: _View, in_place: bool):
        if node.op.b_vector:
            w = w.with_(shape=w.shape[:-1], strides=w.strides[:-1])
        self._linalg_result(node, w, out, in_place)

    def solve_triangular(self, node):
        """scipy.linalg.solve_triangular: op(a) x = b by substitution over the triangle of
        a read (trans: of a transposed, the other triangle); at a zero on the diagonal
        (unless unit_diagonal) infinities and NaNs, or LinAlgError as trtrs
        (``linalg_errors``)."""
        op = node.op
        a, b, w, out, in_place = self._solve_views(node)
        lower = op.lower
        if op.trans:  # (real matrices: "C" is "T")
            a, lower = self._mT(a), not lower
        self._trsm(w, a, lower, op.unit_diagonal, self.raise_linalg_errors, b)
        self._solved(node, w, out, in_place)

    def cho_solve(self, node):
        """scipy.linalg.cho_solve((c, lower), b): two substitutions over the triangle of c
        read (c c^T y = b, lower; c^T c, upper); no check of the diagonal, as potrs (a zero
        on it gives infinities and NaNs)."""
        c, b, w, out, in_place = self._solve_views(node)
        y = self.temp(np.float64, w.shape)
        first, second = (c, self._mT(c)) if node.op.lower else (self._mT(c), c)
        self._trsm(y, first, True, False, False, b)
        self._trsm(w, second, False, False, False, y)
        self._solved(node, w, out, in_place)

    # softmax and its logarithm as perform computes them: from max-shifted values
    def _reduced(self, src: _View, axes, sub: int) -> _View:
        """``src`` reduced over ``axes`` with ``keepdims`` (a sum: in float64)."""
        shape = tuple(1 if d in axes else n for d, n in enumerate(src.shape))
        out = self.temp(np.float64 if sub == 0 else src.dtype, shape)
        self._reduce_into(out, src, axes, sub, True, CL_F)
        return out

    def _apply(self, sub: int, shape: tuple, *views: _View, dtype=None) -> _View:
        out = self.temp(dtype or views[0].dtype, shape)
        self.emit(OP_EW, sub, shape, [(out, out.strides)] + [(v, _broadcast_strides(v, shape)) for v in views],
                  (CL_F,))
        return out

    def softmax(self, node):
        src = self.view_of(node.inputs[0])
        if src.dtype not in _FLOATS:
            raise Unsupported(f"{node.op} on {src.dtype}")
        axes, shape = set(node.op.axis), src.shape
        m = self._reduced(src, axes, _REDUCE[rd.Max])
        if isinstance(node.op, rd.LogSoftmax):  # non-finite maxima shift by 0
            zero = self.const(np.zeros((), src.dtype))
            finite = self._apply(_UNARY[ew.IsFinite], m.shape, m, dtype=np.dtype(np.bool_))
            m = self._apply(_SELECT, m.shape, finite, m, zero, dtype=src.dtype)
            shifted = self._apply(_SUB, shape, src, m)
            total = self._reduced(self._apply(_EXP, shape, shifted), axes, _REDUCE[rd.Sum])
            out = self._apply(_SUB, shape, shifted, self._apply(_UNARY[ew.Log], total.shape, total))
        else:
            e = self._apply(_EXP, shape, self._apply(_SUB, shape, src, m))
            out = self._apply(_BINARY[ew.Divide], shape, e, self._reduced(e, axes, _REDUCE[rd.Sum]))
        self.values[id(node.outputs[0])] = out

    # --- encoding --------------------------------------------------------------------------
    def encode(self, n_in: int, n_out: int) -> bytes:
        n_const = len(self.consts)

        def slot(s):
            kind = s[0]
            return (s[1] if kind == "in" else n_in + s[1] if kind == "const"
                    else n_in + n_const + s[1] if kind == "out" else n_in + n_const + n_out)

        words: list[int] = []
        for op, sub, shape, operands, extra in self.code:
            words += [op, sub, len(shape), len(operands), *shape]
            for view, strides in operands:
                words += [slot(view.slot), view.offset, _DT[view.dtype], *strides]
            words += [len(extra), *extra]
        return np.asarray(words, dtype=np.int64).tobytes()


def _identity(sub: int, dt: np.dtype):
    if sub == 0:
        return 0
    if sub == 1:
        return 1
    if sub in (2, 3):
        if dt in _FLOATS:
            return -np.inf if sub == 2 else np.inf
        if dt == np.bool_:
            return 0 if sub == 2 else 1
        info = np.iinfo(dt)
        return info.min if sub == 2 else info.max
    return 1 if sub == 4 else 0


#: the assembler's method for each Op class (or its nearest base class)
_NODES = OpRegistry("executor instruction")
for _cls, _method in {
    ew.Elemwise: _Assembler.elemwise,
    ew.Select: _Assembler.select,
    ew.Cast: _Assembler.cast,
    la.DotGeneral: _Assembler.dot,
    sh.Reshape: _Assembler.reshape,
    sh.Transpose: _Assembler.transpose,
    sh.BroadcastTo: _Assembler.broadcast_to,
    sh.ExpandDims: _Assembler.expand_dims,
    sh.Squeeze: _Assembler.squeeze,
    sh.Concatenate: _Assembler.concatenate,
    cs.SpecifyShape: _Assembler.specify_shape,
    ix.Subtensor: _Assembler.subtensor,
    ix.AdvancedSubtensor: _Assembler.advanced_subtensor,
    ix.AdvancedIncSubtensor: _Assembler.advanced_inc_subtensor,
    rd.Softmax: _Assembler.softmax,
    rd.CumOp: _Assembler.cumulative,
    la.Cholesky: _Assembler.cholesky,
    la.SolveTriangular: _Assembler.solve_triangular,
    la.ChoSolve: _Assembler.cho_solve,
    **{cls: _Assembler.reduce for cls in _REDUCE},
}.items():
    _NODES.register(_cls)(_method)


class Program:
    """A graph assembled for the executor: ``program(*args) -> tuple of NumPy arrays``
    (new arrays the caller owns, one per graph output).

    Arguments are NumPy arrays (or anything ``numpy.asarray`` takes) of the inputs'
    dtypes and shapes; another dtype or shape raises TypeError or ValueError naming
    the argument."""

    def __init__(self, graph: Graph, program, n_instructions: int, work: int = 0):
        self.graph = graph
        #: the C program itself: ``raw(*args)`` returns NotImplemented where ``__call__``
        #: would convert an argument (a caller's fast path)
        self.raw = program
        #: how many instructions run per call
        self.n_instructions = n_instructions
        #: about how many elementary operations a call does (``_work``)
        self.work = work
        self._types = [v.type for v in graph.inputs]

    def __call__(self, *args: Any) -> tuple:
        out = self.raw(*args)
        if out is NotImplemented:
            out = self.raw(*self._converted(args))
        return out

    def _converted(self, args) -> list:
        from .args import check_argument, describe
        if len(args) != len(self._types):
            raise TypeError(f"expected {len(self._types)} arguments, got {len(args)}")
        out = []
        for i, (a, t) in enumerate(zip(args, self._types)):
            if isinstance(a, (bool, int, float, complex)) and not isinstance(a, np.generic):
                a = check_argument(a, t, self.graph.inputs, i)  # as a compiled function takes them
            arr = np.asarray(a)
            dt = arr.dtype if arr.dtype.isnative else arr.dtype.newbyteorder("=")
            if dt != t.dtype and not (dt.kind == np.dtype(t.dtype).kind and np.can_cast(dt, t.dtype, "same_kind")
                                      and arr.ndim == 0):
                raise TypeError(f"{describe(self.graph.inputs, i)}: expected dtype {t.dtype} ({t}), "
                                f"got {arr.dtype}{list(arr.shape)}")
            if arr.shape != tuple(t.shape):
                raise ValueError(f"{describe(self.graph.inputs, i)}: expected shape {tuple(t.shape)} ({t}), "
                                 f"got {arr.shape}")
            out.append(np.require(arr, dtype=np.dtype(t.dtype).newbyteorder("="), requirements="CA"))
        return out

    def explain(self) -> str:
        return (f"the whole graph runs on the host executor (hlograph.runtime.vm): "
                f"{len(self.graph.toposort())} nodes, {self.n_instructions} instructions")


def assemble(graph: Graph, *, linalg_errors: str = "nan", max_work: int | None = None) -> Program:
    """``graph`` as a ``Program`` for the executor; ``Unsupported`` when it has a node,
    dtype or size the executor does not take, or the executor is not built, or (with
    ``max_work``) a call would do more than ``max_work`` elementary operations (``MAX_WORK``:
    where XLA's fused, vectorized kernels win back PJRT's per-call floor).

    ``linalg_errors``: what a Cholesky factorization of a matrix that is not positive
    definite, or a triangular solve with a zero on the diagonal, gives: ``"nan"``
    (compiled code's non-finite values: a NaN factor, infinities and NaNs from the
    division; what the graph gives when XLA runs it, and what PyTensor's
    ``on_error="nan"`` conversion expects) or ``"raise"`` (``perform``'s
    numpy.linalg.LinAlgError)."""
    if linalg_errors not in ("nan", "raise"):
        raise ValueError(f"linalg_errors must be 'nan' or 'raise', got {linalg_errors!r}")
    if _vm is None:
        raise Unsupported("the executor's C extension is not built")
    asm = _Assembler(graph, linalg_errors)
    outs = asm.run()
    asm.pack_arena()
    code = asm.encode(len(graph.inputs), len(outs))
    in_specs = [(np.dtype(v.dtype).num, tuple(v.type.shape)) for v in graph.inputs]
    out_specs = [(v.dtype.num, v.shape) for v in outs]
    work = _work(asm.code)
    if max_work is not None and work > max_work:
        raise Unsupported(f"about {work} operations per call (more than {max_work})")
    program = _vm.Program(code, in_specs, tuple(asm.consts), out_specs, asm.arena)
    return Program(graph, program, len(asm.code), work)


def _work(code) -> int:
    """About how many elementary operations a call does: the size of each instruction's
    iteration space (a factorization or solve: times its matrix order)."""
    total = 0
    for op, _, shape, _, _ in code:
        n = int(np.prod(shape, dtype=np.int64)) if shape else 1
        total += n * shape[-1] if op in (OP_CHOL, OP_TRSM) and shape else n
    return total
