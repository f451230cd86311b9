// RUN: hlograph-opt %s -p hlograph-sink-broadcasts --split-input-file | filecheck %s

// CHECK-LABEL: func.func @binary_of_broadcasts(
func.func @binary_of_broadcasts(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  // CHECK: %[[M:.+]] = stablehlo.multiply %arg0, %arg1 : tensor<3xf32>
  // CHECK: %[[B:.+]] = stablehlo.broadcast_in_dim %[[M]], dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: return %[[B]]
  %ba = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  %0 = stablehlo.multiply %ba, %bb : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @unary_and_splat(
func.func @unary_and_splat(%a: tensor<3xf32>) -> tensor<4x3xi1> {
  // CHECK-DAG: %[[C:.+]] = stablehlo.constant dense<2.000000e+00> : tensor<3xf32>
  // CHECK-DAG: %[[E:.+]] = stablehlo.exponential %arg0 : tensor<3xf32>
  // CHECK: %[[P:.+]] = stablehlo.compare GT, %[[E]], %[[C]], FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  // CHECK: stablehlo.broadcast_in_dim %[[P]], dims = [1] : (tensor<3xi1>) -> tensor<4x3xi1>
  %ba = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  %e = stablehlo.exponential %ba : tensor<4x3xf32>
  %c = stablehlo.constant dense<2.0> : tensor<4x3xf32>
  %0 = stablehlo.compare GT, %e, %c, FLOAT : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xi1>
  return %0 : tensor<4x3xi1>
}

// -----

// CHECK-LABEL: func.func @select_scalar_predicate(
func.func @select_scalar_predicate(%p: tensor<i1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[S:.+]] = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<3xf32>
  // CHECK: stablehlo.broadcast_in_dim %[[S]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %ba = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %0 = stablehlo.select %p, %ba, %bb : tensor<i1>, tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @different_dims_no_match(
func.func @different_dims_no_match(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3x3xf32> {
  // CHECK: stablehlo.add {{.*}} : tensor<3x3xf32>
  %ba = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<3xf32>) -> tensor<3x3xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<3x3xf32>
  %0 = stablehlo.add %ba, %bb : tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_used_twice_no_match(
func.func @broadcast_used_twice_no_match(%a: tensor<3xf32>, %b: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  // CHECK: stablehlo.negate {{.*}} : tensor<4x3xf32>
  // CHECK: stablehlo.add {{.*}} : tensor<4x3xf32>
  %ba = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  %0 = stablehlo.negate %ba : tensor<4x3xf32>
  %1 = stablehlo.add %ba, %b : tensor<4x3xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @same_size_no_match(
func.func @same_size_no_match(%a: tensor<3x1xf32>) -> tensor<1x3xf32> {
  // CHECK: stablehlo.negate {{.*}} : tensor<1x3xf32>
  %ba = stablehlo.broadcast_in_dim %a, dims = [1, 0] : (tensor<3x1xf32>) -> tensor<1x3xf32>
  %0 = stablehlo.negate %ba : tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}
