"""The small-graph executor: a graph with static shapes run on the host by a C loop.

PJRT's per-call floor on the CPU (about 9 us to execute a program on device arrays,
plus about 2 us per NumPy argument moved in and each result moved out) is most of a
call when a graph is small: a model's log-density on a few hundred numbers costs
PJRT 30-60 us where the arithmetic takes 2. ``assemble(graph)`` turns a graph whose
every node it knows into a ``Program`` of strided array instructions (``_vm.c``): the
arguments are read in place, reshapes, transposes, broadcasts and basic slices are
views (no instruction), and a call allocates its results and one scratch arena.
Nothing is compiled: assembling takes about a millisecond.

What it runs (anything else raises ``Unsupported`` naming the first node it cannot
take, and the graph goes to XLA as usual):

- float64, float32, int64, int32 and bool values of static shapes (rank <= 16);
- elementwise ops (the tables below), ``Select``, ``Cast``;
- ``Sum``, ``Prod``, ``Max``, ``Min``, ``All``, ``Any`` over any axes;
- ``DotGeneral`` (batch dims broadcast), float and integer;
- ``Reshape``, ``Transpose``, ``BroadcastTo``, ``ExpandDims``, ``Squeeze``,
  ``Subtensor``, ``Concatenate``;
- ``AdvancedSubtensor`` and ``AdvancedIncSubtensor`` (every mode) with one index
  array and slices elsewhere: an index out of range raises ``IndexError``, as
  ``perform`` does (a gather or update of no elements at a non-empty index is
  refused: it checks no index); ``AdvancedIncSubtensor`` of a basic index (slices, ints);
- ``Softmax`` and ``LogSoftmax`` (float);
- any node whose inputs are all constants or computed from constants only
  (evaluated once, by ``perform``).

Inputs, constants and results count as values too: each must have rank <= 16 and at
most ``MAX_ELEMENTS`` elements.

Semantics are ``perform``'s (NumPy's): floats compute in double and round to the
result's dtype, integers wrap around, ``maximum``/``max`` propagate NaN. Sums add in
order (NumPy adds pairwise): results may differ from NumPy's in the last bits.
"""

from __future__ import annotations

import struct
from typing import Any, Sequence

import numpy as np

from ..frontend.graph import Constant, Graph, Variable
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

__all__ = ["AVAILABLE", "Unsupported", "Program", "assemble", "MAX_ELEMENTS"]

#: True when the C executor is built
AVAILABLE = _vm is not None
#: the largest number of elements of any value a program holds (larger graphs are XLA's:
#: its fused, vectorized and threaded kernels win there)
MAX_ELEMENTS = 1 << 16

OP_EW, OP_FILL, OP_REDUCE, OP_DOT, OP_GATHER, OP_SCATTER = 1, 2, 3, 4, 5, 6
CL_F, CL_I = 0, 1
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
#: what integer and bool operands compute (the rest are float functions)
_INTEGER_OK = frozenset((0, 1, 2, 3, 16, 17, 18, 19, 38, 41, 64, 65, 66, 69, 70, 71, 72, 73, 74, 75, 76,
                         83, 84, 85, 86, 87, 88))
_REDUCE = {rd.Sum: 0, rd.Prod: 1, rd.Max: 2, rd.Min: 3, rd.All: 4, rd.Any: 5}
_SCATTER = {"set": 0, "add": 1, "mul": 2, "min": 3, "max": 4}


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
    def __init__(self, graph: Graph):
        self.graph = graph
        self.values: dict[int, _View] = {}
        self.consts: list[np.ndarray] = []
        self.folded: dict[int, np.ndarray] = {}  # values of nodes evaluated on constants
        self.arena = 0
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
        return _View(("arena",), offset, dtype, tuple(shape), _c_strides(shape, dtype.itemsize))

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
            if node.inputs and all(self.is_constant(v) for v in node.inputs) and not node.op.inner_graphs:
                self.fold(node)
                continue
            method = _NODES.get(type(node.op))
            if method is None:
                for cls in type(node.op).__mro__[1:]:
                    method = _NODES.get(cls)
                    if method is not None:
                        break
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
        axes = set(op.axis)
        full = []  # acc's strides over the input's dims
        it = iter(acc.strides)
        for d in range(len(src.shape)):
            if d in axes:
                full.append(0)
                if op.keepdims:
                    next(it)
            else:
                full.append(next(it))
        self.fill(acc, _identity(sub, dt))
        self.emit(OP_REDUCE, sub, src.shape, [(acc, tuple(full)), (src, src.strides)], (cl,))
        if acc is not out:
            self.copy(acc, out)
        self.values[id(o)] = out

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

    def _advanced(self, node, x: _View, index: _View):
        """(x viewed by the slices, the indexed axis, the gathered shape, x's strides over
        it, the index's strides over it) for one index array and slices elsewhere."""
        idx = node.op.idx
        if sum(e == ix.ARRAY for e in idx) != 1 or any(e is None or (e != ix.ARRAY and not isinstance(e, tuple))
                                                      for e in idx):
            raise Unsupported(f"{node.op}: only one index array and slices are executed here")
        if index.dtype not in (np.dtype(np.int64), np.dtype(np.int32)):
            raise Unsupported(f"{node.op}: index of dtype {index.dtype}")
        axis = idx.index(ix.ARRAY)
        basic = tuple((None, None, None) if e == ix.ARRAY else e for e in idx)
        xs = self._basic(x, basic)
        pre, post = xs.shape[:axis], xs.shape[axis + 1:]
        shape = tuple(pre) + tuple(index.shape) + tuple(post)
        if 0 in shape and 0 not in index.shape:
            raise Unsupported(f"{node.op}: no elements to take but indices to check (as perform does)")
        nidx = len(index.shape)
        x_strides = tuple(xs.strides[:axis]) + (0,) * nidx + tuple(xs.strides[axis + 1:])
        i_strides = (0,) * len(pre) + tuple(index.strides) + (0,) * len(post)
        return xs, axis, shape, x_strides, i_strides

    def advanced_subtensor(self, node):
        if len(node.inputs) != 2:
            raise Unsupported(f"{node.op}: only one index array and slices are executed here")
        x, index = (self.view_of(v) for v in node.inputs)
        xs, axis, shape, xst, ist = self._advanced(node, x, index)
        o = node.outputs[0]
        out = self.temp(o.dtype, tuple(o.type.shape))
        if tuple(out.shape) != shape:
            raise Unsupported(f"{node.op}: result shape {out.shape}, expected {shape}")
        self.emit(OP_GATHER, 0, shape, [(out, out.strides), (xs, xst), (index, ist)],
                  (CL_F if out.dtype in _FLOATS else CL_I, xs.strides[axis], xs.shape[axis]))
        self.values[id(o)] = out

    def advanced_inc_subtensor(self, node):
        if len(node.inputs) == 2 and ix.ARRAY not in node.op.idx:  # slices and ints only
            return self.basic_inc_subtensor(node)
        if len(node.inputs) != 3:
            raise Unsupported(f"{node.op}: only one index array and slices are executed here")
        x, v, index = (self.view_of(u) for u in node.inputs)
        o = node.outputs[0]
        out = self.temp(o.dtype, tuple(o.type.shape))
        self.copy(x, out)
        outs, axis, shape, ost, ist = self._advanced(node, out, index)
        vst = _broadcast_strides(v, shape)
        self.emit(OP_SCATTER, _SCATTER[node.op.mode], shape, [(outs, ost), (v, vst), (index, ist)],
                  (CL_F if out.dtype in _FLOATS else CL_I, outs.strides[axis], outs.shape[axis]))
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
            sub = {"add": 64, "mul": 66, "min": 70, "max": 69}[node.op.mode]
            self.emit(OP_EW, sub, target.shape, [(target, target.strides), (target, target.strides),
                                                  (v, _broadcast_strides(v, target.shape))],
                      (CL_F if out.dtype in _FLOATS else CL_I,))
        self.values[id(o)] = out

    # softmax and its logarithm as perform computes them: from max-shifted values
    def _reduced(self, src: _View, axes, sub: int) -> _View:
        """``src`` reduced over ``axes`` with ``keepdims`` (a sum: in float64)."""
        shape = tuple(1 if d in axes else n for d, n in enumerate(src.shape))
        out = self.temp(np.float64 if sub == 0 else src.dtype, shape)
        self.fill(out, _identity(sub, src.dtype))
        full = tuple(0 if d in axes else s for d, s in enumerate(out.strides))
        self.emit(OP_REDUCE, sub, src.shape, [(out, full), (src, src.strides)], (CL_F,))
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
        m = self._reduced(src, axes, 2)
        if isinstance(node.op, rd.LogSoftmax):  # non-finite maxima shift by 0
            zero = self.const(np.zeros((), src.dtype))
            finite = self._apply(17, m.shape, m, dtype=np.dtype(np.bool_))
            m = self._apply(_SELECT, m.shape, finite, m, zero, dtype=src.dtype)
            shifted = self._apply(65, shape, src, m)
            total = self._reduced(self._apply(4, shape, shifted), axes, 0)
            out = self._apply(65, shape, shifted, self._apply(5, total.shape, total))
        else:
            e = self._apply(4, shape, self._apply(65, shape, src, m))
            out = self._apply(67, shape, e, self._reduced(e, axes, 0))
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


_NODES = {
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
    ix.Subtensor: _Assembler.subtensor,
    ix.AdvancedSubtensor: _Assembler.advanced_subtensor,
    ix.AdvancedIncSubtensor: _Assembler.advanced_inc_subtensor,
    rd.Softmax: _Assembler.softmax,
    **{cls: _Assembler.reduce for cls in _REDUCE},
}


class Program:
    """A graph assembled for the executor: ``program(*args) -> tuple of NumPy arrays``
    (new arrays the caller owns, one per graph output).

    Arguments are NumPy arrays (or anything ``numpy.asarray`` takes) of the inputs'
    dtypes and shapes; another dtype or shape raises TypeError or ValueError naming
    the argument."""

    def __init__(self, graph: Graph, program, n_instructions: int):
        self.graph = graph
        self._program = program
        #: how many instructions run per call
        self.n_instructions = n_instructions
        self._types = [v.type for v in graph.inputs]

    def __call__(self, *args: Any) -> tuple:
        out = self._program(*args)
        if out is NotImplemented:
            out = self._program(*self._converted(args))
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


def assemble(graph: Graph) -> Program:
    """``graph`` as a ``Program`` for the executor; ``Unsupported`` when it has a node,
    dtype or size the executor does not take, or the executor is not built."""
    if _vm is None:
        raise Unsupported("the executor's C extension is not built")
    asm = _Assembler(graph)
    outs = asm.run()
    code = asm.encode(len(graph.inputs), len(outs))
    in_specs = [(np.dtype(v.dtype).num, tuple(v.type.shape)) for v in graph.inputs]
    out_specs = [(v.dtype.num, v.shape) for v in outs]
    program = _vm.Program(code, in_specs, tuple(asm.consts), out_specs, asm.arena)
    return Program(graph, program, len(asm.code))
