"""XLA:CPU's YNNPACK dot fusions on and off, over a grid of dot sizes, in one run.

    python bench/xla_policy.py                        # the default grid
    python bench/xla_policy.py --sizes 16,512 --chains 1,100 --repeat 5
    python bench/xla_policy.py --fresh --sizes 8,32,64 --chains 1,2,4 --dtypes float32 --batch 0

XLA:CPU hands dots to YNNPACK fusions unless the compile options override
``xla_cpu_experimental_ynn_fusion_type`` with "". Each module is a chain of
``x = tanh(x @ w_i)`` (one weight argument per dot) with m = n = k
(``--batch``: a batched dot_general with a leading batch dimension of 4 as
well). For every grid point both settings are
compiled from scratch and timed in interleaved repeats: the first execution
(after compiling; YNNPACK sets up each dot then) and the steady per-call
median. The table shows medians over the repeats, the off/on ratios, and the
setting ``hlograph.xla.pjrt.ynn_fusion_wanted`` picks for the module (the
policy ``runtime.compile_bytecode`` applies). Points whose steady work exceeds
``--max-flops`` per call are left out. ``--fresh`` compiles and runs each
measurement in a new process, as a process restarting from the cache does: its
first execution then includes what XLA:CPU sets up once per process (oneDNN's
kernel generation for XLA's own dot kernels).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

from hlograph.testing import product_chain_text  # noqa: E402
from hlograph.xla import mlir, pjrt  # noqa: E402


def module_text(m: int, dtype: str, chain: int, batch: bool) -> str:
    et = {"float32": "f32", "float64": "f64"}[dtype]
    return product_chain_text(m, chain, element=et, batch=4 if batch else None)


def _bytecode(text: str):
    with mlir.make_context() as ctx:
        module = mlir.ir.Module.parse(text, ctx)
        return mlir.module_to_bytecode(module), mlir.dot_shapes(module)


def _steady(loaded, bufs, budget: float, max_calls: int) -> float:
    times = []
    start = time.perf_counter()
    while len(times) < max_calls and (len(times) < 5 or time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        out = pjrt.execute(loaded, bufs)
        out[0].block_until_ready()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(client, device, bytecode: bytes, args, ynn: bool, budget: float):
    """(compile s, first execution s, steady median s, result) of one fresh compile."""
    options = pjrt.compile_options(device, ynn_fusion=ynn)
    t0 = time.perf_counter()
    loaded = pjrt.compile_and_load(client, bytecode, [device], options)
    compile_s = time.perf_counter() - t0
    put = [pjrt.device_putter(a.dtype, a.shape, device) for a in args]
    bufs = [p(a) for p, a in zip(put, args)]
    t0 = time.perf_counter()
    out = pjrt.execute(loaded, bufs)
    result = np.asarray(out[0])
    first = time.perf_counter() - t0
    steady = _steady(loaded, bufs, budget, 200)
    return compile_s, first, steady, result


def _point_args(m: int, dtype: str, chain: int, batch: bool, seed: int):
    rng = np.random.default_rng(seed)
    shape = (4, m, m) if batch else (m, m)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    ws = [(rng.uniform(-1, 1, shape) / np.sqrt(m)).astype(dtype) for _ in range(chain)]
    return [x, *ws]


def _child(m: int, dtype: str, chain: int, batch: bool, ynn: bool, budget: float) -> None:
    """One measurement in this (new) process, printed as JSON."""
    client = pjrt.get_backend("cpu")
    device = client.local_devices()[0]
    bytecode, _ = _bytecode(module_text(m, dtype, chain, batch))
    c, f, st, result = measure(client, device, bytecode, _point_args(m, dtype, chain, batch, m), ynn, budget)
    print(json.dumps({"compile": c, "first": f, "steady": st, "result": result.ravel()[:64].tolist()}))


def _fresh_measure(m: int, dtype: str, chain: int, batch: bool, ynn: bool, budget: float):
    proc = subprocess.run([sys.executable, __file__, "--child", str(m), dtype, str(chain), str(int(batch)),
                           str(int(ynn)), str(budget)], capture_output=True, text=True, check=True)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return out["compile"], out["first"], out["steady"], np.asarray(out["result"])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        m, dtype, chain, batch, ynn, budget = argv[1:7]
        _child(int(m), dtype, int(chain), bool(int(batch)), bool(int(ynn)), float(budget))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="8,16,32,64,128,256,512,1024", help="m = n = k values")
    p.add_argument("--dtypes", default="float32,float64")
    p.add_argument("--chains", default="1,10,100", help="dots per module")
    p.add_argument("--batch", default="0,1", help="0: plain dot, 1: batched (leading dim 4)")
    p.add_argument("--repeat", type=int, default=3, help="interleaved repeats (median shown)")
    p.add_argument("--budget", type=float, default=0.2, help="seconds of steady calls per measurement")
    p.add_argument("--max-flops", type=float, default=4e9, help="skip points with more flops per call")
    p.add_argument("--fresh", action="store_true", help="each measurement in a new process")
    args = p.parse_args(argv)

    client = pjrt.get_backend("cpu")
    device = client.local_devices()[0]
    points = []
    for m, dtype, chain, batch in itertools.product(
            [int(s) for s in args.sizes.split(",")], args.dtypes.split(","),
            [int(c) for c in args.chains.split(",")], [bool(int(b)) for b in args.batch.split(",")]):
        flops = 2.0 * m ** 3 * chain * (4 if batch else 1)
        if flops > args.max_flops:
            continue
        points.append((m, dtype, chain, batch))

    print(f"XLA:CPU dot chains x = tanh(x @ w_i), YNNPACK fusions on/off (jaxlib {pjrt.JAX_VERSION}); "
          f"median of {args.repeat} interleaved repeats" + (", each in a new process" if args.fresh else ""))
    print(f"{'m=n=k':>6s} {'dtype':>8s} {'chain':>5s} {'batch':>5s} | {'first on':>9s} {'first off':>9s} "
          f"{'off/on':>7s} | {'call on':>10s} {'call off':>10s} {'off/on':>7s} | "
          f"{'compile on':>10s} {'off':>8s} | policy")
    for m, dtype, chain, batch in points:
        point_args = _point_args(m, dtype, chain, batch, m)
        bytecode, shapes = _bytecode(module_text(m, dtype, chain, batch))
        res = {True: [], False: []}
        for r in range(args.repeat):
            for ynn in ((True, False) if r % 2 == 0 else (False, True)):
                res[ynn].append(_fresh_measure(m, dtype, chain, batch, ynn, args.budget) if args.fresh
                                else measure(client, device, bytecode, point_args, ynn, args.budget))
        a, b = res[True][0][3], res[False][0][3]
        tol = 1e-4 if dtype == "float32" else 1e-10
        if not np.allclose(a, b, rtol=tol, atol=tol):
            raise SystemExit(f"m={m} {dtype} chain={chain}: results differ with YNNPACK on and off")
        med = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in res.items()}
        (c_on, f_on, s_on), (c_off, f_off, s_off) = med[True], med[False]
        policy = "on" if pjrt.ynn_fusion_wanted(shapes) else "off"
        print(f"{m:6d} {dtype:>8s} {chain:5d} {str(batch):>5s} | {f_on * 1e3:7.2f}ms {f_off * 1e3:7.2f}ms "
              f"{f_off / f_on:6.2f}x | {s_on * 1e6:8.1f}us {s_off * 1e6:8.1f}us {s_off / s_on:6.2f}x | "
              f"{c_on * 1e3:8.1f}ms {c_off * 1e3:6.1f}ms | {policy}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
