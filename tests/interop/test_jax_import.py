"""jax programs imported with from_jax and compiled by hlograph give what jax.jit
gives: the corpus of tests/interop/jax_corpus.py in float32 and float64, every
equation translated by a rule (no fallback)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.interop.jax import from_jax
from hlograph.tests.interop.jax_corpus import FALLBACKS, FLOAT64, cast, compare_with_jax, corpus, integers, weak_types

NAMES = list(corpus(np.random.default_rng(0)))


@pytest.mark.parametrize("name", NAMES)
def test_float32_program(name, rng):
    f, args = corpus(rng)[name]
    g = compare_with_jax(f, *args)
    assert not g.x64
    assert set(g.report.fallbacks) <= FALLBACKS.get(name, set()), str(g.report)
    for t in g.output_types:
        assert t.dtype != np.float64, f"{name}: a float32 program gave {t}"


@pytest.mark.parametrize("name", FLOAT64)
def test_float64_program(name, rng):
    f, args = corpus(rng)[name]
    g = compare_with_jax(f, *cast(args, np.float64))
    assert g.x64
    assert set(g.report.fallbacks) <= FALLBACKS.get(name, set()), str(g.report)
    assert any(t.dtype == np.float64 for t in g.output_types)


@pytest.mark.parametrize("x64", [False, True])
def test_weak_types(x64, rng):
    # a Python scalar argument and Python constants are weakly typed: with x64 on or
    # off, float32 arrays stay float32; a NumPy float64 scalar is not weak: it turns
    # x64 on for the import and promotes what it meets
    x = rng.normal(size=4).astype(np.float32)
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    with jax.enable_x64(x64):
        g = compare_with_jax(weak_types, x, 2.5)
        assert g.x64 == x64
        assert [t.dtype for t in g.output_types] == [f32] * 4
        assert g.input_types[1].dtype == (f64 if x64 else f32)
        strong = compare_with_jax(weak_types, x, np.float64(2.5))
        assert strong.x64
        assert [t.dtype for t in strong.output_types] == [f64, f32, f32, f64]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_semantics(dtype):
    # jax's integer division truncates and its remainder takes the dividend's sign
    i = np.array([-7, 7, 5, -3, 0, 9], dtype)
    j = np.array([2, -3, 2, 2, 5, -4], dtype)
    g = compare_with_jax(integers, i, j)
    assert g.x64 == (dtype == "int64")


def test_the_graph_is_what_jax_computes_also_by_perform(rng):
    # the reference (each Op's perform) agrees too: the imported graph means jax's function
    f, args = corpus(rng)["mlp"]
    g = from_jax(f, *args)
    leaves = jax.tree_util.tree_leaves(args)
    np.testing.assert_allclose(hg.evaluate(g, *leaves), jax.jit(f)(*args), rtol=1e-5, atol=1e-6)


def test_gathers_and_scatters_with_batching_dims(rng):
    # vmap turns indexing into gathers/scatters with batching dims
    x = rng.normal(size=(3, 5)).astype(np.float32)
    idx = np.array([0, 4, 2], np.int32)
    f = lambda x, i: (jax.vmap(lambda r, k: r[k])(x, i), jax.vmap(lambda r, k: r.at[k].add(1.0))(x, i))
    compare_with_jax(f, x, idx)


def test_out_of_bounds_indices_follow_the_gather_and_scatter_modes(rng):
    x = rng.normal(size=(4, 3)).astype(np.float32)
    idx = np.array([0, 6, -9], np.int32)
    compare_with_jax(lambda x, i: x.at[i].get(mode="fill", fill_value=-7.0), x, idx)
    compare_with_jax(lambda x, i: jnp.take(x, i, axis=0, mode="clip"), x, idx)
    compare_with_jax(lambda x, i: x.at[i].set(5.0, mode="drop"), x, np.array([1, 4], np.int32))


def test_float_comparisons_in_total_order():
    x = np.array([0.0, -0.0, np.nan, -np.nan, 1.0, -np.inf], np.float32)
    y = np.array([-0.0, 0.0, 1.0, np.nan, np.nan, -np.inf], np.float32)
    from jax._src.lax import lax as lax_internal  # the primitives jax's sorts and searches use
    f = lambda x, y: [p.bind(x, y) for p in (lax_internal.lt_to_p, lax_internal.le_to_p,
                                             lax_internal.eq_to_p)]
    g = compare_with_jax(f, x, y)
    assert not g.report.fallbacks
