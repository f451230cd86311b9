"""Long runs of the differential fuzzer against NumPy (hlograph/testing/fuzz.py).

    python bench/fuzz_numpy.py --graphs 5000 --seed 1
    python bench/fuzz_numpy.py --graphs 500 --seed 7 --subnormals --steps 4

Each random program is built with hlograph's builders and as plain NumPy calls,
runs through ``hg.evaluate`` and compiled at O0 and O2, and every result is
compared with NumPy's. Each failure is printed shrunk to the one or two ops that
still fail (``--no-shrink`` prints the whole program), followed by a summary by
failing op. Exits 1 when anything failed, 0 otherwise. ``--subnormals`` adds
subnormal inputs, which XLA:CPU flushes to zero (a documented difference: see
README.md, "NumPy semantics: the documented differences"); a compiled result that
equals NumPy's run with every subnormal flushed is no failure.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

from hlograph.testing import fuzz  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=1000, help="random programs to run (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first program (default 0)")
    parser.add_argument("--steps", type=int, default=3, help="most ops per program (default 3)")
    parser.add_argument("--ops", default="", help="comma-separated op names to draw from (default all)")
    parser.add_argument("--dtypes", default="", help="comma-separated dtypes (default all)")
    parser.add_argument("--subnormals", action="store_true", help="also draw subnormal inputs")
    parser.add_argument("--no-shrink", action="store_true", help="print failing programs whole")
    args = parser.parse_args(argv)
    if args.graphs < 1 or args.steps < 1:
        parser.error("--graphs and --steps must be positive")
    specs = fuzz.SPECS
    if args.ops:
        names = args.ops.split(",")
        unknown = [n for n in names if n not in {s.name for s in fuzz.SPECS}]
        if unknown:
            parser.error(f"unknown ops: {', '.join(unknown)} (known: {', '.join(s.name for s in fuzz.SPECS)})")
        specs = tuple(s for s in fuzz.SPECS if s.name in names)
    dtypes = fuzz.DTYPES
    if args.dtypes:
        try:
            wanted = {np.dtype(d) for d in args.dtypes.split(",")}
        except TypeError as e:
            parser.error(f"--dtypes: {e}")
        dtypes = tuple(d for d in fuzz.DTYPES if d in wanted)
        if not dtypes:
            parser.error(f"--dtypes: none of {args.dtypes} is fuzzed (known: {', '.join(map(str, fuzz.DTYPES))})")
    start = time.perf_counter()
    by_op: collections.Counter = collections.Counter()
    n = 0
    try:
        for failure in fuzz.run(args.graphs, seed=args.seed, n_steps=args.steps,
                                shrink_failures=not args.no_shrink, dtypes=dtypes,
                                subnormals=args.subnormals, specs=specs):
            n += 1
            shown = failure.shrunk or failure.program
            by_op[", ".join(st.name for st in shown.steps)] += 1
            print(f"--- failure {n}\n{failure.describe()}\n", flush=True)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    elapsed = time.perf_counter() - start
    print(f"{args.graphs} programs (seed {args.seed}) in {elapsed:.1f} s: {n} failures")
    for ops, count in by_op.most_common():
        print(f"  {count:5d}  {ops}")
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main())
