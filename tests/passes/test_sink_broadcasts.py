"""hlograph-sink-broadcasts: elementwise ops moved before broadcasts compute
the same bits, transcendental functions included."""

from __future__ import annotations

import pytest

from hlograph.testing.validation import validate

UNARY = ["abs", "negate", "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic",
         "sine", "cosine", "tan", "tanh", "sqrt", "rsqrt", "cbrt", "floor", "ceil", "round_nearest_even",
         "round_nearest_afz", "sign"]
BINARY = ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power", "atan2"]


@pytest.mark.parametrize("elem", ["f32", "f64", "bf16"])
@pytest.mark.parametrize("op", UNARY + BINARY)
def test_sink_broadcast_is_exact(op, elem):
    small, big = f"tensor<5x{elem}>", f"tensor<3x5x{elem}>"
    if op in UNARY:
        body = f"  %0 = stablehlo.{op} %b0 : {big}"
    else:
        body = f"  %0 = stablehlo.{op} %b0, %b1 : {big}"
    text = f"""func.func public @main(%a: {small}, %b: {small}) -> {big} {{
  %b0 = stablehlo.broadcast_in_dim %a, dims = [1] : ({small}) -> {big}
  %b1 = stablehlo.broadcast_in_dim %b, dims = [1] : ({small}) -> {big}
{body}
  return %0 : {big}
}}"""
    result = validate(text, "hlograph-sink-broadcasts", trials=2, interpreter=elem != "bf16")
    assert f"stablehlo.{op} %arg" in result.optimized  # now on the small operands
    assert f"-> {big}" in result.optimized.split(f"stablehlo.{op}")[1]  # broadcast after it


def test_sink_broadcast_through_compare_select_convert_with_splats():
    text = """func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %p: tensor<i1>) -> (tensor<2x4xf64>, tensor<2x4xi1>) {
  %ba = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  %half = stablehlo.constant dense<0.5> : tensor<2x4xf32>
  %m = stablehlo.multiply %ba, %half : tensor<2x4xf32>
  %c = stablehlo.compare LT, %m, %bb, FLOAT : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  %bc = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  %bd = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  %s = stablehlo.select %p, %bc, %bd : tensor<i1>, tensor<2x4xf32>
  %v = stablehlo.convert %s : (tensor<2x4xf32>) -> tensor<2x4xf64>
  return %v, %c : tensor<2x4xf64>, tensor<2x4xi1>
}"""
    result = validate(text, "hlograph-sink-broadcasts", trials=3)
    optimized = result.optimized
    assert "stablehlo.compare  LT" in optimized or "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>" in optimized
    assert "stablehlo.convert" in optimized and "(tensor<4xf32>) -> tensor<4xf64>" in optimized
    assert optimized.count("stablehlo.broadcast_in_dim") == 2


def test_sink_broadcast_leaves_shared_broadcasts():
    text = """func.func public @main(%a: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %ba = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  %0 = stablehlo.exponential %ba : tensor<2x4xf32>
  return %0, %ba : tensor<2x4xf32>, tensor<2x4xf32>
}"""
    result = validate(text, "hlograph-sink-broadcasts", trials=2)
    assert "stablehlo.exponential %arg" not in result.optimized
