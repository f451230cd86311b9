"""Set routines (frontend/numpy/sets.py): compiled graphs with unknown dims, run on
several inputs, against perform and NumPy itself (NaNs distinct)."""

from __future__ import annotations

import numpy as np

import hlograph as hg
from hlograph.frontend.numpy import sets as m
from hlograph.tests.helpers import check_graph_against_numpy, graph_like


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
