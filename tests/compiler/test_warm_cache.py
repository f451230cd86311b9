"""Warm restarts: a graph's key finds its optimized module (and through it the
executable) on disk, so a new process skips lowering, the pass pipeline and XLA.
The key changes with anything the module depends on; damaged entries are
ignored with a warning; concurrent writers leave one whole entry."""

import json
import logging
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import hlograph as hg
from hlograph.compiler import api, graph_key
from hlograph.frontend.symbolic import dim_var
from hlograph.frontend.types import TensorType
from hlograph.runtime import cache, executables


@pytest.fixture(autouse=True)
def cache_dir(private_cache):
    """Every test gets its own cache directory (tests/conftest.py)."""
    return private_cache


def _graph(scale=2.0, dtype="float32", axis=0, n=6):
    """The same graph (built on the same source lines) for the same arguments."""
    x = hg.tensor("x", (n, 3), dtype)
    y = hg.tensor("y", (n, 3), dtype)
    return hg.Graph([x, y], hg.sum(hg.tanh(x * scale) + y * y, axis=axis))


def _values(dtype="float32", n=6):
    rng = np.random.default_rng(3)
    return [rng.standard_normal((n, 3)).astype(dtype), rng.standard_normal((n, 3)).astype(dtype)]


def _device(i=0):
    return executables.get_client("cpu").local_devices()[i]


def _key(graph, pipeline="O2", device=None, donate=()):
    return graph_key.graph_key(graph, pipeline, device if device is not None else _device(), donate)


def _modules(directory):
    return sorted(directory.glob("*" + cache.MODULE_SUFFIX))


def _counts(*names):
    s = cache.stats()
    return tuple(s[n] for n in names)


# --- the key ------------------------------------------------------------------------------

def test_same_graph_built_again_has_the_same_key():
    g = _graph()
    assert _key(g) == _key(_graph()) == _key(g.clone())
    assert len(_key(g)) == 64 and int(_key(g), 16) >= 0


def _built_elsewhere():
    x = hg.tensor("x", (6, 3), "float32")
    y = hg.tensor("y", (6, 3), "float32")
    return hg.Graph([x, y], hg.sum(hg.tanh(x * 2.0) + y * y, axis=0))


def _swapped():
    x = hg.tensor("x", (6, 3), "float32")
    y = hg.tensor("y", (6, 3), "float32")
    return hg.Graph([x, y], hg.sum(hg.tanh(y * 2.0) + x * x, axis=0))


def _with_extra_output(g):
    return hg.Graph(g.inputs, [g.outputs[0], g.inputs[0]])


_CHANGES = {
    "constant": lambda: _key(_graph(scale=2.5)),
    "dtype": lambda: _key(_graph(dtype="float64")),
    "op_parameter": lambda: _key(_graph(axis=1)),
    "shape": lambda: _key(_graph(n=7)),
    "pipeline": lambda: _key(_graph(), pipeline="O1"),
    "donated_input": lambda: _key(_graph(), donate=(0,)),
    "device": lambda: _key(_graph(), device=_device(1)),
    "extra_output": lambda: _key(_with_extra_output(_graph())),
    # the same program on other source lines: the module's locations differ
    "source_line": lambda: _key(_built_elsewhere()),
}


@pytest.mark.parametrize("change", sorted(_CHANGES))
def test_any_difference_gives_another_key(change):
    assert _CHANGES[change]() != _key(_graph())


def test_key_does_not_depend_on_which_passes_are_imported(monkeypatch):
    from hlograph.passes import registry

    for name in registry.pass_names():
        registry.get_pass(name)
    imported = _key(_graph())
    monkeypatch.setattr(registry, "_REGISTRY", {})  # as in a process that has imported none yet
    assert _key(_graph()) == imported


def test_environment_variables_lowering_reads_are_in_the_key(monkeypatch):
    base = _key(_graph())
    monkeypatch.setenv("HLOGRAPH_FAST_MATH_MIN_ELEMENTS", "1")
    assert _key(_graph()) != base
    monkeypatch.delenv("HLOGRAPH_FAST_MATH_MIN_ELEMENTS")
    monkeypatch.setenv("HLOGRAPH_LOG", "debug")  # logging does not change the module
    assert _key(_graph()) == base


def test_wiring_pipeline_options_and_signed_zeros_are_in_the_key():
    assert _key(_built_elsewhere()) != _key(_swapped())
    g = _graph()
    assert _key(g, "hlograph-fold-constants{max-elements=3}") != _key(g, "hlograph-fold-constants{max-elements=4}")
    assert _key(_graph(scale=0.0)) != _key(_graph(scale=-0.0))


def _with_constant(c):
    x = hg.tensor("x", (2,), "float32")
    return hg.Graph([x], x + hg.sum(hg.astype(hg.constant(c), "float32")))


def test_constants_are_keyed_by_dtype_shape_and_bytes():
    one = np.array(1.0, np.float32)
    assert _key(_with_constant(one)) != _key(_with_constant(one.view(np.int32)))  # same bytes
    assert _key(_with_constant(np.zeros(2, np.float32))) != _key(_with_constant(np.zeros((2, 1), np.float32)))
    assert _key(_with_constant(np.array([1.0, np.nan], np.float32))) != \
        _key(_with_constant(np.array([1.0, np.inf], np.float32)))
    big = np.arange(10000, dtype=np.float32)
    changed = big.copy()
    changed[5000] += 1
    assert _key(_with_constant(big)) == _key(_with_constant(big.copy()))
    assert _key(_with_constant(big)) != _key(_with_constant(changed))


def _branches(k):
    x = hg.tensor("x", (3,), "float32")
    return hg.Graph([x], hg.ifelse(hg.sum(x) > 0, lambda: x * k, lambda: x - 1.0))


def test_inner_graphs_are_in_the_key():
    assert _key(_branches(2.0)) == _key(_branches(2.0))
    assert _key(_branches(2.0)) != _key(_branches(3.0))


def _closure(value):
    def f(v):
        return v * value
    return f


class _Opaque:
    pass


def test_host_ops_symbolic_dims_and_unstable_values_are_not_keyed():
    x = hg.tensor("x", (5,), "float64")
    with pytest.raises(graph_key.Unkeyable, match="Unique runs on the host"):
        _key(hg.Graph([x], hg.unique(x)))
    with pytest.raises(graph_key.Unkeyable, match="symbolic dim"):
        graph_key._type_id(TensorType("float32", (dim_var("n"), 3)))
    with pytest.raises(graph_key.Unkeyable, match=r"Scale\.fn is a .*_Opaque"):
        graph_key._canon(_Opaque(), "Scale.fn")
    with pytest.raises(graph_key.Unkeyable, match="closing over a value"):
        graph_key._canon(_closure(_Opaque()), "Scale.fn")
    # functions are values by their code and what they close over
    assert graph_key._canon(_closure(2.0), "f") == graph_key._canon(_closure(2.0), "f")
    assert graph_key._canon(_closure(2.0), "f") != graph_key._canon(_closure(3.0), "f")
    assert graph_key._canon((1, 1.0, True, "1", b"1", None), "p") != graph_key._canon([1, 1.0, True, "1", b"1", None], "p")
    assert len({repr(graph_key._canon(v, "p")) for v in (1, 1.0, True, np.float32(1), np.int64(1))}) == 5


def test_lookup_counts_and_logs_graphs_it_does_not_key(caplog):
    caplog.set_level(logging.INFO, logger="hlograph.cache")
    x = hg.tensor("x", (5,), "int16")  # a host segment no other test builds
    g = hg.Graph([x], hg.sum(hg.unique(x * 3)))
    v = np.array([3, 1, 3, -2, 5], np.int16)
    np.testing.assert_array_equal(hg.compile(g)(v), np.sum(np.unique(v * 3)))
    assert cache.stats()["module_skipped"] >= 1
    assert any(r.getMessage().startswith("graph not keyed: ") and "Unique runs on the host" in r.getMessage()
               for r in caplog.records), caplog.records
    # its device segment (x * 3, static shapes) is keyed on its own: found again
    assert _counts("module_misses", "module_writes") == (1, 1)
    executables.clear_cache()
    np.testing.assert_array_equal(hg.compile(g)(v), np.sum(np.unique(v * 3)))
    assert cache.stats()["module_hits"] == 1


def test_modules_calling_host_kernels_of_the_process_are_not_stored():
    from hlograph.runtime.load import parse_module
    module = parse_module("""
func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @hlograph_cumsum_float32(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}""")
    assert graph_key.entry_for(module, b"", b"\0" * 32) is None
    assert cache.stats()["module_skipped"] == 1


# --- hits, in this process and in new ones ------------------------------------------------

def test_hit_skips_lowering_and_passes_and_gives_the_same_results(cache_dir, monkeypatch):
    g, values = _graph(1.25), _values()
    cold = hg.compile(g).lower()
    text = cold.as_text(debug_info=True)
    first = cold.compile()(*values)
    np.testing.assert_allclose(first, hg.evaluate(g, *values), rtol=1e-6, atol=1e-6)
    assert _counts("module_misses", "module_writes", "module_hits") == (1, 1, 0)
    assert len(_modules(cache_dir)) == 1

    def refuse(*args, **kwargs):
        raise AssertionError("lowered again")

    monkeypatch.setattr(api, "lower_graph", refuse)
    monkeypatch.setattr("hlograph.passes.pipeline.run", refuse)
    executables.clear_cache()
    warm = hg.compile(_graph(1.25)).lower()
    np.testing.assert_array_equal(warm.compile()(*values), first)
    assert _counts("module_hits", "hits") == (1, 1)  # the module, then the executable
    # the module, parsed only when asked for, is the one lowered, locations included
    assert warm.as_text(debug_info=True) == text
    # calling a Function goes the same way
    fn = hg.compile(_graph(1.25))
    np.testing.assert_array_equal(fn(*values), first)
    assert cache.stats()["module_hits"] == 2


_SCRIPT = """
import json, sys
import numpy as np
import hlograph as hg
from hlograph.runtime import cache

x = hg.tensor("x", (4, 4), "float64")
a = hg.tensor("a", (4, 4), "float64")
spd = a @ hg.transpose(a) + 4.0 * hg.eye(4)
g = hg.Graph([x, a], hg.tanh(x * 1.5) @ hg.linalg.cholesky(spd))
rng = np.random.default_rng(0)
xv, av = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
out = hg.compile(g)(xv, av)
want = np.tanh(xv * 1.5) @ np.linalg.cholesky(av @ av.T + 4.0 * np.eye(4))
print(json.dumps({"stats": cache.stats(), "err": float(np.max(np.abs(out - want)))}))
"""


def _start(script, env):
    return subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def _finish(proc):
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1]), err


def test_new_process_skips_lowering(tmp_path, cache_dir):
    """Two processes lowering at once store one whole module entry; a third one
    finds it (and the executable), lowers nothing, runs the passes and XLA not at
    all, and LAPACK's custom calls still run."""
    script = tmp_path / "warm.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, HLOGRAPH_LOG="info", JAX_PLATFORMS="cpu")
    cold = [_finish(p) for p in [_start(script, env), _start(script, env)]]
    assert len(_modules(cache_dir)) == 1 and not list(cache_dir.glob(".tmp-*"))
    # (both lower, unless one of them starts after the other stored the entry: then it
    # finds it, on a loaded machine)
    assert any(r["stats"]["module_misses"] == 1 for r, _ in cold)
    for r, err in cold:
        assert r["err"] < 1e-12
        if r["stats"]["module_misses"] == 1:
            assert "lowered hlograph (" in err
        else:
            assert r["stats"]["module_hits"] == 1 and "lowered hlograph (" not in err
    warm, err = _finish(_start(script, env))
    s = warm["stats"]
    assert (s["module_hits"], s["module_misses"], s["hits"], s["misses"]) == (1, 0, 1, 0)
    assert warm["err"] < 1e-12
    assert "optimized module loaded" in err
    assert "lowered hlograph (" not in err and "hlograph.passes" not in err and "hlograph.compile" not in err


# --- damaged entries and concurrent writers ------------------------------------------------

_DAMAGE = {
    "truncated": lambda data: data[: len(data) // 2],
    "header_only": lambda data: data[: cache.HEADER.size],
    "flipped_byte": lambda data: data[:-5] + bytes([data[-5] ^ 0xFF]) + data[-4:],
    "empty": lambda data: b"",
    "garbage": lambda data: np.random.default_rng(1).bytes(len(data)),
}


@pytest.mark.parametrize("damage", sorted(_DAMAGE))
def test_damaged_module_entry_is_ignored_with_a_warning(cache_dir, caplog, damage):
    g, values = _graph(0.75), _values()
    want = hg.compile(g)(*values)
    (entry,) = _modules(cache_dir)
    entry.write_bytes(_DAMAGE[damage](entry.read_bytes()))
    caplog.set_level(logging.WARNING, logger="hlograph.cache")
    executables.clear_cache()
    np.testing.assert_array_equal(hg.compile(_graph(0.75))(*values), want)
    assert _counts("module_corrupt", "module_hits", "module_misses") == (1, 0, 2)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "is damaged" in warnings[0].getMessage() and entry.name in warnings[0].getMessage()
    # lowered again and the entry replaced: a whole one now
    executables.clear_cache()
    np.testing.assert_array_equal(hg.compile(_graph(0.75))(*values), want)
    assert cache.stats()["module_hits"] == 1


def test_valid_entry_with_a_bad_description_is_ignored(cache_dir, caplog):
    g, values = _graph(0.625), _values()
    want = hg.compile(g)(*values)
    (entry,) = _modules(cache_dir)
    key = entry.name[: -len(cache.MODULE_SUFFIX)]
    cache.ExecutableCache(cache_dir).write(key, b"\x05\0\0\0{\"a\":" + b"x" * 40, cache.MODULE_SUFFIX)
    caplog.set_level(logging.WARNING, logger="hlograph.cache")
    np.testing.assert_array_equal(hg.compile(_graph(0.625))(*values), want)
    assert cache.stats()["module_corrupt"] == 1
    assert any("not a module entry" in r.getMessage() for r in caplog.records)


def test_concurrent_writers_leave_one_whole_entry(cache_dir):
    lowered = hg.compile(_graph(1.75)).lower()
    module = lowered.module
    from hlograph.xla.mlir import module_fingerprint, module_to_bytecode
    entry = graph_key.entry_for(module, module_to_bytecode(module), module_fingerprint(module))
    key = lowered._key
    n = 8
    barrier = threading.Barrier(n)

    def work(_):
        barrier.wait()
        for _ in range(5):
            assert cache.store_module(key, entry)
            got = cache.load_module(key)
            assert got is None or got == entry

    with ThreadPoolExecutor(n) as pool:
        list(pool.map(work, range(n)))
    assert _modules(cache_dir) == [cache_dir / (key + cache.MODULE_SUFFIX)]
    assert not list(cache_dir.glob(".tmp-*"))
    assert cache.load_module(key) == entry
    assert cache.stats()["module_corrupt"] == 0


def test_cache_off_computes_no_key(monkeypatch):
    monkeypatch.setenv(cache.ENV_DIR, "off")
    monkeypatch.setattr(graph_key, "graph_key", lambda *a, **k: pytest.fail("keyed with the cache off"))
    values = _values()
    np.testing.assert_allclose(hg.compile(_graph(1.125))(*values), hg.evaluate(_graph(1.125), *values),
                               rtol=1e-6, atol=1e-6)
    assert _counts("module_hits", "module_misses", "module_skipped") == (0, 0, 0)
