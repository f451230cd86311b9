"""``pytensor.tensor.signal``: Convolve1d, NumPy's 1-D ``convolve`` in mode "full" or
"valid" (its third input, a boolean: full or not). PyTensor's ``convolve1d`` batches it
with ``Blockwise`` and builds mode "same" by slicing the "full" result.

The mode and both lengths must be known when the graph is converted (the lengths
are, once the graph is specialized to the shapes of its arguments); otherwise the
node runs its PyTensor perform."""

from __future__ import annotations

from pytensor.tensor.signal.conv import Convolve1d

from ....frontend import builders as hb
from ..convert import NotStatic, cast, hlograph_convert


def _mode(ctx, full_mode) -> str:
    """``"full"`` or ``"valid"`` from Convolve1d's boolean ``full_mode`` input."""
    v = ctx.static(full_mode)
    if v is None:
        raise NotStatic("the convolution mode (full or valid) is known only at run time")
    return "full" if bool(v) else "valid"


@hlograph_convert.register(Convolve1d)
def convert_convolve1d(op, node, inputs, ctx):
    in1, in2, full_mode = inputs
    mode = _mode(ctx, full_mode)
    if in1.shape[0] is None or in2.shape[0] is None:
        ctx.mark_shape_dependent()
        raise NotStatic("the lengths of the convolved sequences are known only at run time")
    dtype = node.outputs[0].type.dtype
    return hb.convolve(cast(in1, dtype), cast(in2, dtype), mode=mode)
