"""Host segments against hand-written Numba, and a mixed device/host graph end
to end against what a PyTensor or JAX user can do, in one run.

    python bench/host.py [--size 1000000] [--repeat 7]

1. A host-only graph (boolean mask, then unique) run as an hlograph host segment
   vs the same code written by hand with ``numba.njit``: goal within 1.2x.
2. A mixed graph (exp on the device, boolean mask on the host, a reduction on
   the device) compiled by hlograph vs PyTensor's NUMBA mode, JAX without jit
   (jit cannot run a boolean mask) and NumPy.
3. First-call latency: lowering + XLA compile + Numba compile of the mixed graph.
4. A static-shape host op between device ops (``mask_assign``): the in-module
   host call (an XLA FFI custom call to the Numba code, one executable) vs
   host segments (``HLOGRAPH_HOST_FFI=0``: three parts) vs the same code
   written by hand with ``numba.njit``; and the first-call latency of both,
   in this process (empty caches) and in a new process that finds the
   executables and the Numba wrappers of the first on disk.
(cumsum along axis 0, which runs as an in-module Numba loop on the CPU, is in
bench/ops.py.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

import hlograph as hg


def best_of(fn, repeat: int, number: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def host_segment_vs_numba(size: int, repeat: int) -> list[tuple[str, float]]:
    import numba

    rng = np.random.default_rng(0)
    x = rng.integers(0, size // 10, size).astype(np.int64)
    mask = rng.random(size) < 0.5

    xv = hg.tensor("x", (size,), "int64")
    mv = hg.tensor("m", (size,), "bool")
    fn = hg.compile(hg.Graph([xv, mv], hg.unique(hg.boolean_mask(xv, mv))))
    fn(x, mask)

    @numba.njit(cache=True)
    def by_hand(x, mask):
        return np.unique(x[mask])

    by_hand(x, mask)
    np.testing.assert_array_equal(fn(x, mask), by_hand(x, mask))
    t_hg = best_of(lambda: fn(x, mask), repeat, 5)
    t_nb = best_of(lambda: by_hand(x, mask), repeat, 5)
    t_np = best_of(lambda: np.unique(x[mask]), repeat, 5)
    return [("hlograph host segment", t_hg), ("numba.njit by hand", t_nb), ("NumPy", t_np)]


def mixed_graph(size: int, repeat: int) -> tuple[list[tuple[str, float]], float]:
    rng = np.random.default_rng(1)
    x = rng.normal(size=size)

    xv = hg.tensor("x", (size,), "float64")
    y = hg.exp(xv)
    out = hg.sum(hg.boolean_mask(y, y > 1.5) ** 2)
    t0 = time.perf_counter()
    fn = hg.compile(hg.Graph([xv], out))
    ref = fn(x)
    first_call = time.perf_counter() - t0

    def numpy_version():
        e = np.exp(x)
        return np.sum(e[e > 1.5] ** 2)

    rows = [("hlograph (device + host + device)", best_of(lambda: fn(x), repeat, 5)),
            ("NumPy", best_of(numpy_version, repeat, 5))]
    np.testing.assert_allclose(ref, numpy_version(), rtol=1e-9)

    try:
        import jax
        import jax.numpy as jnp

        with jax.enable_x64(True):
            xj = jnp.asarray(x)

            def jax_eager():
                e = jnp.exp(xj)
                return np.asarray(jnp.sum(e[e > 1.5] ** 2))

            np.testing.assert_allclose(jax_eager(), ref, rtol=1e-9)
            rows.append(("jax without jit (eager)", best_of(jax_eager, repeat, 5)))
    except Exception as e:  # noqa: BLE001 - a peer that cannot run is reported, not fatal
        rows.append((f"jax eager: {type(e).__name__}: {e}", float("nan")))

    try:
        import pytensor
        import pytensor.tensor as pt

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            xt = pt.dvector("x")
            et = pt.exp(xt)
            ft = pytensor.function([xt], pt.sum(et[et > 1.5] ** 2), mode="NUMBA")
            ft(x)
        np.testing.assert_allclose(ft(x), ref, rtol=1e-9)
        rows.append(("PyTensor NUMBA mode", best_of(lambda: ft(x), repeat, 5)))
    except Exception as e:  # noqa: BLE001
        rows.append((f"PyTensor: {type(e).__name__}: {e}", float("nan")))
    return rows, first_call


def _with_host_calls(on: bool, build):
    """``build()`` with in-module host calls on or off (the switch is read when lowering)."""
    old = os.environ.get("HLOGRAPH_HOST_FFI")
    os.environ["HLOGRAPH_HOST_FFI"] = "1" if on else "0"
    try:
        return build()
    finally:
        if old is None:
            del os.environ["HLOGRAPH_HOST_FFI"]
        else:
            os.environ["HLOGRAPH_HOST_FFI"] = old


def in_module_host_call(size: int, repeat: int) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """sum((exp(x) with the entries > 1.5 set to 0) ** 2): mask_assign between device ops."""
    import numba

    from hlograph.runtime.host import impls  # noqa: F401 - Numba and the host kernels, loaded for both

    rng = np.random.default_rng(2)
    x = rng.normal(size=size)
    xv = hg.tensor("x", (size,), "float64")
    y = hg.exp(xv)
    graph = hg.Graph([xv], hg.sum(hg.mask_assign(y, y > 1.5, 0.0) ** 2))

    def first_call(on: bool):
        t0 = time.perf_counter()
        fn = _with_host_calls(on, lambda: hg.compile(graph))
        compiled = _with_host_calls(on, lambda: fn.lower().compile())
        compiled(x)
        return compiled, time.perf_counter() - t0

    ffi_fn, ffi_first = first_call(True)
    seg_fn, seg_first = first_call(False)
    assert ffi_fn.__class__.__name__ == "Compiled"  # one executable, no segments

    @numba.njit(cache=True)
    def by_hand(x):
        total = 0.0
        for i in range(x.shape[0]):
            e = np.exp(x[i])
            if e <= 1.5:
                total += e * e
        return total

    def numpy_version():
        e = np.exp(x)
        e[e > 1.5] = 0.0
        return np.sum(e ** 2)

    ref = numpy_version()
    for f in (ffi_fn, seg_fn, by_hand):
        np.testing.assert_allclose(f(x), ref, rtol=1e-9)
    rows = [("hlograph in-module host call (FFI)", best_of(lambda: ffi_fn(x), repeat, 5)),
            ("hlograph host segments", best_of(lambda: seg_fn(x), repeat, 5)),
            ("numba.njit by hand", best_of(lambda: by_hand(x), repeat, 5)),
            ("NumPy", best_of(numpy_version, repeat, 5))]
    return rows, [("in-module host call", ffi_first), ("host segments", seg_first)]


_NEW_PROCESS = """
import os, sys, time
import numpy as np
import hlograph as hg
from hlograph.runtime.host import impls  # Numba and the host kernels, loaded before timing
size = int(sys.argv[1])
x = np.random.default_rng(2).normal(size=size)
t0 = time.perf_counter()
xv = hg.tensor("x", (size,), "float64")
y = hg.exp(xv)
graph = hg.Graph([xv], hg.sum(hg.mask_assign(y, y > 1.5, 0.0) ** 2))
hg.compile(graph).lower().compile()(x)
print(time.perf_counter() - t0)
"""


def first_call_in_new_process(on: bool, size: int) -> float:
    """The first call of ``in_module_host_call``'s graph in a new Python process that
    shares this one's cache directory (its executables and Numba wrappers)."""
    env = dict(os.environ, HLOGRAPH_HOST_FFI="1" if on else "0")
    out = subprocess.run([sys.executable, "-c", _NEW_PROCESS, str(size)], env=env,
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def table(title: str, rows: list[tuple[str, float]]) -> None:
    base = rows[0][1]
    print(f"\n{title}")
    print(f"{'':40s} {'ms':>10s} {'hlograph / this':>16s}")
    for name, t in rows:
        print(f"{name:40s} {t * 1e3:10.3f} {base / t:16.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    # first calls start from empty caches (executables, Numba wrappers), shared with
    # the new processes of the restart figures
    os.environ["HLOGRAPH_CACHE_DIR"] = tempfile.mkdtemp(prefix="hlograph-bench-cache-")
    table(f"host-only graph: unique(x[mask]), int64[{args.size}]", host_segment_vs_numba(args.size, args.repeat))
    rows, first = mixed_graph(args.size, args.repeat)
    table(f"mixed graph: sum(exp(x)[exp(x) > 1.5] ** 2), float64[{args.size}]", rows)
    print(f"\nfirst call of the mixed graph (lower + XLA compile + Numba compile): {first * 1e3:.0f} ms")
    for size in (args.size, 1000):  # the second size reuses the Numba code: one wrapper per rank
        rows, firsts = in_module_host_call(size, args.repeat)
        table(f"static-shape host op: sum(mask_assign(exp(x), exp(x) > 1.5, 0) ** 2), float64[{size}]", rows)
        for name, t in firsts:
            print(f"first call, {name} (lower + XLA compile + Numba compile): {t * 1e3:.0f} ms")
        for name, on in (("in-module host call", True), ("host segments", False)):
            t = first_call_in_new_process(on, size)
            print(f"first call, {name}, new process, caches on disk: {t * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
