"""In-module host calls: static-shape host ops as XLA FFI custom calls on the CPU.

Each distinct structure (op, props, types) compiles one Numba wrapper (~0.5 s),
so the cases reuse a few graph shapes.
"""

import numpy as np
import pytest

import hlograph as hg
from hlograph import Apply, Op
from hlograph.frontend.ops import dynamic as dyn
from hlograph.runtime.host import calls, generated
from hlograph.compiler.placement import HOST_CALL, placement
from hlograph.runtime.host.segment import HostCompileError
from hlograph.compiler.partition import DEVICE, HOST, partition
from hlograph.tests.helpers import assert_same, compare_with_perform, random_array, run_in_new_processes


def mask_graph(dtype, shape=(4, 3)):
    """exp-like device op, mask_assign in the middle, a device op after it."""
    x = hg.tensor("x", shape, dtype)
    y = x * 2
    z = dyn.mask_assign(y, y > 0, 7)
    return hg.Graph([x], z + 1)


def one_device_segment(graph, platform="cpu"):
    segs = partition(graph, platform)
    return len(segs) == 1 and segs[0].kind == DEVICE and len(segs[0].host_calls) >= 1


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex128"])
@pytest.mark.parametrize("fill", ["random", "none", "all"])
def test_mask_assign_in_module_matches_evaluate(dtype, fill, rng):
    g = mask_graph(dtype)
    assert one_device_segment(g)
    x = random_array(rng, (4, 3), dtype, "nonzero")
    if fill == "none":
        x = -np.abs(x) if dtype != "complex128" else -np.abs(x.real) + 0j
    elif fill == "all":
        x = np.abs(x) + 1
    compare_with_perform(g, [x.astype(dtype)])


@pytest.mark.parametrize("shape", [(), (0, 3), (3, 0)], ids=str)
def test_mask_assign_in_module_0d_and_size_0(shape):
    g = mask_graph("float32", shape)
    assert one_device_segment(g)
    compare_with_perform(g, [np.ones(shape, np.float32)])
    compare_with_perform(g, [-np.ones(shape, np.float32)])


def test_dtypes_numba_lacks_keep_their_host_segments():
    assert [s.kind for s in partition(mask_graph("float16"), "cpu")] == [DEVICE, HOST, DEVICE]


def test_mask_assign_lowers_to_one_module_with_a_custom_call():
    g = mask_graph("float32")
    lowered = hg.compile(g).lower()
    assert lowered.program is None  # one device module, no host segment
    text = lowered.as_text()
    assert text.count("stablehlo.custom_call @hlograph_host_maskassign_") == 1
    assert "api_version = 4" in text and "backend_config = {}" in text


def test_mask_assign_per_element_values_and_row_values(rng):
    x = hg.tensor("x", (5, 2), "float64")
    m = hg.tensor("m", (5,), "bool")
    v = hg.tensor("v", (2,), "float64")          # one row for every selected row
    e = hg.tensor("e", (3, 2), "float64")        # one row per selected row: 3 true entries
    g = hg.Graph([x, m, v, e], [dyn.mask_assign(hg.exp(x), m, v), dyn.mask_assign(x, m, hg.sin(e))])
    assert one_device_segment(g)
    mask = np.array([True, False, True, True, False])
    compare_with_perform(g, [rng.normal(size=(5, 2)), mask, rng.normal(size=2), rng.normal(size=(3, 2))])


def test_error_inside_the_handler_is_a_python_exception_naming_the_op(rng):
    x = hg.tensor("x", (5,), "float64")
    m = hg.tensor("m", (5,), "bool")
    v = hg.tensor("v", (2,), "float64")
    fn = hg.compile(hg.Graph([x, m, v], dyn.mask_assign(x * 2, m, v) + 1))
    assert fn.lower().program is None
    ok = np.array([True, False, True, False, False])
    np.testing.assert_array_equal(fn(np.ones(5), ok, np.array([3.0, 4.0])), [4, 3, 5, 3, 3])
    with pytest.raises(ValueError, match="MaskAssign: values do not broadcast to the elements"):
        np.asarray(fn(np.ones(5), np.ones(5, bool), np.array([3.0, 4.0])))
    # the executable still works after a failed call
    np.testing.assert_array_equal(fn(np.ones(5), ok, np.array([1.0, 2.0])), [2, 3, 3, 3, 3])


@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("int32", "int64"), ("float64", "float32")],
                         ids=str)
def test_isin_in_module_with_repeated_values(dtypes, rng):
    a = hg.tensor("a", (3, 4), dtypes[0])
    b = hg.tensor("b", (6,), dtypes[1])
    g = hg.Graph([a, b], hg.where(dyn.isin(a + 1, b), a, 0) * 2)
    assert one_device_segment(g)
    av = rng.integers(-3, 4, size=(3, 4)).astype(dtypes[0])
    bv = rng.integers(-3, 4, size=6).astype(dtypes[1])
    compare_with_perform(g, [av, bv])
    compare_with_perform(g, [av, np.full(6, 100, dtypes[1])])   # nothing found
    compare_with_perform(g, [np.zeros((3, 4), dtypes[0]), np.ones(6, dtypes[1])])  # all found
    if dtypes[0].startswith("float"):
        av = av.copy()
        av[0, 0] = np.nan
        compare_with_perform(g, [av, np.array([np.nan, 0, 1, 2, 3, 4], dtypes[1])])


def test_value_dependent_ops_keep_their_host_segments():
    x = hg.tensor("x", (8,), "float32")
    g = hg.Graph([x], hg.sum(dyn.boolean_mask(x, x > 0)) + hg.sum(dyn.unique(x)))
    kinds = [s.kind for s in partition(g, "cpu")]
    assert HOST in kinds
    assert all(not s.host_calls for s in partition(g, "cpu"))


def test_other_platforms_and_the_switch_use_host_segments(monkeypatch, rng):
    g = mask_graph("float64")
    assert [s.kind for s in partition(g, "gpu")] == [DEVICE, HOST, DEVICE]
    assert [s.kind for s in partition(g, "tpu")] == [DEVICE, HOST, DEVICE]
    x = rng.normal(size=(4, 3))
    in_module = hg.compile(g)(x)
    monkeypatch.setenv(calls.ENV_VAR, "0")
    assert not calls.enabled()
    assert [s.kind for s in partition(g, "cpu")] == [DEVICE, HOST, DEVICE]
    fn = hg.compile(g)
    assert fn.lower().program is not None
    assert "segment 1: host (Numba" in fn.explain()
    assert_same(fn(x), in_module)


def test_explain_says_the_op_runs_in_module():
    text = hg.compile(mask_graph("float32")).explain()
    lines = text.splitlines()
    assert lines[0] == "1 segment"
    assert lines[1].startswith("segment 0: device (StableHLO, PJRT; 1 in-module host call (XLA FFI, Numba))")
    assert "MaskAssign: no StableHLO lowering (values are consumed in mask order); " \
           "host (in-module FFI call, Numba)" in text


def test_unknown_dims_specialize_into_one_module(rng):
    """A graph with unknown dims, and values after a value-dependent op: the static-shape
    host op joins the device segment, which is lowered per shape with the FFI call."""
    x = hg.tensor("x", (None,), "float64")
    u = dyn.unique(x)
    g = hg.Graph([x], dyn.mask_assign(u * 2, u > 0, -1.0) + 1)
    segs = partition(g, "cpu")
    assert [s.kind for s in segs] == [HOST, DEVICE] and len(segs[1].host_calls) == 1
    assert "lowered at run time" in hg.compile(g).explain()
    fn = hg.compile(g)
    for n in (0, 1, 9):
        xv = rng.integers(-4, 5, size=n).astype(np.float64)
        assert_same(fn(xv), hg.evaluate(g, xv))


# --- user ops ---------------------------------------------------------------------------------
class ClampSorted(Op):
    """A user op with a static output: sort ``x``, clip at ``hi`` (a host-only formulation)."""

    __props__ = ("hi",)

    def __init__(self, hi: float):
        self.hi = hi

    def make_node(self, x):
        x = hg.frontend.ops.basic.as_variable(x)
        return Apply(self, [x], [x.type, hg.TensorType("int64", ())])

    def perform(self, node, inputs):
        (x,) = inputs
        y = np.minimum(np.sort(x), self.hi).astype(x.dtype)
        return [y, np.array(np.count_nonzero(x > self.hi), np.int64)]


@hg.host.register(ClampSorted)
def numba_clamp_sorted(op, node):
    hi = op.hi

    def clamp_sorted(x):
        y = np.sort(x)
        count = 0
        for i in range(y.shape[0]):
            if y[i] > hi:
                y[i] = hi
                count += 1
        return y, count
    return clamp_sorted


class WrongShape(Op):
    """A user op whose host implementation disagrees with its declared type."""

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0].copy()]


@hg.host.register(WrongShape)
def numba_wrong_shape(op, node):
    def wrong_shape(x):
        return x[1:]
    return wrong_shape


class NotNumba(Op):
    """A user op whose host implementation Numba cannot compile."""

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0].copy()]


@hg.host.register(NotNumba)
def numba_not_numba(op, node):
    def not_numba(x):
        return {"x": x}["x"] + object()
    return not_numba


def test_an_implementation_numba_cannot_compile_is_an_error_naming_the_op():
    x = hg.tensor("x", (3,), "float64")
    fn = hg.compile(hg.Graph([x], NotNumba()(x) * 2))
    with pytest.raises(HostCompileError, match="Numba cannot compile the in-module host call of NotNumba: "
                                             "Untyped global name 'object'"):
        fn.lower()


def test_user_registered_op_runs_in_module(rng):
    x = hg.tensor("x", (10,), "float32")
    y, count = ClampSorted(0.5)(hg.exp(x) - 1)
    g = hg.Graph([x], [y * 2, count + 1])
    assert one_device_segment(g)
    fn = hg.compile(g)
    assert fn.lower().program is None
    assert "ClampSorted: no lowering rule; host (in-module FFI call, Numba)" in fn.explain()
    compare_with_perform(g, [rng.normal(size=10).astype(np.float32)])
    compare_with_perform(g, [np.full(10, -3, np.float32)])


def test_a_wrong_result_shape_is_an_error_naming_the_op():
    x = hg.tensor("x", (4,), "float64")
    fn = hg.compile(hg.Graph([x], WrongShape()(x + 1)))
    assert fn.lower().program is None
    with pytest.raises(ValueError, match=r"WrongShape: the host implementation returned shape \(3,\) "
                                           r"for output 0 of type float64\[4\]"):
        np.asarray(fn(np.ones(4)))


def test_targets_are_compiled_once_per_structure():
    before = len(calls._TARGETS)
    for _ in range(2):
        hg.compile(mask_graph("int64")).lower()
    names = {t.name for t in calls._TARGETS.values()}
    assert len(calls._TARGETS) - before <= 1
    assert all(n.startswith("hlograph_host_") for n in names)
    assert len(names) == len(calls._TARGETS)


_SECOND_PROCESS = r"""
import json, sys
import numpy as np
import hlograph as hg
from hlograph.frontend.ops import dynamic as dyn
from hlograph.runtime.host import calls, generated
from hlograph.compiler.placement import HOST_CALL, placement

x = hg.tensor("x", (5,), "float64")
m = hg.tensor("m", (5,), "bool")
v = hg.tensor("v", (2,), "float64")
fn = hg.compile(hg.Graph([x, m, v], dyn.mask_assign(x * 2, m, v) + 1))
ok = np.array([True, False, True, False, False])
out = fn(np.ones(5), ok, np.array([3.0, 4.0])).tolist()
try:
    fn(np.ones(5), np.ones(5, bool), np.array([3.0, 4.0]))
    error = None
except ValueError as e:
    error = str(e)
(target,) = calls._TARGETS.values()
print(json.dumps({"out": out, "error": error, "handler_cache_hits": target.handler.cache_hits,
                  "name": target.name}))
"""


def test_a_new_process_loads_the_wrapper_from_disk(tmp_path):
    # the first process compiles the wrapper and Numba keeps it next to its generated
    # module in <cache>/numba; the second loads it (no Numba compile of the wrapper) and
    # its error path still finds the op (its key is derived from the target's name)
    reports = run_in_new_processes(tmp_path, _SECOND_PROCESS)
    first, second = reports
    assert first["out"] == second["out"] == [4, 3, 5, 3, 3]
    for r in reports:
        assert "MaskAssign: values do not broadcast to the elements" in r["error"]
    assert first["name"] == second["name"]
    assert (first["handler_cache_hits"], second["handler_cache_hits"]) == (0, 1)
    generated = list((tmp_path / "cache" / "numba").glob(first["name"] + "_*.py"))
    assert len(generated) == 1


def test_target_names_cover_constant_inputs():
    # two wrappers that differ only in a constant input are two targets with their
    # own names (a wrapper loaded from disk by name must not serve the other)
    x = hg.tensor("x", (4,), "int64")
    a = hg.Graph([x], hg.isin(x, np.array([1, 2], np.int64)) * 1)
    b = hg.Graph([x], hg.isin(x, np.array([3, 4], np.int64)) * 1)
    xs = np.array([1, 2, 3, 4], np.int64)
    np.testing.assert_array_equal(hg.compile(a)(xs), [1, 1, 0, 0])
    np.testing.assert_array_equal(hg.compile(b)(xs), [0, 0, 1, 1])
    import re
    nodes = [n for g in (a, b) for n in g.toposort() if placement(n, "cpu").where == HOST_CALL]
    # the hash itself differs (not only a per-process suffix for a second structure)
    hashes = {re.match(r"hlograph_host_isin_([0-9a-f]{12})", calls._target_name(n)[0]).group(1)
              for n in nodes}
    assert len(nodes) == 2 and len(hashes) == 2


def test_wrappers_of_code_without_a_source_file_are_not_cached_on_disk(tmp_path, monkeypatch):
    # an implementation typed into a REPL or notebook has no file to hash: an edited
    # version could not be told apart from the cached one, so it is compiled per process
    import linecache
    monkeypatch.setenv("HLOGRAPH_CACHE_DIR", str(tmp_path / "cache"))
    namespace = {}
    code = ("def factory(op, node):\n"
            "    def impl(x):\n"
            "        return x * 3\n"
            "    return impl\n")
    exec(compile(code, "<typed-in>", "exec"), namespace)
    linecache.cache.pop("<typed-in>", None)
    assert generated.code_version([namespace["factory"]]) is None

    class Triple(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type])

        def perform(self, node, inputs):
            return [inputs[0] * 3]

    hg.host.register(Triple)(namespace["factory"])
    x = hg.tensor("x", (4,), "int64")
    fn = hg.compile(hg.Graph([x], Triple()(x) + 1))
    assert fn.lower().program is None  # in-module
    np.testing.assert_array_equal(fn(np.arange(4)), np.arange(4) * 3 + 1)
    (target,) = [t for t in calls._TARGETS.values() if isinstance(t.op, Triple)]
    assert "cache=False" in target.source
    assert not list((tmp_path / "cache" / "numba").glob("hlograph_host_triple_*"))
