// RUN: hlograph-opt %s -p hlograph-fold-dot-transposes --split-input-file | filecheck %s

// CHECK-LABEL: func.func @transposed_lhs(
func.func @transposed_lhs(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  // CHECK-NOT: stablehlo.transpose
  // CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0] : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %0 = stablehlo.dot_general %t, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @transposed_rhs_batched(
func.func @transposed_rhs_batched(%a: tensor<2x3x4xf32>, %b: tensor<5x2x4xf32>) -> tensor<2x3x5xf32> {
  // CHECK-NOT: stablehlo.transpose
  // CHECK: stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<5x2x4xf32>) -> tensor<2x3x5xf32>
  %t = stablehlo.transpose %b, dims = [1, 2, 0] : (tensor<5x2x4xf32>) -> tensor<2x4x5xf32>
  %0 = stablehlo.dot_general %a, %t, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @both_operands(
func.func @both_operands(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>) -> tensor<3x5xf32> {
  // CHECK-NOT: stablehlo.transpose
  // CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [1] : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  %ta = stablehlo.transpose %a, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %tb = stablehlo.transpose %b, dims = [1, 0] : (tensor<5x4xf32>) -> tensor<4x5xf32>
  %0 = stablehlo.dot_general %ta, %tb, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @free_dims_reordered_no_match(
func.func @free_dims_reordered_no_match(%a: tensor<3x2x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  // CHECK: %[[T:.+]] = stablehlo.transpose %arg0, dims = [1, 0, 2]
  // CHECK: stablehlo.dot_general %[[T]], %arg1, contracting_dims = [2] x [0]
  %t = stablehlo.transpose %a, dims = [1, 0, 2] : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %0 = stablehlo.dot_general %t, %b, contracting_dims = [2] x [0] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
