"""The HLOGRAPH linker and mode: ``pytensor.function(..., mode="HLOGRAPH")``.

``HlographLinker`` is a ``JITLinker``, as PyTensor's JAX and Numba linkers are: its
``fgraph_convert`` converts the (rewritten) FunctionGraph to an hlograph graph and
compiles it with ``hlograph.compile``; the compiled function is the one thunk
PyTensor's function calls. Shared variables, ``updates`` and several outputs are
plain inputs and outputs of that graph (PyTensor's function writes the updates back).

A graph whose inputs have static shapes converts once. A graph with unknown dims is
converted once up front (to find what it needs and report its fallbacks), then
again for each new combination of argument shapes, with those shapes folded into
constants (hlograph compiles per argument shapes anyway): the checks PyTensor makes on
run-time lengths (a dim broadcast that its type does not allow, a squeeze of a dim
that is not 1) are decided at conversion, not by host checks inside the call, and the
compiled function is a static one, which jaxlib's C++ dispatcher calls. Those
conversions are kept in a least-recently-used cache of ``SHAPE_CACHE_SIZE`` (64)
entries per function: a function called with ever new shapes does not grow without
bound (an evicted combination converts and compiles again when it comes back; the
compiled executables themselves may still be in hlograph's executable cache).
Conversions are told apart by the shapes of the arguments whose PyTensor types leave
a dimension unknown (PyTensor's input filter has checked the static ones), and a
call with the last call's shapes takes its conversion without the lock.

A call costs PyTensor's function (input filters, storage), the thunk (which returns
the outputs it stores, so the function does not read them back), the compiled
function's dispatch, and a copy of each array result out of its read-only device
buffer (PyTensor's callers own and may write their results).

Small graphs on the CPU run on hlograph's host executor (``runtime/vm.py``,
``executor="auto"``): no XLA compile, and a call skips PJRT's per-call floor; the XLA
function of such a graph is compiled only when asked for (``hlograph_function``).

Random generators (PyTensor's ``RandomGeneratorType``) are, on the CPU (``rng="numpy"``),
their PCG64 state in the hlograph graph, and each random variable draws NumPy's numbers
on the host; elsewhere (``rng="keys"``) keys: the linker passes the state or key of each
Generator argument and turns each such output back into a Generator (see
``dispatch/random.py``).

In-place Ops (``destroy_map``): the HLOGRAPH mode leaves PyTensor's ``inplace``
rewrites off (every converted Op is functional; XLA reuses buffers itself), and
``mode.including("inplace")`` turns them on. An in-place Op on a graph input (an input
marked ``In(x, mutable=True)``, or an in-place Op the graph holds, compiled with
``accept_inplace=True``) overwrites the argument as PyTensor's NUMBA linker does:
what the Op leaves there is an extra output of the hlograph function, copied into the
argument's array when its layout is one the Op overwrites (``inplace.py``). Results
that share memory with an argument are copied otherwise (``_owned``).
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any

import numpy as np
from pytensor.compile.mode import Mode
from pytensor.graph.rewriting.db import RewriteDatabaseQuery
from pytensor.link.basic import JITLinker
from pytensor.link.utils import raise_with_op
from pytensor.scalar.basic import ScalarType

from ...compiler import compile as hg_compile
from ...frontend.ops.assertion import CheckError
from ...frontend.types import TensorType
from ...runtime import vm
from ...xla import log
from .convert import Conversion, NeedsShapes, convert_fgraph, input_type, is_rng_type
from .dispatch.random import generator_of, generator_of_state, key_of, state_of
from .inplace import destroyed_inputs, layout_allows
from .sparse_values import is_sparse_type, to_dense, to_scipy

__all__ = ["HlographLinker", "CompiledGraph", "mode", "HLOGRAPH_REWRITES", "compiled_graph",
           "hlograph_function", "explain", "SHAPE_CACHE_SIZE"]

#: the conversions per combination of argument shapes a function keeps (least recently
#: used first out)
SHAPE_CACHE_SIZE = 64


class HlographLinker(JITLinker):
    """A ``Linker`` that compiles the whole FunctionGraph with hlograph (StableHLO + PJRT).

    Args:
        platform: ``"cpu"``, ``"gpu"``, ``"tpu"`` or None (the best available).
        pipeline: hlograph's pass pipeline (``"O0"``, ``"O1"``, ``"O2"`` or a pipeline string).
    """

    # scan_save_mem_no_prealloc: PyTensor's memory-saving Scan rewrite in the form the JAX and
    # Numba backends use (buffers of the rows kept, no preallocated circular storage)
    required_rewrites = ("minimum_compile", "scan_save_mem_no_prealloc")
    # as the JAX linker: no C-only, BLAS or fusion rewrites (XLA fuses). The in-place
    # rewrites are off in HLOGRAPH_REWRITES only, so that a mode may turn them on.
    incompatible_rewrites = (
        "cxx_only",
        "BlasOpt",
        "local_careduce_fusion",
        "scan_reduce_trace_prealloc",
        "scan_save_mem_prealloc",  # PyTensor 2.x's name of the one above
        "fusion",
        "reuse_lu_decomposition_multiple_solves",
        "scan_split_non_sequence_lu_decomposition_solve",
    )

    def __init__(self, platform: str | None = None, pipeline: str = "O2", allow_gc: bool | None = None,
                 schedule=None, executor: str = "auto", rng: str = "auto"):
        super().__init__(allow_gc=allow_gc, schedule=schedule)
        self.platform = platform
        self.pipeline = pipeline
        self.executor = check_executor(executor)
        self.rng = check_rng(rng)

    def accept(self, fgraph, no_recycling=None, profile=None):
        if self.fgraph is not None and self.fgraph is not fgraph:
            # a linker serves one FunctionGraph: a new one keeps the settings
            new = type(self)(platform=self.platform, pipeline=self.pipeline, allow_gc=self.allow_gc,
                             executor=self.executor, rng=self.rng)
            return new.accept(fgraph, no_recycling, profile)
        return super().accept(fgraph, no_recycling, profile)

    def fgraph_convert(self, fgraph, order=None, input_storage=None, output_storage=None,
                       storage_map=None, **kwargs):
        return CompiledGraph(fgraph, platform=self.platform, pipeline=self.pipeline, executor=self.executor,
                             rng=self.rng)

    def jit_compile(self, fn):
        return fn

    def create_thunk_inputs(self, storage_map):
        return [storage_map[n] for n in self.fgraph.inputs]

    def create_jitable_thunk(self, compute_map, order, input_storage, output_storage, storage_map):
        """``JITLinker``'s one thunk, returning the outputs it stores: PyTensor's function
        then takes them from the thunk instead of reading every output's storage again."""
        output_nodes = [o.owner for o in self.fgraph.outputs if o.owner is not None][:1]
        call = self.jit_compile(self.fgraph_convert(self.fgraph, order=order, input_storage=input_storage,
                                                    output_storage=output_storage, storage_map=storage_map))
        thunk_inputs = self.create_thunk_inputs(storage_map)
        thunk_outputs = [storage_map[n] for n in self.fgraph.outputs]
        fgraph = self.fgraph

        def thunk():
            try:
                outputs = call(*[x[0] for x in thunk_inputs])
            except Exception:
                if not output_nodes:
                    raise
                raise_with_op(fgraph, output_nodes[0], thunk)
            if outputs is None:  # a graph without outputs
                return thunk_outputs
            for o_storage, o_val in zip(thunk_outputs, outputs):
                o_storage[0] = o_val
            return outputs

        thunk.inputs = thunk_inputs
        thunk.outputs = thunk_outputs
        thunk.lazy = False
        return [thunk], output_nodes, call

    def __repr__(self) -> str:
        return (f"HlographLinker(platform={self.platform!r}, pipeline={self.pipeline!r}, "
                f"executor={self.executor!r}, rng={self.rng!r})")


#: the ``executor`` settings: "auto" runs a small graph (static shapes, every node one the
#: host executor takes, no value above ``vm.MAX_ELEMENTS`` elements, at most ``vm.MAX_WORK``
#: operations per call) on the host executor
#: when the platform is the CPU, and everything else through XLA; "xla" always uses XLA
EXECUTORS = ("auto", "xla")


def check_executor(executor: str) -> str:
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(map(repr, EXECUTORS))}, got {executor!r}")
    return executor


#: the ``rng`` settings: "numpy" draws NumPy's numbers (each random variable runs its
#: perform on the host with the Generator's PCG64 state, as PyTensor's CPU backends draw),
#: "keys" hlograph's counter-based keys (on the device; other numbers), "auto" NumPy's
#: on the CPU and keys on GPU and TPU
RNGS = ("auto", "numpy", "keys")


def check_rng(rng: str) -> str:
    if rng not in RNGS:
        raise ValueError(f"rng must be one of {', '.join(map(repr, RNGS))}, got {rng!r}")
    return rng


class _Entry:
    """What runs a conversion: ``run(*args) -> outputs``, the compiled hlograph function
    (``function``: compiled on first use when the host executor runs the graph) and what
    the conversion recorded."""

    __slots__ = ("run", "conversion", "program", "_function", "_compile")

    def __init__(self, function, conversion: Conversion, program=None, compile_function=None):
        #: the host executor's Program, or None (XLA runs the graph)
        self.program = program
        self.run = function if program is None else program
        self._function = function
        self._compile = compile_function
        self.conversion = conversion

    @property
    def function(self):
        """The ``hlograph.compiler.Function`` of the conversion (its StableHLO, ``explain()``)."""
        if self._function is None:
            self._function = self._compile()
        return self._function


class CompiledGraph:
    """The callable of a FunctionGraph compiled with hlograph: ``(*args) -> [outputs]``
    (NumPy arrays the caller owns)."""

    def __init__(self, fgraph, platform: str | None = None, pipeline: str = "O2", executor: str = "auto",
                 rng: str = "auto"):
        self.fgraph = fgraph
        self.platform = platform
        self.pipeline = pipeline
        self.executor = check_executor(executor)
        check_rng(rng)
        self._cpu = _on_cpu(platform)
        #: how random generators go into the graph: "numpy" (their PCG64 state) or "keys"
        self.rng = rng if rng != "auto" else "numpy" if self._cpu else "keys"
        self._rng_in, self._rng_out = (state_of, generator_of_state) if self.rng == "numpy" \
            else (key_of, generator_of)
        self._lock = threading.Lock()
        self._by_shapes: OrderedDict[tuple, _Entry] = OrderedDict()
        self._last: _Entry | None = None
        self._generic: _Entry | None = None
        # outputs of PyTensor's scalar types come back as NumPy scalars, as PyTensor gives them
        self._scalar_outputs = [isinstance(v.type, ScalarType) for v in fgraph.outputs]
        # random generators: a key in, a key out (dispatch/random.py)
        self._rng_inputs = [i for i, v in enumerate(fgraph.inputs) if is_rng_type(v.type)]
        self._rng_outputs = [is_rng_type(v.type) for v in fgraph.outputs]
        # a generator output that is an input passed through (updates={rng: other_rng}):
        # that input's Generator itself (a copy), not a new one from its key
        self._rng_passthrough = {j: _passed_input(fgraph, v) for j, v in enumerate(fgraph.outputs)
                                 if is_rng_type(v.type) and _passed_input(fgraph, v) is not None}
        # in-place results on inputs: extra outputs, copied into the arguments' arrays
        # (each conversion's ``writebacks``: inplace.py)
        self._overwrites = writes = destroyed_inputs(fgraph)
        # sparse matrices: dense arrays in the graph, SciPy matrices out (sparse_values.py)
        self._sparse_inputs = [(i, v.type) for i, v in enumerate(fgraph.inputs) if is_sparse_type(v.type)]
        self._sparse_outputs = [(j, v.type) for j, v in enumerate(fgraph.outputs) if is_sparse_type(v.type)]
        # the common case, called without per-call work on generators: no generator in or out
        self._plain = (not self._rng_inputs and not any(self._rng_outputs) and not writes
                       and not self._sparse_inputs and not self._sparse_outputs)
        # per output: 0 an array (owned), 1 a NumPy scalar, 2 a Generator
        self._out_kinds = tuple(2 if rng else 1 if scalar else 0
                                for scalar, rng in zip(self._scalar_outputs, self._rng_outputs))
        self._all_arrays = not any(self._out_kinds)
        # the inputs whose shapes tell conversions apart: a static shape in the PyTensor type
        # (0-d, scalars, keys, fixed dims) is the same on every call that passes its filter
        self._keyed = tuple(i for i, v in enumerate(fgraph.inputs)
                            if (t := input_type(v.type, self.rng)) is None or not t.is_static)
        # the shape key of the last call and its entry (one attribute: threads read it whole)
        self._recent: tuple[tuple, _Entry] | None = None
        if not fgraph.outputs:
            return
        try:
            conv = convert_fgraph(fgraph, probe=True, overwrites=self._overwrites, rng=self.rng)
        except NeedsShapes:
            conv = None
        if conv is not None and not conv.shape_dependent and not self._keyed:
            self._generic = self._compile(conv)
        # the conversion for all shapes, of a graph converted per shapes: what
        # ``explain(fn)`` describes before a call (compiled on demand)
        self._probe = conv
        self._probe_entry: _Entry | None = None

    @property
    def specialized(self) -> bool:
        """True when the graph is converted per combination of argument shapes."""
        return self._generic is None

    def _compile(self, conv: Conversion) -> _Entry:
        def compile_function():
            return hg_compile(conv.graph, pipeline=self.pipeline, platform=self.platform)

        if self.executor == "auto" and self._cpu:
            try:
                program = vm.assemble(conv.graph, max_work=vm.MAX_WORK)
            except vm.Unsupported:
                program = None
            except Exception:  # noqa: BLE001 - the executor's own failure: XLA runs the graph
                log.COMPILE.debug("host executor: assembling failed", exc_info=True)
                program = None
            if program is not None:
                return _Entry(None, conv, program, compile_function)
        return _Entry(compile_function(), conv)

    def entry_for(self, args) -> _Entry:
        """The compiled function for arguments ``args`` (converted for their shapes if
        the graph needs them)."""
        if self._generic is not None:
            return self._generic
        key = self._shape_key(args)
        recent = self._recent
        if recent is not None and recent[0] == key:
            return recent[1]
        return self._entry_for_key(key, args)

    def _shape_key(self, args) -> tuple:
        """The shapes of the arguments whose PyTensor types leave some dimension unknown."""
        try:
            return tuple([args[i].shape for i in self._keyed])
        except AttributeError:  # a Python number or list passed directly
            return tuple([np.shape(args[i]) for i in self._keyed])

    def _entry_for_key(self, key: tuple, args) -> _Entry:
        with self._lock:
            entry = self._by_shapes.get(key)
            if entry is not None:
                self._by_shapes.move_to_end(key)
            else:
                types = [_argument_type(i, v, a, self.rng) for i, (v, a) in enumerate(zip(self.fgraph.inputs, args))]
                entry = self._compile(convert_fgraph(self.fgraph, types, overwrites=self._overwrites,
                                                     rng=self.rng))
                self._by_shapes[key] = entry
                while len(self._by_shapes) > SHAPE_CACHE_SIZE:
                    self._by_shapes.popitem(last=False)
        self._last = entry
        self._recent = (key, entry)
        return entry

    def conversions(self) -> list[Conversion]:
        """Every conversion made so far: one, or one per combination of argument shapes."""
        if self._generic is not None:
            return [self._generic.conversion]
        return [e.conversion for e in list(self._by_shapes.values())]

    def last_entry(self) -> _Entry | None:
        """The entry of the last call; before any, the conversion for all shapes."""
        entry = self._generic or self._last
        if entry is None and self._probe is not None:
            if self._probe_entry is None:
                self._probe_entry = self._compile(self._probe)
            entry = self._probe_entry
        return entry

    def hlograph_args(self, args) -> list:
        """``args`` as the compiled function takes them: a key for each random generator,
        a dense array for each sparse matrix."""
        args = list(args)
        for i in self._rng_inputs:
            args[i] = self._rng_in(args[i])
        for i, t in self._sparse_inputs:
            args[i] = to_dense(t, args[i])
        return args

    def __call__(self, *args):
        entry = self._generic
        if entry is None:
            if not self.fgraph.outputs:
                return None
            if self._plain:
                # the common case: the entry of the last call's shapes, without the lock
                key = self._shape_key(args)
                recent = self._recent
                entry = recent[1] if recent is not None and recent[0] == key else self._entry_for_key(key, args)
        if self._plain:
            program = entry.program
            if program is not None:  # new arrays the caller owns
                outs = program.raw(*args)
                if outs is NotImplemented:  # arguments to convert (or to report)
                    outs = program(*args)
                if self._all_arrays:
                    return list(outs)
                return [o if kind == 0 else o[()] for o, kind in zip(outs, self._out_kinds)]
            try:
                outs = entry.run(*args)
            except CheckError as e:
                raise _check_error(entry, e) from None
            return [_owned(o, args) if kind == 0 else o[()] for o, kind in zip(outs, self._out_kinds)]
        return self._call_with_generators(entry, args)

    def _call_with_generators(self, entry: _Entry | None, args) -> list:
        generators = args
        args = self.hlograph_args(args)
        if entry is None:
            entry = self.entry_for(args)
        try:
            outs = entry.run(*args)
        except CheckError as e:
            raise _check_error(entry, e) from None
        res = [_owned(o, args) if kind == 0 else o[()] if kind == 1 else self._rng_out(o)
               for o, kind in zip(outs, self._out_kinds)]
        for w in entry.conversion.writebacks:
            arg = generators[w.input_index]
            if _write_back(arg, outs[w.output], w.layout):
                # an output that is the in-place result is that argument's array itself,
                # as in PyTensor's other linkers
                for j in w.results:
                    res[j] = arg
        for j, i in self._rng_passthrough.items():
            res[j] = copy.deepcopy(generators[i])
        for j, t in self._sparse_outputs:
            res[j] = to_scipy(t, res[j])
        return res


def _on_cpu(platform: str | None) -> bool:
    """Whether graphs compiled for ``platform`` (None: the best available) run on the CPU."""
    if platform is not None:
        return platform == "cpu"
    from ...runtime.devices import default_platform
    return default_platform() == "cpu"


def _argument_type(i: int, v, arg, rng: str = "keys") -> TensorType:
    """The static hlograph type of argument ``i`` for input ``v`` (its PyTensor type's
    dtype, the argument's shape); ValueError for an argument of another rank (a call
    with ``trust_input``)."""
    t = input_type(v.type, rng)
    shape = np.shape(arg)
    if len(shape) != t.ndim:
        raise ValueError(f"argument {i} ({v.name or v}): expected shape {t.shape} for {v.type}, "
                         f"got an array of shape {shape}")
    return TensorType(t.dtype, shape)


def _write_back(arg: Any, value: np.ndarray, layout: str) -> bool:
    """Writes what an in-place Op leaves in the argument it overwrites into its array
    (nothing to write into for a Python number, a read-only or differently shaped array,
    or one in a layout the Op copies: ``inplace.layout_allows``); True when written."""
    if layout_allows(arg, value.shape, layout):
        np.copyto(arg, value, casting="unsafe")
        return True
    return False


def _check_error(entry: _Entry, e: CheckError) -> Exception:
    """The PyTensor exception of a failed assertion (``Assert``, ``CheckAndRaise``), or ``e``."""
    exc = entry.conversion.checks.get(str(e))
    return e if exc is None else exc(str(e))


def _passed_input(fgraph, v) -> int | None:
    """The index of the graph input that output ``v`` is (through copies and views), or None."""
    while v.owner is not None and type(v.owner.op).__name__ in ("DeepCopyOp", "ViewOp", "OutputGuard"):
        v = v.owner.inputs[0]
    if v.owner is None and v in fgraph.inputs:
        return fgraph.inputs.index(v)
    return None


def _owned(out: np.ndarray, args) -> np.ndarray:
    """``out`` as an array the caller may keep and write: a copy of a read-only view of a
    device buffer, or of a host result that shares memory with an argument."""
    if not out.flags.writeable:
        return out.copy()
    for a in args:
        if isinstance(a, np.ndarray) and np.may_share_memory(out, a):
            return out.copy()
    return out


class HlographRewrites(RewriteDatabaseQuery):
    """The rewrite query of the HLOGRAPH mode: a ``RewriteDatabaseQuery`` whose
    ``including`` also turns on the tags the mode leaves off by default
    (``OPTIONAL_TAGS``: ``"inplace"``), which a plain query would keep excluded."""

    #: tags off by default that ``including`` turns on
    OPTIONAL_TAGS = ("inplace",)

    def _with(self, q: RewriteDatabaseQuery) -> "HlographRewrites":
        return HlographRewrites(q.include, q.require, q.exclude, q.subquery, q.position_cutoff,
                                q.extra_rewrites)

    def including(self, *tags: str) -> "HlographRewrites":
        q = self._with(super().including(*tags))
        q.exclude = type(q.exclude)(t for t in q.exclude if t not in tags or t not in self.OPTIONAL_TAGS)
        return q

    def excluding(self, *tags: str) -> "HlographRewrites":
        return self._with(super().excluding(*tags))

    def requiring(self, *tags: str) -> "HlographRewrites":
        return self._with(super().requiring(*tags))

    def register(self, *rewrites) -> "HlographRewrites":
        return self._with(super().register(*rewrites))


#: the rewrites of the HLOGRAPH mode (PyTensor's fast_run ones, without those the
#: linker cannot use, which PyTensor 3 also takes from the linker itself, and without
#: the in-place ones: ``HLOGRAPH_REWRITES.including("inplace")`` has them)
HLOGRAPH_REWRITES = HlographRewrites(include=["fast_run", *HlographLinker.required_rewrites],
                                     exclude=[*HlographLinker.incompatible_rewrites,
                                              *HlographRewrites.OPTIONAL_TAGS])


def mode(platform: str | None = None, pipeline: str = "O2", executor: str = "auto", rng: str = "auto") -> Mode:
    """A PyTensor ``Mode`` compiling with hlograph on ``platform`` with ``pipeline``
    (``mode="HLOGRAPH"`` is ``mode()``). ``executor="auto"`` runs small graphs on the CPU
    with hlograph's host executor (``hlograph.runtime.vm``: no XLA compile, a few
    microseconds per call), ``"xla"`` compiles every graph with XLA. ``rng``: ``"numpy"``
    draws NumPy's numbers from PyTensor's Generators (as its C and NUMBA backends: each
    random variable runs on the host), ``"keys"`` hlograph's counter-based keys (on the
    device, other numbers), ``"auto"`` (the default) NumPy's on the CPU, keys elsewhere."""
    from ...passes.pipeline import check_pipeline
    from ...runtime.devices import check_platform
    check_platform(platform)
    check_pipeline(pipeline)
    check_executor(executor)
    check_rng(rng)
    return Mode(HlographLinker(platform=platform, pipeline=pipeline, executor=executor, rng=rng),
                HLOGRAPH_REWRITES)


# --- from a compiled PyTensor function to its hlograph function ----------------------------
def compiled_graph(fn) -> CompiledGraph:
    """The ``CompiledGraph`` of a function compiled by ``pytensor.function`` with the
    HLOGRAPH mode (or another mode with ``HlographLinker``)."""
    for attr in ("vm", "fn"):
        thunk = getattr(fn, attr, None)
        jit = getattr(thunk, "jit_fn", None)
        if isinstance(jit, CompiledGraph):
            return jit
    raise TypeError(f"{fn!r} is not a PyTensor function compiled with the HLOGRAPH mode")


def _entry(fn, args) -> _Entry:
    cg = compiled_graph(fn)
    if args:
        inputs = [v for v in cg.fgraph.inputs]
        n_user = len(args)
        if n_user != len(inputs):
            # shared variables come after the user's inputs: their current values
            storage = getattr(fn, "input_storage", None)
            if storage is None or n_user > len(inputs):
                raise TypeError(f"expected {len(inputs)} arguments, got {n_user}")
            args = tuple(args) + tuple(c.data for c in storage[n_user:])
        return cg.entry_for([np.asarray(a) for a in cg.hlograph_args(args)])
    entry = cg.last_entry()
    if entry is None:
        raise ValueError("this function's graph is converted per argument shapes: call it first, "
                         "or pass arguments")
    return entry


def hlograph_function(fn, *args: Any):
    """The ``hlograph.compiler.Function`` behind a compiled PyTensor function: for the
    arguments ``args`` when given (a graph converted per argument shapes has one per
    shapes), else the one of the last call. (For a graph the host executor runs, the
    function XLA would run, compiled on this first request.)"""
    return _entry(fn, args).function


def explain(fn, *args: Any) -> str:
    """``Function.explain()`` of the hlograph function behind a PyTensor function
    compiled with the HLOGRAPH mode: what runs where (device modules, host segments,
    PyTensor Ops run by their perform) and why; a graph the host executor runs says so
    first."""
    entry = _entry(fn, args)
    text = entry.function.explain()
    if entry.program is not None:
        text = (entry.program.explain() + " (executor='auto'); through XLA (executor='xla') it would "
                "run as:\n" + text)
    return text
