"""Sorting routines (frontend/numpy/sorting.py): compiled results and perform against NumPy."""

import numpy as np
import pytest

from hlograph.frontend.numpy import sorting as m
from hlograph.tests.helpers import check_against_numpy


@pytest.mark.parametrize("axis", [-1, 0])
def test_lexsort(axis, rng):
    keys = [rng.integers(0, 3, size=(6, 5)).astype(np.int32) for _ in range(3)]
    check_against_numpy(lambda a, b, c: m.lexsort([a, b, c], axis=axis), keys,
                        lambda a, b, c: np.lexsort([a, b, c], axis=axis))
    k2 = rng.integers(0, 3, size=(2, 9)).astype(np.float64)
    check_against_numpy(lambda k: m.lexsort(k), [k2], np.lexsort)
