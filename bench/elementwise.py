"""Run time of elementwise math on large inputs: hlograph against jax.jit and NumPy.

    python bench/elementwise.py                       # every op, float32 and float64[4M]
    python bench/elementwise.py --ops sin,cos,w2 --dtypes float32 --repeat 31
    python bench/elementwise.py --update-readme       # rewrite README.md's tables

Each op is one graph (hlograph), one jitted function (jax) and one NumPy call
(``scipy.special`` for the special functions). hlograph and jax.jit get device
inputs and return device arrays; NumPy gets NumPy arrays. Every contender's
result is checked against NumPy's before anything is timed. Repetitions are
interleaved across contenders; the table shows each contender's median and
hlograph's ratios to jax.jit's and NumPy's medians (lower is better). The last
row is a chain of ops, ``0.5*cos(exp(tanh(sin(x)*y + x)) - y)`` ("w2").

The accuracy table gives the largest error in ULPs of hlograph, NumPy and jax.jit
(XLA's own lowering) for the functions with CPU lowerings of their own
(lowering/rules/fast_math.py), against a float64 reference for float32 and an
``np.longdouble`` one for float64, over the inputs tests/lowering/test_fast_math.py
uses.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

import jax.nn as jnn  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402
import numpy as np  # noqa: E402
import scipy.special as sp  # noqa: E402

import hlograph as hg  # noqa: E402


@dataclass
class Case:
    name: str
    hlograph: Callable  # builds the graph output from input Variables
    jax: Callable
    numpy: Callable
    domain: tuple[tuple[float, float], ...]  # (low, high) per input


def _u(name, lo, hi, npf=None, jf=None):
    return Case(name, getattr(hg, name), jf or getattr(jnp, name), npf or getattr(np, name), ((lo, hi),))


def _s(name, lo, hi):  # a special function: scipy.special / jax.scipy.special
    return Case(name, getattr(hg, name), getattr(jsp, name), getattr(sp, name), ((lo, hi),))


def _b(name, dx, dy, npf=None, jf=None):
    return Case(name, getattr(hg, name), jf or getattr(jnp, name), npf or getattr(np, name), (dx, dy))


def _w2(hgm, x, y):
    return 0.5 * hgm.cos(hgm.exp(hgm.tanh(hgm.sin(x) * y + x)) - y)


CASES = [
    _b("add", (-10, 10), (-10, 10)),
    _b("multiply", (-10, 10), (-10, 10)),
    _b("divide", (-10, 10), (1, 10)),
    _u("square", -10, 10),
    _u("sqrt", 0, 100),
    _u("rsqrt", 0.01, 100, npf=lambda x: 1 / np.sqrt(x), jf=jax.lax.rsqrt),
    _u("cbrt", -100, 100),
    _u("exp", -10, 10),
    _u("exp2", -10, 10),
    _u("expm1", -5, 5),
    _u("log", 0.01, 100),
    _u("log2", 0.01, 100),
    _u("log10", 0.01, 100),
    _u("log1p", -0.5, 100),
    _u("sin", -40, 40),
    _u("cos", -40, 40),
    _u("tan", -40, 40),
    _u("arcsin", -1, 1),
    _u("arccos", -1, 1),
    _u("arctan", -10, 10),
    _u("sinh", -10, 10),
    _u("cosh", -10, 10),
    _u("tanh", -5, 5),
    _u("arcsinh", -100, 100),
    _u("arccosh", 1, 100),
    _u("arctanh", -0.99, 0.99),
    _u("sigmoid", -10, 10, npf=sp.expit, jf=jnn.sigmoid),
    _u("softplus", -10, 10, npf=lambda x: np.logaddexp(0, x), jf=jnn.softplus),
    _u("erf", -3, 3, npf=sp.erf, jf=jsp.erf),
    _s("erfc", -3, 3),
    _s("erfcx", 0, 10),
    _s("erfinv", -0.99, 0.99),
    _s("gammaln", 0.1, 50),
    _s("digamma", 0.1, 50),
    _s("ndtr", -5, 5),
    _s("ndtri", 0.01, 0.99),
    _s("log_ndtr", -10, 5),
    _s("i0e", -10, 10),
    _s("i1e", -10, 10),
    _b("arctan2", (-10, 10), (-10, 10)),
    _b("power", (0.1, 10), (-3, 3)),
    _b("hypot", (-10, 10), (-10, 10)),
    _b("logaddexp", (-10, 10), (-10, 10)),
    Case("xlogy", hg.xlogy, jsp.xlogy, sp.xlogy, ((0.1, 10), (0.1, 10))),
    Case("w2", lambda x, y: _w2(hg, x, y), lambda x, y: _w2(jnp, x, y), lambda x, y: _w2(np, x, y),
         ((-3, 3), (-3, 3))),
]

#: the functions with CPU lowerings of their own, in the accuracy table
ACCURACY = {"sin": np.sin, "cos": np.cos, "tan": np.tan,
            "arctan": np.arctan, "arcsin": np.arcsin, "arccos": np.arccos}


def _values(case: Case, n: int, dtype: str, rng) -> list[np.ndarray]:
    return [rng.uniform(lo, hi, n).astype(dtype) for lo, hi in case.domain]


def _contenders(case: Case, values: list[np.ndarray]) -> dict[str, Callable[[], object]]:
    xs = [hg.tensor(f"x{i}", v.shape, str(v.dtype)) for i, v in enumerate(values)]
    compiled = hg.compile(hg.Graph(xs, case.hlograph(*xs))).lower().compile()
    jitted = jax.jit(case.jax)
    device = [jax.device_put(v) for v in values]
    return {
        "hlograph": lambda: compiled(*device, output="device"),
        "jax.jit": lambda: jitted(*device),
        "numpy": lambda: case.numpy(*values),
    }


def _run(fn: Callable[[], object]) -> object:
    out = fn()
    if hasattr(out, "block_until_ready"):
        out.block_until_ready()
    return out


def _time(contenders: dict[str, Callable], repeat: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for fn in contenders.values():  # warm up: compiled, caches filled
        _run(fn)
    for _ in range(repeat):
        for name, fn in contenders.items():
            start = time.perf_counter()
            _run(fn)
            times[name].append(time.perf_counter() - start)
    return {n: statistics.median(t) * 1e3 for n, t in times.items()}


def _differs(got, expected, dtype: str) -> bool:
    got, expected = np.asarray(got, np.float64), np.asarray(expected, np.float64)
    rtol = 1e-3 if dtype == "float32" else 1e-9
    scale = np.abs(expected[np.isfinite(expected)]).max()
    return got.shape != expected.shape or not np.allclose(got, expected, rtol=rtol, atol=rtol * scale,
                                                          equal_nan=True)


def _speed_rows(cases, dtypes, n, repeat) -> tuple[list[str], bool]:
    rows, bad = [], False
    rng = np.random.default_rng(0)
    for case in cases:
        for dtype in dtypes:
            values = _values(case, n, dtype, rng)
            contenders = _contenders(case, values)
            with np.errstate(all="ignore"):
                expected = case.numpy(*values)
                wrong = [name for name, fn in contenders.items() if _differs(_run(fn), expected, dtype)]
            if wrong:
                print(f"{case.name} {dtype}: {', '.join(wrong)} computed a different result than NumPy",
                      file=sys.stderr)
                if "hlograph" in wrong:
                    bad = True
                    continue
            with np.errstate(all="ignore"):
                med = _time(contenders, repeat)
            row = (f"| {case.name} | {dtype} | {med['hlograph']:.2f} | {med['jax.jit']:.2f} | {med['numpy']:.2f} "
                   f"| {med['hlograph'] / med['jax.jit']:.2f}x | {med['hlograph'] / med['numpy']:.2f}x |")
            print(row, flush=True)
            rows.append(row)
    return rows, bad


def _ulp(got, ref, dtype) -> float:
    with np.errstate(over="ignore"):
        ref_d = ref.astype(dtype)
    finite = np.isfinite(ref_d)
    spacing = np.spacing(np.abs(ref_d[finite])).astype(np.longdouble)
    return float((np.abs(got[finite].astype(np.longdouble) - ref[finite]) / spacing).max())


def _accuracy_inputs(name: str, dtype: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    if name in ("arctan", "arcsin", "arccos"):  # [-1, 1], near +-1 and 0; arctan: everywhere
        tiny = np.exp(rng.uniform(np.log(1e-30), 0, 100_000))
        parts = [np.linspace(-1, 1, 200_001), rng.uniform(-1, 1, 100_000), tiny, -tiny, 1 - tiny, tiny - 1]
        if name == "arctan":
            big = np.exp(rng.uniform(0, np.log(1e300 if dtype == "float64" else 3e38), 100_000))
            parts += [np.linspace(-10, 10, 200_001), big, -big]
        return np.concatenate([np.asarray(p).astype(dtype) for p in parts])
    limit = 2.0 ** 27
    parts = [np.linspace(-4 * np.pi, 4 * np.pi, 100_001), rng.uniform(-100, 100, 100_000),
             rng.uniform(-limit, limit, 100_000),
             np.copysign(np.exp(rng.uniform(np.log(1e-30), np.log(limit), 100_000)), rng.uniform(-1, 1, 100_000))]
    k = np.unique(np.round(np.exp(rng.uniform(0, np.log(limit / 2), 20_000))))
    mult = (k * (np.pi / 2)).astype(dtype)
    parts += [mult, np.nextafter(mult, np.array(np.inf, dtype)), np.nextafter(mult, np.array(0, dtype))]
    return np.concatenate([np.asarray(p).astype(dtype) for p in parts])


def _accuracy_rows(names, dtypes) -> list[str]:
    rows = []
    for name in names:
        for dtype in dtypes:
            x = _accuracy_inputs(name, dtype)
            with np.errstate(all="ignore"):
                ref = ACCURACY[name](x.astype(np.float64 if dtype == "float32" else np.longdouble))
            v = hg.tensor("x", x.shape, dtype)
            ours = np.asarray(hg.compile(hg.Graph([v], getattr(hg, name)(v)))(x))
            xla = np.asarray(jax.jit(getattr(jnp, name))(x))
            with np.errstate(all="ignore"):
                errors = [_ulp(ours, ref, dtype), _ulp(ACCURACY[name](x), ref, dtype), _ulp(xla, ref, dtype)]
            row = f"| {name} | {dtype} | " + " | ".join(f"{err:.3f}" for err in errors) + " |"
            print(row, flush=True)
            rows.append(row)
    return rows


def _update_readme(block: str) -> None:
    path = Path(__file__).resolve().parent.parent / "README.md"
    text = path.read_text()
    start, end = "<!-- elementwise-bench -->", "<!-- /elementwise-bench -->"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"README.md has no {start} ... {end} block to update")
    path.write_text(pattern.sub(lambda _: f"{start}\n{block}\n{end}", text))
    print(f"updated {path}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=4 * 1024 * 1024, help="elements per input (default 4M)")
    p.add_argument("--ops", default="", help="comma-separated op names (default: all): "
                   + ", ".join(c.name for c in CASES))
    p.add_argument("--dtypes", default="float32,float64", help="comma-separated dtypes (default float32,float64)")
    p.add_argument("--repeat", type=int, default=15, help="interleaved runs per contender (default 15)")
    p.add_argument("--no-accuracy", action="store_true", help="skip the accuracy table")
    p.add_argument("--update-readme", action="store_true", help="write the tables into README.md")
    args = p.parse_args(argv)
    wanted = [w.strip() for w in args.ops.split(",") if w.strip()]
    unknown = [w for w in wanted if w not in {c.name for c in CASES}]
    if unknown:
        print(f"error: unknown op(s) {', '.join(unknown)}; choose from {', '.join(c.name for c in CASES)}",
              file=sys.stderr)
        return 2
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    if not dtypes or any(d not in ("float32", "float64") for d in dtypes):
        print(f"error: --dtypes takes float32 and/or float64, got {args.dtypes!r}", file=sys.stderr)
        return 2
    cases = [c for c in CASES if not wanted or c.name in wanted]

    print(f"{args.size} elements on {jax.devices()[0].platform} (jax/jaxlib {jax.__version__}, "
          f"numpy {np.__version__}); medians of {args.repeat} interleaved runs; ratio: hlograph / peer\n")
    header = ("| op | dtype | hlograph ms | jax.jit ms | NumPy ms | vs jax.jit | vs NumPy |\n"
              "|---|---|---|---|---|---|---|")
    print(header)
    rows, bad = _speed_rows(cases, dtypes, args.size, args.repeat)
    block = header + "\n" + "\n".join(rows)
    acc_names = [c.name for c in cases if c.name in ACCURACY]
    if acc_names and not args.no_accuracy:
        acc_header = ("| function | dtype | hlograph max ULP | NumPy max ULP | XLA (jax.jit) max ULP |\n"
                      "|---|---|---|---|---|")
        print("\n" + acc_header)
        block += "\n\n" + acc_header + "\n" + "\n".join(_accuracy_rows(acc_names, dtypes))
    if args.update_readme:
        _update_readme(block)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
