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


@pytest.mark.parametrize("mode", ["full", "valid"])
@pytest.mark.parametrize("shapes", [((3, 8), (3, 4)), ((2, 1, 5), (4, 3)), ((6,), (2, 3, 6))])
def test_batched_convolve1d_converts(rng, mode, shapes):
    """Batched convolutions (PyTensor's Blockwise, with the mode flag as a broadcast
    constant) are converted, not run by their perform."""
    import warnings

    import pytensor

    import hlograph.interop.pytensor as hgpt

    (xs, ys) = shapes
    x = pt.tensor("x", shape=tuple(1 if n == 1 else None for n in xs))
    y = pt.tensor("y", shape=tuple(1 if n == 1 else None for n in ys))
    out = convolve1d(x, y, mode=mode)
    vals = [rng.normal(size=xs), rng.normal(size=ys)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", hgpt.FallbackWarning)
        compare_hlograph_and_py([x, y], out, vals)
        fn = pytensor.function([x, y], out, mode="HLOGRAPH")
        fn(*vals)
    assert all(not c.fallbacks for c in hgpt.compiled_graph(fn).conversions())
