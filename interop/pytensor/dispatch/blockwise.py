"""Blockwise: a core Op batched over leading dims. Without batch dims the core Op's
converter runs on the inputs; with them, hlograph's ``blockwise`` batches the
core computation the converter builds."""

from __future__ import annotations

from pytensor.tensor.blockwise import Blockwise

from ....frontend import builders as hb
from ..convert import NotConvertible, conform, has_converter, hlograph_convert


@hlograph_convert.register(Blockwise)
def convert_blockwise(op, node, inputs, ctx):
    core_op = op.core_op
    if not has_converter(core_op):
        raise NotConvertible(f"no converter is registered for its core Op {type(core_op).__name__}")
    core_node = op._create_dummy_core_node(node.inputs)
    converter = hlograph_convert.dispatch(type(core_op))
    batched = any(v.ndim != c.type.ndim for v, c in zip(inputs, core_node.inputs))
    if not batched:
        return converter(core_op, core_node, inputs, ctx)

    def core(*cores):
        res = converter(core_op, core_node, list(cores), ctx)
        outs = list(res) if isinstance(res, (list, tuple)) else [res]
        return [conform(o, v) for o, v in zip(outs, core_node.outputs)]

    core.__name__ = type(core_op).__name__
    n_fallbacks = len(ctx.fallbacks)
    out = hb.blockwise(core, op.signature)(*inputs)
    if len(ctx.fallbacks) > n_fallbacks:
        # the core graph has nodes that run their PyTensor perform on the host, which a
        # batched (device) core cannot hold: the whole Blockwise runs its perform instead
        inner = ", ".join(name for name, _ in ctx.fallbacks[n_fallbacks:])
        del ctx.fallbacks[n_fallbacks:]
        raise NotConvertible(f"its core Op {type(core_op).__name__} needs PyTensor's perform for {inner}")
    return out if isinstance(out, list) else [out]
