"""The cost of a new input shape: shape-polymorphic lowering against lowering
again and against jax.jit's retrace, in one run.

    python bench/shape_poly.py                    # 20 batch sizes, MLP and a 300-op chain
    python bench/shape_poly.py --sizes 10 --chain 100

A graph whose batch dim is symbolic (``hg.tensor("x", ("batch", 64))``) lowers
once; each new batch size then costs a refinement of that module (StableHLO's
shape refinement), the O2 pipeline and XLA's compile. Measured per new size,
the first call (result included) of:

- ``hlograph poly``: one Function called with every size (lowered once);
- ``hlograph relower``: the same Function with the polymorphic module turned
  off, so each size specializes the graph, lowers and runs the pipeline again;
- ``jax.jit``: the same computation in jax, one jitted function called with
  every size (retrace, lower and compile).

The executable cache is off (``HLOGRAPH_CACHE_DIR=off``), so every size
compiles. The table shows medians over the sizes and ratios to jax.jit.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["HLOGRAPH_CACHE_DIR"] = "off"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import hlograph as hg  # noqa: E402

IN, HIDDEN, OUT = 64, 256, 10


def mlp():
    x = hg.tensor("x", ("batch", IN))
    w1, w2 = hg.tensor("w1", (IN, HIDDEN)), hg.tensor("w2", (HIDDEN, OUT))
    g = hg.Graph([x, w1, w2], hg.softmax(hg.tanh(x @ w1) @ w2, axis=-1))

    def f(x, w1, w2):
        return jax.nn.softmax(jnp.tanh(x @ w1) @ w2, axis=-1)

    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((IN, HIDDEN)).astype(np.float32) / 8,
          rng.standard_normal((HIDDEN, OUT)).astype(np.float32) / 16]
    return g, f, lambda b: [rng.standard_normal((b, IN)).astype(np.float32), *ws]


def chain(n_ops: int):
    x = hg.tensor("x", ("batch", 128))

    def build(v, lib):
        out = v
        for i in range(n_ops):
            k = i % 3
            out = lib.sin(out) if k == 0 else lib.cos(out) if k == 1 else out + v
        return out

    g = hg.Graph([x], build(x, hg))
    rng = np.random.default_rng(1)
    return g, lambda x: build(x, jnp), lambda b: [rng.standard_normal((b, 128)).astype(np.float32)]


def _first_call(fn, args) -> float:
    start = time.perf_counter()
    out = fn(*args)
    jax.block_until_ready(out)
    return time.perf_counter() - start


def measure(name: str, g, jf, make_args, sizes) -> dict:
    poly = hg.compile(g)
    relower = hg.compile(g)
    relower._poly = "turned off by the benchmark"
    jitted = jax.jit(jf)
    # warm each side's machinery (imports, first XLA client use) on a size not measured
    warm = make_args(sizes[-1] + 5)
    for fn in (poly, relower, jitted):
        fn(*warm)
    times = {"hlograph poly": [], "hlograph relower": [], "jax.jit": []}
    for b in sizes:
        # the two hlograph sides get different sizes: hlograph keeps executables by
        # module in memory, and a refined module equals the one lowered again
        sides = (("hlograph poly", poly, make_args(b)), ("hlograph relower", relower, make_args(b + 1)),
                 ("jax.jit", jitted, make_args(b)))
        for key, fn, args in sides:
            times[key].append(_first_call(fn, args))  # a size each side sees for the first time
        for key, fn, args in sides:  # checked after timing: jax's check compiles that size
            ref = np.asarray(jitted(*args))
            np.testing.assert_allclose(np.asarray(fn(*args)), ref, rtol=2e-4, atol=2e-5)
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, default=20, help="how many batch sizes (default 20)")
    p.add_argument("--chain", type=int, default=300, help="ops in the elementwise chain (default 300)")
    args = p.parse_args()
    sizes = [3 * i + 1 for i in range(args.sizes)]  # relower: 3i+2, never seen by the others
    rows = [("MLP 64-256-10", *mlp()), (f"{args.chain}-op chain", *chain(args.chain))]
    print(f"new batch size -> first result, median over {len(sizes)} sizes (ms); ratio to jax.jit")
    print(f"{'workload':<18} {'hlograph poly':>14} {'relower':>10} {'jax.jit':>9} {'poly/jax':>9} {'relower/jax':>12}")
    for name, g, jf, make in rows:
        r = measure(name, g, jf, make, sizes)
        pj, rj = r["hlograph poly"] / r["jax.jit"], r["hlograph relower"] / r["jax.jit"]
        print(f"{name:<18} {r['hlograph poly'] * 1e3:>14.1f} {r['hlograph relower'] * 1e3:>10.1f} "
              f"{r['jax.jit'] * 1e3:>9.1f} {pj:>8.2f}x {rj:>11.2f}x")


if __name__ == "__main__":
    main()
