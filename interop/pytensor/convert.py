"""PyTensor graphs -> hlograph graphs: the converter registry and the driver.

``hlograph_convert`` is the ``jax_funcify`` of this backend: a converter per
PyTensor Op class (looked up along the class's MRO, as ``functools.singledispatch``
does), called as ``converter(op, node, inputs, ctx)`` with the hlograph values of
the node's inputs, returning one hlograph Variable per output (a Variable alone
for one output). Values of PyTensor types that are not tensors (``None``
constants, slices) are Python objects.

The driver walks the FunctionGraph in topological order. For each node it

1. folds it when every input is a constant (PyTensor's own ``perform`` computes
   the value, which becomes an hlograph constant): after a graph is specialized
   to the shapes of its arguments, shape arithmetic (``Shape_i``, ``MakeVector``,
   scalar ops on shapes) turns into the static shapes hlograph Ops take;
2. else calls the node's converter, then casts each result to the dtype the
   PyTensor node declares (PyTensor's dtypes win over NumPy's promotion) and
   gives it the static dims PyTensor knows;
3. else (no converter, or one that needs a value known only at run time) wraps
   the node in a ``PyTensorPerform`` Op: it runs the PyTensor Op's ``perform`` on
   the host, inside the same compiled function, with one ``FallbackWarning`` per
   Op class.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
from pytensor.graph.basic import Apply as PtApply
from pytensor.graph.basic import Constant as PtConstant
from pytensor.graph.basic import Variable as PtVariable
from pytensor.graph.fg import FunctionGraph
from pytensor.scalar.basic import ScalarType
from pytensor.tensor.type import TensorType as PtTensorType

from ...compiler.collector import paused as collector_paused
from ...frontend.graph import Constant, Graph, Variable
from ...frontend.ops import construct
from ...frontend.ops import elemwise as ew
from ...frontend.types import TensorType, as_dtype
from .inplace import Overwrite, Writeback, overwritten
from .sparse_values import is_sparse_type, to_dense, to_scipy

__all__ = ["hlograph_convert", "Context", "Conversion", "NotConvertible", "NotStatic", "NeedsShapes",
           "from_fgraph", "from_pytensor", "convert_fgraph", "hlograph_type", "input_type",
           "is_rng_type",
           "run_pytensor_node", "destroyed_positions",
           "cast", "conform"]

#: constants folded during conversion stay below this many elements (inputs and outputs)
FOLD_LIMIT = 4096


class NotConvertible(NotImplementedError):
    """A converter cannot express this node with hlograph Ops: the node runs its
    PyTensor ``perform`` on the host instead."""


class NotStatic(NotConvertible):
    """A converter needs a value (a shape, an axis, slice bounds) as a constant, and
    the value is known only at run time."""


class NeedsShapes(Exception):
    """A probing conversion (``probe=True``) stopped: part of the graph converts only
    once the graph is specialized to the shapes of its arguments."""


@functools.singledispatch
def hlograph_convert(op, node: PtApply, inputs: list[Any], ctx: "Context") -> Any:
    """Converts ``node`` (an application of ``op``) to hlograph Ops.

    Register a converter for a PyTensor Op class (it serves subclasses too)::

        @hlograph_convert.register(MyOp)
        def convert_my_op(op, node, inputs, ctx):
            x, = inputs                       # hlograph Variables
            return hlograph.exp(x)            # one Variable per output

    Raise ``NotConvertible`` (or ``NotStatic`` for a value needed as a constant)
    to let the node run its PyTensor ``perform`` on the host.
    """
    raise NotConvertible("no converter is registered for it")


_BASE_CONVERTER = hlograph_convert.dispatch(object)


def has_converter(op) -> bool:
    """Whether a converter is registered for ``op``'s class or a base class."""
    return hlograph_convert.dispatch(type(op)) is not _BASE_CONVERTER


def hlograph_type(pt_type) -> TensorType | None:
    """The hlograph TensorType of a PyTensor tensor or scalar type (None dims stay
    unknown), or None for other types."""
    if isinstance(pt_type, PtTensorType):
        return TensorType(pt_type.dtype, pt_type.shape)
    if isinstance(pt_type, ScalarType):
        return TensorType(pt_type.dtype, ())
    return None


def is_rng_type(pt_type) -> bool:
    """Whether ``pt_type`` is PyTensor's random generator type (``RandomGeneratorType``)."""
    from pytensor.tensor.random.type import RandomGeneratorType
    return isinstance(pt_type, RandomGeneratorType)


def input_type(pt_type, rng: str = "keys") -> TensorType | None:
    """The hlograph type of a graph input of PyTensor type ``pt_type``: its tensor type,
    or for a random generator a ``uint32[2]`` key (``rng="keys"``: the linker passes the
    key derived from the Generator) or its ``uint64[5]`` PCG64 state (``rng="numpy"``;
    see ``dispatch/random.py``); None for other types."""
    if is_rng_type(pt_type):
        if rng == "numpy":
            from .dispatch.random import STATE_TYPE
            return STATE_TYPE
        from ...frontend.ops.random import KEY_TYPE
        return KEY_TYPE
    return hlograph_type(pt_type)


def _is_tensorish(pt_var: PtVariable) -> bool:
    return isinstance(pt_var.type, (PtTensorType, ScalarType))


# --- running PyTensor's own perform ------------------------------------------------------
def _to_pytensor(pt_type, value: Any, copy: bool) -> Any:
    """A value as PyTensor's ``perform`` expects it for ``pt_type``."""
    if isinstance(pt_type, ScalarType):
        return np.asarray(value, dtype=pt_type.dtype)[()]
    if is_sparse_type(pt_type):  # dense in the graph
        return to_scipy(pt_type, value)
    if isinstance(pt_type, PtTensorType):
        arr = np.asarray(value, dtype=pt_type.dtype)
        if copy or not arr.flags.writeable:
            arr = np.array(arr)
        return arr
    return value


def destroyed_positions(node: PtApply) -> list[int]:
    """The inputs of ``node`` its Op overwrites (``destroy_map``), in order."""
    return sorted({i for ins in getattr(node.op, "destroy_map", {}).values() for i in ins})


def run_pytensor_node(node: PtApply, values: Sequence[Any], with_destroyed: bool = False) -> list[Any]:
    """Runs ``node`` through its Op's Python implementation (``perform``) on ``values``;
    tensor and scalar results come back as NumPy arrays of the declared dtypes. An input
    the Op overwrites gets a copy; ``with_destroyed``: those copies, as the Op left them,
    come after the results (``destroyed_positions`` order)."""
    positions = destroyed_positions(node)
    destroyed = set(positions)
    storage_map = {}
    compute_map = {}
    for i, (v, val) in enumerate(zip(node.inputs, values)):
        storage_map[v] = [_to_pytensor(v.type, val, i in destroyed)]
        compute_map[v] = [True]
    for o in node.outputs:
        storage_map[o] = [None]
        compute_map[o] = [False]
    thunk = node.op.make_thunk(node, storage_map, compute_map, [], impl="py")
    thunk()
    out = []
    for o in node.outputs:
        r = storage_map[o][0]
        if is_sparse_type(o.type):
            r = to_dense(o.type, r)
        elif _is_tensorish(o):
            r = np.asarray(r, dtype=o.type.dtype)
            if r.ndim != o.type.ndim:
                raise ValueError(f"{node.op}: output of rank {r.ndim}, declared {o.type}")
        out.append(r)
    if with_destroyed:
        out.extend(np.asarray(storage_map[node.inputs[i]][0]) for i in positions)
    return out


# --- the conversion context --------------------------------------------------------------
class Context:
    """What a converter sees besides its node: static values of the converted graph
    and conversion of inner graphs (``Composite``, ``OpFromGraph``)."""

    def __init__(self, unknown_dims: bool, probe: bool = False, rng: str = "keys"):
        #: how random generators are represented: "keys" or "numpy" (``input_type``)
        self.rng = rng
        #: the graph has inputs with unknown dims: a value missing now may be known once
        #: the graph is specialized to the shapes of its arguments
        self.unknown_dims = unknown_dims
        #: stop (``NeedsShapes``) instead of falling back when that may be the case
        self.probe = probe and unknown_dims
        #: a converter asked for a value that specialization to argument shapes may give
        self.shape_dependent = False
        #: (op name, reason) of each node that runs its PyTensor perform
        self.fallbacks: list[tuple[str, str]] = []
        #: message -> exception type of the assertions (CheckAndRaise) converted to checks
        self.checks: dict[str, type] = {}
        #: > 0 while the core of a batched Blockwise is converted: a device loop's body,
        #: which holds no host checks (``Check`` raises on the host)
        self.batched_core = 0
        #: (node, input position) -> what the node's perform left in that input (a node
        #: run on the host that overwrites its inputs: fallback.py)
        self.destroyed_values: dict[tuple[PtApply, int], Variable] = {}
        # vector Variable id -> its entries, None where unknown (MakeVector of scalars)
        self._partial: dict[int, list[int | None]] = {}

    # --- static values ---------------------------------------------------------------------
    def static(self, x: Any, needed: bool = True) -> np.ndarray | None:
        """The value of ``x`` when it is a constant, else None (``needed``: the conversion
        would do better with it, which specialization to argument shapes may give)."""
        if isinstance(x, Constant):
            return x.data
        if needed:
            self.mark_shape_dependent()
        return None

    def mark_shape_dependent(self) -> None:
        """The conversion would do better with a value that specialization to argument
        shapes may give."""
        if self.unknown_dims:
            self.shape_dependent = True

    def static_int(self, x: Any, needed: bool = True) -> int | None:
        """``x`` as a Python int when it is a constant 0-d integer, else None."""
        v = self.static(x, needed)
        if v is None:
            return None
        if v.ndim != 0 or v.dtype.kind not in "iub":
            raise NotConvertible(f"expected an integer scalar, got {v!r}")
        return int(v)

    def static_ints(self, xs: Any) -> tuple[int, ...] | None:
        """A vector Variable, or a sequence of scalar Variables, as a tuple of ints when
        every entry is a constant, else None."""
        if isinstance(xs, Variable):
            v = self.static(xs)
            return None if v is None else tuple(int(e) for e in np.asarray(v).reshape(-1))
        out = []
        for x in xs:
            v = self.static_int(x)
            if v is None:
                return None
            out.append(v)
        return tuple(out)

    def require_int(self, x: Any, what: str) -> int:
        v = self.static_int(x)
        if v is None:
            raise NotStatic(f"{what} is known only at run time")
        return v

    def require_ints(self, xs: Any, what: str) -> tuple[int, ...]:
        v = self.static_ints(xs)
        if v is None:
            raise NotStatic(f"{what} is known only at run time")
        return v

    def partial_ints(self, x: Variable) -> list[int | None] | None:
        """The entries of an int vector, None for the ones known only at run time; None
        when nothing is known about them."""
        v = self.static(x, needed=False)
        if v is not None:
            return [int(e) for e in np.asarray(v).reshape(-1)]
        return self._partial.get(id(x))

    def set_partial(self, x: Variable, entries: list[int | None]) -> None:
        self._partial[id(x)] = list(entries)

    # --- inner graphs ------------------------------------------------------------------
    def convert_inner(self, fgraph_inputs: Sequence[PtVariable], fgraph_outputs: Sequence[PtVariable],
                      inputs: Sequence[Any], elementwise: bool = False) -> list[Any]:
        """The hlograph values of ``fgraph_outputs`` of an inner graph whose inputs take
        the values ``inputs``. ``elementwise``: a graph of scalar Ops applied elementwise
        to tensors (a ``Composite``): its values keep their dtypes but not its 0-d
        shapes, and a node that cannot be converted makes the whole graph fail
        (``NotConvertible``) instead of running its perform."""
        values = dict(zip(fgraph_inputs, inputs))
        nodes = _toposort(fgraph_inputs, fgraph_outputs)
        _convert_nodes(self, nodes, values, elementwise)
        return [_value(self, v, values) for v in fgraph_outputs]


# --- the driver ------------------------------------------------------------------------
def _toposort(inputs: Sequence[PtVariable], outputs: Sequence[PtVariable]) -> list[PtApply]:
    try:
        from pytensor.graph.traversal import io_toposort
    except ImportError:  # PyTensor < 2.31
        from pytensor.graph.basic import io_toposort
    return list(io_toposort(list(inputs), list(outputs)))


def constant_value(v: PtConstant) -> Any:
    """The hlograph value of a PyTensor constant: a Constant for tensors and scalars, the
    Python value otherwise (None, a slice)."""
    t = hlograph_type(v.type)
    if t is not None:
        return Constant(np.asarray(v.data, dtype=t.dtype))
    return v.data


def _value(ctx: Context, v: PtVariable, values: dict) -> Any:
    if v in values:
        return values[v]
    if isinstance(v, PtConstant):
        values[v] = val = constant_value(v)
        return val
    raise NotImplementedError(f"{v} is neither an input of the graph nor computed in it")


def _convert_nodes(ctx: Context, nodes: Sequence[PtApply], values: dict, elementwise: bool = False) -> None:
    for node in nodes:
        ins = [_value(ctx, v, values) for v in node.inputs]
        outs = _fold(node, ins)
        if outs is None:
            outs = _convert_node(ctx, node, ins, elementwise)
        for v, o in zip(node.outputs, outs):
            values[v] = o


def _static_python(x: Any) -> bool:
    """A value of a non-tensor type known now (None, a slice of ints)."""
    if x is None:
        return True
    if isinstance(x, slice):
        return all(e is None or isinstance(e, (int, np.integer)) for e in (x.start, x.stop, x.step))
    return isinstance(x, (int, np.integer, str))


#: Ops whose small inputs can make large outputs: folded only when PyTensor knows the
#: output is small
_CONSTRUCTORS: tuple[type, ...] = ()


def _constructors() -> tuple[type, ...]:
    global _CONSTRUCTORS
    if not _CONSTRUCTORS:
        from pytensor.tensor.basic import ARange, Alloc, AllocEmpty, Eye
        from pytensor.tensor.extra_ops import Repeat
        _CONSTRUCTORS = (Alloc, AllocEmpty, Eye, ARange, Repeat)
    return _CONSTRUCTORS


def _fold(node: PtApply, ins: list[Any]) -> list[Any] | None:
    """``node``'s outputs as hlograph constants when every input is a small constant."""
    if getattr(node.op, "fgraph", None) is not None or not all(_is_tensorish(o) for o in node.outputs):
        return None  # inner graphs (Composite, OpFromGraph, Scan) are converted, not run
    size = 0
    vals = []
    for x in ins:
        if isinstance(x, Constant):
            size += x.data.size
            vals.append(x.data)
        elif not isinstance(x, Variable) and _static_python(x):
            vals.append(x)
        else:
            return None
    if size > FOLD_LIMIT:
        return None
    if isinstance(node.op, _constructors()):
        shapes = [o.type.shape for o in node.outputs]
        if any(None in s or int(np.prod(s)) > FOLD_LIMIT for s in shapes):
            return None
    try:
        results = run_pytensor_node(node, vals)
    except Exception:  # noqa: BLE001 - not foldable (an assertion that fails, ...): convert it
        return None
    if any(r.size > FOLD_LIMIT for r in results):
        return None
    return [Constant(r) for r in results]


def _convert_node(ctx: Context, node: PtApply, ins: list[Any], elementwise: bool = False) -> list[Any]:
    from .fallback import fallback
    converter = hlograph_convert.dispatch(type(node.op))
    try:
        res = converter(node.op, node, ins, ctx)
        outs = list(res) if isinstance(res, (list, tuple)) else [res]
        if len(outs) != len(node.outputs):
            raise NotConvertible(f"the converter gave {len(outs)} outputs for {len(node.outputs)}")
        return [conform(o.value, v, elementwise, static=False) if isinstance(o, AsPerformed)
                else conform(o, v, elementwise) for o, v in zip(outs, node.outputs)]
    except (NotConvertible, TypeError, ValueError, IndexError) as e:
        # NotConvertible: no converter, or a value it needs is known only at run time;
        # the others: hlograph refuses these inputs (a static index out of range, ...):
        # PyTensor's perform runs them and raises what PyTensor raises
        reason = str(e) if isinstance(e, NotConvertible) else f"{type(e).__name__}: {e}"
        if elementwise:
            cls = type(e) if isinstance(e, NotConvertible) else NotConvertible
            raise cls(f"{type(node.op).__name__} in its scalar graph: {reason}") from None
        if ctx.probe and (not isinstance(e, NotConvertible) or isinstance(e, NotStatic)
                          or has_converter(node.op)):
            raise NeedsShapes(f"{type(node.op).__name__}: {reason}") from None
        return fallback(ctx, node, ins, reason)


def cast(x: Variable, dtype: Any) -> Variable:
    """``x`` as ``dtype`` (a constant is cast now, a value by a Cast node)."""
    dt = as_dtype(dtype)
    if x.dtype == dt:
        return x
    if isinstance(x, Constant):
        with np.errstate(all="ignore"):
            return Constant(ew.Cast(dt).perform(None, [x.data])[0])
    return ew.astype(x, dt)


class AsPerformed:
    """A converter's result whose shape is the one the Op's ``perform`` returns, where
    PyTensor's declared static shape differs (QR's raw mode declares H ``(M, M)``, perform
    returns geqrf's ``(M, N)``): only its dtype and rank are made PyTensor's."""

    __slots__ = ("value",)

    def __init__(self, value: Variable):
        self.value = value


def conform(x: Any, pt_var: PtVariable, elementwise: bool = False, static: bool = True) -> Any:
    """``x`` with the dtype of ``pt_var`` (cast if needed) and the static dims PyTensor
    knows for it (``elementwise``: the dtype only, for values of a scalar graph)."""
    t = hlograph_type(pt_var.type)
    if t is None:
        return x
    if not isinstance(x, Variable):
        x = Constant(np.asarray(x, dtype=t.dtype))
    if elementwise:
        return cast(x, t.dtype)
    if x.ndim != t.ndim:
        raise NotConvertible(f"the converter gave {x.type} for {pt_var.type}")
    x = cast(x, t.dtype)
    if not static:
        return x
    refine = False
    for d, want in zip(x.shape, t.shape):
        if want is None:
            continue
        if d is None:
            refine = True
        elif d != want:
            raise NotConvertible(f"the converter gave {x.type} for {pt_var.type}")
    if refine:
        x = construct.specify_shape(x, t.shape)
    return x


# --- public entry points ---------------------------------------------------------------
@dataclass
class Conversion:
    """The result of converting a FunctionGraph: the hlograph graph, whether a
    specialization to argument shapes would convert more of it (``shape_dependent``),
    and the nodes left to PyTensor's perform."""

    graph: Graph
    shape_dependent: bool = False
    fallbacks: list[tuple[str, str]] = field(default_factory=list)
    #: message -> exception type of the PyTensor assertions converted to hlograph checks
    checks: dict[str, type] = field(default_factory=dict)
    #: the extra outputs the linker writes into arguments (in-place Ops on graph inputs)
    writebacks: list[Writeback] = field(default_factory=list)


@collector_paused()  # converting allocates graph objects by the thousand, as lowering does
def convert_fgraph(fgraph: FunctionGraph, input_types: Sequence[TensorType] | None = None,
                   single_output: bool = False, probe: bool = False,
                   overwrites: Sequence[Overwrite] = (), rng: str = "keys") -> Conversion:
    """Converts ``fgraph``; ``input_types`` (hlograph TensorTypes, one per input) replace
    the types PyTensor declares, e.g. with the shapes of the arguments of a call.
    ``overwrites``: the in-place results on graph inputs (``inplace.destroyed_inputs``):
    what each leaves in its input becomes an output after the graph's own, listed in
    the conversion's ``writebacks``. ``rng``: how random generators are represented
    (``input_type``).

    ``probe``: raise ``NeedsShapes`` where a node would convert only once the input
    dims are known (the caller then converts per argument shapes) instead of running
    PyTensor's perform there."""
    pt_inputs = list(fgraph.inputs)
    if input_types is None:
        types = []
        for i, v in enumerate(pt_inputs):
            t = input_type(v.type, rng)
            if t is None:
                raise NotImplementedError(
                    f"input {i} ({v}) has the PyTensor type {v.type}, which hlograph does not "
                    f"support (tensors, scalars and random generators only)"
                )
            types.append(t)
    else:
        types = [t if isinstance(t, TensorType) else TensorType(*t) for t in input_types]
        if len(types) != len(pt_inputs):
            raise ValueError(f"expected {len(pt_inputs)} input types, got {len(types)}")
        for i, (v, t) in enumerate(zip(pt_inputs, types)):
            want = input_type(v.type, rng)
            if want is None or want.dtype != t.dtype or want.ndim != t.ndim:
                raise TypeError(f"input {i} ({v}): type {t} does not fit {v.type}")
    inputs = [Variable(t, name=v.name or f"input{i}") for i, (v, t) in enumerate(zip(pt_inputs, types))]
    ctx = Context(unknown_dims=any(not t.is_static for t in types), probe=probe, rng=rng)
    values: dict = dict(zip(pt_inputs, inputs))
    _convert_nodes(ctx, fgraph.toposort(), values)
    outputs = []
    for i, v in enumerate(fgraph.outputs):
        out = _value(ctx, v, values)
        if not isinstance(out, Variable):
            raise NotImplementedError(f"output {i} ({v}) of type {v.type} is not a tensor")
        outputs.append(out)
    if not outputs:
        raise ValueError("the graph has no outputs")
    writebacks = _writebacks(ctx, fgraph, overwrites, values, outputs)
    graph = Graph(inputs, outputs[0] if single_output and len(outputs) == 1 else outputs)
    return Conversion(graph, ctx.shape_dependent, ctx.fallbacks, ctx.checks, writebacks)


def _writebacks(ctx: Context, fgraph: FunctionGraph, overwrites: Sequence[Overwrite], values: dict,
                outputs: list[Variable]) -> list[Writeback]:
    """Appends to ``outputs`` what each in-place result leaves in its input (the Op's
    ``overwritten`` rule) and lists where each goes."""
    found = []
    for w in overwrites:
        node = w.node
        ins = [_value(ctx, v, values) for v in node.inputs]
        outs = [_value(ctx, v, values) for v in node.outputs]
        value, layout = overwritten(node.op, node, w.position, w.output, ins, outs)
        left = ctx.destroyed_values.get((node, w.position))
        if left is not None:  # run by its perform: what it left in its copy of the input
            value = left
        if not isinstance(value, Variable):
            continue  # the Op leaves this input as it was
        value = cast(value, node.inputs[w.position].type.dtype)
        same = value is outs[w.output]
        results = tuple(j for j, v in enumerate(fgraph.outputs) if same and v is node.outputs[w.output])
        found.append(Writeback(len(outputs), w.input_index, layout, results))
        outputs.append(value)
    return found


def from_fgraph(fgraph: FunctionGraph, input_types: Sequence[TensorType] | None = None) -> Graph:
    """The hlograph Graph of a PyTensor FunctionGraph (as rewritten, e.g. by a mode).

    Inputs keep PyTensor's static shapes (None dims stay unknown: they specialize
    per call when the graph is compiled); ``input_types`` gives other (e.g. fully
    static) types, one per input. Nodes with no converter run their PyTensor
    ``perform`` on the host (see ``FallbackWarning``).
    """
    return convert_fgraph(fgraph, input_types).graph


def from_pytensor(inputs: Sequence[PtVariable], outputs: PtVariable | Sequence[PtVariable],
                  input_types: Sequence[TensorType] | None = None) -> Graph:
    """The hlograph Graph computing PyTensor ``outputs`` from ``inputs``, converted as
    built (no PyTensor rewrites run; ``pytensor.function(..., mode="HLOGRAPH")`` runs
    them first). A single output Variable gives a single-output Graph."""
    single = isinstance(outputs, PtVariable)
    outs = [outputs] if single else list(outputs)
    fgraph = FunctionGraph(list(inputs), outs, clone=True)
    return convert_fgraph(fgraph, input_types, single_output=single).graph
