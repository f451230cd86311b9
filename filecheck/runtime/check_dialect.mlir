// RUN: hlograph-run --split-input-file %s | filecheck %s
// RUN: hlograph-run --split-input-file -O2 %s | filecheck %s

// The check dialect of StableHLO's interpreter tests, one function per case
// (the only function of a module is the one that runs).

// CHECK: check_dialect.mlir: 2 checks passed
func.func @check_eq() {
  %operand = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
  %result = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
  check.expect_eq %operand, %result : tensor<3xi64>
  check.expect_eq_const %operand, dense<[-2, 0, 2]> : tensor<3xi64>
  func.return
}

// -----

// The dialect's default tolerance is 1e-4.
// CHECK: check_dialect.mlir: 3 checks passed
func.func @check_almost_eq() {
  %operand = stablehlo.constant dense<5.0000> : tensor<f64>
  %result = stablehlo.constant dense<5.0001> : tensor<f64>
  check.expect_almost_eq %operand, %result : tensor<f64>
  check.expect_almost_eq %operand, %result, tolerance = 0.1 : tensor<f64>
  check.expect_almost_eq_const %operand, dense<5.1> : tensor<f64> {tolerance = 0.1 : f64}
  func.return
}

// -----

// CHECK: check_dialect.mlir: 1 check passed
func.func @check_close() {
  %operand = stablehlo.constant dense<5.0000> : tensor<f16>
  %result = stablehlo.constant dense<5.010> : tensor<f16>
  check.expect_close %operand, %result, max_ulp_difference = 3 : tensor<f16>, tensor<f16>
  func.return
}

