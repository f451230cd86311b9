"""Lowering time against graph size: hlograph ``compile(g, pipeline="O0").lower()``
against ``jax.jit(f).lower()`` of the same computation, in one run.

    python bench/lowering_scaling.py                  # 1k, 5k, 10k nodes
    python bench/lowering_scaling.py --sizes 2000,20000 --profile

The graph is a chain of elementwise ops on float32[8] cycling through exp, add,
multiply and tanh (the binary ops take a second input). jax's time includes
tracing the Python function to a jaxpr, which is how jax builds its graph;
hlograph's graph is built beforehand, and that time is shown apart. Every
repetition uses a fresh Function and a fresh Python function, so neither side
reuses a cached lowering; repetitions are interleaved across sizes and the
table shows medians. ``--profile`` prints where hlograph's lowering spends its
time at the largest size (cProfile, by own time).

``--compile`` times the whole way instead: definition -> first result (build
the graph, lower, compile with XLA, first call; jax: trace, lower, compile,
first call) and the steady per-call median, for hlograph's O2 pipeline with
the compile options it picks per module (``O2``; ``xla-default``: with XLA's
own fusion emitters whatever the size, ``HLOGRAPH_XLA_FUSION_EMITTERS=on``),
without and with ``hlograph-bound-fusion`` (optimization barriers every
``--every`` elementwise ops; ``none`` = O2 without the pass), and for jax.jit.
The disk cache is off and the in-memory one emptied, so every repetition
compiles. ``--graph`` picks the graph: ``chain`` (above), ``sincos`` (sin, cos,
add on float32[8]) or ``mixed`` (blocks of ``tanh(h @ w)`` and eight
elementwise ops on float32[64, 64], four weights taken in turn; n counts ops).

    python bench/lowering_scaling.py --compile --sizes 1000,5000 --every none,250,500,1000
    python bench/lowering_scaling.py --compile --graph sincos --every O2,xla-default
    python bench/lowering_scaling.py --compile --graph mixed --sizes 5000 --every O2,xla-default
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
if "--compile" in sys.argv:
    os.environ["HLOGRAPH_CACHE_DIR"] = "off"  # every repetition compiles

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import hlograph as hg  # noqa: E402
from hlograph.runtime import executables  # noqa: E402

SHAPE = (8,)
MIXED_SHAPE = (64, 64)
MIXED_WEIGHTS = 4


def build_graph(n: int) -> hg.Graph:
    x = hg.tensor("x", SHAPE, "float32")
    y = hg.tensor("y", SHAPE, "float32")
    v = x
    for i in range(n):
        k = i % 4
        v = hg.exp(v) if k == 0 else v + y if k == 1 else v * y if k == 2 else hg.tanh(v)
    return hg.Graph([x, y], v)


def make_jax_fn(n: int):
    def chain(x, y):
        v = x
        for i in range(n):
            k = i % 4
            v = jnp.exp(v) if k == 0 else v + y if k == 1 else v * y if k == 2 else jnp.tanh(v)
        return v
    return chain


def _sincos(v, y, n: int, sin, cos):
    for i in range(n):
        k = i % 3
        v = sin(v) if k == 0 else cos(v) if k == 1 else v + y
    return v


def build_sincos(n: int) -> hg.Graph:
    x = hg.tensor("x", SHAPE, "float32")
    y = hg.tensor("y", SHAPE, "float32")
    return hg.Graph([x, y], _sincos(x, y, n, hg.sin, hg.cos))


def make_jax_sincos(n: int):
    return lambda x, y: _sincos(x, y, n, jnp.sin, jnp.cos)


def _mixed(h, y, ws, n: int, tanh, sin, cos):
    """Blocks of 10 ops: ``tanh(h @ w)`` (w taken in turn), then sin, *y, cos, +y twice."""
    for i in range(n // 10):
        h = tanh(h @ ws[i % len(ws)])
        for j in range(8):
            k = j % 4
            h = sin(h) if k == 0 else h * y if k == 1 else cos(h) if k == 2 else h + y
    return h


def build_mixed(n: int) -> hg.Graph:
    x = hg.tensor("x", MIXED_SHAPE, "float32")
    y = hg.tensor("y", MIXED_SHAPE, "float32")
    ws = [hg.tensor(f"w{i}", MIXED_SHAPE, "float32") for i in range(MIXED_WEIGHTS)]
    return hg.Graph([x, y, *ws], _mixed(x, y, ws, n, hg.tanh, hg.sin, hg.cos))


def make_jax_mixed(n: int):
    return lambda x, y, *ws: _mixed(x, y, ws, n, jnp.tanh, jnp.sin, jnp.cos)


#: --graph: (hlograph graph of n ops, jax function of n ops, shapes of the inputs)
GRAPHS = {
    "chain": (build_graph, make_jax_fn, [SHAPE] * 2),
    "sincos": (build_sincos, make_jax_sincos, [SHAPE] * 2),
    "mixed": (build_mixed, make_jax_mixed, [MIXED_SHAPE] * (2 + MIXED_WEIGHTS)),
}


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _check(n: int) -> None:
    """Both sides compute the same chain (compiled and run once, at a small size)."""
    rng = np.random.default_rng(0)
    x, y = (rng.uniform(-1, 1, SHAPE).astype(np.float32) for _ in range(2))
    g = build_graph(n)
    ours = hg.compile(g, pipeline="O0")(x, y)
    theirs = np.asarray(jax.jit(make_jax_fn(n))(x, y))
    ref = hg.evaluate(g, x, y)
    if not (np.allclose(ours, ref, rtol=1e-4) and np.allclose(theirs, ref, rtol=1e-4)):
        raise SystemExit(f"the chains differ: hlograph {ours}, jax {theirs}, reference {ref}")


def _profile(g: hg.Graph, top: int) -> str:
    fn = hg.compile(g, pipeline="O0")
    prof = cProfile.Profile()
    prof.runcall(fn.lower)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def _pipeline(every: str) -> str:
    """O2 without hlograph-bound-fusion (``none``) or with it cutting every ``every`` ops
    (in modules of any size)."""
    from hlograph.passes.pipeline import PIPELINES, split_pipeline

    items = [i for i in split_pipeline(PIPELINES["O2"]) if not i.startswith("hlograph-bound-fusion")]
    if every != "none":
        items.append(f"hlograph-bound-fusion{{every={every} min-ops=0}}")
    return ",".join(items)


def _steady(fn, args, budget: float = 0.5) -> float:
    times = []
    start = time.perf_counter()
    while len(times) < 5 or (time.perf_counter() - start < budget and len(times) < 500):
        t0 = time.perf_counter()
        np.asarray(fn(*args))
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def compile_table(sizes: list[int], everies: list[str], repeat: int, graph: str = "chain") -> None:
    from hlograph.xla import pjrt

    build, make_jax, shapes = GRAPHS[graph]
    rng = np.random.default_rng(0)
    # weights of the mixed graph scaled so that products stay O(1)
    args = [rng.uniform(-1, 1, s).astype(np.float32) / (8 if i >= 2 else 1) for i, s in enumerate(shapes)]
    variants = [f"hg every={e}" if e not in ("none", "O2", "xla-default") else f"hg {e}"
                for e in everies] + ["jax.jit"]
    first = {(n, v): [] for n in sizes for v in variants}
    steady = {(n, v): [] for n in sizes for v in variants}
    for r in range(repeat):
        for n in sizes:
            order = variants if r % 2 == 0 else variants[::-1]
            for v in order:
                executables.clear_cache()  # hlograph's in-memory executables: compile again
                if v == "hg xla-default":
                    os.environ[pjrt.FUSION_EMITTERS_ENV] = "on"
                t0 = time.perf_counter()
                if v == "jax.jit":
                    fn = jax.jit(make_jax(n))
                else:
                    every = v.split("=")[1] if "=" in v else v.split()[1]
                    fn = hg.compile(build(n), pipeline="O2" if every in ("O2", "xla-default") else _pipeline(every))
                out = np.asarray(fn(*args))
                first[n, v].append(time.perf_counter() - t0)
                os.environ.pop(pjrt.FUSION_EMITTERS_ENV, None)
                steady[n, v].append(_steady(fn, args))
                if not np.all(np.isfinite(out)):
                    raise SystemExit(f"{v} at n={n}: non-finite result {out}")
                print(f"  (repeat {r} n={n} {v}: first result {first[n, v][-1]:.2f}s, "
                      f"per call {steady[n, v][-1] * 1e6:.1f}us)", file=sys.stderr, flush=True)
    print(f"definition -> first result and steady per call, {graph} graph of n ops "
          f"(jax/jaxlib {jax.__version__}); median of {repeat}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'nodes':>6s} {'variant':>18s} {'first result':>13s} {'vs jax':>7s} {'per call':>10s} {'vs jax':>7s}")
    for n in sizes:
        jf = statistics.median(first[n, "jax.jit"])
        js = statistics.median(steady[n, "jax.jit"])
        for v in variants:
            f = statistics.median(first[n, v])
            c = statistics.median(steady[n, v])
            print(f"{n:6d} {v:>18s} {f:11.2f}s {f / jf:6.2f}x {c * 1e6:8.1f}us {c / js:6.2f}x")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1000,5000,10000", help="comma-separated node counts")
    p.add_argument("--repeat", type=int, default=3, help="repetitions per size (median shown)")
    p.add_argument("--profile", action="store_true", help="cProfile hlograph's lowering at the largest size")
    p.add_argument("--top", type=int, default=25, help="functions shown by --profile")
    p.add_argument("--compile", action="store_true",
                   help="time definition -> first result and steady calls instead of lowering")
    p.add_argument("--every", default="O2,xla-default",
                   help="with --compile: hlograph variants: O2 (compile options chosen per module), "
                        "xla-default (O2 with XLA's fusion emitters whatever the size), none (O2 "
                        "without barriers), or K (barriers every K ops)")
    p.add_argument("--graph", default="chain", choices=sorted(GRAPHS),
                   help="with --compile: the graph timed (see above)")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.compile:
        compile_table(sizes, args.every.split(","), args.repeat, args.graph)
        return 0

    _check(64)
    graphs = {}
    build = {n: [] for n in sizes}
    ours = {n: [] for n in sizes}
    theirs = {n: [] for n in sizes}
    spec = jax.ShapeDtypeStruct(SHAPE, jnp.float32)
    for _ in range(args.repeat):
        for n in sizes:
            t, graphs[n] = _timed(lambda: build_graph(n))
            build[n].append(t)
            fn = hg.compile(graphs[n], pipeline="O0")
            t, lowered = _timed(fn.lower)
            ours[n].append(t)
            jitted = jax.jit(make_jax_fn(n))
            t, _ = _timed(lambda: jitted.lower(spec, spec))
            theirs[n].append(t)
            del lowered

    print(f"lowering a chain of n elementwise ops on float32[8] (jax/jaxlib {jax.__version__}); "
          f"median of {args.repeat}")
    print(f"{'nodes':>6s} {'hg build':>9s} {'hg lower':>9s} {'jax lower':>10s} "
          f"{'lower/jax':>10s} {'(build+lower)/jax':>18s} {'hg us/node':>11s} {'jax us/node':>12s}")
    for n in sizes:
        b, o, j = (statistics.median(d[n]) for d in (build, ours, theirs))
        print(f"{n:6d} {b * 1e3:7.1f}ms {o * 1e3:7.1f}ms {j * 1e3:8.1f}ms {o / j:9.2f}x "
              f"{(b + o) / j:17.2f}x {o / n * 1e6:11.1f} {j / n * 1e6:12.1f}")

    if args.profile:
        largest = max(sizes)
        print(f"\nhlograph lower() of {largest} nodes, by own time (cProfile adds overhead):")
        print(_profile(graphs[largest], args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
