"""``fft``: jax's four transforms (``fft_type`` FFT, IFFT, RFFT, IRFFT) over the
trailing ``len(fft_lengths)`` dims, as hlograph's FFT Ops with jax's (and XLA's)
normalization: none forward, ``1/n`` inverse."""

from __future__ import annotations

from jax import lax

from ....frontend.ops.fft import FFT, IFFT, IRFFT, RFFT
from ..registry import Unsupported, register
from .common import ints

_OPS = {lax.FftType.FFT: FFT, lax.FftType.IFFT: IFFT, lax.FftType.RFFT: RFFT, lax.FftType.IRFFT: IRFFT}


@register("fft")
def fft(x, *, fft_type, fft_lengths):
    lengths = ints(fft_lengths)
    op = _OPS.get(lax.FftType(fft_type) if not isinstance(fft_type, lax.FftType) else fft_type)
    if op is None or not 1 <= len(lengths) <= 3:
        raise Unsupported(f"an fft of type {fft_type} over {len(lengths)} dims")
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    return op(axes, lengths, "backward")(x)
