"""PyTensor's own modes and the HLOGRAPH mode side by side, in one run.

    python bench/pytensor_modes.py                       # every workload, every mode
    python bench/pytensor_modes.py --modes HLOGRAPH,NUMBA --workloads W1,W2 --repeat 5

The same PyTensor graph is compiled with ``pytensor.function(..., mode=...)`` for
each mode: ``FAST_RUN`` (PyTensor's C backend), ``NUMBA``, ``JAX`` and ``HLOGRAPH``.
Each result is checked against the ``NUMBA`` one before timing. Workloads:

- W1: a tiny call, ``x + 1`` on float64[3] (the per-call overhead of each mode);
- W2: an elementwise chain (exp, sin, tanh, ...) on float32[1M];
- W3: an MLP (784-256-10, tanh, softmax cross-entropy, float32, batch 128): the
  loss and its gradient w.r.t. the 4 weights and biases (``pytensor.grad``);
- W4: compile time of a 1000-node elementwise graph: from ``pytensor.function``
  to the first result;
- W5: a radon-like hierarchical normal regression written in PyTensor (85 group
  intercepts, a common slope, 919 synthetic observations, half-normal priors on
  the scales): log-density and its gradient (``pytensor.grad``), compile time
  (definition to first result) and per-call time;
- W6: W5's model in fresh processes, from the definition to the first result (after
  the imports), with empty disk caches (cold) and then with the caches the cold
  process left (warm): hlograph's, PyTensor's compiledir (C and Numba modules) and
  jax's persistent compilation cache (thresholds 0) for the JAX mode.

Per-call times are the median over ``--repeat`` interleaved rounds of the mean of a
number of calls (about 50 ms of the slowest mode's calls), with results as NumPy
arrays (the JAX mode's jax Arrays are converted: they are computed asynchronously);
compile times are the median over rounds of building a new graph (a new constant
in it, so no executable comes from a cache: hlograph's disk cache is off). Ratios
are time over the NUMBA mode's (lower is better).
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
import warnings
from typing import Callable

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["HLOGRAPH_CACHE_DIR"] = "off"

import numpy as np  # noqa: E402

MODES = ("FAST_RUN", "NUMBA", "JAX", "HLOGRAPH")
LABEL = {"FAST_RUN": "C (FAST_RUN)", "NUMBA": "NUMBA", "JAX": "JAX", "HLOGRAPH": "HLOGRAPH"}


# --- the workloads: (build(mode, salt) -> (fn, args)) ------------------------------------------
def w1_tiny(mode, salt=0.0):
    import pytensor
    import pytensor.tensor as pt
    x = pt.dvector("x")
    fn = pytensor.function([x], x + (1.0 + salt), mode=mode)
    return fn, [np.arange(3.0)]


def w2_elementwise(mode, salt=0.0):
    import pytensor
    import pytensor.tensor as pt
    x = pt.vector("x", dtype="float32")
    y = pt.exp(-x * x) * 0.5 + pt.sin(x) * pt.cos(x * 0.3)
    y = pt.tanh(y + x * 0.1) + pt.sqrt(pt.abs(x) + 1.0) - (pt.log1p(pt.abs(y)) + salt)
    fn = pytensor.function([x], y, mode=mode)
    return fn, [np.random.default_rng(0).normal(size=1_000_000).astype(np.float32)]


def w3_mlp(mode, salt=0.0):
    import pytensor
    import pytensor.tensor as pt
    rng = np.random.default_rng(0)
    sizes, batch = (784, 256, 10), 128
    ws = [pt.matrix(f"w{i}", dtype="float32") for i in range(2)]
    bs = [pt.vector(f"b{i}", dtype="float32") for i in range(2)]
    x, y = pt.matrix("x", dtype="float32"), pt.matrix("y", dtype="float32")
    h = pt.tanh(x @ ws[0] + bs[0])
    logits = h @ ws[1] + bs[1] + salt
    loss = -pt.mean(pt.sum(y * pt.special.log_softmax(logits, axis=-1), axis=-1))
    params = [ws[0], bs[0], ws[1], bs[1]]
    fn = pytensor.function([*params, x, y], [loss, *pytensor.grad(loss, params)], mode=mode)
    vals = [(rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32) for a, b in zip(sizes[:-1], sizes[1:])]
    bvals = [(rng.normal(size=b) * 0.1).astype(np.float32) for b in sizes[1:]]
    xv = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    yv = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]
    return fn, [vals[0], bvals[0], vals[1], bvals[1], xv, yv]


def w4_big_graph(mode, salt=0.0, nodes: int = 1000):
    import pytensor
    import pytensor.tensor as pt
    x = pt.dvector("x")
    y = x
    ops = (lambda v, i: pt.exp(-v * 0.01), lambda v, i: v * (1.0 + i * 1e-4), lambda v, i: pt.tanh(v) + salt,
           lambda v, i: v + x * 0.5)
    for i in range(nodes // 2):  # each step adds about two nodes
        y = ops[i % len(ops)](y, i)
    fn = pytensor.function([x], y, mode=mode)
    return fn, [np.linspace(-1.0, 1.0, 16)]


def radon_data(groups: int = 85, n: int = 919):
    rng = np.random.default_rng(0)
    group = np.concatenate([np.arange(groups), rng.integers(0, groups, n - groups)]).astype(np.int64)
    rng.shuffle(group)
    floor = rng.integers(0, 2, n).astype(np.float64)
    a_true = rng.normal(1.5, 0.3, groups)
    y = a_true[group] - 0.7 * floor + rng.normal(0.0, 0.7, n)
    params = [np.float64(1.0), np.float64(-1.0), rng.normal(1.0, 0.5, groups), np.float64(-0.5), np.float64(0.0)]
    return params, [floor, y, group]


def w5_radon(mode, salt=0.0):
    import pytensor
    import pytensor.tensor as pt
    mu_a, log_sigma_a, b, log_sigma_y = (pt.dscalar(n) for n in ("mu_a", "log_sigma_a", "b", "log_sigma_y"))
    a = pt.dvector("a")
    floor, y, group = pt.dvector("floor"), pt.dvector("y"), pt.lvector("group")
    half_log_2pi = 0.5 * np.log(2 * np.pi)

    def normal_logp(v, mu, sigma):
        return -0.5 * ((v - mu) / sigma) ** 2 - pt.log(sigma) - half_log_2pi

    def half_normal_logp(v, scale):
        return np.log(2.0) - half_log_2pi - np.log(scale) - 0.5 * (v / scale) ** 2

    sigma_a, sigma_y = pt.exp(log_sigma_a), pt.exp(log_sigma_y)
    logp = normal_logp(mu_a, 0.0, 10.0 + salt) + normal_logp(b, 0.0, 10.0)
    logp += half_normal_logp(sigma_a, 5.0) + log_sigma_a + half_normal_logp(sigma_y, 5.0) + log_sigma_y
    logp += normal_logp(a, mu_a, sigma_a).sum()
    logp += normal_logp(y, a[group] + b * floor, sigma_y).sum()
    params = [mu_a, log_sigma_a, a, b, log_sigma_y]
    fn = pytensor.function([*params, floor, y, group], [logp, *pytensor.grad(logp, params)], mode=mode)
    pv, dv = radon_data()
    return fn, [*pv, *dv]


WORKLOADS = {
    "W1": ("tiny call, x + 1 on float64[3]", w1_tiny, True, False),
    "W2": ("elementwise chain, float32[1M]", w2_elementwise, True, False),
    "W3": ("MLP 784-256-10 loss + grad, float32, batch 128", w3_mlp, True, False),
    "W4": ("1000-node graph, definition -> first result", w4_big_graph, False, True),
    "W5": ("radon-like hierarchical logp + dlogp (85 groups, 919 obs)", w5_radon, True, True),
}


# --- W6: W5 in fresh processes, cold and warm disk caches -----------------------------------------
FRESH = ("W6", "W5's model in a fresh process, definition -> first result")


def _fresh_child(mode: str, cache: str) -> None:
    """One process: W5's model compiled in ``mode`` with its disk caches under ``cache``;
    prints the seconds from the definition to the first result."""
    os.environ["HLOGRAPH_CACHE_DIR"] = os.path.join(cache, "hlograph")
    if mode == "HLOGRAPH":
        import hlograph.interop.pytensor  # noqa: F401
    if mode == "JAX":
        import jax
        jax.config.update("jax_compilation_cache_dir", os.path.join(cache, "jax"))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    fn, args = _blocking(w5_radon, mode)
    out = _as_list(fn(*args))
    print(json.dumps({"seconds": time.perf_counter() - t0, "logp": float(np.asarray(out[0]))}))


def _fresh_times(mode: str, repeat: int) -> tuple[float, float]:
    """Medians of (cold, warm) over ``repeat`` pairs of processes sharing a new cache."""
    cold, warm = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            # PyTensor's compiled C and Numba modules go to a new compiledir too
            flags = ",".join(f for f in (os.environ.get("PYTENSOR_FLAGS", ""),
                                         f"compiledir={os.path.join(cache, 'pytensor')}") if f)
            env = {**os.environ, "PYTENSOR_FLAGS": flags}
            for times in (cold, warm):
                proc = subprocess.run([sys.executable, __file__, "--child", mode, cache],
                                      capture_output=True, text=True, env=env)
                if proc.returncode != 0:
                    raise SystemExit(f"error: {mode} in a fresh process failed:\n{proc.stderr[-2000:]}")
                times.append(json.loads(proc.stdout.strip().splitlines()[-1])["seconds"])
    return statistics.median(cold), statistics.median(warm)


# --- timing --------------------------------------------------------------------------------------
def _check(results: dict[str, list]) -> None:
    ref = results.get("NUMBA") or next(iter(results.values()))
    for mode, res in results.items():
        for i, (a, b) in enumerate(zip(res, ref)):
            a, b = np.asarray(a), np.asarray(b)
            tol = 2e-3 if a.dtype == np.float32 else 1e-7
            if a.shape != b.shape or not np.allclose(a, b, rtol=tol, atol=tol):
                raise SystemExit(f"error: {mode} output {i} differs from the reference mode's")


def _as_list(out) -> list:
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _per_call(fns: dict[str, tuple[Callable, list]], number: int, repeat: int) -> dict[str, float]:
    times: dict[str, list[float]] = {m: [] for m in fns}
    for _ in range(repeat):
        for mode, (fn, args) in fns.items():
            t0 = time.perf_counter()
            for _ in range(number):
                fn(*args)
            times[mode].append((time.perf_counter() - t0) / number)
    return {m: statistics.median(t) for m, t in times.items()}


def _blocking(build, mode: str, **kw):
    """``build(mode)``, with the JAX mode's results (jax Arrays, computed asynchronously)
    converted to NumPy, so that a call ends when its results are there, as in the others."""
    fn, args = build(mode, **kw)
    if mode != "JAX":
        return fn, args

    def call(*a):
        out = fn(*a)
        return [np.asarray(o) for o in out] if isinstance(out, (list, tuple)) else np.asarray(out)
    return call, args


def _compile_time(build, mode: str, repeat: int) -> float:
    out = []
    for r in range(repeat):
        t0 = time.perf_counter()
        fn, args = _blocking(build, mode, salt=1e-9 * (r + 1) + time.perf_counter() * 1e-15)
        fn(*args)
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def _fmt(t: float) -> str:
    if t >= 1.0:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.2f} ms"
    return f"{t * 1e6:.1f} us"


def _number_for(t_first: float) -> int:
    return int(min(2000, max(3, 0.05 / max(t_first, 1e-7))))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
    p.add_argument("--workloads", default=",".join([*WORKLOADS, FRESH[0]]), help="comma-separated, of W1..W6")
    p.add_argument("--repeat", type=int, default=5, help="interleaved rounds (median)")
    p.add_argument("--compile-repeat", type=int, default=2, help="graphs built per compile time (median)")
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        _fresh_child(*args.child)
        return
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    wls = [w.strip() for w in args.workloads.split(",") if w.strip()]
    known = [*WORKLOADS, FRESH[0]]
    bad = [m for m in modes if m not in MODES] + [w for w in wls if w not in known]
    if bad:
        print(f"error: unknown mode or workload {bad[0]!r} (modes: {', '.join(MODES)}; workloads: "
              f"{', '.join(known)})", file=sys.stderr)
        raise SystemExit(2)
    try:
        import pytensor
        import hlograph.interop.pytensor  # noqa: F401 - registers HLOGRAPH
    except ImportError as e:
        print(f"error: this benchmark needs PyTensor ({e})", file=sys.stderr)
        raise SystemExit(2)
    warnings.simplefilter("ignore")
    import jax
    print(f"pytensor {pytensor.__version__}, jax {jax.__version__}, numpy {np.__version__}; "
          f"{args.repeat} rounds", flush=True)

    rows = []
    for w in wls:
        if w == FRESH[0]:
            fresh = {m: _fresh_times(m, args.compile_repeat) for m in modes}
            rows.append((f"{w} {FRESH[1]}, cold caches", {m: t[0] for m, t in fresh.items()}))
            rows.append((f"{w} {FRESH[1]}, warm caches", {m: t[1] for m, t in fresh.items()}))
            print(f"  done: {w}", flush=True)
            continue
        title, build, per_call, compile_time = WORKLOADS[w]
        fns, results = {}, {}
        for mode in modes:
            fn, a = _blocking(build, mode)
            results[mode] = _as_list(fn(*a))
            fns[mode] = (fn, a)
        _check(results)
        if per_call:
            first = {}
            for mode, (fn, a) in fns.items():
                t0 = time.perf_counter()
                fn(*a)
                first[mode] = time.perf_counter() - t0
            number = _number_for(max(first.values()))
            rows.append((f"{w} {title}: per call", _per_call(fns, number, args.repeat)))
        if compile_time:
            rows.append((f"{w} {title}: compile to first result",
                         {m: _compile_time(build, m, args.compile_repeat) for m in modes}))
        print(f"  done: {w}", flush=True)

    base = "NUMBA" if "NUMBA" in modes else modes[0]
    head = "| workload | " + " | ".join(LABEL[m] for m in modes) + f" | ratios to {LABEL[base]} (" \
        + " / ".join(LABEL[m] for m in modes) + ") |"
    print()
    print(head)
    print("|---" * (len(modes) + 2) + "|")
    for name, times in rows:
        ratios = " / ".join(f"{times[m] / times[base]:.2f}x" for m in modes)
        print(f"| {name} | " + " | ".join(_fmt(times[m]) for m in modes) + f" | {ratios} |")


if __name__ == "__main__":
    main()
