"""PyMC models through PyTensor's modes and the HLOGRAPH mode, side by side in one run.

    python bench/pymc_models.py                        # every model, every mode
    python bench/pymc_models.py --modes HLOGRAPH,NUMBA --models radon,gp --repeat 3

Needs PyMC (``pip install pymc``: it pins its own PyTensor line, 2.38.x for PyMC 5.28).
Six models: a hierarchical regression (radon-like: 85 groups, 919 observations), eight
schools (non-centered), a logistic regression (1000 x 5), a marginal GP (ExpQuad, 50
points), a normal mixture (3 components, 500 observations, ordered means) and a
Gaussian random walk (100 steps). For each, ``model.compile_logp(mode=...)`` and
``model.compile_dlogp(mode=...)`` are built and called once (compile time: the two
compiles and first calls, in this process: disk caches of earlier runs count, as
for a user), then called at the model's initial point (per-call time: the median over
``--repeat`` interleaved rounds of the mean of about 50 ms of calls; PyMC's point
functions, as a sampler calls them). Every value is checked against the C mode's
(``FAST_RUN``). Ratios are time over the NUMBA mode's and over the JAX mode's, with
geometric means over the models (lower is better).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
import warnings

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

MODES = ("FAST_RUN", "NUMBA", "JAX", "HLOGRAPH")


def radon(pm):
    rng = np.random.default_rng(0)
    groups, n = 85, 919
    g = np.concatenate([np.arange(groups), rng.integers(0, groups, n - groups)])
    x = rng.integers(0, 2, n).astype(float)
    y = rng.normal(1.5, 0.3, groups)[g] - 0.7 * x + rng.normal(0, 0.7, n)
    with pm.Model() as m:
        mu_a = pm.Normal("mu_a", 0, 10)
        sigma_a = pm.HalfNormal("sigma_a", 5)
        a = pm.Normal("a", mu_a, sigma_a, shape=groups)
        b = pm.Normal("b", 0, 10)
        sigma_y = pm.HalfNormal("sigma_y", 5)
        pm.Normal("y", a[g] + b * x, sigma_y, observed=y)
    return m


def eight_schools(pm):
    y = np.array([28.0, 8, -3, 7, -1, 1, 18, 12])
    sigma = np.array([15.0, 10, 16, 11, 9, 11, 10, 18])
    with pm.Model() as m:
        mu = pm.Normal("mu", 0, 5)
        tau = pm.HalfCauchy("tau", 5)
        theta = pm.Normal("theta", 0, 1, shape=8)
        pm.Normal("obs", mu + tau * theta, sigma, observed=y)
    return m


def logistic(pm):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1000, 5))
    y = rng.integers(0, 2, 1000)
    with pm.Model() as m:
        w = pm.Normal("w", 0, 1, shape=5)
        c = pm.Normal("c", 0, 1)
        pm.Bernoulli("y", logit_p=X @ w + c, observed=y)
    return m


def gp(pm):
    rng = np.random.default_rng(2)
    X = np.linspace(0, 10, 50)[:, None]
    y = np.sin(X[:, 0]) + rng.normal(0, 0.2, 50)
    with pm.Model() as m:
        ls = pm.Gamma("ls", 2, 1)
        eta = pm.HalfNormal("eta", 2)
        sigma = pm.HalfNormal("sigma", 1)
        f = pm.gp.Marginal(cov_func=eta ** 2 * pm.gp.cov.ExpQuad(1, ls))
        f.marginal_likelihood("y", X=X, y=y, sigma=sigma)
    return m


def mixture(pm):
    rng = np.random.default_rng(3)
    y = np.concatenate([rng.normal(-2, 1, 200), rng.normal(3, 0.5, 300)])
    with pm.Model() as m:
        w = pm.Dirichlet("w", np.ones(3))
        mu = pm.Normal("mu", 0, 5, shape=3, transform=pm.distributions.transforms.ordered,
                       initval=[-1.0, 0.0, 1.0])
        s = pm.HalfNormal("s", 2, shape=3)
        pm.NormalMixture("y", w, mu, s, observed=y)
    return m


def random_walk(pm):
    rng = np.random.default_rng(4)
    y = np.cumsum(rng.normal(0, 0.3, 100)) + rng.normal(0, 0.5, 100)
    with pm.Model() as m:
        s = pm.HalfNormal("s", 1)
        so = pm.HalfNormal("so", 1)
        x = pm.GaussianRandomWalk("x", sigma=s, init_dist=pm.Normal.dist(0, 1), steps=99)
        pm.Normal("y", x, so, observed=y)
    return m


MODELS = {f.__name__: f for f in (radon, eight_schools, logistic, gp, mixture, random_walk)}


def _blocking(fn, mode):
    if mode != "JAX":
        return fn
    return lambda point: np.asarray(fn(point))  # jax Arrays are computed asynchronously


def _fmt(t: float) -> str:
    return f"{t:.2f} s" if t >= 1 else f"{t * 1e3:.0f} ms" if t >= 1e-3 else f"{t * 1e6:.1f} us"


def _geomean(xs) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    try:
        import pymc as pm
    except ImportError:
        raise SystemExit("error: this benchmark needs PyMC (pip install pymc)") from None
    import hlograph.interop.pytensor  # noqa: F401 - registers the HLOGRAPH mode
    warnings.simplefilter("ignore")
    modes = args.modes.split(",")
    names = args.models.split(",")
    compile_t: dict = {}
    calls: dict = {}
    for name in names:
        fns, values = {}, {}
        for mode in modes:
            m = MODELS[name](pm)
            point = m.initial_point()
            t0 = time.perf_counter()
            fl = _blocking(m.compile_logp(mode=mode), mode)
            fd = _blocking(m.compile_dlogp(mode=mode), mode)
            values[mode] = (fl(point), fd(point))
            compile_t[name, mode] = time.perf_counter() - t0
            fns[mode] = (fl, fd, point)
        ref = values.get("FAST_RUN") or values[modes[0]]
        for mode, (lp, dlp) in values.items():
            if not (np.allclose(lp, ref[0], rtol=1e-8, atol=1e-10) and np.allclose(dlp, ref[1], rtol=1e-7, atol=1e-9)):
                raise SystemExit(f"error: {name}: {mode}'s logp/dlogp differ from the reference mode's")
        for kind in (0, 1):
            per = {m: [] for m in modes}
            number = {}
            for mode, f in fns.items():
                fn, point = f[kind], f[2]
                t0 = time.perf_counter()
                for _ in range(20):
                    fn(point)
                number[mode] = max(20, int(0.05 / ((time.perf_counter() - t0) / 20)))
            for _ in range(args.repeat):
                for mode in np.random.default_rng().permutation(modes):
                    fn, point = fns[mode][kind], fns[mode][2]
                    t0 = time.perf_counter()
                    for _ in range(number[mode]):
                        fn(point)
                    per[mode].append((time.perf_counter() - t0) / number[mode])
            for mode in modes:
                calls[name, kind, mode] = statistics.median(per[mode])
        print(f"{name}: " + ", ".join(f"{m} {_fmt(calls[name, 0, m])}/{_fmt(calls[name, 1, m])}" for m in modes),
              file=sys.stderr, flush=True)
    header = "| model | " + " | ".join(modes) + " |"
    print(header)
    print("|---" * (len(modes) + 1) + "|")
    for name in names:
        for label, get in (("compile (logp + dlogp, first calls)", lambda m: compile_t[name, m]),
                           ("logp per call", lambda m: calls[name, 0, m]),
                           ("dlogp per call", lambda m: calls[name, 1, m])):
            print(f"| {name} {label} | " + " | ".join(_fmt(get(m)) for m in modes) + " |")
    for base in ("NUMBA", "JAX"):
        if base not in modes:
            continue
        for mode in modes:
            if mode == base:
                continue
            c = _geomean([compile_t[n, mode] / compile_t[n, base] for n in names])
            lp = _geomean([calls[n, 0, mode] / calls[n, 0, base] for n in names])
            dl = _geomean([calls[n, 1, mode] / calls[n, 1, base] for n in names])
            print(f"{mode} / {base} (geometric means over {len(names)} models): compile {c:.2f}x, "
                  f"logp per call {lp:.2f}x, dlogp per call {dl:.2f}x")


if __name__ == "__main__":
    main()
