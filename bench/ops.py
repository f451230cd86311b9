"""Run time of single ops on large inputs: hlograph against jax.jit, NumPy and Numba.

    python bench/ops.py                          # every op, float32[2048, 2048]
    python bench/ops.py --ops cumsum,cumprod --size 4096 --repeat 30

Each op is one graph (hlograph), one jitted function (jax), one NumPy call and
one ``numba.njit`` loop (single-threaded, written the obvious way). hlograph
and jax.jit get device inputs (``jax.Array``) and return device arrays, so the
table shows the computation and not the host-to-device copies; NumPy and Numba
get NumPy arrays. Every contender's result is checked against NumPy before
anything is timed. Repetitions are interleaved across contenders; the table
shows each contender's median, hlograph's ratio to the best median of the other
three, and the same ratio for the fastest runs (the runs least disturbed by
other processes: on a busy machine, read that one).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Callable

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numba  # noqa: E402
import numpy as np  # noqa: E402

import hlograph as hg  # noqa: E402


# --- Numba loops ------------------------------------------------------------------------
# running reductions along axis 0 as explicit loops over the elements (a row
# expression such as ``out[i] = out[i - 1] + a[i]`` allocates a temporary per row
# and takes about twice as long). Written out one by one: one loop taking the
# combination as an inlined njit function runs the cummax ~20% slower.
@numba.njit(cache=False)
def _nb_cumsum0(a):
    out = np.empty_like(a)
    n, m = a.shape
    for j in range(m):
        out[0, j] = a[0, j]
    for i in range(1, n):
        for j in range(m):
            out[i, j] = out[i - 1, j] + a[i, j]
    return out


@numba.njit(cache=False)
def _nb_cumprod0(a):
    out = np.empty_like(a)
    n, m = a.shape
    for j in range(m):
        out[0, j] = a[0, j]
    for i in range(1, n):
        for j in range(m):
            out[i, j] = out[i - 1, j] * a[i, j]
    return out


@numba.njit(cache=False)
def _nb_cummax0(a):
    out = np.empty_like(a)
    n, m = a.shape
    for j in range(m):
        out[0, j] = a[0, j]
    for i in range(1, n):
        for j in range(m):
            prev, x = out[i - 1, j], a[i, j]
            out[i, j] = x if (x > prev or x != x) else prev
    return out


@numba.njit(cache=False)
def _nb_sum(a):
    return a.sum()


@numba.njit(cache=False)
def _nb_softmax(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        row = a[i]
        e = np.exp(row - row.max())
        out[i] = e / e.sum()
    return out


@numba.njit(cache=False)
def _nb_var0(a):
    m = a.sum(axis=0) / a.shape[0]
    d = a - m
    return (d * d).sum(axis=0) / a.shape[0]


@numba.njit(cache=False)
def _nb_matmul(a, b):
    return a @ b


def _np_softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@dataclass
class Case:
    name: str
    n_inputs: int
    hlograph: Callable  # builds the graph output from input Variables
    jax: Callable
    numpy: Callable
    numba: Callable
    rtol: float = 1e-4


CASES = [
    Case("cumsum axis 0", 1, lambda x: hg.cumsum(x, axis=0), lambda x: jnp.cumsum(x, axis=0),
         lambda x: np.cumsum(x, axis=0), _nb_cumsum0),
    Case("cumprod axis 0", 1, lambda x: hg.cumprod(x, axis=0), lambda x: jnp.cumprod(x, axis=0),
         lambda x: np.cumprod(x, axis=0), _nb_cumprod0),
    Case("cummax axis 0", 1, lambda x: hg.cummax(x, axis=0), lambda x: jax.lax.cummax(x, axis=0),
         lambda x: np.maximum.accumulate(x, axis=0), _nb_cummax0),
    Case("cumsum axis 1", 1, lambda x: hg.cumsum(x, axis=1), lambda x: jnp.cumsum(x, axis=1),
         lambda x: np.cumsum(x, axis=1), lambda x: _nb_cumsum0(x.T).T),
    Case("sum", 1, lambda x: hg.sum(x), lambda x: jnp.sum(x), lambda x: np.sum(x), _nb_sum, rtol=1e-3),
    Case("var axis 0", 1, lambda x: hg.var(x, axis=0), lambda x: jnp.var(x, axis=0),
         lambda x: np.var(x, axis=0), _nb_var0),
    Case("softmax axis -1", 1, lambda x: hg.softmax(x), lambda x: jax.nn.softmax(x, axis=-1),
         _np_softmax, _nb_softmax),
    Case("matmul", 2, lambda x, y: hg.matmul(x, y), lambda x, y: x @ y, lambda x, y: x @ y,
         _nb_matmul, rtol=1e-3),
]


def _values(case: Case, shape: tuple[int, ...], rng) -> list[np.ndarray]:
    values = [rng.normal(size=shape).astype(np.float32) for _ in range(case.n_inputs)]
    if case.name.startswith("cumprod"):
        # products of many factors near 1 stay finite and nonzero
        values = [(1 + v / shape[0]).astype(np.float32) for v in values]
    return values


def _contenders(case: Case, values: list[np.ndarray]) -> dict[str, Callable[[], object]]:
    xs = [hg.tensor(f"x{i}", v.shape, str(v.dtype)) for i, v in enumerate(values)]
    compiled = hg.compile(hg.Graph(xs, case.hlograph(*xs))).lower().compile()
    jitted = jax.jit(case.jax)
    device = [jax.device_put(v) for v in values]
    return {
        "hlograph": lambda: compiled(*device, output="device"),
        "jax.jit": lambda: jitted(*device),
        "numpy": lambda: case.numpy(*values),
        "numba": lambda: case.numba(*values),
    }


def _run(fn: Callable[[], object]) -> object:
    out = fn()
    if hasattr(out, "block_until_ready"):
        out.block_until_ready()
    return out


def _time(contenders: dict[str, Callable], repeat: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for fn in contenders.values():  # warm up: compiled, caches filled
        _run(fn)
    for _ in range(repeat):
        for name, fn in contenders.items():
            start = time.perf_counter()
            _run(fn)
            times[name].append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=2048, help="inputs are float32[size, size] (default 2048)")
    p.add_argument("--ops", default="", help="comma-separated op names to run (default: all); "
                   "matched as prefixes of: " + ", ".join(c.name for c in CASES))
    p.add_argument("--repeat", type=int, default=15, help="interleaved runs per contender")
    args = p.parse_args(argv)
    wanted = [w.strip() for w in args.ops.split(",") if w.strip()]
    cases = [c for c in CASES if not wanted or any(c.name.startswith(w) for w in wanted)]
    if not cases:
        raise SystemExit(f"no op matches {args.ops!r}")
    shape = (args.size, args.size)
    rng = np.random.default_rng(0)

    print(f"float32[{args.size}, {args.size}] on {jax.devices()[0].platform} (jax/jaxlib {jax.__version__}, "
          f"numba {numba.__version__}, numpy {np.__version__}); {args.repeat} interleaved runs; "
          f"ratio = hlograph / the best of the others, by median and by fastest run")
    names = ["hlograph", "jax.jit", "numpy", "numba"]
    print(f"{'op':16s} " + " ".join(f"{n + ' ms':>12s}" for n in names)
          + f" {'best other':>11s} {'ratio':>7s} {'fastest':>8s} {'ratio':>7s}")
    for case in cases:
        values = _values(case, shape, rng)
        contenders = _contenders(case, values)
        expected = np.asarray(case.numpy(*values), np.float64)
        for name, fn in contenders.items():
            got = np.asarray(_run(fn), np.float64)
            if got.shape != expected.shape or not np.allclose(got, expected, rtol=case.rtol,
                                                              atol=case.rtol * np.abs(expected).max()):
                raise SystemExit(f"{case.name}: {name} computed a different result than NumPy")
        times = _time(contenders, args.repeat)
        med = {n: statistics.median(t) * 1e3 for n, t in times.items()}
        low = {n: min(t) * 1e3 for n, t in times.items()}
        best = min(names[1:], key=lambda n: med[n])
        best_low = min(names[1:], key=lambda n: low[n])
        print(f"{case.name:16s} " + " ".join(f"{med[n]:12.3f}" for n in names)
              + f" {best:>11s} {med['hlograph'] / med[best]:6.2f}x {best_low:>8s} "
              f"{low['hlograph'] / low[best_low]:6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
