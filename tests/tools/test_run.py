"""hlograph.runtime.load, the check.* convention and hlograph-run."""

from __future__ import annotations

import io
import re

import ml_dtypes
import numpy as np
import pytest

from hlograph.xla import mlir
from hlograph.runtime.checks import (Check, CheckError, CheckSyntaxError, evaluate_check,
                                     rewrite_check_syntax, ulp_difference)
from hlograph.runtime.load import (CheckFailure, LoadedModule, MLIRDiagnosticError, element_dtype, load,
                                   prepare)
from hlograph.tools.run import main

# --------------------------------------------------------------------------- #
# Modules used below
# --------------------------------------------------------------------------- #

ADD = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""

TWO_RESULTS = """
func.func @main(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi1>) {
  %0 = stablehlo.multiply %a, %a : tensor<4xi32>
  %z = stablehlo.constant dense<0> : tensor<4xi32>
  %1 = stablehlo.compare LT, %a, %z : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi32>, tensor<4xi1>
}
"""

# The shape of StableHLO's testdata programs: constants from private functions.
CORPUS_STYLE = """
module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<3xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = call @inputs() : () -> tensor<3xf32>
    %1 = call @expected() : () -> tensor<3xf32>
    %2 = stablehlo.negate %0 : tensor<3xf32>
    stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    return %2 : tensor<3xf32>
  }
  func.func private @inputs() -> (tensor<3xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<[1.5, -2.0, 0.0]> : tensor<3xf32>
    return %cst : tensor<3xf32>
  }
  func.func private @expected() -> (tensor<3xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<EXPECTED> : tensor<3xf32>
    return %cst : tensor<3xf32>
  }
}
"""


def corpus_style(expected: str = "[-1.5, 2.0, -0.0]") -> str:
    return CORPUS_STYLE.replace("EXPECTED", expected)


def cli(argv, *, stdin_text=None):
    out, err = io.StringIO(), io.StringIO()
    rc = main([str(a) for a in argv], stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def write(tmp_path, text, name="m.mlir"):
    p = tmp_path / name
    p.write_text(text)
    return p


# --------------------------------------------------------------------------- #
# load()
# --------------------------------------------------------------------------- #

def test_load_runs_main_with_arguments(rng):
    f = load(ADD)
    a, b = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    out = f(a, b)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, a + b)


def test_load_reads_arrays_of_the_other_byte_order_by_value(rng):
    f = load(ADD)
    a, b = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    swapped = a.astype(a.dtype.newbyteorder())
    np.testing.assert_array_equal(f(swapped, b), a + b)
    with pytest.raises(TypeError, match=r"argument 1: expected float32\[2,3\].*got float64\[2,3\]"):
        f(a, b.astype(">f8"))


def test_load_multiple_results_are_a_tuple(rng):
    a = rng.integers(-100, 100, 4).astype(np.int32)
    sq, neg = load(TWO_RESULTS)(a)
    np.testing.assert_array_equal(sq, a * a)
    assert neg.dtype == np.bool_
    np.testing.assert_array_equal(neg, a < 0)


@pytest.mark.parametrize("mlir_type, dtype", [
    ("i1", np.bool_), ("i8", np.int8), ("i64", np.int64), ("ui8", np.uint8), ("ui64", np.uint64),
    ("f16", np.float16), ("bf16", ml_dtypes.bfloat16), ("f64", np.float64),
    ("complex<f32>", np.complex64), ("complex<f64>", np.complex128),
    ("f8E4M3FN", ml_dtypes.float8_e4m3fn),
], ids=str)
def test_load_maps_element_types_to_numpy(mlir_type, dtype, rng):
    text = f"""
    func.func @main(%a: tensor<3x2x{mlir_type}>) -> tensor<2x3x{mlir_type}> {{
      %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<3x2x{mlir_type}>) -> tensor<2x3x{mlir_type}>
      return %0 : tensor<2x3x{mlir_type}>
    }}"""
    f = load(text)
    assert f.in_specs[0].dtype == np.dtype(dtype) and f.in_specs[0].shape == (3, 2)
    x = (rng.standard_normal((3, 2)) * 4).astype(dtype)
    out = f(x)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.view(np.uint8), x.T.copy().view(np.uint8))


def test_element_dtype_rejects_unknown_types():
    with mlir.make_context():
        with pytest.raises(TypeError, match="index has no NumPy equivalent"):
            element_dtype(mlir.ir.IndexType.get())


def test_load_reads_bytecode_and_portable_artifacts(rng):
    ctx = mlir.make_context()
    with ctx:
        module = mlir.ir.Module.parse(ADD)
        bytecode = mlir.module_to_bytecode(module)
        artifact = mlir.serialize_portable_artifact(module)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    for source in (bytecode, artifact, module):
        np.testing.assert_array_equal(load(source)(a, a), a + a)


def test_load_does_not_modify_an_ir_module():
    with mlir.make_context():
        module = mlir.ir.Module.parse(corpus_style())
        before = str(module)
        load(module)()
        assert str(module) == before


def test_load_checks_arguments(rng):
    f = load(ADD)
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match=r"@main takes 2 arguments \(float32\[2,3\], float32\[2,3\]\), got 1"):
        f(a)
    with pytest.raises(TypeError, match=r"argument 1: expected float32\[2,3\] \(tensor<2x3xf32>\), got float64\[2,3\]"):
        f(a, a.astype(np.float64))
    with pytest.raises(ValueError, match=r"argument 0: expected float32\[2,3\] \(tensor<2x3xf32>\), got float32\[3,2\]"):
        f(a.reshape(3, 2), a)
    with pytest.raises(TypeError, match="argument 0: expected an array"):
        f("x", a)


def test_load_accepts_python_scalars_for_0d_arguments():
    text = """func.func @main(%a: tensor<f64>) -> tensor<f64> {
      %0 = stablehlo.multiply %a, %a : tensor<f64>
      return %0 : tensor<f64>
    }"""
    assert load(text)(3) == 9.0
    # NumPy scalars are arrays with a dtype: float64 fits, float32 is refused
    assert load(text)(np.float64(1.5)) == 2.25
    with pytest.raises(TypeError, match=r"argument 0: expected float64\[\].*got float32\[\]"):
        load(text)(np.float32(1.5))


def test_load_malformed_mlir_has_a_located_diagnostic():
    text = "func.func @main() -> tensor<f32> {\n  %0 = stablehlo.constant dense<1.0> : tensor<f32>\n" \
           "  %1 = stablehlo.bogus %0 : tensor<f32>\n  return %1 : tensor<f32>\n}\n"
    with pytest.raises(MLIRDiagnosticError, match=r"bad\.mlir:3:8: error: custom op 'stablehlo.bogus' is unknown"):
        load(text, filename="bad.mlir")


def test_load_rejects_unregistered_ops():
    text = """func.func @main(%a: tensor<f32>) -> tensor<f32> {
      "mydialect.op"(%a) : (tensor<f32>) -> ()
      return %a : tensor<f32>
    }"""
    with pytest.raises(MLIRDiagnosticError, match=r"x\.mlir:2:\d+: error: unregistered operation 'mydialect.op'"):
        load(text, filename="x.mlir")


def test_load_needs_a_public_main():
    text = """
    func.func @f(%a: tensor<f32>) -> tensor<f32> { return %a : tensor<f32> }
    func.func @g(%a: tensor<f32>) -> tensor<f32> { return %a : tensor<f32> }"""
    with pytest.raises(ValueError, match=r"no public @main function \(public functions: @f, @g\)"):
        load(text)


def test_load_runs_the_only_function_of_a_module():
    text = "func.func @only(%a: tensor<2xi8>) -> tensor<2xi8> {\n" \
           "  %0 = stablehlo.negate %a : tensor<2xi8>\n  return %0 : tensor<2xi8>\n}"
    x = np.array([3, -4], np.int8)
    np.testing.assert_array_equal(load(text)(x), -x)


def test_load_rejects_dynamic_shapes():
    text = "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> { return %a : tensor<?xf32> }"
    with pytest.raises(TypeError, match=r"argument 0 of @main has the dynamic type tensor<\?xf32>"):
        load(text)


# --------------------------------------------------------------------------- #
# Checks in modules
# --------------------------------------------------------------------------- #

def test_load_passing_checks_return_the_results():
    out = load(corpus_style())()
    np.testing.assert_array_equal(out, -np.array([1.5, -2.0, 0.0], np.float32))


def test_load_failing_check_raises_check_failure():
    with pytest.raises(CheckFailure, match=r"1 of 1 checks failed") as info:
        load(corpus_style("[-1.5, 2.5, 0.0]"), filename="t.mlir")()
    report = info.value.outcomes[0].report()
    assert report.startswith("t.mlir:7:5: error: check #0 (check.expect_close, max 3 ULP) failed: ")
    assert "1 of 3 elements differ by more than 3 ULP" in report
    assert "first mismatch at index [1]: actual 2.0, expected 2.5" in report


def test_run_result_reports_every_check():
    text = """
    func.func @main() -> tensor<3xi32> {
      %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
      %b = stablehlo.constant dense<[1, 0, 3]> : tensor<3xi32>
      stablehlo.custom_call @check.expect_eq(%a, %a) {has_side_effect = true} : (tensor<3xi32>, tensor<3xi32>) -> ()
      stablehlo.custom_call @check.expect_eq(%a, %b) {has_side_effect = true} : (tensor<3xi32>, tensor<3xi32>) -> ()
      return %a : tensor<3xi32>
    }"""
    result = load(text).run()
    assert [o.passed for o in result.outcomes] == [True, False]
    assert result.failures[0].message.startswith("1 of 3 elements differ")
    np.testing.assert_array_equal(result.results[0], [1, 2, 3])


PRIVATE_CHECKS = """
func.func @main() -> tensor<2xf32> {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = call @helper(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %c = call @helper(%b) : (tensor<2xf32>) -> tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = stablehlo.add %x, %x : tensor<2xf32>
  %e = stablehlo.constant dense<[2.0, 4.0]> : tensor<2xf32>
  stablehlo.custom_call @check.expect_eq(%y, %e) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  return %y : tensor<2xf32>
}
"""


def test_checks_in_private_functions_run_once_per_call():
    result = load(PRIVATE_CHECKS, filename="p.mlir").run()
    assert [o.passed for o in result.outcomes] == [True, False]  # 2*[1,2] passes, 2*[2,4] does not
    assert result.outcomes[1].check.location == "p.mlir:11:3 (in @helper called from p.mlir:5:8)"
    np.testing.assert_array_equal(result.results[0], [4.0, 8.0])


def test_check_inside_a_region_is_an_error():
    text = """
    func.func @main(%p: tensor<i1>) -> tensor<f32> {
      %0 = "stablehlo.if"(%p) ({
        %a = stablehlo.constant dense<1.0> : tensor<f32>
        stablehlo.custom_call @check.expect_eq(%a, %a) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
        stablehlo.return %a : tensor<f32>
      }, {
        %b = stablehlo.constant dense<2.0> : tensor<f32>
        stablehlo.return %b : tensor<f32>
      }) : (tensor<i1>) -> tensor<f32>
      return %0 : tensor<f32>
    }"""
    with pytest.raises(CheckError, match=r"r\.mlir:5:9: error: check.expect_eq sits inside a stablehlo.if region"):
        load(text, filename="r.mlir")


def test_unknown_check_is_an_error():
    text = """func.func @main() -> () {
      %a = stablehlo.constant dense<1.0> : tensor<f32>
      stablehlo.custom_call @check.expect_nearly(%a, %a) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()
      return
    }"""
    with pytest.raises(CheckError, match=r"unknown check 'check.expect_nearly'; expected one of check.expect_eq, "):
        load(text)


CHECK_DIALECT = """
func.func @main() -> tensor<2xf64> {
  %a = stablehlo.constant dense<[5.0, -1.0]> : tensor<2xf64>
  %b = stablehlo.constant dense<[5.00005, -1.0]> : tensor<2xf64>
  %h = stablehlo.constant dense<[5.0, 1.0]> : tensor<2xf16>
  %h2 = stablehlo.constant dense<[5.01, 1.0]> : tensor<2xf16>
  %i = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
  check.expect_eq %i, %i : tensor<3xi64>
  check.expect_eq_const %i, dense<[-2, 0, 2]> : tensor<3xi64>
  check.expect_almost_eq %a, %b : tensor<2xf64>
  check.expect_almost_eq %a, %b, tolerance = 0.1 : tensor<2xf64>
  check.expect_almost_eq_const %a, dense<[5.1, -1.0]> : tensor<2xf64> {tolerance = 0.2 : f64}
  check.expect_almost_eq_const %a, dense<[5.00001, -1.0]> : tensor<2xf64>, tolerance = 0.0001
  check.expect_close %h, %h2, max_ulp_difference = 3 : tensor<2xf16>, tensor<2xf16>
  check.expect_close %h, %h2, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf16>, tensor<2xf16>
  return %a : tensor<2xf64>
}
"""


def test_check_dialect_syntax_is_evaluated_like_the_reference_checker():
    result = load(CHECK_DIALECT).run()
    kinds = [o.check.kind for o in result.outcomes]
    assert kinds == ["expect_eq", "expect_eq", "expect_almost_eq", "expect_almost_eq",
                     "expect_almost_eq", "expect_almost_eq", "expect_close", "expect_close"]
    # the dialect's default tolerance is 1e-4; the last close check demands >= 1 ULP everywhere
    assert [o.passed for o in result.outcomes] == [True, True, True, True, True, True, True, False]
    assert result.outcomes[-1].message.startswith("1 of 2 elements are not within 1..3 ULP")


def test_check_syntax_keeps_line_numbers():
    text = rewrite_check_syntax(CHECK_DIALECT)
    assert text.count("\n") == CHECK_DIALECT.count("\n")
    assert '"check.expect_eq_const"(%i) {value = dense<[-2, 0, 2]> : tensor<3xi64>}' in text


def test_check_syntax_error_is_located():
    text = "func.func @main() -> () {\n  %a = stablehlo.constant dense<1.0> : tensor<f32>\n" \
           "  check.expect_close %a, %a : tensor<f32>, tensor<f32>\n  return\n}"
    with pytest.raises(CheckSyntaxError, match=r"s\.mlir:3:\d+: error: cannot parse check.expect_close"):
        load(text, filename="s.mlir")


# --------------------------------------------------------------------------- #
# The comparisons
# --------------------------------------------------------------------------- #

def _check(kind, **kw):
    return Check(index=0, kind=kind, location="t.mlir:1:1", outputs=(0, 1), **kw)


def _steps(x, k):
    """``x`` moved ``k`` representable values towards +inf."""
    for _ in range(k):
        x = np.nextafter(x, np.array(np.inf, x.dtype))
    return x


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_ulp_difference_counts_representable_values(dtype, rng):
    x = rng.standard_normal(5).astype(dtype)
    for k in (0, 1, 3, 7):
        np.testing.assert_array_equal(ulp_difference(_steps(x, k), x), k)
        np.testing.assert_array_equal(ulp_difference(x, _steps(x, k)), k)


def test_ulp_difference_across_zero_adds_both_distances():
    tiny = np.array([np.finfo(np.float32).smallest_subnormal], np.float32)
    np.testing.assert_array_equal(ulp_difference(-tiny, tiny), 2)
    np.testing.assert_array_equal(ulp_difference(np.float32([-0.0]), np.float32([0.0])), 0)


def test_ulp_difference_of_non_finite_values():
    big = np.iinfo(np.uint64).max
    a = np.array([np.nan, np.inf, np.inf, np.nan, -np.inf], np.float32)
    e = np.array([-np.nan, np.inf, 1.0, 1.0, np.inf], np.float32)
    np.testing.assert_array_equal(ulp_difference(a, e), [0, 0, big, big, big])


def test_ulp_difference_bfloat16_and_complex():
    x = np.array([1.0, -3.0], ml_dtypes.bfloat16)
    y = x.view(np.uint16) + np.uint16(2)
    np.testing.assert_array_equal(ulp_difference(x, y.view(ml_dtypes.bfloat16)), 2)
    z = np.array([1 + 1j], np.complex64)
    w = np.array([_steps(np.float32(1), 1) + 1j * _steps(np.float32(1), 4)], np.complex64)
    np.testing.assert_array_equal(ulp_difference(z, w), 4)


def test_expect_eq_is_ieee_equality():
    ok = evaluate_check(_check("expect_eq"), [np.float32([0.0, 1.0]), np.float32([-0.0, 1.0])])
    assert ok.passed
    nan = evaluate_check(_check("expect_eq"), [np.float32([np.nan]), np.float32([np.nan])])
    assert not nan.passed
    c = evaluate_check(_check("expect_eq"), [np.complex64([1 + 2j]), np.complex64([1 - 2j])])
    assert not c.passed and "actual (1+2j), expected (1-2j)" in c.message


def test_expect_almost_eq_tolerance():
    chk = _check("expect_almost_eq", tolerance=1e-3)
    e = np.float64([1.0, np.nan, np.inf, 0.0])
    assert evaluate_check(chk, [np.float64([1.0009, np.nan, np.inf, -0.0]), e]).passed
    out = evaluate_check(chk, [np.float64([1.002, np.nan, -np.inf, 0.0]), e])
    assert not out.passed and out.message.startswith("2 of 4 elements differ by more than 0.001")
    assert "first mismatch at index [0]: actual 1.002, expected 1.0" in out.message
    z = np.complex64([1 + 1j])
    assert not evaluate_check(chk, [z + np.complex64(0.01j), z]).passed


def test_expect_close_limits():
    x = np.float32([1.0, 2.0])
    assert evaluate_check(_check("expect_close", min_ulp_difference=0, max_ulp_difference=3),
                          [_steps(x, 3), x]).passed
    out = evaluate_check(_check("expect_close", min_ulp_difference=0, max_ulp_difference=3),
                         [_steps(x, 4), x])
    assert not out.passed and "(max ULP difference 4, " in out.message


def test_check_type_mismatch_fails():
    out = evaluate_check(_check("expect_eq"), [np.float32([1.0]), np.float64([1.0])])
    assert not out.passed and out.message == "type mismatch: actual float32[1], expected float64[1]"


def test_serialized_eq_reads_probe_files(tmp_path):
    np.save(tmp_path / "probe1.npy", np.array([1, 2, 3], np.int32))
    np.save(tmp_path / "probe2.npy", np.array([1, 5, 3], np.int32))
    (tmp_path / "index.csv").write_text(
        f"p,tensor<3xi32>,{tmp_path / 'probe1.npy'}\nq,tensor<3xi32>,{tmp_path / 'probe1.npy'}\n"
        f"p,tensor<3xi32>,{tmp_path / 'probe2.npy'}\n")
    text = """func.func @main() -> () {
      %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
      check.expect_serialized_eq %a, probe_id = "p" : tensor<3xi32>
      check.expect_serialized_eq %a, probe_id = "p", iter = 1 : tensor<3xi32>
      return
    }"""
    result = load(text).run(probe_dir=str(tmp_path))
    assert [o.passed for o in result.outcomes] == [True, False]
    with pytest.raises(CheckError, match="needs the probe directory"):
        load(text).run()


# --------------------------------------------------------------------------- #
# hlograph-run
# --------------------------------------------------------------------------- #

def test_cli_prints_results(tmp_path):
    rc, out, err = cli([write(tmp_path, """func.func @main() -> (tensor<2xf32>, tensor<i1>) {
      %a = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
      %b = stablehlo.constant dense<true> : tensor<i1>
      return %a, %b : tensor<2xf32>, tensor<i1>
    }""")])
    assert (rc, err) == (0, "")
    assert out == (f"result 0: tensor<2xf32>\n{np.float32([1.5, -2.0])!r}\n"
                   f"result 1: tensor<i1>\n{np.array(True)!r}\n")


def test_cli_takes_npy_inputs(tmp_path, rng):
    a, b = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2))
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    rc, out, _ = cli([write(tmp_path, ADD), "--input", tmp_path / "a.npy", "--input", tmp_path / "b.npy"])
    assert rc == 0 and out == f"result 0: tensor<2x3xf32>\n{a + b!r}\n"


def test_cli_takes_npz_inputs_in_positional_order(tmp_path):
    text = """func.func @main(%a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {
      %0 = stablehlo.subtract %a, %b : tensor<i32>
      return %0 : tensor<i32>
    }"""
    np.savez(tmp_path / "in.npz", arr_1=np.int32(3), arr_0=np.int32(10))
    rc, out, _ = cli([write(tmp_path, text), "--inputs", tmp_path / "in.npz"])
    assert rc == 0 and out.endswith(f"{np.array(7, np.int32)!r}\n")
    np.savez(tmp_path / "named.npz", y=np.int32(10), x=np.int32(3))
    rc, out, _ = cli([write(tmp_path, text), "--inputs", tmp_path / "named.npz"])
    assert rc == 0 and out.endswith(f"{np.array(7, np.int32)!r}\n")


def test_cli_reads_bfloat16_npy(tmp_path):
    text = """func.func @main(%a: tensor<2xbf16>) -> tensor<2xbf16> {
      %0 = stablehlo.negate %a : tensor<2xbf16>
      return %0 : tensor<2xbf16>
    }"""
    np.save(tmp_path / "a.npy", np.array([1.5, 2.0], ml_dtypes.bfloat16))
    rc, out, err = cli([write(tmp_path, text), "--input", tmp_path / "a.npy"])
    assert rc == 0, err
    assert "-1.5" in out and "-2" in out


def test_cli_wrong_inputs_exit_1(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros((2, 3), np.float64))
    rc, out, err = cli([write(tmp_path, ADD), "--input", tmp_path / "a.npy"])
    assert rc == 1 and out == ""
    assert err.startswith("hlograph-run: error: ") and "@main takes 2 arguments" in err
    assert "Traceback" not in err


def test_cli_missing_file_exit_1(tmp_path):
    rc, _, err = cli([tmp_path / "nope.mlir"])
    assert rc == 1 and "cannot read" in err and "No such file or directory" in err


def test_cli_usage_error_exit_2(tmp_path, capsys):
    assert main(["--no-such-flag", "x.mlir"]) == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_cli_malformed_mlir_has_file_line_col(tmp_path):
    p = write(tmp_path, "func.func @main() -> () {\n  %0 = stablehlo.add\n}\n", "broken.mlir")
    rc, out, err = cli([p])
    assert rc == 1 and out == ""
    assert re.match(rf"{re.escape(str(p))}:2:\d+: error: expected SSA operand\n$", err)


def test_cli_failed_check_reports_and_exits_1(tmp_path):
    p = write(tmp_path, corpus_style("[-1.5, 2.0, 1.0e-3]"))
    rc, out, err = cli([p])
    assert rc == 1 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith(f"{p}:7:5: error: check #0 (check.expect_close, max 3 ULP) failed: "
                               "1 of 3 elements differ by more than 3 ULP (max ULP difference ")
    assert "first mismatch at index [2]: actual -0.0, expected 0.001" in lines[0]
    assert lines[-1] == f"{p}: 1 of 1 check failed"


def test_cli_passing_checks_print_a_summary(tmp_path):
    p = write(tmp_path, corpus_style())
    assert cli([p]) == (0, f"{p}: 1 check passed\n", "")
    rc, out, _ = cli([p, "--print-results"])
    assert rc == 0 and out.startswith("result 0: tensor<3xf32>\n")


def test_cli_args_from_inputs_gives_the_same_results(tmp_path):
    p = write(tmp_path, corpus_style())
    rc, out, err = cli([p, "--args-from-inputs", "--print-results"])
    assert (rc, err) == (0, "")
    assert out == cli([p, "--print-results"])[1]


def test_prepare_args_from_inputs_makes_arguments():
    prepared = prepare(corpus_style(), args_from="inputs")
    assert [s.mlir_type for s in prepared.in_specs] == ["tensor<3xf32>"]
    np.testing.assert_array_equal(prepared.bound_args[0], [1.5, -2.0, 0.0])
    assert "call @inputs" not in prepared.as_text()
    f = LoadedModule(prepared)
    assert f.run(np.float32([1.5, -2.0, 0.0])).passed
    assert not f.run(np.float32([1.5, -2.0, 1.0])).passed


def test_cli_split_input_file_keeps_line_numbers(tmp_path):
    p = write(tmp_path, "func.func @main() -> tensor<i8> {\n"
                        "  %0 = stablehlo.constant dense<1> : tensor<i8>\n  return %0 : tensor<i8>\n}\n"
                        "// -----\n"
                        "func.func @main() -> tensor<i8> {\n  %0 = stablehlo.oops\n}\n")
    rc, out, err = cli([p, "--split-input-file"])
    assert rc == 1
    assert out.startswith("result 0: tensor<i8>\n")
    assert err.startswith(f"{p}:7:")


def test_cli_runs_a_pipeline(tmp_path):
    p = write(tmp_path, corpus_style())
    assert cli([p, "--pass-pipeline", "canonicalize,cse"])[0] == 0
    rc, _, err = cli([p, "-p", "no-such-pass"])
    assert rc == 1 and "no-such-pass" in err and "Traceback" not in err


def test_cli_reads_stdin(monkeypatch, tmp_path):
    import sys
    data = corpus_style().encode()
    monkeypatch.setattr(sys, "stdin", type("S", (), {"buffer": io.BytesIO(data)})())
    assert cli(["-"]) == (0, "<stdin>: 1 check passed\n", "")
