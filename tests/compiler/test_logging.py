"""The ``hlograph`` loggers: each compile stage with its time, cache hits and
misses, ``HLOGRAPH_LOG`` from the shell, and silence on the per-call path."""

import logging
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import hlograph as hg
from hlograph.runtime import executables
from hlograph.xla import log

TIME = re.compile(r" in \d+\.\d\d ms")


def records(caplog, name):
    return [r for r in caplog.records if r.name == name]


def fresh_graph(scale):
    # a constant no other test uses: the module is new to both executable caches
    x = hg.tensor("x", (3, 4), "float32")
    y = hg.tensor("y", (4, 2), "float32")
    return hg.Graph([x, y], hg.tanh(hg.matmul(x, y)) * scale)


def test_compile_logs_each_stage_with_its_time(caplog, tmp_path, monkeypatch):
    monkeypatch.setenv("HLOGRAPH_CACHE_DIR", str(tmp_path))
    caplog.set_level(logging.INFO, logger="hlograph")
    g = fresh_graph(1.2345)
    fn = hg.compile(g, pipeline="O2")
    x = np.ones((3, 4), np.float32)
    y = np.ones((4, 2), np.float32)
    np.testing.assert_allclose(fn(x, y), np.tanh(x @ y) * np.float32(1.2345), rtol=1e-6)

    lower = [r.getMessage() for r in records(caplog, "hlograph.lower")]
    assert any(m.startswith("specialized ") and TIME.search(m) for m in lower), lower
    assert any(m.startswith("lowered hlograph (") and TIME.search(m) for m in lower), lower

    passes = [r.getMessage() for r in records(caplog, "hlograph.passes")]
    assert any(m.startswith("pipeline O2") and TIME.search(m) for m in passes), passes
    per_pass = [m for m in passes if m.startswith("pass ")]
    assert len(per_pass) >= 2 and all(TIME.search(m) for m in per_pass)
    assert any(m.startswith("pass hlograph-simplify in ") for m in per_pass), per_pass

    compiled = [r.getMessage() for r in records(caplog, "hlograph.compile")]
    assert len(compiled) == 1 and compiled[0].startswith("XLA compiled ") and TIME.search(compiled[0])

    cache = [r.getMessage() for r in records(caplog, "hlograph.cache")]
    assert any(m.startswith("on-disk miss ") and str(tmp_path) in m for m in cache), cache

    # stages run in order: specialize, lower, passes, compile
    order = [r.name for r in caplog.records if r.name != "hlograph.cache"]
    assert order.index("hlograph.lower") < order.index("hlograph.passes") < order.index("hlograph.compile")


def test_second_compile_logs_cache_hits(caplog, tmp_path, monkeypatch):
    monkeypatch.setenv("HLOGRAPH_CACHE_DIR", str(tmp_path))
    g = fresh_graph(2.5)
    hg.compile(g).lower().compile()
    caplog.set_level(logging.INFO, logger="hlograph")

    hg.compile(g).lower().compile()
    cache = [r.getMessage() for r in records(caplog, "hlograph.cache")]
    # the graph's key finds the optimized module (no lowering), then the executable
    assert len(cache) == 2 and cache[1].startswith("in-memory hit "), cache
    assert re.match(r"graph key [0-9a-f]{64}: optimized module loaded from .* \(lowering and passes skipped\)",
                    cache[0]) and TIME.search(cache[0]), cache
    assert not any(m.startswith("lowered ") for m in map(logging.LogRecord.getMessage,
                                                          records(caplog, "hlograph.lower")))
    assert not records(caplog, "hlograph.passes")
    assert not records(caplog, "hlograph.compile")

    caplog.clear()
    executables.clear_cache()
    hg.compile(g).lower().compile()
    cache = [r.getMessage() for r in records(caplog, "hlograph.cache")]
    assert len(cache) == 2 and cache[1].startswith("on-disk hit ") and TIME.search(cache[1]), cache
    assert re.search(r"on-disk hit [0-9a-f]{64} in ", cache[1])
    assert not records(caplog, "hlograph.compile")


def test_disabled_disk_cache_is_logged(caplog, monkeypatch):
    monkeypatch.setenv("HLOGRAPH_CACHE_DIR", "off")
    caplog.set_level(logging.INFO, logger="hlograph")
    hg.compile(fresh_graph(3.75)).lower().compile()
    cache = [r.getMessage() for r in records(caplog, "hlograph.cache")]
    assert cache == ["on-disk cache off (HLOGRAPH_CACHE_DIR=off): compiling"]
    assert len(records(caplog, "hlograph.compile")) == 1


def test_host_segment_logs_its_build(caplog):
    caplog.set_level(logging.INFO, logger="hlograph")
    x = hg.tensor("x", (7,), "float64")
    g = hg.Graph([x], hg.sum(hg.unique(x * 1.625)))
    fn = hg.compile(g)
    v = np.array([1.0, 2.0, 2.0, 3.0, -1.0, 3.0, 0.5])
    np.testing.assert_allclose(fn(v), np.sum(np.unique(v * 1.625)))
    host = [r.getMessage() for r in records(caplog, "hlograph.host")]
    assert host and all(TIME.search(m) for m in host), host
    assert any("Unique" in m for m in host), host
    lower = [r.getMessage() for r in records(caplog, "hlograph.lower")]
    assert any(re.search(r"runs in \d+ segments \(.*host", m) for m in lower), lower


def test_nothing_logs_on_the_per_call_path(caplog):
    fn = hg.compile(fresh_graph(4.125))
    x = np.ones((3, 4), np.float32)
    y = np.ones((4, 2), np.float32)
    fn(x, y)
    fn(x, y)  # the C++ dispatcher has the signature now
    caplog.set_level(logging.DEBUG, logger="hlograph")
    for _ in range(3):
        fn(x, y)
    compiled = fn.lower(x, y).compile()
    caplog.clear()
    compiled(x, y)
    compiled(x, y)
    assert [r for r in caplog.records if r.name.startswith("hlograph")] == []


def test_debug_level_logs_in_memory_misses(caplog, tmp_path, monkeypatch):
    monkeypatch.setenv("HLOGRAPH_CACHE_DIR", str(tmp_path))
    caplog.set_level(logging.DEBUG, logger="hlograph")
    hg.compile(fresh_graph(5.0625)).lower().compile()
    cache = [r.getMessage() for r in records(caplog, "hlograph.cache")]
    assert any(re.match(r"in-memory miss [0-9a-f]+ for ", m) for m in cache), cache


def test_loggers_form_one_tree():
    for child in (log.LOWER, log.PASSES, log.COMPILE, log.CACHE, log.HOST):
        assert child.parent is log.logger
        assert child.name.startswith("hlograph.")
    assert logging.getLogger("hlograph") is log.logger


def _run(code, env_value):
    env = dict(os.environ, JAX_PLATFORMS="cpu", HLOGRAPH_CACHE_DIR="off")
    env.pop("HLOGRAPH_LOG", None)
    if env_value is not None:
        env["HLOGRAPH_LOG"] = env_value
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


_PROGRAM = """
import numpy as np, hlograph as hg
x = hg.tensor("x", (2,), "float32")
print(hg.compile(hg.Graph([x], hg.exp(x) + 1.0))(np.zeros(2, np.float32)))
"""


@pytest.mark.parametrize("value", ["info", "DEBUG"])
def test_env_variable_prints_stage_lines_to_stderr(value):
    proc = _run(_PROGRAM, value)
    assert proc.returncode == 0, proc.stderr
    assert "[2. 2.]" in proc.stdout
    for stage in ("hlograph.lower: lowered ", "hlograph.passes: pipeline O2 ",
                  "hlograph.compile: XLA compiled ", "hlograph.cache: on-disk cache off"):
        assert stage in proc.stderr, proc.stderr
    assert ("hlograph.cache: in-memory miss" in proc.stderr) == (value == "DEBUG")


def test_without_env_variable_nothing_is_printed():
    proc = _run(_PROGRAM, None)
    assert proc.returncode == 0, proc.stderr
    assert "hlograph." not in proc.stderr


def test_bad_env_value_warns_and_keeps_logging_off():
    proc = _run("import warnings; warnings.simplefilter('always')\n" + _PROGRAM, "loud")
    assert proc.returncode == 0, proc.stderr
    assert "HLOGRAPH_LOG='loud' is not a log level" in proc.stderr
    assert "hlograph.lower:" not in proc.stderr
