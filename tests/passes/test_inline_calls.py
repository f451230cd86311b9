"""hlograph-inline-calls: random call graphs compute the same after inlining,
and every call to a function with a body is gone."""

from __future__ import annotations

import numpy as np
import pytest

from hlograph.xla.mlir import ir, make_context
from hlograph.passes import run
from hlograph.passes.inline_calls import inline_calls
from hlograph.testing.validation import validate

OPS = ["stablehlo.add {a}, {b}", "stablehlo.multiply {a}, {b}", "stablehlo.subtract {a}, {b}",
       "stablehlo.maximum {a}, {b}", "stablehlo.tanh {a}", "stablehlo.negate {b}"]
T = "tensor<6xf32>"


def random_call_graph(rng: np.random.Generator, n_functions: int) -> str:
    """Function k may call functions with a larger index (so there is no cycle);
    some are called several times, some from inside a while loop."""
    funcs = []
    for k in range(n_functions):
        name = "main" if k == 0 else f"f{k}"
        vis = "public" if k == 0 else "private"
        lines, values = [], ["%x", "%y"]
        for i in range(int(rng.integers(2, 6))):
            a, b = (values[int(j)] for j in rng.integers(0, len(values), size=2))
            callee = int(rng.integers(k + 1, n_functions + 1))
            if callee < n_functions and rng.random() < 0.5:
                lines.append(f"  %v{i}:2 = call @f{callee}({a}, {b}) : ({T}, {T}) -> ({T}, {T})")
                values += [f"%v{i}#0", f"%v{i}#1"]
            elif callee < n_functions and rng.random() < 0.3:
                lines.append(f"""  %v{i}:2 = stablehlo.while(%i = %c0, %acc = {a}) : tensor<i32>, {T}
    cond {{
      %n = stablehlo.constant dense<2> : tensor<i32>
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }} do {{
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      %r:2 = func.call @f{callee}(%acc, {b}) : ({T}, {T}) -> ({T}, {T})
      stablehlo.return %j, %r#1 : tensor<i32>, {T}
    }}""")
                values.append(f"%v{i}#1")
            else:
                lines.append(f"  %v{i} = {OPS[int(rng.integers(0, len(OPS)))].format(a=a, b=b)} : {T}")
                values.append(f"%v{i}")
        body = "\n".join(lines)
        funcs.append(f"""func.func {vis} @{name}(%x: {T}, %y: {T}) -> ({T}, {T}) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
{body}
  return {values[-1]}, {values[-2]} : {T}, {T}
}}""")
    return "\n".join(funcs)


@pytest.mark.parametrize("seed", range(8))
def test_inline_calls_is_exact_and_complete(seed):
    text = random_call_graph(np.random.default_rng(seed), n_functions=5)
    result = validate(text, "hlograph-inline-calls,symbol-dce", trials=2)
    assert "call @" not in result.optimized
    assert "func.func private" not in result.optimized


def test_inline_calls_counts_and_leaves_recursion():
    text = f"""func.func public @main(%x: {T}) -> {T} {{
  %0 = call @twice(%x) : ({T}) -> {T}
  %1 = call @twice(%0) : ({T}) -> {T}
  %2 = call @loop(%1) : ({T}) -> {T}
  return %2 : {T}
}}
func.func private @twice(%x: {T}) -> {T} {{
  %0 = call @leaf(%x) : ({T}) -> {T}
  %1 = stablehlo.add %0, %0 : {T}
  return %1 : {T}
}}
func.func private @leaf(%x: {T}) -> {T} {{
  %0 = stablehlo.sine %x : {T}
  return %0 : {T}
}}
func.func private @loop(%x: {T}) -> {T} {{
  %0 = call @loop(%x) : ({T}) -> {T}
  return %0 : {T}
}}"""
    with make_context():
        m = ir.Module.parse(text)
        # twice x2 (whose copies call leaf), leaf in @twice, then leaf in both
        # copies; @loop is recursive and stays
        assert inline_calls(m) == 5
        run(m, "symbol-dce")
        out = str(m)
    assert out.count("stablehlo.sine") == 2
    assert "call @loop" in out and "call @twice" not in out and "call @leaf" not in out
    assert "func.func private @loop" in out and "@twice" not in out


def test_inline_calls_keeps_callees_referenced_otherwise():
    text = f"""func.func public @main(%x: {T}) -> ({T}, {T}) {{
  %0 = call @body(%x) : ({T}) -> {T}
  %1 = stablehlo.custom_call @host_callback(%x) {{called_computations = [@body]}} : ({T}) -> {T}
  return %0, %1 : {T}, {T}
}}
func.func private @body(%x: {T}) -> {T} {{
  %0 = stablehlo.cosine %x : {T}
  return %0 : {T}
}}"""
    out = str(run(text, "hlograph-inline-calls,symbol-dce"))
    assert "call @body" not in out
    assert "func.func private @body" in out  # still referenced by the custom call
    assert out.count("stablehlo.cosine") == 2


def test_inline_calls_keeps_public_callees():
    text = f"""func.func public @main(%x: {T}) -> {T} {{
  %0 = call @helper(%x) : ({T}) -> {T}
  return %0 : {T}
}}
func.func public @helper(%x: {T}) -> {T} {{
  %0 = stablehlo.cosine %x : {T}
  return %0 : {T}
}}"""
    out = str(run(text, "hlograph-inline-calls,symbol-dce"))
    assert "call @helper" not in out
    assert out.count("stablehlo.cosine") == 2
