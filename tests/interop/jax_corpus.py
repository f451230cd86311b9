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
    }


#: programs also run in float64 (x64 enabled for the trace by the 64-bit specs)
FLOAT64 = ["mlp", "mlp_loss_grad", "attention", "layer_norm", "rnn", "newton_sqrt", "linalg", "custom_rules",
           "updates"]
