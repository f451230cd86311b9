"""Python's cyclic collector is off while a graph lowers and compiles, and back as
it was afterwards: after a success, after a failure, when the user had turned it
off, and with several threads compiling at once."""

import gc
import threading

import numpy as np
import pytest

import hlograph as hg
from hlograph.frontend.graph import Apply, Op


def _chain(n=30):
    x = hg.tensor("x", (4,), "float32")
    v = x
    for i in range(n):
        v = hg.sin(v) + x * (1.0 + i * 1e-3)
    return hg.Graph([x], v)


def _record_gc_state(monkeypatch, module, name, seen):
    """Makes ``module.name`` note whether the collector is on each time it is called."""
    fn = getattr(module, name)

    def wrapped(*args, **kwargs):
        seen.append((name, gc.isenabled()))
        return fn(*args, **kwargs)
    monkeypatch.setattr(module, name, wrapped)


def test_the_collector_is_off_while_lowering_and_compiling(monkeypatch):
    from hlograph.compiler import api
    seen = []
    _record_gc_state(monkeypatch, api, "lower_graph", seen)
    _record_gc_state(monkeypatch, api.executables, "compile_bytecode", seen)
    g = _chain()
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(hg.compile(g)(x), hg.evaluate(g, x), rtol=1e-5)
    hg.compile(_chain(31)).lower(((4,), "float32")).compile()
    assert seen == [("lower_graph", False), ("compile_bytecode", False)] * 2
    assert gc.isenabled()


def test_collector_back_on_after_a_failed_lowering():
    class Nowhere(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type])

    x = hg.tensor("x", (2,), "float32")
    fn = hg.compile(hg.Graph([x], Nowhere()(x)))
    with pytest.raises(NotImplementedError, match="Nowhere"):
        fn(np.zeros(2, np.float32))
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_user_stays_off():
    gc.disable()
    try:
        fn = hg.compile(_chain())
        fn(np.zeros(4, np.float32))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_threads_compiling_at_once_leave_the_collector_on():
    errors = []

    def work(i):
        try:
            g = _chain(20 + i)
            x = np.full(4, i, np.float32)
            np.testing.assert_allclose(hg.compile(g)(x), hg.evaluate(g, x), rtol=1e-5)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and gc.isenabled()


def _import_in_a_new_process(env_value):
    import os
    import subprocess
    import sys
    env = dict(os.environ)
    env.pop("HLOGRAPH_GC_FREEZE", None)
    if env_value is not None:
        env["HLOGRAPH_GC_FREEZE"] = env_value
    code = "import gc; import hlograph; print(gc.get_freeze_count())"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_import_freezes_the_objects_alive_then_unless_told_not_to():
    """``import hlograph`` moves the objects of the libraries imported so far to the
    collector's permanent generation; HLOGRAPH_GC_FREEZE=off leaves them; any other
    value than on/off/1/0/auto is an error naming the variable."""
    frozen = _import_in_a_new_process(None)
    assert frozen.returncode == 0, frozen.stderr
    assert int(frozen.stdout) > 10_000
    for value in ("off", "0"):
        kept = _import_in_a_new_process(value)
        assert kept.returncode == 0 and int(kept.stdout) == 0, kept.stderr
    bad = _import_in_a_new_process("sometimes")
    assert bad.returncode != 0 and "HLOGRAPH_GC_FREEZE='sometimes'" in bad.stderr
