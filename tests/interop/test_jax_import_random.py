"""``jax.random`` imported with no fallback: jax's threefry2x32 key primitives
(``random_seed``, ``random_bits``, ``random_split``, ``random_fold_in``) and
bitcasts are graph computations that give jax.jit's exact bits, under both
settings of ``jax_threefry_partitionable`` and with x64 on and off; the samplers
built on them (normal, uniform, gamma's rejection loop, ...) import whole."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import hlograph as hg
from hlograph.interop.jax import explain_import, from_jax

SEEDS = [np.int32(0), np.int32(-7), np.int32(123456789)]
SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3)]


@pytest.fixture(params=[True, False], ids=["partitionable", "original"])
def partitionable(request):
    old = jax.config.jax_threefry_partitionable
    jax.config.update("jax_threefry_partitionable", request.param)
    yield request.param
    jax.config.update("jax_threefry_partitionable", old)


def key_data(x):
    x = jnp.asarray(x) if not hasattr(x, "dtype") else x
    return jax.random.key_data(x) if jnp.issubdtype(x.dtype, jax.dtypes.prng_key) else x


def same_bits(f, *args, x64=False):
    """Imports ``f``, checks that no equation fell back, and compares every result's
    bits with jax.jit's. Returns the imported graph."""
    with jax.enable_x64(x64):
        g = from_jax(f, *args)
        expected = [np.asarray(key_data(e)) for e in jax.tree_util.tree_leaves(jax.jit(f)(*args))]
    assert not g.report.fallbacks, str(g.report)
    got = hg.compile(g)(*jax.tree_util.tree_leaves(args))
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for i, (a, e) in enumerate(zip(got, expected)):
        a = np.asarray(a)
        assert (a.dtype, a.shape) == (e.dtype, e.shape), f"result {i}: {a.dtype}{a.shape} != {e.dtype}{e.shape}"
        assert a.tobytes() == e.tobytes(), f"result {i}:\n{a}\n!=\n{e}"
    return g


@pytest.mark.parametrize("x64", [False, True])
def test_keys_split_fold_in(partitionable, x64):
    def f(seed, data):
        key = jax.random.PRNGKey(seed)
        typed = jax.random.key(seed)
        return (key, jax.random.split(key), jax.random.split(key, 5), jax.random.split(typed, (2, 3)),
                jax.random.split(typed, 0), jax.random.fold_in(key, data), jax.random.fold_in(typed, 7),
                jax.random.fold_in(jax.random.split(key)[1], data - 5))
    for seed in SEEDS:
        same_bits(f, seed, np.int32(seed // 3 + 1), x64=x64)


def test_64_bit_seeds(partitionable):
    # the high word of a 64-bit seed is the key's first word
    f = lambda seed: (jax.random.PRNGKey(seed), jax.random.split(jax.random.PRNGKey(seed), 3))
    for seed in [np.int64(0), np.int64(-1), np.int64(2 ** 40 + 5), np.uint64(2 ** 63 + 9)]:
        same_bits(f, seed, x64=True)


@pytest.mark.parametrize("x64", [False, True])
def test_random_bits(partitionable, x64):
    widths = [8, 16, 32, 64] if x64 else [8, 16, 32]

    def f(seed):
        key = jax.random.PRNGKey(seed)
        return tuple(jax.random.bits(key, shape, dtype=f"uint{w}") for w in widths for shape in SHAPES + [(7,)])
    for seed in SEEDS:
        same_bits(f, seed, x64=x64)


def test_batched_keys(partitionable):
    # vmapped key primitives: random_bits/split/fold_in over key arrays
    def f(keys, msgs):
        return (jax.vmap(lambda k: jax.random.bits(k, (3,)))(keys), jax.vmap(lambda k: jax.random.split(k, 3))(keys),
                jax.vmap(jax.random.fold_in)(keys, msgs), jax.vmap(lambda k: jax.random.normal(k, (2,)))(keys),
                jax.vmap(lambda k: jax.random.bits(k, (5,), jnp.uint8))(keys))
    keys = jax.random.split(jax.random.PRNGKey(3), 4)
    same_bits(f, np.asarray(keys), np.arange(4, dtype=np.int32) - 2)


@pytest.mark.parametrize("x64", [False, True])
def test_normal_uniform(partitionable, x64):
    def f(seed):
        key = jax.random.PRNGKey(seed)
        out = []
        for dtype in ([jnp.float32, jnp.float16, jnp.bfloat16] + ([jnp.float64] if x64 else [])):
            for shape in SHAPES:
                out += [jax.random.normal(key, shape, dtype), jax.random.uniform(key, shape, dtype, -2.0, 3.0)]
        return tuple(out)
    for seed in SEEDS[:2]:
        same_bits(f, seed, x64=x64)


@pytest.mark.parametrize("x64", [False])  # (float64: the corpus's random programs)
def test_samplers(x64):
    def f(seed, logits):
        k = jax.random.split(jax.random.key(seed), 10)
        return (jax.random.bernoulli(k[0], 0.3, (6,)), jax.random.randint(k[1], (4,), -3, 9),
                jax.random.categorical(k[2], logits), jax.random.permutation(k[3], 7),
                jax.random.choice(k[4], 9, (3,), replace=False), jax.random.exponential(k[5], (3,)),
                jax.random.truncated_normal(k[6], -1.0, 1.0, (3,)), jax.random.gumbel(k[7], (2, 2)),
                jax.random.poisson(k[8], 3.0, (4,)), jax.random.laplace(k[9], (3,)))
    dtype = np.float64 if x64 else np.float32
    same_bits(f, np.int32(4), np.arange(12, dtype=dtype).reshape(3, 4) / 5, x64=x64)


@pytest.mark.parametrize("x64", [False, True])
def test_gamma_family(x64):
    # jax's rejection loop, vmapped: a while loop with a batched predicate, keys reshaped;
    # the samples agree to rounding (log and pow may differ from jax's in the last bit)
    dtype = np.float64 if x64 else np.float32

    def f(seed, a):
        k1, k2, k3 = jax.random.split(jax.random.PRNGKey(seed), 3)
        out = (jax.random.gamma(k1, a), jax.random.gamma(k2, 2.5, (2, 3), dtype=a.dtype))
        return out if x64 else (*out, jax.random.dirichlet(k3, a))
    with jax.enable_x64(x64):
        g = from_jax(f, np.int32(1), np.array([0.3, 1.0, 4.5], dtype))
        expected = jax.jit(f)(np.int32(1), np.array([0.3, 1.0, 4.5], dtype))
    assert not g.report.fallbacks, str(g.report)
    got = hg.compile(g)(np.int32(1), np.array([0.3, 1.0, 4.5], dtype))
    for a, e in zip(got, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_allclose(a, np.asarray(e), rtol=1e-5 if not x64 else 1e-12)


def test_explain_reports_no_fallback():
    f = lambda seed: jax.random.normal(jax.random.fold_in(jax.random.PRNGKey(seed), 2), (3,))
    report = explain_import(f, np.int32(0))
    assert not report.fallbacks
    text = str(report)
    assert "computed by jax (fallback): none" in text, text
    assert "random_bits" in text and "bitcast_convert_type" in text, text


def test_other_key_implementations_fall_back():
    # rbg keys keep jax's own computation (the fallback), which gives jax's bits
    def f(seed):
        key = jax.random.key(seed, impl="rbg")
        return jax.random.key_data(jax.random.split(key)), jax.random.uniform(key, (3,))
    g = from_jax(f, np.int32(5))
    assert {"random_seed", "random_split", "random_bits"} <= set(g.report.fallbacks)
    got, expected = hg.compile(g)(np.int32(5)), jax.jit(f)(np.int32(5))
    for a, e in zip(got, expected):
        np.testing.assert_array_equal(a, np.asarray(e))


def test_bitcast_convert_type():
    def f(x, u):
        return (jax.lax.bitcast_convert_type(x, jnp.int32), jax.lax.bitcast_convert_type(x, jnp.uint8),
                jax.lax.bitcast_convert_type(u, jnp.float32), jax.lax.bitcast_convert_type(x, jnp.float16))
    x = np.array([[1.5, -np.inf], [np.nan, 3e-42]], np.float32)
    u = np.arange(24, dtype=np.uint8).reshape(2, 3, 4) * 9
    same_bits(f, x, u)
    with jax.enable_x64(True):
        same_bits(lambda x: (jax.lax.bitcast_convert_type(x, jnp.int64),
                             jax.lax.bitcast_convert_type(x, jnp.uint16)), np.array([1.0, -0.0], np.float64), x64=True)


def test_batched_while_predicate():
    # a while loop under vmap whose predicate differs per element: each element stops
    # on its own, the loop runs until none goes on
    def collatz_steps(n):
        return jax.lax.while_loop(lambda c: c[0] != 1, lambda c: (jnp.where(c[0] % 2 == 0, c[0] // 2, 3 * c[0] + 1),
                                                                     c[1] + 1), (n, 0))[1]
    n = np.array([1, 6, 7, 27], np.int32)
    g = from_jax(jax.vmap(collatz_steps), n)
    assert not g.report.fallbacks, str(g.report)
    np.testing.assert_array_equal(hg.compile(g)(n), [0, 8, 16, 111])
