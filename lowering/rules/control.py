"""Lowering of conditionals: IfElse to ``stablehlo.if``, Switch to ``stablehlo.case``.

Each branch's inner graph is emitted into its own region, with the inner
graph's inputs bound to the node's operands (regions read values of the
enclosing scope directly), and ends in ``stablehlo.return``.
"""

from __future__ import annotations

from ...frontend.graph import Graph
from ...frontend.ops.control import IfElse, Switch
from ...frontend.types import DTYPES
from ..context import LoweringContext
from ..emit import constant, scalar_type
from ..lower import emit_nodes, value_of
from ..mlir import hlo, ir
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
