"""Programs written as users write jax (tests/interop/jax_corpus.py ``programs``):
convolutions and pools with their derivatives, attention with masks, optimizer
updates over pytrees, bit counting, reduced precision, FFTs, cumulative
reductions, loops and their gradients, collectives of vmapped axes, linear
algebra, special functions, ``.at[]`` modes, PRNG sampling and weak-typed
promotions. Each is imported, compiled and compared with jax.jit, with every
equation translated by a rule (no fallback)."""

import jax
import numpy as np
import pytest

from hlograph.interop.jax import from_jax
from hlograph.tests.interop.jax_corpus import PROGRAMS_FLOAT64, cast, compare_with_jax, programs

NAMES = list(programs(np.random.default_rng(0)))


@pytest.mark.parametrize("name", NAMES)
def test_program(name, rng):
    f, args = programs(rng)[name]
    g = compare_with_jax(f, *args)
    assert not g.report.fallbacks, str(g.report)
    assert not g.x64


@pytest.mark.parametrize("name", PROGRAMS_FLOAT64)
def test_program_float64(name, rng):
    f, args = programs(rng)[name]
    g = compare_with_jax(f, *cast(args, np.float64))
    assert not g.report.fallbacks, str(g.report)
    assert g.x64


def test_weak_promotions_keep_jax_dtypes_with_x64_on(rng):
    # float32 and int32 arguments under jax_enable_x64: weak scalars still take their dtypes
    f, args = programs(rng)["weak_promotions"]
    with jax.enable_x64(True):
        g = compare_with_jax(f, *args)
    assert g.x64
    assert not g.report.fallbacks, str(g.report)
    # x + 1, i * 2, x + i (an int32 array and a weak Python float give the default float64)
    assert [g.output_types[k].dtype for k in (0, 2, 3, 1)] == [np.float32, np.int32, np.float32, np.float64]


def test_pool_derivatives_are_rules(rng):
    f, args = programs(rng)["pooling"]
    counts = from_jax(f, *args).report.by_rule
    assert counts["select_and_scatter_add"] == 1 and counts["select_and_gather_add"] == 1
    assert counts["reduce_window_max"] >= 1 and counts["reduce_window_sum"] >= 1 and counts["reduce_window_min"] == 1
