"""``to_jax``: an hlograph Graph as a jax function, usable inside ``jax.jit``,
``jax.vmap`` and ``jax.grad``.

The graph becomes one application of a jax primitive (``hlograph_call``) whose
params name the graph:

- abstract evaluation: the graph's output types, for the graph specialized to
  the argument avals (``Graph.clone``);
- lowering (``jax.interpreters.mlir.register_lowering``): hlograph lowers the
  specialized graph to StableHLO (its pass pipeline included) for the platform
  jax lowers for; the module is parsed in jax's MLIR context and its functions
  are merged into jax's module as private functions, renamed apart
  (``merge_mlir_modules``, as ``lowering/bridge.py`` does the other way round),
  and the primitive becomes one ``func.call``. A graph with ops that need a host
  segment cannot be one module and is refused, naming the op (on the CPU, host
  ops with static output types run inside the module as XLA FFI calls);
- batching (``jax.vmap``): the mapped axes are moved to the front and the graph
  is wrapped in a ``Blockwise`` over that leading axis (unmapped arguments are
  shared), itself a graph bound again to the primitive;
- reverse mode: the function is a ``jax.custom_vjp`` whose backward rule is the
  ``to_jax`` function of the graph's ``hg.vjp`` graph, so ``jax.grad`` works to
  any order. Forward mode (``jax.jvp``) is not defined, as for any custom_vjp;
- eager calls (outside ``jax.jit``) run the compiled hlograph function.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Callable, Sequence

import jax
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import batching, mlir

from ...compiler.api import Function, compile as hg_compile
from ...compiler.placement import placement
from ...frontend.autodiff import vjp as hg_vjp
from ...frontend.graph import Constant, Graph, Variable
from ...frontend.ops.blockwise import Blockwise
from ...frontend.ops.control import Composite
from ...frontend.types import TensorType, is_inexact
from ...xla.mlir import func, ir

__all__ = ["to_jax", "ToJaxError", "hlograph_call_p"]


class ToJaxError(ValueError):
    """A graph that cannot be called from jax this way (ops that need a host segment,
    arguments of the wrong number or types)."""


def _types(avals: Sequence[Any]) -> tuple[TensorType, ...]:
    return tuple(TensorType(np.dtype(a.dtype), tuple(int(d) for d in a.shape)) for a in avals)


_COUNTER = itertools.count()


class _Call:
    """The graph a primitive application runs, with its specializations per argument
    types (graphs, compiled functions, lowered module text per platform)."""

    def __init__(self, graph: Graph, pipeline: str, name: str):
        self.graph = graph
        self.pipeline = pipeline
        self.name = name
        self._lock = threading.Lock()
        self._graphs: dict[tuple, Graph] = {}
        self._functions: dict[tuple, Function] = {}
        self._texts: dict[tuple, str] = {}
        self._vjps: dict[tuple, Callable] = {}
        self._batched: dict[tuple, _Call] = {}

    def __repr__(self) -> str:
        return f"<hlograph graph {self.name}>"

    def specialized(self, types: tuple[TensorType, ...]) -> Graph:
        """The graph for inputs of ``types``."""
        found = self._graphs.get(types)
        if found is None:
            g = self.graph
            if len(types) != len(g.inputs):
                raise ToJaxError(f"to_jax({self.name}): the graph takes {len(g.inputs)} arguments, got {len(types)}")
            if list(types) != g.input_types or not all(t.is_static for t in g.output_types):
                try:
                    g = g.clone(list(types))
                except (TypeError, ValueError) as e:
                    raise ToJaxError(
                        f"to_jax({self.name}): the graph does not take arguments of types "
                        f"{', '.join(map(str, types))}: {e}") from e
            found = self._graphs[types] = g
        return found

    def function(self, types: tuple[TensorType, ...], platform: str | None = None) -> Function:
        key = (types, platform)
        found = self._functions.get(key)
        if found is None:
            found = self._functions[key] = hg_compile(self.specialized(types), pipeline=self.pipeline,
                                                      platform=platform)
        return found

    def module_text(self, types: tuple[TensorType, ...], platform: str) -> str:
        """hlograph's StableHLO module for ``types`` on ``platform`` (text)."""
        key = (types, platform)
        with self._lock:
            text = self._texts.get(key)
            if text is None:
                graph = self.specialized(types)
                _check_one_module(graph, platform, self.name)
                lowered = self.function(types, platform).lower()
                if lowered.program is not None:  # pragma: no cover - _check_one_module refused it
                    raise ToJaxError(f"to_jax({self.name}): the graph needs host segments")
                module = lowered.module
                with module.context:
                    text = module.operation.get_asm(large_elements_limit=None)
                self._texts[key] = text
        return text

    def vjp_function(self, types: tuple[TensorType, ...]) -> Callable:
        """The ``to_jax`` function of the vjp graph for ``types``:
        ``(*inputs, *cotangents of the inexact outputs) -> cotangents of the inexact inputs``."""
        found = self._vjps.get(types)
        if found is None:
            g = self.specialized(types)
            inputs, outs = list(g.inputs), list(g.outputs)
            wrt = [v for v in inputs if is_inexact(v.dtype)]
            cts = [Variable(o.type, name=f"ct{j}") if is_inexact(o.dtype) else None
                   for j, o in enumerate(outs)]
            grads = hg_vjp(outs, wrt, cts, disconnected="zero") if wrt else []
            vjp_graph = Graph([*inputs, *(c for c in cts if c is not None)], list(grads))
            found = self._vjps[types] = _wrap(_Call(vjp_graph, self.pipeline, f"vjp_{self.name}"))
        return found


def _apply(graph: Graph, inputs: Sequence[Variable]) -> list[Variable]:
    """The outputs of ``graph`` computed from ``inputs`` (a Composite node)."""
    node = Composite(graph, "graph").make_node(*inputs)
    return list(node.outputs)


def _check_one_module(graph: Graph, platform: str, name: str) -> None:
    """Refuses a graph with a node that needs a host segment on ``platform``."""
    for node in graph.toposort():
        p = placement(node, platform)
        if not p.in_device_module:
            raise ToJaxError(
                f"to_jax({name}): {type(node.op).__name__} ({p.why}) needs a host segment on "
                f"{platform}; a graph called from jax must lower to one module (host ops run "
                f"inside it only on the CPU, as XLA FFI calls, with static output types)")


# --- the primitive ------------------------------------------------------------------------
hlograph_call_p = Primitive("hlograph_call")
hlograph_call_p.multiple_results = True


def _abstract_eval(*avals: Any, call: _Call) -> list[Any]:
    g = call.specialized(_types(avals))
    if not all(t.is_static for t in g.output_types):
        _check_one_module(g, jax.default_backend(), call.name)
        raise ToJaxError(f"to_jax({call.name}): the graph's output types "
                         f"{', '.join(map(str, g.output_types))} depend on values; jax needs static ones")
    return [jax.core.ShapedArray(t.shape, t.dtype) for t in g.output_types]


def _impl(*args: Any, call: _Call) -> list[Any]:
    types = _types(args)
    out = call.function(types)(*args, output="device")
    return [out] if call.specialized(types).single_output else list(out)


def _lowering(ctx: Any, *args: Any, call: _Call) -> Sequence[Any]:
    mctx = ctx.module_context
    platforms = getattr(mctx, "platforms", None) or ("cpu",)
    if len(platforms) != 1:
        raise ToJaxError(f"to_jax({call.name}): lowering for several platforms at once "
                         f"({', '.join(platforms)}) is not supported")
    platform = {"cuda": "gpu", "rocm": "gpu"}.get(platforms[0], platforms[0])
    text = call.module_text(_types(ctx.avals_in), platform)
    src = ir.Module.parse(text, context=mctx.context)
    name = mlir.merge_mlir_modules(mctx.module, f"hlograph_{call.name}", src,
                                   dst_symtab=mctx.symbol_table)
    callee = mctx.symbol_table[name]
    for attr in ("arg_attrs", "res_attrs"):  # hlograph's entry point annotations
        if attr in callee.attributes:
            del callee.attributes[attr]
    out_types = [mlir.aval_to_ir_type(mctx, a) for a in ctx.avals_out]
    return func.CallOp(out_types, ir.FlatSymbolRefAttr.get(name), list(args)).results


def _batch(args: Sequence[Any], dims: Sequence[int | None], *, call: _Call):
    size = next(a.shape[d] for a, d in zip(args, dims) if d is not None)
    moved = [a if d is None else jax.numpy.moveaxis(a, d, 0) for a, d in zip(args, dims)]
    key = tuple(d is not None for d in dims)
    types = tuple(TensorType(np.dtype(a.dtype), tuple(a.shape[1:]) if m else tuple(a.shape))
                  for a, m in zip(moved, key))
    slot = (types, key, size)
    with call._lock:
        batched = call._batched.get(slot)
        if batched is None:
            batched = call._batched[slot] = _batched_call(call, types, key, size)
    return hlograph_call_p.bind(*moved, call=batched), [0] * len(batched.graph.outputs)


def _batched_call(call: _Call, types: tuple[TensorType, ...], mapped: tuple[bool, ...], size: int) -> _Call:
    """The graph of ``call`` mapped over a new leading axis of the ``mapped`` inputs."""
    g = call.specialized(types)
    sizes: dict[int, str] = {}
    sigs_in = []
    for i, t in enumerate(types):
        names = [f"i{i}_{k}" for k in range(len(t.shape))]
        for n, d in zip(names, t.shape):
            sizes.setdefault(d, n)
        sigs_in.append(names)
    # every output dim must be named after an input dim of its size: add an unused
    # 1-d input for each size no input has
    extra = [d for t in g.output_types for d in t.shape if d not in sizes]
    extra_sizes = list(dict.fromkeys(extra))
    for j, d in enumerate(extra_sizes):
        sizes[d] = f"x{j}"
        sigs_in.append([f"x{j}"])
    sigs_out = [[sizes[d] for d in t.shape] for t in g.output_types]
    core_inputs = [Variable(t, name=v.name) for t, v in zip(types, g.inputs)]
    dummies = [Variable(TensorType("bool", (d,)), name=f"size{d}") for d in extra_sizes]
    core = Graph([*core_inputs, *dummies], _apply(g, core_inputs))
    signature = (",".join("(" + ",".join(s) + ")" for s in sigs_in) + "->"
                 + ",".join("(" + ",".join(s) + ")" for s in sigs_out))
    outer = [Variable(TensorType(t.dtype, ((size,) if m else ()) + t.shape), name=v.name)
             for t, m, v in zip(types, mapped, g.inputs)]
    consts = [Constant(np.zeros((d,), bool)) for d in extra_sizes]
    outs = Blockwise(Composite(core, call.name), signature)(*outer, *consts)
    outs = [outs] if isinstance(outs, Variable) else list(outs)
    # an output that does not depend on a mapped input is broadcast along the axis
    return _Call(Graph(outer, outs), call.pipeline, f"vmap_{call.name}")


hlograph_call_p.def_abstract_eval(_abstract_eval)
hlograph_call_p.def_impl(_impl)
mlir.register_lowering(hlograph_call_p, _lowering)
batching.primitive_batchers[hlograph_call_p] = _batch


# --- the jax function -------------------------------------------------------------------
def _wrap(call: _Call) -> Callable:
    """The jax function of ``call``: the primitive inside a ``jax.custom_vjp``."""
    single = call.graph.single_output

    def finish(outs: Sequence[Any]) -> Any:
        return outs[0] if single else tuple(outs)

    def check(args: Sequence[Any]) -> None:
        if len(args) != len(call.graph.inputs):
            raise TypeError(f"to_jax({call.name}): expected {len(call.graph.inputs)} arguments, "
                            f"got {len(args)}")

    @jax.custom_vjp
    def function(*args: Any) -> Any:
        return finish(hlograph_call_p.bind(*args, call=call))

    def fwd(*args: Any) -> tuple[Any, Any]:
        # ``function`` (not the bare primitive): an outer derivative differentiates fwd
        return function(*args), args

    def bwd(args: Sequence[Any], cts: Any) -> tuple[Any, ...]:
        types = _types(args)
        out_types = call.specialized(types).output_types
        cts = [cts] if single else list(cts)
        given = [jax.numpy.asarray(c, t.dtype) for c, t in zip(cts, out_types) if is_inexact(t.dtype)]
        inexact = [i for i, t in enumerate(types) if is_inexact(t.dtype)]
        result: list[Any] = [None] * len(args)
        if inexact:
            vjp = call.vjp_function(types)
            grads = vjp(*args, *given)
            grads = [grads] if vjp.graph.single_output else list(grads)
            for i, g in zip(inexact, grads):
                result[i] = g
        return tuple(result)

    function.defvjp(fwd, bwd)

    def called(*args: Any) -> Any:
        check(args)
        args = [jax.numpy.asarray(a) if not isinstance(a, jax.Array) and not hasattr(a, "aval") else a
                for a in args]
        return function(*args)

    called.graph = call.graph
    return called


def to_jax(fn_or_graph: Any, *, pipeline: str | None = None) -> Callable:
    """The hlograph Graph (or compiled ``hg.compile`` Function) ``fn_or_graph`` as a jax
    function of its flat inputs, returning one array (a graph with a single output
    Variable) or a tuple. It works eagerly and inside ``jax.jit``, ``jax.vmap`` and
    ``jax.grad`` (see the module docstring); ``pipeline`` defaults to the Function's,
    else ``"O2"``.

    Raises:
        TypeError: ``fn_or_graph`` is neither a Graph nor a Function.
        ToJaxError (on a call): arguments the graph does not take, or a graph whose ops
            need a host segment.
    """
    if isinstance(fn_or_graph, Function):
        graph, default = fn_or_graph.graph, fn_or_graph.pipeline
    elif isinstance(fn_or_graph, Graph):
        graph, default = fn_or_graph, "O2"
    else:
        raise TypeError(f"to_jax: expected a hlograph Graph or compiled Function, got "
                        f"{type(fn_or_graph).__name__}")
    name = getattr(graph, "name", None) or f"graph{next(_COUNTER)}"
    return _wrap(_Call(graph, pipeline or default, name))
