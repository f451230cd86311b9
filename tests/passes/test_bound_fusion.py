"""hlograph-bound-fusion: optimization barriers cut long elementwise chains
without changing a bit of any result."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
import hlograph.passes
from hlograph.passes.bound_fusion import bound_fusion
from hlograph.passes.pipeline import PIPELINES, expand
from hlograph.passes.registry import make_pass
from hlograph.testing.validation import validate

CYCLE = ["exponential", "add", "multiply", "tanh"]


def _chain(n: int, elem: str = "f32") -> str:
    """exp/add/mul/tanh chain of n ops; every 7th op also adds the first value back
    (long-lived), and a second result is taken halfway."""
    t = f"tensor<6x{elem}>"
    lines = [f"func.func public @main(%x: {t}, %y: {t}) -> ({t}, {t}) {{"]
    v = "%x"
    for i in range(n):
        op = CYCLE[i % 4]
        if i % 7 == 6:
            lines.append(f"  %v{i} = stablehlo.add {v}, %v0 : {t}")
        elif op in ("add", "multiply"):
            lines.append(f"  %v{i} = stablehlo.{op} {v}, %y : {t}")
        else:
            lines.append(f"  %v{i} = stablehlo.{op} {v} : {t}")
        v = f"%v{i}"
    lines.append(f"  return {v}, %v{n // 2} : {t}, {t}")
    lines.append("}")
    return "\n".join(lines)


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("every", [1, 3, 10])
def test_barriers_are_exact(elem, every):
    result = validate(_chain(30, elem), f"hlograph-bound-fusion{{every={every} min-ops=0}}", trials=2)
    # a cut after every `every`-th op of 30, never after the last
    assert result.optimized.count("stablehlo.optimization_barrier") == 29 // every
    assert result.ops_after > result.ops_before


def test_values_used_inside_regions_after_the_cut():
    text = """func.func public @main(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  %1 = stablehlo.tanh %0 : tensor<4xf32>
  %2 = stablehlo.negate %1 : tensor<4xf32>
  %3 = "stablehlo.if"(%p) ({
    %4 = stablehlo.add %0, %2 : tensor<4xf32>
    stablehlo.return %4 : tensor<4xf32>
  }, {
    stablehlo.return %1 : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  %5 = stablehlo.sine %3 : tensor<4xf32>
  return %5 : tensor<4xf32>
}"""
    result = validate(text, "hlograph-bound-fusion{every=2 min-ops=0}", trials=3)
    barrier = result.optimized.split("stablehlo.optimization_barrier")[1].split("\n")[0]
    assert barrier.count("%") == 2  # exp and tanh are used later (inside the if), the negate is not yet
    assert result.optimized.count("stablehlo.optimization_barrier") == 1


def test_integer_chain_and_mixed_ops():
    text = """func.func public @main(%a: tensor<5xi32>, %b: tensor<5xi32>) -> tensor<5xi32> {
  %0 = stablehlo.add %a, %b : tensor<5xi32>
  %1 = stablehlo.multiply %0, %b : tensor<5xi32>
  %2 = stablehlo.xor %1, %a : tensor<5xi32>
  %3 = stablehlo.shift_left %2, %b : tensor<5xi32>
  %4 = stablehlo.subtract %3, %0 : tensor<5xi32>
  %5 = stablehlo.maximum %4, %1 : tensor<5xi32>
  return %5 : tensor<5xi32>
}"""
    result = validate(text, "hlograph-bound-fusion{every=2 min-ops=0}", trials=3)
    assert result.optimized.count("stablehlo.optimization_barrier") == 2


def test_small_modules_are_left_alone():
    text = _chain(40)
    assert "optimization_barrier" not in str(hlograph.passes.run(text, "hlograph-bound-fusion"))
    # 41 ops: the chain and the return
    assert "optimization_barrier" not in str(hlograph.passes.run(text, "hlograph-bound-fusion{every=5 min-ops=42}"))
    assert "optimization_barrier" in str(hlograph.passes.run(text, "hlograph-bound-fusion{every=5 min-ops=41}"))


def test_bound_fusion_function_counts_barriers():
    module = hlograph.passes.run(_chain(25), "O0")
    assert bound_fusion(module, every=10, min_ops=0) == 2
    assert str(module).count("optimization_barrier") == 2


def test_bad_options():
    with pytest.raises(ValueError, match="every must be >= 1"):
        hlograph.passes.run(_chain(4), "hlograph-bound-fusion{every=0 min-ops=0}")
    with pytest.raises(ValueError, match="valid options: every, min-ops"):
        make_pass("hlograph-bound-fusion", "evry=3")


def test_not_in_the_named_pipelines():
    # XLA:CPU removes barriers before fusing: the pass would only add ops there
    assert all("hlograph-bound-fusion" not in expand(name) for name in PIPELINES)


def test_compiled_graph_matches_numpy():
    x = hg.tensor("x", (8,), "float32")
    y = hg.tensor("y", (8,), "float32")
    v = x
    for i in range(60):
        k = i % 4
        v = hg.exp(v) if k == 0 else v + y if k == 1 else v * y if k == 2 else hg.tanh(v)
    g = hg.Graph([x, y], v)
    fn = hg.compile(g, pipeline="O2,hlograph-bound-fusion{every=16 min-ops=0}")
    assert fn.lower().as_text().count("optimization_barrier") == 3
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-1, 1, 8).astype(np.float32) for _ in range(2))
    a[0], b[1] = np.nan, np.inf
    expected = a
    for i in range(60):
        k = i % 4
        expected = np.exp(expected) if k == 0 else expected + b if k == 1 else expected * b if k == 2 else np.tanh(expected)
    np.testing.assert_allclose(np.asarray(fn(a, b)), expected, rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(fn(a, b)), np.asarray(hg.compile(g, pipeline="O0")(a, b)))
