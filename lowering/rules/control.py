"""Lowering of control flow: IfElse to ``stablehlo.if``, Switch to ``stablehlo.case``,
WhileLoop and Scan to ``stablehlo.while``, Composite to a ``func.call`` of a
private ``func.func`` emitted once per module.

Each branch's inner graph is emitted into its own region, with the inner
graph's inputs bound to the node's operands (regions read values of the
enclosing scope directly), and ends in ``stablehlo.return``.
"""

from __future__ import annotations

import itertools

from ...frontend.graph import Graph
from ...frontend.ops.control import Composite, IfElse, Scan, Switch, WhileLoop
from ...frontend.types import DTYPES, TensorType
from .. import emit
from ..context import LoweringContext
from ..emit import compare, constant, scalar_type
from ..lower import emit_nodes, value_of
from ...xla.mlir import func, hlo, i64_array, ir
from ..registry import register


def _emit_branch(ctx: LoweringContext, region: ir.Region, graph: Graph,
                 operands: tuple[ir.Value, ...]) -> None:
    block = region.blocks.append()
    with ir.InsertionPoint(block):
        # a fresh env per region: constants are emitted where they are used
        env = {id(v): x for v, x in zip(graph.inputs, operands)}
        emit_nodes(ctx.module, graph.nodes, env)
        hlo.return_([value_of(env, v) for v in graph.outputs])


@register(IfElse)
def lower_if_else(ctx: LoweringContext, pred: ir.Value, *operands: ir.Value) -> list[ir.Value]:
    op = hlo.IfOp(ctx.ir_out_types(), pred)
    _emit_branch(ctx, op.true_branch, ctx.op.then_graph, operands)
    _emit_branch(ctx, op.false_branch, ctx.op.else_graph, operands)
    return list(op.results)


@register(Switch)
def lower_switch(ctx: LoweringContext, index: ir.Value, *operands: ir.Value) -> list[ir.Value]:
    branches = ctx.op.branches
    dtype = ctx.in_types[0].dtype
    # clamp in the index's own dtype (a wide index must not wrap), then to the i32 case wants
    index = hlo.clamp(constant(0, dtype), index, constant(len(branches) - 1, dtype))
    if dtype != DTYPES["int32"]:
        index = hlo.convert(scalar_type(DTYPES["int32"]), index)
    op = hlo.CaseOp(ctx.ir_out_types(), index, len(branches))
    for region, graph in zip(op.branches, branches):
        _emit_branch(ctx, region, graph, operands)
    return list(op.results)


# --- loops -------------------------------------------------------------------------
_I64 = DTYPES["int64"]


def _region_block(region: ir.Region, types: list[ir.Type]) -> ir.Block:
    return region.blocks.append(*types)


def _emit_graph(ctx: LoweringContext, graph: Graph, args: list[ir.Value]) -> list[ir.Value]:
    env = {id(v): x for v, x in zip(graph.inputs, args)}
    emit_nodes(ctx.module, graph.nodes, env)
    return [value_of(env, v) for v in graph.outputs]


@register(WhileLoop)
def lower_while_loop(ctx: LoweringContext, *operands: ir.Value) -> list[ir.Value]:
    # the free variables ride along unchanged, so the regions read only their arguments
    op = ctx.op
    types = [v.type for v in operands]
    loop = hlo.WhileOp(types, list(operands))
    cond = _region_block(loop.cond, types)
    with ir.InsertionPoint(cond):
        hlo.return_(_emit_graph(ctx, op.cond, list(cond.arguments)))
    body = _region_block(loop.body, types)
    with ir.InsertionPoint(body):
        args = list(body.arguments)
        hlo.return_(_emit_graph(ctx, op.body, args) + args[op.n_carry:])
    return list(loop.results)[: op.n_carry]


@register(Scan)
def lower_scan(ctx: LoweringContext, *operands: ir.Value) -> list[ir.Value]:
    # A stablehlo.while over a step counter i carrying [i, *states, *stacked outputs,
    # *sequences, *others]: step i reads seq[i] with dynamic_slice and writes each
    # stacked output into its preallocated stack with dynamic_update_slice; the
    # unstacked (recurrent) outputs are the final states.
    op = ctx.op
    n_seqs, n_states = op.n_seqs, op.n_states
    seqs = list(operands[:n_seqs])
    states = list(operands[n_seqs: n_seqs + n_states])
    others = list(operands[n_seqs + n_states:])
    seq_types = ctx.in_types[:n_seqs]
    out_types = ctx.out_types
    stacked_types = [t for t, st in zip(out_types, op.stacked) if st]
    state_of = list(itertools.accumulate(op.recurrent, initial=0))  # output j -> its state index
    stacks = [constant(0, t.dtype, t.shape) for t in stacked_types]
    if op.n_steps == 0:
        it = iter(stacks)
        return [next(it) if st else states[state_of[j]] for j, st in enumerate(op.stacked)]
    n_stacks = len(stacks)
    carry = [constant(0, _I64), *states, *stacks, *seqs, *others]
    types = [v.type for v in carry]
    loop = hlo.WhileOp(types, carry)
    cond = _region_block(loop.cond, types)
    with ir.InsertionPoint(cond):
        hlo.return_([compare(cond.arguments[0], constant(op.n_steps, _I64), "LT", _I64)])
    body = _region_block(loop.body, types)
    with ir.InsertionPoint(body):
        args = list(body.arguments)
        i = args[0]
        b_states = args[1: 1 + n_states]
        b_stacks = args[1 + n_states: 1 + n_states + n_stacks]
        b_seqs = args[1 + n_states + n_stacks: 1 + n_states + n_stacks + n_seqs]
        b_others = args[1 + n_states + n_stacks + n_seqs:]
        zero = constant(0, _I64)
        slices = []
        for s, t, inner in zip(b_seqs, seq_types, op.step.inputs):
            starts = [i] + [zero] * (t.ndim - 1)
            sl = hlo.dynamic_slice(s, starts, i64_array([1, *t.shape[1:]]))
            slices.append(emit.reshape(sl, inner.type))
        outs = _emit_graph(ctx, op.step, [*slices, *b_states, *b_others])
        new_stacks = []
        for stack, out, t in zip(b_stacks, [o for o, st in zip(outs, op.stacked) if st], stacked_types):
            row = emit.reshape(out, TensorType(t.dtype, (1, *t.shape[1:])))
            new_stacks.append(hlo.dynamic_update_slice(stack, row, [i] + [zero] * (t.ndim - 1)))
        new_states = [v for v, r in zip(outs, op.recurrent) if r]
        hlo.return_([hlo.add(i, constant(1, _I64)), *new_states, *new_stacks, *b_seqs, *b_others])
    results = list(loop.results)
    final_states = results[1: 1 + n_states]
    it = iter(results[1 + n_states: 1 + n_states + n_stacks])
    return [next(it) if st else final_states[state_of[j]] for j, st in enumerate(op.stacked)]


# --- composite -----------------------------------------------------------------------
def _composite_function(ctx: LoweringContext) -> str:
    """The private function computing ``ctx.op``'s graph, emitted on first use."""
    mctx, op = ctx.module, ctx.op
    key = ("composite", op)  # a tuple key never clashes with a symbol name
    name = mctx.functions.get(key)
    if name is not None:
        return name
    name = mctx.unique_symbol(op.name)
    graph = op.graph
    in_types = [mctx.ir_type(t) for t in graph.input_types]
    out_types = [mctx.ir_type(t) for t in graph.output_types]
    with ir.InsertionPoint(mctx.module.body):
        fn = func.FuncOp(name, ir.FunctionType.get(in_types, out_types))
    fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
    entry = fn.add_entry_block()
    with ir.InsertionPoint(entry):
        func.ReturnOp(_emit_graph(ctx, graph, list(entry.arguments)))
    mctx.functions[name] = fn
    mctx.functions[key] = name
    return name


@register(Composite)
def lower_composite(ctx: LoweringContext, *operands: ir.Value) -> list[ir.Value]:
    name = _composite_function(ctx)
    return list(func.CallOp(ctx.ir_out_types(), name, list(operands)).results)
