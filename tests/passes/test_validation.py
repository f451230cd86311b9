"""Translation validation itself: it catches passes that change results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from hlograph.lowering.mlir import hlo, ir, make_context
from hlograph.passes import ModulePass, register, registry
from hlograph.passes.patterns import apply_patterns, rewrite_pattern, splat_value
from hlograph.passes.validation import (
    ValidationError, assert_same_bits, count_ops, lift_constant_inputs, random_array,
    run_interpreter, run_pjrt, runnable_copy, validate,
)

CORPUS_LIKE = """
module @jit_main {
  func.func public @main() -> tensor<3xf32> {
    %0:2 = call @inputs() : () -> (tensor<3xf32>, tensor<3xf32>)
    %1 = call @expected() : () -> tensor<3xf32>
    %2 = stablehlo.multiply %0#0, %0#1 : tensor<3xf32>
    stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    return %2 : tensor<3xf32>
  }
  func.func private @inputs() -> (tensor<3xf32>, tensor<3xf32>) {
    %a = stablehlo.constant dense<[1.0, 2.0, -0.0]> : tensor<3xf32>
    %b = stablehlo.constant dense<[3.0, 0.5, 4.0]> : tensor<3xf32>
    return %a, %b : tensor<3xf32>, tensor<3xf32>
  }
  func.func private @expected() -> tensor<3xf32> {
    %c = stablehlo.constant dense<[3.0, 1.0, -0.0]> : tensor<3xf32>
    return %c : tensor<3xf32>
  }
}
"""


@pytest.fixture
def scratch_registry(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


@rewrite_pattern(hlo.AddOp)
def drop_add_of_positive_zero(op, rewriter) -> bool:
    """Wrong: -0.0 + 0.0 is +0.0."""
    s = splat_value(op.rhs)
    if s is None or float(s) != 0:
        return False
    rewriter.replace_op(op, [op.lhs])
    return True


def test_validate_catches_a_wrong_pass(scratch_registry):
    @register
    @dataclass(frozen=True)
    class WrongPass(ModulePass):
        """Drops x + 0.0, which is wrong for x = -0.0."""

        name: ClassVar[str] = "hlograph-wrong"

        def apply(self, module) -> None:
            apply_patterns(module, [drop_add_of_positive_zero])

    text = """func.func public @main(%x: tensor<64xf32>) -> tensor<64xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<64xf32>
  %0 = stablehlo.add %x, %z : tensor<64xf32>
  return %0 : tensor<64xf32>
}"""
    # XLA simplifies x + 0.0 itself, so only the reference interpreter sees the difference
    validate(text, "hlograph-wrong", interpreter=False)
    with pytest.raises(ValidationError, match=r"interpreter output \(input set 0\) 0 \(float32\[64\]\) differs"):
        validate(text, "hlograph-wrong", interpreter=True)
    # without signed zeros in the inputs nothing shows
    validate(text, "hlograph-wrong", interpreter=True, special=False)


def test_validate_reports_op_counts_and_outputs():
    text = """func.func public @main(%x: tensor<4xi32>) -> tensor<4xi32> {
  %one = stablehlo.constant dense<1> : tensor<4xi32>
  %0 = stablehlo.multiply %x, %one : tensor<4xi32>
  return %0 : tensor<4xi32>
}"""
    xs = np.array([1, -2, 3, 2 ** 31 - 1], np.int32)
    result = validate(text, "hlograph-simplify-algebra", inputs=[[xs]])
    assert (result.ops_before, result.ops_after) == (3, 1)
    np.testing.assert_array_equal(result.outputs[0], xs)
    assert result.runs == 2  # PJRT and the interpreter


def test_assert_same_bits_nan_and_signed_zero():
    nan1 = np.array([np.nan], np.float32)
    nan2 = np.array([0xFFC00001], np.uint32).view(np.float32)
    assert_same_bits([nan1], [nan2])  # any NaN is any NaN
    with pytest.raises(ValidationError, match=r"differs in 1 of 1 elements; first at \(0,\)"):
        assert_same_bits([np.array([0.0], np.float32)], [np.array([-0.0], np.float32)])
    with pytest.raises(ValidationError, match=r"float32\[1\] before, float64\[1\] after"):
        assert_same_bits([np.zeros(1, np.float32)], [np.zeros(1, np.float64)])
    with pytest.raises(ValidationError, match="differs"):
        assert_same_bits([np.array([1 + 2j], np.complex64)], [np.array([1 - 2j], np.complex64)])


def test_runnable_copy_turns_checks_into_outputs():
    m = runnable_copy(CORPUS_LIKE)
    text = str(m)
    assert "check." not in text
    outs = run_pjrt(m, [])
    assert len(outs) == 3  # the result, then both operands of the check
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[1].view(np.uint32), np.array([3.0, 1.0, -0.0], np.float32).view(np.uint32))


def test_lift_constant_inputs_makes_arguments():
    text, inputs = lift_constant_inputs(CORPUS_LIKE)
    assert "call @inputs" not in text
    assert [x.tolist() for x in inputs] == [[1.0, 2.0, -0.0], [3.0, 0.5, 4.0]]
    with make_context():
        m = runnable_copy(text)
        outs = run_pjrt(m, inputs)
        ref = run_interpreter(m, inputs)
    assert_same_bits(outs, ref)
    # a module without @inputs comes back as it was
    plain = "func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}"
    assert lift_constant_inputs(plain) == (plain, [])


def test_random_inputs_have_specials_but_no_subnormals(rng):
    x = random_array(rng, (4000,), np.dtype(np.float32))
    assert np.isnan(x).any() and np.isposinf(x).any() and np.isneginf(x).any()
    assert (np.signbit(x) & (x == 0)).any()
    finite = x[np.isfinite(x) & (x != 0)]
    assert (np.abs(finite) >= np.finfo(np.float32).tiny).all()
    i = random_array(rng, (4000,), np.dtype(np.int8))
    assert i.min() == -128 and i.max() == 127 and (i == 0).any()


def test_count_ops_counts_ops_in_functions():
    with make_context():
        m = ir.Module.parse(CORPUS_LIKE)
        assert count_ops(m) == 10
        assert count_ops(m, include_constants=False) == 7
