"""Set routines (frontend/numpy/sets.py): compiled graphs with unknown dims, run on
several inputs, against perform and NumPy itself (NaNs distinct)."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.numpy import sets as m
from hlograph.tests.helpers import check_against_numpy, check_graph_against_numpy, graph_like


def run_host(fn, value_sets, numpy_fn, shapes=None):
    """One compiled graph (unknown dims unless ``shapes`` says) run on several inputs,
    against perform and NumPy."""
    first = [np.asarray(v) for v in value_sets[0]]
    graph = graph_like(fn, first, shapes or [(None,) * v.ndim for v in first])
    compiled = hg.compile(graph)
    for values in value_sets:
        check_graph_against_numpy(graph, values, numpy_fn(*values), compiled=compiled, name=fn.__name__)


def test_unique_all_nan(rng):
    samples = [np.array([3.0, 1.0, np.nan, 2.0, 1.0, np.nan]), np.zeros(0), np.full(3, np.nan),
               rng.integers(-3, 3, 30).astype(np.float64)]
    samples[3][::7] = np.nan
    run_host(m.unique_all, [[s] for s in samples], np.unique_all)


def test_unique_int(rng):
    def all_three(x):
        return (*m.unique_counts(x), m.unique_values(x), *m.unique_inverse(x))

    def reference(x):
        # NumPy 2.3+ leaves unique_values unordered; compare sorted
        return (*np.unique_counts(x), np.sort(np.unique_values(x)), *np.unique_inverse(x))

    all_three.__name__ = "unique_counts_values_inverse"
    samples = [[rng.integers(-3, 4, (2, 3, 4)).astype(np.int32)], [np.zeros((2, 0, 3), np.int32)]]
    run_host(all_three, samples, reference)


def test_unique_inverse_nan_2d(rng):
    x = rng.integers(0, 4, (3, 5)).astype(np.float32)
    x[1, 2] = np.nan
    x[2, 0] = np.nan
    run_host(m.unique_inverse, [[x], [np.zeros((0, 5), np.float32)]], np.unique_inverse, [(None, 5)])


def test_setxor1d(rng):
    samples = [[rng.integers(0, 8, 10).astype(np.int32), rng.integers(4, 12, 6).astype(np.float32)],
               [np.array([1, 2], np.int32), np.array([np.nan, 1.0, np.nan], np.float32)],
               [np.zeros(0, np.int32), np.array([2.0, 2.0], np.float32)]]
    run_host(m.setxor1d, samples, np.setxor1d)


# --- NumPy's options: unique(equal_nan=, sorted=), isin(invert=, assume_unique=),
# --- setdiff1d(assume_unique=), intersect1d(assume_unique=, return_indices=) ---------------------
def _with_nans(rng, shape, dtype):
    x = rng.integers(-3, 4, size=shape).astype(dtype)
    if np.issubdtype(np.dtype(dtype), np.inexact) and x.size:
        x.flat[:: max(1, x.size // 3)] = np.nan
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32"])
@pytest.mark.parametrize("shape", [(0,), (7,), (3, 4)])
def test_unique_equal_nan_and_sorted(dtype, shape, rng):
    x = _with_nans(rng, shape, dtype)
    for equal_nan in (True, False):
        for flags in [(False, False, False), (True, True, True), (False, True, False)]:
            want = np.unique(x, *flags, equal_nan=equal_nan)
            check_against_numpy(lambda a: hg.unique(a, *flags, equal_nan=equal_nan), [x], want)
            check_against_numpy(lambda a: np.unique(a, *flags, equal_nan=equal_nan), [x], want)
    # sorted=False lets NumPy return any order: the same values
    got = hg.evaluate(hg.Graph([v := hg.tensor("v", x.shape, dtype)], hg.unique(v, sorted=False)), x)
    np.testing.assert_array_equal(np.sort(got), np.sort(np.unique(x, sorted=False)))
    if len(shape) == 1:
        check_against_numpy(lambda a: hg.unique(a, axis=-1, equal_nan=False), [x],
                            np.unique(x, axis=-1, equal_nan=False))


@pytest.mark.parametrize("dtype", ["float64", "int16"])
@pytest.mark.parametrize("shapes", [((6,), (4,)), ((2, 3), (0,)), ((0,), (3,)), ((5,), (2, 2))])
def test_isin_setdiff1d_intersect1d_options(dtype, shapes, rng):
    a, b = _with_nans(rng, shapes[0], dtype), _with_nans(rng, shapes[1], dtype)
    ua, ub = np.unique(a), np.unique(b)  # the inputs assume_unique=True promises
    rng.shuffle(ua)
    for au, (x, y) in [(False, (a, b)), (True, (ua, ub))]:
        for invert in (False, True):
            check_against_numpy(lambda p, q: hg.isin(p, q, assume_unique=au, invert=invert), [x, y],
                                np.isin(x, y, assume_unique=au, invert=invert))
            check_against_numpy(lambda p, q: np.isin(p, q, au, invert, kind=None), [x, y],
                                np.isin(x, y, au, invert))
        check_against_numpy(lambda p, q: hg.setdiff1d(p, q, assume_unique=au), [x, y],
                            np.setdiff1d(x, y, assume_unique=au))
        check_against_numpy(lambda p, q: np.setdiff1d(p, q, au), [x, y], np.setdiff1d(x, y, au))
        for ri in (False, True):
            want = np.intersect1d(x, y, assume_unique=au, return_indices=ri)
            check_against_numpy(lambda p, q: hg.intersect1d(p, q, assume_unique=au, return_indices=ri),
                                [x, y], list(want) if ri else want)
    # assume_unique=True on repeated values does what NumPy does (the repeats show up)
    r = np.array([1, 1, 2], dtype)
    check_against_numpy(lambda p, q: hg.intersect1d(p, q, assume_unique=True), [r, r],
                        np.intersect1d(r, r, assume_unique=True))
