"""Graph built -> first result in a fresh process: cold and warm caches, against
jax.jit with jax's persistent compilation cache, in one run.

    python bench/compile_cache.py                        # both workloads
    python bench/compile_cache.py --workloads matmul --repeat 5
    python bench/compile_cache.py --ops 2000             # a shorter elementwise chain

Workloads: ``matmul``, a ``--layers``-layer chain ``x = tanh(x @ w_i)`` on
float32[--width, --width] (one weight input per layer); ``elementwise``, an
``--ops``-op chain cycling through exp, add, multiply and tanh on float32[8]
(as bench/lowering_scaling.py).

Each round makes two empty cache directories and runs fresh Python processes
one after the other: hlograph cold (``HLOGRAPH_CACHE_DIR`` empty: lowers, runs
the passes, compiles with XLA, stores the optimized module and the executable),
hlograph warm (finds the module by the graph's key, then the executable), jax
cold and jax warm (``jax_compilation_cache_dir`` with
``jax_persistent_cache_min_compile_time_secs=0`` and
``jax_persistent_cache_min_entry_size_bytes=0``). hlograph's time runs from the
built graph to the first result (``hg.compile(g)(*args)``), jax's from the
function to the first result (``jax.jit(f)(*args)``: trace, lower, cache
lookup, first call). Each process checks its result against NumPy and reports
its cache counters; the cold hlograph process also times the graph's key
against lowering it (lower_graph + the O2 pipeline) once more. The table shows
medians over the rounds and the ratios hlograph warm / cold and hlograph warm /
jax warm.
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


def _numpy_chain(kind: str, size: int, values):
    import numpy as np

    if kind == "matmul":
        h = values[0]
        for w in values[1:]:
            h = np.tanh(h @ w)
        return h
    x, y = values
    v = x
    with np.errstate(all="ignore"):
        for i in range(size):
            k = i % 4
            v = np.exp(v) if k == 0 else v + y if k == 1 else v * y if k == 2 else np.tanh(v)
    return v


def _values(kind: str, size: int, width: int):
    import numpy as np

    rng = np.random.default_rng(0)
    if kind == "matmul":
        return [(rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
                for _ in range(size + 1)]
    return [rng.uniform(-0.5, 0.5, 8).astype(np.float32), rng.uniform(0.2, 0.5, 8).astype(np.float32)]


def _hlograph_graph(kind: str, size: int, width: int):
    import hlograph as hg

    if kind == "matmul":
        x = hg.tensor("x", (width, width), "float32")
        ws = [hg.tensor(f"w{i}", (width, width), "float32") for i in range(size)]
        h = x
        for w in ws:
            h = hg.tanh(h @ w)
        return hg.Graph([x, *ws], h)
    x = hg.tensor("x", (8,), "float32")
    y = hg.tensor("y", (8,), "float32")
    v = x
    for i in range(size):
        k = i % 4
        v = hg.exp(v) if k == 0 else v + y if k == 1 else v * y if k == 2 else hg.tanh(v)
    return hg.Graph([x, y], v)


def _jax_function(kind: str, size: int):
    import jax.numpy as jnp

    if kind == "matmul":
        def chain(x, *ws):
            h = x
            for w in ws:
                h = jnp.tanh(h @ w)
            return h
        return chain

    def chain(x, y):
        v = x
        for i in range(size):
            k = i % 4
            v = jnp.exp(v) if k == 0 else v + y if k == 1 else v * y if k == 2 else jnp.tanh(v)
        return v
    return chain


def _close(got, want) -> bool:
    import numpy as np

    return bool(np.allclose(np.asarray(got), want, rtol=2e-4, atol=1e-5, equal_nan=True))


def _child_hlograph(args: argparse.Namespace) -> dict:
    import hlograph as hg
    from hlograph.runtime import cache

    values = _values(args.kind, args.size, args.width)
    graph = _hlograph_graph(args.kind, args.size, args.width)
    t0 = time.perf_counter()
    got = hg.compile(graph)(*values)
    total = time.perf_counter() - t0
    report = {"total": total, "ok": _close(got, _numpy_chain(args.kind, args.size, values)),
              "stats": cache.stats()}
    if args.measure_key:
        report.update(_key_vs_lowering(graph))
    return report


def _key_vs_lowering(graph) -> dict:
    """The graph's key against lowering it (lower_graph + O2), in this process."""
    from hlograph.compiler.graph_key import graph_key
    from hlograph.lowering.lower import lower_graph
    from hlograph.passes.pipeline import run
    from hlograph.runtime import executables

    device = executables.get_client("cpu").local_devices()[0]
    t0 = time.perf_counter()
    graph_key(graph, "O2", device)
    t1 = time.perf_counter()
    module = lower_graph(graph, platform="cpu")
    t2 = time.perf_counter()
    run(module, "O2")
    t3 = time.perf_counter()
    return {"key": t1 - t0, "lower": t2 - t1, "passes": t3 - t2, "nodes": len(graph.nodes)}


def _child_jax(args: argparse.Namespace) -> dict:
    import jax

    jax.config.update("jax_compilation_cache_dir", args.jax_cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    values = _values(args.kind, args.size, args.width)
    f = _jax_function(args.kind, args.size)
    t0 = time.perf_counter()
    got = jax.jit(f)(*values)
    got.block_until_ready()
    total = time.perf_counter() - t0
    return {"total": total, "ok": _close(got, _numpy_chain(args.kind, args.size, values))}


def _run_child(args: argparse.Namespace, side: str, kind: str, size: int, hlograph_cache: str,
               jax_cache: str, measure_key: bool = False) -> dict:
    env = dict(os.environ, HLOGRAPH_CACHE_DIR=hlograph_cache)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", side, "--kind", kind, "--size", str(size),
           "--width", str(args.width), "--jax-cache", jax_cache]
    if measure_key:
        cmd.append("--measure-key")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"error: the {side} {kind} process failed:\n{proc.stderr[-3000:]}")
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    if not report["ok"]:
        sys.exit(f"error: the {side} {kind} result differs from NumPy")
    return report


def _round(args: argparse.Namespace, kind: str, size: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="hlograph-bench-cache-") as hd, \
            tempfile.TemporaryDirectory(prefix="jax-bench-cache-") as jd:
        cold = _run_child(args, "hlograph", kind, size, hd, jd, measure_key=True)
        warm = _run_child(args, "hlograph", kind, size, hd, jd)
        jax_cold = _run_child(args, "jax", kind, size, hd, jd)
        jax_warm = _run_child(args, "jax", kind, size, hd, jd)
    s = warm["stats"]
    if cold["stats"]["module_misses"] != 1 or (s["module_hits"], s["hits"], s["misses"]) != (1, 1, 0):
        sys.exit(f"error: unexpected cache counters: cold {cold['stats']}, warm {s}")
    return {"cold": cold["total"], "warm": warm["total"], "jax_cold": jax_cold["total"],
            "jax_warm": jax_warm["total"], "key": cold["key"], "lower": cold["lower"],
            "passes": cold["passes"], "nodes": cold["nodes"]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workloads", default="matmul,elementwise", help="matmul, elementwise or both")
    p.add_argument("--layers", type=int, default=300, help="matmul chain: layers")
    p.add_argument("--width", type=int, default=64, help="matmul chain: m = n = k")
    p.add_argument("--ops", type=int, default=10000, help="elementwise chain: ops")
    p.add_argument("--repeat", type=int, default=3, help="rounds, each with new cache directories")
    p.add_argument("--child", choices=("hlograph", "jax"), help=argparse.SUPPRESS)
    p.add_argument("--kind", help=argparse.SUPPRESS)
    p.add_argument("--size", type=int, help=argparse.SUPPRESS)
    p.add_argument("--jax-cache", help=argparse.SUPPRESS)
    p.add_argument("--measure-key", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        report = (_child_hlograph if args.child == "hlograph" else _child_jax)(args)
        print(json.dumps(report))
        return

    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    for w in workloads:
        if w not in ("matmul", "elementwise"):
            p.error(f"unknown workload {w!r}; expected matmul or elementwise")
    print(f"graph built -> first result in a fresh process; median of {args.repeat} rounds")
    print(f"{'workload':<34}{'cold ms':>10}{'warm ms':>10}{'jax warm':>10}{'jax cold':>10}"
          f"{'warm/cold':>11}{'warm/jax':>10}")
    keys = []
    for w in workloads:
        size = args.layers if w == "matmul" else args.ops
        rounds = [_round(args, w, size) for _ in range(args.repeat)]
        med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
        label = (f"matmul: {size} x tanh(x @ w), f32[{args.width}]^2" if w == "matmul"
                 else f"elementwise: {size} ops, f32[8]")
        print(f"{label:<34}{med['cold'] * 1e3:>10.1f}{med['warm'] * 1e3:>10.1f}{med['jax_warm'] * 1e3:>10.1f}"
              f"{med['jax_cold'] * 1e3:>10.1f}{med['warm'] / med['cold']:>10.3f}x"
              f"{med['warm'] / med['jax_warm']:>9.2f}x")
        keys.append((w, med))
    print()
    print("the graph's key against lowering it (in the cold process, after its first result)")
    print(f"{'workload':<14}{'nodes':>8}{'key ms':>10}{'lower ms':>10}{'O2 ms':>10}{'key/lower':>11}"
          f"{'key/(lower+O2)':>16}")
    for w, med in keys:
        print(f"{w:<14}{int(med['nodes']):>8}{med['key'] * 1e3:>10.2f}{med['lower'] * 1e3:>10.1f}"
              f"{med['passes'] * 1e3:>10.1f}{med['key'] / med['lower']:>10.3f}x"
              f"{med['key'] / (med['lower'] + med['passes']):>15.3f}x")


if __name__ == "__main__":
    main()
