"""Small jax programs the importer is tested on, and the comparison with jax.jit."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import hlograph as hg
from hlograph.interop.jax import from_jax
from hlograph.tests.helpers import assert_same


def compare_with_jax(f, *args, rtol=None, atol=None, **kwargs):
    """Imports ``f`` for ``args``/``kwargs``, compiles the graph and compares every
    result with ``jax.jit(f)`` (x64 as the import had it): same dtypes and shapes,
    values within the dtype's tolerance. Returns the imported graph."""
    g = from_jax(f, *args, **kwargs)
    leaves = jax.tree_util.tree_leaves((args, kwargs))
    out = g.unflatten(hg.compile(g)(*leaves))
    with jax.enable_x64(g.x64):
        expected = jax.jit(f)(*args, **kwargs)
    got, want = jax.tree_util.tree_leaves(out), jax.tree_util.tree_leaves(expected)
    assert jax.tree_util.tree_structure(out) == jax.tree_util.tree_structure(expected)
    for i, (a, e) in enumerate(zip(got, want)):
        assert_same(a, np.asarray(e), rtol=rtol, atol=atol, what=f"result {i}")
    return g


# --- the programs ---------------------------------------------------------------------
def mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return jax.nn.log_softmax(x @ w + b)


def attention(q, k, v):
    scores = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(q.shape[-1]).astype(q.dtype)
    mask = jnp.tril(jnp.ones((q.shape[1], k.shape[1]), bool))
    scores = jnp.where(mask, scores, -1e9)
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(scores, axis=-1), v)


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + eps) * gamma + beta


def softmax_logsumexp(x):
    return jax.nn.softmax(x, axis=0), jax.nn.logsumexp(x, axis=-1), jax.scipy.special.logsumexp(x)


def rnn(w, h0, xs):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h.sum()
    return lax.scan(step, h0, xs)


def reverse_scan(xs):
    return lax.scan(lambda c, x: (c * 0.5 + x, c), jnp.zeros(xs.shape[1:], xs.dtype), xs, reverse=True)


def jacobi(a, b):
    # a fixed number of Jacobi sweeps (fori_loop: a scan)
    d = jnp.diag(a)
    r = a - jnp.diag(d)
    return lax.fori_loop(0, 25, lambda i, x: (b - r @ x) / d, jnp.zeros_like(b))


def newton_sqrt(y):
    # a while loop whose trip count depends on the values
    def cond(state):
        i, x = state
        return (i < 50) & (jnp.max(jnp.abs(x * x - y)) > 1e-5 * jnp.max(y))

    def body(state):
        i, x = state
        return i + 1, 0.5 * (x + y / x)
    return lax.while_loop(cond, body, (0, y))


def branches(p, i, x):
    a = lax.cond(p, lambda x: jnp.sin(x), lambda x: x * 2.0, x)
    b = lax.switch(i, [lambda x: x + 1.0, jnp.cos, lambda x: -x], x)
    return a, b


def indexing(x, i, idx):
    return x[i], x[1:, ::2], x[idx], x[:, idx], x[-1, None], x[idx, -1]


def updates(x, i, idx):
    y = x.at[i].set(0.0).at[idx].add(1.0).at[:, 0].multiply(2.0)
    return y.at[idx, 1:].max(0.5), lax.dynamic_update_slice(x, jnp.ones((2, 2), x.dtype), (i, i))


def linalg(a, b):
    spd = a @ a.T + a.shape[0] * jnp.eye(a.shape[0], dtype=a.dtype)
    chol = jnp.linalg.cholesky(spd)
    return chol, jnp.linalg.solve(spd, b), jax.scipy.linalg.cho_solve((chol, True), b)


@jax.custom_jvp
def soft_clip(x):
    return jnp.tanh(x) * 3.0


soft_clip.defjvp(lambda primals, tangents: (soft_clip(primals[0]), tangents[0]))


@jax.custom_vjp
def scaled_sin(x):
    return jnp.sin(x) * 2.0


scaled_sin.defvjp(lambda x: (scaled_sin(x), x), lambda x, g: (2.0 * g * jnp.cos(x),))


def custom_rules(x):
    return jax.nn.relu(x), jax.nn.gelu(x), soft_clip(x), scaled_sin(x), jax.nn.silu(x)


def sorting(x):
    return jnp.sort(x, axis=0), jnp.argsort(x, axis=1), lax.top_k(x, 2), jnp.argmax(x, axis=1), jnp.cumsum(x, 1)


def integers(i, j):
    return i // j, i % j, lax.div(i, j), lax.rem(i, j), i >> 1, lax.shift_right_logical(i, 1), i.sum(), i * j


def shapes(x):
    y = jnp.concatenate([x, jnp.flip(x, 1)], axis=1).reshape(x.shape[0], 2, -1)
    p = lax.pad(x, jnp.array(0.5, x.dtype), [(1, -1, 1), (-1, 2, 0)])
    return jnp.transpose(y, (1, 2, 0)), p, jnp.roll(x, 2, axis=1), jnp.split(x, 2, axis=1)


def conv(img, kernel):
    return lax.conv_general_dilated(img, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def mlp_loss_grad(params, x, y):
    # jax's reverse mode, imported: transposed dots, add_any, a rematerialized layer
    def loss(params):
        h = jax.checkpoint(lambda x: jnp.tanh(x @ params[0][0] + params[0][1]))(x)
        logits = h @ params[1][0] + params[1][1]
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))
    return jax.value_and_grad(loss)(params)


def nn_activations(x):
    return (jax.nn.sigmoid(x), jax.nn.softplus(x), jax.nn.elu(x), jax.nn.leaky_relu(x, 0.1),
            jax.nn.hard_tanh(x), jax.nn.celu(x), jax.nn.selu(x), jax.nn.log_sigmoid(x),
            jax.nn.relu6(x * 4), jax.nn.swish(x), jax.nn.soft_sign(x), jax.nn.gelu(x, approximate=False))


def nn_normalize(x, labels):
    onehot = jax.nn.one_hot(labels, x.shape[-1], dtype=x.dtype)
    logp = jax.nn.log_softmax(x, axis=-1)
    return (jax.nn.standardize(x, axis=-1), jax.nn.glu(x, axis=-1), -jnp.sum(onehot * logp, -1),
            jax.nn.logsumexp(x, axis=0, b=onehot[0]), jax.nn.softmax(x, where=x > -0.5, axis=-1))


def at_updates(x, idx, rows):
    # duplicated indices: add accumulates, min/max combine, set keeps one of them
    return (x.at[idx].min(0.0), x.at[idx].max(0.25), x.at[idx, 1].add(1.5),
            x.at[rows, :2].set(-1.0), x.at[::2].mul(3.0), x.at[idx].set(jnp.arange(x.shape[1], dtype=x.dtype)))


def fori_pytree(x, w):
    def body(i, carry):
        acc, (hist, n) = carry
        acc = jnp.tanh(acc @ w) + 0.1 * i
        return acc, (hist.at[i].set(acc.sum()), n + 1)
    return lax.fori_loop(0, 4, body, (x, (jnp.zeros(4, x.dtype), jnp.int32(0))))


def scan_pytree(params, xs):
    def step(carry, x):
        h, stats = carry["h"], carry["stats"]
        h = jnp.tanh(h @ params["w"] + x["a"] * params["b"])
        stats = (stats[0] + h.sum(), jnp.maximum(stats[1], x["b"].max()))
        return {"h": h, "stats": stats}, {"out": h * 2.0, "norm": jnp.sqrt(jnp.sum(h * h))}
    init = {"h": jnp.zeros(params["b"].shape, xs["a"].dtype),
            "stats": (jnp.zeros((), xs["a"].dtype), jnp.full((), -jnp.inf, xs["a"].dtype))}
    return lax.scan(step, init, xs)


def cond_switch_operands(p, i, x, y, k):
    a, b = lax.cond(p, lambda x, y, k: (x * y, k + 1), lambda x, y, k: (x - y, k * 2), x, y, k)
    c = lax.switch(i, [lambda x, y, k: {"s": x + y, "k": k},
                       lambda x, y, k: {"s": x * k.astype(x.dtype), "k": -k},
                       lambda x, y, k: {"s": jnp.sin(x) * y, "k": k * k}], x, y, k)
    return a, b, c


def linalg_solve_inv(a, b):
    m = a + a.shape[0] * jnp.eye(a.shape[0], dtype=a.dtype)
    return jnp.linalg.solve(m, b), jnp.linalg.inv(m), jnp.linalg.solve(m, b[:, 0])


def linalg_slogdet_eigh(a):
    sym = (a + a.T) / 2
    sign, logdet = jnp.linalg.slogdet(a + 3 * jnp.eye(a.shape[0], dtype=a.dtype))
    w, v = jnp.linalg.eigh(sym)
    # eigenvectors are defined up to sign: compare v * sign(v[0]) and the reconstruction
    v = v * jnp.where(v[0] < 0, -1, 1).astype(v.dtype)
    return sign, logdet, w, v, (v * w) @ v.T


def random_normal_uniform(seed, scale):
    key = jax.random.PRNGKey(seed)
    k1, k2 = jax.random.split(key)
    return (jax.random.normal(k1, (3, 4)) * scale, jax.random.uniform(k2, (5,), minval=-1.0, maxval=2.0),
            jax.random.bernoulli(k1, 0.3, (6,)))


def random_categorical_permutation(seed, logits, x):
    key = jax.random.PRNGKey(seed)
    k1, k2, k3 = jax.random.split(key, 3)
    return (jax.random.categorical(k1, logits, axis=-1), jax.random.permutation(k2, 7),
            jax.random.permutation(k3, x, axis=0), jax.random.randint(k1, (4,), -3, 9))


def weak_types(x, s):
    # a Python scalar argument and Python constants are weakly typed: x keeps its dtype
    return x * s + 1, jnp.where(x > 0, x, 0.1), x ** 2 / 3, jnp.maximum(x, 0) + s


def f32(*shape, rng):
    return rng.normal(size=shape).astype(np.float32)


def cast(tree, dtype):
    return jax.tree_util.tree_map(lambda a: np.asarray(a, dtype) if np.asarray(a).dtype.kind == "f" else a, tree)


def corpus(rng):
    """name -> (function, args) in float32."""
    params = [(f32(4, 8, rng=rng), f32(8, rng=rng)), (f32(8, 8, rng=rng), f32(8, rng=rng)),
              (f32(8, 3, rng=rng), f32(3, rng=rng))]
    a = f32(4, 4, rng=rng)
    return {
        "mlp": (mlp, (params, f32(5, 4, rng=rng))),
        "mlp_loss_grad": (mlp_loss_grad, (params[1:], f32(5, 8, rng=rng),
                                          np.eye(3, dtype=np.float32)[[0, 2, 1, 1, 0]])),
        "attention": (attention, (f32(2, 3, 4, rng=rng), f32(2, 3, 4, rng=rng), f32(2, 3, 4, rng=rng))),
        "layer_norm": (layer_norm, (f32(3, 6, rng=rng), f32(6, rng=rng), f32(6, rng=rng))),
        "softmax_logsumexp": (softmax_logsumexp, (f32(3, 5, rng=rng),)),
        "rnn": (rnn, (f32(4, 4, rng=rng) * 0.3, f32(4, rng=rng), f32(6, 4, rng=rng))),
        "reverse_scan": (reverse_scan, (f32(5, 3, rng=rng),)),
        "jacobi": (jacobi, (a + 8 * np.eye(4, dtype=np.float32), f32(4, rng=rng))),
        "newton_sqrt": (newton_sqrt, (np.abs(f32(6, rng=rng)) + 0.5,)),
        "cond_switch": (branches, (np.bool_(True), np.int32(1), f32(3, rng=rng))),
        "cond_switch_other": (branches, (np.bool_(False), np.int32(7), f32(3, rng=rng))),
        "indexing": (indexing, (f32(4, 5, rng=rng), np.int32(2), np.array([0, 3, -1], np.int32))),
        "updates": (updates, (f32(4, 5, rng=rng), np.int32(1), np.array([0, 2, 2], np.int32))),
        "linalg": (linalg, (a, f32(4, 2, rng=rng))),
        "custom_rules": (custom_rules, (f32(3, 4, rng=rng),)),
        "sorting": (sorting, (f32(4, 5, rng=rng),)),
        "shapes": (shapes, (f32(3, 4, rng=rng),)),
        "conv": (conv, (f32(1, 5, 5, 2, rng=rng), f32(3, 3, 2, 3, rng=rng))),
        "nn_activations": (nn_activations, (f32(3, 4, rng=rng),)),
        "nn_normalize": (nn_normalize, (f32(3, 6, rng=rng), np.array([0, 5, 2], np.int32))),
        "at_updates": (at_updates, (f32(5, 3, rng=rng), np.array([1, 3, 1, -1], np.int32),
                                    np.array([[0], [4]], np.int32))),
        "fori_pytree": (fori_pytree, (f32(3, rng=rng), f32(3, 3, rng=rng))),
        "scan_pytree": (scan_pytree, ({"w": f32(3, 3, rng=rng) * 0.5, "b": f32(3, rng=rng)},
                                      {"a": f32(5, 3, rng=rng), "b": f32(5, 2, rng=rng)})),
        "cond_switch_operands": (cond_switch_operands, (np.bool_(False), np.int32(1), f32(3, rng=rng),
                                                        f32(3, rng=rng), np.int32(4))),
        "cond_switch_operands_other": (cond_switch_operands, (np.bool_(True), np.int32(2), f32(3, rng=rng),
                                                              f32(3, rng=rng), np.int32(-3))),
        "linalg_solve_inv": (linalg_solve_inv, (a, f32(4, 2, rng=rng))),
        "linalg_slogdet_eigh": (linalg_slogdet_eigh, (a,)),
        "random_normal_uniform": (random_normal_uniform, (np.int32(3), np.float32(2.0))),
        "random_categorical_permutation": (random_categorical_permutation,
                                           (np.int32(5), f32(4, 6, rng=rng), f32(5, 2, rng=rng))),
    }


#: programs also run in float64 (x64 enabled for the trace by the 64-bit specs)
FLOAT64 = ["mlp", "mlp_loss_grad", "attention", "layer_norm", "rnn", "newton_sqrt", "linalg", "custom_rules",
           "updates", "nn_normalize", "at_updates", "scan_pytree", "cond_switch_operands", "linalg_slogdet_eigh",
           "random_normal_uniform", "random_categorical_permutation"]

#: per program, the primitives it may compute through the fallback (none today: jax's
#: threefry key primitives and bitcasts are graph computations, see interop/jax/rules/random.py)
FALLBACKS: dict[str, set[str]] = {}


# --- programs written as users write them (tests/interop/test_jax_import_programs.py) ----
def grouped_convs(x, w_in, w_depth, w_out):
    # a strided SAME conv, a dilated depthwise conv (feature groups), an explicitly padded one
    dn = ("NCHW", "OIHW", "NCHW")
    y = jax.nn.gelu(lax.conv_general_dilated(x, w_in, (2, 2), "SAME", dimension_numbers=dn))
    y = jax.nn.silu(lax.conv_general_dilated(y, w_depth, (1, 1), "VALID", rhs_dilation=(2, 2),
                                             feature_group_count=w_in.shape[0], dimension_numbers=dn))
    y = lax.conv_general_dilated(y, w_out, (1, 1), ((1, 0), (0, 1)), dimension_numbers=dn)
    return y.mean(axis=(2, 3))


def pooling(x):
    # max and average pools, a dilated min window, and the pools' derivatives
    # (select_and_scatter_add for the max pool's gradient, select_and_gather_add for its jvp)
    def maxpool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")

    def avgpool(x):
        return lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1), "VALID", base_dilation=(1, 2, 1, 1)) / 4

    dilated = lax.reduce_window(x, jnp.inf, lax.min, (1, 2, 2, 1), (1, 1, 2, 1), ((0, 0), (1, 2), (0, 1), (0, 0)),
                                window_dilation=(1, 2, 1, 1))
    grad = jax.grad(lambda x: jnp.sum(maxpool(x) ** 2) + jnp.sum(jnp.sin(avgpool(x))))(x)
    return maxpool(x), avgpool(x), dilated, grad, jax.jvp(maxpool, (x,), (x * 2 + 1,))[1]


def causal_padded_attention(q, k, v, lengths):
    # multi-head attention: a causal mask and a key-padding mask from per-row lengths
    t = q.shape[1]
    scores = jnp.einsum("bthd,bshd->bhts", q, k) / np.sqrt(q.shape[-1]).astype(q.dtype)
    keep = jnp.tril(jnp.ones((t, t), bool))[None, None] & (jnp.arange(t) < lengths[:, None])[:, None, None, :]
    scores = jnp.where(keep, scores, jnp.finfo(scores.dtype).min)
    return jnp.einsum("bhts,bshd->bthd", jax.nn.softmax(scores, axis=-1), v)


def rotary_embedding(x, positions):
    # rotary position embedding: pairs of features rotated by position-dependent angles
    half = jnp.arange(0, x.shape[-1], 2, dtype=x.dtype) / x.shape[-1]
    angles = positions[:, None].astype(x.dtype) / (10000.0 ** half)[None]
    even, odd = x[..., ::2], x[..., 1::2]
    rotated = jnp.stack([even * jnp.cos(angles) - odd * jnp.sin(angles),
                         even * jnp.sin(angles) + odd * jnp.cos(angles)], axis=-1)
    return rotated.reshape(x.shape), jnp.tile(angles, (2, 1))


def adam_update(params, grads, mu, nu, count):
    # an optax-style Adam step over a pytree of parameters, with the global gradient norm
    b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8
    tm = jax.tree_util.tree_map
    mu = tm(lambda m, g: b1 * m + (1 - b1) * g, mu, grads)
    nu = tm(lambda v, g: b2 * v + (1 - b2) * jnp.square(g), nu, grads)
    step = tm(lambda m, v: lr * (m / (1 - b1 ** count)) / (jnp.sqrt(v / (1 - b2 ** count)) + eps), mu, nu)
    norm = jnp.sqrt(sum(jnp.vdot(g, g) for g in jax.tree_util.tree_leaves(grads)))
    return tm(jnp.subtract, params, step), mu, nu, norm


def bit_counts(i, u):
    # jax counts the bits of the two's complement (population_count, clz)
    return (lax.population_count(i), lax.clz(i), lax.clz(u), lax.population_count(u), lax.shift_right_logical(i, 3),
            lax.shift_right_arithmetic(i, 2), jnp.bitwise_count(i), lax.clz(i.astype(jnp.int8)), ~i & 0xF0)


def reduced_precision(x, h, b):
    # XLA's reduce_precision on the bits: mantissa rounded to nearest even, exponent
    # overflow to inf and underflow to zero, NaNs kept
    return ([lax.reduce_precision(x, e, m) for e, m in [(5, 10), (8, 7), (4, 3), (8, 0), (2, 1)]],
            lax.reduce_precision(h, 4, 3), lax.reduce_precision(b, 5, 2))


def spectra(x):
    c = jnp.fft.fft(x)
    grid = x.reshape(4, 4)
    return (c, jnp.fft.ifft(c).real, jnp.fft.rfft(x), jnp.fft.irfft(jnp.fft.rfft(x), n=x.shape[-1]), jnp.fft.fft2(grid),
            jnp.fft.irfftn(jnp.fft.rfftn(grid), grid.shape), jnp.fft.fft(x, n=12), jnp.fft.hfft(x[:5]))


def cumulative_ops(x):
    return (jnp.cumsum(x, axis=0), lax.cummax(x, axis=1), lax.cummin(x, axis=0, reverse=True),
            jnp.cumprod(x * 0.5, axis=1), jnp.diff(x, axis=1), jnp.cumsum(x.astype(jnp.int32), axis=1),
            jax.grad(lambda x: jnp.cumsum(x, axis=1).sum() + lax.cummax(x, axis=0).sum())(x))


def value_and_grad_through_loops(x):
    # reverse mode through fori_loop, scan and cond (the transposed loops carry empty arrays)
    def loss(x):
        y = lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * 1.5, x)
        z, _ = lax.scan(lambda c, xi: (c * xi + 1.0, None), 1.0, x)
        w = lax.cond(x[0] > 0, lambda v: v ** 2, lambda v: v * 3, x).sum()
        return y.sum() + z + w + jnp.max(x) + jnp.linalg.norm(x)
    return jax.value_and_grad(loss)(x)


def nearest_neighbours(queries, points):
    d = jnp.sum(queries ** 2, 1)[:, None] - 2 * queries @ points.T + jnp.sum(points ** 2, 1)[None]
    neg, idx = lax.top_k(-d, 3)
    return idx, -neg, lax.approx_min_k(d, 2), lax.approx_max_k(-d, 2), jnp.take(points, idx, axis=0).mean(1)


def vmapped_collectives(x):
    # collectives of a vmapped axis name become reductions over that axis
    center = jax.vmap(lambda v: v - lax.pmean(v, "batch") + lax.axis_index("batch"), axis_name="batch")
    spread = jax.vmap(lambda v: lax.pmax(v, "batch") - lax.pmin(v, "batch") + lax.psum(v, "batch"), axis_name="batch")
    return center(x), spread(x)


def custom_reductions(x, i):
    # lax.reduce with a function of its own (the max and where it is, ties to the
    # first) and the bitwise reductions of integers
    def max_and_index(a, b):
        keep = a[0] >= b[0]
        return jnp.where(keep, a[0], b[0]), jnp.where(keep, a[1], b[1])
    where = jnp.broadcast_to(jnp.arange(x.shape[1], dtype=jnp.int32), x.shape)
    return (lax.reduce((x, where), (-jnp.inf, 0), max_and_index, (1,)), lax.reduce(x, 1.0, lax.mul, (0,)),
            jnp.bitwise_and.reduce(i, axis=0), jnp.bitwise_or.reduce(i, axis=1), jnp.bitwise_xor.reduce(i, axis=0),
            jnp.bitwise_and.reduce(i.astype(jnp.uint16), axis=1), jnp.logical_xor.reduce(i > 0, axis=1))


def lstsq_pinv(a, b):
    x, residuals, rank, sv = jnp.linalg.lstsq(a, b)
    q, r = jnp.linalg.qr(a)
    return x, jnp.linalg.pinv(a), sv, rank, jnp.abs(r), jnp.linalg.norm(a, ord=2), jnp.linalg.cond(a), q @ r


def special_functions(x, y):
    pos, p = jnp.abs(x) + 0.1, jax.nn.sigmoid(y)
    special = jax.scipy.special
    return (special.logsumexp(x, axis=1, keepdims=True), special.gammaln(pos), special.digamma(pos),
            special.xlogy(pos, pos), special.xlog1py(pos, x * 0.1), special.betaln(pos, pos + 1), special.ndtri(p),
            special.log_ndtr(x), special.logit(p), special.entr(pos), special.erfinv(p * 0.9))


def log_densities(x, mu, sigma):
    stats = jax.scipy.stats
    s = jnp.abs(sigma) + 0.5
    return (stats.norm.logpdf(x, mu, s), stats.norm.cdf(x), stats.norm.ppf(jax.nn.sigmoid(x)), stats.t.logpdf(x, 3.0),
            stats.laplace.logpdf(x), stats.gamma.logpdf(s, 2.0), stats.beta.logpdf(jax.nn.sigmoid(x), 2.0, 3.0),
            stats.poisson.logpmf(jnp.arange(5.0), 2.0), stats.multivariate_normal.logpdf(x[:3], mu[:3], jnp.diag(s[:3])))


def at_modes(x, rows, cols):
    # .at[] with negative and fancy indices, the out-of-bounds modes and apply
    return (x.at[rows].set(1.0), x.at[cols].add(2.0), x.at[rows, cols].mul(3.0), x.at[:, cols].min(-0.1),
            x.at[rows].max(0.2), x.at[cols].get(), x.at[jnp.array([10, -1])].get(mode="fill", fill_value=0.0),
            x.at[jnp.array([0, 9])].set(5.0, mode="drop"), x.at[jnp.array([0, 9])].add(5.0, mode="clip"),
            x.at[1:3, ::2].set(-1.0), x.at[..., 0].divide(2.0), x.at[rows].power(2.0),
            # apply: the function once per update, so twice at a duplicated index
            x.at[rows].apply(jnp.sin), x.at[rows, cols].apply(lambda v: v * 2.0 + 1.0))


def segments(data, ids):
    return (jax.ops.segment_sum(data, ids, num_segments=4), jax.ops.segment_max(data, ids, num_segments=4),
            jax.ops.segment_min(data, ids, num_segments=4), jax.ops.segment_prod(data, ids, num_segments=4),
            jnp.bincount(ids, length=5))


def loops_with_bounds(n, x):
    # fori_loop with a traced bound (a while loop) and static ones (a scan), a bisection while_loop
    a = lax.fori_loop(0, n, lambda i, c: c * 1.1 + i, x)
    b = lax.fori_loop(2, 7, lambda i, c: c + i * x, jnp.zeros_like(x))

    def bisect(state):
        lo, hi, it = state
        mid = 0.5 * (lo + hi)
        above = mid ** 3 > jnp.abs(x)
        return jnp.where(above, lo, mid), jnp.where(above, mid, hi), it + 1
    root = lax.while_loop(lambda s: jnp.any(s[1] - s[0] > 1e-5) & (s[2] < 60), bisect,
                          (jnp.zeros_like(x), jnp.full_like(x, 4.0), 0))
    return a, b, root


@jax.custom_jvp
def log1pexp(x):
    return jnp.logaddexp(x, 0.0)


log1pexp.defjvp(lambda primals, tangents: (log1pexp(primals[0]), tangents[0] * jax.nn.sigmoid(primals[0])))


def _clip_fwd(x, bound):
    return x, None


def _clip_bwd(bound, _, g):
    return (jnp.clip(g, -bound, bound),)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, bound):
    return x


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def custom_derivative_grads(x):
    loss = lambda x: jnp.sum(log1pexp(x) * clip_gradient(x * 3.0, 0.5))
    return log1pexp(x), jax.grad(loss)(x), jax.jacfwd(log1pexp)(x), jax.hessian(lambda x: jnp.sum(log1pexp(x) ** 2))(x)


def dropout_and_noise(seed, x):
    key = jax.random.PRNGKey(seed)
    keep = jax.random.bernoulli(key, 0.8, x.shape)
    k1, k2 = jax.random.split(jax.random.fold_in(key, 3))
    return (jnp.where(keep, x / 0.8, 0), jax.random.normal(k1, x.shape, dtype=x.dtype),
            jax.random.permutation(k2, x, axis=1, independent=True))


def weak_promotions(x, i, s, b):
    # Python scalars (an argument, constants) are weak: they take the other operand's dtype
    return (x + 1, i + 1.5, i * 2, x + i, i / 2, i // 2.0, b + 1, b * x, i ** 2, s * i, s + x,
            jnp.arange(3) + s, jnp.mean(i), jnp.sum(b), jnp.uint8(3) + i, x.astype(jnp.float16) * 3.0)


def ode_rk4(y0, ts):
    # a damped pendulum integrated by RK4 in a scan over the time steps
    f = lambda y: jnp.stack([y[1], -jnp.sin(y[0]) - 0.1 * y[1]])

    def step(y, dt):
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(y + dt / 2 * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return y, y
    return lax.scan(step, y0, jnp.diff(ts))


def pads_and_rolls(x):
    return (jnp.pad(x, 2, mode="reflect"), jnp.pad(x, ((1, 1), (2, 2)), mode="edge"), jnp.pad(x, 1, mode="symmetric"),
            jnp.pad(x, ((0, 0), (2, 1)), mode="wrap"), jnp.pad(x, ((2, 0), (0, 2)), mode="linear_ramp", end_values=1.0),
            jnp.roll(x, (1, -2), axis=(0, 1)), jnp.tril(x, -1), jnp.triu(x, 1), jnp.rot90(x), jnp.tile(x, (2, 1)),
            jnp.repeat(x, 2, axis=0), jnp.vander(x[0], 3))


def complex_arithmetic(z, w):
    return (z * w, z / w, jnp.abs(z), jnp.angle(z), jnp.exp(z), jnp.log(z), jnp.sqrt(z), z @ w.T, z ** 2,
            jnp.tanh(z), lax.complex(z.real, w.imag), jnp.linalg.norm(z), jnp.expm1(z), jnp.log1p(z))


def programs(rng):
    """name -> (function, args) in float32: programs written as users write them."""
    r = lambda *shape: f32(*shape, rng=rng)
    shapes = {"w": r(3, 4), "b": r(4), "layers": [r(2), r(2, 2)]}
    like = lambda scale=0.1: jax.tree_util.tree_map(lambda a: (rng.normal(size=a.shape) * scale).astype(np.float32),
                                                    shapes)
    return {
        "grouped_convs": (grouped_convs, (r(2, 3, 12, 12), r(4, 3, 3, 3), r(4, 1, 3, 3), r(5, 4, 2, 2))),
        "pooling": (pooling, (np.round(r(2, 6, 5, 2) * 2),)),
        "causal_padded_attention": (causal_padded_attention, (r(2, 5, 2, 4), r(2, 5, 2, 4), r(2, 5, 2, 4),
                                                              np.array([3, 5], np.int32))),
        "rotary_embedding": (rotary_embedding, (r(6, 8), np.arange(6, dtype=np.int32))),
        "adam_update": (adam_update, (shapes, like(), like(), jax.tree_util.tree_map(np.abs, like()), np.float32(3))),
        "bit_counts": (bit_counts, (np.array([-7, 0, 5, 1 << 20, 255, -1, -(1 << 31)], np.int32),
                                    np.array([1, 2, 3, 1 << 31, 0, 77, 0xFFFFFFFF], np.uint32))),
        "reduced_precision": (reduced_precision, (
            np.array([0, -0.0, 1e-40, -1e-39, 1e-8, 65504, 65520, 1e5, -1e5, 3.14159, np.inf, -np.inf, np.nan,
                      1.00048828125, 1.0009765625, 2 ** -14, 2 ** -15, 3.0], np.float32),
            np.array([0.1, 250, -3e4, np.nan, 6e-5, 1.0625], np.float16),
            np.array([0.1, 250, -3e4, np.nan, 1e-30, 1.0625], jnp.bfloat16))),
        "spectra": (spectra, (r(16),)),
        "cumulative_ops": (cumulative_ops, (r(3, 5) * 3,)),
        "value_and_grad_through_loops": (value_and_grad_through_loops, (r(4),)),
        "nearest_neighbours": (nearest_neighbours, (r(3, 4), r(8, 4))),
        "vmapped_collectives": (vmapped_collectives, (r(4, 3),)),
        "custom_reductions": (custom_reductions, (np.round(r(3, 7) * 2), rng.integers(-99, 99, (3, 5)).astype(np.int32))),
        "lstsq_pinv": (lstsq_pinv, (r(6, 3), r(6, 2))),
        "special_functions": (special_functions, (r(3, 4), r(3, 4))),
        "log_densities": (log_densities, (r(6), r(6), r(6))),
        "at_modes": (at_modes, (r(5, 4), np.array([0, 2, 2], np.int32), np.array([-1, -3, 1], np.int32))),
        "segments": (segments, (r(6, 2), np.array([0, 0, 1, 3, 3, 3], np.int32))),
        "loops_with_bounds": (loops_with_bounds, (np.int32(4), r(3))),
        "custom_derivative_grads": (custom_derivative_grads, (r(5) * 3,)),
        "dropout_and_noise": (dropout_and_noise, (np.int32(4), r(3, 5))),
        "weak_promotions": (weak_promotions, (r(3), np.array([1, 2, 3], np.int32), 2.5, np.array([True, False, True]))),
        "ode_rk4": (ode_rk4, (np.array([1.0, 0.0], np.float32), np.linspace(0, 2, 11).astype(np.float32))),
        "pads_and_rolls": (pads_and_rolls, (r(3, 4),)),
        "complex_arithmetic": (complex_arithmetic, ((r(3, 3) + 1j * r(3, 3)).astype(np.complex64),
                                                    (r(3, 3) + 1j * r(3, 3) + 2).astype(np.complex64))),
    }


#: of ``programs``, those also run in float64
PROGRAMS_FLOAT64 = ["pooling", "reduced_precision", "spectra", "custom_derivative_grads", "weak_promotions"]
