"""Many threads calling and compiling at once, and the resources compiling many
graphs holds on to."""

import gc
import weakref
from concurrent.futures import ThreadPoolExecutor

import jax
import numpy as np
import pytest

import hlograph as hg
from hlograph.xla.mlir import ir
from hlograph.runtime import executables


def test_eight_threads_thousand_calls_each_get_their_own_results():
    x = hg.tensor("x", (4,), "float32")
    s = hg.tensor("s", (), "float32")
    g = hg.Graph([x, s], [hg.sin(x) * s, hg.sum(x)])
    fn = hg.compile(g)

    def work(t):
        rng = np.random.default_rng(t)
        bad = 0
        for i in range(1000):
            v = rng.normal(size=4).astype(np.float32)
            scale = np.float32(t * 1000 + i)
            arg = v if i % 2 else jax.device_put(v)
            out, total = fn(arg, scale) if i % 3 else fn(arg, scale, output="device")
            want = np.sin(v) * scale
            if not (np.allclose(np.asarray(out), want, rtol=1e-5)
                    and np.isclose(np.asarray(total), v.sum(), rtol=1e-5, atol=1e-6)):
                bad += 1
        return bad

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(work, range(8))) == [0] * 8


def _graph(kind: int, k: int) -> hg.Graph:
    """One of several graph shapes, each with its own constant ``k``: distinct
    modules that exercise lowering, passes, the jax bridge and host segments."""
    x = hg.tensor("x", (3, 3), "float64")
    if kind == 0:
        out = hg.cumsum(hg.exp(x) * k, axis=0)
    elif kind == 1:
        out = hg.inv(x + k * np.eye(3)) @ x
    elif kind == 2:
        out = hg.sort(x * k, axis=-1)[:, ::-1]
    else:
        out = hg.sum(x[x > 0] * k)
    return hg.Graph([x], out)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # e.g. a host op found without its Numba code
def test_compiling_from_many_threads_at_once(rng):
    values = rng.normal(size=(3, 3))

    def work(t):
        errors = []
        for j in range(6):
            kind, k = (t + j) % 4, float(t * 10 + j + 2)
            g = _graph(kind, k)
            got = hg.compile(g)(values)
            want = hg.evaluate(g, values)
            if not np.allclose(got, want, rtol=1e-10, atol=1e-12):
                errors.append((t, j, kind))
        return errors

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert sum(pool.map(work, range(8)), []) == []


def test_one_function_compiles_each_signature_once_under_contention(monkeypatch):
    from hlograph.compiler import api

    x = hg.tensor("x", (None,), "float32")
    fn = hg.compile(hg.Graph([x], x * 2))
    compiled = []
    original = api.Lowered.compile

    def counting_compile(self):
        compiled.append(self.graph.input_types[0].shape[0])
        return original(self)

    monkeypatch.setattr(api.Lowered, "compile", counting_compile)

    def work(t):
        v = np.arange(1 + t % 3, dtype=np.float32)
        return all(np.array_equal(fn(v), v * 2) for _ in range(50))

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(work, range(16)))
    assert sorted(compiled) == [1, 2, 3]


def test_compiling_many_graphs_keeps_resources_bounded(monkeypatch):
    monkeypatch.setattr(executables, "_CACHE_CAPACITY", 16)
    values = np.ones((3,), np.float32)
    gc.collect()
    contexts_before = ir.Context._get_live_count()
    refs = []
    for i in range(40):
        x = hg.tensor("x", (3,), "float32")
        fn = hg.compile(hg.Graph([x], x * float(i) + 1.0))
        assert fn(values)[0] == i + 1
        refs.append(weakref.ref(fn))
        assert executables.cache_size() <= 16
    del fn
    gc.collect()
    assert all(r() is None for r in refs)  # nothing keeps dropped functions alive
    # nor their MLIR contexts, but the one this thread lowers its next modules in
    # (xla.mlir.lowering_context; it may be new since, replacing one counted before)
    assert ir.Context._get_live_count() <= contexts_before + 1
