"""Compile time in a fresh process with a cold and with a warm executable cache.

    python bench/compile_cache.py                 # a ~300-op MLP-like graph
    python bench/compile_cache.py --layers 40 --width 128 --repeat 5

Each round makes an empty cache directory, then runs two fresh Python
processes one after the other with ``HLOGRAPH_CACHE_DIR`` pointing at it: the
first compiles with XLA and stores the executable (cold), the second loads it
(warm). Each process builds the same graph, then times ``Function.lower()``,
``Lowered.compile()`` and the first call separately, checks the result
against ``hlograph.evaluate`` and reports its cache counters. The table shows
the median over the rounds and the cold/warm ratio of each step.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")


def _graph(layers: int, width: int, batch: int):
    import hlograph as hg

    x = hg.tensor("x", (batch, width), "float32")
    ws = [hg.tensor(f"w{i}", (width, width), "float32") for i in range(layers)]
    bs = [hg.tensor(f"b{i}", (width,), "float32") for i in range(layers)]
    h = x
    for w, b in zip(ws, bs):
        z = h @ w + b
        a = hg.tanh(z) * 0.5 + hg.exp(-(z * z)) * 0.25
        h = (h + a) / hg.sqrt(hg.mean(h * h, axis=-1, keepdims=True) + 1e-5)
    out = hg.softmax(h, axis=-1)
    return hg.Graph([x, *ws, *bs], [out]), [x, *ws, *bs]


def _child(args: argparse.Namespace) -> None:
    import numpy as np

    import hlograph as hg
    from hlograph.runtime import cache

    graph, inputs = _graph(args.layers, args.width, args.batch)
    rng = np.random.default_rng(0)
    values = [(rng.normal(size=v.type.shape) / np.sqrt(v.type.shape[0])).astype(np.float32) for v in inputs]
    fn = hg.compile(graph)
    t0 = time.perf_counter()
    lowered = fn.lower()
    t1 = time.perf_counter()
    compiled = lowered.compile()
    t2 = time.perf_counter()
    (got,) = compiled(*values)
    t3 = time.perf_counter()
    (want,) = hg.evaluate(graph, *values)
    print(json.dumps({
        "nodes": len(graph.nodes),
        "lower": t1 - t0, "compile": t2 - t1, "first_call": t3 - t2,
        "ok": bool(np.allclose(got, want, rtol=1e-4, atol=1e-6)),
        "stats": cache.stats(),
    }))


def _run_child(args: argparse.Namespace, cache_dir: str) -> dict:
    env = dict(os.environ, HLOGRAPH_CACHE_DIR=cache_dir)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--layers", str(args.layers),
           "--width", str(args.width), "--batch", str(args.batch)]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=20, help="MLP layers (15 graph ops each)")
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--repeat", type=int, default=3, help="cold/warm rounds, each with a new cache dir")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        _child(args)
        return

    rounds = {"cold": [], "warm": []}
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="hlograph-bench-cache-") as d:
            cold = _run_child(args, d)
            warm = _run_child(args, d)
        if not (cold["ok"] and warm["ok"]):
            sys.exit("error: compiled results differ from hlograph.evaluate")
        if cold["stats"]["misses"] != 1 or warm["stats"]["hits"] != 1:
            sys.exit(f"error: unexpected cache counters: cold {cold['stats']}, warm {warm['stats']}")
        rounds["cold"].append(cold)
        rounds["warm"].append(warm)

    print(f"graph: {rounds['cold'][0]['nodes']} ops ({args.layers} layers, width {args.width}, "
          f"batch {args.batch}); median of {args.repeat} fresh-process rounds")
    print(f"{'step':<12}{'cold ms':>10}{'warm ms':>10}{'cold/warm':>11}")
    for step in ("lower", "compile", "first_call"):
        c = statistics.median(r[step] for r in rounds["cold"]) * 1e3
        w = statistics.median(r[step] for r in rounds["warm"]) * 1e3
        print(f"{step:<12}{c:>10.2f}{w:>10.2f}{c / w:>10.1f}x")


if __name__ == "__main__":
    main()
