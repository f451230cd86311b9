"""A data-parallel MLP training step on 1, 2, 4 and 8 devices: hlograph
(``hg.compile(graph, mesh=..., in_shardings=..., out_shardings=...)``) against
``jax.jit`` with the same shardings, in one run.

    python bench/spmd_mlp.py                          # batch 1024, 128 -> 256 -> 16
    python bench/spmd_mlp.py --batch 4096 --hidden 1024 --devices 1,2,4,8

The step is a 2-layer tanh MLP on a mean squared error with hand-written
gradients and an SGD update, built from hlograph ops on one side and jax.numpy
on the other. The batch (x, y) is split over the mesh axis "batch"; the
parameters are replicated; XLA's SPMD partitioner inserts the gradient
all-reduces. The devices are virtual CPU devices
(``jax_num_cpu_devices``) sharing this machine's cores, so the time does not
drop with more devices as it would on real accelerators: the table compares
the two systems at each mesh size. Both sides take device arrays already laid
out as their shardings say and return device arrays; both results are checked
against each other before timing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import timeit

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402

jax.config.update("jax_num_cpu_devices", 8)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec  # noqa: E402

import hlograph as hg  # noqa: E402
from hlograph.testing import mlp_step_graph  # noqa: E402
from hlograph.runtime.mesh import P, make_mesh  # noqa: E402

LR = 0.1


def jax_mlp_step(x, y, w1, b1, w2, b2):
    batch, n_out = y.shape
    h = jnp.tanh(x @ w1 + b1)
    err = h @ w2 + b2 - y
    loss = jnp.mean(err * err)
    d_out = err * (2.0 / (batch * n_out))
    g_w2 = h.T @ d_out
    g_b2 = d_out.sum(0)
    d_h = (d_out @ w2.T) * (1 - h * h)
    g_w1 = x.T @ d_h
    g_b1 = d_h.sum(0)
    return loss, w1 - LR * g_w1, b1 - LR * g_b1, w2 - LR * g_w2, b2 - LR * g_b2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--inputs", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--outputs", type=int, default=16)
    ap.add_argument("--devices", default="1,2,4,8", help="mesh sizes, comma-separated")
    ap.add_argument("--number", type=int, default=20, help="calls per timing run")
    ap.add_argument("--repeat", type=int, default=7, help="timing runs, interleaved")
    args = ap.parse_args()

    b, n_in, n_h, n_out = args.batch, args.inputs, args.hidden, args.outputs
    rng = np.random.default_rng(0)
    shapes = [(b, n_in), (b, n_out), (n_in, n_h), (n_h,), (n_h, n_out), (n_out,)]
    host = [(rng.standard_normal(s) * 0.5).astype(np.float32) for s in shapes]
    graph = mlp_step_graph(b, n_in, n_h, n_out)
    data, rep = P("batch"), P()
    in_specs = [data, data, rep, rep, rep, rep]
    out_specs = [rep] * 5

    print(f"MLP step, batch {b}, {n_in} -> {n_h} -> {n_out}, float32; batch split over the mesh; "
          f"ms per step (median of {args.repeat} runs of {args.number} calls; best in brackets)")
    print(f"{'devices':>8} {'hlograph':>16} {'jax.jit':>16} {'ratio':>7}")
    for n in [int(s) for s in args.devices.split(",")]:
        mesh = make_mesh((n,), ("batch",))
        fn = hg.compile(graph, mesh=mesh, in_shardings=in_specs, out_shardings=out_specs)
        jshard = [NamedSharding(mesh.jax_mesh, PartitionSpec(*s)) for s in in_specs]
        jitted = jax.jit(jax_mlp_step, in_shardings=tuple(jshard),
                         out_shardings=(NamedSharding(mesh.jax_mesh, PartitionSpec()),) * 5)
        dev = [jax.device_put(v, s) for v, s in zip(host, jshard)]
        ours = fn(*dev, output="device")
        theirs = jitted(*dev)
        for a, r in zip(ours, theirs):
            np.testing.assert_allclose(np.asarray(a), np.asarray(r), rtol=1e-4, atol=1e-5)

        def run_hg():
            jax.block_until_ready(fn(*dev, output="device"))

        def run_jax():
            jax.block_until_ready(jitted(*dev))

        times: dict[str, list[float]] = {"hg": [], "jax": []}
        for _ in range(args.repeat):
            times["hg"].append(timeit.timeit(run_hg, number=args.number) / args.number)
            times["jax"].append(timeit.timeit(run_jax, number=args.number) / args.number)
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        best = {k: min(v) * 1e3 for k, v in times.items()}
        print(f"{n:>8} {med['hg']:>8.3f} [{best['hg']:.3f}] {med['jax']:>8.3f} [{best['jax']:.3f}] "
              f"{med['hg'] / med['jax']:>6.2f}x")


if __name__ == "__main__":
    main()
