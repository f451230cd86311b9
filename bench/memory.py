"""Memory while compiling many distinct graphs: resident set size after every
100 of ``--graphs`` tiny graphs (each compiled and called once, then dropped).

    python bench/memory.py --graphs 1000

The executables stay in the bounded in-memory LRU cache (512 entries) and the
MLIR context of each module is freed with it, so the RSS levels off once the
cache is full. The on-disk cache is off for this run.
"""

from __future__ import annotations

import argparse
import gc
import os
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["HLOGRAPH_CACHE_DIR"] = "off"

import numpy as np  # noqa: E402

import hlograph as hg  # noqa: E402
from hlograph.xla.mlir import ir  # noqa: E402
from hlograph.runtime import executable  # noqa: E402


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=1000)
    args = parser.parse_args(argv)
    values = np.ones(3, np.float32)
    print(f"{'graphs':>7} {'RSS MiB':>8} {'executables':>12} {'MLIR contexts':>14} {'ms/graph':>9}")
    t0 = time.perf_counter()
    for i in range(args.graphs):
        x = hg.tensor("x", (3,), "float32")
        fn = hg.compile(hg.Graph([x], x * float(i) + 1.0))
        if fn(values)[0] != i + 1:
            raise SystemExit(f"graph {i} computed a wrong result")
        del fn
        if (i + 1) % 100 == 0:
            gc.collect()
            ms = (time.perf_counter() - t0) / (i + 1) * 1e3
            print(f"{i + 1:>7} {_rss_mib():>8.0f} {executables.cache_size():>12} "
                  f"{ir.Context._get_live_count():>14} {ms:>9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
