"""The persistent executable cache: hits across the in-memory cache and across
processes, damaged entries, LRU eviction, ``off``, ``hlograph cache info|clear``
and threads and processes sharing one directory."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import types
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import hlograph as hg
from hlograph.tools import cli
from hlograph.xla import pjrt
from hlograph.runtime import cache, executables


@pytest.fixture(autouse=True)
def cache_dir(private_cache):
    """Every test gets its own cache directory (tests/conftest.py)."""
    return private_cache


def _graph(scale: float = 2.0) -> hg.Graph:
    x = hg.tensor("x", (6,), "float32")
    y = hg.tensor("y", (6,), "float32")
    return hg.Graph([x, y], hg.tanh(x * scale) + y * y)


_VALUES = [np.linspace(-2, 2, 6, dtype=np.float32), np.arange(6, dtype=np.float32) / 3]


def _run(graph: hg.Graph) -> np.ndarray:
    """Lowers, compiles (through the caches) and runs ``graph`` on ``_VALUES``."""
    return hg.compile(graph, pipeline="O0").lower().compile()(*_VALUES)


def _entries(directory) -> list:
    return sorted(directory.glob("*" + cache.SUFFIX))


def _only_entry(directory):
    (entry,) = _entries(directory)
    return entry


def _assert_valid(path) -> None:
    """``path`` is a whole entry that the cache accepts and jaxlib loads."""
    key = path.name[: -len(cache.SUFFIX)]
    payload = cache.ExecutableCache(path.parent).read(key)
    assert payload is not None
    client = executables.get_client("cpu")
    pjrt.deserialize_executable(client, payload, client.local_devices()[:1], pjrt.compile_options())


# --- hits -------------------------------------------------------------------------------

def test_hit_after_clearing_memory_cache_gives_same_results(cache_dir):
    g = _graph()
    first = _run(g)
    np.testing.assert_allclose(first, hg.evaluate(g, *_VALUES), rtol=1e-6, atol=1e-6)
    assert cache.stats()["misses"] == 1 and cache.stats()["writes"] == 1
    entry = _only_entry(cache_dir)
    _assert_valid(entry)

    executables.clear_cache()
    again = _run(g)
    s = cache.stats()
    assert s["hits"] == 1 and s["misses"] == 1 and s["corrupt"] == 0
    np.testing.assert_array_equal(again, first)
    assert _entries(cache_dir) == [entry]


def test_memory_cache_is_consulted_first():
    g = _graph(3.0)
    _run(g)
    _run(g)  # same process, in-memory hit: the disk is not read
    s = cache.stats()
    assert (s["misses"], s["hits"]) == (1, 0)


def test_different_modules_get_different_entries(cache_dir):
    a, b = _run(_graph(1.0)), _run(_graph(4.0))
    assert len(_entries(cache_dir)) == 2
    assert not np.array_equal(a, b)


def test_key_covers_module_devices_options_and_runtime():
    dev = [types.SimpleNamespace(platform="cpu", device_kind="cpu", id=0)]
    opts = pjrt.compile_options()
    base = cache.cache_key(b"module", dev, opts, "jax 1")
    assert base == cache.cache_key(b"module", dev, pjrt.compile_options(), "jax 1")
    other_dev = [types.SimpleNamespace(platform="cpu", device_kind="cpu", id=1)]
    other_kind = [types.SimpleNamespace(platform="cpu", device_kind="other", id=0)]
    two = dev + other_dev
    other_opts = pjrt.compile_options()
    other_opts.num_replicas = 2
    variants = [
        cache.cache_key(b"module2", dev, opts, "jax 1"),
        cache.cache_key(b"module", other_dev, opts, "jax 1"),
        cache.cache_key(b"module", other_kind, opts, "jax 1"),
        cache.cache_key(b"module", two, opts, "jax 1"),
        cache.cache_key(b"module", dev, other_opts, "jax 1"),
        cache.cache_key(b"module", dev, opts, "jax 2"),
    ]
    assert len({base, *variants}) == len(variants) + 1


_SCRIPT = """
import json
import numpy as np
import hlograph as hg
from hlograph.runtime import cache

x = hg.tensor("x", (5,), "float32")
graph = hg.Graph([x], hg.exp(x) * 3 - x)
out = hg.compile(graph)(np.linspace(-1, 1, 5, dtype=np.float32))
print(json.dumps({"stats": cache.stats(), "out": out.tolist()}))
"""


def _script_graph() -> hg.Graph:
    x = hg.tensor("x", (5,), "float32")
    return hg.Graph([x], hg.exp(x) * 3 - x)


def _start_script(path):
    return subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _finish_script(proc) -> dict:
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def test_processes_share_the_directory(tmp_path, cache_dir):
    """Two processes compiling at once leave one valid entry; a third one loads it."""
    script = tmp_path / "script.py"
    script.write_text(_SCRIPT)
    cold = [_finish_script(p) for p in [_start_script(script), _start_script(script)]]
    entry = _only_entry(cache_dir)
    _assert_valid(entry)
    assert all(r["stats"]["misses"] + r["stats"]["hits"] == 1 for r in cold)
    assert not list(cache_dir.glob(".tmp-*"))

    warm = _finish_script(_start_script(script))
    assert warm["stats"]["hits"] == 1 and warm["stats"]["misses"] == 0
    want = hg.evaluate(_script_graph(), np.linspace(-1, 1, 5, dtype=np.float32))
    for r in [*cold, warm]:
        np.testing.assert_allclose(r["out"], want, rtol=1e-6)
        assert r["out"] == warm["out"]


_TWO_DEVICES_SCRIPT = """
import json
import numpy as np
import hlograph as hg
from hlograph.xla import mlir, pjrt
from hlograph.runtime import cache, executables
from hlograph.xla import pjrt

x = hg.tensor("x", (4,), "float32")
graph = hg.Graph([x], hg.sin(x) + 1)
bytecode = mlir.module_to_bytecode(hg.compile(graph).lower().module)
devices = executables.get_client("cpu").local_devices()[:2]
out = []
for _ in range(2):
    for d in devices:
        executables.clear_cache()
        loaded, device = executables.compile_bytecode(bytecode, "cpu", d)
        (r,) = executables.Executable(loaded, device, graph.input_types, graph.output_types).run(
            [np.arange(4, dtype=np.float32)])
        out.append([d.id, pjrt.array_device(r).id, np.asarray(r).tolist()])
print(json.dumps({"stats": cache.stats(), "out": out}))
"""


def test_entries_are_per_device(tmp_path, cache_dir):
    """An executable is bound to the device it was compiled for: the same module
    on two devices makes two entries, and each hit runs on its own device."""
    script = tmp_path / "two_devices.py"
    script.write_text(_TWO_DEVICES_SCRIPT)
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=240)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (r["stats"]["misses"], r["stats"]["hits"]) == (2, 2)
    assert [(want, got) for want, got, _ in r["out"]] == [(0, 0), (1, 1), (0, 0), (1, 1)]
    x = np.arange(4, dtype=np.float32)
    for *_, values in r["out"]:
        np.testing.assert_allclose(values, np.sin(x) + 1, rtol=1e-6)
    assert len(_entries(cache_dir)) == 2


# --- damaged entries --------------------------------------------------------------------

def _flip(data: bytes, i: int) -> bytes:
    return data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:]


def _valid_header_garbage_payload(data: bytes, key: str) -> bytes:
    payload = np.random.default_rng(0).bytes(1000)
    return cache.HEADER.pack(cache.MAGIC, cache.FORMAT_VERSION, bytes.fromhex(key), len(payload),
                             hashlib.sha256(payload).digest()) + payload


_DAMAGE = {
    "flip_payload_byte": lambda data, key: _flip(data, len(data) // 2),
    "flip_last_byte": lambda data, key: _flip(data, len(data) - 1),
    "flip_magic": lambda data, key: _flip(data, 0),
    "flip_checksum": lambda data, key: _flip(data, cache.HEADER.size - 1),
    "wrong_version": lambda data, key: data[:8] + (99).to_bytes(4, "little") + data[12:],
    "truncated_half": lambda data, key: data[: len(data) // 2],
    "truncated_header": lambda data, key: data[: cache.HEADER.size - 3],
    "header_only": lambda data, key: data[: cache.HEADER.size],
    "extra_bytes": lambda data, key: data + b"\0",
    "empty": lambda data, key: b"",
    "garbage": lambda data, key: np.random.default_rng(1).bytes(len(data)),
    "valid_checksum_garbage_payload": _valid_header_garbage_payload,
}


@pytest.mark.parametrize("damage", sorted(_DAMAGE))
def test_damaged_entry_is_recompiled_and_replaced(cache_dir, damage):
    g = _graph(1.5)
    first = _run(g)
    entry = _only_entry(cache_dir)
    good = entry.read_bytes()
    key = entry.name[: -len(cache.SUFFIX)]
    entry.write_bytes(_DAMAGE[damage](good, key))

    executables.clear_cache()
    again = _run(g)
    np.testing.assert_array_equal(again, first)
    s = cache.stats()
    assert (s["corrupt"], s["hits"], s["misses"], s["writes"]) == (1, 0, 2, 2)
    assert _entries(cache_dir) == [entry]
    _assert_valid(entry)

    executables.clear_cache()
    np.testing.assert_array_equal(_run(g), first)
    assert cache.stats()["hits"] == 1


def test_entry_of_another_module_under_this_name_is_rejected(cache_dir):
    g, other = _graph(1.25), _graph(-0.5)
    first = _run(g)
    entry = _only_entry(cache_dir)
    _run(other)
    (other_entry,) = [e for e in _entries(cache_dir) if e != entry]
    shutil.copyfile(other_entry, entry)

    executables.clear_cache()
    np.testing.assert_array_equal(_run(g), first)
    assert cache.stats()["corrupt"] == 1
    assert entry.read_bytes() != other_entry.read_bytes()
    _assert_valid(entry)


@pytest.mark.parametrize("what", ["entry", "directory"])
def test_deleted_entry_or_directory_is_recompiled(cache_dir, what):
    g = _graph(0.75)
    first = _run(g)
    entry = _only_entry(cache_dir)
    if what == "entry":
        entry.unlink()
    else:
        shutil.rmtree(cache_dir)
    executables.clear_cache()
    np.testing.assert_array_equal(_run(g), first)
    s = cache.stats()
    assert (s["misses"], s["corrupt"], s["hits"]) == (2, 0, 0)
    _assert_valid(entry)


def test_damage_while_compiling_never_crashes_or_changes_results(cache_dir):
    """One thread keeps truncating, overwriting and deleting entries and the whole
    directory while another compiles (through the disk cache) and runs."""
    graphs = [_graph(s) for s in (0.5, 1.0, 2.0)]
    want = [_run(g) for g in graphs]
    stop = threading.Event()
    rng = np.random.default_rng(7)

    def vandal():
        while not stop.is_set():
            action = rng.integers(5)
            try:
                if action == 4:
                    shutil.rmtree(cache_dir, ignore_errors=True)
                    continue
                for e in _entries(cache_dir):
                    data = e.read_bytes()
                    if action == 0:
                        e.write_bytes(data[: rng.integers(len(data) + 1)])
                    elif action == 1:
                        e.write_bytes(rng.bytes(len(data)))
                    elif action == 2 and data:
                        e.write_bytes(_flip(data, int(rng.integers(len(data)))))
                    elif action == 3:
                        e.unlink()
            except OSError:  # the compiling thread replaced or removed it meanwhile
                pass
            stop.wait(float(rng.uniform(0, 0.004)))

    t = threading.Thread(target=vandal)
    t.start()
    try:
        for i in range(36):
            executables.clear_cache()
            np.testing.assert_array_equal(_run(graphs[i % 3]), want[i % 3])
    finally:
        stop.set()
        t.join()
    s = cache.stats()
    assert s["hits"] + s["misses"] == 39
    assert s["misses"] > 3  # entries were damaged or gone when compiles read them


def test_unwritable_directory_compiles_uncached(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(cache.ENV_DIR, str(blocker))
    g = _graph(2.5)
    with pytest.warns(RuntimeWarning, match="cannot write its executable cache"):
        out = _run(g)
    np.testing.assert_allclose(out, hg.evaluate(g, *_VALUES), rtol=1e-6, atol=1e-6)
    assert cache.stats()["write_errors"] == 1
    assert blocker.read_text() == "not a directory"


# --- size bound and LRU eviction ----------------------------------------------------------

def _key(i: int) -> str:
    return f"{i:064x}"


def test_eviction_removes_least_recently_used(tmp_path):
    c = cache.ExecutableCache(tmp_path / "c", max_bytes=10**9)
    size = cache.HEADER.size + 1000
    for i in range(5):
        assert c.write(_key(i), bytes([i]) * 1000)
        os.utime(c.path(_key(i)), (1000.0 + i, 1000.0 + i))
    c.touch(_key(0))  # used now: the most recent
    assert c.read(_key(0)) == bytes([0]) * 1000

    c.max_bytes = 4 * size
    assert c.write(_key(5), b"\5" * 1000)
    assert c.evict() == 2
    left = {e.path.name[:-len(cache.SUFFIX)] for e in c.entries()}
    assert left == {_key(0), _key(3), _key(4), _key(5)}
    assert c.total_bytes() <= c.max_bytes


def test_entry_larger_than_the_bound_is_not_stored(tmp_path):
    c = cache.ExecutableCache(tmp_path / "c", max_bytes=500)
    assert not c.write(_key(1), b"x" * 1000)
    assert c.entries() == []


def test_eviction_tolerates_entries_vanishing(tmp_path, monkeypatch):
    c = cache.ExecutableCache(tmp_path / "c", max_bytes=10**9)
    for i in range(3):
        c.write(_key(i), b"y" * 100)
    listed = c.entries()
    listed[0].path.unlink()  # another process evicts it between listing and removing
    monkeypatch.setattr(c, "entries", lambda: listed)
    c.max_bytes = 0
    c.evict()
    monkeypatch.undo()
    assert c.entries() == []


def test_eviction_lists_the_directory_only_when_the_estimate_passes_the_bound(tmp_path, monkeypatch):
    c = cache.ExecutableCache(tmp_path / "c", max_bytes=10 * (cache.HEADER.size + 100))
    listings = []
    real = cache.ExecutableCache.entries
    monkeypatch.setattr(cache.ExecutableCache, "entries", lambda self: listings.append(1) or real(self))
    for i in range(8):
        assert c.write(_key(i), b"z" * 100)
        c.evict()
    assert len(listings) == 1  # the first eviction lists; the writes since are counted
    for i in range(8, 12):  # past the bound: listed again, the oldest evicted
        c.write(_key(i), b"z" * 100)
        c.evict()
    assert len(listings) > 1 and len(real(c)) <= 10
    n = len(listings)
    c.evict(force=True)
    assert len(listings) == n + 1
    monkeypatch.setattr(cache, "_RESCAN_SECONDS", 0.0)  # an old listing: other processes write too
    c.evict()
    assert len(listings) == n + 2


def test_compiling_keeps_the_cache_under_its_bound(cache_dir, monkeypatch):
    graphs = [_graph(s) for s in (0.1, 0.2, 0.3, 0.4)]
    for g in graphs[:3]:
        _run(g)
    a, b, c = (e for e in sorted(_entries(cache_dir), key=lambda e: e.stat().st_mtime))
    for i, e in enumerate((a, b, c)):
        os.utime(e, (1000.0 * (i + 1),) * 2)
    sizes = [e.stat().st_size for e in (a, b, c)]
    executables.clear_cache()
    _run(graphs[0])  # a hit: the first entry becomes the most recently used
    assert cache.stats()["hits"] == 1

    limit = sum(sizes) - 1
    monkeypatch.setenv(cache.ENV_MAX_BYTES, str(limit))
    _run(graphs[3])
    left = _entries(cache_dir)
    assert a in left and b not in left
    assert len(left) >= 2 and sum(e.stat().st_size for e in left) <= limit
    assert cache.stats()["evictions"] >= 1


@pytest.mark.parametrize("text, expected", [
    ("", cache.DEFAULT_MAX_BYTES), ("123456", 123456), ("64k", 64 << 10), ("512M", 512 << 20),
    ("2GiB", 2 << 30), ("3 gb", 3 << 30),
])
def test_max_bytes_from_environment(monkeypatch, text, expected):
    monkeypatch.setenv(cache.ENV_MAX_BYTES, text)
    assert cache.max_bytes() == expected


@pytest.mark.parametrize("text", ["lots", "-5", "1.5G", "12x"])
def test_bad_max_bytes_raises(monkeypatch, text):
    monkeypatch.setenv(cache.ENV_MAX_BYTES, text)
    with pytest.raises(ValueError, match=cache.ENV_MAX_BYTES):
        cache.max_bytes()


# --- location and off ----------------------------------------------------------------------

def test_off_disables_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_DIR, "off")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    g = _graph(1.75)
    out = _run(g)
    np.testing.assert_allclose(out, hg.evaluate(g, *_VALUES), rtol=1e-6, atol=1e-6)
    assert cache.get_cache() is None
    assert list(tmp_path.rglob("*")) == []
    s = cache.stats()
    assert (s["uncached"], s["misses"], s["writes"]) == (1, 0, 0)


def test_default_directory(tmp_path, monkeypatch):
    monkeypatch.delenv(cache.ENV_DIR)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "hlograph"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache.cache_dir() == tmp_path / ".cache" / "hlograph"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert cache.cache_dir() == tmp_path / "Library" / "Caches" / "hlograph"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert cache.cache_dir() == tmp_path / "local" / "hlograph" / "Cache"


# --- hlograph cache info|clear --------------------------------------------------------------

def test_cli_info_and_clear(cache_dir, capsys):
    _run(_graph(0.6))
    _run(_graph(0.7))
    (cache_dir / "unrelated.txt").write_text("kept")
    # per graph: its executable and its optimized module (found by the graph's key)
    modules = sorted(cache_dir.glob("*" + cache.MODULE_SUFFIX))
    assert len(_entries(cache_dir)) == 2 and len(modules) == 2
    size = sum(e.stat().st_size for e in _entries(cache_dir) + modules)
    assert cli.main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"directory: {cache_dir}\n" in out
    assert "enabled: yes\n" in out and "entries: 4\n" in out
    assert f"({size} bytes)" in out and f"({cache.DEFAULT_MAX_BYTES} bytes)" in out

    assert cli.main(["cache", "clear"]) == 0
    assert "removed 4 entries" in capsys.readouterr().out
    assert _entries(cache_dir) == [] and not list(cache_dir.glob("*" + cache.MODULE_SUFFIX))
    assert (cache_dir / "unrelated.txt").read_text() == "kept"
    assert cli.main(["cache", "info"]) == 0
    assert "entries: 0\n" in capsys.readouterr().out


def test_cli_when_disabled(monkeypatch, capsys):
    monkeypatch.setenv(cache.ENV_DIR, "off")
    assert cli.main(["cache", "info"]) == 0
    assert "enabled: no" in capsys.readouterr().out
    assert cli.main(["cache", "clear"]) == 0
    assert "disabled" in capsys.readouterr().out


def test_cli_missing_directory_is_empty(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path / "nowhere"))
    assert cli.main(["cache", "info"]) == 0
    assert "entries: 0\n" in capsys.readouterr().out
    assert cli.main(["cache", "clear"]) == 0
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("action", ["info", "clear"])
def test_cli_errors_exit_1_without_traceback(tmp_path, monkeypatch, capsys, action):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    monkeypatch.setenv(cache.ENV_DIR, str(blocker))
    assert cli.main(["cache", action]) == 1
    err = capsys.readouterr().err
    assert "hlograph cache: error: cannot" in err and str(blocker) in err
    assert "Traceback" not in err
    monkeypatch.setenv(cache.ENV_DIR, str(tmp_path))
    monkeypatch.setenv(cache.ENV_MAX_BYTES, "huge")
    assert cli.main(["cache", action]) == 1
    assert cache.ENV_MAX_BYTES in capsys.readouterr().err


def test_cli_as_module(cache_dir):
    _run(_graph(0.9))
    proc = subprocess.run([sys.executable, "-m", "hlograph", "cache", "clear"], capture_output=True,
                          text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert "removed 2 entries" in proc.stdout  # the executable and the optimized module
    assert _entries(cache_dir) == [] and not list(cache_dir.glob("*" + cache.MODULE_SUFFIX))


# --- threads --------------------------------------------------------------------------------

def test_threads_compiling_the_same_graph_store_one_entry(cache_dir):
    g = _graph(1.1)
    n = 8
    barrier = threading.Barrier(n)

    def work(_):
        barrier.wait()
        return _run(g)

    with ThreadPoolExecutor(n) as pool:
        results = list(pool.map(work, range(n)))
    want = hg.evaluate(g, *_VALUES)
    for r in results:
        np.testing.assert_allclose(r, want, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(r, results[0])
    s = cache.stats()
    assert s["misses"] == 1 and s["writes"] == 1 and s["corrupt"] == 0
    _assert_valid(_only_entry(cache_dir))
    assert not list(cache_dir.glob(".tmp-*"))


def _graph_built_here() -> hg.Graph:
    x = hg.tensor("x", (6,), "float32")
    y = hg.tensor("y", (6,), "float32")
    return hg.Graph([x, y], hg.tanh(x * 2.0) + y * y)


def test_same_program_built_elsewhere_hits(cache_dir):
    # _graph() and _graph_built_here() build the same program on other source
    # lines: the modules differ only in their locations, which the key leaves out
    a, b = _graph(), _graph_built_here()
    la = hg.compile(a, pipeline="O0").lower()
    lb = hg.compile(b, pipeline="O0").lower()
    assert la.as_text(debug_info=True) != lb.as_text(debug_info=True)
    assert la.as_text() == lb.as_text()
    first = la.compile()(*_VALUES)
    executables.clear_cache()
    second = lb.compile()(*_VALUES)
    s = cache.stats()
    assert (s["misses"], s["hits"]) == (1, 1)
    assert len(_entries(cache_dir)) == 1
    np.testing.assert_array_equal(first, second)
    # in memory too: no disk read for the same program again
    lb.compile()
    assert cache.stats()["hits"] == 1


# --- compile plans ---------------------------------------------------------------------

def _big_graph(n: int = 600) -> hg.Graph:
    """A graph whose module ``compile_plan`` parses (too long to be small for the size
    policy) and rolls (a run of repeated ops)."""
    x = hg.tensor("x", (6,), "float32")
    y = x
    for i in range(n):
        y = hg.sin(y) if i % 2 else y + x
    return hg.Graph([x], y)


def test_stored_plan_loads_the_executable_without_planning(cache_dir, monkeypatch):
    g = _big_graph()
    first = _run_one(g)
    s = cache.stats()
    assert s["plan_writes"] == 1 and s["misses"] == 1
    (plan_file,) = cache_dir.glob("*" + cache.PLAN_SUFFIX)
    stored = cache.StoredPlan.decode(cache.ExecutableCache(cache_dir).read(
        plan_file.name[: -len(cache.PLAN_SUFFIX)], cache.PLAN_SUFFIX))
    assert stored.changed  # the run of repeated ops was rolled into a loop

    executables.clear_cache()

    def no_planning(*args, **kwargs):
        raise AssertionError("the module was planned again")

    monkeypatch.setattr(executables, "compile_plan", no_planning)
    again = _run_one(g)
    s = cache.stats()
    assert s["plan_hits"] == 1 and s["hits"] == 1 and s["misses"] == 1
    np.testing.assert_array_equal(again, first)


def test_damaged_plan_is_a_miss_and_planned_again(cache_dir):
    g = _big_graph()
    first = _run_one(g)
    (plan_file,) = cache_dir.glob("*" + cache.PLAN_SUFFIX)
    key = plan_file.name[: -len(cache.PLAN_SUFFIX)]
    cache.ExecutableCache(cache_dir).write(key, b'{"ynn_fusion": 1}', cache.PLAN_SUFFIX)
    executables.clear_cache()
    again = _run_one(g)
    s = cache.stats()
    assert s["plan_corrupt"] == 1 and s["plan_writes"] == 3 and s["hits"] == 1  # the test wrote one
    np.testing.assert_array_equal(again, first)
    assert cache.StoredPlan.decode(cache.ExecutableCache(cache_dir).read(key, cache.PLAN_SUFFIX)).changed


def test_plan_whose_executable_is_gone_compiles_again(cache_dir):
    g = _big_graph()
    first = _run_one(g)
    for entry in _entries(cache_dir):
        entry.unlink()
    executables.clear_cache()
    np.testing.assert_array_equal(_run_one(g), first)
    s = cache.stats()
    assert s["plan_hits"] == 1 and s["misses"] == 2 and len(_entries(cache_dir)) == 1


def test_plan_key_covers_the_emitters_setting(monkeypatch):
    client = executables.get_client("cpu")
    device = client.local_devices()[0]
    fingerprint = hashlib.sha256(b"a module").digest()
    keys = set()
    for setting in ("auto", "on", "off"):
        monkeypatch.setenv(pjrt.FUSION_EMITTERS_ENV, setting)
        keys.add(executables.plan_key(client, device, fingerprint))
    keys.add(executables.plan_key(client, device, hashlib.sha256(b"another").digest()))
    assert len(keys) == 4


def test_small_modules_store_no_plan(cache_dir):
    _run(_graph())
    assert not list(cache_dir.glob("*" + cache.PLAN_SUFFIX))
    assert cache.stats()["plan_writes"] == 0


def _run_one(graph: hg.Graph) -> np.ndarray:
    return hg.compile(graph, pipeline="O0").lower().compile()(_VALUES[0])
