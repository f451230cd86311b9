"""Translation validation itself: it catches passes that change results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from hlograph.xla import mlir
from hlograph.xla.mlir import hlo, ir, make_context
from hlograph.passes import ModulePass, register, registry
from hlograph.passes.patterns import apply_patterns, rewrite_pattern, splat_value
from hlograph.testing.validation import ValidationError, assert_same_bits, bitwise_mismatches, count_ops, flush_subnormals, lift_constant_inputs, random_array, random_inputs, run_interpreter, run_pjrt, validate
from hlograph.runtime.load import ArraySpec, prepare

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
    with pytest.raises(ValidationError, match=r"trial 1 \(reference interpreter\): result 0 \(tensor<64xf32>\) "
                                              r"differs in \d+ of 64 elements; "
                                              r"first at index \[\d+\]: before 0.0, after -0.0"):
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
    with pytest.raises(ValidationError, match=r"differs in 1 of 1 elements; first at index \[0\]"):
        assert_same_bits([np.array([0.0], np.float32)], [np.array([-0.0], np.float32)])
    with pytest.raises(ValidationError, match=r"float32\[1\] before, float64\[1\] after"):
        assert_same_bits([np.zeros(1, np.float32)], [np.zeros(1, np.float64)])
    with pytest.raises(ValidationError, match="differs"):
        assert_same_bits([np.array([1 + 2j], np.complex64)], [np.array([1 - 2j], np.complex64)])
    a = np.array([np.nan, 0.0, 1.0], np.float32)
    b = np.array([-np.nan, -0.0, 1.0], np.float32)
    np.testing.assert_array_equal(bitwise_mismatches(a, b), [1])


def test_run_pjrt_turns_checks_into_outputs():
    outs = run_pjrt(CORPUS_LIKE, [])
    assert len(outs) == 3  # the result, then both operands of the check
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[1].view(np.uint32), np.array([3.0, 1.0, -0.0], np.float32).view(np.uint32))


def test_lift_constant_inputs_makes_arguments():
    text, inputs = lift_constant_inputs(CORPUS_LIKE)
    assert "call @inputs" not in text
    assert [x.tolist() for x in inputs] == [[1.0, 2.0, -0.0], [3.0, 0.5, 4.0]]
    outs = run_pjrt(text, inputs)
    ref = run_interpreter(text, inputs)
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


# --------------------------------------------------------------------------- #
# Modules with every kind of element type, and pipelines given as functions
# --------------------------------------------------------------------------- #

MIXED = """
func.func @main(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>, %c: tensor<3xcomplex<f64>>,
                %d: tensor<5xi8>, %e: tensor<2xbf16>) -> (tensor<4x3xf32>, tensor<3xcomplex<f64>>,
                tensor<5xi8>, tensor<2xbf16>, tensor<5xi1>) {
  %0 = stablehlo.add %a, %b : tensor<4x3xf32>
  %1 = stablehlo.multiply %0, %a : tensor<4x3xf32>
  %2 = stablehlo.negate %c : tensor<3xcomplex<f64>>
  %3 = stablehlo.multiply %d, %d : tensor<5xi8>
  %4 = stablehlo.abs %e : tensor<2xbf16>
  %z = stablehlo.constant dense<0> : tensor<5xi8>
  %5 = stablehlo.compare LT, %d, %z : (tensor<5xi8>, tensor<5xi8>) -> tensor<5xi1>
  return %1, %2, %3, %4, %5 : tensor<4x3xf32>, tensor<3xcomplex<f64>>, tensor<5xi8>, tensor<2xbf16>, tensor<5xi1>
}
"""


def test_validate_accepts_an_identity_transform():
    report = validate(MIXED, lambda module: None)
    assert report.trials == 3 and report.compared == 15 and report.interpreter


def test_validate_accepts_an_upstream_pipeline():
    assert validate(MIXED, "canonicalize,cse", trials=2).compared == 10


def test_validate_catches_a_changed_result():
    def wrong(module):
        return str(module).replace("stablehlo.multiply %0", "stablehlo.subtract %0")
    with pytest.raises(ValidationError, match=r"trial 0 \(PJRT\): result 0 \(tensor<4x3xf32>\) differs in 12 of 12"):
        validate(MIXED, wrong)


def test_validate_catches_a_changed_signature():
    text = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
      %0 = stablehlo.negate %a : tensor<4xf32>
      return %0 : tensor<4xf32>
    }"""
    widened = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf64> {
      %0 = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xf64>
      return %0 : tensor<4xf64>
    }"""
    with pytest.raises(ValidationError, match=r"changed the signature of @main: \(tensor<4xf32>\) -> "
                                              r"\(tensor<4xf32>\) became \(tensor<4xf32>\) -> \(tensor<4xf64>\)"):
        validate(text, lambda module: widened)


def test_validate_catches_an_invalid_module():
    def breaks(module):
        return str(module).replace("-> tensor<5xi1>", "-> tensor<5xi8>")
    with pytest.raises(ValidationError, match=r"the pipeline produced an invalid module:\n<after>:\d+:\d+: error: "):
        validate(MIXED, breaks)


def test_validate_catches_a_pipeline_that_breaks_the_module():
    def corrupt(module):
        with module.context:
            main_fn = module.body.operations[0]
            main_fn.attributes["function_type"] = mlir.ir.TypeAttr.get(mlir.ir.FunctionType.get(
                mlir.ir.FunctionType(mlir.ir.TypeAttr(main_fn.attributes["function_type"]).value).inputs, []))
    with pytest.raises(ValidationError, match=r"invalid module:\n<after>:\d+:\d+: error: .*"
                                              r"\(after the pass pipeline corrupt\)"):
        validate(MIXED, corrupt)


def test_validate_catches_a_dropped_check():
    def drop_check(module):
        return "\n".join(l for l in str(module).splitlines() if "check.expect" not in l)
    with pytest.raises(ValidationError, match="changed the number of checks from 1 to 0"):
        validate(CORPUS_LIKE, drop_check)


def test_interpreter_agrees_with_pjrt_on_exact_ops(rng):
    inputs = flush_subnormals(random_inputs(prepare(MIXED).in_specs, rng, trial=1))  # as XLA:CPU sees them
    pjrt_out = run_pjrt(MIXED, inputs)
    ref_out = run_interpreter(MIXED, inputs)
    for x, y in zip(pjrt_out, ref_out):
        assert bitwise_mismatches(x, y).size == 0


def test_random_inputs_cover_special_values(rng):
    specs = [ArraySpec(np.dtype(np.float32), (1000,), "tensor<1000xf32>"),
             ArraySpec(np.dtype(np.int8), (1000,), "tensor<1000xi8>")]
    x, i = random_inputs(specs, rng, trial=1)
    assert np.isnan(x).any() and np.isposinf(x).any() and np.isneginf(x).any()
    assert (np.signbit(x) & (x == 0)).any()
    assert i.min() == -128 and i.max() == 127
    tame, small = random_inputs(specs, rng, trial=0)
    assert np.isfinite(tame).all() and np.abs(small).max() <= 8


def test_validate_ignores_xla_flushing_subnormals():
    # x == 0 and "x has no bits but the sign" agree in IEEE-754, but XLA:CPU treats
    # subnormal inputs as zero in comparisons: PJRT runs get flushed inputs, the
    # interpreter the subnormals themselves.
    text = """func.func @main(%a: tensor<512xf32>) -> tensor<512xi1> {
      %z = stablehlo.constant dense<0.0> : tensor<512xf32>
      %0 = stablehlo.compare EQ, %a, %z : (tensor<512xf32>, tensor<512xf32>) -> tensor<512xi1>
      return %0 : tensor<512xi1>
    }"""
    by_bits = """func.func @main(%a: tensor<512xf32>) -> tensor<512xi1> {
      %bits = stablehlo.bitcast_convert %a : (tensor<512xf32>) -> tensor<512xui32>
      %mask = stablehlo.constant dense<2147483647> : tensor<512xui32>
      %m = stablehlo.and %bits, %mask : tensor<512xui32>
      %z = stablehlo.constant dense<0> : tensor<512xui32>
      %0 = stablehlo.compare EQ, %m, %z : (tensor<512xui32>, tensor<512xui32>) -> tensor<512xi1>
      return %0 : tensor<512xi1>
    }"""
    assert validate(text, lambda module: by_bits, trials=3).interpreter


def test_flush_subnormals_keeps_the_sign():
    x = np.array([1e-40, -1e-40, 1.0, -0.0], np.float32)
    np.testing.assert_array_equal(np.signbit(flush_subnormals([x])[0]), [False, True, False, True])
    np.testing.assert_array_equal(flush_subnormals([x])[0], [0.0, 0.0, 1.0, 0.0])
    z = np.array([1e-40 - 1e-310j], np.complex128)
    assert flush_subnormals([z])[0][0] == 1e-40


# --------------------------------------------------------------------------- #
# Modules that would stop the reference interpreter never reach it
# --------------------------------------------------------------------------- #

INTERPRETER_GUARDS = {
    "fft": ("""func.func @main(%a: tensor<8xf32>) -> tensor<5xcomplex<f32>> {
  %0 = stablehlo.fft %a, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
  return %0 : tensor<5xcomplex<f32>>
}""", "aborts on stablehlo.fft"),
    "integer_divide": ("""func.func @main(%a: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<8xi32> {
  %0 = stablehlo.divide %a, %b : tensor<8xi32>
  return %0 : tensor<8xi32>
}""", "integer stablehlo.divide traps"),
    "integer_remainder_by_minus_one": ("""func.func @main(%a: tensor<8xi8>) -> tensor<8xi8> {
  %c = stablehlo.constant dense<-1> : tensor<i8>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i8>) -> tensor<8xi8>
  %0 = stablehlo.remainder %a, %b : tensor<8xi8>
  return %0 : tensor<8xi8>
}""", "integer stablehlo.remainder traps"),
    "custom_call": ("""func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.custom_call @Sharding(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}""", "does not run stablehlo.custom_call"),
    "chlo_after_legalization_runs": ("""func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = chlo.erf %a : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}""", None),
    "integer_divide_by_constant_runs": ("""func.func @main(%a: tensor<8xi32>) -> tensor<8xi32> {
  %c = stablehlo.constant dense<3> : tensor<8xi32>
  %0 = stablehlo.divide %a, %c : tensor<8xi32>
  return %0 : tensor<8xi32>
}""", None),
}


@pytest.mark.parametrize("case", list(INTERPRETER_GUARDS))
def test_validate_guards_the_interpreter(case):
    text, obstacle = INTERPRETER_GUARDS[case]
    result = validate(text, "canonicalize", trials=2)
    assert result.runs == (2 if obstacle else 4)
    assert result.interpreter == (obstacle is None)
    if obstacle:
        assert obstacle in result.note
        with pytest.raises(ValueError, match=obstacle):
            validate(text, "canonicalize", interpreter=True)


def test_validate_needs_something_to_compare_with():
    text = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}"
    with pytest.raises(ValueError, match="nothing to compare: pjrt=False and interpreter=False"):
        validate(text, "canonicalize", pjrt=False, interpreter=False)
    with pytest.raises(ValueError, match="interpreter must be True, False or 'auto', got None"):
        validate(text, "canonicalize", interpreter=None)
