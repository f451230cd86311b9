"""Per-call time on tiny inputs: hlograph ``Compiled`` and ``Function`` against
``jax.jit``, with NumPy and with device (``jax.Array``) inputs, in one run.

    python bench/dispatch.py                      # add of two float32[3]
    python bench/dispatch.py --dtype float64 --shape 2,3 --inputs 4

Every contender is timed with ``timeit`` (``--number`` calls per run) in
interleaved rounds (``--repeat``), so that background load hits them alike.
The table shows the median and the fastest run per call, each with its ratio
to jax.jit with the same inputs (the fastest run is the one least disturbed by
other processes), and the paired ratio: per round, the time over jax.jit's in
the same round, the median over rounds (the steadiest figure on a shared
machine). jax.jit returns device arrays; hlograph returns NumPy arrays
unless called with ``output="device"``: both are shown. For 64-bit dtypes
jax.jit runs under ``jax.enable_x64(True)`` (thread-local), since hlograph
keeps 64-bit types without changing jax's global setting.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import timeit

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402

import hlograph as hg  # noqa: E402


def _graph(n_inputs: int, shape: tuple[int, ...], dtype: str) -> hg.Graph:
    xs = [hg.tensor(f"x{i}", shape, dtype) for i in range(n_inputs)]
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return hg.Graph(xs, out)


def _jax_fn(n_inputs: int):
    def f(*xs):
        out = xs[0]
        for x in xs[1:]:
            out = out + x
        return out
    return jax.jit(f)


def _cases(n_inputs, shape, dtype, pipeline):
    """(inputs, callee, output, statement, namespace, x64) for every contender."""
    rng = np.random.default_rng(0)
    host = [rng.normal(size=shape).astype(dtype) for _ in range(n_inputs)]
    with jax.enable_x64(True):
        device = [jax.device_put(v) for v in host]
    fn = hg.compile(_graph(n_inputs, shape, dtype), pipeline=pipeline)
    compiled = fn.lower().compile()
    jitted = _jax_fn(n_inputs)
    names = ", ".join(f"a{i}" for i in range(n_inputs))
    x64 = np.dtype(dtype).itemsize == 8 or np.dtype(dtype) == np.complex128
    cases = []
    for kind, values in (("numpy", host), ("device", device)):
        ns = {f"a{i}": v for i, v in enumerate(values)}
        ns.update(jit=jitted, compiled=compiled, fn=fn, asarray=np.asarray)
        cases += [
            (kind, "jax.jit", "device", f"jit({names})", ns, x64),
            (kind, "jax.jit + np.asarray", "numpy", f"asarray(jit({names}))", ns, x64),
            (kind, "hlograph Compiled", "numpy", f"compiled({names})", ns, False),
            (kind, "hlograph Compiled", "device", f"compiled({names}, output='device')", ns, False),
            (kind, "hlograph Function", "numpy", f"fn({names})", ns, False),
            (kind, "hlograph Function", "device", f"fn({names}, output='device')", ns, False),
        ]
    # the contenders agree before they are timed
    expected = np.asarray(sum(v.astype(np.float64) for v in host)).astype(dtype)
    for _, callee, _, stmt, ns, x64 in cases:
        with jax.enable_x64(x64):
            got = np.asarray(eval(stmt, ns))
        if got.dtype != np.dtype(dtype) or not np.allclose(got, expected, rtol=1e-5):
            raise SystemExit(f"{callee} ({stmt}) computed a different result: {got} != {expected}")
    return cases


def _time(cases, number: int, repeat: int) -> list[list[float]]:
    timers = [timeit.Timer(stmt, globals=ns) for _, _, _, stmt, ns, _ in cases]
    runs: list[list[float]] = [[] for _ in cases]
    for timer, case in zip(timers, cases):  # warm up: caches filled, code paths hot
        with jax.enable_x64(case[5]):
            timer.timeit(max(number // 10, 10))
    for _ in range(repeat):
        for timer, case, per_case in zip(timers, cases, runs):
            with jax.enable_x64(case[5]):
                per_case.append(timer.timeit(number) / number)
    return runs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shape", default="3", help="comma-separated input shape (default 3; '' for 0-d)")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--inputs", type=int, default=2, help="number of inputs (summed; default 2)")
    p.add_argument("--number", type=int, default=5000, help="calls per timing run")
    p.add_argument("--repeat", type=int, default=15, help="interleaved runs per contender")
    p.add_argument("--pipeline", default="O0", help="hlograph pipeline (does not change the call path)")
    args = p.parse_args(argv)
    shape = tuple(int(s) for s in args.shape.split(",") if s.strip())

    cases = _cases(args.inputs, shape, args.dtype, args.pipeline)
    runs = _time(cases, args.number, args.repeat)
    medians = [statistics.median(r) for r in runs]
    fastest = [min(r) for r in runs]
    jit = {cases[i][0]: i for i, (_, callee, *_) in enumerate(cases) if callee == "jax.jit"}
    base = {kind: (medians[i], fastest[i]) for kind, i in jit.items()}
    # per round, the ratio to jax.jit's run of the same round (its neighbour in
    # time, so both saw the same background load); the median over rounds
    paired = [statistics.median(a / b for a, b in zip(r, runs[jit[case[0]]]))
              for r, case in zip(runs, cases)]

    what = " + ".join([f"{args.dtype}[{','.join(map(str, shape))}]"] * args.inputs)
    print(f"per-call time of {what} (jax/jaxlib {jax.__version__}, {jax.devices()[0].platform}); "
          f"{args.repeat} interleaved runs x {args.number} calls: median and fastest run, each as a "
          f"ratio to jax.jit with the same inputs, and the median of the per-run ratios (paired)")
    print(f"{'inputs':7s} {'callee':22s} {'returns':8s} {'median us':>10s} {'ratio':>7s} "
          f"{'fastest us':>11s} {'ratio':>7s} {'paired':>7s}")
    for (kind, callee, output, *_), m, f, pr in zip(cases, medians, fastest, paired):
        bm, bf = base[kind]
        print(f"{kind:7s} {callee:22s} {output:8s} {m * 1e6:10.2f} {m / bm:6.2f}x "
              f"{f * 1e6:11.2f} {f / bf:6.2f}x {pr:6.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
