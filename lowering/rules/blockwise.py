"""Lowering of Blockwise: the core op's own rule, once per batch element.

The batch dimensions are broadcast and flattened into one leading axis of size
``n``. Up to ``UNROLL_LIMIT`` elements the core rule is emitted ``n`` times on
static slices and the results concatenated; beyond it a ``stablehlo.while``
over the element index reads each input with ``dynamic_slice`` and writes each
output with ``dynamic_update_slice`` (the core rule emitted once, in the body).
"""

from __future__ import annotations

import math

from ...frontend.graph import Apply
from ...frontend.ops.blockwise import Blockwise
from ...frontend.types import DTYPES, TensorType
from .. import emit
from ..context import LoweringContext
from ..emit import broadcast_to, compare, constant
from ..lower import emit_nodes
from ...xla.mlir import hlo, ir
from ..registry import register

#: batches up to this size are unrolled; larger ones loop
UNROLL_LIMIT = 8

_I64 = DTYPES["int64"]


def _reshape(x: ir.Value, from_shape: tuple[int, ...], to: TensorType, ir_type) -> ir.Value:
    return x if tuple(from_shape) == to.shape else emit.reshape(x, to)


def _emit_core(ctx: LoweringContext, core: Apply, args: list[ir.Value]) -> list[ir.Value]:
    env = {id(v): x for v, x in zip(core.inputs, args)}
    emit_nodes(ctx.module, [core], env)
    return [env[id(v)] for v in core.outputs]


@register(Blockwise)
def lower_blockwise(ctx: LoweringContext, *operands: ir.Value) -> list[ir.Value]:
    op: Blockwise = ctx.op
    ir_type = ctx.module.ir_type
    core = op.core_node(ctx.in_types)
    out_types = ctx.out_types
    batch = out_types[0].shape[: out_types[0].ndim - core.outputs[0].ndim]
    n = math.prod(batch)
    if n == 0:
        return [constant(0, t.dtype, t.shape) for t in out_types]
    # inputs: broadcast to batch + core shape, batch flattened to (n, *core)
    flat_in = []
    for x, t, v in zip(operands, ctx.in_types, core.inputs):
        x = broadcast_to(x, t, batch + v.shape)
        flat_in.append(_reshape(x, batch + v.shape, TensorType(t.dtype, (n, *v.shape)), ir_type))
    flat_out = [TensorType(v.dtype, (n, *v.shape)) for v in core.outputs]
    one_out = [ir_type(TensorType(v.dtype, (1, *v.shape))) for v in core.outputs]
    if n <= UNROLL_LIMIT:
        rows: list[list[ir.Value]] = [[] for _ in core.outputs]
        for i in range(n):
            args = []
            for x, v in zip(flat_in, core.inputs):
                sl = hlo.slice(x, [i] + [0] * v.ndim, [i + 1, *v.shape], [1] * (v.ndim + 1))
                args.append(emit.reshape(sl, v.type))
            for j, r in enumerate(_emit_core(ctx, core, args)):
                rows[j].append(hlo.reshape(one_out[j], r))
        results = [r[0] if n == 1 else hlo.concatenate(r, 0) for r in rows]
    else:
        results = _loop(ctx, core, n, flat_in, flat_out, one_out)
    return [_reshape(r, (n, *v.shape), t, ir_type) for r, v, t in zip(results, core.outputs, out_types)]


def _loop(ctx: LoweringContext, core: Apply, n: int, flat_in: list[ir.Value],
          flat_out: list[TensorType], one_out: list[ir.Type]) -> list[ir.Value]:
    # carry [i, *output stacks, *inputs]; the regions read only their arguments
    stacks = [constant(0, t.dtype, t.shape) for t in flat_out]
    carry = [constant(0, _I64), *stacks, *flat_in]
    types = [v.type for v in carry]
    loop = hlo.WhileOp(types, carry)
    cond = loop.cond.blocks.append(*types)
    with ir.InsertionPoint(cond):
        hlo.return_([compare(cond.arguments[0], constant(n, _I64), "LT", _I64)])
    body = loop.body.blocks.append(*types)
    n_out = len(flat_out)
    with ir.InsertionPoint(body):
        args = list(body.arguments)
        i, b_stacks, b_inputs = args[0], args[1: 1 + n_out], args[1 + n_out:]
        zero = constant(0, _I64)
        core_args = []
        for x, v in zip(b_inputs, core.inputs):
            sl = hlo.dynamic_slice(x, [i] + [zero] * v.ndim, [1, *v.shape])
            core_args.append(emit.reshape(sl, v.type))
        outs = _emit_core(ctx, core, core_args)
        new_stacks = [hlo.dynamic_update_slice(s, hlo.reshape(t, r), [i] + [zero] * (len(ft.shape) - 1))
                      for s, r, t, ft in zip(b_stacks, outs, one_out, flat_out)]
        hlo.return_([hlo.add(i, constant(1, _I64)), *new_stacks, *b_inputs])
    return list(loop.results)[1: 1 + n_out]
