"""The Fourier transform Ops: compiled results against perform (numpy.fft's n-d
transforms), over axes in any order, cropping and padding, norms and dtypes; make_node's
checks. The NumPy-named functions are tested in tests/numpy/test_fft.py."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.ops import fft as ff
import hlograph.lowering.rules.fft  # noqa: F401
from hlograph.tests.helpers import compare_with_perform, random_array

#: (axes, lengths) on an input of shape (4, 6, 5): trailing and moved axes, crops and pads
AXES = [((2,), (5,)), ((2,), (3,)), ((1,), (9,)), ((0, 2), (3, 8)), ((2, 0), (4, 4)),
        ((2, 0, 1), (2, 3, 7)), ((0, 1, 2), (4, 6, 5))]
OPS = [(ff.FFT, "complex64"), (ff.IFFT, "complex128"), (ff.RFFT, "float32"), (ff.RFFT, "float64"),
       (ff.IRFFT, "complex64"), (ff.IRFFT, "complex128"), (ff.FFT, "complex128"), (ff.IFFT, "complex64")]


def _tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if np.dtype(dtype) in (np.float32, np.complex64) else dict(rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("op,dtype", OPS, ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.parametrize("axes,lengths", AXES, ids=str)
def test_matches_perform(op, dtype, axes, lengths):
    rng = np.random.default_rng(0)
    x = hg.tensor("x", (4, 6, 5), dtype)
    outs = [op(axes, lengths, norm)(x) for norm in ff.NORMS]
    ref = op(axes, lengths)(x).type
    for y in outs:
        assert y.type == ref
    compare_with_perform(hg.Graph([x], outs), [random_array(rng, x.shape, dtype)], **_tol(dtype))


@pytest.mark.parametrize("op,dtype", OPS[:6], ids=lambda v: getattr(v, "__name__", v))
def test_output_types_and_batches(op, dtype):
    x = hg.tensor("x", (None, 3, 8), dtype)
    y = op((2,), (8,))(x)
    real = {"float32": "complex64", "float64": "complex128", "complex64": "float32", "complex128": "float64"}
    expected_dtype = real[dtype] if op in (ff.RFFT, ff.IRFFT) else dtype
    expected_last = 5 if op is ff.RFFT else 8
    assert y.dtype == np.dtype(expected_dtype) and y.shape == (None, 3, expected_last)
    v = random_array(np.random.default_rng(1), (0, 3, 8), dtype)  # an empty batch
    graph = hg.Graph([x], y)
    compare_with_perform(graph, [v])
    compare_with_perform(graph, [random_array(np.random.default_rng(2), (2, 3, 8), dtype)], **_tol(dtype))


def test_matches_numpy():
    v = random_array(np.random.default_rng(3), (3, 4, 10), "float64")
    x = hg.tensor("x", v.shape, "float64")
    y = ff.RFFT((0, 2), (5, 8), "ortho")(x)
    z = ff.IRFFT((0, 2), (5, 8), "ortho")(y)
    out = hg.compile(hg.Graph([x], [y, z]))(v)
    np.testing.assert_allclose(out[0], np.fft.rfftn(v, s=(5, 8), axes=(0, 2), norm="ortho"), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out[1], np.fft.irfftn(np.fft.rfftn(v, s=(5, 8), axes=(0, 2), norm="ortho"),
                                                     s=(5, 8), axes=(0, 2), norm="ortho"), rtol=1e-12, atol=1e-12)


def test_props_and_errors():
    assert ff.FFT((1,), (4,)) == ff.FFT((1,), (4,), "backward")
    assert ff.FFT((1,), (4,)) != ff.FFT((1,), (4,), "ortho") != ff.IFFT((1,), (4,), "ortho")
    with pytest.raises(ValueError, match="transforms 1 to 3 axes"):
        ff.FFT((0, 1, 2, 3), (2, 2, 2, 2))
    with pytest.raises(ValueError, match="transforms 1 to 3 axes"):
        ff.FFT((), ())
    with pytest.raises(ValueError, match="distinct non-negative"):
        ff.FFT((1, 1), (2, 2))
    with pytest.raises(ValueError, match="distinct non-negative"):
        ff.RFFT((-1,), (2,))
    with pytest.raises(ValueError, match="2 lengths for 1 axes"):
        ff.IFFT((0,), (2, 2))
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(0\)"):
        ff.IRFFT((0,), (0,))
    with pytest.raises(ValueError, match="invalid norm value 'unitary'"):
        ff.FFT((0,), (2,), "unitary")
    with pytest.raises(TypeError, match="FFT: input must be complex64 or complex128, got float32"):
        ff.FFT((0,), (2,))(hg.tensor("x", (3,), "float32"))
    with pytest.raises(TypeError, match="RFFT: input must be float32 or float64, got complex64"):
        ff.RFFT((0,), (2,))(hg.tensor("x", (3,), "complex64"))
    with pytest.raises(TypeError, match="RFFT: input must be float32 or float64, got float16"):
        ff.RFFT((0,), (2,))(hg.tensor("x", (3,), "float16"))
    with pytest.raises(ValueError, match="out of bounds for an input of rank 1"):
        ff.IFFT((1,), (2,))(hg.tensor("x", (3,), "complex64"))
    with pytest.raises(ValueError, match="axis 0 of the input must have a known size"):
        ff.FFT((0,), (2,))(hg.tensor("x", (None,), "complex64"))
