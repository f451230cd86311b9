"""The ``numpy.fft`` namespace (``hg.fft``): every name of NumPy 2's ``np.fft`` with
its signature and semantics, so that ``np.fft.rfft(x, n=8)`` becomes
``hg.fft.rfft(x, n=8)``.

The transforms are the Ops of ``frontend/ops/fft.py`` (one Op per group of up
to three axes; ``stablehlo.fft`` transforms at most three); ``hfft``/``ihfft``
are ``irfft``/``rfft`` of the conjugate with the opposite ``norm``, as NumPy
computes them; ``fftfreq``/``rfftfreq`` are constants (or products with a
graph ``d``) and ``fftshift``/``ifftshift`` are rolls.

Dtypes are NumPy's: complex results are complex64 for float16/float32/complex64
inputs and complex128 otherwise (integers and bools too); the real results of
``irfft``, ``hfft`` and their n-d forms keep a real float input's dtype (float16
stays float16) and are the real part's dtype of a complex one (float64 for
integers). Invalid transform lengths raise NumPy's ``ValueError``; axes out of
range raise ``numpy.exceptions.AxisError`` (an ``IndexError`` as NumPy's, and a
``ValueError``), as does a real n-d transform over no axes. The sizes of the
transformed axes must be known when the graph is built. NumPy's ``out``
argument does not exist here (graph values are never written to).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..graph import Variable
from ..types import DTYPES, is_complex, is_float
from ..ops import elemwise as _ew
from ..ops import fft as _ff
from ..ops.basic import as_int, as_variable, static_shape
from .manipulation import roll

__all__ = [
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
    "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]

_SINGLE = (DTYPES["float16"], DTYPES["bfloat16"], DTYPES["float32"], DTYPES["complex64"])


# --- helpers ---------------------------------------------------------------------------------
def _axis(axis: Any, ndim: int, name: str) -> int:
    a = as_int(axis, name, "axis")
    if not -ndim <= a < ndim:
        raise np.exceptions.AxisError(a, ndim, name)
    return a % ndim


def _complex_input(a: Any) -> Variable:
    """``a`` as NumPy's FFTs see it: complex64 for single (and half) precision, else complex128."""
    x = as_variable(a)
    if is_complex(x.dtype):
        return x
    return _ew.astype(x, "complex64" if x.dtype in _SINGLE else "complex128")


def _real_input(a: Any, name: str) -> Variable:
    x = as_variable(a)
    if is_complex(x.dtype):
        raise TypeError(f"{name}: input must be real, got {x.type}")
    return _ew.astype(x, "float32" if x.dtype in _SINGLE else "float64")


def _real_output(y: Variable, a: Variable) -> Variable:
    """``y`` (a real transform result) in NumPy's dtype for the input ``a``: a real float
    input's own dtype (float16 stays float16), else ``y``'s."""
    return _ew.astype(y, a.dtype) if is_float(a.dtype) and a.dtype != y.dtype else y


def _length(n: Any, name: str) -> int:
    n = as_int(n, name, "n")
    if n < 1:
        raise ValueError(f"{name}: Invalid number of FFT data points ({n}) specified.")
    return n


def _dim(x: Variable, axis: int, name: str) -> int:
    return static_shape(x, name, [axis])[axis]


def _transform(x: Variable, kind: str, axes: Sequence[int], lengths: Sequence[int], norm: str) -> Variable:
    """numpy.fft's ``<kind>n`` over ``axes`` (normalized) with transform ``lengths``: one Op
    per group of up to three distinct axes; repeated axes transform again, one at a time,
    in NumPy's order."""
    axes, lengths = list(axes), list(lengths)
    if len(set(axes)) == len(axes):
        def chunks(op, ax, ns, x):  # the trailing axes first: they need no transpose
            for end in range(len(ax), 0, -3):
                x = op(ax[max(0, end - 3):end], ns[max(0, end - 3):end], norm)(x)
            return x
        if kind in ("fft", "ifft"):
            return chunks(_ff.FFT if kind == "fft" else _ff.IFFT, axes, lengths, x)
        if kind == "rfft":
            x = _ff.RFFT(axes[-3:], lengths[-3:], norm)(x)
            return chunks(_ff.FFT, axes[:-3], lengths[:-3], x)
        x = chunks(_ff.IFFT, axes[:-3], lengths[:-3], x)
        return _ff.IRFFT(axes[-3:], lengths[-3:], norm)(x)
    if kind in ("fft", "ifft"):
        op = _ff.FFT if kind == "fft" else _ff.IFFT
        for i in reversed(range(len(axes))):
            x = op((axes[i],), (lengths[i],), norm)(x)
        return x
    if kind == "rfft":
        x = _ff.RFFT((axes[-1],), (lengths[-1],), norm)(x)
        for i in reversed(range(len(axes) - 1)):
            x = _ff.FFT((axes[i],), (lengths[i],), norm)(x)
        return x
    for i in range(len(axes) - 1):
        x = _ff.IFFT((axes[i],), (lengths[i],), norm)(x)
    return _ff.IRFFT((axes[-1],), (lengths[-1],), norm)(x)


def _one_axis(x: Variable, a: Variable, kind: str, name: str, n: Any, axis: Any, norm: Any,
              default: Any = None) -> Variable:
    """A 1-d transform of ``x`` (the converted ``a``) along ``axis``."""
    norm = _ff.check_norm(norm, name)
    ax = _axis(axis, a.ndim, name)
    if n is None:
        n = _dim(a, ax, name) if default is None else default(_dim(a, ax, name))
    return _transform(x, kind, [ax], [_length(n, name)], norm)


def _cook(a: Variable, s: Any, axes: Any, name: str, inverse_real: bool = False) -> tuple[list[int], list[int]]:
    """NumPy's ``s``/``axes`` handling of the n-d transforms: normalized axes (the last
    ``len(s)`` axes, or every axis, by default) and one transform length each."""
    ndim = a.ndim
    if axes is not None:
        if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
            axes = (axes,)
        axes = [_axis(ax, ndim, name) for ax in axes]
    if s is None:
        if axes is None:
            axes = list(range(ndim))
        lengths: list[Any] = [_dim(a, ax, name) for ax in axes]
        if inverse_real and axes:
            lengths[-1] = 2 * (lengths[-1] - 1)
    else:
        if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
            s = (s,)
        lengths = list(s)
        if axes is None:
            if len(lengths) > ndim:
                raise np.exceptions.AxisError(
                    f"{name}: s {tuple(lengths)} has more entries than the input has dimensions ({ndim})")
            axes = list(range(ndim - len(lengths), ndim))
        if len(lengths) != len(axes):
            raise ValueError(f"{name}: shape and axes have different lengths: s {tuple(lengths)}, "
                             f"axes {tuple(axes)}")
        lengths = [_dim(a, ax, name) if n is None or (not isinstance(n, bool) and n == -1) else n
                   for n, ax in zip(lengths, axes)]
    return axes, [_length(n, name) for n in lengths]


def _complex_nd(kind: str, name: str, a: Any, s: Any, axes: Any, norm: Any) -> Variable:
    norm = _ff.check_norm(norm, name)
    a = as_variable(a)
    axes, lengths = _cook(a, s, axes, name)
    if not axes:
        return a  # NumPy transforms nothing and returns the input as it is
    return _transform(_complex_input(a), kind, axes, lengths, norm)


def _real_nd(name: str, a: Any, s: Any, axes: Any, norm: Any) -> Variable:
    norm = _ff.check_norm(norm, name)
    a = as_variable(a)
    x = _real_input(a, name)
    axes, lengths = _cook(a, s, axes, name)
    if not axes:
        raise np.exceptions.AxisError(f"{name}: needs at least one axis to transform")
    return _transform(x, "rfft", axes, lengths, norm)


def _inverse_real_nd(name: str, a: Any, s: Any, axes: Any, norm: Any) -> Variable:
    norm = _ff.check_norm(norm, name)
    a = as_variable(a)
    axes, lengths = _cook(a, s, axes, name, inverse_real=True)
    if not axes:
        raise np.exceptions.AxisError(f"{name}: needs at least one axis to transform")
    return _real_output(_transform(_complex_input(a), "irfft", axes, lengths, norm), a)


# --- 1-d transforms ----------------------------------------------------------------------------
def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Variable:
    """numpy.fft.fft: the discrete Fourier transform of ``a`` along ``axis``, cropped or
    zero-padded to ``n`` points."""
    a = as_variable(a)
    return _one_axis(_complex_input(a), a, "fft", "fft", n, axis, norm)


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Variable:
    """numpy.fft.ifft: the inverse discrete Fourier transform along ``axis``."""
    a = as_variable(a)
    return _one_axis(_complex_input(a), a, "ifft", "ifft", n, axis, norm)


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Variable:
    """numpy.fft.rfft: the transform of real ``a`` along ``axis``, its ``n // 2 + 1``
    non-negative frequency terms."""
    a = as_variable(a)
    return _one_axis(_real_input(a, "rfft"), a, "rfft", "rfft", n, axis, norm)


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Variable:
    """numpy.fft.irfft: the real inverse of ``rfft``; ``n`` defaults to ``2 * (m - 1)`` for
    ``m`` input points."""
    a = as_variable(a)
    y = _one_axis(_complex_input(a), a, "irfft", "irfft", n, axis, norm, default=lambda m: 2 * (m - 1))
    return _real_output(y, a)


def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Variable:
    """numpy.fft.hfft: the real transform of a Hermitian-symmetric signal given by its first
    half: ``irfft(conj(a), n, axis)`` with the opposite normalization."""
    a = as_variable(a)
    norm = _ff.DUAL_NORM[_ff.check_norm(norm, "hfft")]
    x = _ew.conj(_complex_input(a))
    y = _one_axis(x, a, "irfft", "hfft", n, axis, norm, default=lambda m: 2 * (m - 1))
    return _real_output(y, a)


def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Variable:
    """numpy.fft.ihfft: the inverse of ``hfft``: ``conj(rfft(a, n, axis))`` with the opposite
    normalization."""
    a = as_variable(a)
    norm = _ff.DUAL_NORM[_ff.check_norm(norm, "ihfft")]
    return _ew.conj(_one_axis(_real_input(a, "ihfft"), a, "rfft", "ihfft", n, axis, norm))


# --- n-d transforms ----------------------------------------------------------------------------
def fftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Variable:
    """numpy.fft.fftn: the transform over ``axes`` (default: the last ``len(s)`` axes, or
    all), each cropped or zero-padded to its entry of ``s`` (-1: its size)."""
    return _complex_nd("fft", "fftn", a, s, axes, norm)


def ifftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Variable:
    """numpy.fft.ifftn: the inverse transform over ``axes``."""
    return _complex_nd("ifft", "ifftn", a, s, axes, norm)


def rfftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Variable:
    """numpy.fft.rfftn: the transform of real ``a`` over ``axes``, halved along the last."""
    return _real_nd("rfftn", a, s, axes, norm)


def irfftn(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Variable:
    """numpy.fft.irfftn: the real inverse of ``rfftn``; the last axis' length defaults to
    ``2 * (m - 1)``."""
    return _inverse_real_nd("irfftn", a, s, axes, norm)


def fft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None) -> Variable:
    """numpy.fft.fft2: ``fftn`` over the last two axes."""
    return _complex_nd("fft", "fft2", a, s, axes, norm)


def ifft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Variable:
    """numpy.fft.ifft2: ``ifftn`` over the last two axes."""
    return _complex_nd("ifft", "ifft2", a, s, axes, norm)


def rfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Variable:
    """numpy.fft.rfft2: ``rfftn`` over the last two axes."""
    return _real_nd("rfft2", a, s, axes, norm)


def irfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
           norm: str | None = None) -> Variable:
    """numpy.fft.irfft2: ``irfftn`` over the last two axes."""
    return _inverse_real_nd("irfft2", a, s, axes, norm)


# --- helper routines ---------------------------------------------------------------------------
def _frequencies(name: str, n: Any, d: Any, device: Any) -> tuple[int, Any]:
    if device not in (None, "cpu"):
        raise ValueError(f"{name}: device must be None or 'cpu', got {device!r}")
    n = as_int(n, name, "n")
    if n < 1:
        raise ValueError(f"{name}: n must be positive, got {n}")
    return n, d


def fftfreq(n: int, d: Any = 1.0, device: Any = None) -> Variable:
    """numpy.fft.fftfreq: the sample frequencies of an ``n``-point transform with sample
    spacing ``d`` (a number, or a 0-d graph value), float64 as NumPy's."""
    n, d = _frequencies("fftfreq", n, d, device)
    if not isinstance(d, Variable):
        return as_variable(np.fft.fftfreq(n, d))
    ints = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return _ew.multiply(as_variable(ints), _ew.divide(1.0, _ew.multiply(n, d)))


def rfftfreq(n: int, d: Any = 1.0, device: Any = None) -> Variable:
    """numpy.fft.rfftfreq: the non-negative sample frequencies of an ``n``-point ``rfft``."""
    n, d = _frequencies("rfftfreq", n, d, device)
    if not isinstance(d, Variable):
        return as_variable(np.fft.rfftfreq(n, d))
    return _ew.multiply(as_variable(np.arange(0, n // 2 + 1)), _ew.divide(1.0, _ew.multiply(n, d)))


def _shift(name: str, x: Any, axes: Any, sign: int) -> Variable:
    x = as_variable(x)
    if axes is None:
        axes = list(range(x.ndim))
    elif isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        axes = [axes]
    axes = [_axis(ax, x.ndim, name) for ax in axes]
    if not axes:
        return x
    return roll(x, [sign * (_dim(x, ax, name) // 2) for ax in axes], axes)


def fftshift(x: Any, axes: int | Sequence[int] | None = None) -> Variable:
    """numpy.fft.fftshift: the zero-frequency term moved to the center of ``axes`` (default:
    every axis)."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x: Any, axes: int | Sequence[int] | None = None) -> Variable:
    """numpy.fft.ifftshift: the inverse of ``fftshift``."""
    return _shift("ifftshift", x, axes, -1)
