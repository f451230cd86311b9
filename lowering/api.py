"""The compile API: ``compile(graph) -> Function``, ``Function.lower() -> Lowered``,
``Lowered.compile() -> Compiled``, as jax's ``jit(f).lower().compile()``."""

from __future__ import annotations

import threading
import weakref
from typing import Any, Sequence

import numpy as np

from ..frontend.graph import Graph
from ..frontend.types import TensorType
from ..runtime import pjrt
from ..runtime.args import ArgumentChecker, check_count, signature_of, spec_type
from ..runtime.partition import partition
from .lower import lower_graph
from .program import CompiledProgram, Program, explain, plan
from .mlir import ir, make_dispatcher, module_to_bytecode, set_x64_local, swap_x64_local

__all__ = ["compile", "Function", "Lowered", "Compiled"]

_PLATFORMS = ("cpu", "gpu", "cuda", "rocm", "tpu", None)


def compile(graph: Graph, *, pipeline: str = "O2", platform: str | None = "cpu") -> "Function":
    """Prepares ``graph`` for compilation; nothing is lowered until first use."""
    if not isinstance(graph, Graph):
        raise TypeError(f"compile() takes a hlograph.Graph, got {type(graph).__name__}")
    if platform not in _PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}; expected 'cpu', 'gpu', 'tpu' or None")
    from ..passes.pipeline import check_pipeline
    check_pipeline(pipeline)
    return Function(graph, pipeline, platform)


def _dispatching_call(self, *args: Any, output: str = "numpy"):
    """Runs the compiled code on ``args`` (NumPy arrays, jax arrays, Python
    scalars for 0-d inputs); returns NumPy arrays, or jax arrays with
    ``output="device"``: one array for a graph built with a single output
    Variable, else a tuple. On the CPU the NumPy arrays are read-only views of
    the result buffers (no copy); ``np.array(out)`` makes a writable copy.

    Raises:
        TypeError: wrong number of arguments, or an argument of the wrong dtype.
        ValueError: an argument of the wrong shape, or an unknown ``output``.
    """
    # The C++ dispatcher runs with 64-bit types enabled for this thread only:
    # with jax's default (x64 off) it would narrow float64 NumPy arguments.
    if output == "numpy":
        prev = swap_x64_local(True)
        try:
            out = self._dispatch(*args)
        finally:
            set_x64_local(prev)
        if self._single:
            return np.asarray(out)
        return tuple([np.asarray(o) for o in out])
    if output != "device":
        raise ValueError(f"output must be 'numpy' or 'device', got {output!r}")
    prev = swap_x64_local(True)
    try:
        return self._dispatch(*args)
    finally:
        set_x64_local(prev)


class Function:
    """A graph bound to a pipeline and a platform. Calling it lowers, compiles
    and runs, caching the compiled code per argument signature (dtype + shape)."""

    def __init__(self, graph: Graph, pipeline: str, platform: str | None):
        self.graph = graph
        self.pipeline = pipeline
        self.platform = platform
        self._cache: dict[tuple, Compiled] = {}
        self._lock = threading.Lock()
        self._single = graph.single_output
        # Calls go through a C++ dispatcher keyed by the call signature; a
        # signature it has not seen comes back here, to the Compiled for it.
        ref = weakref.ref(self)

        def cache_miss(*args):
            return ref()._compiled_for(args)._cache_miss(*args)

        def python_call(*args):
            return ref()._compiled_for(args)._python_call(*args)

        self._dispatch = make_dispatcher("hlograph.Function", python_call, cache_miss)

    def _specialize(self, specs: Sequence[Any]) -> Graph:
        g = self.graph
        if not specs:
            if not all(t.is_static for t in g.input_types):
                raise ValueError(
                    "lower() needs argument specs (arrays or (shape, dtype) pairs) "
                    "for inputs with unknown dimensions: "
                    + ", ".join(f"{v.name or i}: {v.type}" for i, v in enumerate(g.inputs) if not v.type.is_static)
                )
            return g
        if len(specs) != len(g.inputs):
            raise TypeError(f"expected {len(g.inputs)} argument specs, got {len(specs)}")
        types = [spec_type(s, v.type, g.inputs, i) for i, (s, v) in enumerate(zip(specs, g.inputs))]
        if types == g.input_types and all(t.is_static for t in g.output_types):
            return g
        return g.clone(types)

    def lower(self, *arg_specs: Any) -> "Lowered":
        """Lowers to StableHLO for concrete argument types and runs the pass pipeline.

        A graph with host ops is split into segments; its device segments whose
        input shapes depend on values are lowered when they first run."""
        graph = self._specialize(arg_specs)
        program = plan(graph, self.pipeline, self.platform)
        if program is not None:
            return Lowered(graph, None, self.platform, program)
        module = lower_graph(graph)
        from ..passes.pipeline import run
        run(module, self.pipeline)
        return Lowered(graph, module, self.platform)

    def explain(self) -> str:
        """What runs where and why: the segments of the graph (device modules and
        host functions), their inputs and outputs, and each op's placement."""
        return explain(self.graph, partition(self.graph))

    __call__ = _dispatching_call

    def _compiled_for(self, args: Sequence[Any]) -> "Compiled":
        """The Compiled for the signature of ``args`` (lowered and compiled on first use)."""
        key = signature_of(args)
        compiled = self._cache.get(key)
        if compiled is None:
            check_count(self.graph.inputs, args)
            with self._lock:
                compiled = self._cache.get(key)
                if compiled is None:
                    compiled = self.lower(*args).compile()
                    self._cache[key] = compiled
        return compiled

    def __repr__(self) -> str:
        return f"<Function {self.graph!r} pipeline={self.pipeline!r} platform={self.platform!r}>"


class Lowered:
    """A lowered (and optimized) StableHLO module for one argument signature; for a
    graph with host ops, its segments (``program``)."""

    def __init__(self, graph: Graph, module: ir.Module | None, platform: str | None,
                 program: Program | None = None):
        self.graph = graph
        self.platform = platform
        self.program = program
        self._module = module

    @property
    def module(self) -> ir.Module | None:
        """The StableHLO module; for a segmented graph, the first device segment's
        module that could be lowered ahead of time (None if there is none)."""
        if self.program is None:
            return self._module
        return next((lw.module for lw in self.program.lowered_modules() if lw is not None), None)

    def as_text(self, debug_info: bool = False) -> str:
        """The module as MLIR text; ``debug_info=True`` prints each op's ``loc(...)``:
        the graph node and the source line that built it. A segmented graph's text
        starts with the segment listing (``Function.explain()``) as comments."""
        if self.program is not None:
            return self.program.as_text(debug_info)
        with self._module.context:
            return self._module.operation.get_asm(enable_debug_info=debug_info)

    def compile(self) -> "Compiled | CompiledProgram":
        if self.program is not None:
            return CompiledProgram(self.program)
        bytecode = module_to_bytecode(self._module)
        loaded, device = pjrt.compile_bytecode(bytecode, self.platform)
        exe = pjrt.Executable(loaded, device, self.graph.input_types, self.graph.output_types)
        return Compiled(self.graph, exe)

    def __str__(self) -> str:
        return self.as_text()


class Compiled:
    """Compiled code for one argument signature: ``compiled(*args)`` checks the
    arguments (count, dtype, shape) and returns NumPy arrays."""

    def __init__(self, graph: Graph, executable: pjrt.Executable):
        self.graph = graph
        self.executable = executable
        self._single = single = graph.single_output
        check = ArgumentChecker(graph.inputs)
        run = executable.run

        def python_call(*args):
            outs = run(check(args))
            return outs[0] if single else tuple(outs)

        def cache_miss(*args):
            outs = run(check(args))
            fast = executable.fastpath_data(args, single, check.scalar)
            return (outs[0] if single else tuple(outs)), fast, False

        self._python_call = python_call
        self._cache_miss = cache_miss
        self._dispatch = make_dispatcher("hlograph.Compiled", python_call, cache_miss)

    __call__ = _dispatching_call

    @property
    def input_types(self) -> list[TensorType]:
        return self.graph.input_types
