"""hlograph-order-operands never changes a result and lets CSE merge ``a op b`` with
``b op a``: validated bit for bit (PJRT and the reference interpreter) for every
commutative op and element type, on inputs with NaN, infinities and signed zeros."""

from __future__ import annotations

import pytest

from hlograph.passes import run
from hlograph.testing.validation import validate

from .test_simplify_algebra import KIND, MLIR, ModuleText

BINARY = {"f": ["add", "multiply"], "c": ["add", "multiply"], "i": ["add", "multiply", "maximum", "minimum", "and",
                                                                     "or", "xor"],
          "u": ["add", "multiply", "maximum", "minimum", "and", "or", "xor"],
          "b": ["add", "multiply", "maximum", "minimum", "and", "or", "xor"]}


def both_orders(dtype: str) -> tuple[str, int]:
    """``a op b`` and ``b op a`` for every commutative op of ``dtype``, and EQ/NE
    compares; returns the module and the number of pairs."""
    k = KIND[dtype]
    t = f"tensor<16x{MLIR[dtype]}>"
    m = ModuleText()
    a, b = m.arg(t), m.arg(t)
    c = m.op(f"stablehlo.constant dense<{ {'b': 'true', 'c': '(1.5, -2.0)', 'f': '3.0'}.get(k, '3') }> : {t}")
    pairs = 0
    for op in BINARY[k]:
        for x, y in ((a, b), (a, c)):
            m.result(m.op(f"stablehlo.{op} {x}, {y} : {t}"), t)
            m.result(m.op(f"stablehlo.{op} {y}, {x} : {t}"), t)
            pairs += 1
    bt = "tensor<16xi1>"
    kind = {"f": "FLOAT", "c": "FLOAT", "i": "SIGNED", "u": "UNSIGNED", "b": "UNSIGNED"}[k]
    for d in ("EQ", "NE"):
        m.result(m.op(f"stablehlo.compare {d}, {a}, {b}, {kind} : ({t}, {t}) -> {bt}"), bt)
        m.result(m.op(f"stablehlo.compare {d}, {b}, {a}, {kind} : ({t}, {t}) -> {bt}"), bt)
        pairs += 1
    return m.text(), pairs


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex64", "complex128",
                                   "int8", "uint8", "int32", "int64", "bool"])
def test_commuted_operands_are_one_value(dtype):
    text, pairs = both_orders(dtype)
    result = validate(text, "hlograph-order-operands,cse", trials=3, interpreter=True)
    body = [line for line in result.optimized.splitlines() if " = stablehlo." in line and "constant" not in line]
    assert len(body) == pairs, result.optimized
    # the first-defined operand on the left, constants on the right
    assert not any("%cst, %arg" in line or "%c, %arg" in line or "%arg1, %arg0" in line for line in body)
    # without the pass CSE merges nothing
    assert str(run(text, "cse")).count(" = stablehlo.") - 1 == 2 * pairs


def test_float_max_and_min_keep_their_order():
    """max(-0.0, +0.0) is the first operand in XLA and in the interpreter: floats keep the order."""
    text = """
func.func public @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>) {
  %0 = stablehlo.maximum %b, %a : tensor<4xf32>
  %1 = stablehlo.minimum %b, %a : tensor<4xf32>
  %2 = stablehlo.compare LT, %b, %a, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>
}
"""
    out = str(run(text, "hlograph-order-operands"))
    assert "stablehlo.maximum %arg1, %arg0" in out and "stablehlo.minimum %arg1, %arg0" in out
    assert "LT, %arg1, %arg0" in out


def test_values_of_nested_regions():
    """Operands defined in a loop body and outside it: a block argument comes first."""
    text = """
func.func public @main(%x: tensor<4xi32>, %n: tensor<i32>) -> tensor<4xi32> {
  %w:2 = stablehlo.while(%i = %n, %acc = %x) : tensor<i32>, tensor<4xi32>
    cond {
      %z = stablehlo.constant dense<0> : tensor<i32>
      %p = stablehlo.compare GT, %i, %z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.subtract %i, %one : tensor<i32>
      %s = stablehlo.add %acc, %x : tensor<4xi32>
      %t = stablehlo.add %x, %acc : tensor<4xi32>
      %u = stablehlo.multiply %s, %t : tensor<4xi32>
      stablehlo.return %j, %u : tensor<i32>, tensor<4xi32>
    }
  return %w#1 : tensor<4xi32>
}
"""
    out = str(run(text, "hlograph-order-operands"))
    assert out.count("stablehlo.add %arg0, %iterArg_1") == 2, out  # x (from outside the loop) first
    result = validate(text, "hlograph-order-operands,cse", trials=2, interpreter=False)
    assert result.optimized.count("stablehlo.add") == 1, result.optimized


NESTED = """
func.func public @main(%x: tensor<4xi32>, %n: tensor<i32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<3> : tensor<4xi32>
  %m = stablehlo.maximum %c, %x : tensor<4xi32>
  %w:2 = stablehlo.while(%i = %n, %acc = %m) : tensor<i32>, tensor<4xi32>
    cond {
      %z = stablehlo.constant dense<0> : tensor<i32>
      %p = stablehlo.compare NE, %z, %i, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.subtract %i, %one : tensor<i32>
      %s = stablehlo.add %acc, %x : tensor<4xi32>
      %t = stablehlo.xor %x, %acc : tensor<4xi32>
      %u = stablehlo.multiply %t, %s : tensor<4xi32>
      stablehlo.return %j, %u : tensor<i32>, tensor<4xi32>
    }
  return %w#1 : tensor<4xi32>
}
"""


@pytest.mark.parametrize("dtype", ["float32", "complex64", "int32", "uint8", "bool", "nested"])
def test_ordering_in_one_walk_gives_the_module_of_the_patterns(dtype):
    """``order_operands_in_place`` (what hlograph-simplify runs first) swaps exactly
    the operands the patterns would, and reports the ops it walked."""
    from hlograph.passes.patterns import apply_patterns
    from hlograph.passes.patterns.commutative import COMMUTATIVE_PATTERNS, order_operands_in_place
    from hlograph.passes.pipeline import parse_module

    text = NESTED if dtype == "nested" else both_orders(dtype)[0]
    by_patterns = parse_module(text)
    apply_patterns(by_patterns, COMMUTATIVE_PATTERNS, fold=False)
    in_place = parse_module(text)
    with in_place.context:
        names = order_operands_in_place(in_place.operation)
    apply_patterns(in_place, [], fold=False)  # (the driver's own moves of constants, as above)
    assert str(in_place) == str(by_patterns)
    assert str(in_place) != str(parse_module(text))  # something was out of order
    assert {"func.func", "stablehlo.compare"} <= names
    assert ("stablehlo.while" in names) == (dtype == "nested")
