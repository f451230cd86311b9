"""Convolutions (``pytensor.tensor.signal``) through the HLOGRAPH mode against
PyTensor's Python implementation."""

from __future__ import annotations

import pytest

pytest.importorskip("pytensor")

import pytensor.tensor as pt  # noqa: E402
from pytensor.tensor.signal import convolve1d  # noqa: E402

from hlograph.tests.interop.pytensor_helpers import compare_hlograph_and_py  # noqa: E402


@pytest.mark.parametrize("mode", ["full", "valid"])
def test_convolve1d_mixed_dtypes(rng, mode):
    x, y = pt.vector("x", dtype="float32"), pt.dvector("y")
    out = convolve1d(x, y, mode=mode)
    compare_hlograph_and_py([x, y], out, [rng.normal(size=4).astype("float32"), rng.normal(size=9)])
