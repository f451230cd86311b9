"""``to_jax``: an hlograph Graph as a jax function, usable inside ``jax.jit``,
``jax.vmap``, ``jax.grad``, ``jax.jvp`` and their compositions.

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
- batching (``jax.vmap``), for both primitives: the mapped axes are moved to the
  front and the graph is vectorized over that leading axis (``frontend/vectorize.py``:
  each node's batching rule, one batched computation instead of a loop; unmapped
  arguments are shared), itself a graph bound again to the primitive;
- differentiation, at the primitive level as jax's own primitives: the JVP rule
  (``ad.primitive_jvps``) returns the call itself as the primal output and, as
  the tangent output, a second primitive, ``hlograph_linear_call``, applied to
  the primals and the tangents: the tangent part of the graph's ``hg.jvp`` (only
  the inexact inputs with nonzero tangents; outputs no tangent reaches are
  symbolic zeros, integer ones float0). It is linear in the tangents, and its
  transpose rule (``ad.primitive_transposes``) is the call of the ``hg.vjp`` of
  that tangent graph with respect to its tangent inputs (the primals are
  ordinary inputs). So ``jax.jvp`` and ``jax.jacfwd`` run hlograph's forward mode,
  ``jax.grad``, ``jax.vjp`` and ``jax.jacrev`` linearize and transpose, and every
  derivative is again such a call, so they compose to any order (``jax.hessian``,
  ``grad(grad)``). ``hlograph_call`` transposes the same way (``jax.linear_transpose``)
  where its graph is linear in the undefined inputs, else it is an error. A graph
  with an op that has no derivative where one is needed is a ``ToJaxError`` naming
  the op. Each derived graph is built once per argument types and nonzero
  tangents (or cotangents) and compiled once;
- eager calls (outside ``jax.jit``) run the compiled hlograph function.
"""

from __future__ import annotations

import functools
import itertools
import threading
from typing import Any, Callable, Sequence

import jax
import numpy as np
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from ...compiler.api import Function, compile as hg_compile
from ...compiler.placement import placement
from ...frontend.autodiff import jvp as hg_jvp, vjp as hg_vjp
from ...frontend.graph import GradientError, Graph, Variable, _ancestors_toposort
from ...frontend.types import TensorType, is_inexact
from ...frontend.vectorize import vectorize_with_batch
from ...xla.mlir import func, ir

__all__ = ["to_jax", "ToJaxError", "hlograph_call_p", "hlograph_linear_call_p"]


class ToJaxError(ValueError):
    """A graph that cannot be called from jax this way (ops that need a host segment,
    arguments of the wrong number or types, a derivative an op of it does not have)."""


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
        self._linears: dict[tuple, tuple[_Call, tuple[bool, ...]] | None] = {}
        self._transposes: dict[tuple, tuple[_Call, tuple[bool, ...], tuple[int, ...]] | None] = {}
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

    def linear(self, types: tuple[TensorType, ...], nonzero: tuple[bool, ...]
               ) -> tuple[_Call, tuple[bool, ...]] | None:
        """The tangent part of the graph's ``hg.jvp`` for inputs of ``types`` of which the
        ``nonzero`` ones (inexact) have tangents: ``(lin, which)`` where ``lin`` computes
        ``(*inputs, *those tangents) -> the tangents of the outputs marked in which``
        (linear in the tangents); the other outputs' tangents are zero (integer
        outputs, outputs no tangent reaches). None when no output has a tangent."""
        key = (types, nonzero)
        with self._lock:
            if key in self._linears:
                return self._linears[key]
            g = self.specialized(types)
            wrt = [v for v, n in zip(g.inputs, nonzero) if n]
            tangents = [Variable(v.type, name=f"d{v.name or i}") for i, v in enumerate(wrt)]
            outs = [o for o in g.outputs if is_inexact(o.dtype)]
            try:
                touts = hg_jvp(outs, wrt, tangents, disconnected="zero") if outs else []
            except GradientError as e:
                raise ToJaxError(f"to_jax({self.name}): cannot differentiate the graph: {e}") from e
            seeds = {id(t) for t in tangents}
            reached = [bool(_leaves([t]) & seeds) for t in touts]
            it = iter(reached)
            which = tuple(is_inexact(o.dtype) and next(it) for o in g.outputs)
            found = None
            if any(reached):
                lin = Graph([*g.inputs, *tangents], [t for t, r in zip(touts, reached) if r])
                found = (_Call(lin, self.pipeline, f"jvp_{self.name}"), which)
            self._linears[key] = found
        return found

    def transpose(self, types: tuple[TensorType, ...], linear: tuple[bool, ...],
                  nonzero: tuple[bool, ...]) -> tuple[_Call, tuple[bool, ...], tuple[int, ...]] | None:
        """The transpose of the graph for inputs of ``types``, with respect to its
        ``linear`` inputs (the others are ordinary inputs), for cotangents of the
        ``nonzero`` outputs: ``(t, uses, wrt)`` where ``t`` computes ``(*the inputs marked
        in uses, *cotangents) -> the cotangents of the inputs at positions wrt`` (the
        other linear inputs get none: no output reaches them). A graph linear in those
        inputs has a transpose that does not read them: ``uses`` marks none of them
        unless an op keeps one in its derivative (then any value gives the same
        result), or the graph is not linear in it. None when no cotangent reaches a
        linear input."""
        key = (types, linear, nonzero)
        with self._lock:
            if key in self._transposes:
                return self._transposes[key]
            g = self.specialized(types)
            outs = [o for o, n in zip(g.outputs, nonzero) if n]
            reach = _leaves(outs)
            wrt = [k for k, (v, u) in enumerate(zip(g.inputs, linear))
                   if u and is_inexact(v.dtype) and id(v) in reach]
            found = None
            if wrt:
                cts = [Variable(o.type, name=f"ct{j}") for j, o in enumerate(outs)]
                try:
                    grads = hg_vjp(outs, [g.inputs[k] for k in wrt], cts, disconnected="zero")
                except GradientError as e:
                    raise ToJaxError(f"to_jax({self.name}): cannot transpose the graph: {e}") from e
                used = _leaves(grads)
                uses = tuple(id(v) in used for v in g.inputs)
                inputs = [*(v for v, u in zip(g.inputs, uses) if u), *cts]
                found = (_Call(Graph(inputs, list(grads)), self.pipeline, f"transpose_{self.name}"),
                         uses, tuple(wrt))
            self._transposes[key] = found
        return found


def _leaves(outputs: Sequence[Variable]) -> set[int]:
    """ids of the owner-less values (graph inputs, constants) ``outputs`` are computed from."""
    found = {id(v) for v in outputs if v.owner is None}
    for node in _ancestors_toposort(list(outputs)):
        found.update(id(v) for v in node.inputs if v.owner is None)
    return found


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


def _abstract_eval(*avals: Any, call: _Call, **_: Any) -> list[Any]:
    g = call.specialized(_types(avals))
    if not all(t.is_static for t in g.output_types):
        _check_one_module(g, jax.default_backend(), call.name)
        raise ToJaxError(f"to_jax({call.name}): the graph's output types "
                         f"{', '.join(map(str, g.output_types))} depend on values; jax needs static ones")
    return [jax.core.ShapedArray(t.shape, t.dtype) for t in g.output_types]


def _impl(*args: Any, call: _Call, **_: Any) -> list[Any]:
    types = _types(args)
    out = call.function(types)(*args, output="device")
    return [out] if call.specialized(types).single_output else list(out)


def _lowering(ctx: Any, *args: Any, call: _Call, **_: Any) -> Sequence[Any]:
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


def _batch(prim: Primitive, args: Sequence[Any], dims: Sequence[int | None], *, call: _Call,
           **params: Any):
    """The batching rule of ``prim`` (either primitive; its other params, the linear
    call's ``n_primals``, hold for the mapped graph, which keeps the inputs' order)."""
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
    return prim.bind(*moved, call=batched, **params), [0] * len(batched.graph.outputs)


def _batched_call(call: _Call, types: tuple[TensorType, ...], mapped: tuple[bool, ...], size: int) -> _Call:
    """The graph of ``call`` mapped over a new leading axis of the ``mapped`` inputs: the
    specialized graph vectorized (``vectorize_graph``; a Blockwise only for the nodes
    whose Op has no batching rule). Unmapped inputs are shared; an output that does
    not depend on a mapped input is broadcast along the axis."""
    g = call.specialized(types)
    outer = [Variable(TensorType(t.dtype, (size,) + t.shape), name=v.name) if m else v
             for t, m, v in zip(types, mapped, g.inputs)]
    replace = {v: o for v, o, m in zip(g.inputs, outer, mapped) if m}
    outs = vectorize_with_batch(list(g.outputs), replace)
    return _Call(Graph(outer, outs), call.pipeline, f"vmap_{call.name}")


# --- derivatives -------------------------------------------------------------------------
# ``hlograph_linear_call(*primals, *tangents, call, n_primals)``: a graph linear in its
# inputs after the first ``n_primals`` (the tangent part of a jvp graph). It evaluates,
# lowers and batches as ``hlograph_call``; transposing it is what sets it apart.
hlograph_linear_call_p = Primitive("hlograph_linear_call")
hlograph_linear_call_p.multiple_results = True


def _zero_tangent(t: TensorType) -> ad.Zero:
    """The symbolic zero tangent of a value of type ``t`` (float0 for integers and bools)."""
    return ad.Zero(jax.core.ShapedArray(t.shape, t.dtype).to_tangent_aval())


def _jvp(prim: Primitive, primals: Sequence[Any], tangents: Sequence[Any], *, call: _Call,
         **params: Any) -> tuple[list[Any], list[Any]]:
    """The JVP rule of ``prim``: the call itself, and the linear call of its tangent graph
    on the primals and the nonzero tangents of the inexact inputs."""
    outs = prim.bind(*primals, call=call, **params)
    types = _types(primals)
    zeros = [_zero_tangent(t) for t in call.specialized(types).output_types]
    nonzero = tuple(type(t) is not ad.Zero and is_inexact(ty.dtype) for t, ty in zip(tangents, types))
    found = call.linear(types, nonzero) if any(nonzero) else None
    if found is None:
        return outs, zeros
    lin, which = found
    given = [jax.numpy.asarray(t, ty.dtype) for t, ty, n in zip(tangents, types, nonzero) if n]
    touts = iter(hlograph_linear_call_p.bind(*primals, *given, call=lin, n_primals=len(primals)))
    return outs, [next(touts) if w else z for w, z in zip(which, zeros)]


def _transpose(cts: Sequence[Any], *args: Any, call: _Call, n_primals: int | None = None) -> list[Any]:
    """The transpose rule of both primitives: the call of the ``hg.vjp`` graph of ``call`` with
    respect to its undefined inputs, for the nonzero cotangents. ``hlograph_linear_call``
    is linear in its tangents by construction; an ``hlograph_call`` is transposed (by
    ``jax.linear_transpose``) only where its graph is linear in the undefined inputs."""
    undefined = tuple(ad.is_undefined_primal(a) for a in args)
    if n_primals is not None and any(undefined[:n_primals]):
        raise ToJaxError(f"to_jax({call.name}): the tangent graph is linear in its tangents "
                         f"only, not in its first {n_primals} inputs")
    nonzero = tuple(type(c) is not ad.Zero for c in cts)
    result: list[Any] = [None] * len(args)
    if not any(undefined) or not any(nonzero):
        return result
    types = _types([a.aval if u else a for a, u in zip(args, undefined)])
    found = call.transpose(types, undefined, nonzero)
    if found is None:
        return result
    tcall, uses, wrt = found
    operands = []
    for i, (a, t, u, keep) in enumerate(zip(args, types, undefined, uses)):
        if keep and u:
            if n_primals is None:
                raise ToJaxError(f"to_jax({call.name}): the graph is not linear in its input {i} "
                                 f"({t}): its transpose reads it")
            a = jax.numpy.zeros(t.shape, t.dtype)  # any value: see _Call.transpose
        if keep:
            operands.append(a)
    out_types = call.specialized(types).output_types
    given = [jax.numpy.asarray(c, t.dtype) for c, t, n in zip(cts, out_types, nonzero) if n]
    grads = hlograph_call_p.bind(*operands, *given, call=tcall)
    for k, g in zip(wrt, grads):
        result[k] = g
    return result


for _p in (hlograph_call_p, hlograph_linear_call_p):
    _p.def_abstract_eval(_abstract_eval)
    _p.def_impl(_impl)
    mlir.register_lowering(_p, _lowering)
    batching.primitive_batchers[_p] = functools.partial(_batch, _p)
    ad.primitive_jvps[_p] = functools.partial(_jvp, _p)
    ad.primitive_transposes[_p] = _transpose


# --- the jax function -------------------------------------------------------------------
def _wrap(call: _Call) -> Callable:
    """The jax function of ``call``: one application of ``hlograph_call``."""
    single = call.graph.single_output
    n = len(call.graph.inputs)

    def called(*args: Any) -> Any:
        if len(args) != n:
            raise TypeError(f"to_jax({call.name}): expected {n} arguments, got {len(args)}")
        args = [jax.numpy.asarray(a) if not isinstance(a, jax.Array) and not hasattr(a, "aval") else a
                for a in args]
        outs = hlograph_call_p.bind(*args, call=call)
        return outs[0] if single else tuple(outs)

    called.graph = call.graph
    return called


def to_jax(fn_or_graph: Any, *, pipeline: str | None = None) -> Callable:
    """The hlograph Graph (or compiled ``hg.compile`` Function) ``fn_or_graph`` as a jax
    function of its flat inputs, returning one array (a graph with a single output
    Variable) or a tuple. It works eagerly and inside ``jax.jit``, ``jax.vmap`` and
    every derivative (``jax.grad``, ``jax.jvp``, ``jax.jacfwd``, ``jax.hessian``...; see
    the module docstring); ``pipeline`` defaults to the Function's, else ``"O2"``.

    Raises:
        TypeError: ``fn_or_graph`` is neither a Graph nor a Function.
        ToJaxError (on a call): arguments the graph does not take, a graph whose ops
            need a host segment, or a derivative an op of the graph does not have.
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
