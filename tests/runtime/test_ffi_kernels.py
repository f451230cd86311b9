"""Library kernels run as in-module FFI calls on the CPU: the running reductions
(cumsum/cumprod/cummax/cummin) of large arrays, against perform and against the
StableHLO loop they replace, and their on-disk Numba cache."""

import os
import subprocess
import sys

import numpy as np
import pytest

import hlograph as hg
from hlograph.runtime.host import calls, generated
from hlograph.compiler.placement import HOST_CALL, placement
from hlograph.tests.helpers import compare_with_perform

BIG = (64, 24, 30)  # 46080 elements: over the in-module threshold


def _graph(fn, shape, dtype, axis):
    x = hg.tensor("x", shape, dtype)
    return hg.Graph([x], fn(x, axis=axis))


def _values(rng, shape, dtype, mode):
    if np.dtype(dtype).kind in "iu":
        v = rng.integers(-3 if np.dtype(dtype).kind == "i" else 0, 4, size=shape)
        if mode == "cumprod":
            v = np.where(rng.random(shape) < 0.9, 1, v)
        return v.astype(dtype)
    v = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * rng.normal(size=shape)
    if mode == "cumprod":
        v = 1 + v / 50
    v = v.astype(dtype)
    if np.dtype(dtype).kind == "f":
        v.flat[::211] = np.nan
        v.flat[5::307] = np.inf
        v.flat[7::401] = -0.0
    return v


def _lowered_text(graph):
    return hg.compile(graph).lower().as_text()


MODES = {"cumsum": hg.cumsum, "cumprod": hg.cumprod, "cummax": hg.cummax, "cummin": hg.cummin}


# (complex cummax/cummin keep the StableHLO loop: NumPy orders complex numbers lexicographically)
CASES = [(mode, dtype) for mode in MODES for dtype in ["float32", "float64", "int32", "uint8", "complex64"]
         if not (dtype == "complex64" and mode in ("cummax", "cummin"))]


@pytest.mark.parametrize("mode, dtype", CASES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_running_reductions_match_perform(mode, dtype, axis, rng):
    g = _graph(MODES[mode], BIG, dtype, axis)
    assert "stablehlo.custom_call @hlograph_cum" in _lowered_text(g)
    v = _values(rng, BIG, dtype, mode)
    # a loop in NumPy's order: the results are NumPy's, bit for bit (NaN included)
    compare_with_perform(g, [v], rtol=0, atol=0)


@pytest.mark.parametrize("mode", ["cumsum", "cummax"])
def test_in_module_loop_equals_the_stablehlo_loop(mode, rng, monkeypatch):
    g = _graph(MODES[mode], (300, 200), "float32", 0)
    v = _values(rng, (300, 200), "float32", mode)
    fast = hg.compile(g)(v)
    monkeypatch.setenv(calls.ENV_VAR, "0")
    text = _lowered_text(g)
    assert "custom_call" not in text and "stablehlo.while" in text
    np.testing.assert_array_equal(hg.compile(g)(v), fast)


def test_small_arrays_and_other_platforms_keep_stablehlo(rng):
    g = _graph(hg.cumsum, (20, 30), "float32", 0)
    assert "custom_call" not in _lowered_text(g)
    big = _graph(hg.cumsum, BIG, "float32", 0)
    module = hg.lowering.lower_graph(big, platform="tpu")  # lowered only, not run
    with module.context:
        assert "custom_call" not in str(module)


def test_flat_cumsum_and_size_zero_axis(rng):
    g = _graph(hg.cumsum, BIG, "float64", None)
    assert "custom_call" in _lowered_text(g)
    compare_with_perform(g, [_values(rng, BIG, "float64", "cumsum")], rtol=0, atol=0)
    x = hg.tensor("x", (40000, 0), "float32")
    g0 = hg.Graph([x], hg.cumsum(x, axis=0))
    assert hg.compile(g0)(np.zeros((40000, 0), np.float32)).shape == (40000, 0)


_SCRIPT = """
import numpy as np, hlograph as hg
x = hg.tensor("x", (300, 200), "int64")
v = np.arange(60000, dtype=np.int64).reshape(300, 200) % 7 - 3
got = hg.compile(hg.Graph([x], hg.cumsum(x, axis=0)))(v)
print(bool(np.array_equal(got, np.cumsum(v, axis=0))))
"""


def test_kernels_are_cached_on_disk_and_a_damaged_cache_is_repaired(tmp_path):
    env = dict(os.environ, HLOGRAPH_CACHE_DIR=str(tmp_path))

    def run():
        out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert run() == "True"
    kernels = tmp_path / "numba"
    assert (kernels / "hlograph_cumadd_int64.py").exists()
    cached = sorted((kernels / "__pycache__").glob("hlograph_cumadd_int64.*"))
    assert cached, "Numba wrote no cache for the kernel"
    for f in cached:
        f.write_bytes(b"garbage")
    assert run() == "True"
    assert all(f.read_bytes() != b"garbage" for f in cached if f.exists())


def test_cache_clear_removes_the_kernels(tmp_path, monkeypatch, capsys):
    from hlograph.tools import cli
    monkeypatch.setenv("HLOGRAPH_CACHE_DIR", str(tmp_path))
    kernels = tmp_path / "numba"
    kernels.mkdir()
    (kernels / "hlograph_cumadd_float32.py").write_text("# generated\n")
    assert cli.main(["cache", "clear"]) == 0
    assert "removed the compiled Numba kernels" in capsys.readouterr().out
    assert not kernels.exists()
