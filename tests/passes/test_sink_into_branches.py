"""hlograph-sink-into-branches: consumers moved into conditional branches compute
the same bits (translation validation, PJRT and the reference interpreter), and
the O2 pipeline moves them for the CPU lowerings of sin/cos/tan."""

from __future__ import annotations

import numpy as np
import pytest

import hlograph as hg
from hlograph.testing.validation import validate

CASE = """func.func public @main(%x: tensor<6xELEM>, %y: tensor<6xELEM>, %i: tensor<i32>) -> tensor<6xELEM> {
  %p = stablehlo.compare GT, %x, %y, FLOAT : (tensor<6xELEM>, tensor<6xELEM>) -> tensor<6xi1>
  %c = "stablehlo.case"(%i) ({
    %s = stablehlo.sine %x : tensor<6xELEM>
    stablehlo.return %s : tensor<6xELEM>
  }, {
    %s = stablehlo.exponential %x : tensor<6xELEM>
    stablehlo.return %s : tensor<6xELEM>
  }, {
    stablehlo.return %y : tensor<6xELEM>
  }) : (tensor<i32>) -> tensor<6xELEM>
  CONSUMERS
}"""

CONSUMERS = {
    "binary chain": """%m = stablehlo.multiply %c, %y : tensor<6xELEM>
  %t = stablehlo.tanh %m : tensor<6xELEM>
  %a = stablehlo.add %t, %x : tensor<6xELEM>
  return %a : tensor<6xELEM>""",
    "square": """%q = stablehlo.multiply %c, %c : tensor<6xELEM>
  return %q : tensor<6xELEM>""",
    "select": """%s = stablehlo.select %p, %c, %y : tensor<6xi1>, tensor<6xELEM>
  return %s : tensor<6xELEM>""",
}


@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("consumers", list(CONSUMERS))
@pytest.mark.parametrize("branch", [0, 1, 2, 7])  # out of range: the last branch, as XLA's case
def test_sinking_into_case_branches_is_exact(elem, consumers, branch):
    text = CASE.replace("CONSUMERS", CONSUMERS[consumers]).replace("ELEM", elem)
    rng = np.random.default_rng(branch)
    dt = np.float32 if elem == "f32" else np.float64
    x, y = rng.normal(size=6).astype(dt), rng.normal(size=6).astype(dt)
    x[:3] = [np.nan, np.inf, -0.0]
    result = validate(text, "hlograph-sink-into-branches", inputs=[[x, y, np.int32(branch)]])
    tail = result.optimized.split('"stablehlo.case"')[1].rsplit("}) : (tensor<i32>)", 1)[1]
    if consumers == "square":
        # exp(x) * exp(x) would meet XLA's exp(a) * exp(b) -> exp(a + b): left outside
        assert "stablehlo.multiply" in tail
    else:
        assert "stablehlo.multiply" not in tail and "stablehlo.select" not in tail  # all moved in


def test_if_branches_and_the_o2_pipeline():
    text = """func.func public @main(%x: tensor<5xf32>, %p: tensor<i1>) -> tensor<5xf32> {
  %r = "stablehlo.if"(%p) ({
    %e = stablehlo.exponential %x : tensor<5xf32>
    stablehlo.return %e : tensor<5xf32>
  }, {
    %n = stablehlo.negate %x : tensor<5xf32>
    stablehlo.return %n : tensor<5xf32>
  }) : (tensor<i1>) -> tensor<5xf32>
  %h = stablehlo.constant dense<5.000000e-01> : tensor<5xf32>
  %q = stablehlo.multiply %r, %h : tensor<5xf32>
  return %q : tensor<5xf32>
}"""
    for flag in (True, False):
        x = np.array([0.5, -1, np.inf, np.nan, 3], np.float32)
        result = validate(text, "O2", inputs=[[x, np.bool_(flag)]])
        assert result.optimized.count("stablehlo.multiply") == 2


def test_cpu_trig_lowering_gets_its_consumers_into_the_fast_branch():
    # sin/cos on the CPU branch on the size of their arguments (lowering/rules/fast_math.py):
    # at O2 the rest of the chain joins both branches, so no pass over the result remains
    x, y = hg.tensor("x", (1 << 16,), "float32"), hg.tensor("y", (1 << 16,), "float32")
    g = hg.Graph([x, y], [0.5 * hg.cos(hg.exp(hg.tanh(hg.sin(x) * y + x)) - y)])
    fn = hg.compile(g)
    text = fn.lower(((1 << 16,), "float32"), ((1 << 16,), "float32")).as_text()
    assert text.count('"stablehlo.case"') == 2
    after_last_case = text.rsplit("}) : (tensor<i32>)", 1)[1]
    assert "stablehlo.multiply" not in after_last_case.split("return")[0]
    rng = np.random.default_rng(0)
    xs = rng.uniform(-3, 3, 1 << 16).astype(np.float32)
    ys = rng.uniform(-1, 1, 1 << 16).astype(np.float32)
    xs[:4] = [np.nan, np.inf, 1e30, -0.0]  # huge arguments take XLA's own branch
    (o2,) = fn(xs, ys)
    (o0,) = hg.compile(g, pipeline="O0")(xs, ys)
    np.testing.assert_array_equal(o2, o0)


def test_at_most_max_sunk_ops_move_into_one_conditional():
    from hlograph.passes.sink_into_branches import MAX_SUNK
    chain = "\n".join(f"  %t{i + 1} = stablehlo.tanh %t{i} : tensor<4xf32>" for i in range(MAX_SUNK + 5))
    text = f"""func.func public @main(%x: tensor<4xf32>, %i: tensor<i32>) -> tensor<4xf32> {{
  %t0 = "stablehlo.case"(%i) ({{
    %s = stablehlo.sine %x : tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }}, {{
    stablehlo.return %x : tensor<4xf32>
  }}) : (tensor<i32>) -> tensor<4xf32>
{chain}
  return %t{MAX_SUNK + 5} : tensor<4xf32>
}}"""
    result = validate(text, "hlograph-sink-into-branches", trials=2)
    tail = result.optimized.rsplit("}) : (tensor<i32>)", 1)[1]
    assert tail.count("stablehlo.tanh") == 5
    assert result.optimized.count("stablehlo.tanh") == 2 * MAX_SUNK + 5
