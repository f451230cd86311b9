"""Small jax programs the importer is tested on, and the comparison with jax.jit."""

from __future__ import annotations

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
