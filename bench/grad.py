"""Value and gradient: hlograph's ``hg.value_and_grad`` against
``jax.jit(jax.value_and_grad(f))`` and PyTensor's ``pytensor.grad`` compiled in
its JAX, NUMBA and C (FAST_RUN) modes, in one run.

    python bench/grad.py                           # both models, all contenders
    python bench/grad.py --models mlp --repeat 100 --build-repeat 5
    python bench/grad.py --modes NUMBA,FAST_RUN --profile

Two models, each written once over the three libraries' NumPy-like names:

- ``mlp``: the softmax cross-entropy loss of an MLP 784-512-512-10 (tanh hidden
  layers) on a float32 batch of 256 (one-hot labels), its gradient with
  respect to every weight and bias.
- ``hier``: the log-density of a hierarchical normal regression (radon-like: 85
  groups, 919 observations, each with its group index; float64) and its
  gradient with respect to the five parameters: ``y ~ Normal(a[group] + b * x,
  sigma_y)``, ``a ~ Normal(mu_a, sigma_a)``, normal priors on ``mu_a`` and
  ``b``, half-normal priors on ``sigma_a`` and ``sigma_y``, which are sampled
  as their logarithms (the Jacobian term included). Synthetic data from a
  fixed seed.

Every contender computes the value and the gradients from NumPy inputs and
hands back NumPy arrays (what an optimizer or a sampler asks for); all must
agree with jax's results before anything is timed.

Build time: from nothing to the first result, i.e. building the graph and its
gradient (hlograph, PyTensor) or tracing it (jax), lowering, optimizing,
compiling and the first call. hlograph and jax compile cold every time
(hlograph's executable caches, in memory and on disk, and jax's caches are
cleared or off); PyTensor keeps its on-disk caches of compiled C modules and
Numba functions, as it does for its users (after the first build ever they are
warm); "hlograph warm disk" is hlograph under the same conditions: its on-disk
cache (optimized modules by graph key, executables) filled by an earlier build. Builds are repeated ``--build-repeat`` times, interleaved; the table
shows medians.

Per call: ``--repeat`` interleaved rounds; in each, every contender makes one
untimed call, then about 10 ms of calls are timed. hlograph and jax.jit run
back to back in alternating order, the PyTensor modes after them in rotating
order (BLAS threads left spinning by one contender slow down the next). The
table shows medians and fastest runs (the runs least disturbed by other
processes), and the paired ratio to jax.jit (per round, the contender's time
over jax.jit's in the same round, the median over rounds; the figure least
moved by background load). Then the build phases of hlograph and jax (graph + gradient
or trace, lowering, XLA compile, first call), through their ahead-of-time APIs.

Op count: the ops of hlograph's lowered value-and-grad module (after O2)
against those of ``jax.jit(...).lower(...)``, as jax hands it to XLA, and after
hlograph's O2 pipeline (the same clean-up applied to both).

``--profile`` prints both modules (hlograph's after O2, jax's after hlograph's
O2) and cProfile's top functions of hlograph's build.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# hlograph's build compiles cold: no executable read from (or written to) disk
os.environ["HLOGRAPH_CACHE_DIR"] = "off"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import hlograph as hg  # noqa: E402
from hlograph.runtime import executables  # noqa: E402

PYTENSOR_MODES = ("JAX", "NUMBA", "FAST_RUN")
HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


# --- the three libraries under one set of names ------------------------------------------
@dataclass(frozen=True)
class Lib:
    """The names a model uses, for one library."""
    exp: Callable
    tanh: Callable
    sum: Callable
    mean: Callable
    log_softmax: Callable  # (x, axis)
    take: Callable  # (a, indices): a[indices]


HG_LIB = Lib(hg.exp, hg.tanh, hg.sum, hg.mean, lambda x, axis: hg.log_softmax(x, axis=axis),
             lambda a, i: a[i])


JAX_LIB = Lib(jnp.exp, jnp.tanh, jnp.sum, jnp.mean, lambda x, axis: jax.nn.log_softmax(x, axis=axis),
              lambda a, i: a[i])


def _pytensor_lib() -> Lib:
    import pytensor.tensor as pt
    return Lib(pt.exp, pt.tanh, pt.sum, pt.mean, lambda x, axis: pt.special.log_softmax(x, axis=axis),
               lambda a, i: a[i])


# --- the models ----------------------------------------------------------------------------
@dataclass
class Model:
    name: str
    title: str
    dtype: str
    params: list[tuple[str, np.ndarray]]  # differentiated
    data: list[tuple[str, np.ndarray]]  # not differentiated
    loss: Callable  # (lib, params, data) -> 0-d value
    rtol: float

    @property
    def values(self) -> list[np.ndarray]:
        return [v for _, v in self.params] + [v for _, v in self.data]

    @property
    def x64(self) -> bool:
        return self.dtype == "float64"


def mlp_loss(m: Lib, params, data):
    x, y = data
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = m.tanh(h)
    return -m.mean(m.sum(y * m.log_softmax(h, -1), axis=-1))


def mlp_model(batch: int = 256, sizes: tuple[int, ...] = (784, 512, 512, 10)) -> Model:
    rng = np.random.default_rng(0)
    params = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        params += [(f"w{i}", (rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32)),
                   (f"b{i}", (rng.normal(size=b) * 0.1).astype(np.float32))]
    x = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    y = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]
    return Model("mlp", f"MLP {'-'.join(map(str, sizes))}, batch {batch}, float32: "
                 f"softmax cross-entropy and its gradient w.r.t. {len(params)} weights and biases",
                 "float32", params, [("x", x), ("y", y)], mlp_loss, rtol=2e-3)


def hier_logp(m: Lib, params, data):
    mu_a, log_sigma_a, a, b, log_sigma_y = params
    x, y, group = data

    def normal(v, mu, sigma, log_sigma):
        z = (v - mu) / sigma
        return -0.5 * z * z - log_sigma - HALF_LOG_2PI

    def half_normal(v, scale):
        return math.log(2.0) - HALF_LOG_2PI - math.log(scale) - 0.5 * (v / scale) ** 2

    sigma_a, sigma_y = m.exp(log_sigma_a), m.exp(log_sigma_y)
    lp = normal(mu_a, 0.0, 10.0, math.log(10.0)) + normal(b, 0.0, 10.0, math.log(10.0))
    lp = lp + half_normal(sigma_a, 5.0) + log_sigma_a  # + log|d sigma / d log sigma|
    lp = lp + half_normal(sigma_y, 5.0) + log_sigma_y
    lp = lp + m.sum(normal(a, mu_a, sigma_a, log_sigma_a))
    return lp + m.sum(normal(y, m.take(a, group) + b * x, sigma_y, log_sigma_y))


def hier_model(groups: int = 85, n: int = 919) -> Model:
    rng = np.random.default_rng(0)
    group = np.concatenate([np.arange(groups), rng.integers(0, groups, n - groups)]).astype(np.int64)
    rng.shuffle(group)
    x = rng.integers(0, 2, n).astype(np.float64)  # floor indicator, as in radon
    a_true = rng.normal(1.5, 0.3, groups)
    y = a_true[group] - 0.7 * x + rng.normal(0.0, 0.7, n)
    params = [("mu_a", np.float64(1.0)), ("log_sigma_a", np.float64(-1.0)),
              ("a", rng.normal(1.0, 0.5, groups)), ("b", np.float64(-0.5)),
              ("log_sigma_y", np.float64(0.0))]
    return Model("hier", f"hierarchical normal regression, {groups} groups, {n} observations, float64: "
                 f"log-density and its gradient w.r.t. 5 parameters",
                 "float64", params, [("x", x), ("y", y), ("group", group)], hier_logp, rtol=1e-9)


MODELS = {"mlp": mlp_model, "hier": hier_model}


# --- hlograph ------------------------------------------------------------------------------
def hg_graph(model: Model) -> hg.Graph:
    ps = [hg.tensor(name, v.shape, str(v.dtype)) for name, v in model.params]
    ds = [hg.tensor(name, v.shape, str(v.dtype)) for name, v in model.data]
    value, grads = hg.value_and_grad(model.loss(HG_LIB, ps, ds), ps)
    return hg.Graph([*ps, *ds], [value, *grads])


def hg_build(model: Model) -> Callable[[], list]:
    executables.clear_cache()  # compile cold (the disk cache is off)
    fn = hg.compile(hg_graph(model))
    values = model.values
    return lambda: fn(*values)


_WARM_DIR: list[str] = []


def hg_build_warm(model: Model) -> Callable[[], list]:
    """hlograph's build with its on-disk cache warm, as PyTensor's are: the graph and
    its gradient are built anew, then the optimized module and the executable come
    from the disk cache (the in-memory caches are cleared)."""
    import tempfile
    if not _WARM_DIR:
        _WARM_DIR.append(tempfile.mkdtemp(prefix="hlograph-grad-bench-"))
    os.environ["HLOGRAPH_CACHE_DIR"] = _WARM_DIR[0]
    try:
        executables.clear_cache()
        fn = hg.compile(hg_graph(model))
        values = model.values
        fn(*values)  # (its first call: in the build, as for every contender)
    finally:
        os.environ["HLOGRAPH_CACHE_DIR"] = "off"
    return lambda: fn(*values)


# --- jax -----------------------------------------------------------------------------------
def jax_function(model: Model) -> Callable:
    n = len(model.params)

    def f(params, *data):
        return model.loss(JAX_LIB, params, data)

    return jax.jit(jax.value_and_grad(f)), n


def jax_build(model: Model) -> Callable[[], list]:
    jax.clear_caches()
    values = model.values
    x64 = model.x64
    with jax.enable_x64(x64):
        jitted, n = jax_function(model)

    def run():
        value, grads = jitted(values[:n], *values[n:])
        return [np.asarray(value), *(np.asarray(g) for g in grads)]

    def call():
        if jax.config.jax_enable_x64 == x64:  # no context switch on the call path
            return run()
        with jax.enable_x64(x64):
            return run()

    return call


# --- PyTensor ------------------------------------------------------------------------------
def pytensor_build(model: Model, mode: str) -> Callable[[], list]:
    import pytensor
    import pytensor.tensor as pt

    def var(name, v):
        return pt.tensor(name, dtype=str(v.dtype), shape=v.shape)

    ps = [var(name, v) for name, v in model.params]
    ds = [var(name, v) for name, v in model.data]
    value = model.loss(_pytensor_lib(), ps, ds)
    grads = pytensor.grad(value, ps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = pytensor.function([*ps, *ds], [value, *grads], mode=mode)
    values = model.values
    return lambda: [np.asarray(o) for o in f(*values)]


# --- timing --------------------------------------------------------------------------------
@dataclass
class Contender:
    name: str
    build: Callable[[], Callable[[], list]]
    call: Callable[[], list] | None = None
    error: str | None = None
    builds: list[float] = field(default_factory=list)
    calls: list[float] = field(default_factory=list)


def contenders(model: Model, modes: list[str]) -> list[Contender]:
    out = [Contender("hlograph", lambda: hg_build(model)),
           Contender("jax.jit", lambda: jax_build(model))]
    if "WARM" in modes:
        hg_build_warm(model)  # fills the cache directory once, before anything is timed
        out.append(Contender("hlograph warm disk", lambda: hg_build_warm(model)))
    modes = [m for m in modes if m != "WARM"]
    for mode in modes:
        out.append(Contender(f"PyTensor {mode}", lambda mode=mode: pytensor_build(model, mode)))
    return out


def _timed_build(c: Contender) -> None:
    gc.collect()
    t0 = time.perf_counter()
    try:
        call = c.build()
        call()
    except Exception as e:  # noqa: BLE001 - a contender that cannot run is reported, not fatal
        c.error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:160]
        return
    c.builds.append(time.perf_counter() - t0)
    c.call = call


def _check(model: Model, cs: list[Contender]) -> None:
    """Every contender's value and gradients agree with jax's."""
    ref = next(c for c in cs if c.name == "jax.jit").call()
    names = ["value"] + [f"d/d{name}" for name, _ in model.params]
    for c in cs:
        if c.call is None or c.name == "jax.jit":
            continue
        got = c.call()
        for name, g, r in zip(names, got, ref):
            scale = float(np.max(np.abs(r))) if np.size(r) else 0.0
            err = float(np.max(np.abs(np.asarray(g, np.float64) - r))) if np.size(r) else 0.0
            if np.shape(g) != np.shape(r) or not err <= model.rtol * max(scale, 1e-30):
                c.error = f"computes a different {name}: max abs error {err:.3g} (scale {scale:.3g})"
                c.call = None
                break


def _per_call_number(cs: list[Contender], target: float = 0.01) -> dict[str, int]:
    """Calls per timing run: about ``target`` seconds of each contender."""
    numbers = {}
    for c in cs:
        t0 = time.perf_counter()
        c.call()
        t = time.perf_counter() - t0
        numbers[c.name] = max(1, min(2000, int(target / max(t, 1e-7))))
    return numbers


def time_model(model: Model, modes: list[str], repeat: int, build_repeat: int) -> list[Contender]:
    cs = contenders(model, modes)
    for _ in range(build_repeat):  # interleaved; the first round also checks the results
        for c in cs:
            if c.error is None:
                _timed_build(c)
        if not any(c.builds for c in cs if c.name == "jax.jit"):
            raise SystemExit(f"{model.name}: jax.jit failed: {cs[1].error}")
        _check(model, cs)
    live = [c for c in cs if c.call is not None]
    numbers = _per_call_number(live)
    for c in live:  # warm up
        for _ in range(numbers[c.name]):
            c.call()
    pair = [c for c in live if c.name in ("hlograph", "jax.jit")]
    others = [c for c in live if c not in pair]
    for r in range(repeat):
        # hlograph and jax.jit back to back, in alternating order, then the others in
        # rotating order: the heavy BLAS users among them slow down whoever follows
        order = (pair if r % 2 == 0 else pair[::-1]) + others[r % max(len(others), 1):] + \
            others[:r % max(len(others), 1)]
        for c in order:
            c.call()  # untimed: wakes the contender's threads
            n = numbers[c.name]
            t0 = time.perf_counter()
            for _ in range(n):
                c.call()
            c.calls.append((time.perf_counter() - t0) / n)
    return cs


def _fmt(t: float) -> str:
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.1f} ms"
    return f"{t * 1e6:.0f} us"


def build_phases(model: Model, repeat: int) -> None:
    """Where the build time goes: hlograph's graph + gradient, lowering + O2, XLA
    compile and first call, against jax's trace, lowering, compile and first call
    (its ahead-of-time API), medians of ``repeat`` cold builds."""
    vals = model.values
    specs = [(v.shape, str(v.dtype)) for v in vals]
    hg_times, jax_times = [], []
    for _ in range(repeat):
        executables.clear_cache()
        t = [time.perf_counter()]
        graph = hg_graph(model)
        t.append(time.perf_counter())
        lowered = hg.compile(graph).lower(*specs)
        t.append(time.perf_counter())
        compiled = lowered.compile()
        t.append(time.perf_counter())
        compiled(*vals)
        t.append(time.perf_counter())
        hg_times.append(np.diff(t))
        jax.clear_caches()
        with jax.enable_x64(model.x64):
            t = [time.perf_counter()]
            jitted, n = jax_function(model)
            traced = jitted.trace(vals[:n], *vals[n:])
            t.append(time.perf_counter())
            jlowered = traced.lower()
            t.append(time.perf_counter())
            jcompiled = jlowered.compile()
            t.append(time.perf_counter())
            jax.block_until_ready(jcompiled(vals[:n], *vals[n:]))
            t.append(time.perf_counter())
        jax_times.append(np.diff(t))
    h, j = np.median(hg_times, axis=0), np.median(jax_times, axis=0)
    print(f"build phases, median of {repeat}:")
    print(f"  hlograph: graph + grad {_fmt(h[0])}, lower + O2 {_fmt(h[1])}, XLA compile {_fmt(h[2])}, "
          f"first call {_fmt(h[3])}")
    print(f"  jax:      trace        {_fmt(j[0])}, lower       {_fmt(j[1])}, XLA compile {_fmt(j[2])}, "
          f"first call {_fmt(j[3])}")


def report(model: Model, cs: list[Contender]) -> None:
    jx = next(c for c in cs if c.name == "jax.jit")
    hgc = cs[0]
    print(f"\n## {model.title}\n")
    print(f"{'':18s} {'build':>9s} {'hlograph/':>10s} {'per call':>10s} {'hlograph/':>10s} "
          f"{'fastest':>10s} {'hlograph/':>10s} {'this/jax':>9s}")
    print(f"{'':18s} {'median':>9s} {'this':>10s} {'median':>10s} {'this':>10s} "
          f"{'call':>10s} {'this':>10s} {'paired':>9s}")

    def ratio(mine: list[float], theirs: list[float], how: Callable) -> float:
        return how(mine) / how(theirs) if mine and theirs else float("nan")

    for c in cs:
        if c.error is not None and not c.calls:
            print(f"{c.name:18s} failed: {c.error}")
            continue
        paired = statistics.median(a / j for a, j in zip(c.calls, jx.calls))
        print(f"{c.name:18s} {_fmt(statistics.median(c.builds)):>9s} "
              f"{ratio(hgc.builds, c.builds, statistics.median):9.2f}x "
              f"{_fmt(statistics.median(c.calls)):>10s} {ratio(hgc.calls, c.calls, statistics.median):9.2f}x "
              f"{_fmt(min(c.calls)):>10s} {ratio(hgc.calls, c.calls, min):9.2f}x {paired:8.3f}x")


# --- op counts -----------------------------------------------------------------------------
def _parse(text: str):
    from hlograph.xla.mlir import ir, make_context
    ctx = make_context()
    with ctx:
        return ir.Module.parse(text), ctx


def op_counts(model: Model, show: bool = False) -> None:
    from hlograph.passes import run
    from hlograph.testing.validation import count_ops

    specs = [(v.shape, str(v.dtype)) for v in model.values]
    hg_text = hg.compile(hg_graph(model)).lower(*specs).as_text()
    with jax.enable_x64(model.x64):
        jitted, n = jax_function(model)
        vals = model.values
        jax_text = jitted.lower(vals[:n], *vals[n:]).as_text()
    hg_mod, ctx = _parse(hg_text)
    with ctx:
        n_hg, n_hg_nc = count_ops(hg_mod), count_ops(hg_mod, include_constants=False)
    jax_mod, ctx = _parse(jax_text)
    with ctx:
        n_jax, n_jax_nc = count_ops(jax_mod), count_ops(jax_mod, include_constants=False)
        run(jax_mod, "O2")
        n_jo2, n_jo2_nc = count_ops(jax_mod), count_ops(jax_mod, include_constants=False)
        jax_o2 = jax_mod.operation.get_asm()
    print(f"\nop count of the {model.name} value-and-grad module (all ops / without constants):")
    print(f"  hlograph, after O2              {n_hg:4d} / {n_hg_nc:4d}")
    print(f"  jax.jit(...).lower()            {n_jax:4d} / {n_jax_nc:4d}   "
          f"hlograph/jax {n_hg / n_jax:.2f}x / {n_hg_nc / n_jax_nc:.2f}x")
    print(f"  jax's module after hlograph O2  {n_jo2:4d} / {n_jo2_nc:4d}   "
          f"hlograph/jax {n_hg / n_jo2:.2f}x / {n_hg_nc / n_jo2_nc:.2f}x")
    if show:
        print("\n### hlograph, after O2\n")
        print(hg_text)
        print("### jax, after hlograph's O2\n")
        print(jax_o2)


def profile_build(model: Model) -> None:
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    hg_build(model)()
    prof.disable()
    print(f"\n### cProfile of hlograph's {model.name} build (cumulative, top 25)\n")
    pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="mlp,hier", help="comma-separated: " + ", ".join(MODELS))
    p.add_argument("--modes", default=",".join(PYTENSOR_MODES),
                   help="PyTensor modes to compare with (default JAX,NUMBA,FAST_RUN; '' for none)")
    p.add_argument("--repeat", type=int, default=40, help="interleaved per-call timing runs (default 40)")
    p.add_argument("--build-repeat", type=int, default=3, help="interleaved builds per contender (default 3)")
    p.add_argument("--profile", action="store_true",
                   help="print the lowered modules and a cProfile of hlograph's build")
    p.add_argument("--warm", action=argparse.BooleanOptionalAction, default=True,
                   help="also hlograph with its disk cache warm, as PyTensor's are (default on)")
    args = p.parse_args(argv)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        raise SystemExit(f"unknown models {unknown}: choose from {', '.join(MODELS)}")
    modes = [m.strip().upper() for m in args.modes.split(",") if m.strip()]
    try:
        import pytensor
        versions = f", pytensor {pytensor.__version__}"
    except ImportError:
        versions, modes = " (pytensor not installed)", []
    if args.warm:
        modes.append("WARM")

    print(f"value and gradient on {jax.devices()[0].platform} (jax/jaxlib {jax.__version__}{versions}, "
          f"numpy {np.__version__}); builds: median of {args.build_repeat}; per call: median of "
          f"{args.repeat} interleaved runs; ratios are hlograph / the contender (lower is better "
          f"for hlograph), paired: per round against jax.jit")
    for name in models:
        model = MODELS[name]()
        if model.x64:  # as a float64 jax user does (PyTensor's JAX mode sets it too)
            jax.config.update("jax_enable_x64", True)
        cs = time_model(model, modes, args.repeat, args.build_repeat)
        report(model, cs)
        build_phases(model, args.build_repeat)
        op_counts(model, show=args.profile)
        if args.profile:
            profile_build(model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
