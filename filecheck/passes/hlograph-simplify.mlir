// RUN: hlograph-opt %s -p hlograph-simplify --split-input-file | filecheck %s
// RUN: hlograph-opt %s -p 'hlograph-simplify{fold-constants=false}' --split-input-file | filecheck %s --check-prefix=NOFOLD

// A fold makes a multiplication by one, which the algebra patterns remove.
// CHECK-LABEL: func.func @fold_enables_identity(
// NOFOLD-LABEL: func.func @fold_enables_identity(
func.func @fold_enables_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: stablehlo.multiply
  // CHECK: return %arg0
  // NOFOLD: stablehlo.add
  // NOFOLD: stablehlo.multiply
  %a = stablehlo.constant dense<0.25> : tensor<4xf32>
  %b = stablehlo.constant dense<0.75> : tensor<4xf32>
  %one = stablehlo.add %a, %b : tensor<4xf32>
  %0 = stablehlo.multiply %x, %one : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Two transposes cancel, then the remaining one folds into the dot.
// CHECK-LABEL: func.func @transposes_cancel_then_fold_into_dot(
func.func @transposes_cancel_then_fold_into_dot(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  // CHECK-NOT: stablehlo.transpose
  // CHECK: %[[D:.+]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0]
  // CHECK: return %[[D]]
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %3 = stablehlo.dot_general %2, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %3 : tensor<3x5xf32>
}

// -----

// The broadcast sinks past the negation and the convert, both of which then
// run on three elements.
// CHECK-LABEL: func.func @sink_through_chain(
func.func @sink_through_chain(%a: tensor<3xf32>) -> tensor<8x3xf64> {
  // CHECK: %[[N:.+]] = stablehlo.negate %arg0 : tensor<3xf32>
  // CHECK: %[[C:.+]] = stablehlo.convert %[[N]] : (tensor<3xf32>) -> tensor<3xf64>
  // CHECK: %[[B:.+]] = stablehlo.broadcast_in_dim %[[C]], dims = [1] : (tensor<3xf64>) -> tensor<8x3xf64>
  // CHECK: return %[[B]]
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<8x3xf32>
  %1 = stablehlo.negate %0 : tensor<8x3xf32>
  %2 = stablehlo.convert %1 : (tensor<8x3xf32>) -> tensor<8x3xf64>
  return %2 : tensor<8x3xf64>
}

// -----

// CHECK-LABEL: func.func @nothing_to_do_no_match(
func.func @nothing_to_do_no_match(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[S:.+]] = stablehlo.add %arg0, %arg1
  // CHECK: %[[E:.+]] = stablehlo.exponential %[[S]]
  // CHECK: return %[[E]]
  %0 = stablehlo.add %a, %b : tensor<3xf32>
  %1 = stablehlo.exponential %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}
