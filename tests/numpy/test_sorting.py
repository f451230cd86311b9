"""Sorting routines (frontend/numpy/sorting.py): compiled results and perform against NumPy."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import sorting as m
from hlograph.tests.helpers import assert_same, check_against_numpy, random_array, results_everywhere


@pytest.mark.parametrize("axis", [-1, 0])
def test_lexsort(axis, rng):
    keys = [rng.integers(0, 3, size=(6, 5)).astype(np.int32) for _ in range(3)]
    check_against_numpy(lambda a, b, c: m.lexsort([a, b, c], axis=axis), keys,
                        lambda a, b, c: np.lexsort([a, b, c], axis=axis))
    k2 = rng.integers(0, 3, size=(2, 9)).astype(np.float64)
    check_against_numpy(lambda k: m.lexsort(k), [k2], np.lexsort)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "int64", "complex64"])
def test_sort_complex(dtype, rng):
    x = random_array(rng, (3, 6), dtype)
    if dtype == "complex64":
        x.real[:, :2] = 1.0  # ties on the real part: ordered by the imaginary one
    check_against_numpy(m.sort_complex, [x], np.sort_complex)
    check_against_numpy(m.sort_complex, [x[0]], np.sort_complex)


@pytest.mark.parametrize("shape,kshape,axis", [((None, 9), (3, 9), -1), ((None, None), (4, 7), -1),
                                               ((None, 4, None), (3, 4, 5), 0), ((None, 9), (1, 9), -1)],
                         ids=str)
def test_lexsort_of_an_array_of_keys_with_unknown_dims(rng, shape, kshape, axis):
    # the number of keys (axis 0) known only at call time: a loop over them; the other dims
    # may be unknown too
    k = rng.integers(0, 3, size=kshape).astype(np.float64)
    v = hg.tensor("k", shape, "float64")
    g = hg.Graph([v], m.lexsort(v, axis=axis))
    for where, got in results_everywhere(g, k):
        assert_same(np.asarray(got), np.lexsort(k, axis=axis), what=where)


def test_lexsort_of_a_0d_key_is_an_error():
    with pytest.raises(TypeError, match="lexsort"):
        m.lexsort(hg.tensor("k", (), "float64"))
