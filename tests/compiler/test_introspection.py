"""What XLA made of a graph: ``Compiled.as_text()``, ``cost_analysis()``,
``memory_analysis()``, ``Lowered.cost_analysis()``, per segment for graphs with
host segments."""

import numpy as np
import pytest

import hlograph as hg
from hlograph import Apply, Op
from hlograph.compiler.program import CompiledProgram


class HostScale(Op):
    """A user op with only a perform: a host segment with static shapes."""

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0] * 3]


def matmul_graph(m, k, n, dtype="float32"):
    a = hg.tensor("a", (m, k), dtype)
    b = hg.tensor("b", (k, n), dtype)
    return hg.Graph([a, b], hg.matmul(a, b))


@pytest.mark.parametrize("m,k,n", [(8, 16, 4), (3, 5, 7), (2, 32, 3), (64, 64, 64)])
def test_matmul_flops_are_2mnk(m, k, n, rng):
    compiled = hg.compile(matmul_graph(m, k, n)).lower().compile()
    cost = compiled.cost_analysis()
    assert cost["flops"] == 2 * m * n * k
    assert cost["bytes accessed"] >= 4 * (m * k + k * n + m * n)
    lowered_cost = hg.compile(matmul_graph(m, k, n)).lower().cost_analysis()
    assert lowered_cost["flops"] == 2 * m * n * k
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    np.testing.assert_allclose(compiled(a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_vector_dot_costs_before_and_after_xla_rewrites_it():
    # XLA turns a (1, k) x (k, 1) product into a multiply and a reduction: k
    # products and k - 1 sums once compiled; the HLO as lowered is the dot
    k = 32
    lowered = hg.compile(matmul_graph(1, k, 1)).lower()
    assert lowered.cost_analysis()["flops"] == 2 * k
    assert lowered.compile().cost_analysis()["flops"] == 2 * k - 1


def test_as_text_is_xla_optimized_hlo():
    x = hg.tensor("x", (8, 16), "float32")
    y = hg.tensor("y", (16, 4), "float32")
    g = hg.Graph([x, y], hg.tanh(hg.matmul(x, y)) + 1.0)
    compiled = hg.compile(g).lower().compile()
    text = compiled.as_text()
    assert text.startswith("HloModule ")
    assert " dot(" in text
    assert "fusion(" in text                       # XLA fused the elementwise tail
    assert " tanh(" in text
    assert "ENTRY" in text
    # not the StableHLO the Lowered prints
    assert "stablehlo." not in text


@pytest.mark.parametrize("dtype,itemsize", [("float32", 4), ("float64", 8), ("int16", 2)])
def test_memory_analysis_matches_argument_sizes(dtype, itemsize):
    x = hg.tensor("x", (5, 7), dtype)
    y = hg.tensor("y", (7,), dtype)
    g = hg.Graph([x, y], [x * y, hg.sum(x, axis=0)])
    mem = hg.compile(g).lower().compile().memory_analysis()
    assert mem["argument_size_in_bytes"] == itemsize * (5 * 7 + 7)
    assert mem["output_size_in_bytes"] >= itemsize * (5 * 7 + 7)
    assert mem["alias_size_in_bytes"] == 0
    assert mem["temp_size_in_bytes"] >= 0
    assert "generated_code_size_in_bytes" in mem


def test_memory_analysis_reports_donated_aliases():
    x = hg.tensor("x", (64,), "float32")
    g = hg.Graph([x], x * 2.0)
    mem = hg.compile(g, donate_argnums=0).lower().compile().memory_analysis()
    assert mem["argument_size_in_bytes"] == 4 * 64
    assert mem["alias_size_in_bytes"] == 4 * 64


def test_empty_and_scalar_shapes():
    x = hg.tensor("x", (0, 3), "float32")
    s = hg.tensor("s", (), "float32")
    compiled = hg.compile(hg.Graph([x, s], hg.sum(x * s))).lower().compile()
    # the sum over no elements folds to a constant: nothing left to count
    assert compiled.cost_analysis().get("flops", 0.0) == 0.0
    assert compiled.memory_analysis()["argument_size_in_bytes"] == 4
    assert "HloModule" in compiled.as_text()
    assert compiled(np.zeros((0, 3), np.float32), np.float32(2.0)) == 0.0


def test_executable_loaded_from_disk_cache_has_the_same_analyses():
    from hlograph.runtime import cache, executables
    g = matmul_graph(4, 6, 5)
    first = hg.compile(g).lower().compile()
    executables.clear_cache()
    hits = cache.stats()["hits"]
    again = hg.compile(g).lower().compile()
    assert cache.stats()["hits"] == hits + 1
    assert again.cost_analysis()["flops"] == first.cost_analysis()["flops"] == 2 * 4 * 6 * 5
    assert again.memory_analysis() == first.memory_analysis()
    assert " dot(" in again.as_text()


@pytest.mark.filterwarnings("ignore:HostScale has neither")
def test_segmented_program_reports_each_segment(rng):
    x = hg.tensor("x", (4, 4), "float32")
    w = hg.tensor("w", (4, 4), "float32")
    h = HostScale()(hg.matmul(x, w))
    g = hg.Graph([x, w], hg.matmul(h, w))
    lowered = hg.compile(g).lower()
    compiled = lowered.compile()
    assert isinstance(compiled, CompiledProgram)

    costs = compiled.cost_analysis()
    assert [c["kind"] for c in costs] == ["device", "host", "device"]
    assert [c["segment"] for c in costs] == [0, 1, 2]
    assert costs[1]["analysis"] is None and costs[1]["runs"] == "host (Python)"
    for c in (costs[0], costs[2]):
        assert c["runs"].startswith("device")
        assert c["analysis"]["flops"] == 2 * 4 * 4 * 4

    lowered_costs = lowered.cost_analysis()
    assert [c["kind"] for c in lowered_costs] == ["device", "host", "device"]
    assert lowered_costs[0]["analysis"]["flops"] == 2 * 4 * 4 * 4

    mems = compiled.memory_analysis()
    assert mems[1]["analysis"] is None
    assert mems[0]["analysis"]["argument_size_in_bytes"] == 2 * 4 * 16
    assert mems[2]["analysis"]["output_size_in_bytes"] == 4 * 16

    text = compiled.as_text()
    assert text.count(" dot(") == 2
    assert "// ----- segment 1: host (Python)" in text
    assert text.count("HloModule") == 2

    a = rng.standard_normal((4, 4)).astype(np.float32)
    b = rng.standard_normal((4, 4)).astype(np.float32)
    np.testing.assert_allclose(compiled(a, b), (a @ b * 3) @ b, rtol=1e-4, atol=1e-4)


def test_segment_lowered_at_run_time_has_no_analysis():
    x = hg.tensor("x", (6,), "float32")
    g = hg.Graph([x], hg.sum(hg.exp(hg.boolean_mask(x, x > 0))))
    costs = hg.compile(g).lower().compile().cost_analysis()
    kinds = [c["kind"] for c in costs]
    assert "host" in kinds
    late = [c for c in costs if c["kind"] == "device" and "run time" in c["runs"]]
    assert late and all(c["analysis"] is None for c in late)
