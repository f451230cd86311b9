"""Pass pipelines: O2 time on 10k-op modules and op-count reduction on
modules exported by jax, in one run.

    python bench/passes.py                 # both tables
    python bench/passes.py --repeat 7 --layers 140

Table 1 times ``hlograph.passes.run(module, "O2")`` (verifier after each pass
on, as in ``hg.compile``) on two modules of about 10k ops: a transformer-like
stack exported by ``jax.jit(f).lower()`` and a synthetic chain full of
rewrite opportunities; each pipeline item is also timed on its own (run in
sequence on one copy). The goal is under 1 s. Table 2 counts the ops of
modules exported by jax before and after O1 and O2, and of StableHLO's test
programs in ../shared/corpus when that folder is present. Every optimized
module is checked to verify. The script asserts nothing about time; run it on
an otherwise idle machine (medians of interleaved repetitions are shown).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from hlograph.xla.mlir import ir, make_context  # noqa: E402
from hlograph.passes import PIPELINES, run  # noqa: E402
from hlograph.passes.pipeline import split_pipeline  # noqa: E402
from hlograph.testing.validation import count_ops  # noqa: E402

f32 = jnp.float32


def spec(shape, dtype=f32):
    return jax.ShapeDtypeStruct(shape, dtype)


# ------------------------------------------------------------- 10k-op modules


def _block(x, p):
    h = jax.nn.gelu(x @ p["w1"] + p["b1"]) @ p["w2"]
    m = h.mean(-1, keepdims=True)
    v = ((h - m) ** 2).mean(-1, keepdims=True)
    h = (h - m) * jax.lax.rsqrt(v + 1e-5)
    s = jax.nn.softmax(jnp.einsum("qd,kd->qk", h, x) / 4.0, axis=-1)
    return x + s @ h


def transformer_module(layers: int) -> str:
    def model(x, params):
        for p in params:
            x = _block(x, p)
        return x

    params = [dict(w1=spec((16, 32)), b1=spec((32,)), w2=spec((32, 16))) for _ in range(layers)]
    return jax.jit(model).lower(spec((8, 16)), params).as_text()


def synthetic_module(n: int) -> str:
    """A chain mixing identities (x * 1), foldable constants, double negations,
    transposes into dots, broadcasts and transcendental ops."""
    t = "tensor<4x8xf32>"
    lines = [f"func.func public @main(%a: {t}, %w: tensor<8x8xf32>) -> {t} {{",
             f"  %one = stablehlo.constant dense<1.0> : {t}",
             f"  %two = stablehlo.constant dense<2.0> : {t}",
             f"  %v0 = stablehlo.abs %a : {t}"]
    count, i = 4, 1
    while count < n:
        p = f"%v{i - 1}"
        k = i % 7
        if k == 0:
            lines.append(f"  %v{i} = stablehlo.multiply {p}, %one : {t}")
        elif k == 1:
            lines.append(f"  %v{i} = stablehlo.add {p}, %a : {t}")
        elif k == 2:
            lines.append(f"  %n{i} = stablehlo.negate {p} : {t}")
            lines.append(f"  %v{i} = stablehlo.negate %n{i} : {t}")
        elif k == 3:
            lines.append(f"  %v{i} = stablehlo.tanh {p} : {t}")
        elif k == 4:
            lines.append(f"  %t{i} = stablehlo.transpose %w, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>")
            lines.append(f"  %v{i} = stablehlo.dot_general {p}, %t{i}, contracting_dims = [1] x [0] : "
                         f"({t}, tensor<8x8xf32>) -> {t}")
        elif k == 5:
            lines.append(f"  %s{i} = stablehlo.slice {p} [0:1, 0:8] : ({t}) -> tensor<1x8xf32>")
            lines.append(f"  %r{i} = stablehlo.reshape %s{i} : (tensor<1x8xf32>) -> tensor<8xf32>")
            lines.append(f"  %b{i} = stablehlo.broadcast_in_dim %r{i}, dims = [1] : (tensor<8xf32>) -> {t}")
            lines.append(f"  %v{i} = stablehlo.add {p}, %b{i} : {t}")
        else:
            lines.append(f"  %k{i} = stablehlo.add %two, %one : {t}")
            lines.append(f"  %v{i} = stablehlo.multiply {p}, %k{i} : {t}")
        count = len(lines) - 1
        i += 1
    lines.append(f"  return %v{i - 1} : {t}\n}}")
    return "\n".join(lines)


def time_o2(text: str, repeat: int) -> dict:
    items = split_pipeline(PIPELINES["O2"])
    totals, per_item = [], {item: [] for item in items}
    with make_context():
        ops_before = count_ops(ir.Module.parse(text))
        for _ in range(repeat):
            m = ir.Module.parse(text)
            t0 = time.perf_counter()
            run(m, "O2")
            totals.append(time.perf_counter() - t0)
            assert m.operation.verify()
            ops_after = count_ops(m)
            m = ir.Module.parse(text)
            for item in items:
                t0 = time.perf_counter()
                run(m, item)
                per_item[item].append(time.perf_counter() - t0)
    return {"ops_before": ops_before, "ops_after": ops_after, "median": statistics.median(totals),
            "best": min(totals), "items": {k: statistics.median(v) for k, v in per_item.items()}}


# ------------------------------------------------------------- jax corpus


def _mlp(x, w1, b1, w2, b2):
    return jax.nn.log_softmax(jax.nn.relu(x @ w1 + b1) @ w2 + b2)


def _attention(q, k, v):
    s = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(q.shape[-1])
    s = jnp.where(jnp.tril(jnp.ones((q.shape[1], k.shape[1]), bool)), s, -1e9)
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v)


def _layer_norm(x, g, b):
    m = x.mean(-1, keepdims=True)
    return (x - m) * jax.lax.rsqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5) * g + b


def _xent(logits, labels):
    return -jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1).mean()


def _conv_net(x, w1, w2):
    dn = ("NHWC", "HWIO", "NHWC")
    y = jax.nn.relu(jax.lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn))
    y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return jax.nn.gelu(jax.lax.conv_general_dilated(y, w2, (1, 1), "VALID", dimension_numbers=dn)).mean((1, 2))


def _fori(x):
    return jax.lax.fori_loop(0, 7, lambda i, c: c * 0.5 + jnp.sin(c) + i, x)


def _while_cond(x):
    def body(c):
        i, v = c
        return i + 1, jax.lax.cond(i % 2 == 0, lambda t: t * 2.0, lambda t: t - 1.0, v)

    return jax.lax.while_loop(lambda c: c[0] < 5, body, (0, x))[1]


def _integers(a, b):
    return (a * 3 + b) // 7, a % 5, jnp.where(a > b, a, b) << 1, (a ^ b) & 0xFF, jnp.clip(a, -3, 3)


def _random(key_data):
    key = jax.random.wrap_key_data(key_data)
    return jax.random.uniform(key, (16,)), jax.random.normal(key, (8,))


def _indexing(x, idx):
    return x[idx] * 2, x.at[idx].add(1.0), jnp.argsort(x), jnp.cumsum(x)


def _adam_step(p, g, m, v):
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    return p - 1e-3 * (m / (1 - 0.9)) / (jnp.sqrt(v / (1 - 0.999)) + 1e-8), m, v


JAX_CORPUS = {
    "mlp": (_mlp, [spec((8, 16)), spec((16, 32)), spec((32,)), spec((32, 10)), spec((10,))]),
    "attention": (_attention, [spec((2, 8, 16))] * 3),
    "layer_norm": (_layer_norm, [spec((4, 32)), spec((32,)), spec((32,))]),
    "softmax_xent": (_xent, [spec((6, 10)), spec((6,), jnp.int32)]),
    "conv_net": (_conv_net, [spec((2, 8, 8, 3)), spec((3, 3, 3, 4)), spec((3, 3, 4, 5))]),
    "fori_loop": (_fori, [spec((5,))]),
    "while_cond": (_while_cond, [spec((5,))]),
    "integers": (_integers, [spec((12,), jnp.int32)] * 2),
    "random": (_random, [spec((2,), jnp.uint32)]),
    "indexing": (_indexing, [spec((10,)), spec((4,), jnp.int32)]),
    "adam_step": (_adam_step, [spec((64,))] * 4),
}

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "corpus" / "stablehlo-sample"


def op_counts(text: str) -> tuple[int, ...]:
    """Ops before, after O1, after O2; then the same without constants."""
    modules = []
    with make_context():
        modules.append(ir.Module.parse(text))
        for pipeline in ("O1", "O2"):
            m = ir.Module.parse(text)
            run(m, pipeline)
            assert m.operation.verify()
            modules.append(m)
        return tuple(count_ops(m) for m in modules) + tuple(count_ops(m, include_constants=False) for m in modules)


def _row(name: str, c) -> str:
    return (f"| {name:28s} | {c[0]:7d} | {c[1]:7d} | {c[2]:7d} | {(c[2] - c[0]) / c[0]:+7.0%} | "
            f"{c[3]:7d} | {c[5]:7d} | {(c[5] - c[3]) / c[3]:+7.0%} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--layers", type=int, default=140, help="transformer blocks (~73 ops each)")
    parser.add_argument("--synthetic-ops", type=int, default=10000)
    args = parser.parse_args()

    print(f"## O2 on ~10k-op modules (median of {args.repeat}, verifier on; goal < 1 s)\n")
    cases = {
        f"transformer ({args.layers} blocks)": transformer_module(args.layers),
        "synthetic chain": synthetic_module(args.synthetic_ops),
    }
    for name, text in cases.items():
        r = time_o2(text, args.repeat)
        print(f"{name}: {r['ops_before']} ops -> {r['ops_after']} ops, "
              f"O2 {r['median'] * 1000:.0f} ms (best {r['best'] * 1000:.0f} ms)")
        print(f"| {'pipeline item':32s} | {'ms':>8s} |")
        print(f"|{'-' * 34}|{'-' * 10}|")
        for item, t in r["items"].items():
            print(f"| {item:32s} | {t * 1000:8.1f} |")
        print()

    print("## Op count before and after O1 / O2 (all ops, then without constants)\n")
    print(f"| {'module':28s} | {'before':>7s} | {'O1':>7s} | {'O2':>7s} | {'O2':>7s} | "
          f"{'before':>7s} | {'O2':>7s} | {'O2':>7s} |")
    print(f"|{'-' * 30}|" + "|".join("-" * 9 for _ in range(7)) + "|")
    totals = [0] * 6
    for name, (fn, specs) in JAX_CORPUS.items():
        counts = op_counts(jax.jit(fn).lower(*specs).as_text())
        totals = [a + b for a, b in zip(totals, counts)]
        print(_row(name, counts))
    print(_row("jax corpus total", totals))
    files = sorted(CORPUS.glob("*.mlir")) if CORPUS.is_dir() else []
    if files:
        ctotals = [0] * 6
        for path in files:
            ctotals = [a + b for a, b in zip(ctotals, op_counts(path.read_text()))]
        print(_row(f"stablehlo testdata ({len(files)})", ctotals))

if __name__ == "__main__":
    main()
