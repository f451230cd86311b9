"""The compile API: ``compile(graph) -> Function``, ``Function.lower() -> Lowered``,
``Lowered.compile() -> Compiled``, as jax's ``jit(f).lower().compile()``."""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Any, Sequence

from ..frontend.graph import Graph
from ..frontend.types import TensorType
from ..runtime import executables
from ..runtime.devices import check_device, check_platform, resolve_device
from ..runtime.args import ArgumentChecker, check_count, signature_of, spec_type
from . import graph_key, picture
from .collector import paused as collector_paused
from .partition import partition, will_split
from ..lowering.lower import CompileError, lower_graph, set_argument_attribute
from .program import CompiledProgram, Program, explain, plan
from .pytrees import with_pytrees
from .symbolic import PolymorphicModule, SymbolicShapeError, check_named_sizes, signature_graph
from ..frontend.symbolic import parse_constraints
from ..runtime.dispatch import Dispatching
from ..runtime.host.calls import HOST_CALLS
from ..xla import log
from ..xla.log import timed
from ..runtime.cache import store_module
from ..xla.export import prepare_custom_call_targets
from ..xla.mlir import ir, module_fingerprint, module_to_bytecode
from ..xla.pjrt import (JaxRuntimeError, executable_cost_analysis, executable_hlo_text,
                        executable_memory_analysis, make_dispatcher, module_cost_analysis)

__all__ = ["compile", "Function", "Lowered", "Compiled"]

def compile(graph: Graph, *, pipeline: str = "O2", platform: str | None = None,
            device: Any = None, donate_argnums: int | Sequence[int] = (),
            mesh: Any = None, in_shardings: Any = None, out_shardings: Any = None,
            dim_constraints: Sequence[str] = ()) -> "Function":
    """Prepares ``graph`` for compilation; nothing is lowered until first use.

    Args:
        graph: the graph to compile.
        pipeline: ``"O0"``, ``"O1"``, ``"O2"`` or a pass pipeline (``hlograph-opt`` syntax).
        platform: ``"cpu"``, ``"gpu"``, ``"tpu"`` or None for the best one available.
        device: None (the platform's first device), an index into the platform's
            devices, or a jax ``Device`` (its platform wins over ``platform=None``).
        donate_argnums: inputs whose device buffers the computation may reuse for
            its results. A jax array passed there is deleted by the call; NumPy
            arguments are unaffected (their transferred copy is donated). As with
            jax, donation is a permission: XLA uses the buffers it can.
        mesh: compile for all the devices of a mesh (``hg.Mesh``, ``hg.make_mesh``
            or a ``jax.sharding.Mesh``); XLA's SPMD partitioner splits the graph
            (see compiler/sharded.py).
        in_shardings: with a mesh, one partition spec per input (``hg.P(...)``, a
            tuple, a jax ``PartitionSpec`` or ``NamedSharding``; None: replicated),
            or one ``hg.P(...)`` for all inputs.
        out_shardings: the same per output (None: as XLA's propagation chooses).
        dim_constraints: bounds of the inputs' named unknown dims, as jax.export's
            (``["batch >= 16", "batch <= 4096"]``; every dim is >= 1 anyway): the
            shape-polymorphic lowering (``Function.lower(symbolic=True)``) may rely
            on them, and a call outside them is a ValueError.

    Raises:
        TypeError: ``graph`` is not a Graph; a bad ``device`` or ``donate_argnums``.
        ValueError: an unknown platform or pipeline, a device index out of range,
            a donated input index out of range or given twice.
    """
    if not isinstance(graph, Graph):
        raise TypeError(f"compile() takes a hlograph.Graph, got {type(graph).__name__}")
    check_platform(platform)
    check_device(device)
    donate = _donated_inputs(donate_argnums, len(graph.inputs))
    from ..passes.pipeline import PIPELINES, check_pipeline
    if not (isinstance(pipeline, str) and pipeline in PIPELINES):  # named ones are valid: no MLIR needed
        check_pipeline(pipeline)
    if mesh is not None or in_shardings is not None or out_shardings is not None:
        if device is not None or donate:
            raise ValueError("device= and donate_argnums= cannot be combined with mesh/in_shardings/out_shardings")
        from .sharded import sharded_function
        return with_pytrees(sharded_function(graph, pipeline, platform, mesh, in_shardings, out_shardings))
    constraints = parse_constraints(dim_constraints)
    return with_pytrees(Function(graph, pipeline, platform, device=device, donate_argnums=donate,
                                 dim_constraints=constraints))


def _check_constraint_names(graph: Graph, constraints: dict) -> None:
    names = {n for v in graph.inputs for n in (getattr(v, "dim_names", None) or ()) if n}
    unknown = sorted(set(constraints) - names)
    if unknown:
        raise ValueError(f"dim_constraints name {', '.join(map(repr, unknown))}, which no input's shape "
                         f"names (the named dims: {', '.join(sorted(names)) or 'none'})")


def _types_text(specs: Sequence[Any]) -> str:
    """Argument specs as a short text for log lines (their types when they have them)."""
    if not specs:
        return "its declared types"
    parts = []
    for s in specs:
        dtype, shape = getattr(s, "dtype", None), getattr(s, "shape", None)
        if dtype is None and isinstance(s, tuple) and len(s) == 2:
            shape, dtype = s
        parts.append(type(s).__name__ if dtype is None else f"{dtype}{list(shape or ())}")
    return "(" + ", ".join(parts) + ")"


def _donated_inputs(argnums: int | Sequence[int], n_inputs: int) -> tuple[int, ...]:
    """``donate_argnums`` as sorted non-negative input indices."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        argnums = (argnums,)
    try:
        items = list(argnums)
    except TypeError:
        raise TypeError(f"donate_argnums must be an int or a sequence of ints, got {argnums!r}") from None
    out: set[int] = set()
    for i in items:
        if not isinstance(i, int) or isinstance(i, bool):
            raise TypeError(f"donate_argnums must hold ints, got {i!r}")
        if not -n_inputs <= i < n_inputs:
            raise ValueError(f"donate_argnums: input {i} out of range for a graph with {n_inputs} inputs")
        j = i % n_inputs
        if j in out:
            raise ValueError(f"donate_argnums: input {j} given twice")
        out.add(j)
    return tuple(sorted(out))


class Function(Dispatching):
    """A graph bound to a pipeline and a device. Calling it lowers, compiles
    and runs, caching the compiled code per argument signature (dtype + shape).

    ``fn(*args, output="numpy")`` takes NumPy arrays, jax arrays, Python scalars
    (for 0-d inputs) and DLPack producers, and returns NumPy arrays, or jax
    arrays with ``output="device"``: one array for a graph built with a single
    output Variable, else a tuple. On the CPU the NumPy arrays are read-only
    views of the result buffers (no copy); ``np.array(out)`` makes a writable
    copy. Wrong argument count or dtype raise TypeError, a wrong shape or an
    unknown ``output`` ValueError, naming the argument. (The call itself is
    ``runtime.dispatch.Dispatching``: jaxlib's C++ dispatcher, entered from C.)

    Safe to call from several threads at once; a signature seen for the first
    time is compiled once, by one of the threads calling with it."""

    #: the mesh the graph is compiled for (``ShardedFunction``); None: one device
    mesh = None

    def __init__(self, graph: Graph, pipeline: str, platform: str | None, *,
                 device: Any = None, donate_argnums: Sequence[int] = (),
                 dim_constraints: dict | None = None):
        self.graph = graph
        #: bounds of named dims (``frontend.symbolic.parse_constraints``)
        self.dim_constraints = dict(dim_constraints or {})
        _check_constraint_names(graph, self.dim_constraints)
        self.pipeline = pipeline
        self.platform = platform
        self.donate_argnums = tuple(donate_argnums)
        self._device_spec = device
        self._device = None
        self._cache: dict[tuple, Compiled] = {}
        #: the PolymorphicModule, or why there is none (str); None: not tried yet
        self._poly = None
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
        self._bind_graph(self._dispatch, graph)

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

    @property
    def device(self):
        """The jax ``Device`` this function runs on (resolved on first use)."""
        if self._device is None:
            self._device = resolve_device(self.platform, self._device_spec)
        return self._device

    def lower(self, *arg_specs: Any, symbolic: bool = False) -> "Lowered":
        """Lowers to StableHLO for concrete argument types and runs the pass pipeline.

        A graph with host ops is split into segments; its device segments whose
        input shapes depend on values are lowered when they first run.

        ``symbolic=True`` (no specs): the shape-polymorphic module, lowered once
        with the inputs' unknown dims symbolic (``?`` in the module; a named dim,
        ``hg.tensor("x", ("b", 4))``, shared by every input naming it), for
        ``as_text()`` and ``serialize()`` (``hlograph.load`` refines it per call).
        Calling the function uses it too: each new shape refines it and compiles,
        without lowering again.

        Raises:
            SymbolicShapeError: ``symbolic=True`` for a graph an op of which needs
                static shapes (named in the message), or that has host ops.
        """
        if symbolic:
            if arg_specs:
                raise TypeError("lower(symbolic=True) takes no argument specs")
            poly = self._polymorphic(required=True)
            return Lowered(poly.symbolic_graph, poly.module, self.device)
        with collector_paused():
            return self._lower(arg_specs, split=False)

    def _lower(self, arg_specs: Sequence[Any], split: bool) -> "Lowered":
        """``lower`` for concrete specs; ``split``: a large device graph becomes several
        parts, each its own module (as calls run it; ``lower()`` keeps one module)."""
        with timed(log.LOWER, "specialized %r to %s and placed its nodes", self.graph,
                   _types_text(arg_specs) if log.LOWER.isEnabledFor(logging.INFO) else ""):
            graph = self._specialize(arg_specs)
            device = self.device
            split = split and self.mesh is None and will_split(graph)
            key = None
            if not split:  # a warm process finds the optimized module by the graph's key
                key, stored = graph_key.lookup(graph, self.pipeline, device, self.donate_argnums, self.mesh)
                if stored is not None:
                    return Lowered(graph, None, device, key=key, stored=stored)
            program = plan(graph, self.pipeline, device, split)
        if program is not None:
            log.LOWER.info("%r runs in %d segments (%s)", graph, len(program.segments),
                           ", ".join(s.kind for s in program.segments))
            return Lowered(graph, None, device, program)
        module = lower_graph(graph, platform=device.platform, mesh=self.mesh, host_calls=HOST_CALLS)
        self._optimize(module)
        return Lowered(graph, module, device, key=key)

    def _optimize(self, module: ir.Module) -> None:
        """Runs the pass pipeline on ``module`` (verified once, after the last pass)
        and marks the donated arguments."""
        from ..passes.pipeline import run
        run(module, self.pipeline, verify_each=False, verify=True)
        for i in self.donate_argnums:
            set_argument_attribute(module, i, "jax.buffer_donor", True)

    def _polymorphic(self, required: bool = False) -> "PolymorphicModule | None":
        """The graph lowered once with symbolic dims (built on first use; None where
        the graph cannot be, with the reason logged, or raised if ``required``)."""
        poly = self._poly
        if poly is None:
            reason = None
            if all(t.is_static for t in self.graph.input_types):
                reason = "its inputs have no unknown dims"
            elif self.mesh is not None:
                reason = "it is sharded over a mesh"
            if reason is None:
                try:
                    with timed(log.LOWER, "lowered %r once with symbolic dims", self.graph):
                        poly = PolymorphicModule(self.graph, self.device.platform, self.dim_constraints)
                except SymbolicShapeError as e:
                    reason = str(e)
            if reason is not None:
                poly = reason
                log.LOWER.info("%r: no shape-polymorphic lowering (%s); each new shape lowers again",
                               self.graph, reason)
            self._poly = poly
        if isinstance(poly, str):
            if required:
                raise SymbolicShapeError(poly if poly.startswith("<") else f"{self.graph!r}: {poly}")
            return None
        return poly

    def _refined(self, args: Sequence[Any]) -> "Lowered | None":
        """The Lowered for the call ``args`` from the shape-polymorphic module (refined
        to their shapes, then the pass pipeline), or None where it does not apply."""
        g = self.graph
        if all(t.is_static for t in g.input_types):
            return None
        types = [spec_type(a, v.type, g.inputs, i) for i, (a, v) in enumerate(zip(args, g.inputs))]
        check_named_sizes(g, self.dim_constraints, [t.shape for t in types])
        poly = self._polymorphic()
        if poly is None:
            return None
        why = poly.check_sizes([t.shape for t in types])
        if why is not None:
            log.LOWER.info("%r: %s, so this call lowers for its own shapes", g, why)
            return None
        try:
            module, out_types = poly.refine(types)
        except ValueError as e:
            log.LOWER.info("%r: the shape-polymorphic module does not refine to %s (%s); lowering again",
                           g, ", ".join(map(str, types)), e)
            return None
        self._optimize(module)
        return Lowered(signature_graph(g, types, out_types), module, self.device)

    def _flat_lower(self, *arg_specs: Any) -> "Lowered":
        """What a call with ``arg_specs`` (the graph's flat inputs) runs: ``lower``'s
        module, or a large device graph's parts (a structured graph's ``lower`` takes
        its pytrees)."""
        return self._lower(arg_specs, split=True)

    def explain(self, format: str = "text") -> str:
        """What runs where and why.

        ``format="text"``: the segments of the graph (device modules and host
        functions), their inputs and outputs, and each op's placement.
        ``"dot"``: a picture of the graph as Graphviz DOT source (``hg.to_dot``):
        nodes coloured by placement, control-flow bodies as clusters, a legend.
        ``"svg"``: that picture rendered; ``"html"``: a standalone page with the
        picture and the text. SVG and HTML need Graphviz (``pip install
        'hlograph[pictures]'`` and its ``dot`` program).

        Raises:
            ValueError: an unknown ``format``.
            PictureError: SVG or HTML without Graphviz (the message says what to install).
        """
        if format not in ("text", "dot", "svg", "html"):
            raise ValueError(f"explain(format=...) takes 'text', 'dot', 'svg' or 'html', got {format!r}")
        platform = self.device.platform
        if format == "dot":
            return picture.to_dot(self.graph, platform=platform)
        if format == "svg":
            return picture.to_svg(self.graph, platform=platform)
        text = explain(self.graph, partition(self.graph, platform, split=self.mesh is None), platform)
        if format == "html":
            return picture.to_html(self.graph, text, platform=platform)
        return text

    def _compiled_for(self, args: Sequence[Any]) -> "Compiled":
        """The Compiled for the signature of ``args`` (lowered and compiled on first use)."""
        key = signature_of(args)
        compiled = self._cache.get(key)
        if compiled is None:
            check_count(self.graph.inputs, args)
            with self._lock:
                compiled = self._cache.get(key)
                if compiled is None:
                    with collector_paused():
                        lowered = self._refined(args)
                        if lowered is None:
                            lowered = self._flat_lower(*args)
                        compiled = lowered.compile()
                    self._cache[key] = compiled
        return compiled

    def __repr__(self) -> str:
        where = f"device={self._device}" if self._device is not None else f"platform={self.platform!r}"
        return f"<Function {self.graph!r} pipeline={self.pipeline!r} {where}>"


class Lowered:
    """A lowered (and optimized) StableHLO module for one argument signature; for a
    graph with host ops, its segments (``program``)."""

    def __init__(self, graph: Graph, module: ir.Module | None, device, program: Program | None = None,
                 *, key: str | None = None, stored: Any = None):
        self.graph = graph
        #: the jax Device the module is compiled for
        self.device = device
        self.program = program
        self._ir = module
        #: the graph key (``graph_key``) the optimized module is stored under once compiled
        self._key = key
        #: the ``runtime.cache.ModuleEntry`` a warm process found (``_ir`` then stays
        #: None until the module is asked for)
        self._stored = stored

    @property
    def _module(self) -> ir.Module | None:
        if self._ir is None and self._stored is not None:
            from ..runtime.load import parse_module
            self._ir = parse_module(self._stored.bytecode)
        return self._ir

    @_module.setter
    def _module(self, module: ir.Module | None) -> None:
        self._ir = module

    @property
    def platform(self) -> str:
        return self.device.platform

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
        with collector_paused():
            return self._compile()

    def _compile(self) -> "Compiled | CompiledProgram":
        if self.program is not None:
            return with_pytrees(CompiledProgram(self.program))
        if any(t.is_symbolic for t in self.graph.input_types):
            raise ValueError("a shape-polymorphic module (symbolic dims) cannot be compiled as it is: "
                             "call the function (each new shape refines the module), or load "
                             "lowered.serialize() with hlograph.load")
        entry = self._stored
        if entry is not None:  # found by the graph key: not parsed
            prepare_custom_call_targets(entry.targets, self.platform)
        elif self._key is not None:
            module = self._module
            entry = graph_key.entry_for(module, module_to_bytecode(module), module_fingerprint(module))
        if entry is not None:
            bytecode, fingerprint, dots = entry.bytecode, entry.fingerprint, entry.dots
        else:
            bytecode, fingerprint, dots = module_to_bytecode(self._module), module_fingerprint(self._module), None
        try:
            loaded, device = executables.compile_bytecode(bytecode, self.platform, self.device,
                                                   fingerprint, dots)
        except JaxRuntimeError as e:
            raise CompileError(f"XLA could not compile the module for {self.device}: {e}") from None
        if entry is not None and self._stored is None:
            store_module(self._key, entry)
            self._stored = entry  # compiling again needs neither bytecode nor fingerprint anew
        exe = executables.Executable(loaded, device, self.graph.input_types, self.graph.output_types)
        return with_pytrees(Compiled(self.graph, exe))

    def cost_analysis(self) -> "dict[str, float] | list[dict[str, Any]]":
        """XLA's cost estimates for the module before XLA optimizes it (``flops``,
        ``transcendentals``, ``bytes accessed``, ...), as jax's
        ``Lowered.cost_analysis``. A segmented graph gives one entry per segment
        (see ``CompiledProgram.cost_analysis``; device segments lowered at run
        time and host segments have ``"analysis": None``).

        Raises:
            NotImplementedError: the platform (a PJRT plugin) only estimates
                compiled code: use ``.compile().cost_analysis()``.
        """
        if self.program is not None:
            return self.program.analyses(
                lambda lowered: lowered.cost_analysis(), self.program.lowered_modules())
        client = executables.get_client(self.platform)
        return module_cost_analysis(client, module_to_bytecode(self._module))

    def serialize(self, target_version: str | None = None) -> bytes:
        """The program as a portable artifact (versioned StableHLO: VHLO bytecode)
        that ``hlograph.load`` (or any StableHLO consumer) reads back, with its
        input and output names and types, donated inputs, platform and hlograph
        version as attributes (docs/artifacts.md).

        Args:
            target_version: the StableHLO version to write ("1.0.0"); None: the
                oldest one, within jaxlib's compatibility window, that has every
                op the program uses.

        Raises:
            ValueError: a version outside the window or too old for the program's
                ops; a graph with host segments or in-module host calls (they run
                code compiled in this process only), naming them.
        """
        from .artifact import serialize

        return serialize(self, target_version)

    def __str__(self) -> str:
        return self.as_text()


class Compiled(Dispatching):
    """Compiled code for one argument signature: ``compiled(*args, output="numpy")``
    checks the arguments (count, dtype, shape) and returns NumPy arrays (or jax
    arrays), as calling a ``Function`` does."""

    def __init__(self, graph: Graph, executable: executables.Executable):
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
        self._bind_graph(self._dispatch, graph)

    @property
    def input_types(self) -> list[TensorType]:
        return self.graph.input_types

    def as_text(self) -> str:
        """The optimized HLO XLA compiled (its fusions, layouts and schedule), as
        jax's ``Compiled.as_text``."""
        return executable_hlo_text(self.executable.loaded)

    def cost_analysis(self) -> dict[str, float]:
        """XLA's cost estimates for the compiled code: ``flops``,
        ``transcendentals``, ``bytes accessed`` and per-operand entries such as
        ``bytes accessed0{}``, as jax's ``Compiled.cost_analysis``.

        Raises:
            NotImplementedError: the platform does not estimate costs.
        """
        return executable_cost_analysis(self.executable.loaded)

    def memory_analysis(self) -> dict[str, int]:
        """The bytes XLA reserves for the compiled code: ``argument_size_in_bytes``,
        ``output_size_in_bytes``, ``alias_size_in_bytes`` (outputs reusing donated
        inputs), ``temp_size_in_bytes``, ``generated_code_size_in_bytes`` and their
        ``host_`` counterparts, as jax's ``Compiled.memory_analysis``.

        Raises:
            NotImplementedError: the platform does not report them.
        """
        return executable_memory_analysis(self.executable.loaded)

