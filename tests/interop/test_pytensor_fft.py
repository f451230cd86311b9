"""``pytensor.tensor.fft`` (RFFTOp, IRFFTOp and the ``rfft``/``irfft`` functions with
their norms) through the HLOGRAPH mode against PyTensor's Python implementation, and
against numpy.fft."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pytensor")

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pytensor.tensor import fft as ptfft  # noqa: E402

from hlograph.tests.interop.pytensor_helpers import compare_hlograph_and_py, fallbacks_of  # noqa: E402

# PyTensor's RFFTOp.perform passes s without axes (deprecated by NumPy 2)
pytestmark = pytest.mark.filterwarnings("ignore:`axes` should not be `None`:DeprecationWarning")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(3, 8), (2, 7), (2, 4, 5), (2, 3, 4, 6)], ids=str)
def test_rfft_irfft(dtype, shape, rng):
    x = pt.tensor("x", shape=shape, dtype=dtype)
    spec = ptfft.rfft(x)
    is_odd = shape[-1] % 2 == 1
    outs = [spec, ptfft.rfft(x, norm="ortho"), ptfft.rfft(x, norm="no_norm"),
            ptfft.irfft(spec, is_odd=is_odd), ptfft.irfft(spec, norm="ortho", is_odd=is_odd),
            ptfft.irfft(spec, norm="no_norm", is_odd=is_odd)]
    v = rng.normal(size=shape).astype(dtype)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    _, res = compare_hlograph_and_py([x], outs, [v], **tol)
    full = np.fft.rfftn(v, axes=tuple(range(1, len(shape))))
    np.testing.assert_allclose(res[0][..., 0] + 1j * res[0][..., 1], full, **tol)
    np.testing.assert_allclose(res[3], v, **tol)  # the round trip


def test_ops_with_explicit_lengths(rng):
    # cropped and zero-padded transforms: s differs from the input's dims
    x = pt.matrix("x", shape=(3, 6))
    z = pt.tensor3("z", shape=(2, 4, 2))
    outs = [ptfft.rfft_op(x, np.array([4])), ptfft.rfft_op(x, np.array([9])),
            ptfft.irfft_op(z, np.array([5])), ptfft.irfft_op(z, np.array([8]))]
    compare_hlograph_and_py([x, z], outs, [rng.normal(size=(3, 6)), rng.normal(size=(2, 4, 2))])


def test_gradient_graph(rng):
    # PyTensor's own gradient graph of a cost through rfft and irfft converts too
    x = pt.matrix("x", shape=(2, 6))
    cost = (ptfft.irfft(ptfft.rfft(x) ** 2) * pt.arange(6)).sum()
    compare_hlograph_and_py([x], [cost, pytensor.grad(cost, x)], [rng.normal(size=(2, 6))])


def test_unknown_lengths_run_after_specialization(rng):
    # lengths from unknown dims: known once the graph is specialized to the arguments
    x = pt.matrix("x")
    fn, res = compare_hlograph_and_py([x], ptfft.rfft(x), [rng.normal(size=(2, 5))])
    assert res.shape == (2, 3, 2)
    assert not fallbacks_of(fn)
