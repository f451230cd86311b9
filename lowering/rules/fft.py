"""Lowering of the Fourier transforms of frontend/ops/fft.py: ``stablehlo.fft``.

``stablehlo.fft`` transforms the trailing dims. The rule moves the transformed
axes there (``stablehlo.transpose``, in the Op's axis order, so the halved axis
of RFFT/IRFFT comes last), crops (``stablehlo.slice``) or zero-pads
(``stablehlo.pad``) them to the transform's input sizes, transforms, applies
NumPy's ``norm`` (``stablehlo.fft``'s FFT/RFFT are unnormalized, its IFFT/IRFFT
divide by the number of points: "backward" scaling) with one
``stablehlo.multiply`` by a constant, and moves the axes back.
"""

from __future__ import annotations

from ...frontend.ops import fft as ff
from ..context import LoweringContext
from ..emit import constant
from ...xla.mlir import hlo, i64_array, ir
from ..registry import register

_FFT_TYPES = {"fft": "FFT", "ifft": "IFFT", "rfft": "RFFT", "irfft": "IRFFT"}


def _resize(x: ir.Value, shape: list[int], sizes: list[int], dtype) -> ir.Value:
    """``x`` (of ``shape``) cropped at the end of its dims to ``sizes`` where it is longer,
    then zero-padded at the end where it is shorter."""
    if any(d > s for d, s in zip(shape, sizes)):
        limits = [min(d, s) for d, s in zip(shape, sizes)]
        x = hlo.slice(x, i64_array([0] * len(shape)), i64_array(limits), i64_array([1] * len(shape)))
        shape = limits
    if any(d < s for d, s in zip(shape, sizes)):
        high = [s - d for d, s in zip(shape, sizes)]
        zeros = [0] * len(shape)
        x = hlo.pad(x, constant(0, dtype), i64_array(zeros), i64_array(high), i64_array(zeros))
    return x


@register(ff.FFT)
@register(ff.IFFT)
@register(ff.RFFT)
@register(ff.IRFFT)
def lower_fft(ctx: LoweringContext, x: ir.Value) -> list[ir.Value]:
    op: ff.FourierTransform = ctx.op
    in_t, out_t = ctx.in_types[0], ctx.out_type
    ndim = in_t.ndim
    perm = [a for a in range(ndim) if a not in op.axes] + list(op.axes)
    moved = perm != list(range(ndim))
    if moved:
        x = hlo.transpose(x, i64_array(perm))
    shape = [in_t.shape[p] for p in perm]
    batch = shape[:ndim - len(op.axes)]
    x = _resize(x, shape, batch + list(op.input_lengths()), in_t.dtype)
    y = hlo.fft(x, hlo.FftTypeAttr.get(_FFT_TYPES[op.kind]), i64_array(op.lengths))
    # stablehlo.fft scales as norm="backward"; the factor turning that into op.norm
    factor = ff.scale(op.direction, op.norm, op.size()) / ff.scale(op.direction, "backward", op.size())
    if factor != 1.0:
        out_shape = [out_t.shape[p] for p in perm]
        y = hlo.multiply(y, constant(factor, out_t.dtype, out_shape))
    if moved:
        inverse = [perm.index(a) for a in range(ndim)]
        y = hlo.transpose(y, i64_array(inverse))
    return [y]
