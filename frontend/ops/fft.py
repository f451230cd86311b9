"""Discrete Fourier transforms over 1 to 3 axes, as ``stablehlo.fft``: ``FFT`` and
``IFFT`` (complex to complex), ``RFFT`` (real to the non-negative half of the
spectrum) and ``IRFFT`` (that half back to real values).

Each Op carries the transformed ``axes`` (distinct, non-negative; for the real
transforms the last one is the halved axis), the transform ``lengths`` (NumPy's
``s``: the input is cropped or zero-padded to them, for ``IRFFT`` the last axis
to ``lengths[-1] // 2 + 1``) and NumPy's ``norm`` ("backward", "ortho",
"forward"). ``perform`` is ``numpy.fft.fftn``/``ifftn``/``rfftn``/``irfftn``.
Inputs are complex64/complex128 (``RFFT``: float32/float64); the NumPy-named
functions of ``hlograph.fft`` (``frontend/numpy/fft.py``) convert other dtypes,
split more than three axes into several Ops and handle ``hfft``/``ihfft``.

Derivatives: the transforms are linear (``RFFT``/``IRFFT`` real-linear), so
tangents go through the same Op. Cotangents go through the transposed map, as
jax defines it: ``FFT``/``IFFT`` matrices are symmetric (the same transform, the
cropping and padding swapped); ``RFFT``'s transpose is the real part of the full
``FFT`` of the zero-padded cotangent; ``IRFFT``'s is the conjugate of the
``RFFT`` of the cotangent with the opposite scaling, doubled for the bins that
stand for two conjugate ones.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..graph import Apply, Constant, Op, Variable
from ..types import DTYPES, TensorType, is_complex
from .basic import as_variable

# no builders: NumPy's names are the ``numpy.fft`` namespace, hlograph.fft
__all__: list[str] = []

#: NumPy's normalization modes
NORMS = ("backward", "ortho", "forward")
#: the mode that scales the other way (the transposed map of an inverse transform)
DUAL_NORM = {"backward": "forward", "ortho": "ortho", "forward": "backward"}

_COMPLEX_OF = {DTYPES["float32"]: DTYPES["complex64"], DTYPES["float64"]: DTYPES["complex128"]}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}


def check_norm(norm: Any, op: str) -> str:
    """NumPy's ``norm`` argument (None is "backward"); ``ValueError`` otherwise."""
    if norm is None:
        return "backward"
    if norm not in NORMS:
        raise ValueError(f'{op}: invalid norm value {norm!r}; should be "backward", "ortho" or "forward"')
    return norm


def scale(kind: str, norm: str, size: int) -> float:
    """The factor NumPy's ``norm`` puts on the unnormalized transform of ``size`` points
    (``kind`` "forward" for FFT/RFFT, "inverse" for IFFT/IRFFT)."""
    if norm == "ortho":
        return 1 / math.sqrt(size)
    return 1 / size if (norm == "forward") == (kind == "forward") else 1.0


def resize(x: Variable, axis: int, size: int) -> Variable:
    """``x`` cropped or zero-padded at the end of ``axis`` to ``size`` (NumPy's ``n``)."""
    have = x.shape[axis]
    if have == size:
        return x
    if have > size:
        from .indexing import getitem
        return getitem(x, (slice(None),) * axis + (slice(0, size),))
    from .construct import Pad
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, size - have)
    return Pad(widths)(x, Constant(np.zeros((), x.dtype)))


class FourierTransform(Op):
    """Base of the four transforms: ``axes`` (1 to 3 distinct axes), ``lengths`` (one
    transform length per axis) and ``norm``."""

    __props__ = ("axes", "lengths", "norm")
    #: "fft", "ifft", "rfft" or "irfft"
    kind: str = ""
    #: "forward" (FFT, RFFT) or "inverse" (IFFT, IRFFT): the direction ``norm`` scales
    direction: str = "forward"

    def __init__(self, axes: Sequence[int], lengths: Sequence[int], norm: str | None = "backward"):
        name = type(self).__name__
        self.axes = tuple(int(a) for a in axes)
        self.lengths = tuple(int(n) for n in lengths)
        self.norm = check_norm(norm, name)
        if not 1 <= len(self.axes) <= 3:
            raise ValueError(f"{name}: transforms 1 to 3 axes, got axes {self.axes}")
        if len(set(self.axes)) != len(self.axes) or min(self.axes) < 0:
            raise ValueError(f"{name}: axes must be distinct non-negative ints, got {self.axes}")
        if len(self.lengths) != len(self.axes):
            raise ValueError(f"{name}: {len(self.lengths)} lengths for {len(self.axes)} axes")
        for n in self.lengths:
            if n < 1:
                raise ValueError(f"{name}: Invalid number of FFT data points ({n}) specified.")

    # the shapes: the input is resized to ``input_lengths`` along ``axes``, the output
    # has ``output_lengths`` there
    def input_lengths(self) -> tuple[int, ...]:
        return self.lengths

    def output_lengths(self) -> tuple[int, ...]:
        return self.lengths

    def input_dtype_ok(self, dtype: np.dtype) -> bool:
        return is_complex(dtype)

    def output_dtype(self, dtype: np.dtype) -> np.dtype:
        return dtype

    def make_node(self, x: Any) -> Apply:
        x = as_variable(x)
        name = type(self).__name__
        if not self.input_dtype_ok(x.dtype):
            want = "float32 or float64" if self.kind == "rfft" else "complex64 or complex128"
            raise TypeError(f"{name}: input must be {want}, got {x.type}")
        if max(self.axes) >= x.ndim:
            raise ValueError(f"{name}: axes {self.axes} out of bounds for an input of rank {x.ndim}")
        for a in self.axes:
            if x.shape[a] is None:
                raise ValueError(f"{name}: axis {a} of the input must have a known size, got {x.type}")
        shape = list(x.shape)
        for a, n in zip(self.axes, self.output_lengths()):
            shape[a] = n
        return Apply(self, [x], [TensorType(self.output_dtype(x.dtype), shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        fn = getattr(np.fft, self.kind + "n")
        out = fn(x, s=self.lengths, axes=self.axes, norm=self.norm)
        return [np.asarray(out, dtype=node.outputs[0].dtype)]

    def size(self) -> int:
        """The number of points of the transform (the product of ``lengths``)."""
        return math.prod(self.lengths)

    def restore(self, v: Variable, x: Variable) -> Variable:
        """``v`` (sized like this Op's input after resizing) cropped or padded back to ``x``'s
        sizes along ``axes``: the transpose of the resizing."""
        for a in self.axes:
            v = resize(v, a, x.shape[a])
        return v

    def pushforward(self, node, tangents):
        (t,) = tangents
        return [None if t is None else self(t)]


class FFT(FourierTransform):
    """``numpy.fft.fftn(x, s=lengths, axes=axes, norm=norm)`` of a complex ``x``."""

    kind = "fft"

    def pullback(self, node, cotangents):
        (ct,), (x,) = cotangents, node.inputs
        return [self.restore(self(ct), x)]  # the DFT matrix is symmetric


class IFFT(FourierTransform):
    """``numpy.fft.ifftn(x, s=lengths, axes=axes, norm=norm)`` of a complex ``x``."""

    kind = "ifft"
    direction = "inverse"
    pullback = FFT.pullback


class RFFT(FourierTransform):
    """``numpy.fft.rfftn(x, s=lengths, axes=axes, norm=norm)`` of a real ``x``: the last
    axis of ``axes`` keeps ``lengths[-1] // 2 + 1`` bins."""

    kind = "rfft"

    def input_dtype_ok(self, dtype: np.dtype) -> bool:
        return dtype in _COMPLEX_OF

    def output_dtype(self, dtype: np.dtype) -> np.dtype:
        return _COMPLEX_OF[dtype]

    def output_lengths(self) -> tuple[int, ...]:
        return (*self.lengths[:-1], self.lengths[-1] // 2 + 1)

    def pullback(self, node, cotangents):
        (ct,), (x,) = cotangents, node.inputs
        from .elemwise import real
        # the half spectrum is the full one cut: zeros for the cut bins, the full FFT's
        # transpose (itself), the real part for the real input
        full = resize(ct, self.axes[-1], self.lengths[-1])
        return [self.restore(real(FFT(self.axes, self.lengths, self.norm)(full)), x)]


class IRFFT(FourierTransform):
    """``numpy.fft.irfftn(x, s=lengths, axes=axes, norm=norm)`` of a complex ``x``: the
    last axis of ``axes`` is read as ``lengths[-1] // 2 + 1`` bins of a Hermitian
    spectrum (the imaginary parts of the bins at 0 and at ``lengths[-1] / 2`` are
    ignored), the output is real."""

    kind = "irfft"
    direction = "inverse"

    def output_dtype(self, dtype: np.dtype) -> np.dtype:
        return _REAL_OF[dtype]

    def input_lengths(self) -> tuple[int, ...]:
        return (*self.lengths[:-1], self.lengths[-1] // 2 + 1)

    def pullback(self, node, cotangents):
        (ct,), (x,) = cotangents, node.inputs
        from .elemwise import conj, multiply
        half = RFFT(self.axes, self.lengths, DUAL_NORM[self.norm])(ct)
        n = self.lengths[-1]
        bins = n // 2 + 1
        weights = np.full(bins, 2.0)
        weights[0] = 1.0
        if n % 2 == 0:
            weights[-1] = 1.0
        axis = self.axes[-1]
        weights = weights.reshape((bins,) + (1,) * (x.ndim - axis - 1)).astype(x.dtype)
        return [self.restore(conj(multiply(half, Constant(weights))), x)]
