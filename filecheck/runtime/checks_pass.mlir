// RUN: hlograph-run %s | filecheck %s
// RUN: hlograph-run -O2 %s | filecheck %s
// RUN: hlograph-run --args-from-inputs -O2 %s | filecheck %s

// StableHLO's test convention: @main compares what it computes with @expected().
// CHECK: checks_pass.mlir: 3 checks passed
// CHECK-NOT: result

module @jit_main {
  func.func public @main() -> (tensor<4xf32>, tensor<4xi32>) {
    %0:2 = call @inputs() : () -> (tensor<4xf32>, tensor<4xi32>)
    %1:2 = call @expected() : () -> (tensor<4xf32>, tensor<4xi32>)
    %2 = stablehlo.sine %0#0 : tensor<4xf32>
    %3 = stablehlo.multiply %0#1, %0#1 : tensor<4xi32>
    stablehlo.custom_call @check.expect_close(%2, %1#0) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
    stablehlo.custom_call @check.expect_almost_eq(%2, %1#0) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
    stablehlo.custom_call @check.expect_eq(%3, %1#1) {has_side_effect = true} : (tensor<4xi32>, tensor<4xi32>) -> ()
    return %2, %3 : tensor<4xf32>, tensor<4xi32>
  }
  func.func private @inputs() -> (tensor<4xf32>, tensor<4xi32>) {
    %cst = stablehlo.constant dense<[0.0, -0.0, 1.57079637, 3.14159274]> : tensor<4xf32>
    %c = stablehlo.constant dense<[-3, 0, 7, 46341]> : tensor<4xi32>
    return %cst, %c : tensor<4xf32>, tensor<4xi32>
  }
  func.func private @expected() -> (tensor<4xf32>, tensor<4xi32>) {
    %cst = stablehlo.constant dense<[0.0, -0.0, 1.0, -8.74227766E-8]> : tensor<4xf32>
    %c = stablehlo.constant dense<[9, 0, 49, -2147479015]> : tensor<4xi32>
    return %cst, %c : tensor<4xf32>, tensor<4xi32>
  }
}
