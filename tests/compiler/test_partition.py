"""Graphs mixing device ops and host ops: partitioning, execution, explain()."""

import warnings

import numpy as np
import pytest

import hlograph as hg
from hlograph import Apply, Op, TensorType
from hlograph.compiler.partition import DEVICE, HOST, partition
from hlograph.tests.helpers import compare_with_perform, run_in_new_processes


class Positives(Op):
    """x[x > 0]: the output length depends on the values."""

    host_only = True

    def make_node(self, x):
        return Apply(self, [x], [TensorType(x.dtype, (None,))])

    def perform(self, node, inputs):
        (x,) = inputs
        return [x[x > 0]]


class HostScale(Op):
    """A user op with only a perform (no rule, no host implementation)."""

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0] * 3]


def test_partition_groups_maximal_segments_in_dependency_order():
    x = hg.tensor("x", (6,), "float32")
    a = hg.exp(x)
    b = a + 1
    p = Positives()(b - 2)
    q = Positives()(a - 1.5)   # independent of p: joins the same host segment
    out = hg.sum(p) + hg.sum(q) + hg.max(b)
    g = hg.Graph([x], out)
    segs = partition(g)
    assert [s.kind for s in segs] == [DEVICE, HOST, DEVICE]
    assert len(segs[1].nodes) == 2
    # every value a segment reads is produced earlier or is a graph input
    produced = {id(x)}
    for s in segs:
        for v in s.inputs:
            assert id(v) in produced
        produced |= {id(o) for n in s.nodes for o in n.outputs}
    assert segs[0].outputs and segs[1].outputs


def test_device_only_graph_is_one_segment():
    x = hg.tensor("x", (3,), "float32")
    segs = partition(hg.Graph([x], hg.exp(x) * 2))
    assert [s.kind for s in segs] == [DEVICE]
    assert segs[0].outputs == [segs[0].nodes[-1].outputs[0]]


@pytest.mark.parametrize("values", [
    np.array([0.1, 2, -1, 0.5, 3], np.float32),      # some selected
    np.array([-5, -5, -5, -5, -5], np.float32),      # none selected: empty
    np.array([5, 5, 5, 5, 5], np.float32),           # all selected, repeated values
], ids=["some", "none", "all"])
def test_mixed_graph_matches_evaluate(values):
    x = hg.tensor("x", (5,), "float32")
    p = Positives()(hg.exp(x) - 1.5)
    g = hg.Graph([x], [hg.sum(p * 2) + hg.max(x), p, hg.cumsum(p)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        compare_with_perform(g, [values])


def test_device_segment_after_host_specializes_per_shape():
    x = hg.tensor("x", (None,), "float64")
    g = hg.Graph([x], hg.tanh(Positives()(x)) * 2)
    fn = hg.compile(g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for n in (0, 3, 7):
            v = np.linspace(-1, 1, n)
            np.testing.assert_allclose(fn(v), np.tanh(v[v > 0]) * 2, rtol=1e-12)
            assert fn(v).dtype == np.float64


def test_perform_only_op_runs_on_host_with_one_warning():
    x = hg.tensor("x", (3,), "int32")
    g = hg.Graph([x], HostScale()(x + 1) - 1)
    fn = hg.compile(g)
    with pytest.warns(RuntimeWarning, match="HostScale has neither a lowering rule nor a host implementation"):
        out = fn(np.array([1, 2, 3], np.int32))
    np.testing.assert_array_equal(out, (np.array([1, 2, 3]) + 1) * 3 - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no second warning
        fn(np.array([4, 5, 6], np.int32))


def test_explain_and_as_text_tell_what_runs_where():
    x = hg.tensor("x", (4,), "float32")
    g = hg.Graph([x], hg.sum(Positives()(hg.exp(x))))
    fn = hg.compile(g)
    text = fn.explain()
    lines = text.splitlines()
    assert lines[0] == "3 segments"
    assert lines[1].startswith("segment 0: device (StableHLO, PJRT); reads x")
    assert "Positives: output shape depends on values" in text
    assert "segment 2: device (StableHLO, PJRT); lowered at run time" in text
    lowered = fn.lower()
    body = lowered.as_text()
    assert body.startswith("// 3 segments")
    assert "// ----- segment 0 (device)" in body and "stablehlo.exponential" in body
    assert "segment 2 (device)" not in body  # its input shape is known only at run time
    assert lowered.module is not None
    single = hg.compile(hg.Graph([x], hg.exp(x))).explain()
    assert single.splitlines()[0] == "1 segment" and "Exp: StableHLO lowering" in single


def test_segmented_compiled_checks_arguments_and_returns_device_arrays():
    x = hg.tensor("x", (4,), "float32")
    compiled = hg.compile(hg.Graph([x], [Positives()(x), x * 2])).lower().compile()
    with pytest.raises(TypeError, match="expected dtype float32"):
        compiled(np.ones(4, np.float64))
    with pytest.raises(ValueError, match="expected shape"):
        compiled(np.ones(5, np.float32))
    v = np.array([1, -1, 2, -2], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        pos, dbl = compiled(v, output="device")
    assert not isinstance(pos, np.ndarray) and not isinstance(dbl, np.ndarray)
    np.testing.assert_array_equal(np.asarray(pos), [1, 2])
    np.testing.assert_array_equal(np.asarray(dbl), v * 2)


@pytest.mark.parametrize("fill", ["some", "none", "all"])
def test_numpy_names_dispatch_to_host_ops_for_graph_values(fill, rng):
    x = hg.tensor("x", (6,), "float64")
    n = hg.scalar("n", "int64")
    r = hg.tensor("r", (6,), "int64")
    y = hg.exp(x)
    outs = [y[x > 0] * 2, hg.eye(n) + 1, hg.arange(n) * 3, hg.tri(n, n + 1), hg.repeat(x, r),
            hg.linspace(0.0, 1.0, n), hg.sum(x.at[1].set(7.0))]
    g = hg.Graph([x, n, r], outs)
    v = {"some": rng.normal(size=6), "none": -np.ones(6), "all": np.full(6, 2.0)}[fill]
    compare_with_perform(g, [v, np.int64(4 if fill != "none" else 0), np.array([0, 1, 2, 0, 3, 1])])


_SEGMENT_PROCESS = r"""
import json
import numpy as np
import hlograph as hg
from hlograph.runtime.host import segment

x = hg.tensor("x", (None,), "float64")
fn = hg.compile(hg.Graph([x], hg.unique(hg.floor(x)[x > 0]) * 2))
out = fn(np.array([1.5, -2.0, 3.2, 1.1, 7.0])).tolist()
(seg,) = segment._SEGMENTS.values()
print(json.dumps({"out": out, "hits": sum(seg.jitted.stats.cache_hits.values()),
                  "misses": sum(seg.jitted.stats.cache_misses.values())}))
"""


def test_a_new_process_loads_host_segments_from_disk(tmp_path):
    # the first process compiles the segment's Numba function into <cache>/numba;
    # the second loads its machine code
    reports = run_in_new_processes(tmp_path, _SEGMENT_PROCESS)
    first, second = reports
    assert first["out"] == second["out"] == [2.0, 6.0, 14.0]
    assert (first["hits"], first["misses"]) == (0, 1)
    assert (second["hits"], second["misses"]) == (1, 0)
    assert len(list((tmp_path / "cache" / "numba").glob("hlograph_segment_*.py"))) == 1


def test_segment_structure_text_covers_constants_and_props():
    # the text names a segment's compiled function on disk: equal for the same
    # structure built again, different for other constants or props
    from hlograph.runtime.host.segment import _structure_key, _structure_text

    def text(values, **kwargs):
        out = hg.unique(hg.as_variable(np.array(values, np.int64)), **kwargs)
        node = (out[0] if kwargs else out).owner
        return _structure_text(_structure_key([node], [], node.outputs))

    a = text([1, 2, 2])
    assert a == text([1, 2, 2])
    assert a != text([1, 2, 3])
    assert a != text([1, 2, 2], return_counts=True)
