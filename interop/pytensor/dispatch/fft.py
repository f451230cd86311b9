"""``pytensor.tensor.fft``: RFFTOp and IRFFTOp, unnormalized n-d real transforms over
the last ``len(s)`` axes whose complex values are real arrays with a trailing axis of
(real, imaginary) parts.

``RFFTOp(a, s)`` is ``numpy.fft.rfftn(a, s)`` split into that trailing pair;
``IRFFTOp(a, s)`` joins the pair and is ``numpy.fft.irfftn`` without its ``1 / prod(s)``
(``norm="forward"``). Both give the input's dtype. The lengths ``s`` must be known
when the graph is converted (they are the input's dims in PyTensor's ``rfft`` and
``irfft``); otherwise the node runs its PyTensor perform."""

from __future__ import annotations

from pytensor.tensor.fft import IRFFTOp, RFFTOp

from ....frontend import builders as hb
from ....frontend.numpy import fft as hfft
from ..convert import NotConvertible, cast, hlograph_convert


def _lengths(ctx, x, s, name: str, trailing: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(lengths, axes): the static ``s`` and the last ``len(s)`` axes before the
    ``trailing`` ones (NumPy's axes for ``s`` without ``axes``)."""
    lengths = ctx.require_ints(s, f"the transform lengths of {name}")
    ndim = x.ndim - trailing
    if not 1 <= len(lengths) <= ndim:
        raise NotConvertible(f"{name}: {len(lengths)} transform lengths for an input of rank {x.ndim}")
    return lengths, tuple(range(ndim - len(lengths), ndim))


@hlograph_convert.register(RFFTOp)
def convert_rfft(op, node, inputs, ctx):
    x, s = inputs
    lengths, axes = _lengths(ctx, x, s, "RFFTOp", 0)
    y = hfft.rfftn(x, s=lengths, axes=axes)
    dtype = node.outputs[0].type.dtype
    return hb.stack([cast(hb.real(y), dtype), cast(hb.imag(y), dtype)], axis=-1)


@hlograph_convert.register(IRFFTOp)
def convert_irfft(op, node, inputs, ctx):
    x, s = inputs
    lengths, axes = _lengths(ctx, x, s, "IRFFTOp", 1)
    spectrum = hb.add(x[..., 0], hb.multiply(x[..., 1], 1j))
    return cast(hfft.irfftn(spectrum, s=lengths, axes=axes, norm="forward"), node.outputs[0].type.dtype)
