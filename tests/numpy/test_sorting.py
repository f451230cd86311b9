"""Sorting routines (frontend/numpy/sorting.py): compiled results and perform against NumPy."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import sorting as m
from hlograph.tests.helpers import compare_with_perform


def _check_allclose(build, numpy_fn, values, rtol=1e-6, atol=0.0):
    xs = [hg.tensor(f"x{i}", v.shape, str(v.dtype)) for i, v in enumerate(values)]
    out = build(*xs)
    outs = list(out) if isinstance(out, tuple) else [out]
    g = hg.Graph(xs, outs)
    got, _ = compare_with_perform(g, values, rtol=rtol, atol=atol)
    got = list(got) if isinstance(got, (list, tuple)) else [got]
    want = numpy_fn(*values)
    want = list(want) if isinstance(want, tuple) else [want]
    for gv, wv in zip(got, want):
        wv = np.asarray(wv)
        assert gv.dtype == wv.dtype and gv.shape == wv.shape
        np.testing.assert_allclose(gv, wv, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("axis", [-1, 0])
def test_lexsort(axis, rng):
    keys = [rng.integers(0, 3, size=(6, 5)).astype(np.int32) for _ in range(3)]
    _check_allclose(lambda a, b, c: m.lexsort([a, b, c], axis=axis),
                    lambda a, b, c: np.lexsort([a, b, c], axis=axis), keys)
    k2 = rng.integers(0, 3, size=(2, 9)).astype(np.float64)
    _check_allclose(lambda k: m.lexsort(k), np.lexsort, [k2])
