"""The jax bridge both ways, against jax.jit, in one run.

    python bench/jax_bridge.py                    # chains of 1k and 10k ops, an MLP step
    python bench/jax_bridge.py --sizes 1000 --repeat 5
    python bench/jax_bridge.py --split            # also: import, lower (O2, O0), jax's trace and lower apart
    python bench/jax_bridge.py --cpu-time         # CPU time of the process (a loaded machine), not wall clock

- Time to StableHLO: ``from_jax(f, *specs)`` then ``hg.compile(g).lower()`` (the O2
  pipeline included) against ``jax.jit(f).lower(*specs)`` (tracing included), on
  a chain of sin/cos/add ops over float32[8] (1k and 10k ops) and on one SGD
  step of a 2-layer tanh MLP written in jax (``jax.grad`` inside). Each side gets
  its own fresh function: ``from_jax`` traces with jax, and jax caches traces by
  function identity. hlograph's disk cache is an empty temporary directory: each
  ``lower()`` looks the graph's key up, misses and lowers.
- Per call: the same MLP step as an hlograph graph (``hlograph.testing.mlp_step_graph``)
  called through ``hg.to_jax`` inside ``jax.jit``, against the step written in
  jax under ``jax.jit`` (device arrays in and out, results blocked on).

Repetitions are interleaved; the table shows medians and the ratio hlograph / jax.
Both sides are checked to compute the same result before timing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import timeit

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# an empty disk cache: every lower() looks its graph up (and misses), then lowers
_CACHE = tempfile.TemporaryDirectory(prefix="hlograph-bench-")
os.environ["HLOGRAPH_CACHE_DIR"] = _CACHE.name

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import hlograph as hg  # noqa: E402
from hlograph.testing import mlp_step_graph  # noqa: E402

BATCH, N_IN, N_HIDDEN, N_OUT, LR = 32, 16, 64, 4, 0.1
#: the clock of the time-to-StableHLO rounds (``--cpu-time``: time.process_time)
_clock = time.perf_counter


def chain(n_ops: int):
    """sin, cos, add repeated: ``n_ops`` elementwise ops on float32[8]."""
    def f(x):
        v = x
        for i in range(n_ops):
            k = i % 3
            v = jnp.sin(v) if k == 0 else jnp.cos(v) if k == 1 else v + x
        return v
    return f, (jax.ShapeDtypeStruct((8,), jnp.float32),)


def mlp_step(x, y, w1, b1, w2, b2):
    def loss(params):
        w1, b1, w2, b2 = params
        h = jnp.tanh(x @ w1 + b1)
        err = h @ w2 + b2 - y
        return jnp.mean(err * err)

    params = (w1, b1, w2, b2)
    value, grads = jax.value_and_grad(loss)(params)
    return (value, *(p - LR * g for p, g in zip(params, grads)))


def _mlp_specs():
    shapes = [(BATCH, N_IN), (BATCH, N_OUT), (N_IN, N_HIDDEN), (N_HIDDEN,), (N_HIDDEN, N_OUT), (N_OUT,)]
    return tuple(jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes)


def _mlp_values():
    rng = np.random.default_rng(0)
    return [(rng.normal(size=s.shape) / np.sqrt(s.shape[0])).astype(np.float32) for s in _mlp_specs()]


def _stablehlo_times(make, specs, o0: bool) -> tuple[float, ...]:
    """One round: (hlograph import, hlograph lower, jax trace, jax lower[, hlograph
    lower with the O0 pipeline]), each side on a fresh function from ``make()``: jax
    caches traces by function identity, and the trace ``from_jax`` makes would
    otherwise spare ``jax.jit(f).lower`` its own."""
    f = make()
    t0 = _clock()
    g = hg.from_jax(f, *specs)
    t1 = _clock()
    hg.compile(g).lower()
    t2 = _clock()
    f = make()
    t3 = _clock()
    traced = jax.jit(f).trace(*specs)
    t4 = _clock()
    traced.lower()
    t5 = _clock()
    times = (t1 - t0, t2 - t1, t4 - t3, t5 - t4)
    if o0:
        t6 = _clock()
        hg.compile(g, pipeline="O0").lower()
        times += (_clock() - t6,)
    return times


def time_to_stablehlo(make, specs, repeat: int, split: list | None = None) -> tuple[float, float]:
    """Medians of both sides (one untimed round first); ``split`` (a list) receives the
    medians of the parts of ``_stablehlo_times``, the O0 lowering included."""
    rounds = [_stablehlo_times(make, specs, split is not None) for _ in range(repeat + 1)][1:]
    if split is not None:
        split.extend(statistics.median(r[k] for r in rounds) for k in range(5))
    return (statistics.median(r[0] + r[1] for r in rounds),
            statistics.median(r[2] + r[3] for r in rounds))


def _check_import(f, specs) -> None:
    """The imported graph (through hlograph's reference evaluator: XLA compiles a
    10k-op chain slowly, and compiling is not what is measured) gives jax's result."""
    rng = np.random.default_rng(1)
    args = [(rng.normal(size=s.shape) / np.sqrt(max(s.shape[0], 1))).astype(np.float32) for s in specs]
    got = hg.evaluate(hg.from_jax(f, *specs), *args)
    want = f(*args)
    for a, b in zip(got if isinstance(got, tuple) else [got], want if isinstance(want, tuple) else [want]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def per_call(number: int, repeat: int) -> tuple[float, float]:
    values = [jax.device_put(v) for v in _mlp_values()]
    bridged = jax.jit(hg.to_jax(mlp_step_graph(BATCH, N_IN, N_HIDDEN, N_OUT, LR)))
    native = jax.jit(mlp_step)
    for a, b in zip(bridged(*values), native(*values)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    hl, jx = [], []
    for _ in range(repeat):
        hl.append(timeit.timeit(lambda: jax.block_until_ready(bridged(*values)), number=number) / number)
        jx.append(timeit.timeit(lambda: jax.block_until_ready(native(*values)), number=number) / number)
    return statistics.median(hl), statistics.median(jx)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1000,10000", help="chain lengths (ops)")
    p.add_argument("--repeat", type=int, default=3, help="interleaved repetitions (median)")
    p.add_argument("--number", type=int, default=2000, help="calls per per-call timing run")
    p.add_argument("--split", action="store_true",
                   help="also show where the time to StableHLO goes on each side")
    p.add_argument("--cpu-time", action="store_true",
                   help="time StableHLO rounds by the process's CPU time (steadier on a loaded machine)")
    args = p.parse_args()
    if args.cpu_time:
        global _clock
        _clock = time.process_time

    rows, splits = [], []
    for n in (int(s) for s in args.sizes.split(",")):
        f, specs = chain(n)
        _check_import(f, specs)
        name = f"to StableHLO: chain of {n} sin/cos/add"
        splits.append((name, [] if args.split else None))
        rows.append((name, *time_to_stablehlo(lambda: chain(n)[0], specs, args.repeat, splits[-1][1])))
    _check_import(mlp_step, _mlp_specs())
    name = "to StableHLO: MLP training step"
    splits.append((name, [] if args.split else None))
    rows.append((name, *time_to_stablehlo(lambda: lambda *a: mlp_step(*a), _mlp_specs(), args.repeat,
                                          splits[-1][1])))
    rows.append(("per call: MLP step, to_jax in jax.jit", *per_call(args.number, args.repeat)))

    print("| case | hlograph | jax | ratio |")
    print("|---|---|---|---|")
    for name, hl, jx in rows:
        unit, scale = ("ms", 1e3) if name.startswith("to StableHLO") else ("us", 1e6)
        print(f"| {name} | {hl * scale:.1f} {unit} | {jx * scale:.1f} {unit} | {hl / jx:.2f}x |")
    if args.split:
        # from_jax includes jax's own trace (jax.make_jaxpr), then the interpreter
        print("\n| case | from_jax | hg.compile(g).lower() | jax.jit(f).trace | .lower() "
              "| lower() with O0 |")
        print("|---|---|---|---|---|---|")
        for name, parts in splits:
            print(f"| {name[len('to StableHLO: '):]} | " + " | ".join(f"{t * 1e3:.1f} ms" for t in parts) + " |")


if __name__ == "__main__":
    main()
