"""jax programs imported with from_jax and compiled by hlograph give what jax.jit
gives: the corpus of tests/interop/jax_corpus.py in float32 and float64, every
equation translated by a rule (no fallback)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import hlograph as hg
from hlograph.interop.jax import from_jax
from hlograph.tests.helpers import assert_same
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


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint32", "int32", "int64", "uint64"])
def test_mulhi_is_the_high_half_of_the_product(dtype, rng):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=16, dtype=dtype, endpoint=True)
    y = rng.integers(info.min, info.max, size=16, dtype=dtype, endpoint=True)
    x[:4], y[:4] = [info.min, info.max, 0, info.max], [info.min, info.min, info.max, info.max]
    g = compare_with_jax(lax.mulhi, x, y)
    assert not g.report.fallbacks and g.report.by_rule["mulhi"] == 1, str(g.report)
    exact = np.array([(int(a) * int(b)) >> (8 * x.itemsize) for a, b in zip(x, y)], dtype)
    np.testing.assert_array_equal(hg.compile(g)(x, y), exact)
    np.testing.assert_array_equal(hg.evaluate(g, x, y), exact)


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


# --- rules that replaced the fallback: cumlogsumexp, eig ------------------------------
def _no_fallback(g, primitive):
    assert not g.report.fallbacks, str(g.report)
    assert g.report.by_rule[primitive] >= 1, str(g.report)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("shape, axis", [((9,), 0), ((3, 5), 1), ((6, 2), 0), ((2, 1, 4), 1), ((0, 3), 0),
                                         ((3, 0), 1)])
def test_cumlogsumexp_is_a_rule(shape, axis, reverse, dtype, rng):
    # a prefix scan of logaddexp (a float32 scan stays float32), forward and reversed
    x = (rng.normal(size=shape) * 4).astype(dtype)
    f = lambda x: lax.cumlogsumexp(x, axis=axis, reverse=reverse)
    g = compare_with_jax(f, x)
    _no_fallback(g, "cumlogsumexp")
    assert g.x64 == (dtype == np.float64) and g.output_types[0].dtype == dtype
    with jax.enable_x64(g.x64):
        assert_same(hg.evaluate(g, x), np.asarray(jax.jit(f)(x)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cumlogsumexp_infinities_nans_and_gradient(dtype):
    # -inf (a masked logit) contributes nothing, +inf and NaN propagate forward (or
    # backward when reversed), as jax's scan of logaddexp
    x = np.array([-np.inf, -np.inf, 1.0, -np.inf, 2.5, np.inf, 0.0, np.nan, 3.0], dtype)
    f = lambda x: (lax.cumlogsumexp(x), lax.cumlogsumexp(x, reverse=True), jnp.logaddexp(x, 0.0))
    _no_fallback(compare_with_jax(f, x), "cumlogsumexp")
    # jnp.cumsum-like use: a running log-normalizer, and its gradient (hlograph's derivative)
    y = np.linspace(-3, 3, 7).astype(dtype)
    loss = lambda y: jnp.sum(jnp.sin(lax.cumlogsumexp(y, axis=0, reverse=True)))
    g = from_jax(loss, y)
    _no_fallback(g, "cumlogsumexp")
    grad = hg.compile(hg.Graph(g.inputs, hg.grad(g.outputs[0], g.inputs[0])))(y)
    with jax.enable_x64(dtype == np.float64):
        assert_same(grad, np.asarray(jax.grad(loss)(y)))


def test_cumulative_reductions_are_rules_in_both_directions(rng):
    x = rng.normal(size=(4, 5)).astype(np.float64)
    prims = {"cumsum": lax.cumsum, "cumprod": lax.cumprod, "cummax": lax.cummax, "cummin": lax.cummin,
             "cumlogsumexp": lax.cumlogsumexp}
    f = lambda x: [p(x, axis=a, reverse=r) for p in prims.values() for a in (0, 1) for r in (False, True)]
    g = compare_with_jax(f, x)
    assert not g.report.fallbacks, str(g.report)
    assert all(g.report.by_rule[p] == 4 for p in prims), str(g.report)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eig_is_a_rule(dtype, rng):
    # hlograph's Eig lowers through jax's eig: the same LAPACK geev, eigenvalues in the
    # same order, the same (unit-norm) eigenvectors; complex64 for float32 input
    a = rng.normal(size=(2, 4, 4)).astype(dtype)
    for f in (jnp.linalg.eig, jnp.linalg.eigvals):
        g = compare_with_jax(f, a, rtol=1e-4 if dtype == np.float32 else 1e-10,
                             atol=1e-5 if dtype == np.float32 else 1e-12)
        _no_fallback(g, "eig")
        assert g.output_types[0].dtype == (np.complex64 if dtype == np.float32 else np.complex128)
    w = hg.evaluate(from_jax(jnp.linalg.eigvals, a), a)
    np.testing.assert_allclose(np.sort_complex(w.ravel()), np.sort_complex(np.linalg.eigvals(a).ravel()),
                               rtol=1e-4)


def test_eig_variants_without_a_matching_op_stay_on_the_fallback(rng):
    a = rng.normal(size=(3, 3)).astype(np.float32)
    g = compare_with_jax(lambda a: lax.linalg.eig(a, compute_left_eigenvectors=True)[0], a)
    assert dict(g.report.fallbacks) == {"eig": 1} and "left eigenvectors" in str(g.report)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reduce_window_with_a_function_of_its_own_is_a_rule(dtype, rng):
    # XLA's order: the initial value, then the window's elements in row-major order,
    # padding and dilation holes skipped (a non-associative function and an initial
    # value that is no identity show it)
    x = rng.normal(size=(5, 6)).astype(dtype)
    rw = lax.reduce_window
    f = lambda x: (rw(x, -jnp.inf, jnp.logaddexp, (2, 3), (1, 2), "SAME"),
                   rw(x, 0.5, lax.add, (3, 2), (2, 1), ((1, 2), (0, 1)), base_dilation=(2, 1), window_dilation=(1, 2)),
                   rw(x, 2.0, lambda a, b: a * 0.5 + b, (1, 4), (1, 1), ((0, 0), (3, 0))),
                   rw((x, x * 2), (0.0, 1.0), lambda a, b: (a[0] + b[0], a[1] * b[1]), (2, 2), (1, 1), "VALID"),
                   rw(x[:0], 1.0, lax.mul, (1, 2), (1, 1), "VALID"))
    g = compare_with_jax(f, x)
    assert not g.report.fallbacks and g.report.by_rule["reduce_window"] == 5, str(g.report)
    assert g.output_types[0].dtype == dtype
