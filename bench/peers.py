"""hlograph beside its peers on the same workloads, in one run: jax.jit, NumPy and
PyTensor's JAX, NUMBA and C (FAST_RUN) modes.

    python bench/peers.py                         # every workload
    python bench/peers.py --quick                 # smaller chains, fewer rounds
    python bench/peers.py --readme                # also rewrite README's peer table

Workloads (float32 unless said):

- W1 tiny call: ``x + 1`` on float64[3], per call (NumPy arrays in and out);
- W2 elementwise chain: ``0.5*cos(exp(tanh(sin(x)*y + x)) - y)`` on [4M], per call;
- W3 MLP forward: tanh layers 784-512-512-10 on a batch of 256, per call;
- W4 cumulative: cumsum and cumprod along axis 0 of [2048, 2048], per call;
- W5 chains of 1k/5k/10k elementwise ops (sin, cos, add) on [8], from the
  definition to the first result (a new graph each round, caches off);
- W6 warm restart: a 300-layer ``tanh(x @ w)`` chain on [64, 64], from the
  definition to the first result (after the imports) in a fresh process whose cache is
  warm (jax with its persistent compilation cache on, thresholds 0), beside the
  cold time; the note under the table gives warm / cold from the definition and,
  for hlograph, from the built graph to the first result.

Every contender's result is checked against NumPy's (or jax's) before timing.
Per-call times are medians over interleaved rounds of the mean of a batch of
calls, their ratios paired (per round, over jax.jit's time in that round; the
median over rounds: the figure least moved by background load); other ratios
are to jax.jit's median in the same run (lower is better).
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
from typing import Callable

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

PEERS = ("hlograph", "jax.jit", "NumPy", "PyTensor JAX", "PyTensor NUMBA", "PyTensor C")
_PT_MODE = {"PyTensor JAX": "JAX", "PyTensor NUMBA": "NUMBA", "PyTensor C": "FAST_RUN"}
_README_BEGIN, _README_END = "<!-- peers table: begin -->", "<!-- peers table: end -->"


# --- the per-call workloads: builder(library) -> (callable, args) -------------------------------
def _w2(lib, x, y):
    return 0.5 * lib.cos(lib.exp(lib.tanh(lib.sin(x) * y + x)) - y)


def _mlp(lib, x, ws):
    h = x
    for w in ws[:-1]:
        h = lib.tanh(h @ w)
    return h @ ws[-1]


def _cum(lib, x):
    return lib.cumsum(x, axis=0), lib.cumprod(x, axis=0)


def _data(workload: str) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    if workload == "W1":
        return [np.arange(3.0)]
    if workload == "W2":
        n = 4 * 1024 * 1024
        return [rng.uniform(-3, 3, n).astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32)]
    if workload == "W3":
        sizes = (784, 512, 512, 10)
        return [rng.normal(size=(256, 784)).astype(np.float32)] + [
            (rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32) for a, b in zip(sizes[:-1], sizes[1:])]
    if workload == "W4":
        return [rng.uniform(0.5, 1.5, (2048, 2048)).astype(np.float32)]
    raise KeyError(workload)


def _numpy_fn(workload: str) -> Callable:
    return {"W1": lambda x: x + 1.0, "W2": lambda x, y: _w2(np, x, y),
            "W3": lambda x, *ws: _mlp(np, x, ws), "W4": lambda x: _cum(np, x)}[workload]


def _hlograph(workload: str, args) -> Callable:
    import hlograph as hg
    xs = [hg.tensor(f"a{i}", a.shape, a.dtype) for i, a in enumerate(args)]
    out = {"W1": lambda: xs[0] + 1.0, "W2": lambda: _w2(hg, *xs), "W3": lambda: _mlp(hg, xs[0], xs[1:]),
           "W4": lambda: list(_cum(hg, xs[0]))}[workload]()
    return hg.compile(hg.Graph(xs, out))


def _jax(workload: str) -> Callable:
    import jax
    import jax.numpy as jnp
    f = {"W1": lambda x: x + 1.0, "W2": lambda x, y: _w2(jnp, x, y),
         "W3": lambda x, *ws: _mlp(jnp, x, ws), "W4": lambda x: _cum(jnp, x)}[workload]
    jitted = jax.jit(f)

    def call(*a):  # NumPy in and out, as the others
        out = jitted(*a)
        return tuple(np.asarray(o) for o in out) if isinstance(out, tuple) else np.asarray(out)
    return call


def _pytensor(workload: str, mode: str, args) -> Callable:
    import pytensor
    import pytensor.tensor as pt
    xs = [pt.tensor(f"a{i}", shape=(None,) * a.ndim, dtype=str(a.dtype)) for i, a in enumerate(args)]
    out = {"W1": lambda: xs[0] + 1.0, "W2": lambda: _w2(pt, *xs), "W3": lambda: _mlp(pt, xs[0], xs[1:]),
           "W4": lambda: list(_cum(pt, xs[0]))}[workload]()
    fn = pytensor.function(xs, out, mode=mode)

    def call(*a):
        o = fn(*a)
        return tuple(np.asarray(v) for v in o) if isinstance(o, list) else np.asarray(o)
    return call


def _contenders(workload: str, peers) -> dict[str, tuple[Callable, list]]:
    args = _data(workload)
    out = {}
    for p in peers:
        if p == "hlograph":
            out[p] = _hlograph(workload, args)
        elif p == "jax.jit":
            out[p] = _jax(workload)
        elif p == "NumPy":
            out[p] = _numpy_fn(workload)
        else:
            out[p] = _pytensor(workload, _PT_MODE[p], args)
    ref = _numpy_fn(workload)(*args)
    refs = ref if isinstance(ref, tuple) else (ref,)
    for p, fn in out.items():
        got = fn(*args)
        got = got if isinstance(got, (tuple, list)) else (got,)
        for g, r in zip(got, refs):
            if np.shape(g) != np.shape(r) or not np.allclose(g, r, rtol=2e-3, atol=2e-3, equal_nan=True):
                raise SystemExit(f"error: {p} differs from NumPy on {workload}")
    return {p: (fn, args) for p, fn in out.items()}


def per_call(workload: str, peers, repeat: int) -> dict[str, float]:
    fns = _contenders(workload, peers)
    first = {}
    for p, (fn, args) in fns.items():
        t0 = time.perf_counter()
        fn(*args)
        first[p] = time.perf_counter() - t0
    number = int(min(5000, max(2, 0.1 / max(max(first.values()), 1e-7))))
    times: dict[str, list[float]] = {p: [] for p in fns}
    order = list(fns)
    shuffle = np.random.default_rng(0)
    for r in range(repeat):
        # a new order each round: threads left spinning by one contender slow down the
        # next one (a rotation would keep every contender behind the same neighbour)
        for p in shuffle.permutation(order):
            fn, args = fns[p]
            time.sleep(0.05)  # and the threads of the one before go idle
            t0 = time.perf_counter()
            for _ in range(number):
                fn(*args)
            times[p].append((time.perf_counter() - t0) / number)
    out = {p: statistics.median(t) for p, t in times.items()}
    # paired: per round, the time over jax.jit's in the same round, the median over rounds
    out["paired"] = {p: statistics.median(a / b for a, b in zip(t, times["jax.jit"])) for p, t in times.items()}
    return out


# --- W5: chains, definition -> first result ------------------------------------------------------
def _chain(lib, x, n: int, salt: float):
    v = x
    for i in range(n):
        k = i % 3
        v = lib.sin(v) if k == 0 else lib.cos(v) if k == 1 else v + x * (1.0 + salt)
    return v


def chain_first_result(n: int, peers, repeat: int) -> dict[str, float]:
    os.environ["HLOGRAPH_CACHE_DIR"] = "off"
    # the imports happen before any clock starts (``--workloads W5`` alone would time them)
    if "hlograph" in peers:
        import hlograph  # noqa: F401
    if "jax.jit" in peers:
        import jax  # noqa: F401
    if any(p.startswith("PyTensor") for p in peers):
        import pytensor  # noqa: F401
    x = np.linspace(-1, 1, 8).astype(np.float32)
    times: dict[str, list[float]] = {p: [] for p in peers}
    for r in range(repeat):
        salt = 1e-7 * (r + 1) + (time.time() % 1) * 1e-9  # a new graph each round: no cache
        ref = _chain(np, x, n, salt)
        for p in peers:
            t0 = time.perf_counter()
            if p == "hlograph":
                import hlograph as hg
                xv = hg.tensor("x", (8,), "float32")
                got = hg.compile(hg.Graph([xv], _chain(hg, xv, n, salt)))(x)
            elif p == "jax.jit":
                import jax
                import jax.numpy as jnp
                got = np.asarray(jax.jit(lambda v: _chain(jnp, v, n, salt))(x))
            elif p == "NumPy":
                got = _chain(np, x, n, salt)
            else:
                import pytensor
                import pytensor.tensor as pt
                xv = pt.vector("x", dtype="float32")
                got = np.asarray(pytensor.function([xv], _chain(pt, xv, n, salt), mode=_PT_MODE[p])(x))
            times[p].append(time.perf_counter() - t0)
            if not np.allclose(got, ref, rtol=1e-3, atol=1e-4):
                raise SystemExit(f"error: {p} differs from NumPy on the {n}-op chain")
    return {p: statistics.median(t) for p, t in times.items()}


# --- W6: warm restart, in fresh processes --------------------------------------------------------
_LAYERS, _WIDTH = 300, 64


def _child(side: str, cache: str) -> None:
    # the clock starts after the imports: from the definition to the first result
    if side == "hlograph":
        os.environ["HLOGRAPH_CACHE_DIR"] = cache
        import hlograph as hg
    else:
        import jax
        import jax.numpy as jnp
    rng = np.random.default_rng(0)
    x = rng.normal(size=(_WIDTH, _WIDTH)).astype(np.float32)
    w = (rng.normal(size=(_WIDTH, _WIDTH)) / np.sqrt(_WIDTH)).astype(np.float32)
    t0 = time.perf_counter()
    if side == "hlograph":
        xv, wv = hg.tensor("x", x.shape, "float32"), hg.tensor("w", w.shape, "float32")
        h = xv
        for _ in range(_LAYERS):
            h = hg.tanh(h @ wv)
        built = time.perf_counter()
        out = hg.compile(hg.Graph([xv, wv], h))(x, w)
    else:
        jax.config.update("jax_compilation_cache_dir", cache)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)

        def f(x, w):
            h = x
            for _ in range(_LAYERS):
                h = jnp.tanh(h @ w)
            return h
        out = np.asarray(jax.jit(f)(x, w))
        built = t0  # jax builds its graph (the trace) inside jit's first call
    done = time.perf_counter()
    print(json.dumps({"seconds": done - t0, "from_built": done - built, "checksum": float(np.sum(out))}))


def warm_restart(peers, repeat: int) -> dict[str, tuple[float, float, float, float]]:
    """Per side: the medians of (cold, warm) from the definition to the first result and
    of (cold, warm) from the built graph to the first result."""
    out = {}
    for side in [p for p in ("hlograph", "jax.jit") if p in peers]:
        times: list[list[float]] = [[], [], [], []]
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as cache:
                runs = []
                for _ in range(2):
                    proc = subprocess.run([sys.executable, __file__, "--child", side, cache],
                                          capture_output=True, text=True, check=True)
                    runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
                for i, (run, key) in enumerate([(0, "seconds"), (1, "seconds"), (0, "from_built"),
                                                (1, "from_built")]):
                    times[i].append(runs[run][key])
        out[side] = tuple(statistics.median(t) for t in times)
    return out


# --- the table ---------------------------------------------------------------------------------------
def _fmt(t: float | None) -> str:
    if t is None:
        return "-"
    if t >= 1.0:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.2f} ms"
    return f"{t * 1e6:.1f} us"


def _table(rows: list[tuple[str, dict[str, float]]], peers) -> str:
    head = "| workload | " + " | ".join(peers) + " |"
    lines = [head, "|" + "---|" * (len(peers) + 1)]
    for name, r in rows:
        ref = r.get("jax.jit")
        paired = r.get("paired", {})
        cells = []
        for p in peers:
            t = r.get(p)
            if t is None:
                cells.append("-")
            elif ref and p != "jax.jit":
                cells.append(f"{_fmt(t)} ({paired.get(p, t / ref):.2f}x)")
            else:
                cells.append(_fmt(t))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _write_readme(table: str, note: str) -> None:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "README.md")
    text = open(path).read()
    if _README_BEGIN not in text or _README_END not in text:
        raise SystemExit(f"error: README.md has no {_README_BEGIN} ... {_README_END} block")
    head, rest = text.split(_README_BEGIN, 1)
    _, tail = rest.split(_README_END, 1)
    with open(path, "w") as f:
        f.write(f"{head}{_README_BEGIN}\n{note}\n\n{table}\n{_README_END}{tail}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--peers", default=",".join(PEERS), help=f"comma-separated, of {', '.join(PEERS)}")
    p.add_argument("--workloads", default="W1,W2,W3,W4,W5,W6")
    p.add_argument("--chains", default="1000,5000,10000", help="W5 chain lengths")
    p.add_argument("--pytensor-chains", type=int, default=1000,
                   help="longest W5 chain PyTensor's modes build (their compile grows fast)")
    p.add_argument("--repeat", type=int, default=7, help="interleaved rounds of per-call timing")
    p.add_argument("--quick", action="store_true", help="chains of 300 and 1000, 3 rounds")
    p.add_argument("--readme", action="store_true", help="rewrite README's peer table")
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        _child(*a.child)
        return
    peers = [x for x in a.peers.split(",") if x]
    if "jax.jit" not in peers:
        raise SystemExit("error: jax.jit is the reference of every ratio; keep it in --peers")
    chains = [300, 1000] if a.quick else [int(n) for n in a.chains.split(",")]
    repeat = 3 if a.quick else a.repeat
    loads = [os.getloadavg()[0]]
    rows: list[tuple[str, dict[str, float]]] = []
    names = {"W1": "W1 tiny call (float64[3])", "W2": "W2 elementwise chain [4M]",
             "W3": "W3 MLP forward 784-512-512-10, batch 256", "W4": "W4 cumsum+cumprod [2048,2048] axis 0"}
    wl = a.workloads.split(",")
    for w in ("W1", "W2", "W3", "W4"):
        if w in wl:
            rows.append((names[w], per_call(w, peers, repeat)))
            print(_table(rows[-1:], peers).splitlines()[-1], flush=True)
    if "W5" in wl:
        for n in chains:
            ps = [x for x in peers if not x.startswith("PyTensor") or n <= a.pytensor_chains]
            rows.append((f"W5 {n}-op chain, definition -> first result",
                         chain_first_result(n, ps, min(repeat, 3))))
            print(_table(rows[-1:], peers).splitlines()[-1], flush=True)
    if "W6" in wl:
        wr = warm_restart(peers, 1 if a.quick else 3)
        rows.append((f"W6 {_LAYERS}-layer chain, fresh process, cold", {k: v[0] for k, v in wr.items()}))
        rows.append((f"W6 {_LAYERS}-layer chain, fresh process, warm cache", {k: v[1] for k, v in wr.items()}))
    loads.append(os.getloadavg()[0])
    table = _table(rows, peers)
    print()
    print(table)
    note = (f"Measured by `python bench/peers.py` on {os.cpu_count()} cores (load average "
            f"{min(loads):.1f}-{max(loads):.1f}); times with their ratio to jax.jit in the same run.")
    if "W6" in wl and "hlograph" in wr:
        cold, warm, cold_built, warm_built = wr["hlograph"]
        note += (f" W6 warm / cold: hlograph {warm / cold:.2f}x from the definition, "
                 f"{warm_built / cold_built:.2f}x from the built graph ({_fmt(warm_built)} / "
                 f"{_fmt(cold_built)})")
        if "jax.jit" in wr:
            note += f"; jax.jit {wr['jax.jit'][1] / wr['jax.jit'][0]:.2f}x"
        note += "."
    print(note)
    if a.readme:
        _write_readme(table, note)


if __name__ == "__main__":
    main()
