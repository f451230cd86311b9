// RUN: not hlograph-run %s 2>&1 | filecheck %s
// RUN: not hlograph-run -O2 %s 2>&1 | filecheck %s

// Malformed IR: MLIR's diagnostic at file:line:col, exit code 1, no traceback.
// CHECK: malformed.mlir:[[# @LINE + 5]]:8: error: 'stablehlo.add' op requires the same shape for all operands and results
// CHECK-NOT: Traceback

func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %x = stablehlo.negate %a : tensor<2xf32>
  %0 = stablehlo.add %x, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
