"""Blockwise: a core Op batched over leading dims. Without batch dims the core Op's
converter runs on the inputs; with them, hlograph's ``blockwise`` batches the
core computation the converter builds."""

from __future__ import annotations

from pytensor.tensor.blockwise import Blockwise

from ....frontend import builders as hb
from ....frontend.graph import Constant, Variable
from ....frontend.types import TensorType
from ..convert import NotConvertible, NotStatic, conform, has_converter, hlograph_convert


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
    if getattr(converter, "batches", False):  # its hlograph Op takes leading batch dims
        return converter(core_op, node, inputs, ctx)

    def core(*cores):
        ctx.batched_core += 1
        try:
            res = converter(core_op, core_node, list(cores), ctx)
        finally:
            ctx.batched_core -= 1
        outs = list(res) if isinstance(res, (list, tuple)) else [res]
        return [conform(o, v) for o, v in zip(outs, core_node.outputs)]

    core.__name__ = type(core_op).__name__
    core, inputs, in_sigs = _unbatch_constants(core, inputs, core_node, op.inputs_sig)
    n_fallbacks = len(ctx.fallbacks)
    signature, extra = _output_only_dims(op, core, inputs, in_sigs, ctx)
    if extra:
        # hlograph's signatures name every output dim in an input: an output-only dim
        # (SVD's k = min(m, n)) gets a placeholder input of its size, the core ignores
        n_in = len(inputs)
        core_with_extra = core

        def core(*cores):  # noqa: F811
            return core_with_extra(*cores[:n_in])

        core.__name__ = core_with_extra.__name__
        inputs = [*inputs, *extra]
    out = hb.blockwise(core, signature)(*inputs)
    if len(ctx.fallbacks) > n_fallbacks:
        # the core graph has nodes that run their PyTensor perform on the host, which a
        # batched (device) core cannot hold: the whole Blockwise runs its perform instead
        inner = ", ".join(name for name, _ in ctx.fallbacks[n_fallbacks:])
        del ctx.fallbacks[n_fallbacks:]
        raise NotConvertible(f"its core Op {type(core_op).__name__} needs PyTensor's perform for {inner}")
    return out if isinstance(out, list) else [out]


def _unbatch_constants(core, inputs, core_node, in_sigs):
    """A constant input whose batch dims are all 1 (a mode flag PyTensor broadcast to
    ``[[True]]``) goes to the core converter as a constant of its core shape, not as a
    batched value: ``(core, batched inputs, their core signatures)``."""
    batch_ndims = [v.ndim - c.type.ndim for v, c in zip(inputs, core_node.inputs)]
    fixed = {i: Constant(v.data.reshape(v.data.shape[nb:]))
             for i, (v, nb) in enumerate(zip(inputs, batch_ndims))
             if isinstance(v, Constant) and nb > 0 and all(n == 1 for n in v.data.shape[:nb])}
    others = [nb for i, nb in enumerate(batch_ndims) if i not in fixed]
    if not fixed or not others or max(batch_ndims[i] for i in fixed) > max(others):
        return core, inputs, list(in_sigs)  # the constants would set the batch rank
    kept = [i for i in range(len(inputs)) if i not in fixed]
    batched_core = core

    def core(*cores):  # noqa: F811
        full = dict(fixed)
        full.update(zip(kept, cores))
        return batched_core(*[full[i] for i in range(len(inputs))])

    core.__name__ = batched_core.__name__
    return core, [inputs[i] for i in kept], [in_sigs[i] for i in kept]


def _signature(in_sigs, out_sigs) -> str:
    text = lambda sigs: ",".join("(" + ",".join(sig) + ")" for sig in sigs)  # noqa: E731
    return text(in_sigs) + "->" + text(out_sigs)


def _output_only_dims(op, core, inputs, in_sigs, ctx):
    """``(signature, placeholder inputs)``: PyTensor's signature (of the batched
    ``inputs``, core signatures ``in_sigs``), with an extra input ``(d)`` of zeros of the
    size of each output dim ``d`` no input names (its size from the core computation on
    the core shapes of ``inputs``)."""
    out_sigs = op.outputs_sig
    known = {d for sig in in_sigs for d in sig}
    missing = [d for sig in out_sigs for d in sig if d not in known]
    if not missing:
        return _signature(in_sigs, out_sigs), []
    cores = [Variable(TensorType(v.dtype, v.shape[v.ndim - len(sig):])) for v, sig in zip(inputs, in_sigs)]
    n_fallbacks = len(ctx.fallbacks)
    outs = core(*cores)  # traced only for the core output shapes
    del ctx.fallbacks[n_fallbacks:]
    sizes = {}
    for o, sig in zip(outs, out_sigs):
        for d, n in zip(sig, o.type.shape):
            if d not in known:
                if n is None:
                    ctx.mark_shape_dependent()
                    raise NotStatic(f"the size of its output dimension {d!r} is known only at run time")
                sizes.setdefault(d, n)
    names = list(dict.fromkeys(missing))
    extra = [hb.zeros((sizes[d],), "int8") for d in names]
    return _signature([*in_sigs, *((d,) for d in names)], out_sigs), extra
