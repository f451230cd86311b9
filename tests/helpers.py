"""Test helpers: compiled results against the NumPy reference (``perform``)."""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys
from typing import Any, Sequence

import numpy as np

import hlograph as hg
from hlograph.frontend.types import DTYPES, is_complex, is_float

__all__ = ["compare_with_perform", "assert_same", "TOLERANCE", "random_array", "special_values",
           "graph_like", "check_graph_against_numpy", "check_against_numpy", "code_blocks",
           "run_filecheck", "run_in_new_processes"]

#: default (rtol, atol) per dtype; integers and bools compare exactly
TOLERANCE = {
    DTYPES["float16"]: (2e-3, 1e-3),
    DTYPES["bfloat16"]: (2e-2, 1e-2),
    DTYPES["float32"]: (2e-5, 1e-6),
    DTYPES["float64"]: (1e-12, 1e-14),
    DTYPES["complex64"]: (2e-5, 1e-6),
    DTYPES["complex128"]: (1e-12, 1e-14),
}


def assert_same(actual: Any, expected: np.ndarray, *, rtol=None, atol=None, what="result") -> None:
    """Strict comparison: same dtype, same shape, values within the dtype's tolerance,
    NaN where the reference has NaN, infinities with the same sign."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != reference {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != reference {expected.shape}"
    dt = expected.dtype
    if is_float(dt) or is_complex(dt):
        r, a = TOLERANCE[dt]
        r = r if rtol is None else rtol
        a = a if atol is None else atol
        wide = np.complex128 if is_complex(dt) else np.float64
        np.testing.assert_allclose(actual.astype(wide), expected.astype(wide), rtol=r, atol=a,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def compare_with_perform(graph: hg.Graph, values: Sequence[Any], *, rtol=None, atol=None,
                         pipeline: str = "O2", compiled=None):
    """Compiles ``graph`` (or takes ``compiled``, an ``hg.compile`` of it), runs it on
    ``values`` and compares with ``hg.evaluate`` (each Op's ``perform``): dtypes and shapes
    strictly, values within tolerance. Also checks that neither run mutated the inputs.
    Returns (compiled, reference)."""
    values = list(values)
    copies = [np.array(v, copy=True) for v in values]
    expected = hg.evaluate(graph, *values)
    if compiled is None:
        compiled = hg.compile(graph, pipeline=pipeline)
    actual = compiled(*values)
    for i, (v, c) in enumerate(zip(values, copies)):
        v = np.asarray(v)
        same = v.tobytes() == c.tobytes() if v.dtype == c.dtype and v.shape == c.shape else False
        assert same, f"input {i} was mutated"
    if graph.single_output:
        assert_same(actual, expected, rtol=rtol, atol=atol)
    else:
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, rtol=rtol, atol=atol, what=f"output {i}")
    return actual, expected


def random_array(rng: np.random.Generator, shape, dtype, kind: str = "normal") -> np.ndarray:
    """Random values of ``dtype``: ``normal``, ``positive``, ``unit`` (in (-1, 1)),
    ``small_int`` (ints in [-5, 5], unsigned in [0, 10]), ``nonzero``."""
    dt = hg.frontend.types.as_dtype(dtype)
    shape = tuple(shape)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = (-5, 6) if dt.kind == "i" else (0, 11)
        if kind == "full":
            lo, hi = info.min, info.max
            return rng.integers(lo, hi, size=shape, dtype=dt, endpoint=True)
        out = rng.integers(lo, hi, size=shape).astype(dt)
        if kind in ("nonzero", "positive"):
            out[out == 0] = 1
        return out
    if kind == "positive":
        base = rng.uniform(0.1, 3.0, size=shape)
    elif kind == "unit":
        base = rng.uniform(-0.95, 0.95, size=shape)
    else:
        base = rng.normal(size=shape) * 2
        if kind == "nonzero":
            base = np.where(np.abs(base) < 0.1, 0.5, base)
    if is_complex(dt):
        imag = rng.normal(size=shape) if kind != "positive" else rng.uniform(0.1, 3.0, size=shape)
        base = base + 1j * imag
    return np.asarray(base).astype(dt)


def special_values(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """``random_array`` values with NaN, +inf and -inf sprinkled in (float dtypes)."""
    x = random_array(rng, shape, dtype)
    if x.size and np.dtype(dtype).kind == "f":
        flat = x.reshape(-1)
        picks = rng.integers(0, 5, flat.shape)
        flat[picks == 0] = np.nan
        flat[picks == 1] = np.inf
        flat[picks == 2] = -np.inf
    return x


def graph_like(build, values: Sequence[Any], shapes=None) -> hg.Graph:
    """The graph of ``build(x0, x1, ...)`` on inputs with the dtypes and shapes of
    ``values`` (or the given ``shapes``, None for an unknown dim). A tuple or list from
    ``build`` makes that many outputs, anything else one."""
    values = [np.asarray(v) for v in values]
    shapes = [v.shape for v in values] if shapes is None else shapes
    xs = [hg.tensor(f"x{i}", s, v.dtype) for i, (s, v) in enumerate(zip(shapes, values, strict=True))]
    out = build(*xs)
    return hg.Graph(xs, list(out) if isinstance(out, (tuple, list)) else out)


def results_everywhere(graph: hg.Graph, *values: Any) -> list[tuple[str, Any]]:
    """``(where, results)`` of ``graph`` on ``values``: ``hg.evaluate`` (each Op's
    perform), then compiled at O0 and at O2."""
    return [("evaluate", hg.evaluate(graph, *values)), ("O0", hg.compile(graph, pipeline="O0")(*values)),
            ("O2", hg.compile(graph)(*values))]


def check_graph_against_numpy(graph: hg.Graph, values: Sequence[Any], expected, *, rtol=None, atol=None,
                              compiled=None, name: str = "graph") -> None:
    """``compare_with_perform(graph, values)``, then both the compiled and the performed
    outputs against NumPy's ``expected`` (one array for a one-output graph, a tuple or list
    of them otherwise) with ``assert_same``: same dtype, same shape, values within
    ``rtol``/``atol`` (default: the dtype's TOLERANCE), NaN where NumPy has NaN.
    ``compiled``: an ``hg.compile`` of ``graph`` to run (default: a new one); ``name``
    for the messages."""
    actual, performed = compare_with_perform(graph, values, rtol=rtol, atol=atol, compiled=compiled)
    if graph.single_output:
        actual, performed, expected = [actual], [performed], [expected]
    else:
        assert isinstance(expected, (tuple, list)), f"{name}: {len(performed)} outputs, NumPy gave one"
    assert len(expected) == len(performed), f"{name}: {len(performed)} outputs, NumPy gave {len(expected)}"
    for i, (a, p, e) in enumerate(zip(actual, performed, expected)):
        e = np.asarray(e)
        assert_same(p, e, rtol=rtol, atol=atol, what=f"{name} output {i}: perform vs NumPy")
        assert_same(a, e, rtol=rtol, atol=atol, what=f"{name} output {i}: compiled vs NumPy")


def check_against_numpy(build, values: Sequence[Any], reference=None, *, rtol=None, atol=None) -> None:
    """Builds ``build`` on graph inputs like ``values`` (``graph_like``) and checks the
    compiled result against perform and both against NumPy (``check_graph_against_numpy``).
    ``reference``: NumPy's function, called on ``values`` with floating-point warnings off
    (default: the NumPy function named like ``build``), or its result."""
    values = [np.asarray(v) for v in values]
    graph = graph_like(build, values)
    if reference is None:
        reference = getattr(np, build.__name__)
    if callable(reference):
        with np.errstate(all="ignore"):
            reference = reference(*values)
    check_graph_against_numpy(graph, values, reference, rtol=rtol, atol=atol,
                              name=getattr(build, "__name__", "graph"))


def code_blocks(path: pathlib.Path, language: str = "python") -> list[str]:
    """The fenced ``language`` code blocks of a Markdown file, in order."""
    return re.findall(rf"```{language}\n(.*?)```", path.read_text(), flags=re.S)


def run_filecheck(check_file: pathlib.Path, output: str) -> subprocess.CompletedProcess:
    """Runs ``filecheck check_file`` on ``output`` (the test extra's filecheck)."""
    exe = shutil.which("filecheck", path=str(pathlib.Path(sys.executable).parent)) or shutil.which("filecheck")
    assert exe, "filecheck is part of the test extra"
    return subprocess.run([exe, str(check_file)], input=output, text=True, capture_output=True)


def run_in_new_processes(tmp_path: pathlib.Path, source: str, times: int = 2) -> list[dict]:
    """Runs the script ``source`` in ``times`` new Python processes, one after the
    other, sharing the cache directory ``tmp_path / "cache"``; returns the JSON object
    each printed on its last line."""
    import json
    import os
    script = tmp_path / "run.py"
    script.write_text(source)
    env = dict(os.environ, HLOGRAPH_CACHE_DIR=str(tmp_path / "cache"))
    reports = []
    for _ in range(times):
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        reports.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return reports
