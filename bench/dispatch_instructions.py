"""Instructions per call on tiny inputs, hlograph against ``jax.jit``, counted by
valgrind's callgrind: unlike time, the count does not move with the load of a
shared machine, so small differences in per-call cost show.

    python bench/dispatch_instructions.py            # add of two float32[3]
    python bench/dispatch_instructions.py --calls 2000

Each contender runs in its own process under ``valgrind --tool=callgrind``,
counting only inside its C entry point (``PjitFunction_tp_vectorcall`` for
jax.jit, hlograph's ``dispatching_vectorcall``, which calls the same jaxlib
dispatcher), once with ``--calls`` calls and once with ``3 * --calls``; the
difference over ``2 * --calls`` is the count of one call, free of the first
call's work. Outputs stay on the device (``output="device"``) so both sides do
the same work; the Python bytecode of the call site is not counted. Needs
valgrind (about half a minute per run).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

_WORKER = r"""
import os, sys
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax
import numpy as np
import hlograph as hg

who, inputs, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
x = hg.tensor("x", (3,), "float32")
y = hg.tensor("y", (3,), "float32")
compiled = hg.compile(hg.Graph([x, y], x + y)).lower().compile()
jitted = jax.jit(lambda a, b: a + b)
a, b = np.ones(3, np.float32), np.full(3, 2, np.float32)
if inputs == "device":
    a, b = jax.device_put(a), jax.device_put(b)
if who == "jax.jit":
    call = lambda: jitted(a, b)
else:
    call = lambda: compiled(a, b, output="device")
for _ in range(n):
    call()
"""

_ENTRY = {"jax.jit": "*PjitFunction_tp_vectorcall*", "hlograph": "dispatching_vectorcall"}


def _count(worker: str, who: str, inputs: str, calls: int) -> int:
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--toggle-collect={_ENTRY[who]}",
         "--callgrind-out-file=/dev/null", sys.executable, worker, who, inputs, str(calls)],
        capture_output=True, text=True, check=True)
    m = re.search(r"Collected : (\d+)", out.stderr)
    if m is None:
        raise SystemExit(f"callgrind reported no count for {who}:\n{out.stderr[-2000:]}")
    return int(m.group(1))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=1000, help="calls in the shorter run")
    args = p.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    from hlograph.runtime import dispatch
    if dispatch.IMPLEMENTATION != "c":
        raise SystemExit("hlograph's C per-call entry is not built here (see `hlograph info`)")
    with tempfile.TemporaryDirectory() as tmp:
        worker = os.path.join(tmp, "worker.py")
        with open(worker, "w") as f:
            f.write(_WORKER)
        print(f"instructions per call, float32[3] + float32[3], device output "
              f"(callgrind, ({3 * args.calls} - {args.calls}) calls)")
        print(f"{'inputs':7s} {'jax.jit':>9s} {'hlograph':>9s} {'ratio':>7s}")
        for inputs in ("numpy", "device"):
            per_call = {}
            for who in ("jax.jit", "hlograph"):
                short = _count(worker, who, inputs, args.calls)
                long = _count(worker, who, inputs, 3 * args.calls)
                per_call[who] = (long - short) / (2 * args.calls)
            j, h = per_call["jax.jit"], per_call["hlograph"]
            print(f"{inputs:7s} {j:9.0f} {h:9.0f} {h / j:6.3f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
