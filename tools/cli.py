"""The ``hlograph`` command: ``hlograph demo``, ``hlograph info``, ``hlograph coverage``,
``hlograph cache info|clear``."""

from __future__ import annotations

import argparse
import sys
import time

from .pipes import stop_on_broken_pipe


def _demo(args: argparse.Namespace) -> int:
    import numpy as np

    import hlograph as hg

    batch, n_in, n_hidden, n_out = 8, 16, 32, 10
    x = hg.tensor("x", (batch, n_in), "float32")
    w1 = hg.tensor("w1", (n_in, n_hidden), "float32")
    b1 = hg.tensor("b1", (n_hidden,), "float32")
    w2 = hg.tensor("w2", (n_hidden, n_out), "float32")
    b2 = hg.tensor("b2", (n_out,), "float32")
    hidden = hg.tanh(x @ w1 + b1)
    probs = hg.softmax(hidden @ w2 + b2, axis=-1)
    running = hg.cumsum(probs, axis=1)
    confident = hg.max(probs) > 0.5
    summary = hg.ifelse(confident, hg.max(running, axis=0), hg.mean(running, axis=0))
    graph = hg.Graph([x, w1, b1, w2, b2], [probs, running, summary])

    print("== graph ==")
    print(graph)
    fn = hg.compile(graph, platform=args.platform)
    t0 = time.perf_counter()
    lowered = fn.lower()
    t_lower = time.perf_counter() - t0
    print("\n== StableHLO (O2) ==")
    print(lowered.as_text())

    t0 = time.perf_counter()
    compiled = lowered.compile()
    t_compile = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    values = [
        rng.normal(size=(batch, n_in)).astype(np.float32),
        (rng.normal(size=(n_in, n_hidden)) / 4).astype(np.float32),
        np.zeros(n_hidden, np.float32),
        (rng.normal(size=(n_hidden, n_out)) / 4).astype(np.float32),
        np.zeros(n_out, np.float32),
    ]
    results = compiled(*values)
    n_calls = 1000
    t0 = time.perf_counter()
    for _ in range(n_calls):
        compiled(*values)
    t_call = (time.perf_counter() - t0) / n_calls
    expected = hg.evaluate(graph, *values)

    print("== run ==")
    ok = True
    for name, got, want in zip(("probs", "running", "summary"), results, expected):
        match = got.dtype == want.dtype and got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-6)
        ok &= bool(match)
        print(f"{name:8s} {got.dtype}{list(got.shape)}  matches evaluate(): {'yes' if match else 'NO'}")
    device = compiled.executable.device
    print(f"\nran on {device.platform}:{device.id} ({device.device_kind}); "
          f"{len(graph.nodes)} graph nodes")
    print(f"lower {t_lower * 1e3:.1f} ms, compile {t_compile * 1e3:.1f} ms, "
          f"call {t_call * 1e6:.1f} us (mean of {n_calls})")
    if not ok:
        print("error: compiled results differ from the reference", file=sys.stderr)
        return 1
    return 0


def _info(args: argparse.Namespace) -> int:
    import numpy as np

    import hlograph as hg
    from ..xla import pjrt
    from hlograph.runtime import devices

    print(f"hlograph {hg.__version__}")
    print(f"jax/jaxlib {pjrt.JAX_VERSION}, numpy {np.__version__}")
    for platform, found in devices.available_platforms().items():
        if isinstance(found, str):
            print(f"{platform}: not available")
            continue
        listing = ", ".join(f"{d.platform}:{d.id} ({d.device_kind})" for d in found)
        print(f"{platform}: {len(found)} device(s): {listing}")
    print(f"default platform: {devices.default_platform()}")
    from hlograph.runtime import dispatch
    how = "C extension" if dispatch.IMPLEMENTATION == "c" else "Python (the C extension is not built)"
    print(f"per-call entry: {how}")
    return 0


def _coverage(args: argparse.Namespace) -> int:
    from hlograph.tools import coverage

    if args.update_readme is not None:
        path = args.update_readme or coverage.default_readme()
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise RuntimeError(f"cannot read {path}: {e.strerror or e}") from None
        new = coverage.update_markdown(text)
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
        print(f"{path}: {'updated' if new != text else 'already up to date'}")
        return 0
    print(coverage.gradient_table() if args.grad else coverage.coverage_table())
    return 0


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit} ({n} bytes)"
    return f"{n} bytes"


def _cache_info(args: argparse.Namespace) -> int:
    from hlograph.runtime import cache

    directory = cache.cache_dir()
    limit = cache.max_bytes()
    if directory is None:
        print(f"directory: none ({cache.ENV_DIR}=off)")
        print("enabled: no")
        print(f"limit: {_size(limit)}")
        return 0
    try:
        entries = cache.ExecutableCache(directory, limit).entries()
    except OSError as e:
        raise RuntimeError(f"cannot read the cache directory {directory}: {e.strerror or e}") from None
    print(f"directory: {directory}")
    print("enabled: yes")
    print(f"entries: {len(entries)}")
    print(f"size: {_size(sum(e.size for e in entries))}")
    print(f"limit: {_size(limit)}")
    return 0


def _cache_clear(args: argparse.Namespace) -> int:
    from hlograph.runtime import cache

    directory = cache.cache_dir()
    if directory is None:
        print(f"the cache is disabled ({cache.ENV_DIR}=off); nothing to clear")
        return 0
    try:
        n, size = cache.ExecutableCache(directory, cache.max_bytes()).clear()
    except OSError as e:
        raise RuntimeError(f"cannot clear the cache directory {directory}: {e.strerror or e}") from None
    kernels = cache.clear_kernels(directory)
    print(f"removed {n} {'entry' if n == 1 else 'entries'}, {_size(size)}, from {directory}")
    if kernels:
        print(f"removed the compiled Numba kernels, {_size(kernels)}")
    return 0


def version_text(prog: str) -> str:
    """What ``--version`` prints: the tool, hlograph's version, jax/jaxlib's, and
    the StableHLO versions this jaxlib reads and writes."""
    from importlib import metadata

    from ..xla import pjrt
    from ..xla.mlir import stablehlo_versions

    try:
        version = metadata.version("hlograph")
    except metadata.PackageNotFoundError:
        version = "unknown"
    oldest, newest = stablehlo_versions()
    return (f"{prog} (hlograph) {version}\njax/jaxlib {pjrt.JAX_VERSION}, "
            f"StableHLO {newest} (artifacts from {oldest} to {newest})")


class VersionAction(argparse.Action):
    """``--version``: prints ``version_text`` and exits 0 (it imports jaxlib, so
    only when asked)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help=help or "print the version of hlograph, jaxlib and StableHLO and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(version_text(parser.prog) + "\n")
        sys.stdout.flush()
        parser.exit()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hlograph", description="Tensor graphs -> StableHLO -> PJRT.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="build, lower, compile and run a small model; check it")
    demo.add_argument("--platform", default="cpu", help="cpu (default), gpu or tpu")
    demo.set_defaults(func=_demo)
    info = sub.add_parser("info", help="platforms, devices and versions")
    info.set_defaults(func=_info)
    cov = sub.add_parser("coverage", help="the op coverage table (markdown), from the registries")
    cov.add_argument("--grad", action="store_true",
                     help="the gradient table: per family, the ops without a gradient rule")
    cov.add_argument("--update-readme", nargs="?", const="", default=None, metavar="PATH",
                     help="rewrite both tables between their markers in PATH (default: README.md "
                          "of the source tree)")
    cov.set_defaults(func=_coverage)
    cache = sub.add_parser("cache", help="the persistent cache of compiled executables")
    cache_sub = cache.add_subparsers(dest="action", required=True)
    cache_sub.add_parser("info", help="directory, entries, size and limit").set_defaults(func=_cache_info)
    cache_sub.add_parser("clear", help="remove every entry").set_defaults(func=_cache_clear)
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()  # here, where a closed pipe is handled, not at exit
        return status
    except BrokenPipeError:  # output piped into a command that stopped reading
        return stop_on_broken_pipe()
    except (RuntimeError, ValueError, TypeError, NotImplementedError) as e:
        print(f"hlograph {args.command}: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
