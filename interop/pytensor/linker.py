"""The HLOGRAPH linker and mode: ``pytensor.function(..., mode="HLOGRAPH")``.

``HlographLinker`` is a ``JITLinker``, as PyTensor's JAX and Numba linkers are: its
``fgraph_convert`` converts the (rewritten) FunctionGraph to an hlograph graph and
compiles it with ``hlograph.compile``; the compiled function is the one thunk
PyTensor's function calls. Shared variables, ``updates`` and several outputs are
plain inputs and outputs of that graph (PyTensor's function writes the updates back).

A graph converts once when every node converts whatever the input shapes; a graph
whose conversion needs shapes (``Alloc`` of ``x.shape``, slices up to ``n - 1``,
...) is converted again for each new combination of argument shapes, with those
shapes folded into constants (hlograph compiles per argument shapes anyway).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from pytensor.compile.mode import Mode
from pytensor.graph.rewriting.db import RewriteDatabaseQuery
from pytensor.link.basic import JITLinker
from pytensor.scalar.basic import ScalarType

from ...compiler import compile as hg_compile
from ...frontend.ops.assertion import CheckError
from ...frontend.types import TensorType
from .convert import Conversion, NeedsShapes, convert_fgraph

__all__ = ["HlographLinker", "CompiledGraph", "mode", "HLOGRAPH_REWRITES", "compiled_graph",
           "hlograph_function", "explain"]


class HlographLinker(JITLinker):
    """A ``Linker`` that compiles the whole FunctionGraph with hlograph (StableHLO + PJRT).

    Args:
        platform: ``"cpu"``, ``"gpu"``, ``"tpu"`` or None (the best available).
        pipeline: hlograph's pass pipeline (``"O0"``, ``"O1"``, ``"O2"`` or a pipeline string).
    """

    required_rewrites = ("minimum_compile",)
    # as the JAX linker: no C-only, BLAS, in-place or fusion rewrites (XLA fuses; every
    # hlograph Op is functional)
    incompatible_rewrites = (
        "cxx_only",
        "BlasOpt",
        "local_careduce_fusion",
        "scan_reduce_trace_prealloc",
        "inplace",
        "fusion",
        "reuse_lu_decomposition_multiple_solves",
        "scan_split_non_sequence_lu_decomposition_solve",
    )

    def __init__(self, platform: str | None = None, pipeline: str = "O2", allow_gc: bool | None = None,
                 schedule=None):
        super().__init__(allow_gc=allow_gc, schedule=schedule)
        self.platform = platform
        self.pipeline = pipeline

    def accept(self, fgraph, no_recycling=None, profile=None):
        if self.fgraph is not None and self.fgraph is not fgraph:
            # a linker serves one FunctionGraph: a new one keeps the settings
            new = type(self)(platform=self.platform, pipeline=self.pipeline, allow_gc=self.allow_gc)
            return new.accept(fgraph, no_recycling, profile)
        return super().accept(fgraph, no_recycling, profile)

    def fgraph_convert(self, fgraph, order=None, input_storage=None, output_storage=None,
                       storage_map=None, **kwargs):
        return CompiledGraph(fgraph, platform=self.platform, pipeline=self.pipeline)

    def jit_compile(self, fn):
        return fn

    def create_thunk_inputs(self, storage_map):
        return [storage_map[n] for n in self.fgraph.inputs]

    def __repr__(self) -> str:
        return f"HlographLinker(platform={self.platform!r}, pipeline={self.pipeline!r})"


class _Entry:
    """A compiled hlograph function and what the conversion recorded."""

    __slots__ = ("function", "conversion")

    def __init__(self, function, conversion: Conversion):
        self.function = function
        self.conversion = conversion


class CompiledGraph:
    """The callable of a FunctionGraph compiled with hlograph: ``(*args) -> [outputs]``
    (NumPy arrays the caller owns)."""

    def __init__(self, fgraph, platform: str | None = None, pipeline: str = "O2"):
        self.fgraph = fgraph
        self.platform = platform
        self.pipeline = pipeline
        self._lock = threading.Lock()
        self._by_shapes: dict[tuple, _Entry] = {}
        self._last: _Entry | None = None
        self._generic: _Entry | None = None
        # outputs of PyTensor's scalar types come back as NumPy scalars, as PyTensor gives them
        self._scalar_outputs = [isinstance(v.type, ScalarType) for v in fgraph.outputs]
        if not fgraph.outputs:
            return
        try:
            conv = convert_fgraph(fgraph, probe=True)
        except NeedsShapes:
            conv = None
        if conv is not None and not conv.shape_dependent:
            self._generic = self._compile(conv)

    @property
    def specialized(self) -> bool:
        """True when the graph is converted per combination of argument shapes."""
        return self._generic is None

    def _compile(self, conv: Conversion) -> _Entry:
        fn = hg_compile(conv.graph, pipeline=self.pipeline, platform=self.platform)
        return _Entry(fn, conv)

    def entry_for(self, args) -> _Entry:
        """The compiled function for arguments ``args`` (converted for their shapes if
        the graph needs them)."""
        if self._generic is not None:
            return self._generic
        key = tuple(np.shape(a) for a in args)
        entry = self._by_shapes.get(key)
        if entry is None:
            with self._lock:
                entry = self._by_shapes.get(key)
                if entry is None:
                    types = [TensorType(v.type.dtype, s) for v, s in zip(self.fgraph.inputs, key)]
                    entry = self._compile(convert_fgraph(self.fgraph, types))
                    self._by_shapes[key] = entry
        self._last = entry
        return entry

    def conversions(self) -> list[Conversion]:
        """Every conversion made so far: one, or one per combination of argument shapes."""
        if self._generic is not None:
            return [self._generic.conversion]
        return [e.conversion for e in list(self._by_shapes.values())]

    def last_entry(self) -> _Entry | None:
        return self._generic or self._last

    def __call__(self, *args):
        if not self.fgraph.outputs:
            return None
        entry = self._generic or self.entry_for(args)
        try:
            outs = entry.function(*args)
        except CheckError as e:
            exc = entry.conversion.checks.get(str(e))
            if exc is None:
                raise
            raise exc(str(e)) from None
        return [o[()] if scalar else _owned(o, args) for o, scalar in zip(outs, self._scalar_outputs)]


def _owned(out: np.ndarray, args) -> np.ndarray:
    """``out`` as an array the caller may keep and write: a copy of a read-only view of a
    device buffer, or of a host result that shares memory with an argument."""
    if not out.flags.writeable:
        return np.array(out)
    for a in args:
        if isinstance(a, np.ndarray) and np.may_share_memory(out, a):
            return np.array(out)
    return out


#: the rewrites of the HLOGRAPH mode (PyTensor's fast_run ones, without those the
#: linker cannot use; PyTensor 3 also takes them from the linker itself)
HLOGRAPH_REWRITES = RewriteDatabaseQuery(include=["fast_run", *HlographLinker.required_rewrites],
                                         exclude=list(HlographLinker.incompatible_rewrites))


def mode(platform: str | None = None, pipeline: str = "O2") -> Mode:
    """A PyTensor ``Mode`` compiling with hlograph on ``platform`` with ``pipeline``
    (``mode="HLOGRAPH"`` is ``mode()``)."""
    from ...passes.pipeline import check_pipeline
    from ...runtime.devices import check_platform
    check_platform(platform)
    check_pipeline(pipeline)
    return Mode(HlographLinker(platform=platform, pipeline=pipeline), HLOGRAPH_REWRITES)


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


def hlograph_function(fn, *args: Any):
    """The ``hlograph.compiler.Function`` behind a compiled PyTensor function: for the
    arguments ``args`` when given (a graph converted per argument shapes has one per
    shapes), else the one of the last call."""
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
        return cg.entry_for([np.asarray(a) for a in args]).function
    entry = cg.last_entry()
    if entry is None:
        raise ValueError("this function's graph is converted per argument shapes: call it first, "
                         "or pass arguments")
    return entry.function


def explain(fn, *args: Any) -> str:
    """``Function.explain()`` of the hlograph function behind a PyTensor function
    compiled with the HLOGRAPH mode: what runs where (device modules, host segments,
    PyTensor Ops run by their perform) and why."""
    return hlograph_function(fn, *args).explain()
