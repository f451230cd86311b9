"""Graph -> StableHLO module: one public ``func.func @main``, nodes in
topological order, each lowered by its registered rule."""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Sequence

import numpy as np

from ..frontend.graph import Apply, Constant, Graph, Variable
from ..frontend.symbolic import SymDim, SymbolicDimError
from ..frontend.types import TensorType
from . import emit
from .context import HostCalls, LoweringContext, ModuleContext
from ..xla.mlir import func, hlo, ir, lowering_context, tensor_type
from ..xla.ffi import host_call
from ..xla import log
from .registry import get_rule, has_rule

__all__ = ["lower_graph", "emit_nodes", "value_of", "LoweringError", "CompileError"]


class LoweringError(RuntimeError):
    """A rule produced the wrong number or types of results."""


class CompileError(RuntimeError):
    """The backend compiler (XLA) rejected a lowered module."""


def value_of(env: dict[int, ir.Value], v: Variable) -> ir.Value:
    val = env.get(id(v))
    if val is None:
        if not isinstance(v, Constant):
            raise LoweringError(f"{v!r} has no value; is it a graph input?")
        val = emit.constant(v.data, v.dtype, v.shape)
        env[id(v)] = val
    return val


def lower_host_call(ctx: LoweringContext, *operands: ir.Value) -> list[ir.Value]:
    """A host op inside a device module: ``stablehlo.custom_call`` to the FFI target
    that ``ctx.module.host_calls`` compiled for the node."""
    node = ctx.node
    for v in node.outputs:
        if not v.type.is_static:
            raise NotImplementedError(
                f"{node.op}: output of type {v.type} has a value-dependent shape, so it cannot "
                f"run inside a device module; it runs in a host segment (hlograph.compile "
                f"partitions the graph)")
    return host_call(ctx.module.host_calls.target(node), operands, ctx.ir_out_types())


def rule_for(op, mctx: ModuleContext) -> Callable:
    """The rule lowering ``op`` in the module of ``mctx``: its registered rule (for the
    module's platform first, see ``registry.lookup``), or for a
    host op that ``mctx.host_calls`` can call, its in-module host call (the placement
    policy leaves such ops in a device module only on the CPU)."""
    if (op.host_only or not has_rule(op, mctx.platform)) and mctx.host_calls is not None \
            and mctx.host_calls.can_call(op):
        return lower_host_call
    return get_rule(op, mctx.platform)


def emit_nodes(mctx: ModuleContext, nodes: Sequence[Apply], env: dict[int, ir.Value],
               first_index: int = 0) -> None:
    """Lowers ``nodes`` (topologically sorted) at the current insertion point,
    reading operands from and writing results to ``env`` (id(Variable) -> Value)."""
    # per node, only what differs: rules per Op class, labels per Op, source
    # locations per (file, line) and MLIR types per TensorType are looked up once
    file_locs, labels, rules = mctx.file_locations, {}, {}
    types: dict[int, tuple[TensorType, ir.Type]] = {}  # id(TensorType) -> (it, its MLIR type)
    ir_type, context, name_loc = mctx.ir_type, mctx.context, ir.Location.name
    new_context = tuple.__new__  # LoweringContext(mctx, node), without its __new__ call
    for i, node in enumerate(nodes, first_index):
        op = node.op
        rule = rules.get(type(op))
        if rule is None:
            rule = rules[type(op)] = rule_for(op, mctx)
        inputs = node.inputs
        try:
            # (one or two inputs, the common cases, without a comprehension's frame)
            n = len(inputs)
            operands = [env[id(inputs[0])]] if n == 1 else [env[id(inputs[0])], env[id(inputs[1])]] \
                if n == 2 else [env[id(v)] for v in inputs]
        except KeyError:
            operands = [value_of(env, v) for v in inputs]
        label = labels.get(id(op))
        if label is None:
            label = labels[id(op)] = str(op)
        trace = node.trace
        if trace is None:
            loc = name_loc(f"{label}:{i}", context=context)
        else:
            child = file_locs.get(trace)
            if child is None:
                child = file_locs[trace] = ir.Location.file(trace[0], trace[1], 0, context=context)
            loc = name_loc(f"{label}:{i}", childLoc=child, context=context)
        with loc:
            try:
                results = rule(new_context(LoweringContext, (mctx, node)), *operands)
            except Exception as e:
                if any(v.type.is_symbolic for v in (*node.inputs, *node.outputs)):
                    raise SymbolicDimError(f"{node.op} needs static shapes to lower "
                                           f"({type(e).__name__}: {e})") from None
                raise
        outputs = node.outputs
        if len(results) != len(outputs):
            raise LoweringError(
                f"the rule for {node.op} returned {len(results)} values for {len(outputs)} outputs"
            )
        for out, res in zip(outputs, results):
            t = out.type
            known = types.get(id(t))
            if known is None or known[0] is not t:
                known = types[id(t)] = (t, ir_type(t))
            if res.type != known[1]:
                raise LoweringError(
                    f"the rule for {node.op} produced {res.type} for an output of type {t}"
                )
            env[id(out)] = res


def _dimension_variables(inputs: Sequence[Variable], args) -> dict[str, ir.Value]:
    """The value of every dimension variable of the inputs' symbolic dims (0-d i64,
    the size of the first argument dimension it names); empty for static inputs."""
    values: dict[str, ir.Value] = {}
    i64 = tensor_type(TensorType(np.int64, ()))
    for v, arg in zip(inputs, args):
        for axis, d in enumerate(v.type.shape):
            if type(d) is not SymDim:
                continue
            (name,) = d.variables
            if name not in values:
                values[name] = hlo.convert(i64, hlo.get_dimension_size(arg, axis))
    return values


def lower_graph(graph: Graph, *, name: str = "hlograph", platform: str | None = None,
                mesh: Any = None, host_calls: HostCalls | None = None) -> ir.Module:
    """Lowers a graph whose types are all static (or symbolic: a graph specialized
    to ``SymDim``s lowers to a shape-polymorphic module) into a new module, for ``platform``
    (None: jax's default backend; rules may choose platform-specific lowerings),
    for ``mesh`` (sharding constraints become Shardy annotations) and with
    ``host_calls`` (host ops and library loops called from inside the module)."""
    for v in graph.inputs:
        if not v.type.is_static:
            raise ValueError(f"input {v!r} has an unknown dimension; specialize it before lowering")
    start = time.perf_counter()
    ctx = lowering_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        module.operation.attributes["sym_name"] = ir.StringAttr.get(name)
        mctx = ModuleContext(ctx, module, ir.SymbolTable(module.operation), platform=platform,
                             mesh=mesh, host_calls=host_calls)
        in_types = [tensor_type(v.type) for v in graph.inputs]
        out_types = [tensor_type(v.type) for v in graph.outputs]
        with ir.InsertionPoint(module.body):
            main = func.FuncOp("main", ir.FunctionType.get(in_types, out_types))
        main.attributes["sym_visibility"] = ir.StringAttr.get("public")
        mctx.functions["main"] = main
        entry = main.add_entry_block()
        env: dict[int, ir.Value] = {id(v): a for v, a in zip(graph.inputs, entry.arguments)}
        with ir.InsertionPoint(entry):
            with emit.symbolic_dims(_dimension_variables(graph.inputs, entry.arguments)):
                emit_nodes(mctx, graph.nodes, env)
            func.ReturnOp([value_of(env, v) for v in graph.outputs])
        try:
            module.operation.verify()
        except ir.MLIRError as e:
            raise LoweringError(f"the lowered module does not verify (a rule emitted invalid IR):\n{e}") from None
    if log.LOWER.isEnabledFor(logging.INFO):
        log.LOWER.info("lowered %s (%d nodes) to StableHLO for %s in %.2f ms", name, len(graph.nodes),
                       platform or "the default platform", (time.perf_counter() - start) * 1e3)
    return module


def attribute_dicts(fn, which: str) -> list[dict[str, ir.Attribute]]:
    """The attributes of each argument (``which="arg_attrs"``) or result
    (``"res_attrs"``) of the ``func.func`` ``fn``, as dicts (call in its context)."""
    count = len(fn.type.inputs if which == "arg_attrs" else fn.type.results)
    if which not in fn.attributes:
        return [{} for _ in range(count)]
    return [{a.name: a.attr for a in ir.DictAttr(d)} for d in ir.ArrayAttr(fn.attributes[which])]


def set_attribute_dicts(fn, which: str, dicts: Sequence[dict[str, ir.Attribute]]) -> None:
    """Replaces the argument or result attributes of ``fn`` (see ``attribute_dicts``)."""
    fn.attributes[which] = ir.ArrayAttr.get([ir.DictAttr.get(d) for d in dicts])


def set_argument_attribute(module: ir.Module, index: int, name: str, value) -> None:
    """Sets the attribute ``name`` of ``@main``'s argument ``index`` (a Python
    bool, int or str, or an ``ir.Attribute``), keeping its other attributes."""
    with module.context:
        main = ir.SymbolTable(module.operation)["main"]
        if isinstance(value, bool):
            value = ir.BoolAttr.get(value)
        elif isinstance(value, int):
            value = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
        elif isinstance(value, str):
            value = ir.StringAttr.get(value)
        attrs = attribute_dicts(main, "arg_attrs")
        attrs[index][name] = value
        set_attribute_dicts(main, "arg_attrs", attrs)
