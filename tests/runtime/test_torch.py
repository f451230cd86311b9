"""torch tensors as inputs (DLPack) and results handed back to torch, with a
real producer (tests/runtime/test_targets.py covers the protocol with stand-ins).
Runs where torch is installed (the ``interop`` extra; CI installs it)."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.tests.helpers import assert_same

torch = pytest.importorskip("torch")


_DTYPES = ["float32", "float64", "int64", "int32", "uint8", "bool", "complex64", "bfloat16"]


def _tensor(rng, shape, dtype):
    values = rng.normal(size=shape) * 4
    if dtype == "bfloat16":
        return torch.tensor(values, dtype=torch.bfloat16)
    return torch.from_numpy(values.astype(dtype))


def _numpy(t):
    if t.dtype == torch.bfloat16:
        import ml_dtypes
        return t.float().numpy().astype(ml_dtypes.bfloat16)
    return t.numpy()


@pytest.mark.parametrize("dtype", _DTYPES)
def test_torch_tensors_in(dtype, rng):
    shape = (2, 3)
    x = hg.tensor("x", shape, dtype)
    y = hg.tensor("y", shape, dtype)
    g = hg.Graph([x, y], [hg.where(x == y, x, y), x])
    fn = hg.compile(g)
    for _ in range(3):  # the first call compiles; every call converts the tensors
        a, b = _tensor(rng, shape, dtype), _tensor(rng, shape, dtype)
        assert_same(fn(a, b), hg.evaluate(g, _numpy(a), _numpy(b)))


def test_torch_strided_and_0d_tensors(rng):
    x = hg.tensor("x", (3, 2), "float64")
    s = hg.tensor("s", (), "float64")
    g = hg.Graph([x, s], x * s + 1)
    fn = hg.compile(g)
    base = torch.from_numpy(rng.normal(size=(2, 3)))
    view = base.t()  # a transposed view: DLPack carries its strides
    assert not view.is_contiguous()
    scale = torch.tensor(2.5, dtype=torch.float64)
    assert_same(fn(view, scale), hg.evaluate(g, view.numpy(), scale.numpy()))


def test_results_go_back_to_torch_without_numpy(rng):
    x = hg.tensor("x", (4,), "float32")
    fn = hg.compile(hg.Graph([x], hg.exp(x)))
    t = _tensor(rng, (4,), "float32")
    out = torch.from_dlpack(fn(t, output="device"))
    assert out.dtype == torch.float32 and tuple(out.shape) == (4,)
    np.testing.assert_allclose(out.numpy(), np.exp(t.numpy()), rtol=1e-6)


def test_torch_errors_name_the_argument(rng):
    x = hg.tensor("x", (3,), "float32")
    y = hg.tensor("y", (3,), "float32")
    fn = hg.compile(hg.Graph([x, y], x + y))
    ok = torch.zeros(3)
    with pytest.raises(TypeError, match=r"argument 1 \('y'\): expected dtype float32.*got float64"):
        fn(ok, torch.zeros(3, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"argument 0 \('x'\): expected shape"):
        fn(torch.zeros(4), ok)
    # torch refuses to export a tensor that requires grad: a TypeError naming it
    with pytest.raises(TypeError, match=r"argument 0 \('x'\): cannot import Tensor through DLPack"):
        fn(torch.zeros(3, requires_grad=True), ok)
